"""@autotune, Config and @heuristics."""

import numpy as np
import pytest

import triton_tile as triton
import triton_tile.language as tl
from triton_tile.runtime.autotuner import Autotuner, Heuristics


def _fake_bench(times):
    """A do_bench that reports a fixed time per BLOCK and still runs the call once."""
    def bench(fn, quantiles=None):
        fn()
        t = times[bench.current]
        return [t, t, t]

    bench.current = None
    return bench


def _timed_configs(bench, blocks):
    configs = []
    for b in blocks:
        def hook(nargs, b=b):
            bench.current = b

        configs.append(triton.Config({"BLOCK": b}, num_warps=4, pre_hook=hook))
    return configs


def test_autotune_picks_fastest_config_and_caches_per_key():
    times = {32: 3.0, 64: 1.0, 128: 2.0}
    bench = _fake_bench(times)

    @triton.autotune(configs=_timed_configs(bench, [32, 64, 128]), key=["n"], do_bench=bench)
    @triton.jit
    def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)

    x = np.arange(500, dtype=np.float32)
    out = np.zeros_like(x)
    k[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)](x, out, 500)
    np.testing.assert_array_equal(out, x * 2)
    assert isinstance(k, Autotuner)
    assert k.best_config.kwargs == {"BLOCK": 64}
    assert set(k.configs_timings) == set(k.configs)
    assert len(k.cache) == 1
    key = next(iter(k.cache))
    assert key == (500, "float32", "float32")  # key args, then every arg's dtype
    times[128] = 0.5
    k[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)](x, out, 500)
    assert k.best_config.kwargs == {"BLOCK": 64}  # cached: not re-benchmarked
    k[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)](x[:300], out[:300], 300)
    assert k.best_config.kwargs == {"BLOCK": 128}  # a new key is benchmarked
    assert len(k.cache) == 2


def test_autotune_with_real_do_bench_and_print(capsys, monkeypatch):
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")

    @triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128},
                                                                            num_warps=8)],
                     key=["n"], warmup=1, rep=2)
    @triton.jit
    def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)

    x = np.arange(256, dtype=np.float32)
    out = np.zeros_like(x)
    k[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)](x, out, 256)
    np.testing.assert_array_equal(out, x + 1)
    text = capsys.readouterr().out
    assert "Autotuning kernel k with config BLOCK: 64" in text
    assert "Triton autotuning for function k,\nwith key as (256, 'float32', 'float32'),\n" \
        in text
    assert "finished after" in text and "best config selected: BLOCK: " in text
    assert k.best_config in k.configs
    for t in k.configs_timings.values():
        assert len(t) == 3 and all(v > 0 for v in t)


def test_single_config_is_not_benchmarked():
    def never(fn, quantiles=None):
        raise AssertionError("benchmarked")

    @triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=[], do_bench=never)
    @triton.jit
    def k(out_ptr, BLOCK: tl.constexpr):
        tl.store(out_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK))

    out = np.zeros(64, np.int32)
    k[(1,)](out)
    np.testing.assert_array_equal(out, np.arange(64))
    assert k.best_config.kwargs == {"BLOCK": 64}


