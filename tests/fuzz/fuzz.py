"""Run generated kernels on both CPU executors (or on a GPU) against their numpy models.

    python tests/fuzz/fuzz.py --seed 0 --count 500              # CPU: the ptx and tile paths
    python tests/fuzz/fuzz.py --seed 0 --count 500 --device cuda  # GPU: Tile vs stock Triton

Prints each divergence (the case's source, grid and inputs' shapes, and what differed) and a
summary; exit status 1 when any case diverged.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402


def cuda_factory():
    """(array_factory, to_host) moving numpy arrays to CUDA torch tensors and back; bf16
    travels as its bits (torch cannot take ml_dtypes arrays)."""
    import torch

    def to_device(a: np.ndarray):
        if a.dtype == gen._BF16:
            return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16).cuda()
        return torch.from_numpy(a.copy()).cuda()

    def to_host(t):
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).cpu().numpy().view(gen._BF16)
        return t.cpu().numpy()

    return to_device, to_host


def fuzz(seed: int, count: int, paths, device: str = "cpu", budget_s: float = 0.0,
         verbose: bool = False, directory=None, exclude=()) -> dict:
    """Run `count` cases from `seed` on; stop early once `budget_s` seconds (if > 0) passed.
    Cases whose kind starts with one of `exclude` are generated but not run. Returns counts
    and the divergences as (seed, path, what, source)."""
    factory, to_host = (lambda a: a), np.asarray
    if device == "cuda":
        factory, to_host = cuda_factory()
    tmp = directory or tempfile.mkdtemp(prefix="tt_fuzz_")
    start = time.time()
    ran, divergences, fallbacks, kinds, last = 0, [], 0, {}, seed - 1
    for s in range(seed, seed + count):
        if budget_s and time.time() - start > budget_s:
            break
        last = s
        case = gen.generate(s)
        if any(case.kind.startswith(e) for e in exclude):
            continue
        kernel = gen.load_kernel(case, tmp)
        ran += 1
        kinds[case.kind.split("-")[0]] = kinds.get(case.kind.split("-")[0], 0) + 1
        for path in paths:
            why, taken = gen.run_case(case, kernel, path, factory, to_host)
            if path == "tile" and taken != "tile":
                fallbacks += 1
            if why is not None:
                divergences.append((s, path, why, case.describe()))
                if verbose:
                    print(f"--- DIVERGENCE seed {s} path {path} (taken {taken}): {why}\n"
                          f"{case.describe()}", flush=True)
    return {"generated": ran, "divergences": divergences, "tile_fallbacks": fallbacks,
            "kinds": kinds, "seconds": time.time() - start, "last_seed": last}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--paths", default="ptx,tile")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--budget", type=float, default=0.0, help="stop after this many seconds")
    ap.add_argument("--exclude", default="", help="kinds not to run, e.g. tiles-desc,atomic")
    args = ap.parse_args(argv)
    r = fuzz(args.seed, args.count, args.paths.split(","), args.device, args.budget,
             verbose=True, exclude=tuple(e for e in args.exclude.split(",") if e))
    print(f"generated {r['generated']} kernels (seeds {args.seed}..{r['last_seed']}, "
          f"{r['kinds']}) on {args.device}, paths {args.paths}: {len(r['divergences'])} "
          f"divergence(s), {r['tile_fallbacks']} Tile-path fallback(s), {r['seconds']:.1f} s")
    return 1 if r["divergences"] else 0


if __name__ == "__main__":
    sys.exit(main())
