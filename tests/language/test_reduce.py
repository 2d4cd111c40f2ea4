"""Reductions: sum/min/max/argmin/argmax (tie-break left), with indices, 1-D/2-D/3-D, every
axis, keep_dims, negative axes, xor_sum, sum dtypes, and tl.reduce with custom (tuple) combine
functions."""

import numpy as np
import pytest
from tt_utils import (
    assert_close,
    assert_equal,
    is_float,
    np_dtype,
    numpy_random,
    param_dtypes,
    poisoned,
    tl_dtype,
    to_f64,
    welford_combine,
)

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _offs2(M: tl.constexpr, N: tl.constexpr):
    return tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]


@triton.jit
def _offs3(A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    return (tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C
            + tl.arange(0, C)[None, None, :])


@triton.jit
def _store_flat(Z, v, NUMEL: tl.constexpr, SCALAR: tl.constexpr):
    if SCALAR:
        tl.store(Z, v)
    else:
        tl.store(Z + tl.arange(0, NUMEL), tl.reshape(v, (NUMEL,)))


# ---------------------------------------------------------------------------------------------
# 1-D


@triton.jit
def _reduce1d_kernel(X, Z_SUM, Z_MIN, Z_MAX, Z_IDX, n, LOWEST: tl.constexpr,
                     HIGHEST: tl.constexpr, SUM_TY: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    xs = tl.load(X + offs, mask=mask, other=0)
    xmax = tl.load(X + offs, mask=mask, other=LOWEST)
    xmin = tl.load(X + offs, mask=mask, other=HIGHEST)
    s = tl.sum(xs, axis=0)
    tl.static_assert(s.dtype == SUM_TY, "unexpected sum dtype")
    tl.store(Z_SUM, s)
    tl.store(Z_SUM + 1, tl.sum(xs))
    tl.store(Z_MIN, tl.min(xmin, axis=0))
    tl.store(Z_MAX, tl.max(xmax, axis=0))
    tl.store(Z_IDX + 0, tl.argmin(xmin, axis=0))
    tl.store(Z_IDX + 1, tl.argmax(xmax, axis=0))
    vmax, imax = tl.max(xmax, axis=0, return_indices=True)
    vmin, imin = tl.min(xmin, 0, return_indices=True)
    tl.store(Z_MAX + 1, vmax)
    tl.store(Z_MIN + 1, vmin)
    tl.store(Z_IDX + 2, imax)
    tl.store(Z_IDX + 3, imin)


def _sum_dtype(dtype):
    if dtype in ("int8", "int16"):
        return "int32"
    if dtype in ("uint8", "uint16"):
        return "uint32"
    return dtype


def _extremes(dtype):
    if is_float(dtype):
        return float("-inf"), float("inf")
    info = np.iinfo(np.dtype(dtype))
    return int(info.min), int(info.max)


def _sum_tol(dtype, x):
    mag = float(np.sum(np.abs(to_f64(x))))
    return {"float16": 2e-3 * mag, "bfloat16": 1.5e-2 * mag, "float32": 2e-6 * mag,
            "float64": 1e-13 * mag}[dtype]


@pytest.mark.parametrize("n", [128, 100])
@pytest.mark.parametrize("dtype", param_dtypes("int8", "int32", "uint32", "int64", "float16",
                                               "bfloat16", "float32", "float64"))
@pytest.mark.parametrize("ties", [False, True])
def test_reduce1d(dtype, n, ties, rng):
    _reduce1d(dtype, n, 128, ties, rng)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float16"])
def test_reduce1d_large_block(dtype, rng):
    _reduce1d(dtype, 3001, 4096, False, rng)


def _reduce1d(dtype, n, block, ties, rng):
    if ties:  # few distinct values: argmin/argmax must return the first occurrence
        x = numpy_random(n, "int8", rng, low=-3, high=3).astype(np_dtype(dtype))
    elif dtype == "int8":
        x = numpy_random(n, dtype, rng)
    else:
        x = numpy_random(n, dtype, rng, low=-1000, high=1000) if not is_float(dtype) else \
            numpy_random(n, dtype, rng)
    sum_ty = _sum_dtype(dtype)
    z_sum, z_min, z_max = poisoned(2, sum_ty), poisoned(2, dtype), poisoned(2, dtype)
    z_idx = poisoned(4, "int32")
    lo, hi = _extremes(dtype)
    _reduce1d_kernel[(1,)](x, z_sum, z_min, z_max, z_idx, n, LOWEST=lo, HIGHEST=hi,
                           SUM_TY=tl_dtype(sum_ty), BLOCK=block)
    if is_float(dtype):
        ref_sum = np.sum(to_f64(x))
        assert_close(z_sum, [ref_sum, ref_sum], rtol=0, atol=_sum_tol(dtype, x))
    else:
        with np.errstate(over="ignore"):
            ref_sum = np.sum(x.astype(sum_ty), dtype=sum_ty)  # wraps like the kernel
        assert_equal(z_sum, [ref_sum, ref_sum])
    if is_float(dtype):
        xf = to_f64(x)
        assert_equal(to_f64(z_min), [xf.min()] * 2)
        assert_equal(to_f64(z_max), [xf.max()] * 2)
    else:
        assert_equal(z_min, np.array([x.min()] * 2, dtype=x.dtype))
        assert_equal(z_max, np.array([x.max()] * 2, dtype=x.dtype))
    xf = to_f64(x)
    assert_equal(z_idx, np.array([np.argmin(xf), np.argmax(xf), np.argmax(xf), np.argmin(xf)],
                                 dtype=np.int32))


# ---------------------------------------------------------------------------------------------
# 2-D and 3-D, every axis


@triton.jit
def _reduce2d_kernel(X, Z, AXIS: tl.constexpr, KEEP: tl.constexpr, NUMEL: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr):
    x = tl.load(X + _offs2(BM, BN))
    s = tl.sum(x, axis=AXIS, keep_dims=KEEP)
    mx = tl.max(x, axis=AXIS, keep_dims=KEEP)
    mn = x.min(axis=AXIS, keep_dims=KEEP)
    if KEEP:
        tl.static_assert(len(s.shape) == 2, "keep_dims keeps the rank")
    scalar: tl.constexpr = AXIS is None and not KEEP
    _store_flat(Z, s, NUMEL, scalar)
    _store_flat(Z + NUMEL, mx, NUMEL, scalar)
    _store_flat(Z + 2 * NUMEL, mn, NUMEL, scalar)
    if AXIS is not None:
        _store_flat(Z + 3 * NUMEL, tl.argmax(x, axis=AXIS, keep_dims=KEEP).to(tl.float32),
                    NUMEL, False)
        _store_flat(Z + 4 * NUMEL, tl.argmin(x, AXIS, keep_dims=KEEP).to(tl.float32), NUMEL,
                    False)


@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1, -2, None])
def test_reduce2d(axis, keep_dims, rng):
    bm, bn = 16, 32
    x = numpy_random((bm, bn), "float32", rng)
    numel = 1 if axis is None else (bn if axis in (0, -2) else bm)
    z = poisoned(5 * numel, "float32")
    _reduce2d_kernel[(1,)](x, z, AXIS=axis, KEEP=keep_dims, NUMEL=numel, BM=bm, BN=bn)
    xf = to_f64(x)
    assert_close(z[:numel], np.sum(xf, axis=axis).reshape(-1), rtol=1e-5, atol=1e-5)
    assert_close(z[numel:2 * numel], np.max(x, axis=axis).reshape(-1), rtol=0)
    assert_close(z[2 * numel:3 * numel], np.min(x, axis=axis).reshape(-1), rtol=0)
    if axis is not None:
        assert_close(z[3 * numel:4 * numel], np.argmax(x, axis=axis).reshape(-1), rtol=0)
        assert_close(z[4 * numel:], np.argmin(x, axis=axis).reshape(-1), rtol=0)


