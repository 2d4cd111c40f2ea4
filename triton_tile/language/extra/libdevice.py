"""`libdevice`: the CUDA libdevice names kernels import (`from triton.language.extra import
libdevice`), mapped onto TTIR ops where one exists and composed from tl ops (as @jit functions)
otherwise. Like libdevice, the float functions take fp32/fp64 only. Predicates (isnan, isinf,
isfinited, finitef, signbit) return int32 0/1, as libdevice's do.

Composed functions are accurate to a few ulps in fp32, not bit-identical to libdevice.
"""

from __future__ import annotations

from ...runtime.jit import jit
from .. import core as tl
from .. import math as tlmath
from ..core import _unwrap_if_constexpr, builtin

_FP = ("fp32", "fp64")


def _unary(name, ir_name):
    def fn(arg0, _semantic=None):
        return _semantic.unary_math(ir_name, arg0, _FP)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} (fp32/fp64)."
    return builtin(fn)


# --- direct ops -------------------------------------------------------------------------------
exp = tlmath.exp
exp2 = tlmath.exp2
log = tlmath.log
log2 = tlmath.log2
sqrt = tlmath.sqrt
rsqrt = tlmath.rsqrt
sin = tlmath.sin
cos = tlmath.cos
floor = tlmath.floor
ceil = tlmath.ceil
erf = tlmath.erf
fma = tlmath.fma
div_rn = tlmath.div_rn
sqrt_rn = tlmath.sqrt_rn
umulhi = tlmath.umulhi
tan = _unary("tan", "math.tan")
tanh = _unary("tanh", "math.tanh")
# the "fast" variants are the same ops (approximate on the GPU where the backend allows)
fast_expf = exp
fast_logf = log
fast_log2f = log2
fast_sinf = sin
fast_cosf = cos
fast_tanf = tan
fast_tanhf = tanh
fast_tanh = tanh
sqrt_rz = sqrt_rn
sqrt_rd = sqrt_rn
sqrt_ru = sqrt_rn


@builtin
def fabs(arg0, _semantic=None):
    return _semantic.abs(arg0)


abs = fabs


@builtin
def fmin(arg0, arg1, _semantic=None):
    return tl.minimum(arg0, arg1, _semantic=_semantic)


@builtin
def fmax(arg0, arg1, _semantic=None):
    return tl.maximum(arg0, arg1, _semantic=_semantic)


min = fmin
max = fmax


@builtin
def fmod(arg0, arg1, _semantic=None):
    """C fmod: the remainder has the sign of the dividend."""
    return _semantic.mod(_unwrap_if_constexpr(arg0), _unwrap_if_constexpr(arg1))


@builtin
def fast_dividef(arg0, arg1, _semantic=None):
    return _semantic.fdiv(_semantic.to_tensor(arg0), _semantic.to_tensor(arg1), False)


# directed-rounding divisions are computed round-to-nearest (documented difference)
div_rz = fast_dividef
div_rd = fast_dividef
div_ru = fast_dividef


@builtin
def rcp_rn(arg0, _semantic=None):
    x = _semantic.to_tensor(arg0)
    return _semantic.precise_div(_semantic._constant_like(1.0, x.dtype, x), x)


@builtin
def saturatef(arg0, _semantic=None):
    return tl.clamp(arg0, 0.0, 1.0, _semantic=_semantic)


@builtin
def isnan(arg0, _semantic=None):
    x = _semantic.to_tensor(arg0)
    _semantic.check_dtype(x, _FP, "isnan")
    return _semantic.cast(_semantic.compare("ne", x, x), tl.int32)


@builtin
def isinf(arg0, _semantic=None):
    x = _semantic.to_tensor(arg0)
    _semantic.check_dtype(x, _FP, "isinf")
    return _semantic.cast(_semantic.compare("eq", _semantic.abs(x), float("inf")), tl.int32)


