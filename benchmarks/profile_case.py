"""One benchmark case launched once on each path, for a profiler to compare them.

    ncu --clock-control none --nvtx --nvtx-include profiled/ \\
        python3 benchmarks/profile_case.py layer_norm [--occupancy 4] [--env K=V ...]

Builds the first case of a gpu_bench family (`--index` picks another), launches it once on the
Tile path and once through stock Triton (warm-up: both compile and load), synchronizes, then
launches each once more, inside an NVTX range named "profiled": under ncu with `--nvtx
--nvtx-include profiled/` the two profiled kernels are the Tile one, then stock Triton's (not
the kernels that made the inputs). Without ncu it prints both times (events around one launch),
which is only a sanity check: the benchmark's medians are in run_all.py. A case with `before`
launches (attention_bwd's preprocess) launches them ahead of its kernel on each side: let -k's
regex name the kernel.

`--torch` runs what a torch user runs instead (the case's torch_fn: cuBLAS, sdpa, ...), once to
warm up and once more in the range.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_bench as gb  # noqa: E402


def _int_pairs(pairs) -> dict:
    """["K=V", ...] with int values, as --tile and --stock take them."""
    return {k: int(v) for k, v in (kv.split("=", 1) for kv in pairs)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("family", choices=gb.FAMILIES)
    ap.add_argument("--index", type=int, default=0, help="which case of the family")
    ap.add_argument("--occupancy", type=int, help="the Tile launch's occupancy hint")
    ap.add_argument("--env", nargs="*", default=[], help="K=V knobs for the Tile compile")
    ap.add_argument("--tile", nargs="*", default=[],
                    help="K=V (ints) over the case's meta for the Tile launch alone")
    ap.add_argument("--stock", nargs="*", default=[],
                    help="K=V (ints) over the case's meta for stock Triton alone, e.g. its best "
                         "config from run_all.py --versus: num_warps=8 num_stages=2")
    ap.add_argument("--torch", action="store_true",
                    help="run the case's torch function instead of the two paths")
    ap.add_argument("--copy", action="store_true",
                    help="run a copy of the case's bytes through a torch kernel (torch.neg: half "
                         "read, half written; GB/s cases) instead of the two paths: the "
                         "memory limit at this size")
    args = ap.parse_args(argv)
    import torch

    for kv in args.env:
        k, _, v = kv.partition("=")
        os.environ[k] = v
    case = gb.cases(gb.Tensors(aot=False), False, [args.family])[args.index]()
    meta = dict(case.meta, **_int_pairs(args.tile))
    if args.occupancy:
        meta["occupancy"] = args.occupancy
    stock_meta = dict(case.meta, **_int_pairs(args.stock))
    if args.copy:
        if case.unit != "GB/s":
            ap.error(f"{case.name} is not a GB/s case")
        # (a kernel: copy_ between like tensors is a cudaMemcpy, which ncu does not profile)
        src = torch.randn(int(case.work) // 8, device="cuda")
        dst = torch.empty_like(src)
        runs = {"copy": lambda: torch.neg(src, out=dst)}
    elif args.torch:
        if case.torch_fn is None:
            ap.error(f"{case.name} has no torch function")
        runs = {"torch": case.torch_fn}
    else:
        tile, stock = gb.launcher(case, stock=False), gb.launcher(case, stock=True)
        runs = {"tile": lambda: tile(gb._grid(case, meta), meta),
                "stock": lambda: stock(gb._grid(case, stock_meta), stock_meta)}
    for run in runs.values():  # compile and load outside the profiled launches
        run()
    torch.cuda.synchronize()
    for name, run in runs.items():
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.nvtx.range_push("profiled")  # ncu --nvtx --nvtx-include profiled/
        start.record()
        run()
        end.record()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        print(f"{case.name} {case.label} {name}: {start.elapsed_time(end):.3f} ms (one launch)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
