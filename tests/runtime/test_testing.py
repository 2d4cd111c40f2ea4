"""triton_tile.testing on the CPU."""

import time

import numpy as np
import pytest

import triton_tile as triton
from triton_tile import testing


def test_do_bench_returns_milliseconds():
    ms = testing.do_bench(lambda: time.sleep(0.002), warmup=5, rep=20)
    assert 1.5 < ms < 50


def test_do_bench_quantiles_and_modes():
    def f():
        return sum(range(1000))

    q = testing.do_bench(f, warmup=1, rep=5, quantiles=[0.5, 0.2, 0.8])
    assert len(q) == 3 and q[1] <= q[0] <= q[2]
    assert isinstance(testing.do_bench(f, warmup=1, rep=5, quantiles=[0.5]), float)
    times = testing.do_bench(f, warmup=1, rep=5, return_mode="all")
    assert isinstance(times, list) and len(times) >= 1
    lo = testing.do_bench(f, warmup=1, rep=5, return_mode="min")
    hi = testing.do_bench(f, warmup=1, rep=5, return_mode="max")
    assert 0 < lo and 0 < hi


def test_do_bench_grad_to_none():
    class T:
        grad = 1

    t = T()
    testing.do_bench(lambda: None, warmup=1, rep=1, grad_to_none=[t])
    assert t.grad is None


def test_do_bench_is_driver_benchmarker():
    assert triton.runtime.driver.active.get_benchmarker() is testing.do_bench


def test_assert_close():
    testing.assert_close(np.ones(4), np.ones(4) + 1e-3)
    testing.assert_close(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    with pytest.raises(AssertionError):
        testing.assert_close(np.ones(4), np.ones(4) + 1e-1)
    testing.assert_close(np.ones(4), np.ones(4) * 1.01, atol=0, rtol=0.02)
    testing.assert_close(np.ones(4), np.ones(4) + 0.5, atol=lambda dt: 1.0)
    testing.assert_close(np.array([True, False]), np.array([True, False]))


def test_assert_close_bf16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.arange(8).astype(ml_dtypes.bfloat16)
    testing.assert_close(a, np.arange(8, dtype=np.float32))


def test_perf_report_prints_a_table(capsys, tmp_path):
    @testing.perf_report(testing.Benchmark(
        x_names=["N"], x_vals=[16, 32], line_arg="provider", line_vals=["a", "b"],
        line_names=["A", "B"], ylabel="GB/s", plot_name="demo-bench", args={"scale": 2}))
    def bench(N, provider, scale):
        return (N * scale, N, N * 3) if provider == "a" else float(N)

    table = bench.run(print_data=True, return_df=True, save_path=str(tmp_path))
    out = capsys.readouterr().out
    assert "demo-bench:" in out
    lines = out.strip().splitlines()
    assert lines[1].split() == ["N", "A", "B"]
    assert lines[2].split() == ["16", "32", "16"]
    assert (tmp_path / "demo-bench.csv").exists()
    assert list(table.columns) == ["N", "A", "B"]


def test_compare_backends_times_both_paths(capsys):
    import warnings

    import triton_tile as triton
    import triton_tile.language as tl

    @triton.jit
    def double(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 1.0, mask=mask)

    x = np.random.default_rng(0).standard_normal(3000).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", triton.TileFallbackWarning)
        r = triton.testing.compare_backends(double, (3,), x, 3000, BLOCK=1024, rep=5, warmup=1)
    assert r["ptx"] > 0 and r["tile"] > 0 and r["speedup"] == r["ptx"] / r["tile"]
    assert r["tile_path"] in ("tile", "ptx")
    out = capsys.readouterr().out
    assert "PTX-style (ENABLE_TILE=0)" in out and "Tile IR (ENABLE_TILE=1)" in out
