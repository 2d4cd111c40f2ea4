"""Casts: integer widening/narrowing, int<->float, float<->float (RNE, rtz), bool, bitcast,
bf16 and fp8 (via ml_dtypes)."""

import numpy as np
import pytest
from tt_utils import (
    assert_bits_equal,
    assert_equal,
    cdiv,
    is_float,
    is_int,
    is_signed,
    np_dtype,
    numpy_random,
    param_dtypes,
    poisoned,
    requires_ml_dtypes,
    tl_dtype,
    to_f64,
)

import triton_tile as triton
import triton_tile.language as tl

BLOCK = 128
N = 333


def _grid(n=N):
    return (cdiv(n, BLOCK),)


@triton.jit
def _cast_kernel(X, Z, n, DST: tl.constexpr, METHOD: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    if METHOD == "to":
        z = x.to(DST)
    elif METHOD == "cast":
        z = tl.cast(x, DST)
    elif METHOD == "bitcast":
        z = x.to(DST, bitcast=True)
    elif METHOD == "cast_bitcast":
        z = tl.cast(x, DST, bitcast=True)
    elif METHOD == "method_cast":  # tensor.cast, Triton's spelling of tl.cast as a method
        z = x.cast(DST)
    elif METHOD == "method_cast_bitcast":
        z = x.cast(DST, bitcast=True)
    else:
        z = x.to(DST, fp_downcast_rounding=METHOD)
    tl.static_assert(z.dtype == DST, "cast gives the requested dtype")
    tl.store(Z + offs, z, mask=mask)


def _run(x, dst, method):
    z = poisoned(x.shape[0], dst)
    _cast_kernel[_grid(x.shape[0])](x, z, x.shape[0], DST=tl_dtype(dst), METHOD=method,
                                    BLOCK=BLOCK)
    return z


def round_f64_to_bits(v, mant_bits):
    """Round float64 values to `mant_bits` significant bits, ties to even, in one rounding
    (normal range only). Exact in float64."""
    v = np.asarray(v, dtype=np.float64)
    m, e = np.frexp(v)  # v = m * 2**e, 0.5 <= |m| < 1
    scale = 2.0**mant_bits
    return np.ldexp(np.round(m * scale) / scale, e)  # np.round: half to even


def _float_source(src, dst, rng):
    """Float inputs that fit the destination (float->int of an out-of-range value is UB)."""
    if is_int(dst) or dst == "bool":
        if dst == "bool":
            x = numpy_random(N, src, rng)
            x[::5] = 0  # zeros on purpose: they are the values that cast to False
            return x.astype(np_dtype(src))
        info = np.iinfo(np.dtype(dst))
        hi = min(float(info.max) * 0.99, 6e4 if src == "float16" else 9e18)
        lo = 0.0 if not is_signed(dst) else -hi
        small = rng.uniform(max(lo, -100.0), 100.0, size=N)
        big = rng.uniform(lo, hi, size=N)
        x = np.where(np.arange(N) % 2 == 0, small, big)
        return x.astype(np_dtype(src))
    # float -> float: magnitudes from 1e-8 to 1e6 (fp16 subnormals and overflow included)
    mag = 10.0 ** rng.uniform(-8, 6, size=N)
    x = rng.standard_normal(N) * mag
    with np.errstate(over="ignore"):
        return x.astype(np_dtype(src))


def _int_source(src, dst, rng):
    x = numpy_random(N, src, rng)
    if dst in ("float16", "bfloat16"):
        # half the values small enough to be exact or rounded, the rest as drawn (inf for fp16)
        small = numpy_random(N, src, rng, low=-3000, high=3000)
        x = np.where(np.arange(N) % 2 == 0, small, x).astype(src)
    x[::7] = 0  # zeros on purpose: int -> bool must see some
    return x


def _cast_ref(x, src, dst):
    if dst == "bool":
        return to_f64(x) != 0 if is_float(src) else x != 0
    if dst == "bfloat16" and src == "float64":
        return round_f64_to_bits(x, 8).astype(np.float32).astype(np_dtype(dst))
    if is_float(src) and is_int(dst):
        return to_f64(x).astype(dst)  # truncation toward zero (values in range)
    with np.errstate(over="ignore"):
        return np.asarray(x).astype(np_dtype(dst))


CAST_PAIRS = [
    # int -> int: sign extension, zero extension, truncation
    ("int8", "int32"), ("int32", "int8"), ("int64", "int16"), ("uint8", "int32"),
    ("int8", "uint16"), ("uint32", "int64"), ("int64", "uint32"), ("uint64", "int8"),
    ("int16", "uint64"), ("uint16", "uint8"), ("int32", "int64"), ("uint32", "uint64"),
    # bool
    ("bool", "int32"), ("bool", "float32"), ("int32", "bool"), ("float32", "bool"),
    ("bool", "uint8"), ("uint8", "bool"), ("float16", "bool"), ("int64", "bool"),
    # int -> float
    ("int8", "float16"), ("int32", "float32"), ("int64", "float32"), ("int64", "float64"),
    ("uint32", "float32"), ("uint64", "float32"), ("uint8", "float16"), ("int16", "bfloat16"),
    ("uint64", "float64"), ("int32", "float16"),
    # float -> int: truncation toward zero
    ("float32", "int32"), ("float32", "int8"), ("float64", "int64"), ("float16", "int16"),
    ("float32", "uint8"), ("float64", "uint32"), ("bfloat16", "int32"), ("float32", "uint64"),
    ("float64", "int16"),
    # float -> float
    ("float16", "float32"), ("float32", "float16"), ("float32", "float64"),
    ("float64", "float32"), ("float16", "float64"), ("float64", "float16"),
    ("bfloat16", "float32"), ("float32", "bfloat16"), ("bfloat16", "float16"),
    ("float16", "bfloat16"), ("bfloat16", "float64"), ("float64", "bfloat16"),
]


@pytest.mark.parametrize("src, dst", param_dtypes(*CAST_PAIRS))
def test_cast(src, dst, rng):
    if src == "bool":
        x = numpy_random(N, "bool", rng)
    elif is_float(src):
        x = _float_source(src, dst, rng)
    else:
        x = _int_source(src, dst, rng)
    method = "cast" if CAST_PAIRS.index((src, dst)) % 2 else "to"
    z = _run(x, dst, method)
    ref = _cast_ref(x, src, dst)
    if is_float(dst):
        # Casts round once, to nearest even: bit-exact against the reference.
        assert_bits_equal(z, ref, err_msg=f"{src} -> {dst}")
    else:
        assert_equal(z, ref, err_msg=f"{src} -> {dst}")


def test_float_to_int_truncates_toward_zero():
    x = np.array([-2.7, -2.5, -2.2, -0.5, 0.5, 2.2, 2.5, 2.7, 100.9, -100.9, 7.0, -7.0],
                 dtype=np.float32)
    z = _run(x, "int32", "to")
    assert_equal(z, np.array([-2, -2, -2, 0, 0, 2, 2, 2, 100, -100, 7, -7], dtype=np.int32))


def test_float64_downcasts_round_once():
    """A float64 value just above a half-way point of the narrow type: one correct rounding
    goes up; rounding through float32 first would land on the tie and go to even."""
    x = np.array([1 + 2**-11 + 2**-40, 1 + 3 * 2**-11 - 2**-40, -(1 + 2**-11 + 2**-40)],
                 dtype=np.float64)
    assert_bits_equal(_run(x, "float16", "to"), x.astype(np.float16))


@requires_ml_dtypes
def test_float64_to_bf16_rounds_once():
    x = np.array([1 + 2**-8 + 2**-40, 1 + 3 * 2**-8 - 2**-40, -(1 + 2**-8 + 2**-40)],
                 dtype=np.float64)
    ref = round_f64_to_bits(x, 8).astype(np.float32).astype(np_dtype("bfloat16"))
    assert_bits_equal(_run(x, "bfloat16", "to"), ref)


# ---------------------------------------------------------------------------------------------
# fp_downcast_rounding


def _rtz_ref(x32, dst):
    """float32 -> dst rounded toward zero."""
    if dst == "bfloat16":
        bits = x32.view(np.uint32) & np.uint32(0xFFFF0000)
        return bits.view(np.float32).astype(np_dtype("bfloat16"))
    with np.errstate(over="ignore"):
        rne = x32.astype(np.float16)
    too_big = np.abs(rne.astype(np.float64)) > np.abs(x32.astype(np.float64))
    rne[too_big] = np.nextafter(rne[too_big], np.float16(0))
    return rne


@pytest.mark.parametrize("dst", param_dtypes("float16", "bfloat16"))
@pytest.mark.parametrize("rounding", ["rtne", "rtz"])
def test_fp_downcast_rounding(dst, rounding, path, rng):
    x = _float_source("float32", dst, rng)
    x[:8] = [1e5, -1e5, 65519.0, 3e-6, np.inf, -np.inf, np.nan, -0.0]  # overflow, near the
    # max, subnormal, and what must stay as it is
    z = _run(x, dst, rounding)
    if rounding == "rtz":
        ref = _rtz_ref(x, dst)
    else:
        with np.errstate(over="ignore"):
            ref = x.astype(np_dtype(dst))
    # A NaN stays a NaN; its payload is the hardware's (the GPU's cvt gives 0x7fff, numpy 0x7e00).
    nan = np.isnan(to_f64(ref))
    assert np.isnan(to_f64(z[nan])).all()
    assert_bits_equal(z[~nan], ref[~nan], err_msg=f"float32 -> {dst} ({rounding})")
    if rounding == "rtz":
        with np.errstate(over="ignore"):
            assert (to_f64(ref) != to_f64(x.astype(np_dtype(dst)))).any()


# ---------------------------------------------------------------------------------------------
# bitcast


BITCAST_PAIRS = [("int32", "float32"), ("float32", "int32"), ("int16", "float16"),
                 ("float16", "uint16"), ("uint64", "float64"), ("float64", "int64"),
                 ("int8", "uint8"), ("uint32", "int32"), ("bfloat16", "int16"),
                 ("int16", "bfloat16")]


@pytest.mark.parametrize("src, dst", param_dtypes(*BITCAST_PAIRS))
def test_bitcast(src, dst, rng):
    x = numpy_random(N, src, rng)
    method = "bitcast" if BITCAST_PAIRS.index((src, dst)) % 2 else "cast_bitcast"
    z = _run(x, dst, method)
    assert_bits_equal(z, x.view(np_dtype(dst)))


def test_bitcast_needs_equal_widths(rng):
    x = numpy_random(16, "int32", rng)
    with pytest.raises(triton.CompilationError):
        _cast_kernel[(1,)](x, poisoned(16, "int64"), 16, DST=tl.int64, METHOD="bitcast",
                           BLOCK=16)


# ---------------------------------------------------------------------------------------------
# fp8 (OCP e4m3fn = tl.float8e4nv, e5m2 = tl.float8e5)


FP8_PAIRS = [("float32", "float8e4nv"), ("float16", "float8e4nv"), ("float32", "float8e5"),
             ("float16", "float8e5"), ("float8e4nv", "float32"), ("float8e4nv", "float16"),
             ("float8e5", "float32"), ("float8e5", "float16"), ("bfloat16", "float32")]


@pytest.mark.parametrize("src, dst", param_dtypes(*FP8_PAIRS))
def test_fp8_casts(src, dst, rng):
    if src.startswith("float8"):
        x = numpy_random(N, src, rng)  # every value exact in the source type
    else:
        # inside the finite range of both fp8 types, subnormals of e4m3 included
        lim = 400.0
        x = (rng.uniform(-1, 1, N) * 10.0 ** rng.uniform(-3, np.log10(lim), N))
        x = x.astype(np_dtype(src))
    z = _run(x, dst, "to")
    assert_bits_equal(z, x.astype(np.float32).astype(np_dtype(dst)),
                      err_msg=f"{src} -> {dst}")


@pytest.mark.parametrize("src, dst", [("float32", "int16"), ("int32", "float16"),
                                      ("float16", "float32"), ("uint8", "int64"),
                                      ("int16", "float16")])
def test_tensor_cast_method(src, dst, rng):
    """`x.cast(dtype)` is `tl.cast(x, dtype)`; `x.cast(dtype, bitcast=True)` the bitcast."""
    x = numpy_random(N, src, rng, low=-100, high=100) if is_int(src) or is_int(dst) else \
        numpy_random(N, src, rng)
    assert_equal(_run(x, dst, "method_cast"), _run(x, dst, "cast"))
    if np.dtype(src).itemsize == np.dtype(dst).itemsize:
        assert_equal(_run(x, dst, "method_cast_bitcast"), x.view(dst))
    ref = np.trunc(x.astype(np.float64)) if is_int(dst) else x.astype(np.float64)
    assert_equal(_run(x, dst, "method_cast").astype(np.float64), ref.astype(dst).astype(np.float64))


# ---------------------------------------------------------------------------------------------
# float8e4b15: fp8e4nv's layout with exponent bias 15 (values 2**-8 times fp8e4nv's)


def _e4b15_value(bits):
    """float64 value of fp8e4b15 bytes: 4 exponent bits (bias 15), 3 mantissa bits, no
    infinities, 0x7F/0xFF NaN (upstream's convert_float_to_float32)."""
    b = bits.astype(np.int64)
    e, m, s = (b >> 3) & 15, b & 7, b >> 7
    mag = np.where(e == 0, m / 8 * 2.0 ** -14, (1 + m / 8) * 2.0 ** (e - 15))
    mag = np.where((b & 0x7F) == 0x7F, np.nan, mag)
    return np.where(s == 1, -mag, mag)


@triton.jit
def _e4b15_kernel(B, F, Z8, ZF, ZD, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(B + offs).to(tl.float8e4b15, bitcast=True)
    tl.store(ZF + offs, x.to(tl.float32))                       # decode
    f = tl.load(F + offs)
    tl.store(Z8 + offs, f.to(tl.float8e4b15).to(tl.uint8, bitcast=True))  # encode, RTNE
    c = tl.full([BLOCK], 0.375, tl.float8e4b15)                 # a constant
    tl.store(ZF + BLOCK + offs, c.to(tl.float32))
    p = x * c                                                   # a product stays e4b15
    tl.static_assert(p.dtype == tl.float8e4b15)
    tl.store(ZF + 2 * BLOCK + offs, p.to(tl.float32))
    m = tl.reshape(x, (16, 16))
    tl.store(ZD + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :],
             tl.dot(m, m))                                      # fp32 accumulation


@requires_ml_dtypes
def test_float8e4b15(rng):
    """float8e4b15 casts (every byte decoded; fp32 encoded with round-to-nearest-even), its
    constants, products and tl.dot, against float64 references."""
    import ml_dtypes

    bits = np.arange(256, dtype=np.uint8)
    f = (rng.uniform(-1.7, 1.7, 256) * 2.0 ** rng.integers(-10, 1, 256)).astype(np.float32)
    z8, zf, zd = poisoned(256, "uint8"), poisoned(3 * 256, "float32"), poisoned(256, "float32")
    _e4b15_kernel[(1,)](bits, f, z8, zf, zd, BLOCK=256)
    val = _e4b15_value(bits)
    assert_equal(zf[:256], val.astype(np.float32))
    # encoding: fp8e4nv's round-to-nearest-even of the value scaled by 2**8
    ref8 = (f.astype(np.float64) * 256).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    assert_equal(z8, ref8.view(np.uint8))
    assert_equal(zf[256:512], np.full(256, 0.375, np.float32))
    prod = (val * 0.375).astype(np.float32)  # exact in fp32, then rounded to e4b15
    prod8 = (prod.astype(np.float64) * 256).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    assert_equal(zf[512:], _e4b15_value(prod8.view(np.uint8)).astype(np.float32))
    m = np.nan_to_num(val).reshape(16, 16)
    finite = ~np.isnan(val.reshape(16, 16))
    got, ref = zd.reshape(16, 16), m @ m
    rows_ok = finite.all(1)[:, None] & finite.all(0)[None, :]  # NaN rows/cols propagate
    np.testing.assert_allclose(got[rows_ok], ref[rows_ok], rtol=1e-6, atol=1e-12)
    assert np.isnan(got[~rows_ok]).all()
