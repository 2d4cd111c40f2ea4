"""One case profiled on every side with Nsight Compute, and its SASS counted, as one table.

    python3 benchmarks/ncu_versus.py grouped_gemm:1:BLOCK_N=256,num_stages=4,occupancy=1:\\
        BLOCK_N=256,num_stages=3 [more specs] [--out DIR]

A spec is FAMILY:INDEX:TILE_META:STOCK_META[:KERNEL] (K=V pairs, comma-separated; `occupancy=`
is the Tile launch's hint), as benchmarks/profile_case.py takes them; KERNEL, a regex for ncu's
-k, where the case launches other kernels too (attention_bwd's preprocess). For each spec: ncu
(clock control off, one launch of each side after a warm-up launch) over the Tile kernel and
stock Triton's, then over torch's call (its kernels in one call; NVTX selects the launches
profile_case.py times), with the sections that say where a kernel's time goes (speed of light,
compute pipes, occupancy, warp states, instructions); each side's cubin from its own fresh cache
disassembled and its opcodes counted. Prints one table per spec and leaves ncu's raw CSV and the
SASS under --out. Each spec's second table accounts for memory: DRAM throughput, hit rates,
occupancy; `--copy` adds a copy of the case's bytes through a torch kernel (GB/s cases).

    python3 benchmarks/ncu_versus.py --command "python3 benchmarks/row_probe.py --profile \
        --kernels 'softmax, one pass' --sizes 4096x4096 --warps 8"

profiles the launches a command makes inside NVTX ranges named "profiled", a row each.
"""

import argparse
import collections
import csv
import glob
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SECTIONS = ["SpeedOfLight", "ComputeWorkloadAnalysis", "LaunchStats", "Occupancy",
            "WarpStateStats", "InstructionStats", "MemoryWorkloadAnalysis"]
# The opcodes counted in each cubin's SASS (prefix match on the mnemonic).
OPCODES = ["HGMMA", "QGMMA", "HMMA", "UTMALDG", "UTMASTG", "UTMAPF", "LDGSTS", "LDG", "STG",
           "LDS", "STS", "LDSM", "LDL", "STL", "WARPGROUP.DEPBAR", "WARPGROUP.ARRIVE", "SYNCS",
           "BAR", "MUFU", "FFMA", "FMUL", "FADD", "BRA"]


UNITS = "__units"  # a row's key for the units row ncu printed above it
# A memory-bound kernel's account (GB/s cases): DRAM traffic against the bytes it must move,
# the caches' hit rates, and the occupancy that keeps requests in flight.
MEMORY = [("DRAM throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "%"),
          ("L1 hit", "l1tex__t_sector_hit_rate.pct", "%"),
          ("L2 hit", "lts__t_sector_hit_rate.pct", "%"),
          ("theoretical occupancy", "sm__maximum_warps_per_active_cycle_pct", "%"),
          ("achieved occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", "%")]


def _kv(text: str) -> list:
    return [kv for kv in text.split(",") if kv]


def _ncu(args: list, log: str) -> list:
    """Runs ncu with --csv --page raw; returns its rows (dicts), one per profiled kernel."""
    cmd = ["ncu", "--clock-control", "none", "--csv", "--page", "raw"]
    for s in SECTIONS:
        cmd += ["--section", s]
    proc = subprocess.run(cmd + args, capture_output=True, text=True)
    with open(log, "w") as f:
        f.write(" ".join(cmd + args) + "\n" + proc.stdout + "\n--- stderr\n" + proc.stderr)
    lines = proc.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        print(f"  ncu gave no rows (rc {proc.returncode}); see {log}", file=sys.stderr)
        return []
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    for r in rows[1:]:  # the first row after the header holds the units
        r[UNITS] = rows[0]
    return rows[1:]


def _num(row: dict, key: str) -> float:
    try:
        return float(str(row.get(key, "nan")).replace(",", ""))
    except ValueError:
        return float("nan")


_SCALE = {"byte/s": 1, "Kbyte/s": 1e3, "Mbyte/s": 1e6, "Gbyte/s": 1e9, "Tbyte/s": 1e12,
          "byte/second": 1, "Kbyte/second": 1e3, "Mbyte/second": 1e6, "Gbyte/second": 1e9,
          "Tbyte/second": 1e12}


def _gbs(row: dict, key: str) -> float:
    """A rate in GB/s, by the unit ncu gave it (nan where it gave none)."""
    return _num(row, key) * _SCALE.get(row.get(UNITS, {}).get(key, ""), float("nan")) / 1e9


def _count(row: dict, key: str) -> str:
    """An integer metric, or "?" where this ncu did not report it."""
    v = _num(row, key)
    return "?" if v != v else str(int(v))


def _sass_counts(cubin: str, out: str) -> dict:
    """Opcode counts (OPCODES, "total"), resources (reg, stack, shared, local) and "widths":
    global loads and stores by full mnemonic."""
    proc = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True)
    with open(out, "w") as f:
        f.write(proc.stdout)
    counts, widths = collections.Counter(), collections.Counter()
    for line in proc.stdout.splitlines():
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if not m:
            continue
        op = m.group(1)
        counts["total"] += 1
        if op.startswith(("STG.", "LDG.")):  # by width: STG.E.U16 (2 bytes) or STG.E.128
            widths[op] += 1
        for name in OPCODES:
            if op == name or op.startswith(name + "."):
                counts[name] += 1
                break
    usage = subprocess.run(["cuobjdump", "-res-usage", cubin], capture_output=True, text=True)
    for key in ("REG", "STACK", "SHARED", "LOCAL"):
        m = re.search(key + r":(\d+)", usage.stdout)
        counts[key.lower()] = int(m.group(1)) if m else -1
    return dict(counts, widths=widths)


