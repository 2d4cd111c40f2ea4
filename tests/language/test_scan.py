"""Scans: cumsum, cumprod, associative_scan with custom (non-commutative, tuple) combine
functions, forward and reverse, 1-D and 2-D, and the int32 accumulation of int1/int8."""

import numpy as np
import pytest
from tt_utils import assert_close, assert_equal, numpy_random, poisoned, to_f64

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _linear_recurrence(a1, b1, a2, b2):
    # h = a * h_prev + b, composed left (earlier) to right (later)
    return a1 * a2, b1 * a2 + b2


@triton.jit
def _cummax_last(v1, i1, v2, i2):
    take2 = v2 >= v1
    return tl.where(take2, v2, v1), tl.where(take2, i2, i1)


@triton.jit
def _first(a, b):
    return a


def _seq_scan(xs, axis, reverse, step):
    """Sequential reference over a tuple of arrays: acc = step(acc, x_k) along `axis`, in
    index order, or from the last index down when `reverse` (flip, scan, flip back)."""
    xs = [np.moveaxis(np.asarray(x), axis, -1) for x in xs]
    if reverse:
        xs = [x[..., ::-1] for x in xs]
    outs = [np.empty_like(x) for x in xs]
    acc = tuple(x[..., 0].copy() for x in xs)
    for k in range(xs[0].shape[-1]):
        if k:
            acc = step(acc, tuple(x[..., k] for x in xs))
        for o, a in zip(outs, acc):
            o[..., k] = a
    if reverse:
        outs = [o[..., ::-1] for o in outs]
    return [np.moveaxis(o, -1, axis) for o in outs]


# ---------------------------------------------------------------------------------------------
# 1-D


@triton.jit
def _scan1d_kernel(X, Z, n, REVERSE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x0 = tl.load(X + offs, mask=mask, other=0)
    x1 = tl.load(X + offs, mask=mask, other=1)
    tl.store(Z + offs, tl.cumsum(x0, axis=0, reverse=REVERSE), mask=mask)
    tl.store(Z + n + offs, tl.cumprod(x1, 0, reverse=REVERSE), mask=mask)
    tl.store(Z + 2 * n + offs, tl.associative_scan(x0, 0, _add, reverse=REVERSE), mask=mask)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", ["int32", "float32", "int64"])
def test_scan1d(dtype, reverse, rng):
    n, block = 100, 128
    if dtype == "float32":
        x = (1 + 0.05 * numpy_random(n, dtype, rng)).astype(dtype)
    else:  # products wrap around; numpy's integer cumprod wraps the same way
        x = numpy_random(n, dtype, rng, low=-3, high=3)
    z = poisoned(3 * n, dtype)
    _scan1d_kernel[(1,)](x, z, n, REVERSE=reverse, BLOCK=block)
    xr = x[::-1] if reverse else x
    with np.errstate(over="ignore"):
        csum = np.cumsum(to_f64(xr) if dtype == "float32" else xr, dtype=None)
        cprod = np.cumprod(to_f64(xr) if dtype == "float32" else xr)
    if reverse:
        csum, cprod = csum[::-1], cprod[::-1]
    if dtype == "float32":
        assert_close(z[:n], csum, rtol=1e-5, atol=1e-4)
        assert_close(z[n:2 * n], cprod, rtol=1e-5)
        assert_close(z[2 * n:], csum, rtol=1e-5, atol=1e-4)
    else:
        assert_equal(z, np.concatenate([csum, cprod, csum]).astype(dtype))


# ---------------------------------------------------------------------------------------------
# 2-D, custom combine functions


@triton.jit
def _scan2d_kernel(X, Y, Z, AXIS: tl.constexpr, REVERSE: tl.constexpr, M: tl.constexpr,
                   N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(Z + offs, tl.cumsum(x, AXIS, reverse=REVERSE))
    tl.store(Z + M * N + offs, tl.cumprod(x, AXIS, reverse=REVERSE))
    _, h = tl.associative_scan((x, y), AXIS, _linear_recurrence, reverse=REVERSE)
    tl.store(Z + 2 * M * N + offs, h)
    idx = tl.broadcast_to(tl.arange(0, M)[:, None] * 1000 + tl.arange(0, N)[None, :], (M, N))
    v, i = tl.associative_scan((y, idx), AXIS, _cummax_last, reverse=REVERSE)
    tl.store(Z + 3 * M * N + offs, v)
    tl.store(Z + 4 * M * N + offs, i)
    tl.store(Z + 5 * M * N + offs, tl.associative_scan(y, AXIS, _first, reverse=REVERSE))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
def test_scan2d(axis, reverse, rng):
    m, n = 8, 16
    x = numpy_random((m, n), "int32", rng, low=-3, high=3)
    y = numpy_random((m, n), "int32", rng, low=-20, high=20)  # ties for the cummax
    z = poisoned((6, m, n), "int32")
    _scan2d_kernel[(1,)](x, y, z, AXIS=axis, REVERSE=reverse, M=m, N=n)
    idx = np.arange(m)[:, None] * 1000 + np.arange(n)[None, :]
    with np.errstate(over="ignore"):
        (csum,) = _seq_scan([x], axis, reverse, lambda acc, v: (acc[0] + v[0],))
        (cprod,) = _seq_scan([x], axis, reverse, lambda acc, v: (acc[0] * v[0],))
        # h_k = x_k * h_{k-1} + y_k, composed as (a, b) pairs
        _, h = _seq_scan([x, y], axis, reverse,
                         lambda acc, v: (acc[0] * v[0], acc[1] * v[0] + v[1]))
    best_v, best_i = _seq_scan(
        [y, np.broadcast_to(idx, y.shape)], axis, reverse,
        lambda acc, v: (np.where(v[0] >= acc[0], v[0], acc[0]),
                        np.where(v[0] >= acc[0], v[1], acc[1])))
    (first,) = _seq_scan([y], axis, reverse, lambda acc, v: acc)
    assert_equal(z[0], csum)
    assert_equal(z[1], cprod)
    assert_equal(z[2], h)
    assert_equal(z[3], best_v)
    assert_equal(z[4], best_i)
    assert_equal(z[5], first)


# ---------------------------------------------------------------------------------------------


@triton.jit
def _cumsum_dtype_kernel(B, X8, ZB, Z8, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    b = tl.load(B + offs)
    tl.static_assert(b.dtype == tl.int1)
    cb = tl.cumsum(b, 0)
    tl.static_assert(cb.dtype == tl.int32, "int1 cumsum accumulates in int32")
    tl.store(ZB + offs, cb)
    c8 = tl.cumsum(tl.load(X8 + offs), 0)
    tl.static_assert(c8.dtype == tl.int32, "int8 cumsum accumulates in int32")
    tl.store(Z8 + offs, c8)


def test_cumsum_dtype(rng):
    block = 64
    b = numpy_random(block, "bool", rng)
    b[:4] = True  # 1, 2, 3, 4 ... as the upstream test
    x8 = numpy_random(block, "int8", rng, low=60, high=127)  # an int8 prefix sum would wrap
    zb, z8 = poisoned(block, "int32"), poisoned(block, "int32")
    _cumsum_dtype_kernel[(1,)](b, x8, zb, z8, BLOCK=block)
    assert_equal(zb, np.cumsum(b.astype(np.int32)))
    assert_equal(z8, np.cumsum(x8.astype(np.int32)))
