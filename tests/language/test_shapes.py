"""Shape manipulation: broadcast, None-slicing, expand_dims, reshape, trans/permute/.T, cat,
join/split/interleave, full/zeros, arange, constexpr shapes."""

import numpy as np
import pytest
from tt_utils import (
    assert_close,
    assert_equal,
    is_float,
    np_dtype,
    numpy_random,
    param_dtypes,
    poisoned,
    tl_dtype,
)

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _grid2(M: tl.constexpr, N: tl.constexpr):
    """Row-major offsets of an [M, N] block."""
    return tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]


# ---------------------------------------------------------------------------------------------
# broadcast


@triton.jit
def _broadcast_kernel(X, Y, Z, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))[None, :]  # [1, N]
    y = tl.load(Y + tl.arange(0, M))[:, None]  # [M, 1]
    bx, by = tl.broadcast(x, y)
    tl.static_assert(bx.shape[0] == M)
    tl.static_assert(bx.shape[1] == N)
    tl.static_assert(by.shape[0] == M)
    offs = _grid2(M, N)
    tl.store(Z + offs, bx)
    tl.store(Z + M * N + offs, by)
    tl.store(Z + 2 * M * N + offs, tl.broadcast_to(x, (M, N)))
    tl.store(Z + 3 * M * N + offs, tl.broadcast_to(y, M, N))
    tl.store(Z + 4 * M * N + offs, x + y)  # implicit broadcast


def test_broadcast(rng):
    m, n = 8, 16
    x, y = numpy_random(n, "float32", rng), numpy_random(m, "float32", rng)
    z = poisoned((5, m, n), "float32")
    _broadcast_kernel[(1,)](x, y, z, M=m, N=n)
    bx, by = np.broadcast_arrays(x[None, :], y[:, None])
    assert_close(z, np.stack([bx, by, bx, by, bx + by]), rtol=0)


# ---------------------------------------------------------------------------------------------
# indexing with None and ':'


@triton.jit
def _slice_kernel(X, Z, B: tl.constexpr):
    data = tl.load(X + tl.arange(0, B))
    a = data[None, :]
    tl.static_assert(len(a.shape) == 2)
    tl.static_assert(a.shape[0] == 1)
    tl.static_assert(a.shape[1] == B)
    b = data[:, None]
    tl.static_assert(b.shape[0] == B)
    tl.static_assert(b.shape[1] == 1)
    c = data[None, :, None]
    tl.static_assert(len(c.shape) == 3)
    tl.static_assert(c.shape[1] == B)
    d = data[:]
    tl.static_assert(len(d.shape) == 1)
    s = tl.load(X + 1)
    e = s[None]
    tl.static_assert(len(e.shape) == 1)
    f = s[None, None]
    tl.static_assert(len(f.shape) == 2)
    tl.store(Z + _grid2(B, B), a * 10 + b)  # z[i, j] = 10 * data[j] + data[i]
    tl.store(Z + B * B + tl.arange(0, B)[None, :, None], c)
    tl.store(Z + B * B + B + tl.arange(0, B), d)
    tl.store(Z + B * B + 2 * B + tl.arange(0, 1), e)
    tl.store(Z + B * B + 2 * B + 1 + tl.zeros([1, 1], tl.int32), f)


def test_slice(rng):
    b = 16
    x = numpy_random(b, "int32", rng, low=-1000, high=1000)
    z = poisoned(b * b + 2 * b + 2, "int32")
    _slice_kernel[(1,)](x, z, B=b)
    assert_equal(z[: b * b].reshape(b, b), 10 * x[None, :] + x[:, None])
    assert_equal(z[b * b: b * b + b], x)
    assert_equal(z[b * b + b: b * b + 2 * b], x)
    assert_equal(z[b * b + 2 * b:], [x[1], x[1]])


@triton.jit
def _invalid_slice_kernel(X, Z, B: tl.constexpr):
    data = tl.load(X + tl.arange(0, B))
    tl.store(Z, data[0])


def test_invalid_slice(rng):
    x = numpy_random(16, "int32", rng)
    with pytest.raises(triton.CompilationError, match="unsupported tensor index"):
        _invalid_slice_kernel[(1,)](x, poisoned(1, "int32"), B=16)


# ---------------------------------------------------------------------------------------------
# expand_dims


