"""Attention backward's persistent kernel on the Tile path: key block, worker warps, programs.

    python benchmarks/attn_bwd_probe.py    # a GPU machine with tileiras and stock Triton

The persistent atomic backward (examples/fused_attention_bwd.py, B4 H32 L4096 D128) ran at 0.40x
stock Triton on the Tile path (206 against 370 TFLOP/s, H100, 2026-11-27) at a key block of 128:
tileiras gives its 384 threads 168 registers and the loop nested in the persistent loop spills
(benchmarks/RESULTS.md, 2026-11-26 22:20). Its dK and dV accumulators are BLOCK_N1 x HEAD_DIM
fp32 each, so a key block of 64 halves what each thread holds. This probe times the kernel at
key blocks 64 and 128, query blocks 32 and 64, 4 and 8 warps, one and two programs per SM, with
stock Triton at the same blocks and the one-block atomic kernel beside them (do_bench medians,
TFLOP/s, in one process). Run it after `STEPS=none benchmarks/gpu_run.sh`.

The Tile path runs the persistent loop as a grid of work items (TRITON_TILE_GRID_STRIDE,
csrc/passes/grid_stride_loops.cpp); the "tile-loop" rows compile it with the loop as written.

    python benchmarks/attn_bwd_probe.py --quick   # 64x128 only, 8 warps
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

_BLOCKS = ((64, 128), (64, 64), (32, 64))
# (side, config): the Tile side at one CTA per SM, stock at its own knobs
CONFIGS = [("tile", dict(BLOCK_M1=m1, BLOCK_N1=n1, NUM_PROGRAMS=p, num_warps=w, num_stages=3,
                         occupancy=1))
           for m1, n1 in _BLOCKS for p in (132, 264) for w in (8, 4)]
CONFIGS += [("stock", dict(BLOCK_M1=m1, BLOCK_N1=n1, NUM_PROGRAMS=264, num_warps=8,
                           num_stages=3)) for m1, n1 in _BLOCKS]
ONE_BLOCK = [("tile", dict(BLOCK_M1=m1, BLOCK_N1=n1, num_warps=8, num_stages=3, occupancy=1))
             for m1, n1 in _BLOCKS[:2]]
ONE_BLOCK += [("stock", dict(BLOCK_M1=64, BLOCK_N1=128, num_warps=8, num_stages=3))]
LOOP = [("tile-loop", dict(BLOCK_M1=m1, BLOCK_N1=n1, NUM_PROGRAMS=p, num_warps=8, num_stages=3,
                           occupancy=1)) for m1, n1 in _BLOCKS for p in (132, 264)]
SIDE_ENV = {"tile-loop": {"TRITON_TILE_GRID_STRIDE": "0"}}


def main() -> int:
    quick = "--quick" in sys.argv[1:]
    configs = CONFIGS + LOOP
    if quick:  # the 64x128 blocks at 8 warps
        configs = [(s, c) for s, c in configs if (c["BLOCK_M1"], c["BLOCK_N1"]) == (64, 128)
                   and c["num_warps"] == 8]
    t = gb.Tensors(aot=False)
    shape = dict(z=4, h=32, n_ctx=4096, d=128)
    label = ("B4 H32 L4096 D128",)
    persistent = [(("persistent", *label),
                   lambda: gb.attention_bwd(t, **shape, atomic=True, persistent=True))]
    one_block = [(("one block", *label), lambda: gb.attention_bwd(t, **shape, atomic=True))]
    header = ["kernel", "shape", "config", "TFLOP/s"]
    gb.probe_configs(persistent, configs, header, SIDE_ENV)
    gb.probe_configs(one_block, ONE_BLOCK[::2] if quick else ONE_BLOCK, header)
    return 0


if __name__ == "__main__":
    sys.exit(main())
