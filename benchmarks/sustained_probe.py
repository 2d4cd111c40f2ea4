"""Each side of the grouped GEMM run without pause, with the card's clock and power beside it.

    python benchmarks/sustained_probe.py [--desc] [--seconds 4] [--rounds 2]   # a GPU machine

do_bench's medians come from short bursts after idle moments, at boost clocks. A user's
training step keeps the card busy, where an H200 runs at its power cap (700 W) and its clocks
fall to what the cap allows: a kernel's speed there is its work per joule. This probe runs each
side's best config (ours at occupancy 1, stock Triton, torch's loop of cuBLAS calls) back to back
for a few seconds each, after 3 s of idle, and prints the time per call with nvidia-smi's SM
clock, power draw, temperature and throttle reasons (0x4: the software power cap) sampled in the
second half of the run. Run it after `STEPS=none benchmarks/gpu_run.sh`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

_QUERY = "clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active"


def _sample(out: list, stop: threading.Event) -> None:
    while not stop.is_set():
        out.append(subprocess.run(["nvidia-smi", f"--query-gpu={_QUERY}",
                                   "--format=csv,noheader,nounits"],
                                  capture_output=True, text=True).stdout.strip())
        time.sleep(0.2)


def _run(fn, seconds: float):
    import torch

    samples, stop = [], threading.Event()
    sampler = threading.Thread(target=_sample, args=(samples, stop))
    sampler.start()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    calls, t0 = 0, time.time()
    start.record()
    while time.time() - t0 < seconds:
        for _ in range(20):
            fn()
        calls += 20
        torch.cuda.synchronize()
    end.record()
    torch.cuda.synchronize()
    stop.set()
    sampler.join()
    return start.elapsed_time(end) / calls, calls, samples[len(samples) // 2:]


def main(argv=None) -> int:
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--desc", action="store_true", help="the descriptor kernel")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    os.environ["TRITON_TILE_FALLBACK"] = "error"
    case = gb.grouped_gemm(gb.Tensors(aot=False), (1024, 2048, 3072, 4096), desc=args.desc)
    cfg = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, NUM_PROGRAMS=132, num_warps=8)
    ours_meta = dict(case.meta, **cfg, num_stages=4, occupancy=1)
    # (stock Triton's descriptor kernel needs 262 KiB of shared memory at 4 stages)
    stock_meta = dict(case.meta, **cfg, num_stages=3 if args.desc else 4)
    ours, stock = gb.launcher(case, False), gb.launcher(case, True)
    sides = {"ours": lambda: ours(gb._grid(case, ours_meta), ours_meta),
             "stock": lambda: stock(gb._grid(case, stock_meta), stock_meta),
             "torch": case.torch_fn}
    for fn in sides.values():
        fn()
    torch.cuda.synchronize()
    name = torch.cuda.get_device_name()
    print(f"{name}: {case.name} {case.label}, each side {args.seconds:g} s without pause")
    for r in range(args.rounds):
        for side, fn in sides.items():
            time.sleep(3)
            ms, calls, samples = _run(fn, args.seconds)
            tflops = case.work / (ms * 1e-3) / 1e12
            print(f"  round {r} {side:5s} {ms:.4f} ms/call ({tflops:.1f} TFLOP/s, {calls} calls); "
                  f"MHz, W, C, reasons: {samples[0] if samples else '-'} .. "
                  f"{samples[-1] if samples else '-'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
