"""Golden TTIR checks of the frontend: one language feature per test, compile only.

Each test compiles a small kernel and checks the ops (and types) that carry the semantics,
not the whole text, so unrelated printer changes do not break them.
"""

from collections import namedtuple

import pytest
from fe_helpers import compile_module, count, ops, ttir

import triton_tile as triton
import triton_tile.language as tl

# ---------------------------------------------------------------------------------------------
# kernel signature and basics
# ---------------------------------------------------------------------------------------------


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def test_vector_add_signature_and_ops():
    text = ttir(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                {"BLOCK": 128}, {"x_ptr": [("tt.divisibility", 16)]})
    assert ("tt.func public @add_kernel(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, "
            "%arg1: !tt.ptr<f32>, %arg2: !tt.ptr<f32>, %arg3: i32)") in text
    assert "tt.get_program_id x : i32" in text
    assert "tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>" in text
    assert "arith.cmpi slt" in text
    assert count(text, "tt.load") == 2 and count(text, "tt.store") == 1
    assert "arith.addf" in text and "tensor<128xf32>" in text


@triton.jit
def scalar_params(a, b, c, d, e, P):
    tl.store(P, a.to(tl.float32) + b + c + d.to(tl.float32) + e.to(tl.float32))


def test_scalar_param_types():
    text = ttir(scalar_params, {"a": "i32", "b": "fp32", "c": "fp64", "d": "u64", "e": "u1",
                                "P": "*fp64"})
    assert "(%arg0: i32, %arg1: f32, %arg2: f64, %arg3: i64, %arg4: i1, %arg5: !tt.ptr<f64>)" \
        in text
    assert "arith.uitofp %arg3" in text  # u64 converts unsigned
    assert "arith.uitofp %arg4" in text  # bool converts unsigned


@triton.jit
def const_ptr_kernel(X, Y):
    tl.store(Y, tl.load(X))


def test_const_pointer_param():
    text = ttir(const_ptr_kernel, {"X": "*kfp16", "Y": "*bf16"})
    assert "%arg0: !tt.ptr<f16>, %arg1: !tt.ptr<bf16>" in text


# ---------------------------------------------------------------------------------------------
# typing and promotion (reference §1.7)
# ---------------------------------------------------------------------------------------------


@triton.jit
def literal_kernel(P, Q):
    x = tl.load(P)  # fp16
    y = x * 1.5  # a Python float does not promote an fp16 tensor
    tl.store(P, y)
    u = tl.load(Q)  # uint8
    tl.store(Q, u + 3)  # stays uint8


def test_scalar_literals_do_not_promote():
    text = ttir(literal_kernel, {"P": "*fp16", "Q": "*u8"})
    assert "arith.mulf" in text and "f16" in text and "extf" not in text
    assert "arith.addi" in text and "arith.constant 3 : i8" in text


