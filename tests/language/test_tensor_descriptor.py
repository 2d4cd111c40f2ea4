"""Tensor descriptors (Triton's tl.make_tensor_descriptor and host TensorDescriptor): device
descriptors (tl.make_tensor_descriptor) and host ones (TensorDescriptor arguments).

TMA semantics, for any offset (not multiples of the block, negative, past the end): lanes
outside [0, shape) read the padding (zero, or NaN with padding "nan") and are not written.
Covered: load/store 1-D to 5-D, fp16/bf16/fp32 and integers, the functional forms, store
casts, descriptors through calls/returns/loops/branches, a descriptor matmul and a persistent
matmul, atomics, gather/scatter, host descriptors (`test_host_*`), and the host checks."""

import dataclasses

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
from triton_tile.tools.tensor_descriptor import (
    TensorDescriptor,
    runtime_values,
    signature_string,
)


def padded_block(x, offsets, block, pad):
    """The `block` of `x` at `offsets` (any ints), `pad` where it leaves x: float64 for float
    data, x's own type for integers (exact for int64)."""
    ints = x.dtype.kind in "iu"
    out = np.full(block, pad, dtype=x.dtype if ints else np.float64)
    src, dst = [], []
    for o, b, n in zip(offsets, block, x.shape):
        lo, hi = max(o, 0), min(o + b, n)
        if hi <= lo:
            return out
        src.append(slice(lo, hi))
        dst.append(slice(lo - o, hi - o))
    out[tuple(dst)] = x[tuple(src)] if ints else to_f64(x[tuple(src)])
    return out


def store_block(z, offsets, value):
    """numpy model of a descriptor store: the in-bounds part of `value` lands in `z`."""
    src, dst = [], []
    for o, b, n in zip(offsets, value.shape, z.shape):
        lo, hi = max(o, 0), min(o + b, n)
        if hi <= lo:
            return
        dst.append(slice(lo, hi))
        src.append(slice(lo - o, hi - o))
    z[tuple(dst)] = value[tuple(src)]


def aligned(shape, dtype, rng, pitch_elems=None):
    """Random data whose rows start 16-byte aligned (what a host descriptor requires): a view
    of a wider array when the last dimension's byte size is not a multiple of 16."""
    item = np_dtype(dtype).itemsize
    last = shape[-1]
    pitch = pitch_elems or cdiv(last * item, 16) * 16 // item
    full = numpy_random(tuple(shape[:-1]) + (pitch,), dtype, rng)
    return full[..., :last]


def poisoned_aligned(shape, dtype, **kw):
    """poisoned(), with rows 16-byte aligned as aligned() lays them out: what a descriptor made
    in the kernel requires of its base and strides (the Tile path checks it)."""
    item = np_dtype(dtype).itemsize
    pitch = cdiv(shape[-1] * item, 16) * 16 // item
    return poisoned(tuple(shape[:-1]) + (pitch,), dtype, **kw)[..., :shape[-1]]


def elems(x, d=0):
    """x's stride along dimension d, in elements."""
    return x.strides[d] // x.itemsize


def check(actual, expected, dtype):
    if is_float(dtype):
        assert_close(actual, expected, rtol=0)
    else:
        assert_equal(actual, np.asarray(expected).astype(np_dtype(dtype)))


# ---------------------------------------------------------------------------------------------
# 2-D loads at arbitrary offsets: in range, straddling an edge, fully outside, negative


@triton.jit
def _load_2d_kernel(X, OUT, OFFS, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr,
                    PADDING: tl.constexpr):
    pid = tl.program_id(0)
    desc = tl.make_tensor_descriptor(X, shape=[M, N], strides=[stride_m, 1],
                                     block_shape=[BM, BN], padding_option=PADDING)
    x = desc.load([tl.load(OFFS + 2 * pid), tl.load(OFFS + 2 * pid + 1)])
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tl.store(OUT + pid * BM * BN + rows * BN + cols, x)


OFFSETS_2D = [(0, 0), (3, 5), (16, 32), (13, 17), (30, 40), (36, 44), (-3, -5), (-8, 0),
              (0, -32), (-20, 7), (37, 0), (0, 45), (100, -100), (-1, 44)]


