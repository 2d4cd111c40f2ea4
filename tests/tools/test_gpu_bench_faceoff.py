"""The GPU table's face-off (benchmarks/gpu_bench.py): each side's winner timed again back to
back, and the row's ratio taken per round. Runs on the CPU with a fake timer."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
import gpu_bench as gb  # noqa: E402


def _case(unit="TFLOP/s"):
    return gb.Case("matmul fp16", "4096^3", None, (1,), [], {}, [], None, 0.0, 2e12, unit)


def _run(ms, env=None, config="c"):
    return {"ms": ms, "value": 0.0, "config": config, "env": env or {}, "launch": object()}


def test_the_ratio_is_the_median_over_rounds_of_the_fastest_other_side_over_ours():
    ours, stock, torch = _run(9.0), _run(9.0), _run(9.0)
    # ours drifts from 1.0 to 1.4 ms over the rounds, and so do the others a round later
    plan = {id(ours["launch"]): iter([1.0, 1.1, 1.2, 1.3, 1.4]),
            id(stock["launch"]): iter([1.1, 1.1, 1.3, 1.3, 1.5]),
            id(torch["launch"]): iter([2.0, 2.0, 2.0, 2.0, 2.0])}
    order = []

    def bench(fn):
        order.append(fn)
        return next(plan[id(fn)])

    face = gb.faceoff(_case(), {"ours": ours, "stock": stock, "torch": torch}, bench)
    # rounds alternate their order, so neither side always goes first
    assert order[:3] == [ours["launch"], stock["launch"], torch["launch"]]
    assert order[3:6] == [torch["launch"], stock["launch"], ours["launch"]]
    ratios = sorted([1.1 / 1.0, 1.1 / 1.1, 1.3 / 1.2, 1.3 / 1.3, 1.5 / 1.4])
    assert face["ratio"] == pytest.approx(ratios[2])
    assert face["ms"] == {"ours": 1.2, "stock": 1.3, "torch": 2.0}
    row = gb._versus_row(_case(), {"tile_best": ours, "stock_best": stock, "torch": torch,
                                   "faceoff": face}, limit=1000.0)
    assert row[8] == f"{ratios[2]:.2f}x"
    assert row[3] == "1.200" and row[5] == "1.300" and row[7] == "2.000"
    assert row[2] == f"{2e12 / 1.2e-3 / 1e12:.1f} TFLOP/s (c)"
    assert row[9] == f"{100 * 2e12 / 1.2e-3 / 1e12 / 1000.0:.0f}%"


def test_each_side_is_timed_again_under_its_own_environment():
    seen = []
    ours = _run(1.0, env={"TRITON_TILE_WORKER_WARPS": "on"})
    stock = _run(1.0)

    def bench(fn):
        seen.append((fn is ours["launch"], os.environ.get("TRITON_TILE_WORKER_WARPS")))
        return 1.0

    assert "TRITON_TILE_WORKER_WARPS" not in os.environ
    gb.faceoff(_case(), {"ours": ours, "stock": stock, "torch": None}, bench)
    assert set(seen) == {(True, "on"), (False, None)}
    assert "TRITON_TILE_WORKER_WARPS" not in os.environ


def test_a_run_keeps_the_environment_it_was_measured_under():
    with gb._Env({"TRITON_TILE_ALLOW_TMA": "0"}):
        with gb._Env({"TRITON_TILE_WORKER_WARPS": "on"}):
            inner = dict(gb._Env.active)
        outer = dict(gb._Env.active)
    assert inner == {"TRITON_TILE_ALLOW_TMA": "0", "TRITON_TILE_WORKER_WARPS": "on"}
    assert outer == {"TRITON_TILE_ALLOW_TMA": "0"} and gb._Env.active == {}


def test_without_another_side_there_is_no_faceoff_and_the_row_says_so():
    ours = _run(1.0)
    assert gb.faceoff(_case(), {"ours": ours, "stock": None, "torch": None}, lambda fn: 1.0) is None
    row = gb._versus_row(_case(), {"tile_best": ours, "stock_best": None, "torch": None},
                         limit=None)
    assert row[8] == "-" and row[4] == "-" and row[6] == "-"
