"""The kernel fuzzer in CI: a fixed seed range on both CPU executors against numpy models,
bounded in time; `python tests/fuzz/fuzz.py --seed S --count N` runs longer by hand."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz  # noqa: E402
import gen  # noqa: E402

SEED = 0  # fixed: a CI failure names the seed that reproduces it
COUNT = 1500
BUDGET_S = 45.0


def test_generated_kernels_match_their_models_on_both_cpu_paths(tmp_path):
    r = fuzz.fuzz(SEED, COUNT, ["ptx", "tile"], budget_s=BUDGET_S, directory=str(tmp_path))
    report = "\n\n".join(f"seed {s} path {p}: {why}\n{src}"
                         for s, p, why, src in r["divergences"][:5])
    assert not r["divergences"], f"{len(r['divergences'])} divergence(s):\n{report}"
    assert r["generated"] >= 100, r  # the budget still covers a useful number of kernels
    assert set(r["kinds"]) == {"elementwise", "2d", "loop", "reshape", "dot", "atomic", "tiles",
                               "combine"}, r


def test_generation_is_deterministic():
    a, b = gen.generate(1234), gen.generate(1234)
    assert a.source == b.source and a.grid == b.grid
    for k, v in a.args.items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, b.args[k])


@pytest.mark.parametrize("path", ["ptx", "tile"])
def test_the_fuzzer_reports_a_wrong_kernel(tmp_path, path):
    # A check that cannot fail is no check: a kernel whose mask drops its last element (left
    # poisoned) and one computing something else must both be reported.
    caught = 0
    for seed in range(40):
        case = gen.generate(seed)
        if case.kind != "elementwise":
            continue
        case.source = case.source.replace("mask = offs < n", "mask = offs < n - 1")
        case.seed = seed + 10_000  # another file name: another kernel
        why, _ = gen.run_case(case, gen.load_kernel(case, str(tmp_path)), path)
        assert why is not None, case.describe()
        caught += 1
    assert caught >= 5
    case = next(c for c in map(gen.generate, range(100)) if c.kind.startswith("dot-fp32"))
    case.source = case.source.replace("acc += tl.dot", "acc -= tl.dot")
    case.seed += 20_000
    why, _ = gen.run_case(case, gen.load_kernel(case, str(tmp_path)), path)
    assert why is not None and "differ" in why
