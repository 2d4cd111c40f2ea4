"""Philox random numbers: randint/randint4x bit-exact against a numpy Philox4x32-10 (and
4x64-10) reference, rand in [0, 1), randn against the reference and its moments."""

import numpy as np
import pytest
from tt_utils import assert_close, assert_equal, cdiv, poisoned

import triton_tile as triton
import triton_tile.language as tl

# Philox constants (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11)
_PHILOX = {
    32: (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85),
    64: (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B),
}


def philox(counters, key, rounds=10, bits=32):
    """Philox4xW: counters (c0, c1, c2, c3) are uint64 numpy arrays (W=32) or lists of
    Python ints (W=64); key is (k0, k1). Returns the four output words."""
    m0, m1, w0, w1 = _PHILOX[bits]
    mask = (1 << bits) - 1
    if bits == 32:
        c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint64) for c in counters)
        k0, k1 = np.uint64(key[0]), np.uint64(key[1])
        m0, m1, w0, w1, mask, sh = (np.uint64(v) for v in (m0, m1, w0, w1, mask, 32))
        for _ in range(rounds):
            p0, p1 = m0 * c0, m1 * c2  # exact: 32 x 32 bits fit in 64
            c0, c1, c2, c3 = ((p1 >> sh) ^ c1 ^ k0) & mask, p1 & mask, \
                ((p0 >> sh) ^ c3 ^ k1) & mask, p0 & mask
            k0, k1 = (k0 + w0) & mask, (k1 + w1) & mask
        return [c.astype(np.uint32) for c in (c0, c1, c2, c3)]
    out = []
    for c in zip(*counters):
        c0, c1, c2, c3 = (int(v) for v in c)
        k0, k1 = key
        for _ in range(rounds):
            p0, p1 = m0 * c0, m1 * c2
            c0, c1, c2, c3 = ((p1 >> 64) ^ c1 ^ k0) & mask, p1 & mask, \
                ((p0 >> 64) ^ c3 ^ k1) & mask, p0 & mask
            k0, k1 = (k0 + w0) & mask, (k1 + w1) & mask
        out.append((c0, c1, c2, c3))
    return [np.array([o[i] for o in out], dtype=np.uint64) for i in range(4)]


def _ref_randint4x(seed, offsets, rounds=10):
    seed &= (1 << 64) - 1
    offs = np.asarray(offsets)
    if offs.dtype.itemsize == 4:
        c0 = offs.astype(np.int64) & 0xFFFFFFFF
        zero = np.zeros_like(c0)
        return philox((c0, zero, zero, zero), (seed & 0xFFFFFFFF, seed >> 32), rounds, 32)
    # 64-bit offsets: still the 32-bit stream, the offset split over two counter words (low
    # 32 bits, then the arithmetic >> 32), as Triton does since its PR 6832
    offs = offs.astype(np.int64)
    c0 = offs & 0xFFFFFFFF
    c1 = (offs >> 32) & 0xFFFFFFFF
    zero = np.zeros_like(c0)
    return philox((c0, c1, zero, zero), (seed & 0xFFFFFFFF, seed >> 32), rounds, 32)


def _uniform(u32):
    x = u32.view(np.int32)
    x = np.where(x < 0, -x - 1, x)  # -INT_MIN - 1 does not overflow: it is INT_MAX
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def _normal(u1, u2):
    u1 = np.maximum(np.float32(1.0e-7), u1)
    th = np.float32(6.283185307179586) * u2
    r = np.sqrt(np.float32(-2.0) * np.log(u1))
    return r * np.cos(th), r * np.sin(th)


