"""Tutorial 09's persistent pointer matmul on the Tile path: its loop over tiles as a grid and
as written.

    python benchmarks/persistent_probe.py    # a GPU machine with tileiras and stock Triton

examples/matmul.py's matmul_persistent_kernel walks the output tiles NUM_SMS apart and keeps a
second counter for the epilogue's tile, as Triton's tutorial 09 does. On the Tile path that
loop runs as a grid of tiles (TRITON_TILE_GRID_STRIDE, csrc/passes/grid_stride_loops.cpp: the
counter becomes a closed form of the iteration, and the grid is two-dimensional since the
kernel reads its program id); the "tile-loop" rows compile it with the loop as written. Stock
Triton runs the loop at its own winners' knobs, cuBLAS beside them (do_bench medians, TFLOP/s,
one process, 4096^3 fp16). Run it after `STEPS=none benchmarks/gpu_run.sh`.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

_WIDE = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8)
_SQUARE = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8)
# (side, config)
CONFIGS = ([(side, dict(_WIDE, num_stages=st, occupancy=1))
            for side in ("tile", "tile-loop") for st in (3, 4)]
           + [("tile", dict(_SQUARE, num_stages=4, occupancy=1))]
           + [("stock", dict(_WIDE, num_stages=3)), ("stock", dict(_SQUARE, num_stages=3))])
SIDE_ENV = {"tile-loop": {"TRITON_TILE_GRID_STRIDE": "0"}}


def main() -> int:
    t = gb.Tensors(aot=False)
    cases = [(("matmul persistent fp16", "4096^3"),
              lambda: gb.matmul_persistent(t, 4096, "float16"))]
    gb.probe_configs(cases, CONFIGS, ["kernel", "size", "config", "TFLOP/s"], SIDE_ENV)
    return 0


if __name__ == "__main__":
    sys.exit(main())
