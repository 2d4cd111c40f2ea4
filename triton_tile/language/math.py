"""`tl.math`: elementwise math builtins.

Like Triton, the transcendental functions accept only fp32/fp64 (write `.to(tl.float32)` for
fp16/bf16): "Expected dtype ['fp32', 'fp64'] but got fp16". `abs`, `fma` and `fdiv` take any
float. The GPU may evaluate exp/log/sqrt approximately; `sqrt_rn` and `div_rn` are IEEE.
"""

from __future__ import annotations

from . import core
from .core import _unwrap_if_constexpr, builtin, cdiv, clamp, fdiv, maximum, minimum

_FP = ("fp32", "fp64")


def _unary(name: str, ir_name: str, doc: str):
    def fn(x, _semantic=None):
        return _semantic.unary_math(ir_name, x, _FP)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return builtin(fn)


exp = _unary("exp", "math.exp", "Elementwise e**x.")
exp2 = _unary("exp2", "math.exp2", "Elementwise 2**x.")
log = _unary("log", "math.log", "Elementwise natural logarithm.")
log2 = _unary("log2", "math.log2", "Elementwise base-2 logarithm.")
cos = _unary("cos", "math.cos", "Elementwise cosine.")
sin = _unary("sin", "math.sin", "Elementwise sine.")
sqrt = _unary("sqrt", "math.sqrt", "Elementwise square root (may be approximate on GPU).")
rsqrt = _unary("rsqrt", "math.rsqrt", "Elementwise 1/sqrt(x).")
erf = _unary("erf", "math.erf", "Elementwise error function.")
floor = _unary("floor", "math.floor", "Elementwise floor.")
ceil = _unary("ceil", "math.ceil", "Elementwise ceiling.")


@builtin
def sqrt_rn(x, _semantic=None):
    """Square root rounded to nearest (IEEE)."""
    return _semantic.precise_sqrt(x)


@builtin
def abs(x, _semantic=None):
    """Elementwise absolute value (any numeric dtype; unsigned values are returned as is)."""
    return _semantic.abs(x)


@builtin
def fma(x, y, z, _semantic=None):
    """x * y + z with one rounding."""
    return _semantic.fma(_unwrap_if_constexpr(x), _unwrap_if_constexpr(y),
                         _unwrap_if_constexpr(z))


@builtin
def div_rn(x, y, _semantic=None):
    """x / y rounded to nearest (IEEE)."""
    return _semantic.precise_div(_unwrap_if_constexpr(x), _unwrap_if_constexpr(y))


@builtin
def umulhi(x, y, _semantic=None):
    """The high half of the (unsigned) 2N-bit product of two N-bit integers."""
    return _semantic.umulhi(_semantic.to_tensor(x), _semantic.to_tensor(y))


__all__ = ["exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "sqrt_rn", "rsqrt", "erf",
           "floor", "ceil", "abs", "fma", "fdiv", "div_rn", "umulhi", "cdiv", "clamp", "maximum",
           "minimum", "core"]
