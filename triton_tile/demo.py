"""`python -m triton_tile.demo`: run the example kernels and print one table.

Each module in examples/ (vector_add, fused_softmax, matmul, layer_norm, fused_attention,
matmul_tma, fused_attention_bwd, grouped_gemm, stencil) exposes `demo(quick=False) -> dict`
with keys `kernel`, `size`, `correct`, `ms`, `metric`, `unit` ("GB/s" or "GFLOP/s") and
optionally `path` (the compiled kernel's metadata.path) and `max_err`. The demo imports each
file, calls it, and reports; it exits non-zero if any example is wrong or fails, so it doubles
as a smoke test.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
import time
import traceback
from typing import List, Optional

EXAMPLES = ["vector_add", "fused_softmax", "matmul", "layer_norm", "fused_attention",
            "matmul_tma", "fused_attention_bwd", "grouped_gemm", "stencil"]


def find_examples(explicit: Optional[str] = None) -> Optional[str]:
    """The examples directory: given, beside the package (a source checkout or an editable
    install), or under the current directory."""
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in [explicit, os.path.join(os.path.dirname(here), "examples"),
                 os.path.join(os.getcwd(), "examples")]:
        if cand and os.path.isdir(cand):
            return cand
    return None


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(f"triton_tile_examples.{name}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def device_name() -> str:
    from . import knobs

    return f"cpu {platform.machine() or '?'} x{knobs.num_threads}"


def run_example(directory: str, name: str, quick: bool, verbose: bool) -> dict:
    row = {"kernel": name, "size": "", "path": "-", "correct": False, "ms": float("nan"),
           "metric": float("nan"), "unit": "", "note": ""}
    path = os.path.join(directory, name + ".py")
    if not os.path.exists(path):
        row["note"] = "missing"
        return row
    start = time.perf_counter()
    try:
        mod = _load(path, name)
        if not hasattr(mod, "demo"):
            row["note"] = "no demo() entry point"
            return row
        result = mod.demo(quick=quick)
        row.update({k: v for k, v in result.items() if v is not None})
        row["correct"] = bool(result.get("correct", False))
        row.setdefault("path", "ptx")
    except Exception as e:  # one broken example must not hide the others
        row["note"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:120]
        if verbose:
            traceback.print_exc()
    row["wall_s"] = time.perf_counter() - start
    return row


def format_table(rows: List[dict], device: str) -> str:
    header = ["kernel", "size", "path", "device", "correct", "time (ms)", "throughput"]
    lines = []
    for r in rows:
        ok = "yes" if r["correct"] else ("NO" if not r.get("note") else "ERROR")
        ms = r["ms"]
        tp = f"{r['metric']:.2f} {r['unit']}" if r["unit"] and r["metric"] == r["metric"] \
            else "-"
        lines.append([str(r["kernel"]), str(r.get("size", "")), str(r.get("path", "-")),
                      device, ok, f"{ms:.3f}" if ms == ms else "-", tp])
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths)),
           "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(line, widths)) for line in lines]
    notes = [f"  {r['kernel']}: {r['note']}" for r in rows if r.get("note")]
    if notes:
        out += ["", "notes:"] + notes
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m triton_tile.demo",
                                 description="Run the example kernels and print a table.")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--examples", help="directory holding the example files")
    ap.add_argument("--only", nargs="*", help="run only these examples")
    ap.add_argument("-v", "--verbose", action="store_true", help="print tracebacks")
    args = ap.parse_args(argv)
    directory = find_examples(args.examples)
    if directory is None:
        print("triton_tile.demo: no examples/ directory found; run from a source checkout "
              "or pass --examples DIR", file=sys.stderr)
        return 2
    names = args.only or EXAMPLES
    device = device_name()
    print(f"triton_tile demo: {len(names)} example kernels from {directory} on {device}")
    rows = []
    for name in names:
        rows.append(run_example(directory, name, args.quick, args.verbose))
        r = rows[-1]
        print(f"  {name}: {'ok' if r['correct'] else 'FAILED'} "
              f"({r.get('wall_s', 0.0):.1f}s)", flush=True)
    print()
    print(format_table(rows, device))
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