@triton.jit
def accumulate(x_ptr, acc_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(acc_ptr + offs, tl.load(acc_ptr + offs) + tl.load(x_ptr + offs))


def _slow_first(fn, quantiles=None):
    for _ in range(3):
        fn()
    return [1.0, 1.0, 1.0]


def test_reset_to_zero():
    k = triton.autotune(configs=[triton.Config({}, num_warps=2), triton.Config({}, num_warps=4)],
                        key=[], reset_to_zero=["acc_ptr"], do_bench=_slow_first)(accumulate)
    x = np.ones(16, np.float32)
    acc = np.full(16, 5.0, np.float32)
    k[(1,)](x, acc, BLOCK=16)
    # every trial started from zero, and so did the real launch
    np.testing.assert_array_equal(acc, np.ones(16))


def test_restore_value():
    k = triton.autotune(configs=[triton.Config({}, num_warps=2), triton.Config({}, num_warps=4)],
                        key=[], restore_value=["acc_ptr"], do_bench=_slow_first)(accumulate)
    x = np.ones(16, np.float32)
    acc = np.full(16, 5.0, np.float32)
    k[(1,)](x, acc, BLOCK=16)
    # trials were undone; only the real launch's effect remains
    np.testing.assert_array_equal(acc, np.full(16, 6.0))


def test_prune_configs_by():
    seen = {}

    def early(configs, named_args, **kwargs):
        seen["named"] = sorted(named_args)
        return [c for c in configs if c.kwargs["BLOCK"] >= 64]

    def perf_model(**kw):
        return -kw["BLOCK"]

    @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (16, 32, 64, 128, 256)],
                     key=["n"], prune_configs_by={"early_config_prune": early,
                                                  "perf_model": perf_model, "top_k": 1},
                     do_bench=_slow_first)
    @triton.jit
    def k(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    x = np.zeros(256, np.float32)
    k[(1,)](x, 256)
    assert seen["named"] == ["n", "x_ptr"]
    assert k.best_config.kwargs == {"BLOCK": 256}
    assert len(k.configs_timings) == 1


def test_prune_to_nothing_is_an_error():
    @triton.autotune(configs=[triton.Config({"B": 1}), triton.Config({"B": 2})], key=[],
                     prune_configs_by={"early_config_prune": lambda c, a, **k: []})
    @triton.jit
    def k(x_ptr, B: tl.constexpr):
        pass

    with pytest.raises(triton.runtime.AutotunerError, match="No valid autotuner configs"):
        k[(1,)](np.zeros(4, np.float32))


def test_conflicting_meta_parameters():
    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})],
                     key=[], do_bench=_slow_first)
    @triton.jit
    def k(x_ptr, BLOCK: tl.constexpr):
        pass

    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        k[(1,)](np.zeros(4, np.float32), BLOCK=64)


def test_config_api():
    c = triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=4, num_stages=3)
    assert str(c) == ("BLOCK_M: 128, BLOCK_N: 64, num_warps: 4, num_ctas: 1, num_stages: 3, "
                      "maxnreg: None")
    assert c.all_kwargs() == {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 4, "num_ctas": 1,
                              "num_stages": 3}
    same = triton.Config({"BLOCK_N": 64, "BLOCK_M": 128})
    assert c == same and hash(c) == hash(same)
    assert c != triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8)
    occ = triton.Config({}, occupancy=2)
    assert occ.all_kwargs()["occupancy"] == 2 and str(occ).endswith("occupancy: 2")
    assert len({c, same, occ}) == 2


def test_heuristics():
    @triton.heuristics({"BLOCK": lambda a: triton.next_power_of_2(a["n"]),
                        "EVEN": lambda a: a["n"] == a["BLOCK"]})
    @triton.jit
    def k(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        if EVEN:
            tl.store(x_ptr + offs, offs)
        else:
            tl.store(x_ptr + offs, offs + 100, mask=offs < n)

    assert isinstance(k, Heuristics) and set(k.values) == {"BLOCK", "EVEN"}
    x = np.zeros(64, np.int32)
    compiled = k[(1,)](x, 64)
    np.testing.assert_array_equal(x, np.arange(64))
    assert "tt.func" in compiled.asm["ttir"]
    y = np.zeros(64, np.int32)
    k[(1,)](y, 50)
    np.testing.assert_array_equal(y[:50], np.arange(50) + 100)
    assert not y[50:].any()


def test_autotune_over_heuristics_grid_sees_config():
    seen = []

    @triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})],
                     key=["n"], do_bench=_slow_first)
    @triton.heuristics({"EVEN": lambda a: a["n"] % a["BLOCK"] == 0})
    @triton.jit
    def k(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, offs, mask=offs < n)

    def grid(meta):
        seen.append((meta["BLOCK"], meta["EVEN"]))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    x = np.zeros(96, np.int32)
    k[grid](x, 96)
    np.testing.assert_array_equal(x, np.arange(96))
    assert (32, True) in seen and (64, False) in seen
    assert k.base_fn.__name__ == "k"


