"""Elementwise math: transcendental functions, fma, precise division and sqrt, abs, umulhi,
clamp, maximum/minimum and NaN handling (as Triton's language/math.py and core.py define them)."""

import math
import warnings

import numpy as np
import pytest
from tt_utils import (
    assert_bits_equal,
    assert_close,
    assert_equal,
    cdiv,
    is_float,
    np_dtype,
    numpy_random,
    param_dtypes,
    poisoned,
    to_f64,
)

import triton_tile as triton
import triton_tile.language as tl

BLOCK = 128
N = 333


def _grid(n=N):
    return (cdiv(n, BLOCK),)


@triton.jit
def _math_kernel(X, Z, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    if FN == "exp":
        z = tl.exp(x)
    elif FN == "log":
        z = tl.log(x)
    elif FN == "sin":
        z = tl.sin(x)
    elif FN == "cos":
        z = tl.cos(x)
    elif FN == "exp2":
        z = tl.exp2(x)
    elif FN == "log2":
        z = tl.log2(x)
    elif FN == "sqrt":
        z = tl.sqrt(x)
    elif FN == "rsqrt":
        z = tl.rsqrt(x)
    elif FN == "floor":
        z = tl.floor(x)
    elif FN == "ceil":
        z = tl.ceil(x)
    elif FN == "erf":
        z = tl.math.erf(x)
    elif FN == "sqrt_rn":
        z = tl.math.sqrt_rn(x)
    elif FN == "math.exp":
        z = tl.math.exp(x)
    else:
        z = tl.abs(x)
    tl.static_assert(z.dtype == x.dtype, "math keeps the dtype")
    tl.store(Z + offs, z, mask=mask)


_erf = np.vectorize(math.erf)

_REFS = {
    "exp": np.exp, "math.exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos,
    "exp2": np.exp2, "log2": np.log2, "sqrt": np.sqrt, "rsqrt": lambda v: 1.0 / np.sqrt(v),
    "floor": np.floor, "ceil": np.ceil, "erf": _erf, "sqrt_rn": np.sqrt,
}


def _math_input(fn, dtype, rng):
    if fn in ("log", "log2", "sqrt", "rsqrt", "sqrt_rn"):
        return numpy_random(N, dtype, rng, low=0.01, high=50.0)
    if fn in ("floor", "ceil"):
        return numpy_random(N, dtype, rng, low=-20.0, high=20.0)
    return (numpy_random(N, dtype, rng) * 3).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", ["exp", "log", "sin", "cos", "exp2", "log2", "sqrt", "rsqrt",
                                "floor", "ceil", "erf", "math.exp"])
def test_math_fn(fn, dtype, rng):
    x = _math_input(fn, dtype, rng)
    z = poisoned(N, dtype)
    _math_kernel[_grid()](x, z, N, FN=fn, BLOCK=BLOCK)
    ref = _REFS[fn](to_f64(x)).astype(dtype)
    if dtype == "float32":
        assert_close(z, ref, rtol=1e-6, atol=1e-7, err_msg=fn)
    else:
        assert_close(z, ref, rtol=1e-13, atol=1e-15, err_msg=fn)


def test_erf_edges_and_branches(path, rng):
    """erf over its pieces (Tile IR has none: the Tile path evaluates polynomials, |x| < 1,
    1 <= |x| < 4, and 1 beyond) and its special values: within 3 ulp of float64's erf (f32;
    Triton's erf takes f32 and f64 only; test_erf_f64_whole_line covers f64)."""
    dtype = "float32"
    special = [0.0, -0.0, 1e-30, -1e-30, 0.999, 1.0, -1.0, 3.999, 4.0, -4.0, 9.0, 1e30,
               float("inf"), -float("inf"), float("nan")]
    dense = np.concatenate([rng.uniform(-1, 1, 200), rng.uniform(-5, 5, 400)])
    x = np.concatenate([special, dense]).astype(np_dtype(dtype))
    n = x.size
    z = poisoned(n, dtype)
    k = _math_kernel[_grid(n)](x, z, n, FN="erf", BLOCK=BLOCK)
    assert k.metadata.path == path  # the Tile path's own erf, not a fallback
    x64, z64 = to_f64(x), to_f64(z)
    ref = _erf(x64)
    assert np.isnan(z64[14]) and z64[0] == 0 and np.signbit(z64[1])
    assert (z64[11:14] == [1, 1, -1]).all()
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    ok = np.isnan(ref) | (np.abs(z64 - ref) <= 3 * ulp)
    assert ok.all(), (x[~ok], z[~ok], ref[~ok])


