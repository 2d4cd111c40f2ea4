"""CompilationError messages: where (file:line:col, source line, caret, call chain) and what
(the message says what went wrong and, for unsupported constructs, what to write instead)."""

import pickle

import pytest
from fe_helpers import ttir

import triton_tile as triton
import triton_tile.language as tl
from triton_tile.compiler.errors import (
    CompilationError,
    CompileTimeAssertionFailure,
    UnsupportedLanguageConstruct,
)

THIS_FILE = __file__
NOT_CONSTEXPR = 5
IS_CONSTEXPR = tl.constexpr(7)


def compile_error(fn, signature, constants=None, cls=CompilationError) -> CompilationError:
    with pytest.raises(cls) as info:
        ttir(fn, signature, constants)
    return info.value


def line_of(fn, needle: str) -> int:
    """The file line of the first body line of `fn` containing `needle`."""
    for i, line in enumerate(fn.src.splitlines()):
        if i > 0 and needle in line:
            return fn.starting_line_number + i
    raise AssertionError(needle)


@triton.jit
def undefined_var(X):
    tl.store(X, foo)  # noqa: F821


def test_undefined_variable():
    err = compile_error(undefined_var, {"X": "*fp32"})
    text = str(err)
    assert "foo is not defined" in text
    assert f"{THIS_FILE}:{line_of(undefined_var, 'foo')}:17:" in text
    # the source line and a caret under the column
    assert "tl.store(X, foo)" in text
    lines = text.splitlines()
    caret = lines[2]
    assert caret.strip() == "^" and caret.index("^") == lines[1].index("foo")


@triton.jit
def static_assert_fails(X, B: tl.constexpr):
    tl.static_assert(B > 64, f"B must be > 64, got {B}")


def test_static_assert_failure():
    err = compile_error(static_assert_fails, {"X": "*fp32"}, {"B": 32},
                        CompileTimeAssertionFailure)
    assert "static_assert failed: B must be > 64, got 32" in str(err)


@triton.jit
def arange_not_pow2(X):
    tl.store(X + tl.arange(0, 10), 1.0)


def test_non_power_of_two_arange():
    err = compile_error(arange_not_pow2, {"X": "*fp32"})
    assert "arange's range must be a power of 2" in str(err)
    assert f":{line_of(arange_not_pow2, 'arange')}:" in str(err)


@triton.jit
def zeros_not_pow2(X):
    tl.store(X + tl.arange(0, 8), tl.sum(tl.zeros((8, 3), tl.float32), 1))


def test_non_power_of_two_block_shape():
    assert "must be a power of 2" in str(compile_error(zeros_not_pow2, {"X": "*fp32"}))


@triton.jit
def return_in_loop(X, N):
    for i in range(N):
        if i > 2:
            return
        tl.store(X + i, i)


def test_return_in_loop():
    err = compile_error(return_in_loop, {"X": "*i32", "N": "i32"}, cls=UnsupportedLanguageConstruct)
    assert "`return` inside a loop is not supported" in str(err)


@triton.jit
def uses_break(X, N):
    for _ in range(N):
        break


@triton.jit
def uses_continue(X, N):
    for _ in range(N):
        continue


def test_break_and_continue():
    err = compile_error(uses_break, {"X": "*i32", "N": "i32"}, cls=UnsupportedLanguageConstruct)
    assert "`break` is not supported" in str(err) and "while" in str(err)
    err = compile_error(uses_continue, {"X": "*i32", "N": "i32"},
                        cls=UnsupportedLanguageConstruct)
    assert "`continue` is not supported" in str(err)


@triton.jit
def carried_type_change(X, N):
    acc = 0
    for _ in range(N):
        acc += tl.load(X)
    tl.store(X, acc)


def test_loop_carried_type_change():
    err = compile_error(carried_type_change, {"X": "*fp32", "N": "i32"})
    assert ("Loop-carried variable acc has initial type int32 but is re-assigned to fp32 in "
            "loop") in str(err)


@triton.jit
def reads_global(X):
    tl.store(X, NOT_CONSTEXPR)


@triton.jit
def reads_constexpr_global(X):
    tl.store(X, IS_CONSTEXPR)


