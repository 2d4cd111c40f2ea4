"""Do CTA clusters move the large matmuls with the tileiras on PATH? num_ctas on the Tile path.

    python benchmarks/cluster_probe.py    # a GPU machine with tileiras and stock Triton

cuBLAS's fastest sm_90 GEMM at 4096^3 runs 256x128 tiles in 2-CTA clusters (RESULTS.md,
2026-11-26); the Tile path runs one tile a CTA. With tileiras 13.4, asking for clusters
(`num_ctas=2`, Tile IR's num_cta_in_cga) made it slower (673.6 -> 495.5 TFLOP/s at 4096^3
fp16). This probe times the table's winner and the cluster variants of both tile shapes in one
process, with stock Triton's winner and cuBLAS beside them (do_bench medians; TFLOP/s), so a
newer tileiras can be checked in one call: `TILEIRAS=13.5 STEPS=none benchmarks/gpu_run.sh`,
then this script.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

_TILE = dict(num_warps=8, num_stages=4, occupancy=1)
# (side, config)
CONFIGS = [("tile", dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, **_TILE)),
           ("tile", dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_ctas=2, **_TILE)),
           ("tile", dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=64, **_TILE)),
           ("tile", dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=64, num_ctas=2, **_TILE)),
           ("tile", dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=4,
                         occupancy=2, num_ctas=2)),
           ("stock", dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8, num_stages=3))]
SIZES = ((4096, "float16"), (8192, "float16"), (4096, "bfloat16"))


def _name(side: str, c: dict) -> str:
    extra = "".join(f", {k} {c[k]}" for k in ("occupancy", "num_ctas") if k in c)
    return (f"{side} {c['BLOCK_M']}x{c['BLOCK_N']}x{c['BLOCK_K']}, nw{c['num_warps']}, "
            f"ns{c['num_stages']}{extra}")


def main() -> int:
    import torch

    t = gb.Tensors(aot=False)
    header = ["size", "dtype", "config", "TFLOP/s"]
    rows = []
    for size, dtype in SIZES:
        case = gb.matmul(t, size, dtype)
        for side, config in CONFIGS:
            cell = gb.probe_cell(case, side == "stock", dict(case.meta, **config))
            rows.append([f"{size}^3", dtype, _name(side, config), cell])
            print("  ", rows[-1], file=sys.stderr, flush=True)
        rows.append([f"{size}^3", dtype, "torch (cuBLAS)", gb.probe_torch_cell(case)])
        del case
        torch.cuda.empty_cache()
    gb.print_probe(header, rows, "TFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
