"""Repeats the CAS retry-loop kernel (tests/tt_utils.py) on a GPU, through our PTX path, our
Tile path and stock Triton's own launch, to find which one hangs (faulthandler dumps every
thread's stack and exits after --timeout seconds without progress).

    python benchmarks/cas_hang.py [--reps 200] [--timeout 20] [--paths ptx,tile,stock]
"""

import argparse
import faulthandler
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--paths", default="ptx,tile,stock")
    args = ap.parse_args()
    import torch
    from tt_utils import cas_counter_kernel

    from triton_tile.backends import ptx_gpu

    twin = ptx_gpu.twin_of(cas_counter_kernel)
    for path in args.paths.split(","):
        t0 = time.perf_counter()
        for i in range(args.reps):
            faulthandler.dump_traceback_later(args.timeout, exit=True)
            z = torch.zeros(1, dtype=torch.int32, device="cuda")
            if path == "stock":
                twin[(32,)](z, ITERS=20, COUNTERS=1)
            else:
                cas_counter_kernel[(32,)](z, ITERS=20, COUNTERS=1, enable_tile=path == "tile")
            torch.cuda.synchronize()
            assert z.item() == 640, (path, i, z.item())
        faulthandler.cancel_dump_traceback_later()
        print(f"{path}: {args.reps} launches ok in {time.perf_counter() - t0:.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