def test_global_variable_access():
    err = compile_error(reads_global, {"X": "*i32"})
    assert "Cannot access global variable NOT_CONSTEXPR" in str(err)
    assert "constexpr" in str(err)
    assert "arith.constant 7 : i32" in ttir(reads_constexpr_global, {"X": "*i32"})


@triton.jit
def bad_helper(x):
    y = tl.arange(0, 12)
    return x + y


@triton.jit
def calls_bad_helper(X):
    tl.store(X, bad_helper(tl.load(X)))


def test_error_in_nested_call_shows_the_chain():
    err = compile_error(calls_bad_helper, {"X": "*fp32"})
    text = str(err)
    assert text.startswith(f"{THIS_FILE}:{line_of(bad_helper, 'arange')}:")
    assert f"called from calls_bad_helper() at {THIS_FILE}:" \
           f"{line_of(calls_bad_helper, 'bad_helper')}:" in text
    assert "tl.store(X, bad_helper(tl.load(X)))" in text
    assert len(err.call_chain) == 1


@triton.jit
def exp_fp16(X):
    tl.store(X, tl.exp(tl.load(X)))


def test_math_dtype_check():
    assert "Expected dtype ['fp32', 'fp64'] but got fp16" in \
        str(compile_error(exp_fp16, {"X": "*fp16"}))


@triton.jit
def shape_mismatch(X):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(X + a, a + b)


def test_shape_mismatch():
    err = compile_error(shape_mismatch, {"X": "*i32"})
    assert "incompatible dimensions at index 0: 16 and 32" in str(err)
    assert f":{line_of(shape_mismatch, 'a + b')}:21:" in str(err)


