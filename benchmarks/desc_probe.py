"""The descriptor matmuls' large tiles on the Tile path: stages and occupancy.

    python benchmarks/desc_probe.py    # a GPU machine with tileiras and stock Triton

Tuned over block sizes (2026-11-27), stock Triton's descriptor matmuls win at 128x256x64 and
256x128x64 (698-720 TFLOP/s at 4096^3 on an H100), where the Tile path ran 128x256 at 522-663
depending on the stage count, the persistent kernel at 4 stages at 202, and 256x128 at 415-445.
This probe times both kernels at both tiles over 2 to 5 stages, with and without occupancy 1,
in one process, with stock Triton's winners and cuBLAS beside them (do_bench medians; TFLOP/s).
Run it after `STEPS=none benchmarks/gpu_run.sh`.
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
CASES = ((gb.matmul_desc, 4096), (gb.matmul_tma, 4096), (gb.matmul_tma, 8192))


def _name(side: str, c: dict) -> str:
    occ = f", occupancy {c['occupancy']}" if "occupancy" in c else ""
    return (f"{side} {c['BLOCK_M']}x{c['BLOCK_N']}x{c['BLOCK_K']}, nw{c['num_warps']}, "
            f"ns{c['num_stages']}{occ}")


def main() -> int:
    import torch

    t = gb.Tensors(aot=False)
    header = ["kernel", "size", "config", "TFLOP/s"]
    rows = []
    for make, size in CASES:
        case = make(t, size, "float16")
        for side, config in CONFIGS:
            cell = gb.probe_cell(case, side == "stock", dict(case.meta, **config))
            rows.append([case.name, f"{size}^3", _name(side, config), cell])
            print("  ", rows[-1], file=sys.stderr, flush=True)
        rows.append([case.name, f"{size}^3", "torch (cuBLAS)", gb.probe_torch_cell(case)])
        del case
        torch.cuda.empty_cache()
    gb.print_probe(header, rows, "TFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
