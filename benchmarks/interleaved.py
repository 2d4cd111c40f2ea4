"""The CPU executors vs numpy, measured call by call in turn, for a noisy shared machine.

    python benchmarks/interleaved.py [--only vector_add softmax] [--rounds 30] [--threads 1]

run_all.py times each column in its own block of calls, so a burst of load from another process
lands on one column and skews its ratio. Here every round calls the PTX-style path, the Tile
path and numpy once each, in turn, so load hits them alike; the table gives the median and the
minimum (the least disturbed call) of each, and the ratios of the medians.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SCRIPTS = ["vector_add", "softmax", "matmul", "layer_norm"]


def measure(mod, rounds: int) -> dict:
    """{column: [milliseconds per round]} for ptx, tile and numpy."""
    import numpy as np

    state = mod.setup(mod.FULL)
    ours, ref = mod.ours(state), mod.numpy_ref(state)
    paths = {"ptx": "0", "tile": "1"}
    for flag in paths.values():  # compile both paths and warm up
        os.environ["ENABLE_TILE"] = flag
        if not mod.check(state):
            raise SystemExit(f"{mod.NAME}: wrong result with ENABLE_TILE={flag}")
        ours()
    times = {"ptx": [], "tile": [], "numpy": []}
    for _ in range(rounds):
        for col in times:
            if col in paths:
                os.environ["ENABLE_TILE"] = paths[col]
            fn = ref if col == "numpy" else ours
            t0 = time.perf_counter()
            fn()
            times[col].append((time.perf_counter() - t0) * 1e3)
    return {col: (float(np.median(v)), float(np.min(v))) for col, v in times.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", choices=SCRIPTS)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--threads", type=int, help="TRITON_TILE_NUM_THREADS for the executors")
    args = ap.parse_args(argv)
    if args.threads:
        os.environ["TRITON_TILE_NUM_THREADS"] = str(args.threads)
    import importlib

    saved = os.environ.get("ENABLE_TILE")
    print(f"{'kernel':22} {'ptx ms (min)':>16} {'tile ms (min)':>16} {'numpy ms (min)':>16} "
          f"{'numpy/ptx':>9} {'numpy/tile':>10}")
    try:
        for name in args.only or SCRIPTS:
            mod = importlib.import_module(name)
            r = measure(mod, args.rounds)
            cells = "".join(f"{r[c][0]:>9.3f} ({r[c][1]:.2f})".rjust(17)
                            for c in ("ptx", "tile", "numpy"))
            print(f"{mod.NAME:22}{cells} {r['numpy'][0] / r['ptx'][0]:>9.2f}x"
                  f" {r['numpy'][0] / r['tile'][0]:>9.2f}x")
    finally:
        if saved is None:
            os.environ.pop("ENABLE_TILE", None)
        else:
            os.environ["ENABLE_TILE"] = saved
    return 0


if __name__ == "__main__":
    sys.exit(main())
