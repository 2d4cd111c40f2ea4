"""dtypes inside kernels: pointer element types as constexprs, static_assert on them, dtypes
passed as constexpr arguments, dtype predicates, and the method forms of tensor ops."""

import numpy as np
import pytest
from tt_utils import (
    assert_close,
    assert_equal,
    np_dtype,
    numpy_random,
    param_dtypes,
    poisoned,
    tl_dtype,
)

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _element_ty_kernel(X, Z, EXPECTED: tl.constexpr, BLOCK: tl.constexpr):
    tl.static_assert(X.dtype.element_ty == EXPECTED, "pointer element type")
    tl.static_assert(X.dtype.element_ty == Z.dtype.element_ty)
    acc = tl.zeros((BLOCK,), dtype=X.dtype.element_ty)
    tl.static_assert(acc.dtype == EXPECTED)
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.static_assert(x.dtype == EXPECTED)
    tl.store(Z + tl.arange(0, BLOCK), acc + x)


@pytest.mark.parametrize("dtype", param_dtypes("int8", "uint16", "int32", "int64", "float16",
                                               "bfloat16", "float32", "float64"))
def test_pointer_element_type(dtype, rng):
    x = numpy_random(16, dtype, rng)
    z = poisoned(16, dtype)
    _element_ty_kernel[(1,)](x, z, EXPECTED=tl_dtype(dtype), BLOCK=16)
    if x.dtype.kind in "iu":
        assert_equal(z, x)
    else:
        assert_close(z, x, rtol=0)


@triton.jit
def _dtype_arg_kernel(X, Z, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = x.to(DTYPE)
    tl.static_assert(y.dtype == DTYPE)
    z = tl.full((BLOCK,), 2, DTYPE) * y
    tl.store(Z + tl.arange(0, BLOCK), z)


@pytest.mark.parametrize("dtype", ["int16", "float64", "uint8"])
def test_dtype_as_constexpr_argument(dtype, rng):
    x = numpy_random(32, "int32", rng, low=1, high=100)
    z = poisoned(32, dtype)
    _dtype_arg_kernel[(1,)](x, z, DTYPE=tl_dtype(dtype), BLOCK=32)
    assert_equal(z, (2 * x).astype(np_dtype(dtype)))


@triton.jit
def _predicates_kernel(X, Z):
    x = tl.load(X)
    tl.static_assert(x.dtype.is_floating() == IS_FLOAT)
    tl.static_assert(x.dtype.is_int_signed() == IS_SIGNED)
    tl.static_assert(x.dtype.primitive_bitwidth == BITS)
    tl.store(Z, x)


IS_FLOAT = tl.constexpr(False)
IS_SIGNED = tl.constexpr(True)
BITS = tl.constexpr(16)


def test_dtype_predicates_with_constexpr_globals(rng):
    x = numpy_random(1, "int16", rng)
    z = poisoned(1, "int16")
    _predicates_kernel[(1,)](x, z)
    assert_equal(z, x)


@triton.jit
def _tensor_members_kernel(X, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Z + 0, x.sum(axis=0) - tl.sum(x, axis=0))
    tl.store(Z + 1, x.max(axis=0))
    tl.store(Z + 2, x.abs().sum(0))
    tl.store(Z + 3, x.to(tl.int32).to(tl.float32).sum(0))
    tl.store(Z + 4 + offs, x.exp().log())
    tl.store(Z + 4 + BLOCK + offs, x.reshape(BLOCK // 2, 2).trans().reshape(BLOCK))


def test_tensor_member_functions(rng):
    block = 16
    x = (numpy_random(block, "float32", rng) * 4).astype(np.float32)
    z = poisoned(4 + 2 * block, "float32")
    _tensor_members_kernel[(1,)](x, z, BLOCK=block)
    xf = x.astype(np.float64)
    assert_close(z[:4], [0.0, xf.max(), np.abs(xf).sum(), np.trunc(xf).sum()], rtol=1e-6,
                 atol=1e-6)
    assert_close(z[4:4 + block], x, rtol=1e-6, atol=1e-6)
    assert_equal(z[4 + block:], x.reshape(block // 2, 2).T.reshape(-1))


@triton.jit
def _float_arg_kernel(Z, v, w: tl.float64, k: tl.int64):
    tl.store(Z, v)
    tl.store(Z + 1, w)
    tl.store(Z + 2, k * 3)


def test_python_float_arguments_are_fp32_unless_annotated():
    z = poisoned(3, "float64")
    _float_arg_kernel[(1,)](z, 0.1, 0.1, 2**31 - 1)
    assert z[0] == float(np.float32(0.1))  # a plain float argument is fp32
    assert z[1] == 0.1  # annotated tl.float64
    assert z[2] == 3 * (2**31 - 1)  # annotated tl.int64: no int32 wrap


def test_dtype_repr_is_tritons_and_evaluates_back_under_the_alias():
    """repr spells Triton's module (upstream's test_dtype_codegen), and under the alias users
    write, `import triton_tile as triton`, evaluating it gives the same dtype back."""
    names = ["int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float16", "bfloat16", "float32", "float64", "float8e4nv", "float8e5"]
    for name in names:
        dt = getattr(tl, name)
        assert repr(dt) == f"triton.language.{name}"
        assert eval(repr(dt), {"triton": triton}) is dt


def test_str_to_ty_takes_triton_second_argument():
    """Triton's `tl.str_to_ty(name, c)` (upstream's tests call it with c=None): the same
    types, and `constexpr` is the type of the constant c."""
    assert tl.str_to_ty("fp16", None) == tl.float16
    assert tl.str_to_ty("*kbf16", None) == tl.pointer_type(tl.bfloat16, 1, True)
    assert tl.str_to_ty("u64") == tl.uint64
    assert tl.str_to_ty("constexpr", 3) == tl.constexpr_type(3)


@triton.jit
def _constexpr_type_kernel(Z, LIT: tl.constexpr, TENSOR_TY: tl.constexpr):
    a: tl.constexpr = 10
    tl.static_assert(a.type == tl.constexpr_type(10))
    tl.static_assert(LIT.type == tl.constexpr_type(LIT))
    tl.static_assert(a.value + 1 == 11)
    b: tl.constexpr = LIT
    tl.static_assert(b.type == LIT.type)
    v = LIT  # a plain assignment makes a tensor of the literal's type
    tl.static_assert(v.type == TENSOR_TY)
    tl.store(Z, v)


@pytest.mark.parametrize("lit, ty, np_ty", [(10, tl.int32, "int32"), (2.5, tl.float32, "float32")])
def test_constexpr_type_and_value_attributes(lit, ty, np_ty):
    """`C.type` of a constexpr is constexpr_type(C) and `C.value` its value, as in Triton
    (upstream's test_constexpr_assignment asserts on them)."""
    z = poisoned(1, np_ty)
    _constexpr_type_kernel[(1,)](z, lit, ty)
    assert z[0] == lit