@triton.jit
def _expand_dims_kernel(X, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    a = tl.expand_dims(x, 0)
    tl.static_assert(a.shape[0] == 1)
    tl.static_assert(a.shape[1] == N)
    b = tl.expand_dims(x, 1)
    tl.static_assert(b.shape[0] == N)
    tl.static_assert(b.shape[1] == 1)
    c = tl.expand_dims(x, -1)
    tl.static_assert(c.shape[1] == 1)
    d = tl.expand_dims(x, (0, 2))
    tl.static_assert(len(d.shape) == 3)
    tl.static_assert(d.shape[0] == 1)
    tl.static_assert(d.shape[1] == N)
    tl.static_assert(d.shape[2] == 1)
    e = tl.expand_dims(x, (-1, 0))
    tl.static_assert(e.shape[0] == 1)
    tl.static_assert(e.shape[1] == N)
    tl.static_assert(e.shape[2] == 1)
    f = tl.expand_dims(b, 0)  # [1, N, 1]
    tl.static_assert(f.shape[1] == N)
    tl.store(Z + offs[None, :], a)
    tl.store(Z + N + offs[:, None], b)
    tl.store(Z + 2 * N + offs[:, None], c)
    tl.store(Z + 3 * N + offs[None, :, None], d)
    tl.store(Z + 4 * N + offs[None, :, None], e)
    tl.store(Z + 5 * N + offs[None, :, None], f)


def test_expand_dims(rng):
    n = 32
    x = numpy_random(n, "float32", rng)
    z = poisoned((6, n), "float32")
    _expand_dims_kernel[(1,)](x, z, N=n)
    assert_close(z, np.tile(x, (6, 1)), rtol=0)


@triton.jit
def _expand_dims_error_kernel(X, Z, AXIS: tl.constexpr, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    y = tl.expand_dims(x, AXIS)
    tl.store(Z + tl.arange(0, N)[:, None], tl.reshape(y, (N, 1)))


@pytest.mark.parametrize("axis", [-3, 2, (0, -3), (0, 0)])
def test_expand_dims_errors(axis, rng):
    x = numpy_random(16, "float32", rng)
    with pytest.raises(triton.CompilationError, match="(?i)ax"):
        _expand_dims_error_kernel[(1,)](x, poisoned(16, "float32"), AXIS=axis, N=16)


# ---------------------------------------------------------------------------------------------
# shapes and dims as varargs or tuples


@triton.jit
def _shape_params_kernel(X, Z):
    x = tl.load(X + tl.arange(0, 64))
    r1 = tl.reshape(x, (4, 16))
    r2 = tl.reshape(x, 4, 16)
    r3 = x.reshape(4, 16)
    tl.static_assert(r1.shape[0] == 4)
    tl.static_assert(r2.shape[0] == 4)
    tl.static_assert(r3.shape[1] == 16)
    x3 = tl.reshape(x, (2, 4, 8))
    p1 = tl.permute(x3, (2, 0, 1))
    p2 = tl.permute(x3, 2, 0, 1)
    t1 = tl.trans(x3, (2, 0, 1))
    t2 = tl.trans(x3, 2, 0, 1)
    tl.static_assert(p1.shape[0] == 8)
    tl.static_assert(p2.shape[1] == 2)
    tl.static_assert(t1.shape[2] == 4)
    tl.static_assert(t2.shape[0] == 8)
    b1 = tl.broadcast_to(x[None, :], (4, 64))
    b2 = tl.broadcast_to(x[None, :], 4, 64)
    tl.static_assert(b1.shape[0] == 4)
    tl.static_assert(b2.shape[0] == 4)
    o16 = _grid2(4, 16)
    tl.store(Z + o16, r1)
    tl.store(Z + 64 + o16, r2)
    tl.store(Z + 128 + o16, r3)
    p_offs = (tl.arange(0, 8)[:, None, None] * 8 + tl.arange(0, 2)[None, :, None] * 4
              + tl.arange(0, 4)[None, None, :])
    tl.store(Z + 192 + p_offs, p1)
    tl.store(Z + 256 + p_offs, p2)
    tl.store(Z + 320 + p_offs, t1)
    tl.store(Z + 384 + p_offs, t2)
    tl.store(Z + 448 + _grid2(4, 64), b1)
    tl.store(Z + 704 + _grid2(4, 64), b2)


def test_shapes_as_params(rng):
    x = numpy_random(64, "int32", rng)
    z = poisoned(960, "int32")
    _shape_params_kernel[(1,)](x, z)
    perm = np.transpose(x.reshape(2, 4, 8), (2, 0, 1)).reshape(-1)
    bc = np.tile(x, 4)
    assert_equal(z, np.concatenate([x, x, x, perm, perm, perm, perm, bc, bc]))


# ---------------------------------------------------------------------------------------------
# transposes


@triton.jit
def _trans2d_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr, METHOD: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(X + rm[:, None] * N + rn[None, :], mask=mask)  # [BM, BN]
    if METHOD == "trans":
        z = tl.trans(x)
    elif METHOD == "permute":
        z = tl.permute(x, 1, 0)
    else:
        z = x.T
    tl.static_assert(z.shape[0] == BN)
    tl.store(Z + rn[:, None] * M + rm[None, :], z, mask=mask.T)


@pytest.mark.parametrize("method", ["trans", "permute", "T"])
def test_trans_2d(method, rng):
    m, n = 13, 29
    x = numpy_random((m, n), "float32", rng)
    z = poisoned((n, m), "float32")
    _trans2d_kernel[(1,)](x, z, m, n, BM=16, BN=32, METHOD=method)
    assert_close(z, x.T, rtol=0)


@triton.jit
def _permute3d_kernel(X, Z, S0: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr,
                      ORDER: tl.constexpr, D0: tl.constexpr, D1: tl.constexpr,
                      D2: tl.constexpr, DEFAULT: tl.constexpr):
    in_offs = (tl.arange(0, S0)[:, None, None] * (S1 * S2)
               + tl.arange(0, S1)[None, :, None] * S2 + tl.arange(0, S2)[None, None, :])
    x = tl.load(X + in_offs)
    if DEFAULT:
        z = tl.trans(x)
    else:
        z = tl.permute(x, ORDER)
    out_offs = (tl.arange(0, D0)[:, None, None] * (D1 * D2)
                + tl.arange(0, D1)[None, :, None] * D2 + tl.arange(0, D2)[None, None, :])
    tl.store(Z + out_offs, z)


@pytest.mark.parametrize("order", [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1),
                                   (2, 1, 0), None])
@pytest.mark.stock_refuses("len() of a constexpr tuple")
def test_permute_3d(order, rng):
    shape = (2, 4, 8)
    x = numpy_random(shape, "int32", rng)
    perm = order if order is not None else (2, 1, 0)  # tl.trans reverses by default
    d = [shape[i] for i in perm]
    z = poisoned(d, "int32")
    _permute3d_kernel[(1,)](x, z, *shape, ORDER=perm, D0=d[0], D1=d[1], D2=d[2],
                            DEFAULT=order is None)
    assert_equal(z, np.transpose(x, perm))


@triton.jit
def _trans4d_reshape_kernel(X, Z, ORDER: tl.constexpr):
    x = tl.load(X + tl.arange(0, 128))
    x4 = tl.reshape(x, (2, 4, 2, 8))
    z = tl.reshape(tl.trans(x4, ORDER), (128,))
    tl.store(Z + tl.arange(0, 128), z)


@pytest.mark.stock_refuses("len() of a constexpr tuple")
@pytest.mark.parametrize("order", [(3, 1, 0, 2), (1, 0, 3, 2)])
def test_trans_4d_then_reshape(order, rng):
    x = numpy_random(128, "int16", rng)
    z = poisoned(128, "int16")
    _trans4d_reshape_kernel[(1,)](x, z, ORDER=order)
    assert_equal(z, np.transpose(x.reshape(2, 4, 2, 8), order).reshape(-1))


# ---------------------------------------------------------------------------------------------
# reshape


@triton.jit
def _reshape_kernel(X, Z):
    x = tl.load(X + _grid2(8, 16))  # [8, 16]
    a = tl.reshape(x, (16, 8))
    b = tl.reshape(x, (128,))
    c = tl.reshape(tl.reshape(x, (2, 2, 32)), (8, 16))
    tl.store(Z + _grid2(16, 8), a)
    tl.store(Z + 128 + tl.arange(0, 128), b)
    tl.store(Z + 256 + _grid2(8, 16), c)


def test_reshape(rng):
    x = numpy_random((8, 16), "float64", rng)
    z = poisoned(384, "float64")
    _reshape_kernel[(1,)](x, z)
    assert_close(z, np.tile(x.reshape(-1), 3), rtol=0)


@triton.jit
def _bad_reshape_kernel(X, Z):
    x = tl.load(X + tl.arange(0, 64))
    tl.store(Z + _grid2(4, 8), tl.reshape(x, (4, 8)))


def test_reshape_wrong_numel_is_an_error(rng):
    with pytest.raises(triton.CompilationError):
        _bad_reshape_kernel[(1,)](numpy_random(64, "int32", rng), poisoned(32, "int32"))


# ---------------------------------------------------------------------------------------------
# cat, join, split, interleave


@triton.jit
def _cat_kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    z = tl.cat(tl.load(X + offs), tl.load(Y + offs), can_reorder=True)
    tl.static_assert(z.shape[0] == 2 * N)
    tl.store(Z + tl.arange(0, 2 * N), z)


def test_cat(rng):
    x, y = numpy_random(32, "int32", rng), numpy_random(32, "int32", rng)
    z = poisoned(64, "int32")
    _cat_kernel[(1,)](x, y, z, N=32)
    # can_reorder=True leaves the order of the elements unspecified
    assert_equal(np.sort(z), np.sort(np.concatenate([x, y])))


@triton.jit
def _join_split_kernel(X, Y, Z, M: tl.constexpr, N: tl.constexpr):
    offs = _grid2(M, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    j = tl.join(x, y)  # [M, N, 2]
    tl.static_assert(len(j.shape) == 3)
    tl.static_assert(j.shape[2] == 2)
    tl.store(Z + offs[:, :, None] * 2 + tl.arange(0, 2)[None, None, :], j)
    a, b = tl.split(j)
    tl.store(Z + 2 * M * N + offs, b)
    tl.store(Z + 3 * M * N + offs, a)
    i = tl.interleave(x, y)  # [M, 2N]
    tl.static_assert(i.shape[1] == 2 * N)
    tl.store(Z + 4 * M * N + _grid2(M, 2 * N), i)
    x1 = tl.load(X + tl.arange(0, N))
    y1 = tl.load(Y + tl.arange(0, N))
    j1 = tl.join(x1, y1)  # [N, 2]
    tl.store(Z + 6 * M * N + tl.arange(0, N)[:, None] * 2 + tl.arange(0, 2)[None, :], j1)


def test_join_split_interleave(rng):
    m, n = 4, 8
    x, y = numpy_random((m, n), "float32", rng), numpy_random((m, n), "float32", rng)
    z = poisoned(6 * m * n + 2 * n, "float32")
    _join_split_kernel[(1,)](x, y, z, M=m, N=n)
    joined = np.stack([x, y], axis=-1)
    ref = np.concatenate([joined.reshape(-1), y.reshape(-1), x.reshape(-1), joined.reshape(-1),
                          np.stack([x[0], y[0]], axis=-1).reshape(-1)])
    assert_close(z, ref, rtol=0)


@triton.jit
def _split_input_kernel(X, Z, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N)[:, None] * 2 + tl.arange(0, 2)[None, :])  # [N, 2]
    a, b = tl.split(x)
    tl.store(Z + tl.arange(0, N), a)
    tl.store(Z + N + tl.arange(0, N), b)


def test_split_of_loaded_pairs(rng):
    x = numpy_random((32, 2), "int64", rng)
    z = poisoned(64, "int64")
    _split_input_kernel[(1,)](x, z, N=32)
    assert_equal(z, np.concatenate([x[:, 0], x[:, 1]]))


@triton.jit
def _join_scalars_kernel(X, Z):
    s0 = tl.load(X)
    s1 = tl.load(X + 1)
    j = tl.join(s0, s1)
    tl.static_assert(len(j.shape) == 1)
    tl.static_assert(j.shape[0] == 2)
    tl.store(Z + tl.arange(0, 2), j)
    i = tl.interleave(s1, s0)
    tl.static_assert(i.shape[0] == 2)
    tl.store(Z + 2 + tl.arange(0, 2), i)
    a, b = tl.split(j)  # back to scalars
    tl.static_assert(len(a.shape) == 0)
    tl.store(Z + 4, b)
    tl.store(Z + 5, a)


def test_join_split_scalars(rng):
    x = numpy_random(2, "int32", rng)
    z = poisoned(6, "int32")
    _join_scalars_kernel[(1,)](x, z)
    assert_equal(z, [x[0], x[1], x[1], x[0], x[1], x[0]])


# ---------------------------------------------------------------------------------------------
# full, zeros, arange, constexpr shapes


@triton.jit
def _full_kernel(Z, ZZ, v, VALUE: tl.constexpr, DTYPE: tl.constexpr, FROM_ARG: tl.constexpr,
                 BLOCK: tl.constexpr):
    if FROM_ARG:
        a = tl.full((), v, DTYPE)
        b = tl.full((1,), v, DTYPE)
        c = tl.full((BLOCK,), v, DTYPE)
    else:
        a = tl.full((), VALUE, DTYPE)
        b = tl.full((1,), VALUE, DTYPE)
        c = tl.full([BLOCK], VALUE, dtype=DTYPE)
    tl.static_assert(len(a.shape) == 0)
    tl.static_assert(a.dtype == DTYPE)
    tl.static_assert(c.dtype == DTYPE)
    tl.store(Z, a)
    tl.store(Z + 1 + tl.arange(0, 1), b)
    tl.store(Z + 2 + tl.arange(0, BLOCK), c)
    tl.store(ZZ + tl.arange(0, BLOCK), tl.zeros((BLOCK,), DTYPE))
    tl.store(ZZ + BLOCK + tl.arange(0, BLOCK), tl.zeros_like(c))


FULL_CASES = [("int8", -7, False), ("uint8", 200, False), ("int32", 123456, False),
              ("int64", 2**40, False), ("float16", -2.5, False), ("bfloat16", 1.5, False),
              ("float32", 0.1, False), ("float64", -0.1, False), ("bool", True, False),
              ("int32", -77, True), ("float32", 3.25, True), ("int64", 9, True)]


@pytest.mark.parametrize("dtype, value, from_arg", param_dtypes(*FULL_CASES))
def test_full_and_zeros(dtype, value, from_arg):
    block = 128
    z = poisoned(block + 2, dtype)
    zz = poisoned(2 * block, dtype)
    _full_kernel[(1,)](z, zz, value, VALUE=value, DTYPE=tl_dtype(dtype), FROM_ARG=from_arg,
                       BLOCK=block)
    if from_arg and isinstance(value, float):
        value = float(np.float32(value))  # a float argument is fp32
    ref = np.full(block + 2, value).astype(np_dtype(dtype))
    if is_float(dtype):
        assert_close(z, ref, rtol=0)
        assert_close(zz, np.zeros(2 * block), rtol=0)
    else:
        assert_equal(z, ref)
        assert_equal(zz, np.zeros(2 * block, dtype=np_dtype(dtype)))


@triton.jit
def _arange_kernel(Z, START: tl.constexpr, SIZE: tl.constexpr):
    r = tl.arange(START, START + SIZE)
    tl.static_assert(r.dtype == tl.int32)
    tl.store(Z + tl.arange(0, SIZE), r)


@pytest.mark.parametrize("start, size", [(0, 128), (7, 64), (170, 32), (5, 1)])
def test_arange(start, size):
    z = poisoned(size, "int32")
    _arange_kernel[(1,)](z, START=start, SIZE=size)
    assert_equal(z, np.arange(start, start + size, dtype=np.int32))


@triton.jit
def _constexpr_shape_kernel(X, Z, M: tl.constexpr, N: tl.constexpr):
    BLOCK2: tl.constexpr = 2 * N
    r = tl.arange(0, BLOCK2)
    x = tl.load(X + r)
    acc = tl.zeros((M // 2, N * 2), tl.float32) + x[None, :]
    tl.static_assert(acc.shape[0] == M // 2)
    tl.store(Z + _grid2(M // 2, BLOCK2), acc)


def test_constexpr_shapes(rng):
    m, n = 8, 16
    x = numpy_random(2 * n, "float32", rng)
    z = poisoned((m // 2, 2 * n), "float32")
    _constexpr_shape_kernel[(1,)](x, z, M=m, N=n)
    assert_close(z, np.tile(x, (m // 2, 1)), rtol=0)
