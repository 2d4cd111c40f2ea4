"""One table, measured in one run: triton_tile's executor vs numpy doing the same work, and
(when `triton` and `torch` are installed) vs Triton's interpreter on the same kernels.

    python benchmarks/run_all.py [--quick] [--only vector_add softmax] [--no-interp] [--check]
    python benchmarks/run_all.py --device cuda [--quick] [--aot]   # GPU: gpu_bench.py

The interpreter runs each script in a subprocess (TRITON_INTERPRET is read when kernels are
decorated) on a small size; its time is scaled linearly by the amount of work to the full
size. ratio = numpy ms / ours ms (above 1: faster than numpy); speedup = interpreter ms /
ours ms. "ours" is the PTX-style path (the TTIR executor); "tile ms" is the same kernel on the
Tile IR path (ENABLE_TILE=1: the CPU tile executor), and tile/ptx their ratio (at most 1: the
Tile path is as fast). With --check, the exit code says whether every target below was met.
"""

import argparse
import importlib
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SCRIPTS = ["vector_add", "softmax", "matmul", "layer_norm"]
# gpu_bench.py's families that have no CPU script
GPU_ONLY = ["attention", "attention_bwd", "grouped_gemm", "matmul_fp8", "stencil"]
# Minimum ratio to numpy on a 2-core machine, and minimum speedup over the interpreter.
RATIO_TARGETS = {"vector_add": 0.8, "softmax": 1.0, "matmul": 0.3}
SPEEDUP_TARGET = 500.0


def interp_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("triton", "torch"))


def run_interp(name: str, size: dict) -> dict:
    env = dict(os.environ, TT_BENCH_IMPL="triton", TRITON_INTERPRET="1")
    proc = subprocess.run([sys.executable, os.path.join(HERE, name + ".py"), "--interp",
                           json.dumps(size)], env=env, capture_output=True, text=True,
                          timeout=1800)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
        return {"error": tail[0][:100]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def memory_floor_ms(n: int, threads: int):
    """Median time of a streaming C++ vector add (memory_floor.cpp) over n fp32 on this machine,
    or None without a C++ compiler: what no executor's vector add can beat by much."""
    import shutil
    import tempfile

    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "memory_floor")
        build = subprocess.run([cxx, "-O2", "-pthread", os.path.join(HERE, "memory_floor.cpp"),
                                "-o", exe], capture_output=True, text=True)
        if build.returncode != 0:
            return None
        run = subprocess.run([exe, str(n), str(threads)], capture_output=True, text=True,
                             timeout=300)
        return float(run.stdout) if run.returncode == 0 else None


def quick_size(size: dict) -> dict:
    return {k: max(16, v // 8) for k, v in size.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                    help="cpu: the executors vs numpy; cuda: the Tile path vs stock Triton "
                         "(gpu_bench.py)")
    ap.add_argument("--aot", action="store_true",
                    help="with --device cuda: only compile the Tile kernels for "
                         "TRITON_TILE_TARGET (no GPU needed; fills the kernel cache)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes, shorter timing")
    ap.add_argument("--lean", action="store_true",
                    help="GPU: only the configs a user tunes (no comparison-only knob columns)")
    ap.add_argument("--versus", action="store_true",
                    help="GPU: best against best (each side tuned over TUNE, torch beside "
                         "them, the hardware limit)")
    ap.add_argument("--only", nargs="*", choices=sorted(set(SCRIPTS) | set(GPU_ONLY) |
                                                        {"matmul_tma"}))
    ap.add_argument("--no-interp", action="store_true", help="skip Triton's interpreter")
    ap.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    args = ap.parse_args(argv)
    if args.device == "cuda":
        import gpu_bench

        return gpu_bench.main(args)
    if args.only and (set(GPU_ONLY) & set(args.only)):
        ap.error(f"{', '.join(GPU_ONLY)} are benchmarked with --device cuda only")

    from common import time_ms  # triton_tile is imported here, not before --device is seen

    import triton_tile.knobs as knobs

    interp = not args.no_interp and interp_available()
    rep = 50.0 if args.quick else 300.0
    print(f"triton_tile benchmarks on cpu, {knobs.num_threads} threads"
          + ("" if interp else "; Triton interpreter: not installed (pip install triton torch)"
             if not args.no_interp else ""))
    header = ["kernel", "size", "ok", "ours ms", "tile ms", "tile/ptx", "numpy ms", "ratio",
              "ours", "interp ms", "speedup"]
    rows, misses, notes = [], [], []
    for name in args.only or SCRIPTS:
        mod = importlib.import_module(name)
        size = quick_size(mod.FULL) if args.quick else mod.FULL
        state = mod.setup(size)
        saved = os.environ.get("ENABLE_TILE")
        try:
            os.environ["ENABLE_TILE"] = "0"  # ours: the PTX-style path
            ok = mod.check(state)
            ours_ms = time_ms(mod.ours(state), rep)
            os.environ["ENABLE_TILE"] = "1"  # the Tile IR path
            ok = mod.check(state) and ok
            tile_ms = time_ms(mod.ours(state), rep)
        finally:
            if saved is None:
                os.environ.pop("ENABLE_TILE", None)
            else:
                os.environ["ENABLE_TILE"] = saved
        np_ms = time_ms(mod.numpy_ref(state), rep)
        value, unit = mod.metric(size, ours_ms)
        ratio = np_ms / ours_ms
        interp_ms = speedup = None
        note = ""
        if interp:
            res = run_interp(name, mod.SMALL)
            if "error" in res:
                note = res["error"]
            else:
                interp_ms = res["ms"] * mod.work(size) / mod.work(mod.SMALL)
                speedup = interp_ms / ours_ms
        rows.append([mod.NAME, mod.label(size), "yes" if ok else "NO", f"{ours_ms:.3f}",
                     f"{tile_ms:.3f}", f"{tile_ms / ours_ms:.2f}", f"{np_ms:.3f}",
                     f"{ratio:.2f}x", f"{value:.1f} {unit}",
                     "-" if interp_ms is None else f"{interp_ms:.0f}",
                     "-" if speedup is None else f"{speedup:.0f}x"])
        if note:
            rows[-1].append(f"(interp: {note})")
        if not ok:
            misses.append(f"{name}: wrong result")
        if name in RATIO_TARGETS and ratio < RATIO_TARGETS[name]:
            misses.append(f"{name}: {ratio:.2f}x numpy < target {RATIO_TARGETS[name]}x")
        if speedup is not None and speedup < SPEEDUP_TARGET:
            misses.append(f"{name}: {speedup:.0f}x the interpreter < target {SPEEDUP_TARGET}x")
        if name == "vector_add":  # memory-bound: how close to the machine's floor it runs
            floor = memory_floor_ms(size["n"], knobs.num_threads)
            if floor is not None:
                bound = f"; the interpreter's time over it: {interp_ms / floor:.0f}x" \
                    if interp_ms is not None else ""
                notes.append(f"vector add floor on this machine (memory_floor.cpp: streaming "
                             f"C++ add, {knobs.num_threads} threads): {floor:.3f} ms; ours at "
                             f"{floor / ours_ms:.2f}, tile at {floor / tile_ms:.2f} of it{bound}")
        print(f"  measured {name}", file=sys.stderr, flush=True)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + " ".join(r[len(header):]))
    print()
    for note in notes:
        print(note)
    print("targets (2 cores): " + ("all met" if not misses else "missed: " + "; ".join(misses)))
    return 1 if (args.check and misses) else 0


if __name__ == "__main__":
    sys.exit(main())
