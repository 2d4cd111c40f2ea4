"""The GPU table's configs (benchmarks/gpu_bench.py): a config's block sizes reach everything
that depends on them. Runs on the CPU, with the cases' ahead-of-time stand-in tensors."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
import gpu_bench as gb  # noqa: E402


@pytest.mark.parametrize("make", [gb.matmul_desc, gb.matmul_tma], ids=["desc", "tma"])
def test_host_descriptors_take_each_configs_block_shape(make):
    case = make(gb.Tensors(aot=True), 4096, "float16")
    configs = gb.tune(case) + gb.tile_only(case)
    shapes = {(c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"]) for c in configs if "BLOCK_M" in c}
    assert len(shapes) >= 4, shapes  # the block sizes are tuned, not only warps and stages
    for extra in configs:
        meta = dict(case.meta, **{k: v for k, v in extra.items() if k != "env"})
        bm, bn, bk = meta["BLOCK_M"], meta["BLOCK_N"], meta["BLOCK_K"]
        a, b, c, *tail = gb.case_args(case, meta)
        assert [list(d.block_shape) for d in (a, b, c)] == [[bm, bk], [bk, bn], [bm, bn]]
        assert tail[:3] == [4096, 4096, 4096]
        tiles = (4096 // bm) * (4096 // bn)
        assert gb._grid(case, meta) == ((min(132, tiles),) if "TMA" in case.name else (tiles,))
        # one set of descriptors per block shape: a launch reuses them
        assert gb.case_args(case, dict(meta)) is gb.case_args(case, meta)
    # the case's own arguments are its default config's
    assert gb.case_args(case, case.meta) == case.args
