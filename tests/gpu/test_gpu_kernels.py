"""The kernel suite's representative bodies on CUDA arrays, on both GPU paths: vector add,
softmax, reductions, dot/matmul, atomics, layer norm, attention; plus what only a GPU has
(streams, cupy arrays, host/device mixing). References are float64 numpy on fresh random
inputs; outputs are poisoned first (tests/tt_utils.py)."""

import importlib.util
import math
import os
import sys

import numpy as np
import pytest
from tt_utils import cas_counter_kernel, numpy_random, poisoned, welford_combine

import triton_tile as triton
import triton_tile.language as tl

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")


def example(name):
    key = f"triton_tile_example_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, os.path.join(EXAMPLES, name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[key] = mod
        spec.loader.exec_module(mod)
    return sys.modules[key]


def check_path(k, path):
    """The kernel ran on the path asked for (a Tile fallback is loud, and allowed)."""
    assert k.metadata.path in (path, "ptx"), k.metadata


@pytest.mark.parametrize("n", [1000, 98_432, 1_000_003])
def test_vector_add(n, dev, path, rng):
    x, y = numpy_random(n, "float32", rng), numpy_random(n, "float32", rng)
    dx, dy, dout = dev.to(x), dev.to(y), dev.to(poisoned(n, "float32"))
    add = example("vector_add").add_kernel
    k = dev.launch(add, (triton.cdiv(n, 1024),), dx, dy, dout, n, BLOCK_SIZE=1024)
    check_path(k, path)
    np.testing.assert_array_equal(dev.host(dout), x + y)


@pytest.mark.parametrize("rows, cols", [(123, 781), (64, 1024)])
def test_softmax(rows, cols, dev, path, rng):
    x = (numpy_random((rows, cols), "float32", rng) * 3).astype(np.float32)
    dx, dout = dev.to(x), dev.to(poisoned((rows, cols), "float32"))
    mod = example("fused_softmax")
    dev.launch(mod.softmax_kernel, (min(rows, 64),), dout, dx, cols, cols, rows, cols,
               BLOCK_SIZE=triton.next_power_of_2(cols), num_stages=2)
    np.testing.assert_allclose(dev.host(dout), mod.reference(x), rtol=1e-5, atol=1e-6)