def _erf64_inputs(rng):
    """Both signs of: the special values, each edge of the f64 Tile path's pieces (0.84375,
    1.25, 1/0.35, 6) with its neighbours, denormals and tiny values, and dense draws per piece."""
    edges = [0.84375, 1.25, 1 / 0.35, 6.0, 2.0**-28, 1.0]
    near = [np.nextafter(e, d) for e in edges for d in (0.0, np.inf)] + edges
    special = [0.0, 5e-324, 1e-310, 2.2250738585072014e-308, 1e-300, 1e-20, 1e-8, 27.0, 1e300,
               np.finfo(np.float64).max, np.inf]
    dense = np.concatenate([rng.uniform(0, 0.84375, 400), rng.uniform(0.84375, 1.25, 300),
                            rng.uniform(1.25, 1 / 0.35, 400), rng.uniform(1 / 0.35, 6, 400),
                            rng.uniform(6, 30, 50), 10.0 ** rng.uniform(-320, 0, 300)])
    pos = np.concatenate([near, special, dense])
    return np.concatenate([pos, -pos, [np.nan]])


def test_erf_f64_whole_line(path, rng):
    """f64 erf on the Tile path (fdlibm's rational approximations, evaluated with Tile IR's
    ops and exp) within 2 ulp of float64's erf over the whole real line; signed zeros,
    infinities and NaN exact. An odd size with a mask, the output poisoned."""
    x = _erf64_inputs(rng)
    n = x.size
    z = poisoned(n, "float64")
    with warnings.catch_warnings():
        warnings.simplefilter("error", triton.TileFallbackWarning)
        k = _math_kernel[_grid(n)](x, z, n, FN="erf", BLOCK=BLOCK)
    assert k.metadata.path == path, k.metadata.fallback_reason  # no fallback on f64 either
    ref = _erf(x)
    assert np.isnan(z[-1]) and not np.isnan(z[:-1]).any()
    zero = x == 0
    assert (z[zero] == 0).all() and (np.signbit(z[zero]) == np.signbit(x[zero])).all()
    far = np.abs(x) >= 6
    assert (z[far] == np.sign(x[far])).all()
    fin = ~np.isnan(ref)
    ulps = np.abs(z[fin] - ref[fin]) / np.spacing(np.abs(ref[fin]))
    worst = int(np.argmax(ulps))
    assert ulps.max() <= 2, (x[fin][worst], z[fin][worst], ref[fin][worst], ulps.max())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sqrt_rn_is_correctly_rounded(dtype, rng):
    x = _math_input("sqrt_rn", dtype, rng)
    z = poisoned(N, dtype)
    _math_kernel[_grid()](x, z, N, FN="sqrt_rn", BLOCK=BLOCK)
    # float64 sqrt then one rounding to float32 is the correctly rounded float32 sqrt.
    assert_bits_equal(z, np.sqrt(to_f64(x)).astype(dtype))


@triton.jit
def _literal_math_kernel(Z):
    tl.store(Z + 0, tl.exp(3.0))
    tl.store(Z + 1, tl.sqrt(2.0))
    tl.store(Z + 2, tl.log(7.0))


def test_math_on_literals():
    z = poisoned(3, "float32")
    _literal_math_kernel[(1,)](z)
    assert_close(z, np.array([math.exp(3.0), math.sqrt(2.0), math.log(7.0)], np.float32),
                 rtol=1e-6)


# ---------------------------------------------------------------------------------------------