def _elf(path: str, out: str) -> str:
    """The ELF inside a cache entry (ours carries a header line before it)."""
    data = open(path, "rb").read()
    at = data.find(b"\x7fELF")
    if at < 0:  # not a cubin: cuobjdump says so for the file itself
        return path
    with open(out, "wb") as f:
        f.write(data[at:])
    return out


def _row(side: str, r: dict) -> str:
    pre, post = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    stalls = sorted(((k, _num(r, k)) for k in r if k.startswith(pre) and k.endswith(post)),
                    key=lambda kv: -kv[1])
    top = ", ".join(f"{k[len(pre):-len(post)]} {v:.2f}" for k, v in stalls[:4])
    # Hopper's wgmma (HGMMA, QGMMA) issue on the gmma pipe; the tensor pipe's busy cycles
    # count every kind.
    busy = _num(r, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")
    gmma = _num(r, "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active")
    tensor_s = f"{busy:.1f}% busy, gmma issue {gmma:.1f}%"
    return (f"| {side} | {r.get('Kernel Name', '?')[:60]} | "
            f"{_num(r, 'gpu__time_duration.sum') / 1e3:.1f} us | "
            f"{_count(r, 'launch__grid_size')}x{_count(r, 'launch__block_size')}, "
            f"{_count(r, 'launch__registers_per_thread')} regs | "
            f"{_num(r, 'sm__throughput.avg.pct_of_peak_sustained_elapsed'):.1f}% | "
            f"{tensor_s} | "
            f"{_num(r, 'smsp__inst_executed.sum') / 1e6:.1f} M | "
            f"{_num(r, 'sm__warps_active.avg.pct_of_peak_sustained_active'):.1f}% | {top} |")


def _memory_row(side: str, r: dict) -> str:
    return (f"| {side} | {_num(r, 'gpu__time_duration.sum') / 1e3:.1f} us | "
            f"{_gbs(r, 'dram__bytes.sum.per_second'):.0f} | "
            + " | ".join(f"{_num(r, key):.1f}{unit}" for _, key, unit in MEMORY) + " |")


def parse_spec(spec: str, families) -> tuple:
    """FAMILY:INDEX:TILE_META:STOCK_META[:KERNEL] -> its five fields, or ValueError naming the
    field that is wrong (before anything is profiled)."""
    parts = spec.split(":")
    if not 2 <= len(parts) <= 5:
        raise ValueError(f"{spec!r}: want FAMILY:INDEX[:TILE_META[:STOCK_META[:KERNEL]]]")
    fam, index, tile, stock, kernel = (parts + ["", "", ""])[:5]
    if fam not in families:
        raise ValueError(f"{spec!r}: unknown family {fam!r} (one of {', '.join(families)})")
    if not index.isdigit():
        raise ValueError(f"{spec!r}: INDEX {index!r} is not a case number")
    for side, meta in (("TILE_META", tile), ("STOCK_META", stock)):
        for kv in _kv(meta):
            k, eq, v = kv.partition("=")
            if not eq or not k or not v.lstrip("-").isdigit():
                raise ValueError(f"{spec!r}: {side} entry {kv!r} is not K=INT")
    return fam, index, tile, stock, kernel


# The launches made inside NVTX ranges named "profiled" (profile_case.py's timed ones, not those
# that made the inputs; row_probe.py --profile's).
MEASURED = ["--nvtx", "--nvtx-include", "profiled/"]


def _tables(label: str, sides: list, memory_only: list = ()) -> None:
    """The profile table of `sides` ((name, ncu row) pairs, `label` heading their column), then
    the memory table of them and `memory_only` (a copy of the same bytes)."""
    print(f"| {label} | kernel | time | grid x block, regs | SM throughput | tensor pipe | "
          "warp instrs | warps active | top stalls (warps per issue) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for side, r in sides:
        print(_row(side, r))
    print(f"\n| {label} | time | DRAM GB/s | " + " | ".join(name for name, _, _ in MEMORY)
          + " |\n|---|---|---|" + "---|" * len(MEMORY))
    for side, r in [*sides, *memory_only]:
        print(_memory_row(side, r))


def profile(spec: tuple, out: str, copy: bool = False) -> None:
    fam, index, tile, stock, kernel = spec
    tag = f"{fam}_{index}"
    tile_kv = [kv for kv in _kv(tile) if not kv.startswith("occupancy=")]
    occ = [kv.split("=")[1] for kv in _kv(tile) if kv.startswith("occupancy=")]
    # Fresh caches per spec (the profiled processes inherit them): each side's cubins are this
    # case's alone.
    ours_cache, stock_cache = tempfile.mkdtemp(prefix="tt_ncu."), tempfile.mkdtemp(prefix="tr_ncu.")
    os.environ.update(TRITON_TILE_CACHE_DIR=ours_cache, TRITON_CACHE_DIR=stock_cache)
    case = [sys.executable, os.path.join(HERE, "profile_case.py"), fam, "--index", index]
    both = case + ["--tile", *tile_kv, "--stock", *_kv(stock)] + (
        ["--occupancy", occ[0]] if occ else [])
    rows = _ncu(MEASURED + (["-k", f"regex:{kernel}"] if kernel else []) + both,
                os.path.join(out, f"{tag}_paths.csv"))
    torch_rows = _ncu(MEASURED + case + ["--torch"], os.path.join(out, f"{tag}_torch.csv"))
    copy_rows = _ncu(MEASURED + case + ["--copy"], os.path.join(out, f"{tag}_copy.csv")) if (
        copy) else []
    print(f"\n### {':'.join(spec).rstrip(':')}\n")
    _tables("side", list(zip(["ours", "stock"], rows[-2:])) + [("torch", r) for r in torch_rows],
            [("copy of the same bytes", r) for r in copy_rows])
    # The cache entries' cubins: ours in `<key>/<kernel>.cubin` (the launch guard's specialized
    # kernel, the one that runs where the guard holds) and `.cubin_general` (where it does not);
    # one level down, so not tileiras/<xx>/ (tileiras's store of both). Stock Triton's in
    # `<key>/<kernel>.cubin`.
    sass = {}
    for side, root, pattern in (("ours", ours_cache, "*/*.cubin"),
                                ("ours, general", ours_cache, "*/*.cubin_general"),
                                ("stock", stock_cache, "*/*.cubin")):
        cubins = sorted(glob.glob(os.path.join(root, pattern)))
        for i, cubin in enumerate(cubins):
            name = side + (f" {i}" if len(cubins) > 1 else "")
            stem = f"{tag}_{name.replace(',', '').replace(' ', '_')}"
            elf = _elf(cubin, os.path.join(out, stem + ".cubin"))
            sass[name] = _sass_counts(elf, os.path.join(out, stem + ".sass"))
    if sass:
        print("\n| SASS | " + " | ".join(sass) + " |\n|---|" + "---|" * len(sass))
        for op in ["total", *OPCODES, "reg", "stack", "shared", "local"]:
            if any(c.get(op) for c in sass.values()):
                print(f"| {op} | " + " | ".join(str(c.get(op, 0)) for c in sass.values()) + " |")
        print("| global loads and stores by width | " + " | ".join(
            ", ".join(f"{k} {v}" for k, v in sorted(c["widths"].items())) or "-"
            for c in sass.values()) + " |")


def profile_command(command: list, out: str) -> None:
    """ncu over the launches `command` makes inside NVTX ranges named "profiled" (as
    row_probe.py --profile does), one table row each, in launch order."""
    rows = _ncu(MEASURED + command, os.path.join(out, "command.csv"))
    print(f"\n### {' '.join(command)}\n")
    _tables("launch", [(str(i + 1), r) for i, r in enumerate(rows)])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="*")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/ncu_versus"))
    ap.add_argument("--copy", action="store_true",
                    help="also profile a copy of each case's bytes (torch.neg, a kernel; GB/s "
                         "cases)")
    ap.add_argument("--command", help="instead of specs: profile this command's launches in NVTX "
                    "ranges named 'profiled' (e.g. 'python3 benchmarks/row_probe.py --profile "
                    "...'), one row each")
    args = ap.parse_args(argv)
    if args.command:
        os.makedirs(args.out, exist_ok=True)
        profile_command(shlex.split(args.command), args.out)
        return 0
    if not args.specs:
        ap.error("give a spec or --command")
    sys.path.insert(0, HERE)
    import gpu_bench

    try:
        specs = [parse_spec(s, gpu_bench.FAMILIES) for s in args.specs]
    except ValueError as e:
        ap.error(str(e))
    missing = [tool for tool in ("ncu", "cuobjdump") if shutil.which(tool) is None]
    if missing:
        ap.error(f"{' and '.join(missing)} not on PATH (a CUDA toolkit's bin/: $CUDA_HOME/bin)")
    os.makedirs(args.out, exist_ok=True)
    for spec in specs:
        profile(spec, args.out, args.copy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