@builtin
def isfinited(arg0, _semantic=None):
    x = _semantic.to_tensor(arg0)
    _semantic.check_dtype(x, _FP, "isfinite")
    return _semantic.cast(_semantic.compare("lt", _semantic.abs(x), float("inf")), tl.int32)


finitef = isfinited
isfinite = isfinited


def _same_width_int(dt):
    return {64: tl.int64, 32: tl.int32, 16: tl.int16, 8: tl.int8}[dt.primitive_bitwidth]


@builtin
def signbit(arg0, _semantic=None):
    x = _semantic.to_tensor(arg0)
    _semantic.check_dtype(x, _FP, "signbit")
    bits = _semantic.bitcast(x, _same_width_int(x.dtype))
    return _semantic.cast(_semantic.compare("lt", bits, 0), tl.int32)


def _bitcast_fn(name, src, dst):
    def fn(arg0, _semantic=None):
        x = _semantic.to_tensor(arg0)
        if x.dtype != src:
            raise ValueError(f"{name} expects {src}, got {x.dtype}")
        return _semantic.bitcast(x, dst)

    fn.__name__ = fn.__qualname__ = name
    return builtin(fn)


float_as_int = _bitcast_fn("float_as_int", tl.float32, tl.int32)
int_as_float = _bitcast_fn("int_as_float", tl.int32, tl.float32)
float_as_uint = _bitcast_fn("float_as_uint", tl.float32, tl.uint32)
uint_as_float = _bitcast_fn("uint_as_float", tl.uint32, tl.float32)
double_as_longlong = _bitcast_fn("double_as_longlong", tl.float64, tl.int64)
longlong_as_double = _bitcast_fn("longlong_as_double", tl.int64, tl.float64)


@builtin
def mulhi(arg0, arg1, _semantic=None):
    """High half of the signed product of two int32 (or int64) values."""
    x, y = _semantic.binary_op_type_checking_impl(_unwrap_if_constexpr(arg0),
                                                  _unwrap_if_constexpr(arg1))
    if x.dtype == tl.int32:
        prod = _semantic.mul(_semantic.cast(x, tl.int64), _semantic.cast(y, tl.int64), False)
        return _semantic.cast(_semantic.shr(prod, 32), tl.int32)
    if x.dtype == tl.int64:
        # signed high = unsigned high - (x < 0 ? y : 0) - (y < 0 ? x : 0)
        hi = _semantic.umulhi(x, y)
        zero = _semantic._constant_like(0, tl.int64, x)
        hi = _semantic.sub(hi, _semantic.where(_semantic.compare("lt", x, 0), y, zero), False)
        return _semantic.sub(hi, _semantic.where(_semantic.compare("lt", y, 0), x, zero), False)
    raise ValueError(f"mulhi expects int32 or int64, got {x.dtype}")


# --- composed functions (@jit) ---------------------------------------------------------------

@jit
def _check_float(x):
    tl.static_assert(x.dtype == tl.float32 or x.dtype == tl.float64,
                     "libdevice functions take fp32 or fp64 (use .to(tl.float32))")


@jit
def trunc(arg0):
    _check_float(arg0)
    return tl.where(arg0 < 0, tlmath.ceil(arg0), tlmath.floor(arg0))


@jit
def copysign(arg0, arg1):
    """|arg0| with the sign of arg1."""
    _check_float(arg0)
    if arg0.dtype == tl.float64:
        ity: tl.constexpr = tl.int64
        mag: tl.constexpr = 0x7FFFFFFFFFFFFFFF
    else:
        ity: tl.constexpr = tl.int32
        mag: tl.constexpr = 0x7FFFFFFF
    xb = arg0.to(ity, bitcast=True)
    yb = tl.cast(arg1, arg0.dtype).to(ity, bitcast=True)
    return ((xb & mag) | (yb & ~mag)).to(arg0.dtype, bitcast=True)