def test_reference_matches_known_answers():
    """The reference reproduces Random123's known-answer vectors."""
    f = 0xFFFFFFFF
    cases = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
             ((f, f, f, f), (f, f), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
             ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
              (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]
    for ctr, key, expected in cases:
        got = philox([[c] for c in ctr], key)
        assert [int(g[0]) for g in got] == list(expected)
    got = philox([[0], [0], [0], [0]], (0, 0), bits=64)
    assert [int(g[0]) for g in got] == [0x16554D9ECA36314C, 0xDB20FE9D672D0FDC,
                                        0xD7E772CEE186176B, 0x7E68B68AEC7BA23B]


# ---------------------------------------------------------------------------------------------


@triton.jit
def _randint_kernel(Z, Z4, seed, base, n, N_ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ctr = base + offs
    r = tl.randint(seed, ctr, N_ROUNDS)
    tl.store(Z + offs, r, mask=mask)
    a, b, c, d = tl.randint4x(seed, ctr, N_ROUNDS)
    tl.store(Z4 + offs, a, mask=mask)
    tl.store(Z4 + n + offs, b, mask=mask)
    tl.store(Z4 + 2 * n + offs, c, mask=mask)
    tl.store(Z4 + 3 * n + offs, d, mask=mask)


@pytest.mark.parametrize("seed, base, rounds", [(123, 7, 10), (2**40 + 17, -500, 10),
                                                (98765, 2**31 - 200, 7)])
def test_randint_32(seed, base, rounds):
    n = 1000
    z, z4 = poisoned(n, "uint32"), poisoned(4 * n, "uint32")
    _randint_kernel[(cdiv(n, 256),)](z, z4, seed, base, n, N_ROUNDS=rounds, BLOCK=256)
    # base + offs is int32 arithmetic: it wraps past 2**31
    ctr = (np.int64(base) + np.arange(n)).astype(np.int32)
    ref = _ref_randint4x(seed, ctr, rounds)
    assert_equal(z, ref[0])
    assert_equal(z4, np.concatenate(ref))


@pytest.mark.parametrize("seed", [55, 2**50 + 3])
@pytest.mark.parametrize("base", [2**40 + 11, -2**35 - 7, 2**32 - 40])
def test_randint_64(seed, base):
    """int64 offsets give uint32 numbers of the 32-bit stream (the offset's high word is the
    second counter word), not the 64-bit Philox variant: upstream's test_randint expects
    1713891541, not 1609277786247541068."""
    n = 100
    z, z4 = poisoned(n, "uint32"), poisoned(4 * n, "uint32")
    _randint_kernel[(1,)](z, z4, seed, base, n, N_ROUNDS=10, BLOCK=128)
    ref = _ref_randint4x(seed, base + np.arange(n, dtype=np.int64))
    assert_equal(z, ref[0])
    assert_equal(z4, np.concatenate(ref))


@triton.jit
def _randint_offsets_kernel(Z32, Z64, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Z32 + offs, tl.randint(seed, offs))
    tl.store(Z64 + offs, tl.randint(seed, offs.to(tl.int64)))


def test_randint_offset_width_same_stream():
    """Offsets below 2**32 give the same numbers as int32 and as int64."""
    z32, z64 = poisoned(64, "uint32"), poisoned(64, "uint32")
    seed = int(np.random.randint(1, 2**31))
    _randint_offsets_kernel[(1,)](z32, z64, seed, BLOCK=64)
    ref = _ref_randint4x(seed, np.arange(64, dtype=np.int32))[0]
    assert_equal(z32, ref)
    assert_equal(z64, ref)


@triton.jit
def _philox64_kernel(Z, seed, base, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    c = (base + offs).to(tl.uint64, bitcast=True)
    zero = c * 0
    a, b, cc, d = tl.random.philox(seed, c, zero, zero, zero)
    tl.store(Z + offs, a)
    tl.store(Z + BLOCK + offs, b)
    tl.store(Z + 2 * BLOCK + offs, cc)
    tl.store(Z + 3 * BLOCK + offs, d)


def test_philox_64bit_counters():
    """`tl.random.philox` on 64-bit counters is the Philox4x64 variant (key: the seed)."""
    seed, base = 2**50 + 3, 2**40 + 11
    z = poisoned(4 * 32, "uint64")
    _philox64_kernel[(1,)](z, seed, base, BLOCK=32)
    c0 = [base + i for i in range(32)]
    zero = [0] * 32
    ref = philox((c0, zero, zero, zero), (seed, 0), 10, 64)
    assert_equal(z, np.concatenate(ref))


@triton.jit
def _rand_kernel(Z, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Z + offs, tl.rand(seed, offs), mask=mask)
    tl.store(Z + n + offs, tl.randn(seed, offs), mask=mask)
    u1, u2, u3, u4 = tl.rand4x(seed, offs)
    tl.store(Z + 2 * n + offs, u3, mask=mask)
    n1, n2, n3, n4 = tl.randn4x(seed, offs)
    tl.store(Z + 3 * n + offs, n4, mask=mask)


def test_rand_and_randn():
    n, seed = 20000, 4321
    z = poisoned(4 * n, "float32")
    _rand_kernel[(cdiv(n, 1024),)](z, seed, n, BLOCK=1024)
    u, g, u3, g4 = z.reshape(4, n)
    r = _ref_randint4x(seed, np.arange(n, dtype=np.int32))
    uniforms = [_uniform(w) for w in r]
    assert_close(u, uniforms[0], rtol=1e-7)
    assert_close(u3, uniforms[2], rtol=1e-7)
    n1, _ = _normal(uniforms[0], uniforms[1])
    _, n4 = _normal(uniforms[2], uniforms[3])
    assert_close(g, n1, rtol=1e-5, atol=1e-5)
    assert_close(g4, n4, rtol=1e-5, atol=1e-5)
    for v in (u, u3):
        assert v.min() >= 0.0 and v.max() < 1.0
        assert abs(v.mean() - 0.5) < 0.01 and abs(v.var() - 1 / 12) < 0.005
    for v in (g, g4):
        assert abs(v.mean()) < 0.03 and abs(v.std() - 1.0) < 0.03


@triton.jit
def _uniform_limits_kernel(X, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Z + offs, tl.random.uint_to_uniform_float(tl.load(X + offs)))


@pytest.mark.parametrize("dtype", ["int32", "uint32"])
def test_uniform_limits(dtype):
    info = np.iinfo(np.int32)
    x = np.array([info.min, info.max, 0, -1, 1, info.min + 1, info.max - 1, 12345],
                 dtype=np.int32).view(dtype)
    z = poisoned(8, "float32")
    _uniform_limits_kernel[(1,)](x, z, BLOCK=8)
    assert z.min() >= 0.0 and z.max() < 1.0
    assert_close(z, _uniform(x.view(np.uint32)), rtol=1e-7)
