"""Control flow and calls: dynamic and constexpr if/else, ternaries, early return, while and
nested while, for (static_range, i64 bounds, negative and dynamic steps, tl.range hints),
loop-carried values, temporaries in loops, nested @jit calls, noinline, defaults,
short-circuiting, program ids and num_programs on a 3-D grid."""

import itertools

import numpy as np
import pytest
from tt_utils import assert_close, assert_equal, numpy_random, poisoned

import triton_tile as triton
import triton_tile.language as tl

# ---------------------------------------------------------------------------------------------
# if / else


@triton.jit
def _if_else_kernel(X, Z):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    if x > 0:
        y = x * 2
    else:
        y = -x + 100
    w = x
    if x > 10:  # no else: w changes on one side only
        w = w - 10
    if x > 0:
        if x > 50:
            v = 3
        else:
            v = 2
    else:
        v = 1
    tl.store(Z + 3 * pid, y)
    tl.store(Z + 3 * pid + 1, w)
    tl.store(Z + 3 * pid + 2, v)


def test_if_else_dynamic(rng):
    x = numpy_random(200, "int32", rng, low=-100, high=100)
    z = poisoned(600, "int32")
    _if_else_kernel[(200,)](x, z)
    y = np.where(x > 0, x * 2, -x + 100)
    w = np.where(x > 10, x - 10, x)
    v = np.where(x > 0, np.where(x > 50, 3, 2), 1)
    assert_equal(z.reshape(200, 3), np.stack([y, w, v], 1))


@triton.jit
def _bool_arg_kernel(Z, flag, x):
    if flag:  # a Python bool argument is a runtime i1 scalar
        y = x + 1
    else:
        y = x - 1
    tl.store(Z, y)
    tl.store(Z + 1, flag.to(tl.int32))


@pytest.mark.parametrize("flag", [True, False])
def test_bool_argument(flag):
    z = poisoned(2, "int32")
    _bool_arg_kernel[(1,)](z, flag, 41)
    assert_equal(z, [42 if flag else 40, int(flag)])


@triton.jit
def _if_constexpr_kernel(X, Z, FLAG: tl.constexpr, MODE: tl.constexpr):
    x = tl.load(X + tl.arange(0, 16))
    if FLAG:
        y = x + 1
    else:
        tl.static_assert(False, "the branch not taken is never compiled")
        y = x
    if MODE == "double":
        y = y * 2
    elif MODE == "negate":
        y = -y
    tl.store(Z + tl.arange(0, 16), y)


@pytest.mark.parametrize("mode", ["double", "negate", "keep"])
def test_if_constexpr(mode, rng):
    x = numpy_random(16, "int32", rng, low=-100, high=100)
    z = poisoned(16, "int32")
    _if_constexpr_kernel[(1,)](x, z, FLAG=True, MODE=mode)
    ref = {"double": (x + 1) * 2, "negate": -(x + 1), "keep": x + 1}[mode]
    assert_equal(z, ref)


