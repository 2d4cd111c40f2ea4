"""Persistent matmul through tensor descriptors (TMA), in the style of Triton's tutorial 09.

Host `TensorDescriptor`s carry A, B and C; an autotune `pre_hook` sets each descriptor's
block shape from the chosen config (the `tma_set_block_size_hook` pattern), and, as NVIDIA
advises for 2-CTA MMA on Blackwell, halves the persistent grid when a config asks for
`num_ctas=2`. Configs also tune `occupancy`, the Tile IR knob. On the Tile IR path every
descriptor access is a view; on the PTX-style path a masked pointer tile.

    python examples/matmul_tma.py
"""

import numpy as np

import triton_tile as triton
import triton_tile.language as tl
from triton_tile.tools.tensor_descriptor import TensorDescriptor


def _is_blackwell() -> bool:
    try:
        target = triton.runtime.driver.active.get_current_target()
        return target.backend == "cuda" and target.arch >= 100
    except Exception:  # no GPU driver: the CPU
        return False


def tma_set_block_size_hook(nargs):
    bm, bn, bk = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bk, bn]
    nargs["c_desc"].block_shape = [bm, bn]
    if nargs.get("num_ctas", 1) > 1 and _is_blackwell():
        nargs["NUM_SMS"] = max(1, nargs["NUM_SMS"] // nargs["num_ctas"])


def configs(pre_hook=tma_set_block_size_hook):
    return [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk}, num_stages=3,
                          num_warps=8, occupancy=occ, num_ctas=ctas, pre_hook=pre_hook)
            for bm, bn, bk, occ, ctas in [(64, 64, 32, 1, 1), (128, 64, 32, 2, 1),
                                          (128, 128, 64, 1, 2)]]


@triton.jit
def _tile_coords(tile, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    """Output tile `tile` in grouped order, as tutorial 09's _compute_pid: column by column
    within groups of GROUP_M tile rows, so the tiles that run together share rows of A and
    columns of B in L2. A tile number past the last tile (a grid larger than the tiles) gets a
    row or a column past the last: its loads read zeros and its store is dropped, as in row
    order. (Without the max, such a program took a remainder by zero: an illegal instruction on
    an H100.)"""
    per_group = GROUP_M * tiles_n
    first_m = (tile // per_group) * GROUP_M
    rows = tl.maximum(tl.minimum(tiles_m - first_m, GROUP_M), 1)
    return first_m + (tile % per_group) % rows, (tile % per_group) // rows


@triton.autotune(configs=configs(), key=["M", "N", "K"])
@triton.jit
def matmul_tma_kernel(a_desc, b_desc, c_desc, M, N, K, NUM_SMS,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr = 8):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    # Persistent: each program walks output tiles NUM_SMS apart.
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS):
        block_m, block_n = _tile_coords(tile, tiles_m, tiles_n, GROUP_M)
        off_m = block_m * BLOCK_M
        off_n = block_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kt in range(k_tiles):
            a = a_desc.load([off_m, kt * BLOCK_K])
            b = b_desc.load([kt * BLOCK_K, off_n])
            acc = tl.dot(a, b, acc)
        c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@triton.jit
def matmul_desc_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr = 1):
    """The same product, one output tile per program (not persistent). Tiles go row by row
    unless GROUP_M > 1: at 4096^3 on an H100, groups of 8 rows made the Tile path slower
    (628.1 -> 591.1 TFLOP/s) where they lift the persistent kernel (593.8 -> 648.2)."""
    block_m, block_n = _tile_coords(tl.program_id(0), tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N),
                                    GROUP_M)
    off_m = block_m * BLOCK_M
    off_n = block_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kt in range(tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, kt * BLOCK_K])
        b = b_desc.load([kt * BLOCK_K, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


def matmul(a, b, num_sms=4):
    """a @ b (fp16 or fp32 inputs, output in a's dtype); out-of-range tiles read zeros."""
    M, K = a.shape
    _, N = b.shape
    c = np.full((M, N), np.nan, dtype=a.dtype)
    dummy = [16, 16]  # set by the pre_hook from each config
    a_desc = TensorDescriptor.from_tensor(a, dummy)
    b_desc = TensorDescriptor.from_tensor(b, dummy)
    c_desc = TensorDescriptor.from_tensor(c, dummy)

    def grid(meta):
        tiles = triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])
        return (min(meta["NUM_SMS"], tiles),)

    compiled = matmul_tma_kernel[grid](a_desc, b_desc, c_desc, M, N, K, num_sms)
    return c, compiled


def check(M=200, N=136, K=96, dtype=np.float16, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c, compiled = matmul(a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.max(np.abs(c.astype(np.float64) - ref)))
    return bool(err <= 5e-2 * np.sqrt(K)), err, compiled


def check_tiles(M=200, N=136, K=96, block=(64, 32, 32), dtype=np.float16, seed=0, group_m=1,
                extra_programs=0):
    """matmul_desc_kernel against numpy (float64); edge tiles read zeros and are not written."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c = np.full((M, N), np.nan, dtype=dtype)
    bm, bn, bk = block
    descs = [TensorDescriptor.from_tensor(x, s)
             for x, s in ((a, [bm, bk]), (b, [bk, bn]), (c, [bm, bn]))]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn) + extra_programs,)
    compiled = matmul_desc_kernel[grid](*descs, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                        GROUP_M=group_m)
    err = float(np.max(np.abs(c.astype(np.float64) - a.astype(np.float64) @ b)))
    return bool(err <= 5e-2 * np.sqrt(K)), err, compiled


def demo(quick=False):
    size = 256 if quick else 512
    correct, err, compiled = check(size, size, size)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    ms = triton.testing.do_bench(lambda: matmul(a, b), warmup=1, rep=5 if quick else 50)
    return {"kernel": "matmul_tma", "size": f"{size}^3 fp16", "correct": correct,
            "ms": ms, "metric": 2.0 * size ** 3 / (ms * 1e-3) / 1e9, "unit": "GFLOP/s",
            "path": compiled.metadata.path, "max_err": err}


if __name__ == "__main__":
    ok, err, k = check()
    print(f"matmul_tma: {'ok' if ok else 'WRONG'} (max error {err:.3g}), path {k.metadata.path},"
          f" best config {matmul_tma_kernel.best_config}")
