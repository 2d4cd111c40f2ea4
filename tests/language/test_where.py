"""tl.where: dtypes, promotion of the two sides, scalar and constexpr operands, broadcasting,
pointer operands, and both sides always evaluated."""

import numpy as np
import pytest
from tt_utils import (
    assert_close,
    assert_equal,
    cdiv,
    is_float,
    np_dtype,
    numpy_random,
    param_dtypes,
    poisoned,
    promote,
    promote_with_scalar,
    tl_dtype,
    to_f64,
)

import triton_tile as triton
import triton_tile.language as tl

BLOCK = 128
N = 300


@triton.jit
def _where_kernel(C, X, Y, Z, n, MODE: tl.constexpr, YC: tl.constexpr, EXPECTED: tl.constexpr,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = tl.load(C + offs, mask=mask)
    x = tl.load(X + offs, mask=mask)
    if MODE == "tensor":
        y = tl.load(Y + offs, mask=mask)
        z = tl.where(c, x, y)
    elif MODE == "scalar":
        y = tl.load(Y)
        z = tl.where(c, x, y)
    elif MODE == "const":
        z = tl.where(c, x, YC)
    else:  # scalar condition
        z = tl.where(tl.load(C), x, tl.load(Y + offs, mask=mask))
    tl.static_assert(z.dtype == EXPECTED, "unexpected where dtype")
    tl.store(Z + offs, z, mask=mask)


def _ref(c, x, y, expected):
    e = np_dtype(expected)
    xs, ys = np.asarray(x).astype(e), np.asarray(y).astype(e)
    if is_float(expected):
        return np.where(c, to_f64(xs), to_f64(ys)).astype(e)
    return np.where(c, xs, ys)


def _check(z, ref, expected):
    if is_float(expected):
        assert_close(z, ref, rtol=0)
    else:
        assert_equal(z, ref)


WHERE_PAIRS = [(d, d) for d in ["bool", "int8", "int32", "int64", "uint8", "uint32", "float16",
                                "bfloat16", "float32", "float64"]]
WHERE_PAIRS += [("int32", "float32"), ("int8", "int64"), ("float16", "float32"),
                ("uint8", "int8")]


@pytest.mark.parametrize("dx, dy", param_dtypes(*WHERE_PAIRS))
def test_where_tensors(dx, dy, rng):
    c = numpy_random(N, "bool", rng)
    x, y = numpy_random(N, dx, rng), numpy_random(N, dy, rng)
    expected = dx if dx == dy else promote(dx, dy)
    z = poisoned(N, expected)
    _where_kernel[(cdiv(N, BLOCK),)](c, x, y, z, N, MODE="tensor", YC=0,
                                     EXPECTED=tl_dtype(expected), BLOCK=BLOCK)
    _check(z, _ref(c, x, y, expected), expected)


@pytest.mark.parametrize("dx, dy", param_dtypes(("int16", "int16"), ("float32", "float64"),
                                                ("bfloat16", "bfloat16")))
def test_where_scalar_tensor(dx, dy, rng):
    c = numpy_random(N, "bool", rng)
    x, y = numpy_random(N, dx, rng), numpy_random(1, dy, rng)
    expected = promote(dx, dy)
    z = poisoned(N, expected)
    _where_kernel[(cdiv(N, BLOCK),)](c, x, y, z, N, MODE="scalar", YC=0,
                                     EXPECTED=tl_dtype(expected), BLOCK=BLOCK)
    _check(z, _ref(c, x, y[0], expected), expected)


@pytest.mark.parametrize("dx, yc", param_dtypes(("int8", 5), ("float16", 0.5), ("int32", 1.5),
                                                ("uint8", 7), ("bfloat16", -2.0)))
def test_where_python_scalar(dx, yc, rng):
    c = numpy_random(N, "bool", rng)
    x = numpy_random(N, dx, rng)
    expected = promote_with_scalar(dx, yc)
    z = poisoned(N, expected)
    _where_kernel[(cdiv(N, BLOCK),)](c, x, x, z, N, MODE="const", YC=yc,
                                     EXPECTED=tl_dtype(expected), BLOCK=BLOCK)
    _check(z, _ref(c, x, np.full(N, yc), expected), expected)


@pytest.mark.parametrize("cond", [True, False])
def test_where_scalar_condition(cond, rng):
    c = np.array([cond] + [not cond] * (N - 1))
    x, y = numpy_random(N, "float32", rng), numpy_random(N, "float32", rng)
    z = poisoned(N, "float32")
    _where_kernel[(cdiv(N, BLOCK),)](c, x, y, z, N, MODE="scalar_cond", YC=0,
                                     EXPECTED=tl.float32, BLOCK=BLOCK)
    assert_close(z, x if cond else y, rtol=0)


@triton.jit
def _where_broadcast_kernel(C, X, Y, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    c = tl.load(C + rm, mask=rm < M)[:, None]  # [BM, 1]
    x = tl.load(X + rn, mask=rn < N)[None, :]  # [1, BN]
    mask2 = (rm[:, None] < M) & (rn[None, :] < N)
    y = tl.load(Y + rm[:, None] * N + rn[None, :], mask=mask2)  # [BM, BN]
    z = tl.where(c, x, y)
    tl.store(Z + rm[:, None] * N + rn[None, :], z, mask=mask2)


def test_where_broadcast(rng):
    m, n = 37, 45
    c = numpy_random(m, "bool", rng)
    x = numpy_random(n, "float32", rng)
    y = numpy_random((m, n), "float32", rng)
    z = poisoned((m, n), "float32")
    _where_broadcast_kernel[(1,)](c, x, y, z, m, n, BM=64, BN=64)
    assert_close(z, np.where(c[:, None], x[None, :], y), rtol=0)


@triton.jit
def _where_both_sides_kernel(X, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=1.0)
    z = tl.where(x != 0, 1.0 / x, 0.0)  # 1/0 = inf on the side not taken
    tl.store(Z + offs, z, mask=mask)


def test_where_unselected_inf_is_harmless(rng):
    x = numpy_random(100, "float32", rng)
    x[::3] = 0.0  # zeros are the point here
    z = poisoned(100, "float32")
    _where_both_sides_kernel[(1,)](x, z, 100, BLOCK=128)
    with np.errstate(divide="ignore"):
        ref = np.where(x != 0, (1.0 / to_f64(x)).astype(np.float32), 0.0)
    assert_close(z, ref, rtol=1e-6)


@triton.jit
def _where_pointer_kernel(C, X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    c = tl.load(C + offs, mask=mask)
    ptrs = tl.where(c, X + offs, Y + offs)
    tl.store(Z + offs, tl.load(ptrs, mask=mask), mask=mask)


def test_where_selects_pointers(rng):
    c = numpy_random(100, "bool", rng)
    x, y = numpy_random(100, "int32", rng), numpy_random(100, "int32", rng)
    z = poisoned(100, "int32")
    _where_pointer_kernel[(1,)](c, x, y, z, 100, BLOCK=128)
    assert_equal(z, np.where(c, x, y))