def test_autotune_cache_results(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_TILE_CACHE_DIR", str(tmp_path))
    calls = []

    def bench(fn, quantiles=None):
        calls.append(1)
        fn()
        return [1.0, 1.0, 1.0]

    def make():
        @triton.autotune(configs=[triton.Config({"B": 16}), triton.Config({"B": 32})],
                         key=[], do_bench=bench, cache_results=True)
        @triton.jit
        def k(x_ptr, B: tl.constexpr):
            tl.store(x_ptr + tl.arange(0, B), tl.arange(0, B))

        return k

    x = np.zeros(32, np.int32)
    make()[(1,)](x)
    assert len(calls) == 2
    k2 = make()
    k2[(1,)](x)
    assert len(calls) == 2  # loaded from the cache directory
    assert k2.best_config.kwargs == {"B": 16}
    assert list((tmp_path / "autotune").glob("k-*.autotune.json"))


def test_autotuner_warmup_compiles_every_config():
    @triton.autotune(configs=[triton.Config({"B": 16}), triton.Config({"B": 32})], key=[])
    @triton.jit
    def k(x_ptr, B: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, B), tl.arange(0, B))

    x = np.zeros(32, np.int32)
    compiled = k.warmup(x, grid=(1,))
    assert len(compiled) == 2 and not x.any()


def test_pre_hook_rebinding_an_argument_reaches_the_kernel():
    """NVIDIA's 2-CTA advice for persistent kernels: a Config pre_hook halves NUM_SMS."""
    seen = []

    @triton.jit
    def persistent(out_ptr, n, NUM_SMS: tl.constexpr):
        tl.store(out_ptr + tl.program_id(0), NUM_SMS)

    def halve(nargs):
        nargs["NUM_SMS"] = nargs["NUM_SMS"] // nargs["num_ctas"]
        seen.append(nargs["NUM_SMS"])

    tuned = triton.autotune(
        configs=[triton.Config({}, num_ctas=2, pre_hook=halve)], key=["n"])(persistent)
    out = np.full(4, -1, np.int32)
    tuned[(4,)](out, 4, NUM_SMS=132)
    assert seen == [66] and (out == 66).all()


def test_autotune_from_many_threads_before_tuning_tunes_once_and_each_thread_is_right():
    # Issue 12 item 2: the launch's arguments were one shared attribute, reset when any
    # call finished, so threads racing an untuned kernel failed ('NoneType' is not a mapping).
    import threading
    import time

    benches = []

    def bench(fn, quantiles=None):
        benches.append(threading.get_ident())
        fn()
        time.sleep(0.01)  # hold the benchmark so the other threads arrive while it runs
        return [1.0, 1.0, 1.0]

    @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (32, 64, 128)],
                     key=["n"], do_bench=bench, restore_value=["out_ptr"])
    @triton.jit
    def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3 + 1, mask=mask)

    n = 777
    rng = np.random.default_rng()
    xs = [rng.standard_normal(n).astype(np.float32) for _ in range(8)]
    outs = [np.full(n, np.nan, np.float32) for _ in range(8)]
    errors = []
    start = threading.Barrier(8)

    def work(i):
        try:
            start.wait()
            k[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)](xs[i], outs[i], n)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for x, out in zip(xs, outs):
        np.testing.assert_allclose(out, x.astype(np.float64) * 3 + 1, rtol=1e-6, atol=1e-6)
    assert len(benches) == 3  # one benchmark per config: tuned once
    assert len(k.cache) == 1