@triton.jit
def _ternary_kernel(X, Z, C: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    a = x * 2 if x > 0 else x - 1  # dynamic
    b = 7 if C else x  # constexpr condition: only one side exists
    c = 5 if x > 0 else x  # a literal on one side, a loaded value on the other
    tl.store(Z + 3 * pid, a)
    tl.store(Z + 3 * pid + 1, b)
    tl.store(Z + 3 * pid + 2, c)


@pytest.mark.parametrize("c", [True, False])
def test_ternary(c, rng):
    x = numpy_random(64, "int32", rng, low=-100, high=100)
    z = poisoned(192, "int32")
    _ternary_kernel[(64,)](x, z, C=c)
    ref = np.stack([np.where(x > 0, x * 2, x - 1), np.full(64, 7) if c else x,
                    np.where(x > 0, 5, x)], 1)
    assert_equal(z.reshape(64, 3), ref)


@triton.jit
def _void_ternary_kernel(X, Z, STATIC: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    # branches that are calls returning nothing: run for their effects only
    tl.store(Z + 2 * pid, x * 2) if x > 0 else tl.store(Z + 2 * pid, x - 1)
    tl.store(Z + 2 * pid + 1, x) if STATIC else tl.store(Z + 2 * pid + 1, -x)


@pytest.mark.parametrize("static", [True, False])
def test_ternary_void_branches(static, rng):
    """`f() if c else g()` whose branches return nothing (tl.store) is an if run for its
    effects, with a dynamic or a constexpr condition."""
    x = numpy_random(64, "int32", rng, low=-100, high=100)
    z = poisoned(128, "int32")
    _void_ternary_kernel[(64,)](x, z, STATIC=static)
    ref = np.stack([np.where(x > 0, x * 2, x - 1), x if static else -x], 1)
    assert_equal(z.reshape(64, 2), ref)


@triton.jit
def _half_void_ternary_kernel(X, Z):
    x = tl.load(X)
    y = tl.store(Z, x) if x > 0 else x
    tl.store(Z, y)


def test_ternary_one_void_branch_is_an_error():
    x = np.ones(1, dtype=np.int32)
    with pytest.raises(triton.CompilationError, match="inconsistent types"):
        _half_void_ternary_kernel[(1,)](x, poisoned(1, "int32"))


# ---------------------------------------------------------------------------------------------
# early return


@triton.jit
def _early_return_kernel(X, Z, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(Z + offs, tl.load(X + offs) + 1)


def test_early_return(rng):
    n, block = 256, 64
    x = numpy_random(n, "float32", rng)
    z = poisoned(n, "float32")
    _early_return_kernel[(10,)](x, z, n, BLOCK=block)  # programs 4..9 return at once
    assert_close(z, x + np.float32(1), rtol=0)


@triton.jit
def _nested_return_kernel(C1, C2, C3, V, Z):
    val = tl.load(V + 3)
    if tl.load(C1) != 0:
        if tl.load(C2) != 0:
            val = tl.load(V)
        else:
            return
    else:
        if tl.load(C3) != 0:
            val = tl.load(V + 1)
        else:
            val = tl.load(V + 2)
    tl.store(Z, val)


@pytest.mark.parametrize("c1, c2, c3", list(itertools.product([0, 1], repeat=3)))
def test_nested_if_else_return(c1, c2, c3, rng):
    v = numpy_random(4, "int32", rng)
    z = poisoned(1, "int32")
    conds = [np.array([c], np.int32) for c in (c1, c2, c3)]
    _nested_return_kernel[(1,)](*conds, v, z)
    if c1:
        ref = v[0] if c2 else None
    else:
        ref = v[1] if c3 else v[2]
    if ref is None:
        assert (z.view(np.uint8) == 0x5A).all()
    else:
        assert z[0] == ref


@triton.jit
def _constexpr_return_kernel(Z, EARLY: tl.constexpr):
    tl.store(Z, 1)
    if EARLY:
        return
    tl.store(Z + 1, 2)


@pytest.mark.parametrize("early", [True, False])
def test_constexpr_if_return(early):
    z = poisoned(2, "int32")
    _constexpr_return_kernel[(1,)](z, EARLY=early)
    assert z[0] == 1
    assert (z[1] == 2) != early
    if early:
        assert (z[1:].view(np.uint8) == 0x5A).all()


# ---------------------------------------------------------------------------------------------
# while loops


@triton.jit
def _while_kernel(X, N, Z):
    pid = tl.program_id(0)
    n = tl.load(N + pid)  # data-dependent trip count
    i = 0
    acc = 0.0
    while i < n:
        acc += tl.load(X + i)
        i += 1
    tl.store(Z + pid, acc)


def test_while(rng):
    x = numpy_random(50, "float32", rng)
    trips = rng.integers(0, 50, size=16).astype(np.int32)
    z = poisoned(16, "float32")
    _while_kernel[(16,)](x, trips, z)
    ref = np.array([x[:t].astype(np.float64).sum() for t in trips])
    assert_close(z, ref, rtol=1e-5, atol=1e-5)


@triton.jit
def _nested_while_kernel(Z, N, M):
    i = 0
    total = 0
    while i < N:
        j = 0
        while j < M:
            total += i * 100 + j
            j += 1
        i += 1
    tl.store(Z, total)
    tl.store(Z + 1, i)


def test_nested_while():
    z = poisoned(2, "int32")
    _nested_while_kernel[(1,)](z, 7, 5)
    assert z[0] == sum(i * 100 + j for i in range(7) for j in range(5))
    assert z[1] == 7


# ---------------------------------------------------------------------------------------------
# for loops


@triton.jit
def _static_range_kernel(X, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in tl.static_range(4):
        acc += tl.load(X + i * BLOCK + offs) * (i + 1)
    for j in tl.static_range(1, 8, 3):  # j = 1, 4, 7: a constexpr in each copy
        tl.static_assert(j % 3 == 1)
        tl.store(Z + BLOCK + j, j)
    tl.store(Z + offs, acc)


def test_static_range(rng):
    block = 16
    x = numpy_random(4 * block, "float32", rng)
    z = poisoned(block + 8, "float32")
    _static_range_kernel[(1,)](x, z, BLOCK=block)
    ref = sum(x[i * block:(i + 1) * block].astype(np.float64) * (i + 1) for i in range(4))
    assert_close(z[:block], ref, rtol=1e-6)
    assert_close(z[block + 1:block + 8:3], [1, 4, 7], rtol=0)


@triton.jit
def _for_i64_kernel(Z, lo, hi):
    for i in range(lo, hi):
        tl.static_assert(i.dtype == tl.int64, "i64 bounds give an i64 induction variable")
        tl.store(Z + (i - lo), i)


def test_for_with_i64_bounds():
    lo = 2**35 + 3
    z = poisoned(10, "int64")
    _for_i64_kernel[(1,)](z, lo, lo + 10)
    assert_equal(z, lo + np.arange(10, dtype=np.int64))


@triton.jit
def _for_steps_kernel(Z, lo, hi, step):
    count = 0
    for i in range(lo, hi, step):  # dynamic step
        tl.store(Z + count, i)
        count += 1
    for k in range(10, 0, -3):  # negative constexpr step: 10, 7, 4, 1
        tl.store(Z + 20 + count, k)
        count += 1
    for _m in range(5, 2):  # zero trips
        count += 100
    tl.store(Z + 40, count)


def test_for_steps():
    z = poisoned(41, "int32")
    _for_steps_kernel[(1,)](z, 3, 20, 4)  # 3, 7, 11, 15, 19
    assert_equal(z[:5], [3, 7, 11, 15, 19])
    assert_equal(z[25:29], [10, 7, 4, 1])
    assert z[40] == 9


@triton.jit
def _loop_carried_kernel(X, Z, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    count = 0
    ptr = X
    for start in tl.range(0, n, BLOCK, num_stages=2, loop_unroll_factor=1):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(ptr + tl.arange(0, BLOCK), mask=offs < n, other=0.0)
        acc += x
        m = tl.maximum(m, tl.where(offs < n, x, float("-inf")))
        count += 1
        ptr += BLOCK  # a pointer carried by the loop
    tl.store(Z, tl.sum(acc, axis=0))
    tl.store(Z + 1, tl.max(m, axis=0))
    tl.store(Z + 2, count.to(tl.float32))


def test_loop_carried_values(rng):
    n = 1000
    x = numpy_random(n, "float32", rng)
    z = poisoned(3, "float32")
    _loop_carried_kernel[(1,)](x, z, n, BLOCK=128)
    assert_close(z, [x.astype(np.float64).sum(), x.max(), 8], rtol=1e-5, atol=1e-5)


@triton.jit
def _temp_var_kernel(Z, N: tl.constexpr, BLOCK: tl.constexpr):
    acc = tl.full((BLOCK,), 0, dtype=tl.int32)
    for i in range(N):
        if i == 0:
            temp = tl.full((BLOCK,), 2, dtype=tl.int32)
            acc = temp
        else:
            acc += tl.full((BLOCK,), 1, dtype=tl.int32)
        temp = tl.full((BLOCK,), 1, dtype=tl.int32)  # the same name, redefined
        acc += temp
    tl.store(Z + tl.arange(0, BLOCK), acc)


def test_temp_var_in_loop():
    z = poisoned(16, "int32")
    _temp_var_kernel[(1,)](z, N=10, BLOCK=16)
    # i == 0: 2 + 1; then 9 times (+1 +1)
    assert_equal(z, np.full(16, 3 + 9 * 2, np.int32))


# ---------------------------------------------------------------------------------------------
# calls


@triton.jit
def _scale_and_shift(x, scale, shift: tl.constexpr = 3):
    return x * scale + shift


@triton.jit
def _min_max(x):
    return tl.min(x, axis=0), tl.max(x, axis=0)


@triton.jit(noinline=True)
def _noinline_mul(a, b):
    return a * b


@triton.jit
def _vecmul_kernel(X, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Z + offs, tl.load(X + offs, mask=mask) * 2, mask=mask)


@triton.jit
def _calls_kernel(X, Z, n, BLOCK: tl.constexpr = 64, SCALE: tl.constexpr = 2):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0)
    tl.store(Z + offs, _scale_and_shift(x, SCALE), mask=mask)  # callee default
    tl.store(Z + BLOCK + offs, _scale_and_shift(x, 5, shift=-1), mask=mask)
    lo, hi = _min_max(tl.where(mask, x, 0))
    tl.store(Z + 2 * BLOCK, lo)
    tl.store(Z + 2 * BLOCK + 1, hi)
    tl.store(Z + 2 * BLOCK + 2, _noinline_mul(tl.load(X), tl.load(X + 1)))
    _vecmul_kernel(X, Z + 3 * BLOCK, n, BLOCK)  # a kernel called as a function


@pytest.mark.stock_refuses("a @jit callee's default argument")
def test_calls_defaults_noinline(rng):
    n, block = 50, 64
    x = numpy_random(n, "int32", rng, low=-1000, high=1000)
    z = poisoned(4 * block, "int32")
    _calls_kernel[(1,)](x, z, n)  # BLOCK and SCALE from the defaults
    assert_equal(z[:n], x * 2 + 3)
    assert_equal(z[block:block + n], x * 5 - 1)
    assert_equal(z[2 * block:2 * block + 3], [min(x.min(), 0), max(x.max(), 0), x[0] * x[1]])
    assert_equal(z[3 * block:3 * block + n], x * 2)


# ---------------------------------------------------------------------------------------------
# short-circuiting


@triton.jit
def _short_circuit_kernel(X, Y, Z):
    a = tl.load(Z)
    if X is not None and X.dtype.element_ty == tl.float32:  # X None: the rhs is not compiled
        a += tl.load(X).to(tl.int32)
    if X is None or X.dtype.element_ty == tl.float32:
        a += 10
    if Y is not None:
        y = tl.load(Y)
        if (y > 0) and (y < 100):  # scalar tensors: logical and
            a += 1000
        if (y < 0) or (y > 5):
            a += 20000
    tl.store(Z, a)


@pytest.mark.parametrize("has_x, y", [(False, None), (True, None), (False, 7), (True, -3),
                                      (False, 3)])
def test_short_circuiting(has_x, y):
    x = np.array([42.0], np.float32) if has_x else None
    ya = np.array([y], np.int32) if y is not None else None
    z = np.array([1], np.int32)
    _short_circuit_kernel[(1,)](x, ya, z)
    ref = 1 + (42 if has_x else 0) + 10
    if y is not None:
        ref += 1000 * (0 < y < 100) + 20000 * (y < 0 or y > 5)
    assert z[0] == ref


# ---------------------------------------------------------------------------------------------


@triton.jit
def _program_ids_kernel(Z):
    p0 = tl.program_id(0)
    p1 = tl.program_id(axis=1)
    p2 = tl.program_id(2)
    n0 = tl.num_programs(0)
    n1 = tl.num_programs(1)
    n2 = tl.num_programs(axis=2)
    lin = (p2 * n1 + p1) * n0 + p0
    base = Z + lin * 6
    tl.store(base + 0, p0)
    tl.store(base + 1, p1)
    tl.store(base + 2, p2)
    tl.store(base + 3, n0)
    tl.store(base + 4, n1)
    tl.store(base + 5, n2)


def test_program_id_and_num_programs_3d():
    g = (3, 2, 5)
    z = poisoned(6 * np.prod(g), "int32")
    _program_ids_kernel[g](z)
    p2, p1, p0 = np.meshgrid(np.arange(g[2]), np.arange(g[1]), np.arange(g[0]), indexing="ij")
    ref = np.stack([p0.ravel(), p1.ravel(), p2.ravel()] + [np.full(30, d) for d in g], 1)
    assert_equal(z.reshape(-1, 6), ref)


def test_grid_shorter_than_3d():
    z = poisoned(6 * 4, "int32")
    _program_ids_kernel[(4,)](z)
    ref = np.stack([np.arange(4), np.zeros(4), np.zeros(4), np.full(4, 4), np.ones(4),
                    np.ones(4)], 1)
    assert_equal(z.reshape(-1, 6), ref)


# ---------------------------------------------------------------------------------------------
# tl.map_elementwise: a scalar function (branches allowed) applied per element


@triton.jit
def _sign_cmp(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def _divmod(a, b):
    return a // b, a % b


@triton.jit
def _packed(a0, a1, b0, b1):
    # order-sensitive: two consecutive elements of each input, inputs in order; the values
    # returned are result 0's two elements, then result 1's
    return a0 * 10 + b1, a1 - b0, a0 + a1, b0 * b1


@triton.jit
def _clamp_scaled(x, s):
    r = x * s
    if r > 1.0:
        r = 1.0
    elif r < -1.0:
        r = -1.0
    return r


@triton.jit
def _map_kernel(X, Y, F, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(Z + offs, tl.map_elementwise(_sign_cmp, x, y))
    q, r = tl.map_elementwise(_divmod, x, y)
    tl.store(Z + BLOCK + offs, q)
    tl.store(Z + 2 * BLOCK + offs, r)
    c, d = tl.map_elementwise(_packed, x, y, pack=2)
    tl.store(Z + 3 * BLOCK + offs, c)
    tl.store(Z + 4 * BLOCK + offs, d)
    f = tl.load(F + offs)
    tl.store(F + BLOCK + offs, tl.map_elementwise(_clamp_scaled, f, 2.0))  # a broadcast scalar


def test_map_elementwise(rng):
    """tl.map_elementwise: per element (and per `pack` consecutive elements), with branches on
    the scalar values, several results, a broadcast scalar argument; the kernel reloaded from
    the disk cache (its TTIR parsed back) gives the same."""
    n = 64
    x = numpy_random(n, "int32", rng, low=-50, high=50)
    y = numpy_random(n, "int32", rng, low=1, high=9)
    y[:8] = x[:8].clip(1, 9)  # some equal pairs
    f = np.concatenate([numpy_random(n, "float32", rng), np.full(n, np.nan, np.float32)])
    x0, x1, y0, y1 = x[0::2], x[1::2], y[0::2], y[1::2]
    q = np.trunc(x / y).astype(np.int32)  # C division: toward zero
    ref = np.concatenate([np.sign(x - y), q, x - q * y,
                          np.stack([x0 * 10 + y1, x1 - y0], 1).ravel(),
                          np.stack([x0 + x1, y0 * y1], 1).ravel()])
    for reload in (False, True):
        if reload:
            _map_kernel.cache.clear()
        z = poisoned(5 * n, "int32")
        f[n:] = np.nan
        _map_kernel[(1,)](x, y, f, z, BLOCK=n)
        assert_equal(z, ref)
        assert_close(f[n:], np.clip(f[:n].astype(np.float64) * 2.0, -1.0, 1.0), rtol=1e-7)


@triton.jit
def _maybe_double(x, c):
    if c > 0:
        return x * 2
    # no return on this path: its result is undefined (Triton: ub.poison)


@triton.jit
def _maybe_return_kernel(X, Z, c, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    r = _maybe_double(x, c)
    if c > 0:
        tl.store(Z + offs, r)


def test_return_on_some_paths_only(rng):
    """A function that returns a value on some paths only compiles (the other paths' result
    is undefined, as in Triton); the defined path's value is right."""
    x = numpy_random(32, "int32", rng, low=-100, high=100)
    z = poisoned(32, "int32")
    _maybe_return_kernel[(1,)](x, z, 3, BLOCK=32)
    assert_equal(z, x * 2)
    z2 = poisoned(32, "int32")
    _maybe_return_kernel[(1,)](x, z2, -3, BLOCK=32)
    assert (z2.view(np.uint8) == 0x5A).all()  # nothing stored on the undefined path
