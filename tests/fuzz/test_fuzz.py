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


# What the fuzzer's models learned from its divergences (each was a model error, the
# executors and the frontend agreed with Triton): regression tests of those rules.

KERNEL_RULES = '''
import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def rules(h_ptr, b_ptr, f_ptr, out_ptr):
    offs = tl.arange(0, 4)
    h = tl.load(h_ptr + offs)
    b = tl.load(b_ptr + offs)
    f = tl.load(f_ptr + offs)
    q = h / (tl.abs(h) + 1)
    tl.static_assert(q.dtype == tl.float32)  # 16-bit division is computed and kept in fp32
    m = tl.maximum(b, b)
    tl.static_assert(m.dtype == tl.float32)  # so are bf16 min/max
    tl.store(out_ptr + offs, tl.minimum(f, f * float("nan")))  # maxnum: NaN loses
'''


@pytest.mark.parametrize("path", ["ptx", "tile"])
def test_rules_the_models_follow(tmp_path, path):
    src = tmp_path / "rules.py"
    src.write_text(KERNEL_RULES)
    import importlib.util

    spec = importlib.util.spec_from_file_location("fuzz_rules", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f = np.random.default_rng().uniform(-2, 2, 4).astype(np.float32)
    out = np.full(4, np.nan, np.float32)
    mod.rules[(1,)](np.ones(4, np.float16), np.ones(4, gen._BF16), f, out,
                    enable_tile=path == "tile")
    np.testing.assert_array_equal(out, f)