@jit
def rint(arg0):
    """Round to nearest, ties to even."""
    _check_float(arg0)
    if arg0.dtype == tl.float64:
        big: tl.constexpr = 4503599627370496.0  # 2**52: no fraction bits left above it
    else:
        big: tl.constexpr = 8388608.0  # 2**23
    ax = tlmath.abs(arg0)
    # adding and subtracting 2**p rounds the fraction away in the current rounding mode
    r = tl.where(ax < big, (ax + big) - big, ax)
    return copysign(r, arg0)


nearbyint = rint


@jit
def round(arg0):
    """Round to nearest, ties away from zero."""
    _check_float(arg0)
    ax = tlmath.abs(arg0)
    t = trunc(ax)
    r = tl.where(ax - t >= 0.5, t + 1.0, t)
    return copysign(r, arg0)


@jit
def log1p(arg0):
    _check_float(arg0)
    u = 1.0 + arg0
    # log(u) * x / (u - 1) cancels the rounding error of 1 + x
    r = tl.where(u == 1.0, arg0, tlmath.log(u) * (arg0 / (u - 1.0)))
    return tl.where(arg0 == float("inf"), arg0, r)


@jit
def expm1(arg0):
    _check_float(arg0)
    u = tlmath.exp(arg0)
    # (u - 1) * x / log(u) cancels the rounding error of exp(x)
    r = tl.where(u == 1.0, arg0, (u - 1.0) * (arg0 / tlmath.log(u)))
    r = tl.where(u - 1.0 == -1.0, -1.0, r)
    return tl.where(u == float("inf"), u, r)


@jit
def log10(arg0):
    _check_float(arg0)
    return tlmath.log2(arg0) * 0.30102999566398119521


@jit
def exp10(arg0):
    _check_float(arg0)
    return tlmath.exp2(arg0 * 3.32192809488736234787)


fast_log10f = log10
fast_exp10f = exp10


@jit
def sinh(arg0):
    _check_float(arg0)
    return 0.5 * (expm1(arg0) - expm1(-arg0))


@jit
def cosh(arg0):
    _check_float(arg0)
    return 0.5 * (tlmath.exp(arg0) + tlmath.exp(-arg0))


@jit
def asinh(arg0):
    _check_float(arg0)
    ax = tlmath.abs(arg0)
    small = log1p(ax + ax * ax / (1.0 + tlmath.sqrt(1.0 + ax * ax)))
    large = tlmath.log(ax) + 0.69314718055994530942
    return copysign(tl.where(ax > 1.0e18, large, small), arg0)


@jit
def acosh(arg0):
    _check_float(arg0)
    small = tlmath.log(arg0 + tlmath.sqrt((arg0 - 1.0) * (arg0 + 1.0)))
    large = tlmath.log(arg0) + 0.69314718055994530942
    return tl.where(arg0 > 1.0e18, large, small)


@jit
def atanh(arg0):
    _check_float(arg0)
    return 0.5 * log1p(2.0 * arg0 / (1.0 - arg0))


@jit
def atan(arg0):
    _check_float(arg0)
    ax = tlmath.abs(arg0)
    inv = ax > 1.0
    t = tl.where(inv, 1.0 / ax, ax)  # [0, 1]
    # atan(t) = pi/6 + atan((t*sqrt(3) - 1) / (t + sqrt(3))) brings t below tan(pi/12)
    shift = t > 0.26794919243112270
    u = tl.where(shift, (t * 1.7320508075688772 - 1.0) / (t + 1.7320508075688772), t)
    u2 = u * u
    # odd Taylor series of atan to u**31: |u| <= 0.268 makes the tail < 1e-18
    # (start from u2 so the Python-float coefficients take u's dtype)
    p = u2 * (-1.0 / 31.0) + 1.0 / 29.0
    p = p * u2 - 1.0 / 27.0
    p = p * u2 + 1.0 / 25.0
    p = p * u2 - 1.0 / 23.0
    p = p * u2 + 1.0 / 21.0
    p = p * u2 - 1.0 / 19.0
    p = p * u2 + 1.0 / 17.0
    p = p * u2 - 1.0 / 15.0
    p = p * u2 + 1.0 / 13.0
    p = p * u2 - 1.0 / 11.0
    p = p * u2 + 1.0 / 9.0
    p = p * u2 - 1.0 / 7.0
    p = p * u2 + 1.0 / 5.0
    p = p * u2 - 1.0 / 3.0
    p = p * u2 + 1.0
    r = u * p
    r = tl.where(shift, r + 0.52359877559829887308, r)
    r = tl.where(inv, 1.57079632679489661923 - r, r)
    return tl.where(arg0 < 0, -r, r)