@triton.jit
def _fma_kernel(X, Y, W, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    w = tl.load(W + offs, mask=mask)
    tl.store(Z + offs, tl.fma(x, y, w), mask=mask)


def test_fma_fp32_is_fused(rng):
    """fma(x, y, -fl(x*y)) is the exact rounding error of the product: nonzero for most
    inputs, and 0 if the multiply were rounded before the add."""
    x, y = numpy_random(N, "float32", rng), numpy_random(N, "float32", rng)
    w = -(x * y)  # float32 product, rounded
    z = poisoned(N, "float32")
    _fma_kernel[_grid()](x, y, w, z, N, BLOCK=BLOCK)
    ref = (to_f64(x) * to_f64(y) + to_f64(w)).astype(np.float32)  # exact in float64
    assert np.count_nonzero(ref) > N // 2
    assert_bits_equal(z, ref)


def test_fma_fp64(rng):
    x, y, w = (numpy_random(N, "float64", rng) for _ in range(3))
    z = poisoned(N, "float64")
    _fma_kernel[_grid()](x, y, w, z, N, BLOCK=BLOCK)
    assert_close(z, x * y + w, rtol=1e-13, atol=1e-15)


@triton.jit
def _div_kernel(X, Y, Z_FDIV, Z_DIVRN, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    tl.store(Z_FDIV + offs, tl.math.fdiv(x, y), mask=mask)
    tl.store(Z_DIVRN + offs, tl.math.div_rn(x, y), mask=mask)


def test_fdiv_and_div_rn(rng):
    x, y = numpy_random(N, "float32", rng), numpy_random(N, "float32", rng)
    z_fdiv, z_divrn = poisoned(N, "float32"), poisoned(N, "float32")
    _div_kernel[_grid()](x, y, z_fdiv, z_divrn, N, BLOCK=BLOCK)
    ref = (to_f64(x) / to_f64(y)).astype(np.float32)  # correctly rounded float32 quotient
    assert_close(z_fdiv, ref, rtol=1e-6)
    assert_bits_equal(z_divrn, ref)


# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", param_dtypes("int8", "int16", "int32", "int64", "uint8",
                                               "uint32", "float16", "bfloat16", "float32",
                                               "float64"))
def test_abs(dtype, rng):
    x = numpy_random(N, dtype, rng)
    if np.issubdtype(x.dtype, np.signedinteger):
        x[0] = np.iinfo(x.dtype).min  # |INT_MIN| wraps to INT_MIN
    if is_float(dtype):
        x[0] = np.asarray(-0.0).astype(x.dtype)
        x[1] = np.asarray(-np.inf).astype(x.dtype)
    z = poisoned(N, dtype)
    _math_kernel[_grid()](x, z, N, FN="abs", BLOCK=BLOCK)
    if is_float(dtype):
        assert_bits_equal(z, np.abs(to_f64(x)).astype(np_dtype(dtype)))
    else:
        assert_equal(z, np.abs(x))


# ---------------------------------------------------------------------------------------------


@triton.jit
def _umulhi_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    z = tl.umulhi(x, y)
    tl.static_assert(z.dtype == x.dtype, "umulhi keeps the dtype")
    tl.store(Z + offs, z, mask=mask)


@pytest.mark.parametrize("dtype", ["uint32", "int32", "uint64", "int64"])
def test_umulhi(dtype, rng):
    """The high half of the double-width product (non-negative inputs for signed types)."""
    bits = np.dtype(dtype).itemsize * 8
    x = numpy_random(N, dtype, rng, low=1)
    y = numpy_random(N, dtype, rng, low=1)
    z = poisoned(N, dtype)
    _umulhi_kernel[_grid()](x, y, z, N, BLOCK=BLOCK)
    ref = np.array([(int(a) * int(b)) >> bits for a, b in zip(x, y)], dtype=object)
    assert_equal(z, ref.astype(dtype))


# ---------------------------------------------------------------------------------------------


@triton.jit
def _clamp_kernel(X, LO, HI, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    lo = tl.load(LO + offs, mask=mask)
    hi = tl.load(HI + offs, mask=mask)
    tl.store(Z + offs, tl.clamp(x, lo, hi), mask=mask)
    tl.store(Z + n + offs, tl.clamp(x, -hi, hi), mask=mask)


@pytest.mark.stock_refuses("fp64 clamp: LLVM has no llvm.nvvm.fmin.xorsign.abs for it")
@pytest.mark.parametrize("dtype", param_dtypes("float16", "bfloat16", "float32", "float64"))
def test_clamp(dtype, rng):
    x = numpy_random(N, dtype, rng)
    a, b = numpy_random(N, dtype, rng), numpy_random(N, dtype, rng)
    lo = np.minimum(to_f64(a), to_f64(b)).astype(x.dtype)
    hi = np.maximum(to_f64(a), to_f64(b)).astype(x.dtype)
    z = poisoned(2 * N, dtype)
    _clamp_kernel[_grid()](x, lo, hi, z, N, BLOCK=BLOCK)
    ref = np.minimum(np.maximum(to_f64(x), to_f64(lo)), to_f64(hi))
    # clamp(x, -hi, hi) only makes sense for hi >= 0
    pos = to_f64(hi) >= 0
    ref_sym = np.minimum(np.maximum(to_f64(x), -to_f64(hi)), to_f64(hi))
    assert_close(z[:N], ref.astype(x.dtype), rtol=0)
    assert_close(z[N:][pos], ref_sym[pos].astype(x.dtype), rtol=0)


@triton.jit
def _nan_kernel(X, Y, Z, n, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    lo = -tl.abs(y)
    hi = tl.abs(y)
    if MODE == "default":
        z_max = tl.maximum(x, y)
        z_min = tl.minimum(x, y)
        z_clamp = tl.clamp(x, lo, hi)
    elif MODE == "none":
        z_max = tl.maximum(x, y, propagate_nan=tl.PropagateNan.NONE)
        z_min = tl.minimum(x, y, propagate_nan=tl.PropagateNan.NONE)
        z_clamp = tl.clamp(x, lo, hi, propagate_nan=tl.PropagateNan.NONE)
    else:
        z_max = tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)
        z_min = tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)
        z_clamp = tl.clamp(x, lo, hi, propagate_nan=tl.PropagateNan.ALL)
    tl.store(Z + offs, z_max, mask=mask)
    tl.store(Z + n + offs, z_min, mask=mask)
    tl.store(Z + 2 * n + offs, z_clamp, mask=mask)


