"""Launching: grids, warmup, the compiled-kernel object, options, threads, the Tile switch."""

import threading
import warnings

import numpy as np
import pytest

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, ALPHA: tl.constexpr = 1):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y * ALPHA, mask=mask)


def _data(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    return x, y, np.full(n, np.nan, np.float32)


def test_tuple_grid_and_result():
    x, y, out = _data()
    add_kernel[(triton.cdiv(1000, 128),)](x, y, out, 1000, BLOCK=128)
    np.testing.assert_allclose(out, x + y)


def test_grid_callable_receives_bound_meta():
    x, y, out = _data()
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    add_kernel[grid](x, y, out, 1000, BLOCK=256)
    np.testing.assert_allclose(out, x + y)
    meta = seen[0]
    assert meta["BLOCK"] == 256 and meta["n"] == 1000 and meta["ALPHA"] == 1
    assert meta["x_ptr"] is x
    assert "num_warps" not in meta


def test_keyword_arguments_and_defaults():
    x, y, out = _data()
    add_kernel[(8,)](x_ptr=x, y_ptr=y, out_ptr=out, n=1000, BLOCK=128, ALPHA=2)
    np.testing.assert_allclose(out, x + 2 * y)


def test_grid_shapes():
    x, y, out = _data(64)
    for grid in [(1,), (1, 1), (1, 1, 1), [1], 1]:
        out[:] = np.nan
        add_kernel[grid](x, y, out, 64, BLOCK=64)
        np.testing.assert_allclose(out, x + y)


def test_returns_compiled_kernel():
    x, y, out = _data()
    k = add_kernel[(8,)](x, y, out, 1000, BLOCK=128, num_warps=8, num_stages=2, occupancy=2)
    assert isinstance(k, triton.compiler.CompiledKernel)
    assert "tt.func public @add_kernel" in k.asm["ttir"]
    md = k.metadata
    assert (md.name, md.num_warps, md.num_stages, md.num_ctas, md.occupancy) == \
        ("add_kernel", 8, 2, 1, 2)
    assert (md.path, md.target, md.fallback_reason) == ("ptx", "cpu", None)
    assert md.shared > 0  # tutorial 02 divides by it
    assert k.name == "add_kernel" and k.hash == md.hash and len(k.hash) == 64
    assert isinstance(k.n_regs, int) and k.n_spills == 0
    k._init_handles()


def test_divisibility_reaches_ttir():
    x, y, out = _data(1024)
    k = add_kernel[(8,)](x, y, out, 1024, BLOCK=128)
    assert "tt.divisibility = 16" in k.asm["ttir"]


def test_warmup_compiles_without_launching():
    x, y, out = _data()
    k = add_kernel.warmup(x, y, out, 1000, BLOCK=128, grid=(8,))
    assert np.isnan(out).all()
    assert "tt.func" in k.asm["ttir"]


def test_warmup_from_dtypes_then_direct_launch():
    k = add_kernel.warmup(np.float32, np.float32, np.float32, 1000, BLOCK=128, grid=(1,))
    x, y, out = _data()
    k[(8, 1, 1)](x, y, out, 1000, 128, 1)  # all parameters, constexprs included
    np.testing.assert_allclose(out, x + y)
    with pytest.raises(TypeError, match="expected 6 arguments"):
        k[(8,)](x, y, out, 1000)


def test_calling_on_host_raises():
    with pytest.raises(RuntimeError, match="outside of the scope of a kernel"):
        add_kernel(1, 2, 3, 4)


def test_jit_fields():
    assert add_kernel.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK", "ALPHA"]
    assert [p.is_constexpr for p in add_kernel.params] == [False] * 4 + [True] * 2
    assert add_kernel.params[5].default == 1
    assert add_kernel.constexprs == [4, 5]
    assert add_kernel.src.startswith("def add_kernel(")
    assert add_kernel.fn.__name__ == "add_kernel"
    assert add_kernel.__name__ == "add_kernel"
    assert list(add_kernel.signature.parameters) == add_kernel.arg_names


def test_jit_with_keywords():
    @triton.jit(debug=True, noinline=True, launch_metadata=lambda *a: {}, repr=lambda _: "x")
    def k(x_ptr):
        pass

    assert k.debug and k.noinline and k.launch_metadata is not None


def test_debug_option_and_env(monkeypatch):
    x, y, out = _data()
    assert add_kernel[(8,)](x, y, out, 1000, BLOCK=128).metadata.debug is False
    assert add_kernel[(8,)](x, y, out, 1000, BLOCK=128, debug=True).metadata.debug is True
    monkeypatch.setenv("TRITON_DEBUG", "1")
    assert add_kernel[(8,)](x, y, out, 1000, BLOCK=128).metadata.debug is True


@triton.jit
def histogram_kernel(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))


