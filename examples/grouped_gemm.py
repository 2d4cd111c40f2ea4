"""Grouped GEMM: several independent matmuls of different sizes in one persistent launch, in the
style of Triton's grouped-GEMM tutorial.

C_g = A_g @ B_g for g < GROUP_SIZE (fp16 inputs, fp32 accumulation, fp16 output). The arrays
themselves are not kernel arguments: the kernel reads each problem's A, B and C addresses from
int64 device arrays (turned back into pointers with `.to(tl.pointer_type(tl.float16))`), its
(M, N, K) and its leading dimensions (row-major, unit inner stride) from int32 arrays.
NUM_PROGRAMS programs (typically one per SM) walk the BLOCK_M x BLOCK_N output tiles of all the
problems in order, each taking every NUM_PROGRAMS-th tile. Rows and columns past a problem's
edge wrap around for the loads and are dropped by the store mask; K need not be a multiple of
BLOCK_K.

What the kernel reads from memory, a compiler cannot know: not the addresses' alignment, not
whether the sizes are multiples of the blocks. Without that, a GPU compiler loads element by
element (stock Triton on an H200: 42 TFLOP/s over 1024^3..4096^3, 518 with EVEN). So the
host checks (whole_tiles) and says so with EVEN=True: every size a multiple of its
block, every address 16-byte aligned, every leading dimension a multiple of 8 elements; the
kernel then drops the masks and the wrap and states the alignment with tl.multiple_of. On the
Tile path the EVEN kernel's K loop reads one view per tile whose base is the tile's corner
(TRITON_TILE_ANCHORED_VIEWS, index_views.h): 567.8 TFLOP/s at 128x256x64, 4 stages, on an
H200, where stock Triton ran 542.1 at its best and torch 631.6 (benchmarks/RESULTS.md,
2026-11-29); a view per K step ran 189-212.

    python examples/grouped_gemm.py
"""