@triton.jit
def intdiv_kernel(P, U, F):
    a = tl.load(P)
    b = tl.load(U)
    f = tl.load(F)
    tl.store(P, a // 3 + a % 3)
    tl.store(U, b // 3 + b % 3)
    tl.store(F, f % 2.0)


def test_c_style_integer_division_and_fmod():
    text = ttir(intdiv_kernel, {"P": "*i32", "U": "*u32", "F": "*fp32"})
    for op in ("arith.divsi", "arith.remsi", "arith.divui", "arith.remui", "arith.remf"):
        assert op in text, op


@triton.jit
def truediv_kernel(P, H, O):
    a = tl.load(P)
    h = tl.load(H)
    tl.store(O, a / 2)
    tl.store(O + 1, h / h)


def test_int_truediv_is_fp32_and_fp16_div_in_fp32():
    text = ttir(truediv_kernel, {"P": "*i32", "H": "*fp16", "O": "*fp32"})
    assert "arith.sitofp" in text
    assert "arith.extf" in text and "arith.divf" in text
    # the fp16 / fp16 is computed in f32
    assert "arith.divf" in text and ": f32" in text


@triton.jit
def shift_kernel(P, U):
    a = tl.load(P)
    b = tl.load(U)
    tl.store(P, a >> 1)
    tl.store(U, b >> 1)


def test_shift_right_by_signedness():
    text = ttir(shift_kernel, {"P": "*i32", "U": "*u32"})
    assert "arith.shrsi" in text and "arith.shrui" in text


@triton.jit
def unsigned_cmp_kernel(U, O):
    tl.store(O, tl.load(U) < 5)


def test_unsigned_compare_predicate():
    text = ttir(unsigned_cmp_kernel, {"U": "*u16", "O": "*i1"})
    assert "arith.cmpi ult" in text


@triton.jit
def promote_kernel(A, B, O):
    tl.store(O, tl.load(A) + tl.load(B))


@pytest.mark.parametrize("a,b,expect", [
    ("*i8", "*i32", "arith.extsi"),  # wider int wins
    ("*u32", "*i32", "arith.addi"),  # equal width: unsigned wins (no conversion op)
    ("*bf16", "*fp16", "arith.extf"),  # fp16 wins over bf16, through fp32
    ("*i32", "*fp16", "arith.sitofp"),
])
def test_tensor_tensor_promotion(a, b, expect):
    text = ttir(promote_kernel, {"A": a, "B": b, "O": "*fp32"})
    assert expect in text


@triton.jit
def wrap_kernel(P, N):
    x = tl.load(P) * N + 2147483647
    tl.store(P, x)


def test_i32_arithmetic_stays_i32():
    text = ttir(wrap_kernel, {"P": "*i32", "N": "i32"})
    assert "i64" not in text
    assert "arith.constant 2147483647 : i32" in text


# ---------------------------------------------------------------------------------------------
# min / max / NaN
# ---------------------------------------------------------------------------------------------


@triton.jit
def minmax_kernel(P, B, O):
    x = tl.load(P + tl.arange(0, 16))
    y = tl.maximum(x, 0.0)
    z = tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)
    m = tl.max(x, axis=0)
    bf = tl.load(B + tl.arange(0, 16))
    mb = tl.max(bf, axis=0)
    tl.store(O, m + mb + tl.sum(y + z, axis=0))


def test_max_min_nan_semantics():
    text = ttir(minmax_kernel, {"P": "*fp32", "B": "*bf16", "O": "*fp32"})
    assert "arith.maxnumf" in text  # tl.maximum and tl.max ignore NaN
    assert "arith.minimumf" in text  # PropagateNan.ALL
    assert "arith.extf" in text and "bf16" in text  # bf16 compared in fp32


@triton.jit
def clamp_kernel(P):
    x = tl.load(P)
    tl.store(P, tl.clamp(x, -1.0, 1.0))


def test_clamp():
    assert "tt.clampf" in ttir(clamp_kernel, {"P": "*fp32"})


# ---------------------------------------------------------------------------------------------
# reductions, scans, dot
# ---------------------------------------------------------------------------------------------


@triton.jit
def sum_int8_kernel(P, O):
    x = tl.load(P + tl.arange(0, 32))
    tl.store(O, tl.sum(x, axis=0))


def test_sum_of_int8_accumulates_in_int32():
    text = ttir(sum_int8_kernel, {"P": "*i8", "O": "*i32"})
    assert "arith.extsi" in text and "tensor<32xi32>" in text
    assert "tt.reduce" in text and "tt.reduce.return" in text
    assert "arith.addi" in text


@triton.jit
def cumsum_bool_kernel(Z):
    x = tl.full((4,), True, dtype=tl.int1)
    z = tl.cumsum(x, axis=0)
    tl.static_assert(z.dtype == tl.int32)
    tl.store(Z + tl.arange(0, 4), z)


def test_cumsum_of_bool_is_int32():
    text = ttir(cumsum_bool_kernel, {"Z": "*i32"})
    assert "tt.scan" in text and "arith.extui" in text


@triton.jit
def argmax_kernel(P, O):
    x = tl.load(P + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    tl.store(O + tl.arange(0, 16), tl.argmax(x, axis=1))


def test_argmax_is_a_two_input_reduce():
    text = ttir(argmax_kernel, {"P": "*fp32", "O": "*i32"})
    assert "tt.reduce" in text and "tensor<16xi32>" in text
    assert "tt.expand_dims" in text


@triton.jit
def first_wins(v1, i1, v2, i2):
    better = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(better, v1, v2), tl.where(better, i1, i2)


@triton.jit
def generic_reduce_kernel(P, O):
    x = tl.load(P + tl.arange(0, 16))
    v, i = tl.reduce((x, tl.arange(0, 16)), 0, first_wins)
    tl.store(O, v + i)


def test_reduce_with_jit_combine_tuple():
    text = ttir(generic_reduce_kernel, {"P": "*fp32", "O": "*fp32"})
    assert "tt.call @first_wins" in text and "tt.func private @first_wins" in text
    inlined = ttir(generic_reduce_kernel, {"P": "*fp32", "O": "*fp32"}, passes=True)
    assert "tt.call" not in inlined and "arith.select" in inlined


@triton.jit
def dot_kernel(A, B, C, I8):
    offs = tl.arange(0, 16)
    a = tl.load(A + offs[:, None] * 16 + offs[None, :])
    b = tl.load(B + offs[:, None] * 16 + offs[None, :])
    acc = tl.zeros((16, 16), dtype=tl.float32)
    acc = tl.dot(a, b, acc)
    ieee = tl.dot(a, b, input_precision="ieee")
    h = tl.dot(a.to(tl.float16), b.to(tl.float16))
    q = tl.load(I8 + offs[:, None] * 32 + tl.arange(0, 32)[None, :])
    qi = tl.dot(q, tl.trans(q))
    tl.store(C + offs[:, None] * 16 + offs[None, :], acc + ieee + h + qi.to(tl.float32))


def test_dot_types_and_precision():
    text = ttir(dot_kernel, {"A": "*fp32", "B": "*fp32", "C": "*fp32", "I8": "*i8"})
    assert "inputPrecision = tf32 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>" \
        in text
    assert "inputPrecision = ieee" in text
    assert "tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>" in text
    assert "tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>" in text
    assert "tt.trans" in text


@triton.jit
def dot3d_kernel(A, C):
    i = tl.arange(0, 2)[:, None, None] * 256 + tl.arange(0, 16)[None, :, None] * 16 + \
        tl.arange(0, 16)[None, None, :]
    a = tl.load(A + i)
    tl.store(C + i, tl.dot(a, a, out_dtype=tl.float16))


def test_batched_dot_with_fp16_out():
    text = ttir(dot3d_kernel, {"A": "*fp16", "C": "*fp16"})
    assert "tensor<2x16x16xf16> * tensor<2x16x16xf16> -> tensor<2x16x16xf16>" in text


# ---------------------------------------------------------------------------------------------
# control flow
# ---------------------------------------------------------------------------------------------


@triton.jit
def for_kernel(P, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, N, BLOCK):
        acc += tl.load(P + k + tl.arange(0, BLOCK))
    total = 0.0
    for k in tl.range(N, 0, -1, num_stages=2):
        total += k
    tl.store(P + tl.arange(0, BLOCK), acc + total)


def test_for_loops_carry_values():
    text = ttir(for_kernel, {"P": "*fp32", "N": "i32"}, {"BLOCK": 32})
    assert count(text, "scf.for") == 2
    assert "iter_args(%" in text and "-> (tensor<32xf32>)" in text
    assert count(text, "scf.yield") == 2
    # the negative step walks upward and remaps the induction variable (ub - iv + lb)
    assert "arith.subi %arg1" in text


@triton.jit
def i64_loop_kernel(P, N):
    acc = 0
    for _ in range(0, N):
        acc += 1
    tl.store(P, acc)


def test_loop_iv_type_is_promoted_to_i64():
    text = ttir(i64_loop_kernel, {"P": "*i32", "N": "i64"})
    assert "arith.extsi" in text and ": i64 {" in text


@triton.jit
def static_range_kernel(P):
    for i in tl.static_range(3):
        tl.store(P + i, i)


def test_static_range_unrolls():
    text = ttir(static_range_kernel, {"P": "*i32"})
    assert "scf.for" not in text and count(text, "tt.store") == 3


@triton.jit
def if_kernel(P, N, FLAG: tl.constexpr):
    x = tl.load(P)
    if N > 0:
        y = x + 1
    else:
        y = x - 1
    if FLAG:
        y = y * 2
    else:
        y = y + "not compiled"
    tl.store(P, y)


def test_dynamic_if_yields_and_constexpr_if_folds():
    text = ttir(if_kernel, {"P": "*fp32", "N": "i32"}, {"FLAG": True})
    assert count(text, "scf.if") == 1 and "-> (f32)" in text
    assert count(text, "scf.yield") == 2


@triton.jit
def early_return_kernel(P, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= N:
        return
    tl.store(P + pid, pid)


def test_early_return_is_structured():
    text = ttir(early_return_kernel, {"P": "*i32", "N": "i32"}, {"BLOCK": 16})
    assert not any(op.startswith("cf.") for op in ops(text))
    assert count(text, "scf.if") == 1
    assert count(text, "tt.return") == 1


@triton.jit
def pick(x, c):
    if c > 0:
        return x + 1.0
    return x * 2.0


@triton.jit
def call_kernel(P, N):
    tl.store(P, pick(tl.load(P), N))


def test_callee_with_early_return_yields_the_value():
    text = ttir(call_kernel, {"P": "*fp32", "N": "i32"})
    assert "tt.func private @pick__fp32_i32(%arg0: f32, %arg1: i32) -> f32" in text
    assert "scf.if" in text and "-> (f32)" in text
    assert "tt.call @pick__fp32_i32" in text
    inlined = ttir(call_kernel, {"P": "*fp32", "N": "i32"}, passes=True)
    assert "tt.call" not in inlined and "tt.func private" not in inlined


@triton.jit
def while_kernel(P, N):
    i = 0
    s = 0.0
    while i < N:
        s += tl.load(P + i)
        i += 1
    tl.store(P, s)


def test_while_loop():
    text = ttir(while_kernel, {"P": "*fp32", "N": "i32"})
    assert "scf.while" in text and "scf.condition" in text
    assert "-> (f32, i32)" in text


@triton.jit
def ternary_kernel(P, N):
    x = tl.load(P)
    y = x if N > 0 else 0.0
    tl.store(P, y)


def test_dynamic_ternary_is_scf_if():
    text = ttir(ternary_kernel, {"P": "*fp32", "N": "i32"})
    assert "scf.if" in text and "-> (f32)" in text


@triton.jit
def helper_tuple(x, K: tl.constexpr):
    return x * K, x + K


@triton.jit
def tuple_kernel(P, N):
    x = tl.load(P)
    a, b = helper_tuple(x, 3)
    t = (a, b, N)
    tl.static_assert(len(t) == 3)
    tl.store(P, t[0] + t[1])


def test_tuples_and_callee_mangling():
    text = ttir(tuple_kernel, {"P": "*fp32", "N": "i32"})
    assert "tt.func private @helper_tuple__fp32_c3(%arg0: f32) -> (f32, f32)" in text
    assert "tt.call @helper_tuple__fp32_c3" in text


@triton.jit
def short_circuit_kernel(P, Q):
    if Q is not None and Q.dtype.element_ty == tl.float32:
        tl.store(Q, 1.0)
    if P is None or P.dtype.element_ty == tl.int32:
        tl.store(P, 1)


def test_constexpr_short_circuit():
    text = ttir(short_circuit_kernel, {"P": "*i32"}, {"Q": None})
    assert count(text, "tt.store") == 1


# ---------------------------------------------------------------------------------------------
# memory and shapes
# ---------------------------------------------------------------------------------------------


@triton.jit
def bool_ptr_kernel(B, O):
    b = tl.load(B)
    tl.store(O, b)


def test_bool_pointers_go_through_i8():
    text = ttir(bool_ptr_kernel, {"B": "*i1", "O": "*i1"})
    assert "tt.bitcast" in text and "!tt.ptr<i8>" in text
    assert "arith.cmpi ne" in text and "arith.extui" in text


@triton.jit
def cache_kernel(P):
    x = tl.load(P, cache_modifier=".cg", eviction_policy="evict_last", volatile=True)
    tl.store(P, x, cache_modifier=".cs")


def test_cache_modifiers_are_attributes():
    text = ttir(cache_kernel, {"P": "*fp32"})
    assert "cache = 3 : i32" in text and "evict = 3 : i32" in text
    assert "isVolatile = true" in text and "cache = 5 : i32" in text


@triton.jit
def atomic_kernel(P, I):
    offs = tl.arange(0, 8)
    tl.atomic_add(P + offs, 1.0, sem="relaxed", scope="cta")
    tl.atomic_max(P + offs, 2.0)
    tl.atomic_xchg(I, 3)
    tl.atomic_cas(I, 0, 1)


def test_atomics():
    text = ttir(atomic_kernel, {"P": "*fp32", "I": "*i32"})
    assert "tt.atomic_rmw fadd, relaxed, cta" in text
    # float max through integer max/umin on the bits
    assert "tt.atomic_rmw max, acq_rel, gpu" in text and "tt.atomic_rmw umin" in text
    assert "tt.atomic_rmw exch" in text and "tt.atomic_cas acq_rel, gpu" in text


@triton.jit
def shapes_kernel(P, O):
    r = tl.arange(0, 8)
    x = tl.load(P + r[:, None] * 8 + r[None, :])
    t = x.T
    e = tl.expand_dims(r, 0)
    b = tl.broadcast_to(e, (8, 8))
    v = tl.reshape(x, (64,))
    j = tl.join(r, r)
    lo, hi = tl.split(j)
    tl.store(O + r[:, None] * 8 + r[None, :], t + b + tl.permute(x, (1, 0)))
    tl.store(O + tl.arange(0, 64), v)
    tl.store(O + r, lo + hi)


def test_shape_ops():
    text = ttir(shapes_kernel, {"P": "*fp32", "O": "*fp32"})
    for op in ("tt.expand_dims", "tt.broadcast", "tt.trans", "tt.reshape", "tt.join",
               "tt.split"):
        assert op in text, op


@triton.jit
def hints_kernel(P, N):
    n = tl.multiple_of(N, 16)
    offs = tl.max_contiguous(tl.arange(0, 16), 16)
    tl.assume(N > 0)
    tl.debug_barrier()
    tl.store(P + n + offs, offs)


def test_hints():
    text = ttir(hints_kernel, {"P": "*i32", "N": "i32"})
    assert "tt.contiguity = dense<16> : tensor<1xi32>" in text
    assert "llvm.intr.assume" in text and "gpu.barrier" in text


@triton.jit
def debug_kernel(P):
    x = tl.load(P)
    tl.device_assert(x > 0, "x must be positive")
    assert x < 100, "too big"
    tl.device_print("x = ", x)


def test_device_assert_only_with_debug():
    off = ttir(debug_kernel, {"P": "*i32"})
    on = ttir(debug_kernel, {"P": "*i32"}, debug=True)
    assert "tt.assert" not in off and count(on, "tt.assert") == 2
    assert "tt.print" in off and "x must be positive" in on


@triton.jit
def overflow_kernel(P):
    x = tl.load(P)
    tl.store(P, x + 1)


def test_sanitize_overflow_under_debug():
    assert "tt.assert" not in ttir(overflow_kernel, {"P": "*i32"})
    on = ttir(overflow_kernel, {"P": "*i32"}, debug=True)
    assert "tt.assert" in on and "overflow" in on


# ---------------------------------------------------------------------------------------------
# library code
# ---------------------------------------------------------------------------------------------


@triton.jit
def random_kernel(P, seed):
    offs = tl.arange(0, 16)
    tl.store(P + offs, tl.rand(seed, offs) + tl.randn(seed, offs))


def test_philox_random_compiles_and_inlines():
    text = ttir(random_kernel, {"P": "*fp32", "seed": "i32"}, passes=True)
    assert "tt.mulhiui" in text and "tt.call" not in text


@triton.jit
def libdevice_kernel(P):
    from_lib = tl.extra.libdevice
    x = tl.load(P + tl.arange(0, 16))
    y = from_lib.tanh(x) + from_lib.pow(x, 2.0) + from_lib.asin(x) + from_lib.isnan(x)
    tl.store(P + tl.arange(0, 16), y)


def test_libdevice_functions():
    text = ttir(libdevice_kernel, {"P": "*fp32"}, passes=True)
    assert "math.tanh" in text and "math.exp2" in text and "tt.call" not in text


@triton.jit
def sort_flip_kernel(P):
    offs = tl.arange(0, 16)
    x = tl.load(P + offs)
    tl.store(P + offs, tl.sort(x) + tl.flip(x) + tl.sort(x, descending=True))


def test_sort_and_flip_compile():
    module = compile_module(sort_flip_kernel, {"P": "*fp32"}, passes=True)
    text = str(module)
    assert "tt.split" in text and "tt.join" in text and "arith.select" in text


def test_ops_helper():
    assert ops('  %1 = arith.addi %a, %b : i32\n  tt.store %p, %v : !tt.ptr<f32>') == \
        ["arith.addi", "tt.store"]


# ---------------------------------------------------------------------------------------------
# values the frontend passes around
# ---------------------------------------------------------------------------------------------


@triton.jit
def add_op(a, b):
    return a + b


@triton.jit
def fn_param_kernel(P, OP: tl.constexpr):
    x = tl.load(P + tl.arange(0, 8))
    tl.store(P + tl.arange(0, 8), OP(x, tl.reduce(x, 0, OP)))


def test_jit_function_as_constexpr_argument():
    text = ttir(fn_param_kernel, {"P": "*fp32"}, {"OP": add_op})
    assert "tt.func private @add_op__fp32S8S_fp32" in text
    assert "tt.func private @add_op__fp32_fp32" in text  # the scalar combine


Pair = namedtuple("Pair", ["ptr", "scale"])


@triton.jit
def namedtuple_kernel(P):
    pair = Pair(P, 3)
    tl.store(pair.ptr, pair.scale + pair[1])


def test_namedtuple_built_in_kernel():
    text = ttir(namedtuple_kernel, {"P": "*i32"})
    assert "arith.constant 6 : i32" in text or "arith.addi" in text


@triton.jit
def cdiv_kernel(P, N, BLOCK: tl.constexpr):
    a = triton.cdiv(N, BLOCK)  # a tensor argument: the runtime function becomes tl.cdiv
    b: tl.constexpr = triton.cdiv(100, BLOCK)  # constexprs fold
    tl.static_assert(b == 7)
    tl.store(P, a + b)


def test_cdiv_in_kernel():
    text = ttir(cdiv_kernel, {"P": "*i32", "N": "i32"}, {"BLOCK": 16})
    assert "arith.divsi" in text and "arith.constant 7 : i32" in text


@triton.jit
def static_print_kernel(P, B: tl.constexpr):
    tl.static_print("B is", B)
    tl.store(P, B)


def test_static_print_runs_at_compile_time(capsys):
    ttir(static_print_kernel, {"P": "*i32"}, {"B": 5})
    assert capsys.readouterr().out == "B is 5\n"


@triton.jit
def loop_in_if_kernel(P, N):
    acc = tl.zeros([8], dtype=tl.float32)
    if N > 0:
        for i in range(N):
            tmp = tl.load(P + i + tl.arange(0, 8))
            acc += tmp
    else:
        tmp = 1.0
    tl.store(P + tl.arange(0, 8), acc)


def test_loop_inside_dynamic_if():
    text = ttir(loop_in_if_kernel, {"P": "*fp32", "N": "i32"}, passes=True)
    assert "scf.if" in text and "scf.for" in text and "-> (tensor<8xf32>)" in text