@triton.jit
def mixed_signedness(X, Y):
    tl.store(X, tl.load(X) // tl.load(Y))


def test_mixed_signedness_division():
    assert "different signedness" in str(compile_error(mixed_signedness, {"X": "*i32",
                                                                          "Y": "*u32"}))


@triton.jit
def chained_compare(X, N):
    if 0 < N < 5:
        tl.store(X, 1)


@triton.jit
def uses_lambda(X):
    f = lambda v: v  # noqa: E731
    tl.store(X, f(1))


@triton.jit
def uses_while_else(X, N):
    while N > 0:
        N -= 1
    else:
        tl.store(X, 1)


@triton.jit
def uses_dict(X):
    d = {"a": 1}  # noqa: F841
    tl.store(X, 1)


@triton.jit
def item_assignment(X):
    t = (1, 2)
    t[0] = 3
    tl.store(X, 1)


@pytest.mark.parametrize("fn,needle", [
    (chained_compare, "write (a < b) & (b < c)"),
    (uses_lambda, "define a separate @triton.jit function"),
    (uses_while_else, "while ... else is not supported"),
    (uses_dict, "dict literals are not supported"),
    (item_assignment, "item assignment"),
])
def test_unsupported_constructs_say_what_to_do(fn, needle):
    err = compile_error(fn, {"X": "*i32", "N": "i32"} if "N" in fn.arg_names else {"X": "*i32"},
                        cls=UnsupportedLanguageConstruct)
    assert needle in str(err)


@triton.jit
def if_type_mismatch(X, N):
    if N > 0:
        y = 1
    else:
        y = 1.0
    tl.store(X, y)


def test_if_branches_must_agree():
    err = compile_error(if_type_mismatch, {"X": "*fp32", "N": "i32"})
    assert "Mismatched type for y between then block (int32) and else block (fp32)" in str(err)


@triton.jit
def returns_differ(x, c):
    if c > 0:
        return x
    return 1.0


@triton.jit
def calls_returns_differ(X, N):
    tl.store(X, returns_differ(tl.load(X), N))


def test_inconsistent_return_types():
    err = compile_error(calls_returns_differ, {"X": "*i32", "N": "i32"})
    assert "Inconsistent return types" in str(err)


@triton.jit
def pow_on_tensor(X):
    x = tl.load(X)
    tl.store(X, x ** 2)


def test_pow_on_tensor_suggests_libdevice():
    assert "libdevice.pow" in str(compile_error(pow_on_tensor, {"X": "*fp32"}))


@triton.jit
def int_index(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(X, x[0])


def test_integer_tensor_index_is_rejected():
    assert "unsupported tensor index" in str(compile_error(int_index, {"X": "*fp32"}))


@triton.jit
def block_condition(X):
    x = tl.load(X + tl.arange(0, 4))
    if x > 0:
        tl.store(X, 1.0)


def test_block_condition_is_ambiguous():
    assert "more than one value is ambiguous" in str(compile_error(block_condition,
                                                                   {"X": "*fp32"}))


def test_errors_pickle():
    err = compile_error(calls_bad_helper, {"X": "*fp32"})
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is CompilationError and str(again) == str(err)
    sa = compile_error(static_assert_fails, {"X": "*fp32"}, {"B": 1},
                       CompileTimeAssertionFailure)
    again = pickle.loads(pickle.dumps(sa))
    assert type(again) is CompileTimeAssertionFailure and str(again) == str(sa)


def test_compilation_error_is_exported():
    assert triton.CompilationError is CompilationError


@triton.jit
def kernel_returns_value(X):
    return tl.load(X)


def test_kernel_cannot_return_a_value():
    assert "a kernel cannot return a value" in str(compile_error(kernel_returns_value,
                                                                {"X": "*fp32"}))


@triton.jit
def reassign_constexpr_in_loop(X, N, B: tl.constexpr):
    for i in range(N):
        B = i
    tl.store(X, B)


def test_cannot_reassign_constexpr_in_loop():
    err = compile_error(reassign_constexpr_in_loop, {"X": "*i32", "N": "i32"}, {"B": 4})
    assert "cannot reassign constexpr B in the loop" in str(err)


@triton.jit
def uses_global_in_helper(x):
    return x + NOT_CONSTEXPR


@triton.jit
def calls_global_helper(X):
    tl.store(X, uses_global_in_helper(tl.load(X)))


def test_global_access_in_nested_function():
    err = compile_error(calls_global_helper, {"X": "*i32"})
    assert "Cannot access global variable NOT_CONSTEXPR" in str(err)
    assert "called from calls_global_helper()" in str(err)


@triton.jit
def wrong_keyword(X):
    tl.store(X, tl.load(X, maskk=None))


def test_wrong_builtin_keyword_points_at_the_call():
    err = compile_error(wrong_keyword, {"X": "*i32"})
    assert "maskk" in str(err) and f":{line_of(wrong_keyword, 'maskk')}:" in str(err)


@triton.jit
def _small_descriptor_block(ptr):
    desc = tl.make_tensor_descriptor(ptr, [128, 128], [128, 1], [1, 2])
    desc.load([0, 0])


def test_compile_errors_are_interpreter_errors_too():
    """A CompilationError is a TritonError and an InterpreterError (what Triton's CPU
    interpreter raises for the same kernel errors, so code written for it catches ours); its
    __cause__ carries the original message, as upstream's tests read it."""
    import numpy as np

    x = np.zeros((128, 128), np.int32)
    with pytest.raises(triton.InterpreterError) as e:
        _small_descriptor_block[(1,)](x)
    assert isinstance(e.value, triton.CompilationError) and isinstance(e.value, triton.TritonError)
    assert "Descriptor block shape must have at least 16 bytes" in str(e.value.__cause__)


@triton.jit
def int_mask_load(X, Y):
    offs = tl.arange(0, 8)
    tl.store(Y + offs, tl.load(X + offs, mask=offs, other=-1.0))


@triton.jit
def int_mask_store(X, Y):
    offs = tl.arange(0, 8)
    tl.store(Y + offs, tl.load(X + offs), mask=offs)


@pytest.mark.parametrize("fn, needle", [(int_mask_load, "tl.load"), (int_mask_store, "mask=")])
def test_a_mask_must_be_boolean(fn, needle):
    """An int32 mask is refused on loads as on stores (stock Triton's tt.load takes only i1);
    the load took it as `!= 0` before."""
    text = str(compile_error(fn, {"X": "*fp32", "Y": "*fp32"}))
    assert "Mask must have boolean scalar type" in text
    assert f"{THIS_FILE}:{line_of(fn, needle)}:" in text