@pytest.mark.parametrize("dtype, padding", param_dtypes(
    ("float32", "zero"), ("float32", "nan"), ("float16", "zero"), ("float16", "nan"),
    ("bfloat16", "zero"), ("bfloat16", "nan"), ("int8", "zero"), ("int32", "zero"),
    ("int64", "zero")))
def test_load_2d(dtype, padding, rng):
    m, n, bm, bn = 37, 45, 8, 32
    x = aligned((m, n), dtype, rng)
    offs = np.array(OFFSETS_2D, dtype=np.int32)
    out = poisoned((len(OFFSETS_2D), bm, bn), dtype,
                   poison=12345.0 if padding == "nan" else None)
    _load_2d_kernel[(len(OFFSETS_2D),)](x, out, offs, m, n, elems(x), BM=bm, BN=bn,
                                        PADDING=padding)
    pad = 0.0 if padding == "zero" else np.nan
    for i, o in enumerate(OFFSETS_2D):
        check(out[i], padded_block(x, o, (bm, bn), pad), dtype)


@pytest.mark.cpu_only("the CPU executors check the rule; a GPU relies on it unchecked")
def test_a_descriptor_stride_off_16_bytes_stops_the_kernel(path, rng):
    """A descriptor made in the kernel needs its base and strides 16-byte multiples (TMA's
    rule, which the Tile IR states as an assume): rows 180 bytes apart stop the kernel on the
    Tile path with an AssertionError naming the line."""
    if path == "ptx":
        pytest.skip("the TTIR executor lowers descriptors to pointer tiles; it checks no rule")
    m, n = 8, 45
    x = numpy_random((m, n), "float32", rng)
    out = poisoned((1, 8, 32), "float32")
    offs = np.zeros(2, np.int32)
    with pytest.raises(AssertionError, match=r"test_tensor_descriptor\.py:\d+:\d+: the kernel "
                                             r"assumes this integer is a multiple of 4, but it "
                                             r"is 45 "):
        _load_2d_kernel[(1,)](x, out, offs, m, n, n, BM=8, BN=32, PADDING="zero")


@pytest.mark.cpu_only("stock Triton, the GPU's PTX path, checks no shape")
@pytest.mark.parametrize("dim", [0, 1])
def test_a_negative_descriptor_shape_stops_the_kernel(dim, path, rng):
    """A descriptor's shape is never negative (a TMA map's contract, which the Tile path's view
    planner uses to prove tile indices in range): a negative shape stops the kernel on both CPU
    paths with an AssertionError naming the line and the dimension, instead of reading zeros."""
    m, n = 8, 32
    x = numpy_random((m, n), "float32", rng)
    out = poisoned((1, 8, 32), "float32")
    offs = np.zeros(2, np.int32)
    shape = [m, n]
    shape[dim] = -shape[dim]
    with pytest.raises(AssertionError,
                       match=rf"test_tensor_descriptor\.py:\d+:\d+: .*shape\[{dim}\] is negative"):
        _load_2d_kernel[(1,)](x, out, offs, *shape, n, BM=8, BN=32, PADDING="zero")
    assert np.isnan(out).all()  # stopped before the store