@triton.jit
def _row_reduce_kernel(X, SUM, MAX, MIN, ARGMAX, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(X + row * n_cols + cols, mask=mask, other=0)
    lo = tl.load(X + row * n_cols + cols, mask=mask, other=-1e30)
    hi = tl.load(X + row * n_cols + cols, mask=mask, other=1e30)
    tl.store(SUM + row, tl.sum(x, axis=0))
    tl.store(MAX + row, tl.max(lo, axis=0))
    tl.store(MIN + row, tl.min(hi, axis=0))
    tl.store(ARGMAX + row, tl.argmax(lo, axis=0))


def test_row_reductions(dev, path, rng):
    rows, cols = 37, 300
    x = numpy_random((rows, cols), "float32", rng)
    outs = [poisoned(rows, "float32") for _ in range(3)] + [poisoned(rows, "int32")]
    douts = [dev.to(o) for o in outs]
    dev.launch(_row_reduce_kernel, (rows,), dev.to(x), *douts, cols, BLOCK=512)
    s, mx, mn, am = (dev.host(d) for d in douts)
    np.testing.assert_allclose(s, x.astype(np.float64).sum(1), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(mx, x.max(1))
    np.testing.assert_array_equal(mn, x.min(1))
    np.testing.assert_array_equal(am, x.argmax(1))


@triton.jit
def _dot_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(A + rm[:, None] * K + rk[None, :])
    b = tl.load(B + rk[:, None] * N + rn[None, :])
    tl.store(C + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_dot(dtype, dev, path, rng):
    M = N = K = 64
    a = numpy_random((M, K), dtype, rng)
    b = numpy_random((K, N), dtype, rng)
    dc = dev.to(poisoned((M, N), "float32"))
    dev.launch(_dot_kernel, (1,), dev.to(a), dev.to(b), dc, M, N, K)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(dev.host(dc), ref, rtol=1e-3, atol=1e-3)


def test_matmul(dev, path, rng):
    M, N, K = 200, 136, 100
    a = numpy_random((M, K), "float16", rng)
    b = numpy_random((K, N), "float16", rng)
    dc = dev.to(poisoned((M, N), "float16"))
    mod = example("matmul")
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
    dev.launch(mod.matmul_kernel.fn, grid, dev.to(a), dev.to(b), dc, M, N, K, K, 1, N, 1, N, 1,
               BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8, ACTIVATION="", num_warps=4)
    np.testing.assert_allclose(dev.host(dc).astype(np.float64), mod.reference(a, b),
                               rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("extra_programs, extra_k", [(0, 0), (3, 0), (0, 64)])
def test_descriptor_matmul_guarded_loop(dev, path, rng, extra_programs, extra_k):
    """The one-tile descriptor matmul with programs past the last tile, or its K loop past
    the descriptors' extent (tiles of zeros): exact either way. On the Tile path the host's
    launch guard sends only those launches to the kernel with the loop's general version."""
    from triton_tile.tools.tensor_descriptor import TensorDescriptor

    M, N, K, bm, bn, bk = 200, 136, 96, 64, 32, 32
    a = numpy_random((M, K), "float16", rng)
    b = numpy_random((K, N), "float16", rng)
    dc = dev.to(poisoned((M, N), "float16"))
    descs = [TensorDescriptor.from_tensor(x, s)
             for x, s in ((dev.to(a), [bm, bk]), (dev.to(b), [bk, bn]), (dc, [bm, bn]))]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn) + extra_programs,)
    k = dev.launch(example("matmul_tma").matmul_desc_kernel, grid, *descs, M, N, K + extra_k,
                   BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=4)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(dev.host(dc).astype(np.float64), ref, rtol=2e-3, atol=2e-2)
    if path == "tile" and k.metadata.path == "tile":
        before = k.general_launches
        k[grid](*descs, M, N, K + extra_k, bm, bn, bk, 1)  # (a direct launch takes constexprs:
        # the blocks and GROUP_M)
        assert k.general_launches - before == (1 if extra_programs or extra_k else 0)


@triton.jit
def _erf_kernel(X, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Z + offs, tl.math.erf(tl.load(X + offs, mask=mask)), mask=mask)


def test_erf(dev, path, rng):
    """f32 erf within 3 ulp of float64's (the Tile path: our polynomials and the GPU's exp;
    the PTX path: libdevice)."""
    n = 100_000
    x = np.concatenate([rng.uniform(-1, 1, n // 2), rng.uniform(-5, 5, n // 2)]).astype(
        np.float32)
    dz = dev.to(poisoned(n, "float32"))
    k = dev.launch(_erf_kernel, (triton.cdiv(n, 1024),), dev.to(x), dz, n, BLOCK=1024)
    assert k.metadata.path == path  # no fallback: our Tile IR lowering
    ref = np.vectorize(math.erf)(x.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    err = np.abs(dev.host(dz).astype(np.float64) - ref) / ulp
    assert err.max() <= 3, (err.max(), x[err.argmax()])


@triton.jit
def _welford_rows_kernel(X, MEAN, VAR, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(X + row * n_cols + cols, mask=mask, other=0.0)
    mean, m2, w = tl.reduce((x, tl.zeros_like(x), mask.to(tl.float32)), 0, welford_combine)
    tl.store(MEAN + row, mean)
    tl.store(VAR + row, m2 / w)


def test_welford_reduction(dev, path, rng):
    """A combiner with no identity Tile IR's reduce could take (the Tile path: halvings of the
    axis, neighbours combined)."""
    rows, cols = 37, 300
    x = (numpy_random((rows, cols), "float32", rng) * 2 + 3).astype(np.float32)
    dmean, dvar = dev.to(poisoned(rows, "float32")), dev.to(poisoned(rows, "float32"))
    k = dev.launch(_welford_rows_kernel, (rows,), dev.to(x), dmean, dvar, cols, BLOCK=512)
    assert k.metadata.path == path  # no fallback: the halvings
    xf = x.astype(np.float64)
    np.testing.assert_allclose(dev.host(dmean), xf.mean(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dev.host(dvar), xf.var(1), rtol=1e-4, atol=1e-4)


def test_erf_f64(dev, path, rng):
    """f64 erf within 3 ulp of math.erf over every piece of the approximation (the Tile path:
    fdlibm's rational approximations with the GPU's exp; the PTX path: libdevice)."""
    n = 100_000
    x = np.concatenate([rng.uniform(-1.5, 1.5, n // 2), rng.uniform(-7, 7, n // 4),
                        rng.uniform(-1e-6, 1e-6, n // 4)])
    x[:4] = [0.0, -0.0, 0.84375, 6.0]
    dz = dev.to(poisoned(n, "float64"))
    k = dev.launch(_erf_kernel, (triton.cdiv(n, 1024),), dev.to(x), dz, n, BLOCK=1024)
    assert k.metadata.path == path  # no fallback: our Tile IR lowering
    ref = np.vectorize(math.erf)(x)
    z = dev.host(dz)
    err = np.abs(z - ref) / np.spacing(np.abs(ref))
    assert err.max() <= 3, (err.max(), x[err.argmax()])
    assert np.signbit(z[1]) and not np.signbit(z[0])


def test_atomic_cas_16_bit_contended(dev, path):
    """16-bit compare-and-swap under contention from 256 programs on four counters that share
    two words (the Tile path: compare-and-swap loops on the 32-bit words)."""
    z0 = np.array([0, 1000, 65000, 7], np.uint16)
    dz = dev.to(z0)
    k = dev.launch(cas_counter_kernel, (256,), dz, ITERS=8, COUNTERS=4)
    assert k.metadata.path == path  # no fallback: our Tile IR lowering
    np.testing.assert_array_equal(dev.host(dz), (z0.astype(np.int64) + 64 * 8) % 65536)


@triton.jit
def _xchg16_kernel(X, Z, OLD, SLOTS: tl.constexpr):
    pid = tl.program_id(0)
    tl.store(OLD + pid, tl.atomic_xchg(Z + pid % SLOTS, tl.load(X + pid)))


def test_atomic_xchg_16_bit_float(dev, path, rng):
    """256 programs exchange f16 values into four elements (two per 32-bit word): each
    element ends holding one program's value, and the old values chain through them. (Scalar
    ones: tile-shaped 8/16-bit atomics fall back from the Tile path, convert_memory.cpp.)"""
    progs, slots = 256, 4
    x = numpy_random(progs, "float16", rng)
    z0 = numpy_random(slots, "float16", rng)
    dz, dold = dev.to(z0), dev.to(poisoned(progs, "float16"))
    try:
        k = dev.launch(_xchg16_kernel, (progs,), dev.to(x), dz, dold, SLOTS=slots)
    except Exception as e:  # stock Triton's frontend may refuse what ours accepts
        if path == "ptx" and "does not support" in str(e):
            pytest.skip(f"stock Triton refuses it: {str(e).splitlines()[-1][:120]}")
        raise
    assert k.metadata.path == path  # no fallback: our Tile IR lowering
    z, old = dev.host(dz), dev.host(dold)
    for j in range(slots):  # {old values} + {final} == {initial} + {written}, as multisets
        mine = np.arange(progs) % slots == j
        seen = sorted(np.concatenate([old[mine], [z[j]]]).astype(np.float64).tolist())
        put = sorted(np.concatenate([x[mine], [z0[j]]]).astype(np.float64).tolist())
        assert seen == put, j


@triton.jit
def _histogram_kernel(X, BINS, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0)
    tl.atomic_add(BINS + x, 1, mask=mask)
    tl.atomic_max(BINS + 16 + offs * 0, x, mask=mask)


def test_atomics(dev, path, rng):
    n = 10_000
    x = rng.integers(0, 16, size=n, dtype=np.int32)
    dbins = dev.to(np.zeros(17, np.int32))
    dev.launch(_histogram_kernel, (triton.cdiv(n, 256),), dev.to(x), dbins, n, BLOCK=256)
    bins = dev.host(dbins)
    np.testing.assert_array_equal(bins[:16], np.bincount(x, minlength=16))
    assert bins[16] == x.max()


@triton.jit
def _float_extrema_kernel(X, ZMAX, ZMIN, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    tl.atomic_max(ZMAX + offs % 16, x, mask=mask)
    tl.atomic_min(ZMIN + offs % 16, x, mask=mask)


def test_float_atomic_max_min(dev, path, rng):
    """Float atomic max/min over values of both signs (-0.0 included) from many programs;
    on the Tile path, integer atomics on the bits."""
    n = 10_000
    x = numpy_random(n, "float32", rng)
    x[::97] = -0.0
    dmax = dev.to(np.full(16, -np.inf, np.float32))
    dmin = dev.to(np.full(16, np.inf, np.float32))
    k = dev.launch(_float_extrema_kernel, (triton.cdiv(n, 256),), dev.to(x), dmax, dmin, n,
                   BLOCK=256)
    assert k.metadata.path == path  # no fallback: our Tile IR lowering
    cols = x.reshape(-1, 16)  # (offs % 16: column j holds every 16th value)
    np.testing.assert_array_equal(dev.host(dmax), cols.max(0))
    np.testing.assert_array_equal(dev.host(dmin), cols.min(0))


@triton.jit
def _hist_gather_kernel(X, S, I, H, G, BINS: tl.constexpr, N: tl.constexpr,
                        M: tl.constexpr, K: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(H + tl.arange(0, BINS), tl.histogram(x, BINS))
    rows = tl.arange(0, M)[:, None]
    src = tl.load(S + rows * N + tl.arange(0, N)[None, :])
    idx = tl.load(I + rows * K + tl.arange(0, K)[None, :])
    tl.store(G + rows * K + tl.arange(0, K)[None, :], tl.gather(src, idx, 1))


def test_histogram_and_gather(dev, path, rng):
    """tl.histogram and tl.gather (bit-exact); on the Tile path both are one-hot compares with
    a reduce. (Values outside the bins: tests/language, on the CPU paths that define them.)"""
    bins, n, m, k = 32, 1024, 16, 8
    x = rng.integers(0, bins, size=n).astype(np.int32)
    src = numpy_random((m, n), "float32", rng)
    idx = rng.integers(0, n, size=(m, k)).astype(np.int32)
    dh, dg = dev.to(poisoned(bins, "int32")), dev.to(poisoned((m, k), "float32"))
    kern = dev.launch(_hist_gather_kernel, (1,), dev.to(x), dev.to(src), dev.to(idx), dh, dg,
                      BINS=bins, N=n, M=m, K=k)
    assert kern.metadata.path == path  # no fallback: our Tile IR lowering
    inside = (x >= 0) & (x < bins)
    np.testing.assert_array_equal(dev.host(dh), np.bincount(x[inside], minlength=bins))
    np.testing.assert_array_equal(dev.host(dg), np.take_along_axis(src, idx, 1))


def test_layer_norm(dev, path, rng):
    M, N = 37, 1151
    x = (numpy_random((M, N), "float32", rng) * 2 + 0.5).astype(np.float16)
    w = rng.random(N).astype(np.float16)
    b = rng.random(N).astype(np.float16)
    mod = example("layer_norm")
    dy, dmean, drstd = (dev.to(poisoned((M, N), "float16")), dev.to(poisoned(M, "float32")),
                        dev.to(poisoned(M, "float32")))
    dev.launch(mod.layer_norm_fwd_kernel, (M,), dev.to(x), dy, dev.to(w), dev.to(b), dmean,
               drstd, N, N, 1e-5, BLOCK_SIZE=256)
    y_ref, mean_ref, rstd_ref = mod.reference(x, w, b)
    np.testing.assert_allclose(dev.host(dy).astype(np.float64), y_ref, rtol=4e-3, atol=4e-3)
    np.testing.assert_allclose(dev.host(dmean), mean_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dev.host(drstd), rstd_ref, rtol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_attention(causal, dev, path, rng):
    Z, H, n_ctx, d = 1, 2, 256, 64
    q, k, v = (numpy_random((Z, H, n_ctx, d), "float16", rng) for _ in range(3))
    mod = example("fused_attention")
    do = dev.to(poisoned((Z, H, n_ctx, d), "float16"))
    dm = dev.to(poisoned((Z, H, n_ctx), "float32"))
    st = [H * n_ctx * d, n_ctx * d, d, 1]
    dev.launch(mod.attn_fwd_kernel, (triton.cdiv(n_ctx, 64), Z * H, 1), dev.to(q), dev.to(k),
               dev.to(v), 0.5, dm, do, *st, *st, *st, *st, H, n_ctx, HEAD_DIM=d, BLOCK_M=64,
               BLOCK_N=32, CAUSAL=causal)
    o_ref, m_ref = mod.reference(q, k, v, causal, 0.5)
    np.testing.assert_allclose(dev.host(do).astype(np.float64), o_ref, rtol=5e-3, atol=5e-3)
    np.testing.assert_allclose(dev.host(dm), m_ref, rtol=1e-4, atol=1e-4)


# --- what only a GPU has ----------------------------------------------------------------------


def test_runs_on_the_current_torch_stream(cuda_dev, path, rng):
    dev = cuda_dev
    import torch

    n = 1 << 20
    x = numpy_random(n, "float32", rng)
    dx, dout = dev.to(x), dev.to(poisoned(n, "float32"))
    add = example("vector_add").add_kernel
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        dx.mul_(2)  # ordered before the kernel only on this stream
        add[(triton.cdiv(n, 1024),)](dx, dx, dout, n, BLOCK_SIZE=1024)
    s.synchronize()
    np.testing.assert_array_equal(dout.cpu().numpy(), 4 * x)


def test_cupy_arrays(cuda_dev, path, rng):
    cp = pytest.importorskip("cupy")
    n = 5000
    x = numpy_random(n, "float32", rng)
    cx, cout = cp.asarray(x), cp.full(n, cp.nan, dtype=cp.float32)
    example("vector_add").add_kernel[(triton.cdiv(n, 1024),)](cx, cx, cout, n, BLOCK_SIZE=1024)
    cp.cuda.get_current_stream().synchronize()
    np.testing.assert_array_equal(cp.asnumpy(cout), 2 * x)


def test_mixing_host_and_device_arrays_is_a_type_error(cuda_dev, path):
    dev = cuda_dev
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="add_kernel: argument 'x_ptr' is in host memory but "
                                        "argument 'y_ptr' is on CUDA device 0"):
        example("vector_add").add_kernel[(1,)](x, dev.to(x), dev.to(x), 8, BLOCK_SIZE=1024)


@triton.jit
def _device_descriptor_copy(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # tl.make_tensor_descriptor on the device: stock Triton asks the allocator for the
    # descriptor's global scratch.
    xd = tl.make_tensor_descriptor(X, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    yd = tl.make_tensor_descriptor(Y, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    yd.store([pm * BM, pn * BN], xd.load([pm * BM, pn * BN]) * 2.0)


def test_device_tensor_descriptor_with_allocator(cuda_dev, path, rng):
    dev = cuda_dev
    import torch

    asked = []

    def alloc(size, alignment, stream):
        asked.append(size)
        return torch.empty(size, dtype=torch.int8, device="cuda")

    triton.set_allocator(alloc)
    m, n = 96, 160
    x = numpy_random((m, n), "float32", rng)
    dx, dy = dev.to(x), dev.to(poisoned((m, n), "float32"))
    k = dev.launch(_device_descriptor_copy, (m // 32, n // 32), dx, dy, m, n, BM=32, BN=32)
    check_path(k, path)
    np.testing.assert_array_equal(dev.host(dy), x * 2)
    if k.metadata.path == "ptx":
        assert asked, "stock Triton never asked the allocator set through triton_tile"


def test_warmup_compiles_every_stage(cuda_dev, path, rng):
    dev = cuda_dev
    x = numpy_random(1000, "float32", rng)
    dx, dy, dout = dev.to(x), dev.to(x), dev.to(poisoned(1000, "float32"))
    add = example("vector_add").add_kernel
    k = add.warmup(dx, dy, dout, 1000, BLOCK_SIZE=256, grid=(4,))
    stages = {"tile": ("ttir", "tileir", "tilebc", "cubin"),
              "ptx": ("ttir", "ttgir", "llir", "ptx", "cubin")}[k.metadata.path]
    assert all(k.asm.get(s) for s in stages), sorted(k.asm)
    import torch

    torch.cuda.synchronize()
    assert np.isnan(dev.host(dout)).all()  # a warmup runs nothing


@triton.jit
def _bad_callee(x):
    return tl.not_a_function(x)  # a compile error, two calls deep


@triton.jit
def _bad_kernel(X, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, _bad_callee(X + offs))


def test_compile_error_names_the_user_source(cuda_dev, path):
    dev = cuda_dev
    import inspect

    x = dev.to(np.zeros(64, np.float32))
    with pytest.raises(triton.CompilationError) as e:
        _bad_kernel[(1,)](x, 64, BLOCK=64)
    _, callee_line = inspect.getsourcelines(_bad_callee.fn)
    _, kernel_line = inspect.getsourcelines(_bad_kernel.fn)
    msg = str(e.value)
    # (getsourcelines starts at the decorator)
    assert f"{__file__}:{callee_line + 2}:" in msg, msg  # the line of tl.not_a_function
    assert f"{__file__}:{kernel_line + 3}:" in msg, msg  # the call site in the kernel