@triton.jit
def _reduce3d_kernel(X, Z, AXIS: tl.constexpr, KEEP: tl.constexpr, NUMEL: tl.constexpr,
                     A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    x = tl.load(X + _offs3(A, B, C))
    scalar: tl.constexpr = AXIS is None and not KEEP
    _store_flat(Z, tl.sum(x, axis=AXIS, keep_dims=KEEP), NUMEL, scalar)
    _store_flat(Z + NUMEL, tl.max(x, axis=AXIS, keep_dims=KEEP), NUMEL, scalar)
    if AXIS is not None:
        _store_flat(Z + 2 * NUMEL, tl.argmax(x, axis=AXIS, keep_dims=KEEP), NUMEL, False)
        _store_flat(Z + 3 * NUMEL, tl.argmin(x, axis=AXIS, keep_dims=KEEP), NUMEL, False)


@pytest.mark.parametrize("axis, keep_dims", [(0, False), (1, False), (2, False), (-1, False),
                                             (None, False), (1, True), (None, True)])
def test_reduce3d(axis, keep_dims, rng):
    shape = (2, 4, 8)
    x = numpy_random(shape, "int32", rng, low=-3, high=3)  # ties for argmin/argmax
    numel = 1 if axis is None else int(np.prod(shape)) // shape[axis]
    z = poisoned(4 * numel, "int32")
    _reduce3d_kernel[(1,)](x, z, AXIS=axis, KEEP=keep_dims, NUMEL=numel, A=2, B=4, C=8)
    assert_equal(z[:numel], np.sum(x, axis=axis).reshape(-1))
    assert_equal(z[numel:2 * numel], np.max(x, axis=axis).reshape(-1))
    if axis is not None:
        assert_equal(z[2 * numel:3 * numel], np.argmax(x, axis=axis).reshape(-1))
        assert_equal(z[3 * numel:], np.argmin(x, axis=axis).reshape(-1))


@triton.jit
def _reduce2d_masked_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    ptrs = X + rm[:, None] * N + rn[None, :]
    x0 = tl.load(ptrs, mask=mask, other=0.0)
    xm = tl.load(ptrs, mask=mask, other=float("-inf"))
    tl.store(Z + rm, tl.sum(x0, axis=1), mask=rm < M)
    tl.store(Z + M + rn, tl.sum(x0, axis=0), mask=rn < N)
    tl.store(Z + M + N + rm, tl.max(xm, axis=1), mask=rm < M)


def test_reduce2d_masked(rng):
    m, n = 37, 45
    x = numpy_random((m, n), "float32", rng)
    z = poisoned(2 * m + n, "float32")
    _reduce2d_masked_kernel[(1,)](x, z, m, n, BM=64, BN=64)
    xf = to_f64(x)
    assert_close(z, np.concatenate([xf.sum(1), xf.sum(0), xf.max(1)]), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# xor_sum, sum dtypes, max of zeros


@triton.jit
def _xor_sum_kernel(X, Z, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(X + _offs2(M, N))
    tl.store(Z + tl.arange(0, M), tl.xor_sum(x, axis=1))
    tl.store(Z + M + tl.arange(0, N), tl.xor_sum(x, 0))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64", "bool"])
def test_xor_sum(dtype, rng):
    m, n = 8, 16
    x = numpy_random((m, n), dtype, rng)
    z = poisoned(m + n, dtype)
    _xor_sum_kernel[(1,)](x, z, M=m, N=n)
    assert_equal(z, np.concatenate([np.bitwise_xor.reduce(x, axis=1),
                                    np.bitwise_xor.reduce(x, axis=0)]))


@triton.jit
def _sum_dtype_kernel(X8, X32, X16, Z8, Z32, Z16, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    s8 = tl.sum(tl.load(X8 + offs), axis=0)
    tl.static_assert(s8.dtype == tl.int32, "int8 sums accumulate in int32")
    s32 = tl.sum(tl.load(X32 + offs), axis=0, dtype=tl.int64)
    tl.static_assert(s32.dtype == tl.int64)
    s16 = tl.sum(tl.load(X16 + offs), axis=0, dtype=tl.float32)
    tl.static_assert(s16.dtype == tl.float32)
    tl.store(Z8, s8)
    tl.store(Z32, s32)
    tl.store(Z16, s16)


def test_sum_dtype(rng):
    block = 128
    x8 = numpy_random(block, "int8", rng, low=50, high=127)  # the int8 sum would wrap
    x32 = numpy_random(block, "int32", rng, low=2**30, high=2**31 - 1)  # so would int32
    x16 = numpy_random(block, "float16", rng)
    z8, z32, z16 = poisoned(1, "int32"), poisoned(1, "int64"), poisoned(1, "float32")
    _sum_dtype_kernel[(1,)](x8, x32, x16, z8, z32, z16, BLOCK=block)
    assert_equal(z8, [np.sum(x8, dtype=np.int64)])
    assert_equal(z32, [np.sum(x32, dtype=np.int64)])
    assert_close(z16, [np.sum(to_f64(x16))], rtol=1e-5, atol=1e-5)


@triton.jit
def _max_kernel(X, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(Z, tl.max(x, axis=0))
    tl.store(Z + 1, tl.min(-x, axis=0))


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_max_of_zeros_and_of_negatives(dtype, rng):
    """max over all zeros is 0 (an old regression); over negatives it is negative, never a
    zero-initialized accumulator."""
    z = poisoned(2, dtype)
    _max_kernel[(1,)](np.zeros(64, dtype=dtype), z, BLOCK=64)  # zeros are the point here
    assert_equal(z, np.zeros(2, dtype=dtype))
    x = -np.abs(numpy_random(64, dtype, rng, low=-1000, high=1000)).astype(dtype)
    z = poisoned(2, dtype)
    _max_kernel[(1,)](x, z, BLOCK=64)
    assert_equal(z, np.array([x.max(), (-x).min()], dtype=dtype))


# ---------------------------------------------------------------------------------------------
# tl.reduce with user combine functions


@triton.jit
def _welford_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(X + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    w = mask.to(tl.float32)
    mean, m2, weight = tl.reduce((x, tl.zeros_like(x), w), 1, welford_combine)
    tl.store(Z + rm, mean, mask=rm < M)
    tl.store(Z + M + rm, m2 / weight, mask=rm < M)
    # keep_dims, and the whole block
    mk, m2k, wk = tl.reduce((x, tl.zeros_like(x), w), 1, welford_combine, keep_dims=True)
    tl.static_assert(len(mk.shape) == 2)
    tl.store(Z + 2 * M + rm[:, None], mk, mask=rm[:, None] < M)
    ma, m2a, wa = tl.reduce((x, tl.zeros_like(x), w), None, welford_combine)
    tl.store(Z + 3 * M, ma)
    tl.store(Z + 3 * M + 1, m2a / wa)


def test_generic_reduction_welford(path, rng):
    m, n = 13, 50
    x = (numpy_random((m, n), "float32", rng) * 2 + 3).astype(np.float32)
    z = poisoned(3 * m + 2, "float32")
    k = _welford_kernel[(1,)](x, z, m, n, BM=16, BN=64)
    # no identity Tile IR's reduce could take: halvings (convert_compute.cpp, treeReduce)
    assert k.metadata.path == path, k.metadata.fallback_reason
    xf = to_f64(x)
    ref = np.concatenate([xf.mean(1), xf.var(1), xf.mean(1), [xf.mean(), xf.var()]])
    assert_close(z, ref, rtol=1e-5, atol=1e-5)


@triton.jit
def _matmul2x2_combine(a, b, c, d, e, f, g, h):
    # [[a, b], [c, d]] @ [[e, f], [g, h]]: associative, not commutative
    return a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h


@triton.jit
def _chain_kernel(M, Z, N: tl.constexpr):
    i = tl.arange(0, N) * 4
    a, b, c, d = tl.load(M + i), tl.load(M + i + 1), tl.load(M + i + 2), tl.load(M + i + 3)
    p, q, r, s = tl.reduce((a, b, c, d), 0, _matmul2x2_combine)
    tl.store(Z + tl.arange(0, 4), tl.join(tl.join(p, r), tl.join(q, s)).reshape(4))


def test_reduce_keeps_the_order_of_a_non_commutative_combiner(path, rng):
    """The product of 64 2x2 matrices, in order: a reordered reduction gives another matrix."""
    n = 64
    m = (np.eye(2) + 0.3 * rng.standard_normal((n, 2, 2))).astype(np.float32)
    z = poisoned(4, "float32")
    k = _chain_kernel[(1,)](m.reshape(-1), z, N=n)
    assert k.metadata.path == path, k.metadata.fallback_reason
    ref = np.eye(2)
    for mat in to_f64(m):
        ref = ref @ mat
    assert_close(z.reshape(2, 2), ref, rtol=1e-4, atol=1e-4)
    rev = np.eye(2)
    for mat in to_f64(m)[::-1]:
        rev = rev @ mat
    assert not np.allclose(rev, ref, rtol=1e-2)  # the order matters for these inputs


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def _argmax_combine(va, ia, vb, ib):
    take_b = (vb > va) | ((vb == va) & (ib < ia))
    return tl.where(take_b, vb, va), tl.where(take_b, ib, ia)


@triton.jit
def _custom_reduce_kernel(X, Z, ZI, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Z, tl.reduce(x, 0, _mul_combine))
    v, i = tl.reduce((x, offs), 0, _argmax_combine)
    tl.store(Z + 1, v)
    tl.store(ZI, i)


def test_generic_reduction_custom_combine(rng):
    x = (1 + 0.01 * numpy_random(64, "float32", rng)).astype(np.float32)
    x[[5, 40]] = 1.5  # a tie for the maximum: the lower index wins
    z, zi = poisoned(2, "float32"), poisoned(1, "int32")
    _custom_reduce_kernel[(1,)](x, z, zi, BLOCK=64)
    assert_close(z, [np.prod(to_f64(x)), 1.5], rtol=2e-5)
    assert_equal(zi, [5])