@triton.jit
def _load_functional_kernel(X, OUT, M, N, S, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    desc = tl.make_tensor_descriptor(X, [M, N], [S, 1], [BM, BN])
    x = tl.load_tensor_descriptor(desc, [pid * BM + 3, 2])
    out = tl.make_tensor_descriptor(OUT, [M, N], [S, 1], [BM, BN])
    tl.store_tensor_descriptor(out, [pid * BM + 3, 2], x)


def test_functional_forms(rng):
    m, n = 29, 21
    x = aligned((m, n), "float32", rng)
    z = poisoned_aligned((m, n), "float32")
    _load_functional_kernel[(cdiv(m, 8) + 1,)](x, z, m, n, elems(x), BM=8, BN=32)
    ref = np.full((m, n), np.nan)
    ref[3:, 2:] = x[3:, 2:]
    assert_close(z, ref, rtol=0)


# ---------------------------------------------------------------------------------------------
# stores: blocks at odd offsets cover a window of a bigger array; nothing outside is written


@triton.jit
def _store_2d_kernel(Z, SRC, OFFS, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    desc = tl.make_tensor_descriptor(Z, [M, N], [stride_m, 1], [BM, BN])
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    v = tl.load(SRC + pid * BM * BN + rows * BN + cols)
    desc.store([tl.load(OFFS + 2 * pid), tl.load(OFFS + 2 * pid + 1)], v)


@pytest.mark.parametrize("dtype", param_dtypes("float32", "float16", "bfloat16", "int16",
                                               "int32"))
def test_store_2d_window(dtype, rng):
    m, n, bm, bn = 23, 37, 8, 16
    # the descriptor covers rows [2, 2+m) and the n columns from 16 bytes in of a bigger array
    # (its rows 16-byte multiples, as a descriptor made in the kernel requires)
    c0 = 16 // np_dtype(dtype).itemsize
    big = poisoned_aligned((m + 5, c0 + n + 9), dtype)
    window = big[2:2 + m, c0:c0 + n]
    offsets = [(o0, o1) for o0 in range(-5, m + 3, 7) for o1 in range(-11, n + 5, 13)]
    offs = np.array(offsets, dtype=np.int32)
    src = numpy_random((len(offsets), bm, bn), dtype, rng)
    # `window` is a numpy view: the kernel's base pointer is its first element and its row
    # stride that of `big`. One launch per block so that overlapping blocks land in order.
    ref = big.copy()
    for i in range(len(offsets)):
        _store_2d_kernel[(1,)](window, src[i:], offs[i:], m, n, elems(big), BM=bm, BN=bn)
        store_block(ref[2:2 + m, c0:c0 + n], offsets[i], src[i])
    assert_equal(big.view(np.uint8), ref.view(np.uint8))


@triton.jit
def _store_downcast_kernel(Z, M, N, S, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    desc = tl.make_tensor_descriptor(Z, [M, N], [S, 1], [BM, BN])
    rows = pid * BM + tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    # fp32 into the descriptor's element; one multiply (no add a GPU would fuse into an fma,
    # one rounding where the reference has two)
    v = (rows * N + cols - 54).to(tl.float32) * 0.37
    desc.store([pid * BM, 0], v)


@pytest.mark.parametrize("dtype", param_dtypes("float16", "bfloat16", "int32", "float64"))
def test_store_casts_to_element_type(dtype):
    m, n = 19, 30
    z = poisoned_aligned((m, n), dtype)
    _store_downcast_kernel[(cdiv(m, 8),)](z, m, n, elems(z), BM=8, BN=32)
    v = (np.arange(m)[:, None] * n + np.arange(n)[None, :] - 54).astype(np.float32) * \
        np.float32(0.37)
    ref = v.astype(np_dtype(dtype))
    check(z, ref, dtype)


# ---------------------------------------------------------------------------------------------
# 1-D to 5-D: load and store round trip at per-program offsets


@triton.jit
def _nd_kernel(X, Z, OUT, OFFS, shape, strides, BLOCK: tl.constexpr, NUMEL: tl.constexpr,
               PADDING: tl.constexpr):
    pid = tl.program_id(0)
    R: tl.constexpr = len(BLOCK)
    src = tl.make_tensor_descriptor(X, shape, strides, BLOCK, padding_option=PADDING)
    dst = tl.make_tensor_descriptor(Z, shape, strides, BLOCK)
    offs = ()
    for d in tl.static_range(R):
        offs = offs + (tl.load(OFFS + pid * R + d), )
    x = src.load(offs)
    tl.store(OUT + pid * NUMEL + tl.arange(0, NUMEL), tl.reshape(x, [NUMEL]))
    dst.store(offs, x)


ND_CASES = [
    ((45, ), (16, ), [(0, ), (5, ), (37, ), (-9, ), (44, )]),
    ((11, 13), (4, 8), [(0, 0), (3, 7), (-2, 9), (9, -5), (8, 8)]),
    ((5, 7, 9), (2, 4, 8), [(0, 0, 0), (1, 3, 2), (4, 5, 6), (-1, -2, -3), (3, 6, 1)]),
    ((3, 5, 4, 6), (2, 2, 4, 8), [(0, 0, 0, 0), (1, 3, 2, 1), (2, 4, -1, -3), (-1, 1, 1, 0)]),
    ((3, 2, 5, 3, 7), (2, 2, 2, 2, 8), [(0, 0, 0, 0, 0), (1, 1, 3, 1, 1), (2, -1, 4, 2, -2),
                                         (-1, 0, 1, -1, 3)]),
]


@pytest.mark.parametrize("shape, block, offsets", ND_CASES, ids=[f"{len(c[0])}d" for c in ND_CASES])
@pytest.mark.parametrize("dtype, padding", param_dtypes(("float32", "zero"), ("float32", "nan"),
                                                        ("float16", "nan"),
                                                        ("bfloat16", "zero")))
@pytest.mark.stock_refuses("len() of a constexpr tuple")
def test_nd_load_store(shape, block, offsets, dtype, padding, rng):
    r = len(shape)
    x = aligned(shape, dtype, rng)
    strides = tuple(elems(x, d) for d in range(r))
    z = poisoned_aligned(shape, dtype)
    numel = int(np.prod(block))
    out = poisoned((len(offsets), numel), dtype, poison=12345.0 if padding == "nan" else None)
    offs = np.array(offsets, dtype=np.int32).reshape(len(offsets), r)
    # one launch per block so that overlapping stores land in a known order
    ref_z = z.copy()
    pad = 0.0 if padding == "zero" else np.nan
    for i, o in enumerate(offsets):
        _nd_kernel[(1,)](x, z, out[i:], offs[i:], tuple(shape), strides, BLOCK=tuple(block),
                         NUMEL=numel, PADDING=padding)
        blk = padded_block(x, o, block, pad)
        assert_close(out[i], blk.reshape(-1), rtol=0, err_msg=str(o))
        store_block(ref_z, o, blk.astype(np_dtype(dtype)))
    assert_close(z, ref_z, rtol=0)


# ---------------------------------------------------------------------------------------------
# descriptors through calls, returns, loops and branches (Triton's _in_function,
# _return_value, loop_carried tests)


@triton.jit
def _make_desc(X, M, N, S, BM: tl.constexpr, BN: tl.constexpr):
    return tl.make_tensor_descriptor(X, [M, N], [S, 1], [BM, BN])


@triton.jit
def _copy_block(src, dst, om, on):
    dst.store([om, on], src.load([om, on]) * 2)


@triton.jit
def _desc_call_kernel(X, Z, M, N, S, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    src = _make_desc(X, M, N, S, BM, BN)
    dst = _make_desc(Z, M, N, S, BM, BN)
    for j in range(0, tl.cdiv(N, BN)):
        _copy_block(src, dst, pid * BM, j * BN)


def test_descriptors_as_call_args_and_returns(rng):
    m, n = 27, 70
    x = aligned((m, n), "float32", rng)
    z = poisoned_aligned((m, n), "float32")
    _desc_call_kernel[(cdiv(m, 8),)](x, z, m, n, elems(x), BM=8, BN=32)
    assert_close(z, (to_f64(x) * 2).astype(np.float32), rtol=0)


@triton.jit
def _loop_carried_kernel(X, Y, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # the descriptor is rebuilt in the loop (loop-carried) and chosen in a branch
    desc = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN])
    acc = tl.zeros((BM, BN), tl.float32)
    for i in range(0, tl.cdiv(M, BM)):
        acc += desc.load([i * BM, 0])
        if i % 2 == 0:
            desc = tl.make_tensor_descriptor(Y, [M, N], [N, 1], [BM, BN])
        else:
            desc = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN])
    out = tl.make_tensor_descriptor(Z, [BM, BN], [BN, 1], [BM, BN])
    out.store([0, 0], acc)


def test_loop_carried_descriptor(rng):
    m, n, bm, bn = 45, 16, 8, 16
    x = numpy_random((m, n), "float32", rng)
    y = numpy_random((m, n), "float32", rng)
    z = poisoned((bm, bn), "float32")
    _loop_carried_kernel[(1,)](x, y, z, m, n, BM=bm, BN=bn)
    ref = np.zeros((bm, bn), np.float32)
    for i in range(cdiv(m, bm)):
        src = x if i % 2 == 0 else y
        ref += padded_block(src, (i * bm, 0), (bm, bn), 0.0).astype(np.float32)
    assert_close(z, ref, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# matmuls: a K loop over descriptor loads, and a persistent kernel storing in a loop


@triton.jit
def _desc_matmul_kernel(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(A, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(B, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(C, [M, N], [N, 1], [BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_desc.store([pid_m * BM, pid_n * BN], acc)


@pytest.mark.parametrize("dtype", param_dtypes("float16", "bfloat16", "float32"))
def test_descriptor_matmul(dtype, rng):
    # Row strides (k, n elements) are multiples of 16 bytes, as a descriptor requires (TMA;
    # the Tile path assumes it too); m and the K and N tails stay odd.
    m, n, k = 37, 40, 72
    a = numpy_random((m, k), dtype, rng)
    b = numpy_random((k, n), dtype, rng)
    c = poisoned((m, n), "float32")
    _desc_matmul_kernel[(cdiv(m, 16), cdiv(n, 32))](a, b, c, m, n, k, BM=16, BN=32, BK=16)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


@triton.jit
def _persistent_matmul_kernel(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                              BK: tl.constexpr, NUM_SMS: tl.constexpr):
    start = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    a_desc = tl.make_tensor_descriptor(A, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(B, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(C, [M, N], [N, 1], [BM, BN])
    for tile in tl.range(start, num_m * num_n, NUM_SMS, flatten=True):
        pid_m = tile // num_n
        pid_n = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = a_desc.load([pid_m * BM, k * BK])
            b = b_desc.load([k * BK, pid_n * BN])
            acc = tl.dot(a, b, acc, input_precision="ieee")
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(C.dtype.element_ty))


@pytest.mark.parametrize("dtype", param_dtypes("float16", "bfloat16"))
def test_persistent_matmul(dtype, rng):
    m, n, k = 53, 40, 40  # row strides of 80 bytes: 16-byte multiples, as descriptors require
    a = numpy_random((m, k), dtype, rng)
    b = numpy_random((k, n), dtype, rng)
    c = poisoned((m, n), dtype)
    num_sms = 3  # fewer programs than tiles: each walks several
    _persistent_matmul_kernel[(num_sms,)](a, b, c, m, n, k, BM=16, BN=16, BK=16,
                                          NUM_SMS=num_sms)
    ref = (to_f64(a) @ to_f64(b)).astype(np.float32)
    # fp32 accumulation, one rounding to the output type
    assert_close(c, ref.astype(np_dtype(dtype)), rtol=1e-2, atol=1e-2)


# ---------------------------------------------------------------------------------------------
# atomics, gather and scatter through descriptors


@triton.jit
def _desc_atomic_kernel(Z, V, OFFS, M, N, BM: tl.constexpr, BN: tl.constexpr,
                        OP: tl.constexpr):
    pid = tl.program_id(0)
    desc = tl.make_tensor_descriptor(Z, [M, N], [N, 1], [BM, BN])
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    v = tl.load(V + pid * BM * BN + rows * BN + cols)
    offs = [tl.load(OFFS + 2 * pid), tl.load(OFFS + 2 * pid + 1)]
    if OP == "add":
        desc.atomic_add(offs, v)
    elif OP == "max":
        desc.atomic_max(offs, v)
    elif OP == "min":
        desc.atomic_min(offs, v)
    elif OP == "and":
        desc.atomic_and(offs, v)
    elif OP == "or":
        desc.atomic_or(offs, v)
    else:
        desc.atomic_xor(offs, v)


@pytest.mark.parametrize("op, dtype", [("add", "int32"), ("add", "float32"), ("max", "int32"),
                                       ("min", "int32"), ("and", "int32"), ("or", "int32"),
                                       ("xor", "int32")])
def test_descriptor_atomics(op, dtype, path, rng):
    """Blocks at in-range, clipped and negative offsets; on the Tile path a reduction through
    a view where the offsets are not negative, pointer atomics where they are."""
    m, n, bm, bn = 13, 21, 8, 16
    offsets = [(0, 0), (3, 5), (-4, 9), (9, -7), (5, 5), (12, 20), (-8, -16)]
    # (float32: integers, so every sum is exact whatever the order)
    z = numpy_random((m, n), "int32", rng, low=-1000, high=1000).astype(dtype)
    v = numpy_random((len(offsets), bm, bn), "int32", rng, low=-1000, high=1000).astype(dtype)
    ref = z.copy()
    fn = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
          "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    for i, o in enumerate(offsets):
        part = ref.copy()
        store_block(part, o, v[i])
        covered = np.zeros((m, n), bool)
        store_block(covered, o, np.ones((bm, bn), bool))
        ref = np.where(covered, fn(ref, part), ref)
    offs = np.array(offsets, dtype=np.int32)
    k = _desc_atomic_kernel[(len(offsets),)](z, v, offs, m, n, BM=bm, BN=bn, OP=op)
    assert_equal(z, ref)
    if path == "tile":
        assert "atomic_red_view_tko" in k.asm["tileir"]


@triton.jit
def _gather_scatter_kernel(X, Z, ROWS, Y0, M, N, NR: tl.constexpr, BN: tl.constexpr,
                           PADDING: tl.constexpr):
    src = tl.make_tensor_descriptor(X, [M, N], [N, 1], [1, BN], padding_option=PADDING)
    dst = tl.make_tensor_descriptor(Z, [M, N], [N, 1], [1, BN])
    rows = tl.load(ROWS + tl.arange(0, NR))
    g = src.gather(rows, Y0)
    dst.scatter(g + 1, rows, Y0)


@pytest.mark.stock_refuses("tile::gather4/scatter4 need sm_100")
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_descriptor_gather_scatter(padding, rng):
    m, n, nr, bn, y0 = 19, 37, 8, 16, 29
    x = numpy_random((m, n), "float32", rng)
    z = poisoned((m, n), "float32")
    rows = np.array([3, 0, 18, 7, -2, 25, 11, 5], dtype=np.int32)
    _gather_scatter_kernel[(1,)](x, z, rows, y0, m, n, NR=nr, BN=bn, PADDING=padding)
    ref = np.full((m, n), np.nan)
    for r in rows:
        if 0 <= r < m:
            ref[r, y0:y0 + bn] = to_f64(x[r, y0:y0 + bn]) + 1
    assert_close(z, ref.astype(np.float32), rtol=0)


# ---------------------------------------------------------------------------------------------
# host descriptors: TensorDescriptor arguments (need the runtime to pass them, see
# tools/tensor_descriptor.py: signature_string and runtime_values)


@triton.jit
def _host_load_kernel(desc, OUT, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = desc.load([pid_m * BM - 3, pid_n * BN + 5])
    rows = (pid_m * tl.num_programs(1) + pid_n) * BM + tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tl.store(OUT + rows * BN + cols, x)


@pytest.mark.parametrize("dtype, padding", param_dtypes(
    ("float32", "zero"), ("float32", "nan"), ("float16", "nan"), ("bfloat16", "zero"),
    ("int16", "zero")))
def test_host_descriptor_load(dtype, padding, rng):
    m, n, bm, bn = 37, 45, 16, 32
    x = aligned((m, n), dtype, rng)
    desc = TensorDescriptor.from_tensor(x, [bm, bn], padding=padding)
    gm, gn = cdiv(m, bm) + 1, cdiv(n, bn)
    out = poisoned((gm * gn, bm, bn), dtype, poison=12345.0 if padding == "nan" else None)
    _host_load_kernel[(gm, gn)](desc, out, BM=bm, BN=bn)
    pad = 0.0 if padding == "zero" else np.nan
    for i in range(gm):
        for j in range(gn):
            check(out[i * gn + j], padded_block(x, (i * bm - 3, j * bn + 5), (bm, bn), pad),
                  dtype)


@triton.jit
def _host_copy_kernel(src, dst, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    for j in range(0, tl.cdiv(N, BN) + 1):
        v = src.load([pid * BM - 1, j * BN - 2])
        dst.store([pid * BM - 1, j * BN - 2], v)


@pytest.mark.parametrize("dtype", param_dtypes("float32", "float16", "bfloat16", "int8"))
def test_host_descriptor_store(dtype, rng):
    m, n, bm, bn = 29, 50, 8, 32
    x = aligned((m, n), dtype, rng)
    big = poisoned((m + 1, 64), dtype)
    z = big[:m, :n]  # a window: the row past it and the columns past n stay poisoned
    _host_copy_kernel[(cdiv(m, bm) + 1,)](TensorDescriptor.from_tensor(x, [bm, bn]),
                                          TensorDescriptor.from_tensor(z, [bm, bn]), n, BM=bm,
                                          BN=bn)
    ref = poisoned(big.shape, dtype)
    ref[:m, :n] = x
    assert_equal(big.view(np.uint8), ref.view(np.uint8))


@triton.jit
def _host_3d_kernel(desc, Z, D1, D2, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    pid = tl.program_id(0)
    x = desc.load([pid * B0, 1, -2])
    i = tl.arange(0, B0)[:, None, None]
    j = tl.arange(0, B1)[None, :, None]
    k = tl.arange(0, B2)[None, None, :]
    tl.store(Z + pid * B0 * B1 * B2 + i * B1 * B2 + j * B2 + k, x)


def test_host_descriptor_3d(rng):
    shape, block = (7, 5, 11), (2, 4, 16)
    x = aligned(shape, "float32", rng)
    grid = cdiv(shape[0], block[0])
    z = poisoned((grid,) + block, "float32")
    _host_3d_kernel[(grid,)](TensorDescriptor.from_tensor(x, list(block)), z, shape[1],
                             shape[2], B0=block[0], B1=block[1], B2=block[2])
    for p in range(grid):
        assert_close(z[p], padded_block(x, (p * block[0], 1, -2), block, 0.0), rtol=0)


@triton.jit
def _maybe_make_desc(x, shape, strides, block_shape):
    # tutorial 06's pattern: a host descriptor is used as is, a pointer gets a device one
    if isinstance(x, tl.tensor_descriptor):
        return x
    else:
        return tl.make_tensor_descriptor(x, shape, strides, block_shape)


@triton.jit
def _maybe_desc_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    src = _maybe_make_desc(X, [M, N], [N, 1], [BM, BN])
    dst = _maybe_make_desc(Z, [M, N], [N, 1], [BM, BN])
    dst.store([pid * BM, 0], src.load([pid * BM, 0]) + 1.0)


@pytest.mark.parametrize("host", [False, True])
def test_host_descriptor_or_pointer(host, rng):
    m, n = 21, 28
    x = aligned((m, n), "float32", rng)
    big = poisoned((m, 32), "float32")
    z = big[:, :n]
    if host:
        _maybe_desc_kernel[(cdiv(m, 8),)](TensorDescriptor.from_tensor(x, [8, 32]),
                                          TensorDescriptor.from_tensor(z, [8, 32]), m, n, BM=8,
                                          BN=32)
    else:  # device descriptors: the row stride is n
        x = np.ascontiguousarray(x)
        z = poisoned((m, n), "float32")
        _maybe_desc_kernel[(cdiv(m, 8),)](x, z, m, n, BM=8, BN=32)
    assert_close(z, (to_f64(x) + 1).astype(np.float32), rtol=0)


def _set_block_shape(nargs):
    # Triton's pattern (tutorials 06, 09): the config picks the block, the hook sets it
    nargs["src"].block_shape = [nargs["BM"], nargs["BN"]]
    nargs["dst"].block_shape = [nargs["BM"], nargs["BN"]]


@triton.autotune(configs=[triton.Config({"BM": 8, "BN": 16}, pre_hook=_set_block_shape),
                          triton.Config({"BM": 16, "BN": 32}, pre_hook=_set_block_shape)],
                 key=["M", "N"])
@triton.jit
def _host_autotuned_copy(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    for j in range(0, tl.cdiv(N, BN)):
        dst.store([pid * BM, j * BN], src.load([pid * BM, j * BN]) * 2.0)


def test_host_descriptor_block_shape_from_autotune_pre_hook(rng):
    m, n = 45, 40
    x = aligned((m, n), "float32", rng)
    z = poisoned((m, 40), "float32")
    src = TensorDescriptor.from_tensor(x, [1, 1])
    dst = TensorDescriptor.from_tensor(z, [1, 1])
    _host_autotuned_copy[lambda meta: (cdiv(m, meta["BM"]),)](src, dst, m, n)
    assert_close(z, (to_f64(x) * 2).astype(np.float32), rtol=0)
    assert src.block_shape == [_host_autotuned_copy.best_config.kwargs["BM"],
                               _host_autotuned_copy.best_config.kwargs["BN"]]


# ---------------------------------------------------------------------------------------------
# the host object itself: checks, signature string, runtime values (no kernel launch)


def test_host_descriptor_fields_and_strings(rng):
    x = numpy_random((24, 40), "float16", rng)
    d = TensorDescriptor.from_tensor(x, [16, 32])
    assert dataclasses.is_dataclass(d)
    assert d.shape == [24, 40] and d.strides == [40, 1] and d.block_shape == [16, 32]
    assert d.padding == "zero"
    assert signature_string(d) == "tensordesc<fp16[16, 32]>"
    assert runtime_values(d)[1:] == [24, 40, 40, 1] and runtime_values(d)[0] is x
    d.block_shape = [8, 64]  # what an autotune pre_hook does
    assert signature_string(d) == "tensordesc<fp16[8, 64]>"
    n = TensorDescriptor(x, [24, 40], [40, 1], [16, 32], padding="nan")
    assert signature_string(n) == "tensordesc<fp16[16, 32],nan>"
    assert tl.str_to_ty(signature_string(n)) == tl.tensor_descriptor_type(
        tl.block_type(tl.float16, [16, 32]), "nan")
    # the strides of a non-contiguous view are taken in elements
    v = numpy_random((10, 64), "float32", rng)[:, 8:40]
    dv = TensorDescriptor.from_tensor(v, [4, 8])
    assert dv.shape == [10, 32] and dv.strides == [64, 1]


@pytest.mark.parametrize("make, message", [
    (lambda x: TensorDescriptor(x, [2] * 6, [1] * 6, [1] * 6), "rank"),
    (lambda x: TensorDescriptor(x.reshape(-1)[1:33], [32], [1], [8]), "16-byte aligned"),
    (lambda x: TensorDescriptor.from_tensor(x, [16, 24]), "powers of 2"),
    (lambda x: TensorDescriptor.from_tensor(x, [2048, 1024]), "maximum"),
    (lambda x: TensorDescriptor(x, [64, 34], [34, 1], [16, 16]), "multiple of 16 bytes"),
    (lambda x: TensorDescriptor(x, [64, 32], [64, 2], [16, 16]), "last stride must be 1"),
    (lambda x: TensorDescriptor(x, [64, 0], [64, 1], [16, 16]), "> 0"),
    # strides wrapped in the int64 argument: 2^64 + 16 ran as 16
    (lambda x: TensorDescriptor(x, [4, 16], [2**64 + 16, 1], [4, 16]), r"\[0, 2\^40\)"),
    (lambda x: TensorDescriptor(x, [4, 16], [-16, 1], [4, 16]), r"\[0, 2\^40\)"),
    (lambda x: TensorDescriptor.from_tensor(x, [16, 16], padding="inf"), "'zero' or 'nan'"),
    (lambda x: TensorDescriptor.from_tensor(x.view(np.int32), [16, 16], padding="nan"),
     "floating-point"),
    (lambda x: TensorDescriptor.from_tensor(x, [16]), "one entry per dimension"),
])
def test_host_descriptor_checks(make, message, rng):
    x = numpy_random((64, 64), "float32", rng)
    with pytest.raises(ValueError, match=message):
        make(x)


def test_host_descriptor_block_shape_assignment_is_checked(rng):
    d = TensorDescriptor.from_tensor(numpy_random((16, 16), "float32", rng), [4, 4])
    with pytest.raises(ValueError, match="powers of 2"):
        d.block_shape = [4, 6]
    assert d.block_shape == [4, 4]  # unchanged after a rejected assignment
