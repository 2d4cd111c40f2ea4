"""The descriptor matmuls' large tiles on the Tile path: stages and occupancy.

    python benchmarks/desc_probe.py    # a GPU machine with tileiras and stock Triton

Tuned over block sizes (2026-11-27), stock Triton's descriptor matmuls win at 128x256x64 and
256x128x64 (698-720 TFLOP/s at 4096^3 on an H100), where the Tile path ran 128x256 at 522-663
depending on the stage count, the persistent kernel at 4 stages at 202, and 256x128 at 415-445.
This probe times both kernels at both tiles over 2 to 5 stages, with and without occupancy 1,
in one process, with stock Triton's winners and cuBLAS beside them (do_bench medians; TFLOP/s).
Run it after `STEPS=none benchmarks/gpu_run.sh`.

    python benchmarks/desc_probe.py --persistent   # the persistent kernel at 4096^3 only

The Tile path runs the persistent kernel's loop over tiles as a grid of tiles
(TRITON_TILE_GRID_STRIDE, csrc/passes/grid_stride_loops.cpp); `--persistent` adds "tile-loop"
rows, compiled with the loop as written.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

_SHAPES = (dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64), dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=64))
# (side, config)
CONFIGS = [("tile", dict(shape, num_warps=8, num_stages=st, **occ))
           for shape in _SHAPES for st in ((2, 3, 4, 5) if shape["BLOCK_M"] == 128 else (3, 4))
           for occ in ({}, {"occupancy": 1})]
CONFIGS += [("stock", dict(shape, num_warps=8, num_stages=3)) for shape in _SHAPES]
CASES = (("matmul desc fp16", gb.matmul_desc, 4096), ("matmul TMA fp16", gb.matmul_tma, 4096),
         ("matmul TMA fp16", gb.matmul_tma, 8192))
# the persistent kernel's 128x256x64 at one CTA per SM, its loop as a grid and as written
_WIDE = dict(_SHAPES[0], num_warps=8, occupancy=1)
PERSISTENT = ([("tile", dict(_WIDE, num_stages=st)) for st in (3, 4, 5)]
              + [("tile-loop", dict(_WIDE, num_stages=st)) for st in (3, 4)]
              + [("stock", dict(_SHAPES[0], num_warps=8, num_stages=3))])
SIDE_ENV = {"tile-loop": {"TRITON_TILE_GRID_STRIDE": "0"}}


def main() -> int:
    t = gb.Tensors(aot=False)
    persistent = "--persistent" in sys.argv[1:]
    cases = [((name, f"{size}^3"), lambda m=make, s=size: m(t, s, "float16"))
             for name, make, size in (CASES[1:2] if persistent else CASES)]
    gb.probe_configs(cases, PERSISTENT if persistent else CONFIGS,
                     ["kernel", "size", "config", "TFLOP/s"], SIDE_ENV)
    return 0


if __name__ == "__main__":
    sys.exit(main())
