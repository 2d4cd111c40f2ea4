"""tl.dot: fp32 (ieee, tf32 with a TF32-rounded reference, tf32x3, the default), fp16, bf16,
int8 -> int32, fp64, accumulators, transposed operands, epilogues, batched 3-D, out_dtype."""

import numpy as np
import pytest
from tt_utils import (
    assert_close,
    assert_equal,
    no_tf32_ties,
    numpy_random,
    poisoned,
    requires_ml_dtypes,
    tf32_round,
    to_f64,
)

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _dot_kernel(A, B, C, Z, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                TRANS_A: tl.constexpr, TRANS_B: tl.constexpr, HAS_ACC: tl.constexpr,
                PRECISION: tl.constexpr, OUT_DTYPE: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if TRANS_A:  # A holds A^T, [K, M] row-major
        amask = (rk[:, None] < K) & (rm[None, :] < M)
        at = tl.load(A + rk[:, None] * M + rm[None, :], mask=amask, other=0)
        a = tl.trans(at)
    else:
        amask = (rm[:, None] < M) & (rk[None, :] < K)
        a = tl.load(A + rm[:, None] * K + rk[None, :], mask=amask, other=0)
    if TRANS_B:  # B holds B^T, [N, K] row-major
        bmask = (rn[:, None] < N) & (rk[None, :] < K)
        bt = tl.load(B + rn[:, None] * K + rk[None, :], mask=bmask, other=0)
        b = bt.T
    else:
        bmask = (rk[:, None] < K) & (rn[None, :] < N)
        b = tl.load(B + rk[:, None] * N + rn[None, :], mask=bmask, other=0)
    zmask = (rm[:, None] < M) & (rn[None, :] < N)
    if HAS_ACC:
        c = tl.load(C + rm[:, None] * N + rn[None, :], mask=zmask, other=0)
        z = tl.dot(a, b, c, input_precision=PRECISION, out_dtype=OUT_DTYPE)
    else:
        z = tl.dot(a, b, input_precision=PRECISION, out_dtype=OUT_DTYPE)
    tl.store(Z + rm[:, None] * N + rn[None, :], z, mask=zmask)


def _pow2(v, lo=16):
    p = lo
    while p < v:
        p *= 2
    return p


def _run_dot(a, b, c=None, trans_a=False, trans_b=False, precision=None, out_dtype=None,
             z_dtype="float32"):
    m, k = a.shape
    n = b.shape[1]
    z = poisoned((m, n), z_dtype)
    a_arg = np.ascontiguousarray(a.T) if trans_a else a
    b_arg = np.ascontiguousarray(b.T) if trans_b else b
    _dot_kernel[(1,)](a_arg, b_arg, c if c is not None else z, z, m, n, k, BM=_pow2(m),
                      BN=_pow2(n), BK=_pow2(k), TRANS_A=trans_a, TRANS_B=trans_b,
                      HAS_ACC=c is not None, PRECISION=precision,
                      OUT_DTYPE=out_dtype if out_dtype is not None else tl.float32)
    return z


SHAPES = [(37, 29, 45), (16, 16, 16), (64, 32, 64)]


@pytest.mark.parametrize("m, n, k", SHAPES)
def test_dot_fp32_ieee(m, n, k, rng):
    a, b = numpy_random((m, k), "float32", rng), numpy_random((k, n), "float32", rng)
    z = _run_dot(a, b, precision="ieee")
    assert_close(z, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


# Tiles narrower than 16 (M and N may be, K may not) reach the edges of the CPU GEMM kernel,
# which works in six-row, sixteen- and eight-column blocks: 8x4 leaves two rows and all four
# columns to its scalar tail, 128x8 is one eight-column panel over 21 blocks and two rows.
# Every edge lane is a result lane (m, n fill the tile), so an edge computed wrong fails.
@pytest.mark.parametrize("m, n, k, bm, bn", [(8, 4, 9, 8, 4), (128, 8, 9, 128, 8),
                                             (3, 24, 30, 4, 32)])
def test_dot_fp32_narrow_tiles(m, n, k, bm, bn, rng):
    a, b = numpy_random((m, k), "float32", rng), numpy_random((k, n), "float32", rng)
    z = poisoned((m, n), "float32")
    _dot_kernel[(1,)](a, b, z, z, m, n, k, BM=bm, BN=bn, BK=_pow2(k), TRANS_A=False,
                      TRANS_B=False, HAS_ACC=False, PRECISION="ieee", OUT_DTYPE=tl.float32)
    assert_close(z, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("trans_a, trans_b", [(True, False), (False, True), (True, True)])
def test_dot_transposed_operands(trans_a, trans_b, rng):
    m, n, k = 37, 29, 45
    a, b = numpy_random((m, k), "float32", rng), numpy_random((k, n), "float32", rng)
    z = _run_dot(a, b, trans_a=trans_a, trans_b=trans_b, precision="ieee")
    assert_close(z, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("precision", ["tf32", None])
@pytest.mark.parametrize("m, n, k", [(64, 64, 128), (37, 29, 45)])
def test_dot_tf32(precision, m, n, k, rng):
    """tf32 (also the default precision) rounds the fp32 inputs to 10 mantissa bits and
    accumulates in fp32. Inputs have no rounding ties, so the tie rule does not matter."""
    a = no_tf32_ties(numpy_random((m, k), "float32", rng))
    b = no_tf32_ties(numpy_random((k, n), "float32", rng))
    z = _run_dot(a, b, precision=precision)
    ref = to_f64(tf32_round(a)) @ to_f64(tf32_round(b))
    assert_close(z, ref, rtol=1e-5, atol=1e-4)
    # the test can tell tf32 from full fp32
    assert np.abs(ref - to_f64(a) @ to_f64(b)).max() > 1e-3


def test_dot_tf32x3(rng):
    m, n, k = 32, 32, 64
    a, b = numpy_random((m, k), "float32", rng), numpy_random((k, n), "float32", rng)
    z = _run_dot(a, b, precision="tf32x3")
    assert_close(z, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("trans_b", [False, True])
def test_dot_fp16(trans_b, rng):
    m, n, k = 37, 29, 45
    a, b = numpy_random((m, k), "float16", rng), numpy_random((k, n), "float16", rng)
    z = _run_dot(a, b, trans_b=trans_b)
    assert_close(z, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


def test_dot_fp16_out_dtype_fp16(rng):
    m, n, k = 32, 32, 32
    a, b = numpy_random((m, k), "float16", rng), numpy_random((k, n), "float16", rng)
    z = _run_dot(a, b, out_dtype=tl.float16, z_dtype="float16")
    ref = (to_f64(a) @ to_f64(b)).astype(np.float16)
    assert_close(z, ref, rtol=2e-3, atol=2e-3)


@requires_ml_dtypes
def test_dot_bf16(rng):
    m, n, k = 37, 29, 45
    a, b = numpy_random((m, k), "bfloat16", rng), numpy_random((k, n), "bfloat16", rng)
    z = _run_dot(a, b)
    assert_close(z, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("has_acc", [False, True])
def test_dot_int8(has_acc, rng):
    m, n, k = 37, 29, 64
    a, b = numpy_random((m, k), "int8", rng), numpy_random((k, n), "int8", rng)
    c = numpy_random((m, n), "int32", rng, low=-(10**6), high=10**6) if has_acc else None
    z = _run_dot(a, b, c=c, z_dtype="int32")
    ref = a.astype(np.int64) @ b.astype(np.int64) + (c if has_acc else 0)
    assert_equal(z, ref.astype(np.int32))


def test_dot_fp64(rng):
    m, n, k = 16, 32, 32
    a, b = numpy_random((m, k), "float64", rng), numpy_random((k, n), "float64", rng)
    z = _run_dot(a, b, precision="ieee", z_dtype="float64")
    assert_close(z, a @ b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_dot_with_acc(dtype, rng):
    m, n, k = 37, 29, 45
    a, b = numpy_random((m, k), dtype, rng), numpy_random((k, n), dtype, rng)
    c = numpy_random((m, n), "float32", rng)
    z = _run_dot(a, b, c=c, precision="ieee" if dtype == "float32" else None)
    assert_close(z, to_f64(a) @ to_f64(b) + to_f64(c), rtol=1e-5, atol=1e-4)


# ---------------------------------------------------------------------------------------------
# epilogues on full tiles


@triton.jit
def _dot_epilogue_kernel(A, B, D, R, W, Z, EPILOGUE: tl.constexpr, M: tl.constexpr,
                         N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(A + rm[:, None] * K + rk[None, :])
    b = tl.load(B + rk[:, None] * N + rn[None, :])
    z = tl.dot(a, b, input_precision="ieee")
    if EPILOGUE == "add-matrix":
        z += tl.load(D + rm[:, None] * N + rn[None, :])
    elif EPILOGUE == "add-rows":
        z += tl.load(R + rm)[:, None]
    elif EPILOGUE == "add-cols":
        z += tl.load(R + rn)[None, :]
    elif EPILOGUE == "softmax":
        num = tl.exp(z - tl.max(z, 1)[:, None])
        z = num / tl.sum(num, 1)[:, None]
    elif EPILOGUE == "chain-dot":
        w = tl.load(W + rn[:, None] * N + rn[None, :])
        z = tl.dot(z, w, input_precision="ieee")
    tl.store(Z + rm[:, None] * N + rn[None, :], z)


@pytest.mark.parametrize("epilogue", ["none", "add-matrix", "add-rows", "add-cols", "softmax",
                                      "chain-dot"])
def test_dot_epilogue(epilogue, rng):
    m, n, k = 32, 32, 32
    a, b = numpy_random((m, k), "float32", rng), numpy_random((k, n), "float32", rng)
    d = numpy_random((m, n), "float32", rng)
    r = numpy_random(max(m, n), "float32", rng)
    w = numpy_random((n, n), "float32", rng)
    z = poisoned((m, n), "float32")
    _dot_epilogue_kernel[(1,)](a, b, d, r, w, z, EPILOGUE=epilogue, M=m, N=n, K=k)
    ref = to_f64(a) @ to_f64(b)
    if epilogue == "add-matrix":
        ref = ref + d
    elif epilogue == "add-rows":
        ref = ref + to_f64(r[:m])[:, None]
    elif epilogue == "add-cols":
        ref = ref + to_f64(r[:n])[None, :]
    elif epilogue == "softmax":
        e = np.exp(ref - ref.max(1, keepdims=True))
        ref = e / e.sum(1, keepdims=True)
    elif epilogue == "chain-dot":
        ref = ref @ to_f64(w)
    atol = 1e-3 if epilogue == "chain-dot" else 1e-4
    assert_close(z, ref, rtol=1e-5, atol=atol)


# ---------------------------------------------------------------------------------------------


@triton.jit
def _dot3d_kernel(A, B, Z, BATCH: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                  K: tl.constexpr, PRECISION: tl.constexpr):
    rb = tl.arange(0, BATCH)[:, None, None]
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(A + rb * (M * K) + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(B + rb * (K * N) + rk[None, :, None] * N + rn[None, None, :])
    z = tl.dot(a, b, input_precision=PRECISION)
    tl.static_assert(len(z.shape) == 3)
    tl.store(Z + rb * (M * N) + rm[None, :, None] * N + rn[None, None, :], z)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_dot_3d_batched(dtype, rng):
    bt, m, n, k = 4, 16, 32, 16
    a, b = numpy_random((bt, m, k), dtype, rng), numpy_random((bt, k, n), dtype, rng)
    z = poisoned((bt, m, n), "float32")
    _dot3d_kernel[(1,)](a, b, z, BATCH=bt, M=m, N=n, K=k,
                        PRECISION="ieee" if dtype == "float32" else None)
    assert_close(z, np.matmul(to_f64(a), to_f64(b)), rtol=1e-5, atol=1e-4)


@triton.jit
def _dot_without_load_kernel(Z, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.full((M, K), 1.5, tl.float32)
    b = tl.full((K, N), -2.0, tl.float32)
    z = tl.dot(a, b, input_precision="ieee")
    tl.store(Z + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], z)


def test_dot_without_load():
    z = poisoned((16, 32), "float32")
    _dot_without_load_kernel[(1,)](z, M=16, N=32, K=32)
    assert_close(z, np.full((16, 32), 1.5 * -2.0 * 32), rtol=0)


def test_tf32_reference_helpers():
    # guards the tf32 reference itself: an exactly representable value is unchanged, a value
    # just above a half-ulp rounds up, and the no-tie helper only touches the last bit
    x = np.array([1.0, 1 + 2**-11 + 2**-20, 3.0], dtype=np.float32)
    assert_equal(tf32_round(x), np.array([1.0, 1 + 2**-10, 3.0], dtype=np.float32))
    assert_equal(no_tf32_ties(x).view(np.uint32) >> 1, x.view(np.uint32) >> 1)


# ---------------------------------------------------------------------------------------------
# dot_scaled: microscaled operands, against a float64 decoding of the formats


def _decode_mx(b, fmt):
    """float64 values of e4m3 (fn) / e5m2 bytes, or of e2m1 nibbles."""
    b = b.astype(np.int64)
    if fmt == "e2m1":
        e, m, s = (b >> 1) & 3, b & 1, (b >> 3) & 1
        mag = np.where(e == 0, m * 0.5, (1 + m / 2) * 2.0 ** (e - 1))
    elif fmt == "e4m3":
        e, m, s = (b >> 3) & 15, b & 7, b >> 7
        mag = np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7))
        mag = np.where((e == 15) & (m == 7), np.nan, mag)
    else:
        e, m, s = (b >> 2) & 31, b & 3, b >> 7
        mag = np.where(e == 0, m / 4 * 2.0 ** -14, (1 + m / 4) * 2.0 ** (e - 15))
        mag = np.where(e == 31, np.where(m == 0, np.inf, np.nan), mag)
    return np.where(s == 1, -mag, mag)


def _mx_operand(fmt, rows, k, rng, k_axis):
    """Random finite bytes of an operand with K along `k_axis` (e2m1: two values a byte,
    low nibble first) and its float64 values as [rows, K] (lhs) / [K, rows] (rhs)."""
    if fmt == "fp16":
        v = rng.standard_normal((rows, k) if k_axis == 1 else (k, rows)).astype(np.float16)
        return v, v.astype(np.float64)
    nbytes = k // 2 if fmt == "e2m1" else k
    shape = (rows, nbytes) if k_axis == 1 else (nbytes, rows)
    raw = rng.integers(0, 256, size=shape).astype(np.uint8)
    if fmt == "e4m3":
        raw[(raw & 0x7F) == 0x7F] ^= 1  # no NaN encodings
    if fmt == "e5m2":
        raw[(raw & 0x7C) == 0x7C] &= 0xBB  # no inf/NaN encodings
    if fmt != "e2m1":
        return raw, _decode_mx(raw, fmt)
    lo, hi = _decode_mx(raw & 15, fmt), _decode_mx(raw >> 4, fmt)
    vals = np.stack([lo, hi], axis=k_axis + 1).reshape((rows, k) if k_axis == 1 else (k, rows))
    return raw, vals


@triton.jit
def _dot_scaled_kernel(A, SA, B, SB, Z, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                       FA: tl.constexpr, FB: tl.constexpr, HAS_SA: tl.constexpr,
                       HAS_SB: tl.constexpr):
    KA: tl.constexpr = K // 2 if FA == "e2m1" else K
    KB: tl.constexpr = K // 2 if FB == "e2m1" else K
    a = tl.load(A + tl.arange(0, M)[:, None] * KA + tl.arange(0, KA)[None, :])
    b = tl.load(B + tl.arange(0, KB)[:, None] * N + tl.arange(0, N)[None, :])
    KS: tl.constexpr = K // 32
    sa = None
    sb = None
    if HAS_SA:
        sa = tl.load(SA + tl.arange(0, M)[:, None] * KS + tl.arange(0, KS)[None, :])
    if HAS_SB:
        sb = tl.load(SB + tl.arange(0, N)[:, None] * KS + tl.arange(0, KS)[None, :])
    z = tl.dot_scaled(a, sa, FA, b, sb, FB)
    tl.store(Z + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], z)


@pytest.mark.parametrize("fa, fb, has_sa, has_sb", [
    ("e2m1", "e4m3", True, False),   # fp4 lhs, unpacked along K (its columns)
    ("e5m2", "e2m1", False, True),   # fp4 rhs, unpacked along K (its rows)
    ("e4m3", "fp16", True, False),   # an fp16 operand: computed in fp16
    ("e4m3", "e5m2", True, True),    # both scaled, one scale byte 0xFF (NaN)
    ("e2m1", "e2m1", True, True),
])
def test_dot_scaled(fa, fb, has_sa, has_sb, rng):
    """tl.dot_scaled: each operand is its format's values times 2**(scale - 127) per 32 values
    of K (a scale byte of 0xFF is NaN), multiplied with fp32 accumulation."""
    m, n, k = 32, 16, 64
    a, av = _mx_operand(fa, m, k, rng, 1)
    b, bv = _mx_operand(fb, n, k, rng, 0)
    fp16 = "fp16" in (fa, fb)
    lo, hi = (124, 131) if fp16 else (100, 140)  # products stay normal in bf16 / fp16
    sa = rng.integers(lo, hi + 1, size=(m, k // 32)).astype(np.uint8)
    sb = rng.integers(lo, hi + 1, size=(n, k // 32)).astype(np.uint8)
    if fa == "e4m3" and fb == "e5m2":
        sa[3, 1] = 255
    if has_sa:
        av = av * np.repeat(2.0 ** (sa.astype(np.float64) - 127), 32, axis=1)
        av[np.repeat(sa == 255, 32, axis=1)] = np.nan
    if has_sb:
        bv = bv * np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1).T
    z = poisoned((m, n), "float32")
    _dot_scaled_kernel[(1,)](a, sa if has_sa else None, b, sb if has_sb else None, z, M=m, N=n,
                             K=k, FA=fa, FB=fb, HAS_SA=has_sa, HAS_SB=has_sb)
    ref = av @ bv
    bound = np.abs(np.nan_to_num(av)) @ np.abs(bv)
    ok = np.isnan(ref) == np.isnan(z)
    assert ok.all(), "NaN where the reference has none, or the other way round"
    fin = ~np.isnan(ref)
    err = np.abs(z.astype(np.float64)[fin] - ref[fin])
    assert (err <= 2e-6 * bound[fin] + 1e-30).all(), err.max()
    if fa == "e4m3" and fb == "e5m2":
        assert np.isnan(z[3]).all() and not np.isnan(z[4]).any()