def test_unsupported_op_falls_back_loudly_once_per_kernel(monkeypatch):
    x = np.random.default_rng(0).integers(-8, 1100, 2048).astype(np.int32)
    out = np.full(1024, -1, np.int32)
    # Tile IR has no histogram; ours is a one-hot compare, up to 2^20 compares: 2048 values
    # into 1024 bins fall back. The warning names the op, its source line and the path taken.
    with pytest.warns(triton.TileFallbackWarning,
                      match=r"histogram_kernel.*'tt.histogram' at .*test_launch.py:\d+:\d+"
                            r".*PTX-style"):
        k = histogram_kernel[(1,)](x, out, N=2048, BINS=1024, enable_tile=True)
    assert k.metadata.path == "ptx" and "tt.histogram" in k.metadata.fallback_reason
    inside = (x >= 0) & (x < 1024)
    np.testing.assert_array_equal(out, np.bincount(x[inside], minlength=1024))
    with warnings.catch_warnings():
        warnings.simplefilter("error", triton.TileFallbackWarning)
        histogram_kernel[(2,)](x, out, N=2048, BINS=1024, enable_tile=True)  # once per kernel
    monkeypatch.setenv("TRITON_TILE_FALLBACK", "error")
    with pytest.raises(RuntimeError, match="TRITON_TILE_FALLBACK=error"):
        histogram_kernel[(1,)](x, np.zeros(2048, np.int32), N=1024, BINS=2048, enable_tile=True)


def test_enable_tile_env_read_at_launch(monkeypatch):
    x, y, out = _data()
    monkeypatch.setenv("ENABLE_TILE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", triton.TileFallbackWarning)
        k = add_kernel[(8,)](x, y, out, 1000, BLOCK=32)
    assert "tileir" in k.asm and k.metadata.tile_accesses
    monkeypatch.setenv("ENABLE_TILE", "0")
    k = add_kernel[(8,)](x, y, out, 1000, BLOCK=32)
    assert "tileir" not in k.asm and k.metadata.path == "ptx" and k.metadata.fallback_reason is None
    # the launch keyword overrides the environment
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", triton.TileFallbackWarning)
        assert "tileir" in add_kernel[(8,)](x, y, out, 1000, BLOCK=32, enable_tile=True).asm


def test_pre_run_hook():
    calls = []
    add_kernel.add_pre_run_hook(lambda *a, **k: calls.append(len(a)))
    try:
        x, y, out = _data()
        add_kernel[(8,)](x, y, out, 1000, BLOCK=128)
    finally:
        add_kernel.pre_run_hooks.clear()
    assert calls == [4]


def test_concurrent_launches_from_threads():
    n = 1 << 16
    errors = []

    def work(seed):
        try:
            for i in range(5):
                x, y, out = _data(n, seed * 10 + i)
                add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
                np.testing.assert_allclose(out, x + y)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_concurrent_first_compiles_from_threads():
    # Several threads race to compile new specializations of one kernel.
    errors = []

    def work(block):
        try:
            x, y, out = _data(512, block)
            add_kernel[(triton.cdiv(512, block),)](x, y, out, 512, BLOCK=block, ALPHA=3)
            np.testing.assert_allclose(out, x + 3 * y, rtol=1e-6)
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(b,)) for b in (16, 32, 64, 128, 16, 32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_driver_shim():
    d = triton.runtime.driver.active
    target = d.get_current_target()
    props = d.utils.get_device_properties(0)
    for key in ("multiprocessor_count", "max_num_regs", "max_shared_mem", "warpSize"):
        assert props[key] > 0
    if triton.runtime.driver.default.backend == "cuda":  # a GPU machine: the GPU's driver
        assert target.backend == "cuda" and target.arch >= 70
        return
    assert (target.backend, target.arch, target.warp_size) == ("cpu", 0, 32)
    assert str(d.get_active_torch_device()) == "cpu"
    d.get_device_interface().synchronize()


def test_public_api_surface():
    for name in ["jit", "autotune", "Config", "heuristics", "JITFunction", "KernelInterface",
                 "cdiv", "next_power_of_2", "CompilationError", "TritonError", "OutOfResources",
                 "compile", "language", "testing", "tools", "runtime", "MockTensor",
                 "reinterpret", "TensorWrapper", "set_allocator", "must_use_result"]:
        assert hasattr(triton, name), name
    assert issubclass(triton.CompilationError, Exception)
    assert triton.cdiv(10, 4) == 3 and triton.next_power_of_2(33) == 64
    assert triton.next_power_of_2(1) == 1 and triton.next_power_of_2(64) == 64
    triton.set_allocator(lambda size, align, stream: None)


def test_aot_compile():
    src = triton.compiler.ASTSource(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                 "out_ptr": "*fp32", "n": "i32"},
                                    constexprs={"BLOCK": 64, "ALPHA": 1})
    k = triton.compile(src)
    x, y, out = _data(100)
    k[(2,)](x, y, out, 100, 64, 1)
    np.testing.assert_allclose(out, x + y)


def test_compile_ttir_file(tmp_path):
    x, y, out = _data(100)
    k = add_kernel[(2,)](x, y, out, 100, BLOCK=64)
    path = tmp_path / "add.ttir"
    path.write_text(k.asm["ttir"])
    aot = triton.compile(str(path))
    assert aot.name == "add_kernel" and aot.asm["ttir"] == k.asm["ttir"]
    out[:] = np.nan
    aot[(2,)](x, y, out, 100)  # one argument per tt.func parameter (100 is not specialized)
    np.testing.assert_allclose(out, x + y)


def test_set_allocator_with_triton_aliased_to_triton_tile(monkeypatch):
    """With `triton` resolving to triton_tile itself (upstream's tests run that way),
    set_allocator records the allocator instead of forwarding to itself forever."""
    import sys

    monkeypatch.setitem(sys.modules, "triton", triton)
    alloc = lambda size, align, stream: None  # noqa: E731
    triton.set_allocator(alloc)
    assert triton._allocator is alloc
    triton.set_allocator(None)
