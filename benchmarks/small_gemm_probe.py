"""Is a small GEMM row the kernel's time or the host's? The 512^3 and 1024^3 fp16 matmuls.

    python benchmarks/small_gemm_probe.py     # a GPU machine with tileiras and stock Triton

The table times each side with do_bench (a 256 MB cache clear before each launch). A 512^3
matmul runs for a few microseconds, about what a Python launch costs, so a slow host can show
in that time. For each side's table config (and each config on the other side too) this prints,
in one process:
  - do_bench's median (the table's timing),
  - do_bench_cudagraph's median (the launches captured in a CUDA graph: no host in the timing),
  - the host's microseconds per launch with the table's keywords (a loop of 2000 launches timed
    by perf_counter before synchronizing),
for the Tile path, stock Triton and torch (cuBLAS). Where do_bench's time is the graph's, the
kernel decides the row; where it is the host's, the launch does.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

_SMALL = dict(num_warps=4, num_stages=3)
# size -> (side, config): each side's winner in the H200 table of 2026-11-30 06:00, and each
# run on the other side too.
CONFIGS = {
    512: [("tile", dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=128, occupancy=1, **_SMALL)),
          ("tile", dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, occupancy=1, **_SMALL)),
          ("stock", dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, **_SMALL)),
          ("stock", dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=128, **_SMALL))],
    1024: [("tile", dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=128, occupancy=1, **_SMALL)),
           ("stock", dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, num_warps=4, num_stages=4)),
           ("stock", dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=128, **_SMALL))],
}


def _times(fn, check=None) -> tuple:
    """(do_bench ms, do_bench_cudagraph ms or None, host us per launch, check's error)."""
    import torch
    from triton.testing import do_bench, do_bench_cudagraph

    fn()
    torch.cuda.synchronize()
    err = check() if check else 0.0
    ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
    try:
        graph = do_bench_cudagraph(fn, rep=100, return_mode="median")
    except Exception as e:  # a launch that cannot be captured: say so, keep the rest
        print(f"  cudagraph: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr, flush=True)
        graph = None
    host = float("inf")
    for _ in range(3):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(2000):
            fn()
        host = min(host, (time.perf_counter() - t0) / 2000 * 1e6)
        torch.cuda.synchronize()
    return ms, graph, host, err


def main() -> int:
    import torch

    t = gb.Tensors(aot=False)
    print(f"{torch.cuda.get_device_name()}; torch {torch.__version__}")
    rows = []
    for size, configs in CONFIGS.items():
        case = gb.matmul(t, size, "float16")
        for side, config in configs:
            meta = dict(case.meta, **config)
            launch = gb.launcher(case, stock=side == "stock")
            grid = gb._grid(case, meta)
            gb._poison(case)
            ms, graph, host, err = _times(lambda f=launch, g=grid, m=meta: f(g, m), case.check)
            rows.append((f"{size}^3", gb.probe_config_name(side, config), ms, graph, host, err))
            print("  ", rows[-1], file=sys.stderr, flush=True)
        ms, graph, host, _ = _times(case.torch_fn)
        rows.append((f"{size}^3", "torch (cuBLAS)", ms, graph, host, 0.0))
        del case
        torch.cuda.empty_cache()
    print("| size | side (config) | do_bench us | CUDA graph us | host us per launch | "
          "max rel err |")
    print("|---|---|---|---|---|---|")
    for size, name, ms, graph, host, err in rows:
        g = f"{graph * 1e3:.1f}" if graph is not None else "-"
        print(f"| {size} | {name} | {ms * 1e3:.1f} | {g} | {host:.1f} | {err:.1e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
