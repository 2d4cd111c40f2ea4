"""Block pointers: tl.make_block_ptr, tl.advance, and loads/stores through them with
`boundary_check` and `padding_option` ("zero", "nan") on shapes that are not multiples of the
block, negative offsets, column-major and strided layouts, loops and nested calls, and a
block-pointer matmul (after Triton's python/test/unit/language/test_block_pointer.py,
test_block_copy).

Semantics checked: a lane whose coordinate is outside [0, shape) in a dimension listed in
`boundary_check` reads the padding (zero when unset) and is not written."""

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
    to_f64,
)

import triton_tile as triton
import triton_tile.language as tl


def padded_block(x, offsets, block, pad):
    """The `block` of `x` at `offsets` (any ints), `pad` where it leaves x, as float64."""
    out = np.full(block, pad, dtype=np.float64)
    src, dst = [], []
    for o, b, n in zip(offsets, block, x.shape):
        lo, hi = max(o, 0), min(o + b, n)
        if hi <= lo:
            return out
        src.append(slice(lo, hi))
        dst.append(slice(lo - o, hi - o))
    out[tuple(dst)] = to_f64(x[tuple(src)])
    return out


# ---------------------------------------------------------------------------------------------
# 1-D block copy (Triton's test_block_copy): boundary_check and padding on an odd length


@triton.jit
def _block_copy_1d_kernel(A, B, N, BLOCK: tl.constexpr, PADDING: tl.constexpr):
    pid = tl.program_id(0)
    a_bp = tl.make_block_ptr(base=A, shape=(N, ), strides=(1, ), offsets=(pid * BLOCK, ),
                             block_shape=(BLOCK, ), order=(0, ))
    b_bp = tl.make_block_ptr(base=B, shape=(N, ), strides=(1, ), offsets=(pid * BLOCK, ),
                             block_shape=(BLOCK, ), order=(0, ))
    a = tl.load(a_bp, boundary_check=(0, ), padding_option=PADDING)
    tl.store(b_bp, a, boundary_check=(0, ))


@pytest.mark.parametrize("n", [1, 37, 1000])
@pytest.mark.parametrize("dtype, padding", param_dtypes(
    ("float16", "zero"), ("float16", "nan"), ("bfloat16", "nan"), ("float32", "zero"),
    ("float32", "nan"), ("int8", "zero"), ("int32", "zero"), ("int64", "zero")))
def test_block_copy_1d(dtype, padding, n, rng):
    block = 64
    x = numpy_random(n, dtype, rng)  # exactly n elements: lanes past n must not be touched
    z = poisoned(n, dtype)
    _block_copy_1d_kernel[(cdiv(n, block),)](x, z, n, BLOCK=block, PADDING=padding)
    assert_equal(z.view(np.uint8), x.view(np.uint8))


# ---------------------------------------------------------------------------------------------
# 2-D block copy: the padded block itself is written out through plain pointers


