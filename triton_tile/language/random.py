"""Counter-based random numbers: Philox-4x32 (and 4x64) with 10 rounds by default.

Everything here is an ordinary @jit function over uint32/uint64 tensors, so results are
bit-exact with Triton's `tl.rand*` as long as integer arithmetic wraps and `umulhi` is the high
half of the unsigned product.
"""

from __future__ import annotations

from ..runtime.jit import jit
from . import core as tl
from . import math as tlmath

N_ROUNDS_DEFAULT = tl.constexpr(10)

# Philox round multipliers and Weyl key increments (32- and 64-bit variants).
_M0_32 = tl.constexpr(0xD2511F53)
_M1_32 = tl.constexpr(0xCD9E8D57)
_W0_32 = tl.constexpr(0x9E3779B9)
_W1_32 = tl.constexpr(0xBB67AE85)
_M0_64 = tl.constexpr(0xD2E7470EE14C6C93)
_M1_64 = tl.constexpr(0xCA5A826395121157)
_W0_64 = tl.constexpr(0x9E3779B97F4A7C15)
_W1_64 = tl.constexpr(0xBB67AE8584CAA73B)


@jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """`n_rounds` Philox rounds on the counter (c0, c1, c2, c3) under the key (k0, k1)."""
    if c0.dtype == tl.uint32:
        m0: tl.constexpr = _M0_32
        m1: tl.constexpr = _M1_32
        w0: tl.constexpr = _W0_32
        w1: tl.constexpr = _W1_32
    else:
        tl.static_assert(c0.dtype == tl.uint64, "philox_impl needs uint32 or uint64 counters")
        m0: tl.constexpr = _M0_64
        m1: tl.constexpr = _M1_64
        w0: tl.constexpr = _W0_64
        w1: tl.constexpr = _W1_64
    for _ in tl.static_range(n_rounds):
        a = c0
        b = c2
        c0 = tlmath.umulhi(m1, b) ^ c1 ^ k0
        c2 = tlmath.umulhi(m0, a) ^ c3 ^ k1
        c1 = tl.mul(m1, b, sanitize_overflow=False)
        c3 = tl.mul(m0, a, sanitize_overflow=False)
        k0 = tl.add(k0, w0, sanitize_overflow=False)
        k1 = tl.add(k1, w1, sanitize_overflow=False)
    return c0, c1, c2, c3


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Philox keyed by `seed` (an integer, split into two 32-bit halves for 32-bit counters)."""
    seed = tl.to_tensor(seed)
    tl.static_assert(seed.dtype.is_int(), "philox: the seed must be an integer")
    seed = seed.to(tl.uint64)
    c0 = tl.to_tensor(c0)
    c1 = tl.to_tensor(c1)
    c2 = tl.to_tensor(c2)
    c3 = tl.to_tensor(c3)
    if tl.constexpr(c0.dtype.primitive_bitwidth) == 32:
        udt: tl.constexpr = tl.uint32
        key_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
        key_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    else:
        tl.static_assert(tl.constexpr(c0.dtype.primitive_bitwidth) == 64,
                         "philox: counters must be 32 or 64 bits wide")
        udt: tl.constexpr = tl.uint64
        key_hi = tl.full((1, ), 0, dtype=udt)
        key_lo = seed
    c0 = c0.to(udt, bitcast=True)
    c1 = c1.to(udt, bitcast=True)
    c2 = c2.to(udt, bitcast=True)
    c3 = c3.to(udt, bitcast=True)
    return philox_impl(c0, c1, c2, c3, key_lo, key_hi, n_rounds)


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random uint32: the 32-bit Philox output for the counter (low 32 bits of
    `offset`, its high 32 bits, 0, 0). Triton (since its PR 6832) keeps the 32-bit stream for
    64-bit offsets too, splitting them over two counter words, so offsets below 2**32 give the
    same numbers whatever their width."""
    offset_lo = offset.to(tl.uint32)
    zero = offset_lo * 0
    if tl.constexpr(offset.dtype.primitive_bitwidth) > 32:
        offset_hi = (offset >> 32).to(tl.uint32)
    else:
        offset_hi = zero
    return philox(seed, offset_lo, offset_hi, zero, zero, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One block of random uint32, keyed by `seed`, one value per `offset`."""
    r, _, _, _ = randint4x(seed, offset, n_rounds)
    return r


@jit
def uint_to_uniform_float(x):
    """Random 32/64-bit integers -> fp32 uniform in [0, 1)."""
    if tl.constexpr(x.dtype == tl.uint32) or tl.constexpr(x.dtype == tl.int32):
        x = x.to(tl.int32, bitcast=True)
        # the largest scale with (2**31 - 1) * scale < 1.0 in fp32
        scale = 4.6566127342e-10
    else:
        tl.static_assert(tl.constexpr(x.dtype == tl.uint64) or tl.constexpr(x.dtype == tl.int64))
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    # fold the negative half onto the positive one
    x = tl.where(x < 0, -x - 1, x)
    return x * scale


@jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A block of fp32 uniform in [0, 1), one value per `offset`."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@jit
def rand4x(seed, offsets, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of fp32 uniform in [0, 1)."""
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    return (uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3),
            uint_to_uniform_float(i4))


@jit
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniform blocks -> two standard normal blocks."""
    u1 = tl.maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    radius = tlmath.sqrt(-2.0 * tlmath.log(u1))
    return radius * tlmath.cos(theta), radius * tlmath.sin(theta)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A block of fp32 standard normal values, one per `offset`."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of fp32 standard normal values."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
