"""Does the tile order's group size move the large matmuls? GROUP_M on both sides, on the GPU.

    python benchmarks/matmul_order_probe.py    # a GPU machine with tileiras and stock Triton

The tutorial's matmul (examples/matmul.py) numbers its programs so that GROUP_M consecutive ones
cover a column of output blocks, for L2 reuse; the table runs it at GROUP_M 8, as the tutorial
does. At 8192^3 with 128x256 blocks, one wave of 132 programs at GROUP_M 8 spans 8 rows and
about 17 columns of blocks: 16 MiB of A and 69 MiB of B, more than the H100's 50 MiB L2. A
larger group trades B's columns for A's rows. Each side runs its table winners at each group
size in one process (do_bench medians), with cuBLAS beside them; TFLOP/s.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

GROUPS = (8, 16, 32)
# (side, config): each side's winners in the table (benchmarks/RESULTS.md, 2026-11-27)
CONFIGS = [("tile", dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8, num_stages=4,
                         occupancy=1)),
           ("tile", dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3,
                         occupancy=1)),
           ("stock", dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8, num_stages=3))]
SIZES = ((8192, "float16"), (8192, "bfloat16"), (4096, "float16"))


def main() -> int:
    import torch

    t = gb.Tensors(aot=False)
    header = ["size", "dtype", "config"] + [f"GROUP_M {g}" for g in GROUPS]
    rows = []
    for size, dtype in SIZES:
        case = gb.matmul(t, size, dtype)
        for side, config in CONFIGS:
            row = [f"{size}^3", dtype, gb.probe_config_name(side, config)]
            for group in GROUPS:
                meta = dict(case.meta, **config, GROUP_M=group)
                row.append(gb.probe_cell(case, side == "stock", meta))
                print("  ", row, file=sys.stderr, flush=True)
            rows.append(row)
        rows.append([f"{size}^3", dtype, "torch (cuBLAS)", gb.probe_torch_cell(case), "", ""])
        del case
        torch.cuda.empty_cache()
    gb.print_probe(header, rows, "TFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