@triton.jit
def _block_copy_2d_kernel(X, Z, P, M, N, stride_xm, stride_xn, BM: tl.constexpr,
                          BN: tl.constexpr, PADDING: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    src = tl.make_block_ptr(base=X, shape=(M, N), strides=(stride_xm, stride_xn),
                            offsets=(pid_m * BM, pid_n * BN), block_shape=(BM, BN),
                            order=(1, 0))
    dst = tl.make_block_ptr(Z, (M, N), (N, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    x = tl.load(src, boundary_check=(0, 1), padding_option=PADDING)
    tl.store(dst, x, boundary_check=(1, 0))
    lin = pid_m * tl.num_programs(1) + pid_n
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tl.store(P + lin * BM * BN + rows * BN + cols, x)


@pytest.mark.parametrize("dtype, padding", param_dtypes(
    ("float32", "zero"), ("float32", "nan"), ("float16", "nan"), ("bfloat16", "zero"),
    ("int16", "zero"), ("int32", "zero")))
@pytest.mark.parametrize("layout", ["row", "col", "strided"])
def test_block_copy_2d(dtype, padding, layout, rng):
    m, n, bm, bn = 37, 45, 16, 32
    if layout == "row":
        x = numpy_random((m, n), dtype, rng)
    elif layout == "col":
        x = np.asfortranarray(numpy_random((m, n), dtype, rng))
    else:  # every other column of a wider array
        x = numpy_random((m, 2 * n + 1), dtype, rng)[:, 1::2]
    it = x.itemsize
    z = poisoned((m, n), dtype)
    gm, gn = cdiv(m, bm), cdiv(n, bn)
    pad = 0 if padding == "zero" else np.nan
    # NaN padding must not be mistaken for NaN poison
    p = poisoned((gm * gn, bm, bn), dtype, poison=12345.0 if padding == "nan" else None)
    _block_copy_2d_kernel[(gm, gn)](x, z, p, m, n, x.strides[0] // it, x.strides[1] // it,
                                    BM=bm, BN=bn, PADDING=padding)
    assert_equal(z.view(np.uint8), np.ascontiguousarray(x).view(np.uint8))
    for i in range(gm):
        for j in range(gn):
            ref = padded_block(x, (i * bm, j * bn), (bm, bn), pad)
            if is_float(dtype):
                assert_close(p[i * gn + j], ref, rtol=0, err_msg=f"block ({i}, {j})")
            else:
                assert_equal(p[i * gn + j], ref.astype(x.dtype), err_msg=f"block ({i}, {j})")


# ---------------------------------------------------------------------------------------------
# boundary_check on some dimensions only; offsets that are negative or past the end


@triton.jit
def _partial_check_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    # N is a multiple of BN: only dimension 0 needs the check (the int form of boundary_check)
    src = tl.make_block_ptr(X, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(Z, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    for _ in range(0, N, BN):
        tl.store(dst, tl.load(src, boundary_check=0) * 2, boundary_check=(0, ))
        src = tl.advance(src, (0, BN))
        dst = tl.advance(dst, [0, BN])


def test_boundary_check_one_dimension(rng):
    m, n = 45, 96
    x = numpy_random((m, n), "float32", rng)
    z = poisoned((m, n), "float32")
    _partial_check_kernel[(cdiv(m, 16),)](x, z, m, n, BM=16, BN=32)
    assert_close(z, to_f64(x) * 2, rtol=0)


@triton.jit
def _any_offset_kernel(X, OUT, OFFS, M, N, BM: tl.constexpr, BN: tl.constexpr,
                       PADDING: tl.constexpr):
    pid = tl.program_id(0)
    om = tl.load(OFFS + 2 * pid)
    on = tl.load(OFFS + 2 * pid + 1)
    bp = tl.make_block_ptr(X, (M, N), (N, 1), (om, on), (BM, BN), (1, 0))
    x = tl.load(bp, boundary_check=(0, 1), padding_option=PADDING)
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tl.store(OUT + pid * BM * BN + rows * BN + cols, x)


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_negative_and_past_the_end_offsets(padding, rng):
    m, n, bm, bn = 21, 19, 8, 16
    offsets = [(-3, -5), (-8, 0), (0, -16), (-20, 3), (5, 7), (17, 11), (20, 18), (21, 0),
               (0, 19), (13, -2), (-7, 17), (100, -100)]
    x = numpy_random((m, n), "float32", rng)
    offs = np.array(offsets, dtype=np.int32)
    out = poisoned((len(offsets), bm, bn), "float32", poison=12345.0)
    _any_offset_kernel[(len(offsets),)](x, out, offs, m, n, BM=bm, BN=bn, PADDING=padding)
    pad = 0.0 if padding == "zero" else np.nan
    for i, o in enumerate(offsets):
        assert_close(out[i], padded_block(x, o, (bm, bn), pad), rtol=0, err_msg=str(o))


# ---------------------------------------------------------------------------------------------
# 3-D blocks, advance in a loop, and block pointers through nested @jit calls


@triton.jit
def _copy_3d_kernel(X, Z, D0, D1, D2, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    pid = tl.program_id(0)
    src = tl.make_block_ptr(X, (D0, D1, D2), (D1 * D2, D2, 1), (0, pid * B1, 0), (B0, B1, B2),
                            (2, 1, 0))
    dst = tl.make_block_ptr(Z, (D0, D1, D2), (D1 * D2, D2, 1), (0, pid * B1, 0), (B0, B1, B2),
                            (2, 1, 0))
    for _ in range(0, D0, B0):
        inner_s = src
        inner_d = dst
        for _ in range(0, D2, B2):
            v = tl.load(inner_s, boundary_check=(0, 1, 2))
            tl.store(inner_d, v + 1.0, boundary_check=(0, 1, 2))
            inner_s = tl.advance(inner_s, (0, 0, B2))
            inner_d = tl.advance(inner_d, (0, 0, B2))
        src = tl.advance(src, (B0, 0, 0))
        dst = tl.advance(dst, (B0, 0, 0))


def test_block_copy_3d_with_nested_advance_loops(rng):
    shape = (7, 13, 19)
    x = numpy_random(shape, "float32", rng)
    z = poisoned(shape, "float32")
    _copy_3d_kernel[(cdiv(13, 4),)](x, z, *shape, B0=2, B1=4, B2=8)
    assert_close(z, (to_f64(x) + 1).astype(np.float32), rtol=0)


@triton.jit
def _nested_advance_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # one block pointer walked by two nested loops (row-major over the blocks)
    bp = tl.make_block_ptr(X, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    zp = tl.make_block_ptr(Z, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    for _ in range(0, M, BM):
        for _ in range(0, N, BN):
            tl.store(zp, tl.load(bp, boundary_check=(0, 1)) - 2.0, boundary_check=(0, 1))
            bp = tl.advance(bp, (0, BN))
            zp = tl.advance(zp, (0, BN))
        bp = tl.advance(bp, (BM, -tl.cdiv(N, BN) * BN))
        zp = tl.advance(zp, (BM, -tl.cdiv(N, BN) * BN))


def test_nested_loops_advance_one_block_pointer(rng):
    m, n = 37, 45
    x = numpy_random((m, n), "float32", rng)
    z = poisoned((m, n), "float32")
    _nested_advance_kernel[(1,)](x, z, m, n, BM=16, BN=16)
    assert_close(z, (to_f64(x) - 2).astype(np.float32), rtol=0)


@triton.jit
def _load_scaled(bp, scale, PADDING: tl.constexpr):
    return tl.load(bp, boundary_check=(0, 1), padding_option=PADDING) * scale


@triton.jit
def _moved(bp, dm, dn):
    return tl.advance(bp, (dm, dn))


@triton.jit
def _block_ptr_call_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    src = tl.make_block_ptr(X, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(Z, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    src = _moved(src, pid * BM, 0)
    dst = _moved(dst, pid * BM, 0)
    for _ in range(0, N, BN):
        tl.store(dst, _load_scaled(src, 3.0, "zero"), boundary_check=(0, 1))
        src = _moved(src, 0, BN)
        dst = _moved(dst, 0, BN)


def test_block_pointers_through_calls(rng):
    m, n = 29, 50
    x = numpy_random((m, n), "float32", rng)
    z = poisoned((m, n), "float32")
    _block_ptr_call_kernel[(cdiv(m, 8),)](x, z, m, n, BM=8, BN=16)
    assert_close(z, (to_f64(x) * 3).astype(np.float32), rtol=0)


@triton.jit
def _dynamic_block_ptr_kernel(X, Z, N, BN: tl.constexpr):
    pid = tl.program_id(0)
    lanes = tl.arange(0, BN)
    bp = tl.make_block_ptr(X, (N, ), (1, ), (0, ), (BN, ), (0, ))
    if pid % 2 == 1:  # a block pointer chosen at run time
        bp = tl.advance(bp, (3, ))
    tl.store(Z + (pid * 4) * BN + lanes, tl.load(bp, boundary_check=(0, ), padding_option="nan"))
    for i in range(2):  # carried, and re-made (another base) rather than advanced
        tl.store(Z + (pid * 4 + 1 + i) * BN + lanes,
                 tl.load(bp, boundary_check=(0, ), padding_option="nan"))
        bp = tl.make_block_ptr(X + 1, (N - 1, ), (1, ), (pid * 5 - 7, ), (BN, ), (0, ))
    k = pid
    while k > 0:  # advanced in a while loop
        bp = tl.advance(bp, (2, ))
        k -= 1
    tl.store(Z + (pid * 4 + 3) * BN + lanes,
             tl.load(bp, boundary_check=(0, ), padding_option="nan"))


@pytest.mark.stock_refuses("its TritonRewriteTensorPointer pass fails on the while loop")
def test_block_pointers_in_branches_and_while_loops(rng):
    n, bn, grid = 45, 16, 6
    x = numpy_random(n, "float32", rng)
    z = poisoned((grid, 4, bn), "float32", poison=12345.0)
    _dynamic_block_ptr_kernel[(grid,)](x, z, n, BN=bn)
    for pid in range(grid):
        first = padded_block(x, (3 if pid % 2 else 0, ), (bn, ), np.nan)
        remade = pid * 5 - 7
        ref = [first, first, padded_block(x[1:], (remade, ), (bn, ), np.nan),
               padded_block(x[1:], (remade + 2 * pid, ), (bn, ), np.nan)]
        assert_close(z[pid], np.stack(ref), rtol=0, err_msg=f"program {pid}")


@triton.jit
def _store_cast_kernel(Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    dst = tl.make_block_ptr(Z, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    rows = pid * BM + tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    v = (rows * N + cols).to(tl.float32) * 0.5 + 0.25  # fp32, cast to the block's element
    tl.store(dst, v, boundary_check=(0, 1))
    # a scalar broadcast to the block
    tl.store(tl.advance(dst, (0, BN)), -1.5, boundary_check=(0, 1))


@pytest.mark.stock_refuses("a block-pointer store of another element type is an error there")
@pytest.mark.parametrize("dtype", param_dtypes("float16", "bfloat16", "float64", "int32"))
def test_store_casts_and_broadcasts(dtype):
    m, n, bm, bn = 19, 24, 8, 16
    z = poisoned((m, n), dtype)
    _store_cast_kernel[(cdiv(m, bm),)](z, m, n, BM=bm, BN=bn)
    ref = np.empty((m, n), dtype=np.float64)
    ref[:, :bn] = (np.arange(m)[:, None] * n + np.arange(bn)[None, :]) * 0.5 + 0.25
    ref[:, bn:] = -1.5
    assert_close(z, ref.astype(np.float32).astype(np_dtype(dtype)), rtol=0)


# ---------------------------------------------------------------------------------------------
# matmul through block pointers (Triton's block-pointer matmul), odd sizes, both layouts


@triton.jit
def _block_matmul_kernel(A, B, C, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                         A_ORDER: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(A, (M, K), (stride_am, stride_ak), (pid_m * BM, 0), (BM, BK),
                             A_ORDER)
    b_bp = tl.make_block_ptr(B, (K, N), (stride_bk, stride_bn), (0, pid_n * BN), (BK, BN),
                             (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b, input_precision="ieee")
        a_bp = tl.advance(a_bp, (0, BK))
        b_bp = tl.advance(b_bp, (BK, 0))
    c_bp = tl.make_block_ptr(C, (M, N), (N, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c_bp, acc.to(C.dtype.element_ty), boundary_check=(0, 1))


@pytest.mark.parametrize("dtype", param_dtypes("float32", "float16", "bfloat16"))
@pytest.mark.parametrize("transpose_a", [False, True])
def test_block_pointer_matmul(dtype, transpose_a, rng):
    m, n, k = 37, 45, 50
    a = numpy_random((m, k), dtype, rng)
    if transpose_a:
        a = np.asfortranarray(a)  # column-major A
    b = numpy_random((k, n), dtype, rng)
    c = poisoned((m, n), "float32")
    sa = [s // a.itemsize for s in a.strides]
    sb = [s // b.itemsize for s in b.strides]
    order = (0, 1) if transpose_a else (1, 0)
    _block_matmul_kernel[(cdiv(m, 32), cdiv(n, 16))](a, b, c, m, n, k, *sa, *sb, BM=32, BN=16,
                                                     BK=16, A_ORDER=order)
    ref = to_f64(a) @ to_f64(b)
    assert_close(c, ref, rtol=1e-5, atol=1e-4)
