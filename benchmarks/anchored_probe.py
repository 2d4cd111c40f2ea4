"""Views made where their tensor is defined (TRITON_TILE_ANCHORED_VIEWS) against a view per access.

    python benchmarks/anchored_probe.py [--only grouped|attention]   # a GPU machine with tileiras

A grouped GEMM makes each problem's tensors (a descriptor, or a pointer and a leading dimension
read from a table) inside its loop over the problems, and the persistent attention backward
offsets its tensors per work item. Their loads were views made at each access inside the K loop,
whose tensor maps tileiras builds every iteration (grouped GEMM 0.23x and 0.04x stock Triton,
the persistent attention backward 0.40x; benchmarks/RESULTS.md, 2026-11-27). With the knob on, a
loop's accesses index one view made where its base, strides and shape are defined: once per
problem, tile or work item (index_views.h). This probe times both forms of each kernel on the
Tile path (occupancy 1; a config tileiras cannot assemble shows its error, since
TRITON_TILE_FALLBACK=error here), stock Triton beside them, in one process (do_bench medians,
TFLOP/s, outputs checked against torch). Run it after `STEPS=none benchmarks/gpu_run.sh`.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

_GROUPED = [dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=k, NUM_PROGRAMS=p, num_warps=w, num_stages=s)
            for m, n, k, p, w, s in ((128, 128, 32, 132, 4, 3), (128, 128, 64, 264, 8, 3),
                                     (64, 128, 32, 264, 4, 4), (128, 256, 64, 132, 8, 3),
                                     (128, 128, 64, 132, 8, 4), (128, 256, 64, 132, 8, 4),
                                     (256, 128, 64, 132, 8, 3), (128, 256, 32, 132, 8, 4))]
_ATTENTION = [dict(BLOCK_M1=m1, BLOCK_N1=n1, NUM_PROGRAMS=132, num_warps=8, num_stages=3)
              for m1, n1 in ((64, 128), (64, 64), (32, 64))]


def _configs(configs, stock, pick=None, forms=("off", "all")):
    if pick:
        configs = [configs[int(i)] for i in pick.split(",")]
        stock = (0,)
    out = [("tile", dict(c, occupancy=1), {"TRITON_TILE_ANCHORED_VIEWS": a})
           for c in configs for a in forms]
    return out + [("stock", configs[i], {}) for i in stock]


def _cell(case, side, meta, env) -> str:
    try:
        with gb._Env(env):
            r = gb._measure(case, lambda: gb.launcher(case, side == "stock")(gb._grid(case, meta),
                                                                            meta))
        md = getattr(r["kernel"], "metadata", None)
        redone = " (per access: tileiras rejected them)" if getattr(md, "anchored_views",
                                                                    None) else ""
        return f"{r['value']:.1f}{'' if r['ok'] else ' WRONG'}{redone}"
    except Exception as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0][:70] if str(e) else ''}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=("grouped", "desc", "attention"))
    ap.add_argument("--configs", help="indices into the kernel's configs, e.g. 0,1")
    ap.add_argument("--forms", default="off,all",
                    help="TRITON_TILE_ANCHORED_VIEWS values to time (desc: the default)")
    ap.add_argument("--env", nargs="*", default=[],
                    help="K=V knobs for this process's Tile compiles, e.g. "
                         "TRITON_TILE_VERSION_LOOPS=0 (one process per knob set: a knob that "
                         "is not part of the cache key would reuse the first set's kernels)")
    args = ap.parse_args(argv)
    os.environ.update(kv.split("=", 1) for kv in args.env)
    os.environ["TRITON_TILE_FALLBACK"] = "error"  # a config that falls back is not ours
    t = gb.Tensors(aot=False)
    sizes = (1024, 2048, 3072, 4096)
    cases = []
    if args.only in (None, "grouped"):
        cases += [(("grouped gemm", "1024..4096^3"), lambda: gb.grouped_gemm(t, sizes),
                   _configs(_GROUPED, (1, 3), args.configs, args.forms.split(",")))]
    if args.only in (None, "desc"):
        cases += [(("grouped gemm desc", "1024..4096^3"),
                   lambda: gb.grouped_gemm(t, sizes, desc=True),
                   _configs(_GROUPED, (1, 3), args.configs, args.forms.split(",")))]
    if args.only in (None, "attention"):
        cases += [(("attention bwd persistent", "B4 H32 L4096 D128"),
                   lambda: gb.attention_bwd(t, z=4, h=32, n_ctx=4096, d=128, atomic=True,
                                            persistent=True),
                   _configs(_ATTENTION, (0,), args.configs, args.forms.split(",")))]
    rows = []
    for labels, make, configs in cases:
        case = make()
        for side, config, env in configs:
            name = gb.probe_config_name(side, config)
            if env:
                name += f", anchored {env['TRITON_TILE_ANCHORED_VIEWS']}"
            rows.append([*labels, name, _cell(case, side, dict(case.meta, **config), env)])
            print("  ", rows[-1], file=sys.stderr, flush=True)
        rows.append([*labels, "torch", gb.probe_torch_cell(case)])
        del case
    gb.print_probe(["kernel", "shape", "config", "TFLOP/s"], rows, "TFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