@pytest.mark.parametrize("mode", ["default", "none", "all"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_propagate_nan(mode, dtype, rng):
    """maximum/minimum/clamp ignore NaN by default (C fmax); PropagateNan.ALL propagates."""
    x, y = numpy_random(N, dtype, rng), numpy_random(N, dtype, rng)
    x[::4] = np.nan
    y[1::4] = np.nan
    z = poisoned(3 * N, dtype, poison=12345.0)
    _nan_kernel[_grid()](x, y, z, N, MODE=mode, BLOCK=BLOCK)
    xf, yf = to_f64(x), to_f64(y)
    z_max, z_min, z_clamp = to_f64(z[:N]), to_f64(z[N:2 * N]), to_f64(z[2 * N:])
    assert not np.any(z == np.asarray(12345.0).astype(dtype)), "unwritten output"
    if mode == "all":
        assert_close(z_max, np.maximum(xf, yf), rtol=0)
        assert_close(z_min, np.minimum(xf, yf), rtol=0)
        xnan = np.isnan(xf) & ~np.isnan(yf)
        assert np.isnan(z_clamp[xnan]).all()
    else:
        assert_close(z_max, np.fmax(xf, yf), rtol=0)
        assert_close(z_min, np.fmin(xf, yf), rtol=0)
        xnan = np.isnan(xf) & ~np.isnan(yf)
        assert not np.isnan(z_clamp[xnan]).any()
        bound = np.abs(yf[xnan])
        assert np.all((z_clamp[xnan] >= -bound) & (z_clamp[xnan] <= bound))
    ok = ~np.isnan(xf) & ~np.isnan(yf)
    assert_close(z_clamp[ok], np.clip(xf[ok], -np.abs(yf[ok]), np.abs(yf[ok])), rtol=0)


@triton.jit
def _maxmin_int_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    tl.store(Z + offs, tl.maximum(x, y), mask=mask)
    tl.store(Z + n + offs, tl.minimum(x, y), mask=mask)


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint32", "int64", "uint64"])
def test_maximum_minimum_ints(dtype, rng):
    """Unsigned types compare as unsigned (values above the signed range included)."""
    x, y = numpy_random(N, dtype, rng), numpy_random(N, dtype, rng)
    z = poisoned(2 * N, dtype)
    _maxmin_int_kernel[_grid()](x, y, z, N, BLOCK=BLOCK)
    assert_equal(z[:N], np.maximum(x, y))
    assert_equal(z[N:], np.minimum(x, y))


@triton.jit
def _reduce_nan_kernel(X, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(Z + 0, tl.max(x, axis=0))
    tl.store(Z + 1, tl.min(x, axis=0))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_min_reductions_ignore_nan(dtype, rng):
    x = numpy_random(64, dtype, rng)
    x[rng.choice(64, 10, replace=False)] = np.nan
    z = poisoned(2, dtype, poison=12345.0)
    _reduce_nan_kernel[(1,)](x, z, BLOCK=64)
    assert_equal(z, np.array([np.nanmax(x), np.nanmin(x)], dtype=dtype))
    # A block holding NaN, -inf and +inf: the infinities win.
    x[3], x[17] = np.inf, -np.inf
    _reduce_nan_kernel[(1,)](x, z, BLOCK=64)
    assert_equal(z, np.array([np.inf, -np.inf], dtype=dtype))