import numpy as np

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def grouped_matmul_kernel(A_PTRS, B_PTRS, C_PTRS, SIZES, LDS, GROUP_SIZE,
                          NUM_PROGRAMS: tl.constexpr, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN: tl.constexpr):
    """SIZES and LDS: [GROUP_SIZE, 3] int32, (M, N, K) and (lda, ldb, ldc) per problem. EVEN:
    the host checked whole_tiles (no edges, aligned rows)."""
    tile = tl.program_id(0)  # this program's next tile, numbered over all the problems
    first = 0  # the number of the current problem's first tile
    for g in range(GROUP_SIZE):
        m = tl.load(SIZES + g * 3)
        n = tl.load(SIZES + g * 3 + 1)
        k = tl.load(SIZES + g * 3 + 2)
        tiles_n = tl.cdiv(n, BLOCK_N)
        end = first + tl.cdiv(m, BLOCK_M) * tiles_n
        while tile >= first and tile < end:
            # (read here, not in a helper: tl.multiple_of on a helper's result marks the call,
            # which inlining drops; stock Triton too then ran 181 TFLOP/s instead of 570, H100)
            a_ptr = tl.load(A_PTRS + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(B_PTRS + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(C_PTRS + g).to(tl.pointer_type(tl.float16))
            lda = tl.load(LDS + g * 3)
            ldb = tl.load(LDS + g * 3 + 1)
            ldc = tl.load(LDS + g * 3 + 2)
            if EVEN:  # 16-byte aligned rows (bytes for pointers, elements for the strides)
                a_ptr = tl.multiple_of(a_ptr, 16)
                b_ptr = tl.multiple_of(b_ptr, 16)
                c_ptr = tl.multiple_of(c_ptr, 16)
                lda = tl.multiple_of(lda, 8)
                ldb = tl.multiple_of(ldb, 8)
                ldc = tl.multiple_of(ldc, 8)
            block_m = (tile - first) // tiles_n
            block_n = (tile - first) % tiles_n
            cm = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
            cn = block_n * BLOCK_N + tl.arange(0, BLOCK_N)
            if EVEN:
                rm, rn = cm, cn
            else:
                rm, rn = cm % m, cn % n
            rk = tl.arange(0, BLOCK_K)
            a_tile = a_ptr + rm[:, None] * lda + rk[None, :]
            b_tile = b_ptr + rk[:, None] * ldb + rn[None, :]
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for kb in range(0, tl.cdiv(k, BLOCK_K)):
                if EVEN:
                    a = tl.load(a_tile)
                    b = tl.load(b_tile)
                else:
                    k_left = k - kb * BLOCK_K
                    a = tl.load(a_tile, mask=rk[None, :] < k_left, other=0.0)
                    b = tl.load(b_tile, mask=rk[:, None] < k_left, other=0.0)
                acc = tl.dot(a, b, acc)
                a_tile += BLOCK_K
                b_tile += BLOCK_K * ldb
            c_tile = c_ptr + cm[:, None] * ldc + cn[None, :]
            if EVEN:
                tl.store(c_tile, acc.to(tl.float16))
            else:
                tl.store(c_tile, acc.to(tl.float16), mask=(cm[:, None] < m) & (cn[None, :] < n))
            tile += NUM_PROGRAMS
        first = end


@triton.jit
def grouped_matmul_desc_kernel(A_PTRS, B_PTRS, C_PTRS, SIZES, LDS, GROUP_SIZE,
                               NUM_PROGRAMS: tl.constexpr, BLOCK_M: tl.constexpr,
                               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """The same walk over the problems' tiles, with each problem's operands as tensor
    descriptors made in the kernel, once per problem (the TMA form of Triton's grouped-GEMM
    tutorial): the descriptors' bounds take the partial tiles, so no masks and no host check.
    Descriptors need 16-byte aligned addresses and leading dimensions (multiples of 8 fp16
    elements); a GPU launch by stock Triton needs triton.set_allocator for them. On the Tile
    path the K loop's loads and the tile store index one view per descriptor, made where it is
    made, once per problem (TRITON_TILE_ANCHORED_VIEWS), and the K loop has one version: its
    tile coordinates are proven in range from the while condition (index_bounds.h). 560.1
    TFLOP/s at 128x128x64, 132 programs and 4 stages on an H200, 627.7 at 128x256x64 and 4
    stages (occupancy 1), where stock Triton ran 571-624 at its best and torch 646-671
    (benchmarks/RESULTS.md, 2026-11-29); a view at each box's corner ran 21.8 on an H100."""
    tile = tl.program_id(0)
    first = 0
    for g in range(GROUP_SIZE):
        m = tl.load(SIZES + g * 3)
        n = tl.load(SIZES + g * 3 + 1)
        k = tl.load(SIZES + g * 3 + 2)
        tiles_n = tl.cdiv(n, BLOCK_N)
        end = first + tl.cdiv(m, BLOCK_M) * tiles_n
        if tile >= first and tile < end:
            a_ptr = tl.load(A_PTRS + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(B_PTRS + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(C_PTRS + g).to(tl.pointer_type(tl.float16))
            lda = tl.load(LDS + g * 3)
            ldb = tl.load(LDS + g * 3 + 1)
            ldc = tl.load(LDS + g * 3 + 2)
            a_desc = tl.make_tensor_descriptor(a_ptr, shape=[m, k], strides=[lda, 1],
                                               block_shape=[BLOCK_M, BLOCK_K])
            b_desc = tl.make_tensor_descriptor(b_ptr, shape=[k, n], strides=[ldb, 1],
                                               block_shape=[BLOCK_K, BLOCK_N])
            c_desc = tl.make_tensor_descriptor(c_ptr, shape=[m, n], strides=[ldc, 1],
                                               block_shape=[BLOCK_M, BLOCK_N])
            while tile >= first and tile < end:
                block_m = (tile - first) // tiles_n
                block_n = (tile - first) % tiles_n
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                for kb in range(0, tl.cdiv(k, BLOCK_K)):
                    a = a_desc.load([block_m * BLOCK_M, kb * BLOCK_K])
                    b = b_desc.load([kb * BLOCK_K, block_n * BLOCK_N])
                    acc = tl.dot(a, b, acc)
                c_desc.store([block_m * BLOCK_M, block_n * BLOCK_N], acc.to(tl.float16))
                tile += NUM_PROGRAMS
        first = end


def _address(x):
    return x.data_ptr() if hasattr(x, "data_ptr") else x.ctypes.data


def _leading(x):
    """The row stride of a row-major 2-D array (numpy or torch), in elements."""
    if hasattr(x, "data_ptr"):
        inner, lead = x.stride(1), x.stride(0)
    else:
        inner, lead = x.strides[1] // x.itemsize, x.strides[0] // x.itemsize
    assert inner == 1, "row-major operands (unit inner stride) only"
    return lead


def group_tables(a_list, b_list, c_list):
    """The kernel's device arrays, as numpy arrays: (a_ptrs, b_ptrs, c_ptrs) int64 [G] and
    sizes, lds int32 [G, 3]. The operands may be numpy arrays (the CPU executors take host
    addresses) or CUDA tensors (then move the tables to the GPU)."""
    sizes, lds = [], []
    for a, b, c in zip(a_list, b_list, c_list):
        (m, k), (k2, n) = a.shape, b.shape
        assert k == k2 and tuple(c.shape) == (m, n), "incompatible shapes"
        sizes.append((m, n, k))
        lds.append((_leading(a), _leading(b), _leading(c)))
    ptrs = [np.array([_address(x) for x in xs], dtype=np.int64) for xs in (a_list, b_list, c_list)]
    return (*ptrs, np.array(sizes, dtype=np.int32), np.array(lds, dtype=np.int32))


def whole_tiles(tables, block_m, block_n, block_k) -> bool:
    """Whether the kernel may run with EVEN=True for these group_tables: every M, N, K a
    multiple of its block, every address 16-byte aligned, every leading dimension a multiple of
    8 elements (16 bytes of fp16)."""
    a_ptrs, b_ptrs, c_ptrs, sizes, lds = tables
    return (all(int(m) % block_m == 0 and int(n) % block_n == 0 and int(k) % block_k == 0
                for m, n, k in sizes)
            and all(int(ld) % 8 == 0 for row in lds for ld in row)
            and all(int(p) % 16 == 0 for t in (a_ptrs, b_ptrs, c_ptrs) for p in t))


def grouped_matmul(a_list, b_list, c_list, num_programs=4, block_m=32, block_n=32, block_k=16):
    """c_list[g] = a_list[g] @ b_list[g] for 2-D fp16 numpy arrays; returns the compiled kernel.
    The tables live until the launch returned (the CPU executors run synchronously)."""
    tables = group_tables(a_list, b_list, c_list)
    return grouped_matmul_kernel[(num_programs,)](
        *tables, len(a_list), NUM_PROGRAMS=num_programs, BLOCK_M=block_m, BLOCK_N=block_n,
        BLOCK_K=block_k, EVEN=whole_tiles(tables, block_m, block_n, block_k))


def grouped_matmul_desc(a_list, b_list, c_list, num_programs=4, block_m=32, block_n=32,
                        block_k=16):
    """grouped_matmul through grouped_matmul_desc_kernel (operands 16-byte aligned, leading
    dimensions multiples of 8)."""
    tables = group_tables(a_list, b_list, c_list)
    return grouped_matmul_desc_kernel[(num_programs,)](
        *tables, len(a_list), NUM_PROGRAMS=num_programs, BLOCK_M=block_m, BLOCK_N=block_n,
        BLOCK_K=block_k)


def reference(a_list, b_list):
    return [a.astype(np.float64) @ b.astype(np.float64) for a, b in zip(a_list, b_list)]


def _path_of(compiled):
    md = getattr(compiled, "metadata", None)
    if isinstance(md, dict):
        return md.get("path")
    return getattr(md, "path", None)


PROBLEMS = [(37, 45, 29), (64, 64, 64), (100, 20, 130), (1, 70, 33)]  # (M, N, K)
EVEN_PROBLEMS = [(64, 32, 48), (32, 96, 16), (96, 64, 80)]  # whole 32x32x16 tiles
# Partial tiles in every dimension, empty problems (no rows: no tiles; K = 0: C is zeros), leading
# dimensions multiples of 8 (the descriptor kernel's)
DESC_PROBLEMS = [(40, 24, 56), (64, 64, 64), (0, 16, 24), (100, 16, 136), (24, 40, 0), (1, 72, 8)]


def _aligned(x):
    """A copy of `x` at a 64-byte aligned address (numpy promises 16 bytes only where its
    allocator happens to), so that EVEN's checks do not depend on the allocator."""
    buf = np.empty(x.nbytes + 64, dtype=np.uint8)
    start = -buf.ctypes.data % 64
    out = buf[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


def check(problems=PROBLEMS, num_programs=5, seed=0, desc=False, **blocks):
    """Returns (correct, max_abs_err, compiled_kernel). Operands 64-byte aligned: problems of
    whole tiles run the EVEN kernel. desc: the descriptor kernel."""
    rng = np.random.default_rng(seed)
    # A row of no columns (K = 0) keeps a leading dimension of 8: numpy gives it 1 element,
    # which breaks a descriptor's 16-byte rule.
    a_list = [_aligned(rng.standard_normal((m, k or 8)).astype(np.float16))[:, :k]
              for m, n, k in problems]
    b_list = [_aligned(rng.standard_normal((k, n)).astype(np.float16)) for m, n, k in problems]
    c_list = [_aligned(np.full((m, n), np.nan, dtype=np.float16)) for m, n, k in problems]
    run = grouped_matmul_desc if desc else grouped_matmul
    compiled = run(a_list, b_list, c_list, num_programs, **blocks)
    err, ok = 0.0, True
    for c, ref in zip(c_list, reference(a_list, b_list)):
        got = c.astype(np.float64)
        err = max(err, float(np.max(np.abs(got - ref), initial=0.0)))
        # products of fp16 are exact in fp32: the error is fp32 summation + fp16 rounding
        ok = ok and bool(np.allclose(got, ref, rtol=2e-3, atol=2e-3))
    return ok, err, compiled


def demo(quick=False):
    sizes = (64, 96, 128) if quick else (128, 256, 384, 512)
    problems = [(s, s, s) for s in sizes]
    correct, err, compiled = check(problems)
    rng = np.random.default_rng(1)
    a_list = [rng.standard_normal((s, s)).astype(np.float16) for s in sizes]
    b_list = [rng.standard_normal((s, s)).astype(np.float16) for s in sizes]
    c_list = [np.empty((s, s), dtype=np.float16) for s in sizes]
    ms = triton.testing.do_bench(lambda: grouped_matmul(a_list, b_list, c_list),
                                 warmup=10 if quick else 25, rep=50 if quick else 200)
    gflops = sum(2 * s ** 3 for s in sizes) / (ms * 1e-3) / 1e9
    return {"kernel": "grouped_gemm", "size": "+".join(f"{s}^3" for s in sizes) + " fp16",
            "correct": correct, "ms": ms, "metric": gflops, "unit": "GFLOP/s",
            "path": _path_of(compiled), "max_err": err}


if __name__ == "__main__":
    r = demo()
    print(f"grouped_gemm {r['size']}: correct={r['correct']} (max err {r['max_err']:.2e}), "
          f"{r['ms']:.3f} ms, {r['metric']:.1f} {r['unit']}")
