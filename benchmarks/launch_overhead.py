"""Host launch overhead of a cached kernel: triton_tile's Tile path and PTX path vs stock
Triton's own launcher, on a GPU.

    python benchmarks/launch_overhead.py [--launches 20000]
    TRITON_TILE_TARGET=sm_90 python benchmarks/launch_overhead.py --aot     # compile only

A 1-block vector add (n = 1024) is launched many times in a loop after warm-up; the host time
per launch (perf_counter around the loop, before synchronizing; the paths interleaved, best of
five rounds) is what binding, specialization, cache lookup and the driver call cost. The GPU
time of the kernel itself is a few microseconds, so the queue never fills and the host time is
the launch path's.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gpu_bench import example  # noqa: E402  (puts the checkout on sys.path)

N = 1024


def per_launch_us(runs: dict, launches: int, rounds: int = 5) -> dict:
    """Best microseconds per launch of each function over `rounds` rounds, the functions
    interleaved within each round: the host's speed drifts between seconds (one H200 host on
    2026-11-22 ran stock Triton at 18.3 and 12.5 us a few seconds apart), and a drift must not
    favour one path."""
    import torch

    for fn in runs.values():
        for _ in range(200):
            fn()
    torch.cuda.synchronize()
    best = {name: float("inf") for name in runs}
    for _ in range(rounds):
        for name, fn in runs.items():
            t0 = time.perf_counter()
            for _ in range(launches):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t0) / launches * 1e6)
            torch.cuda.synchronize()
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--aot", action="store_true", help="only compile the Tile kernel")
    ap.add_argument("--profile", action="store_true",
                    help="also print each path's cProfile (the functions by own time)")
    args = ap.parse_args(argv)
    add = example("vector_add").add_kernel
    if args.aot:
        import numpy as np

        add.warmup(np.float32, np.float32, np.float32, N, grid=(1,), BLOCK_SIZE=1024,
                   enable_tile=True)
        return 0
    import torch
    import triton

    from triton_tile.backends import ptx_gpu

    x, y = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
    out = torch.empty_like(x)
    twin = ptx_gpu.twin_of(add)
    runs = {
        "triton_tile, Tile path (cubin via _core.CudaKernel)":
            lambda: add[(1,)](x, y, out, N, BLOCK_SIZE=1024, enable_tile=True),
        "triton_tile, PTX path (delegates to stock Triton)":
            lambda: add[(1,)](x, y, out, N, BLOCK_SIZE=1024),
        f"stock Triton {triton.__version__}, its own launcher":
            lambda: twin[(1,)](x, y, out, N, BLOCK_SIZE=1024),
    }
    k = add[(1,)](x, y, out, N, BLOCK_SIZE=1024, enable_tile=True)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y), "wrong result"
    print(f"host launch overhead per cached launch, best of 5 interleaved loops of "
          f"{args.launches} (Tile run took path={k.metadata.path}):")
    for name, us in per_launch_us(runs, args.launches).items():
        print(f"  {us:7.2f} us  {name}", flush=True)
    if args.profile:
        for name, fn in runs.items():
            profile(name, fn, args.launches)
    return 0


def profile(name: str, fn, launches: int) -> None:
    """cProfile of `launches` launches: where the host time goes, function by function."""
    import cProfile
    import io
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(launches):
        fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(18)
    print(f"\n--- {name}: cProfile of {launches} launches ---")
    print("\n".join(out.getvalue().splitlines()[4:]), flush=True)


if __name__ == "__main__":
    sys.exit(main())