@jit
def atan2(arg0, arg1):
    """The angle of (x=arg1, y=arg0), in [-pi, pi]."""
    _check_float(arg0)
    y = arg0
    x = tl.cast(arg1, arg0.dtype)
    a = atan(y / x)
    pi: tl.constexpr = 3.14159265358979323846
    r = tl.where(x < 0, tl.where(y < 0, a - pi, a + pi), a)
    # atan2(+-0, x): +-0 for x > +0 (and +0), +-pi for x < -0 (and -0)
    x_neg = signbit(x) != 0
    zero = tl.zeros_like(y)
    zero_y = tl.where(x_neg, copysign(zero + pi, y), copysign(zero, y))
    r = tl.where(y == 0.0, zero_y, r)
    # both infinite: the diagonal angles
    both_inf = (tlmath.abs(x) == float("inf")) & (tlmath.abs(y) == float("inf"))
    diag = tl.where(x_neg, 2.35619449019234492885, 0.78539816339744830962)
    return tl.where(both_inf, copysign(diag, y), r)


@jit
def asin(arg0):
    _check_float(arg0)
    return atan2(arg0, tlmath.sqrt((1.0 - arg0) * (1.0 + arg0)))


@jit
def acos(arg0):
    _check_float(arg0)
    return atan2(tlmath.sqrt((1.0 - arg0) * (1.0 + arg0)), arg0)


@jit
def cbrt(arg0):
    _check_float(arg0)
    ax = tlmath.abs(arg0)
    r = tlmath.exp2(tlmath.log2(ax) * (1.0 / 3.0))
    # one Newton step on r**3 = ax
    r = tl.where((r > 0) & (r < float("inf")), r - (r * r * r - ax) / (3.0 * r * r), r)
    return copysign(r, arg0)


@jit
def hypot(arg0, arg1):
    _check_float(arg0)
    ax = tlmath.abs(arg0)
    ay = tlmath.abs(tl.cast(arg1, arg0.dtype))
    hi = tl.maximum(ax, ay)
    lo = tl.minimum(ax, ay)
    q = lo / tl.where(hi == 0, 1.0, hi)
    r = hi * tlmath.sqrt(1.0 + q * q)
    return tl.where(hi == float("inf"), hi, r)


@jit
def erfc(arg0):
    _check_float(arg0)
    return 1.0 - tlmath.erf(arg0)


@jit
def pow(arg0, arg1):
    """x ** y for float x (y float or int); computed in fp64 for fp32 inputs."""
    _check_float(arg0)
    x = arg0.to(tl.float64)
    y = tl.cast(arg1, tl.float64)
    ax = tlmath.abs(x)
    r = tlmath.exp2(y * tlmath.log2(ax))
    y_int = tlmath.floor(y) == y
    y_odd = y_int & ((y % 2.0) != 0.0)
    neg = tl.where(y_int, tl.where(y_odd, -r, r), float("nan"))
    r = tl.where(x < 0, neg, r)
    # odd integer powers keep the sign of a negative zero
    r = tl.where((x == 0) & y_odd, copysign(r, x), r)
    r = tl.where((y == 0) | (x == 1.0), 1.0, r)
    return r.to(arg0.dtype)


powf = pow
fast_powf = pow


@jit
def ldexp(arg0, arg1):
    _check_float(arg0)
    return arg0 * tlmath.exp2(tl.cast(arg1, arg0.dtype))


@jit
def fdim(arg0, arg1):
    _check_float(arg0)
    d = arg0 - arg1
    return tl.where(d > 0, d, 0.0)
