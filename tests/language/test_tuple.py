"""Tuples: tuple and namedtuple kernel arguments (pointers, scalars, constexprs), indexing
with constexprs, len, static_range over a tuple, tuples returned from @jit functions,
unpacking, tl.tuple from a comprehension, compile-time tuple equality and concatenation."""

from collections import namedtuple

import numpy as np
from tt_utils import assert_close, assert_equal, numpy_random, poisoned

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _tuple_increment(values):
    return tl.tuple([v + 1 for v in values])


@triton.jit
def _tuple_args_kernel(PTRS, VALUES, CONSTS: tl.constexpr, Z, BLOCK: tl.constexpr):
    tl.static_assert(len(PTRS) == 3)
    values = _tuple_increment(VALUES)
    offs = tl.arange(0, BLOCK)
    for i in tl.static_range(len(PTRS)):
        x = tl.load(PTRS[i] + offs)
        tl.store(Z + i * BLOCK + offs, x * values[i] + CONSTS[i])


def test_tuple_arguments(rng):
    block = 16
    arrays = tuple(numpy_random(block, "int32", rng, low=-100, high=100) for _ in range(3))
    values, consts = (2, 3, 40), (10, -20, 30)
    z = poisoned(3 * block, "int32")
    _tuple_args_kernel[(1,)](arrays, values, consts, z, BLOCK=block)
    ref = np.concatenate([a * (v + 1) + c for a, v, c in zip(arrays, values, consts)])
    assert_equal(z, ref)


@triton.jit
def _float_tuple_kernel(X, Z, T):
    x = tl.load(X)
    tl.store(Z, x * T[0] + T[1])


def test_tuple_of_floats(rng):
    x = numpy_random(1, "float32", rng)
    z = poisoned(1, "float32")
    _float_tuple_kernel[(1,)](x, z, (1.5, -0.25))
    assert_close(z, x * np.float32(1.5) - np.float32(0.25), rtol=1e-7)


@triton.jit
def _swap(a, b):
    return b, a


@triton.jit
def _nested(x):
    return x, (x + 1, x * 2)


@triton.jit
def _tuple_return_kernel(X, Z):
    x = tl.load(X)
    y = tl.load(X + 1)
    a, b = _swap(x, y)
    p, (q, r) = _nested(a)
    t = _nested(b)
    tl.static_assert(len(t) == 2)
    tl.static_assert(len(t[1]) == 2)
    v_u = (a, b)
    u, v = v_u
    tl.store(Z + 0, a)
    tl.store(Z + 1, b)
    tl.store(Z + 2, p)
    tl.store(Z + 3, q)
    tl.store(Z + 4, r)
    tl.store(Z + 5, t[1][0])
    tl.store(Z + 6, v_u[1] - u + v)


def test_tuple_returns_and_unpacking(rng):
    x = numpy_random(2, "int32", rng, low=-1000, high=1000)
    z = poisoned(7, "int32")
    _tuple_return_kernel[(1,)](x, z)
    a, b = x[1], x[0]
    assert_equal(z, [a, b, a, a + 1, a * 2, b + 1, b - a + b])


Pair = namedtuple("Pair", ["ptr", "scale"])


@triton.jit
def _namedtuple_kernel(P, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Z + offs, tl.load(P.ptr + offs) * P.scale + P[1])


def test_namedtuple_argument(rng):
    block = 32
    x = numpy_random(block, "float32", rng)
    z = poisoned(block, "float32")
    _namedtuple_kernel[(1,)](Pair(x, 3), z, BLOCK=block)
    # float64 reference, within two fp32 roundings of the largest term: the GPU's one fma (one
    # rounding) and the CPU's multiply then add (two, the first relative to |3x|, which can
    # exceed the result) both pass; a wrong field misses by 1 or more.
    terms = np.abs(x.astype(np.float64) * 3) + 3
    assert_close(z, x.astype(np.float64) * 3 + 3, rtol=0, atol=2.0 ** -22 * terms.max())


@triton.jit
def _constexpr_tuple_kernel(Z, A: tl.constexpr, B: tl.constexpr):
    tl.static_assert(len(A) == 2)
    tl.static_assert(A[0] == 1)
    c: tl.constexpr = A + B  # concatenation at compile time
    tl.static_assert(len(c) == 4)
    for i in tl.static_range(len(c)):
        tl.store(Z + i, c[i])
    lit = (5, 6) + (7,)
    for i in tl.static_range(3):
        tl.store(Z + 4 + i, lit[i])
    tl.store(Z + 7, (1, 2) == (1, 2))
    tl.store(Z + 8, (1, 2) == (1, 3))


def test_constexpr_tuples():
    z = poisoned(9, "int32")
    _constexpr_tuple_kernel[(1,)](z, A=(1, 2), B=(3, 4))
    assert_equal(z, [1, 2, 3, 4, 5, 6, 7, 1, 0])
