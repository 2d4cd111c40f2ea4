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


def main() -> int:
    t = gb.Tensors(aot=False)
    cases = [((f"{size}^3", dtype), lambda s=size, d=dtype: gb.matmul(t, s, d))
             for size, dtype in SIZES]
    gb.probe_configs(cases, CONFIGS, ["size", "dtype", "config", "TFLOP/s"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
