"""Worker warps against register spills in large matmul tiles: the table's matmul at a few
(block, occupancy, worker warps) points on the Tile path, beside stock Triton's best config,
do_bench medians in one process.

    python benchmarks/ww_probe.py [--size 4096] [--dtype float16]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_bench as gb  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--dtype", default="float16")
    args = ap.parse_args()
    import torch
    from triton.testing import do_bench

    from triton_tile.backends import ptx_gpu

    case = gb.matmul(gb.Tensors(False), args.size, args.dtype)
    twin = ptx_gpu.twin_of(case.kernel)
    points = [("tile 128x128x64 default", dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64), "auto"),
              ("tile 128x128x64 ww8", dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64), "on"),
              ("tile 128x256x64 occ1", dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64,
                                            occupancy=1), "auto"),
              ("tile 128x256x64 occ1 ww8", dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64,
                                                occupancy=1), "on"),
              ("tile 256x128x64 occ1 ww8", dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=64,
                                                occupancy=1), "on")]
    flops = case.work
    for name, over, ww in points:
        os.environ["TRITON_TILE_WORKER_WARPS"] = ww
        meta = dict(case.meta, enable_tile=True, num_warps=8, **over)
        fn = lambda m=meta: case.kernel[gb._grid(case, m)](*gb.case_args(case, m), **m)  # noqa: E731
        fn()
        torch.cuda.synchronize()
        err = case.check()
        ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
        print(f"{name:28} {flops / ms / 1e9:8.1f} TFLOP/s  err {err:.1e}", flush=True)
    meta = dict(case.meta, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8, num_stages=3)
    fn = lambda: twin[gb._grid(case, meta)](*gb.case_args(case, meta), **meta)  # noqa: E731
    ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
    print(f"{'stock 128x256x64 nw8 ns3':28} {flops / ms / 1e9:8.1f} TFLOP/s", flush=True)
    ms = do_bench(case.torch_fn, warmup=25, rep=200, return_mode="median")
    print(f"{'torch (cuBLAS)':28} {flops / ms / 1e9:8.1f} TFLOP/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
