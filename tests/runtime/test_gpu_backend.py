"""The GPU backends, tested where there is no GPU: the launch ABI, the executor following the
data, ahead-of-time compiles (TRITON_TILE_TARGET) and a cache that a GPU machine without
tileiras hits unchanged (backends/tile_gpu.py), and the CUDA bindings failing cleanly."""

import json
import pathlib
import types
import warnings

import numpy as np
import pytest

import triton_tile as triton
import triton_tile.language as tl
from triton_tile import _core
from triton_tile.backends import ptx_gpu, tile_gpu, tileiras
from triton_tile.compiler import tile_stage
from triton_tile.runtime.errors import TileFallbackWarning

requires_tileiras = pytest.mark.skipif(tileiras.find_tileiras() is None,
                                       reason="needs tileiras (pip install triton_tile[gpu])")


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


class FakeCudaArray:
    """A CUDA array as far as argument handling can tell (no memory behind it)."""

    def __init__(self, n=1000, typestr="<f4", ptr=1 << 20):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (ptr, False),
                                         "version": 3}


def three_arrays():
    # Distinct addresses: the same array passed twice would be another specialization (one
    # alias class on the Tile path).
    return [FakeCudaArray(ptr=(i + 1) << 20) for i in range(3)]


@pytest.fixture
def gpu_machine(monkeypatch):
    """Pretend device 0 is an sm_90 GPU (compiles only: nothing is loaded or launched)."""
    monkeypatch.setattr(tile_gpu, "device_arch", lambda device: "sm_90")
    monkeypatch.delenv("TRITON_TILE_TARGET", raising=False)


def no_tileiras(monkeypatch):
    monkeypatch.setattr(tileiras, "find_tileiras", lambda: None)

    def refuse(*a, **k):
        raise AssertionError("tileiras must not run")

    monkeypatch.setattr(tileiras, "compile", refuse)


def test_abi_signature():
    types = ("*fp32", "i32", "constexpr", "u64", "fp32", "fp64", "fp16", "bf16", "u1",
             ("i64", "*i8"), "tensordesc<fp16[64, 32]>")
    assert tile_gpu.abi_signature(types) == "pqqfdhbqqp" + "pqqqq"
    assert tile_gpu.abi_signature(("*fp32", "constexpr", "i32"), keep_constexpr=True) == "p-q"


def test_cuda_bindings_without_a_driver():
    if _core.cuda_available():
        pytest.skip("a GPU machine")
    with pytest.raises(_core.CudaError) as e:
        _core.CudaKernel(b"\x7fELF", "k", 0, "p")
    assert "libcuda" in e.value.args[0] and e.value.args[1] == 0
    assert _core.cuda_image_rejected(221) and not _core.cuda_image_rejected(1)
    assert len(_core.source_hash) == 64
    assert triton.runtime.driver.active.get_current_target().backend == "cpu"


def test_cuda_arrays_without_a_gpu_are_a_clear_error():
    if _core.cuda_available():
        pytest.skip("a GPU machine")
    a = FakeCudaArray()
    with pytest.raises(_core.CudaError, match="libcuda"):
        add_kernel[(1,)](a, a, a, 1000, BLOCK=1024)


@pytest.mark.parametrize("error", [ValueError, TypeError])
def test_arrays_on_two_devices_are_an_error_naming_both(error):
    """A ValueError (issue 16 asks for it) that is still the TypeError it was."""
    a, b = FakeCudaArray(), FakeCudaArray()
    b.device = type("Dev", (), {"id": 1})()
    with pytest.raises(error, match=r"add_kernel: argument 'y_ptr' is on CUDA device 1 but "
                                    r"argument 'x_ptr' is on CUDA device 0"):
        add_kernel[(1,)](a, b, a, 1000, BLOCK=1024)


@requires_tileiras
@pytest.mark.parametrize("disable", [False, True])
def test_the_cubin_carries_the_kernels_source_lines(monkeypatch, cache_dir, disable):
    """Each op's line goes into the bytecode's Debug section and tileiras --lineinfo makes the
    cubin's line table (ncu's source view); TRITON_DISABLE_LINE_INFO=1 leaves both out."""
    import inspect
    import subprocess

    monkeypatch.setenv("TRITON_TILE_TARGET", "sm_90")
    monkeypatch.setenv("ENABLE_TILE", "1")
    monkeypatch.setenv("TRITON_DISABLE_LINE_INFO", "1" if disable else "0")
    k = add_kernel.warmup(np.float32, np.float32, np.float32, 1000, BLOCK=1024, grid=(1,))
    assert k.metadata.path == "tile"
    lines, first = inspect.getsourcelines(add_kernel.fn)
    load_line = first + next(i for i, t in enumerate(lines) if "tl.load" in t)
    where = f'"{__file__}":{load_line}:'
    assert (b".debug_line" in k.asm["cubin"]) == (not disable)
    disasm = pathlib.Path(tileiras.find_tileiras()).with_name("tileirdisasm")
    if disasm.exists():
        path = cache_dir / "k.tilebc"
        path.write_bytes(k.asm["tilebc"])
        d = subprocess.run([str(disasm), "-g", str(path)], capture_output=True)
        assert d.returncode == 0, d.stderr
        assert (where in d.stdout.decode()) == (not disable), d.stdout.decode()[-2000:]


@requires_tileiras
def test_ahead_of_time_compile_then_a_gpu_machine_without_tileiras_hits(monkeypatch,
                                                                          cache_dir,
                                                                          gpu_machine):
    # Ahead of time: TRITON_TILE_TARGET, dtypes standing in for arrays, no GPU.
    monkeypatch.setenv("TRITON_TILE_TARGET", "sm_90")
    monkeypatch.setenv("ENABLE_TILE", "1")
    k = add_kernel.warmup(np.float32, np.float32, np.float32, 1000, BLOCK=1024, grid=(1,))
    assert isinstance(k, tile_gpu.TileGPUKernel)
    assert (k.metadata.path, k.metadata.target, k.signature) == ("tile", "sm_90", "pppq-")
    assert {"ttir", "tileir", "tilebc", "cubin"} <= set(k.asm)
    assert k.asm["cubin"].startswith(b"\x7fELF")
    entry = cache_dir / k.hash
    meta = json.loads((entry / "add_kernel.json").read_text())
    assert meta["key_inputs"]["target"] == "sm_90"
    assert meta["key_inputs"]["tileiras"] == tileiras.version()
    assert "target" not in meta["key_inputs"]["env"]  # the knob enters only as the target
    for stage in ("ttir", "tileir", "tilebc", "cubin"):
        assert (entry / f"add_kernel.{stage}").is_file()
    cubin, version = k.asm["cubin"], tileiras.version()

    # The GPU machine: no TRITON_TILE_TARGET, tileiras absent (so its version comes from the
    # cache), another tileiras location configured, CUDA arrays of the same specialization.
    monkeypatch.delenv("TRITON_TILE_TARGET")
    monkeypatch.setenv("TRITON_TILE_TILEIRAS", "/elsewhere/tileiras")
    monkeypatch.setenv("TRITON_TILE_FALLBACK", "error")  # how the GPU run proves the hit
    no_tileiras(monkeypatch)
    add_kernel.cache.clear()
    a = three_arrays()
    k2 = add_kernel.warmup(*a, 1000, BLOCK=1024, grid=(1,))
    assert isinstance(k2, tile_gpu.TileGPUKernel) and k2.asm["cubin"] == cubin
    assert k2.hash == k.hash and k2.tileiras_version == version
    # A miss says which key input differs from the nearest entry of the kernel.
    monkeypatch.setenv("TRITON_TILE_ALLOW_TMA", "0")
    add_kernel.cache.clear()
    with pytest.raises(triton.TileFallbackError, match=r"nearest entry of add_kernel was built "
                                                        r"from other key inputs: env\.allow_tma\)"):
        add_kernel.warmup(*a, 1000, BLOCK=1024, grid=(1,))


@requires_tileiras
def test_a_kernel_tileiras_does_not_assemble_falls_back_loudly(monkeypatch, cache_dir,
                                                               gpu_machine):
    """tileiras exits 5 on some bytecode it should take (docs/gpu_chain.md): the Tile path
    cannot run that kernel, so it falls back as for any other reason, with tileiras's error,
    the kept input and the command that reproduces it; TRITON_TILE_FALLBACK=error raises."""
    monkeypatch.setenv("TRITON_TILE_TARGET", "sm_90")
    monkeypatch.setenv("ENABLE_TILE", "1")

    def exit5(bytecode, arch, **kwargs):
        raise tileiras.TileirasError(
            f"tileiras failed (exit 5) compiling the kernel for {arch}:\nerror: failed to "
            "compile Tile IR program\n  input kept: /tmp/kept/kernel.tilebc\n  reproduce: "
            "tileiras --gpu-name sm_90 -O3 /tmp/kept/kernel.tilebc", returncode=5)

    monkeypatch.setattr(tileiras, "compile", exit5)
    monkeypatch.setattr(tile_stage, "_warned", set())  # warned once per kernel: not before
    with pytest.warns(triton.TileFallbackWarning,
                      match=r"kernel add_kernel: the Tile IR path cannot run it: tileiras did "
                            r"not assemble it: tileiras failed \(exit 5\)(.|\n)*input kept: "
                            r"/tmp/kept/kernel.tilebc(.|\n)*reproduce: "):
        k = add_kernel.warmup(np.float32, np.float32, np.float32, 1000, BLOCK=1024, grid=(1,))
    assert k.metadata.path == "ptx" and "exit 5" in k.metadata.fallback_reason
    assert "cubin" not in k.asm
    assert not list(cache_dir.rglob("*.cubin"))  # nothing cached for it
    add_kernel.cache.clear()
    monkeypatch.setenv("TRITON_TILE_FALLBACK", "error")
    with pytest.raises(triton.TileFallbackError, match=r"tileiras did not assemble it"):
        add_kernel.warmup(np.float32, np.float32, np.float32, 1000, BLOCK=1024, grid=(1,))


def test_each_device_compiles_for_its_own_arch_under_its_own_key(monkeypatch, cache_dir):
    """Two GPUs of different archs in one process (issue 16, what one machine can check): the
    same specialization on each device's arrays compiles once per arch, under two cache keys,
    and each kernel says its target."""
    archs = {0: "sm_90", 1: "sm_100"}
    monkeypatch.setattr(tile_gpu, "device_arch", lambda device: archs[device])
    monkeypatch.delenv("TRITON_TILE_TARGET", raising=False)
    monkeypatch.setenv("ENABLE_TILE", "1")
    monkeypatch.setattr(tile_gpu, "installed_tileiras_version", lambda: "stand-in")
    monkeypatch.setattr(tileiras, "compile",
                        lambda bytecode, arch: b"\x7fELF for " + arch.encode())
    on0 = three_arrays()
    on1 = three_arrays()
    for a in on1:
        a.device = type("Dev", (), {"id": 1})()
    k0 = add_kernel.warmup(*on0, 1000, BLOCK=1024, grid=(1,))
    k1 = add_kernel.warmup(*on1, 1000, BLOCK=1024, grid=(1,))
    assert (k0.metadata.target, k1.metadata.target) == ("sm_90", "sm_100")
    assert k0.asm["cubin"].endswith(b"sm_90") and k1.asm["cubin"].endswith(b"sm_100")
    assert k0.hash != k1.hash
    assert add_kernel.warmup(*on0, 1000, BLOCK=1024, grid=(1,)) is k0  # each stays cached


@requires_tileiras
def test_a_new_tileiras_version_is_a_miss(monkeypatch, gpu_machine):
    monkeypatch.setenv("ENABLE_TILE", "1")
    a = three_arrays()
    k1 = add_kernel.warmup(*a, 1000, BLOCK=1024, grid=(1,))
    add_kernel.cache.clear()
    monkeypatch.setattr(tile_gpu, "installed_tileiras_version", lambda: "tileiras V99.0.0")
    k2 = add_kernel.warmup(*a, 1000, BLOCK=1024, grid=(1,))
    assert k2.hash != k1.hash and k2.tileiras_version == "tileiras V99.0.0"


def test_no_tileiras_and_no_cache_falls_back_loudly(monkeypatch, gpu_machine):
    monkeypatch.setenv("ENABLE_TILE", "1")
    no_tileiras(monkeypatch)
    a = three_arrays()
    with pytest.warns(TileFallbackWarning, match="tileiras is not installed"):
        k = add_kernel.warmup(*a, 999, BLOCK=512, grid=(1,))
    assert isinstance(k, ptx_gpu.PTXGPUKernel)
    assert (k.metadata.path, k.metadata.target) == ("ptx", "sm_90")
    assert "tileir" in k.asm  # the conversion ran; only the cubin is missing
    monkeypatch.setenv("TRITON_TILE_FALLBACK", "error")
    add_kernel.cache.clear()
    with pytest.raises(RuntimeError, match="TRITON_TILE_FALLBACK=error"):
        add_kernel.warmup(*a, 999, BLOCK=512, grid=(1,))


def test_ptx_path_on_a_gpu_needs_stock_triton(monkeypatch, gpu_machine):
    monkeypatch.setenv("ENABLE_TILE", "0")
    monkeypatch.setattr(ptx_gpu, "stock_triton", _no_stock_triton)
    a = FakeCudaArray()
    k = add_kernel.warmup(a, a, a, 1000, BLOCK=1024, grid=(1,))
    assert isinstance(k, ptx_gpu.PTXGPUKernel) and k.metadata.path == "ptx"
    with pytest.raises(ImportError, match="pip install triton"):
        add_kernel[(1,)](a, a, a, 1000, BLOCK=1024)


def _no_stock_triton():
    raise ImportError("stock Triton is not installed (test); " + ptx_gpu.INSTALL_HINT)


def test_host_arrays_still_run_on_the_cpu_with_a_target_set(monkeypatch):
    monkeypatch.setenv("TRITON_TILE_TARGET", "sm_90")
    x = np.arange(100, dtype=np.float32)
    out = np.full_like(x, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TileFallbackWarning)
        k = add_kernel[(1,)](x, x, out, 100, BLOCK=128)
    assert k.metadata.target == "cpu"
    np.testing.assert_array_equal(out, 2 * x)


def _matmul_tma_example():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "matmul_tma.py")
    spec = importlib.util.spec_from_file_location("tt_example_matmul_tma_guard", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _compile_examples_with_stand_in_cubins(monkeypatch):
    """Ahead of time for sm_90 with stand-in cubins (no tileiras needed: what the tests check
    is the Tile IR and the launch guard); the matmul_tma example module."""
    monkeypatch.setenv("TRITON_TILE_TARGET", "sm_90")
    monkeypatch.setenv("ENABLE_TILE", "1")
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    monkeypatch.setattr(tile_gpu, "installed_tileiras_version", lambda: "stand-in")
    monkeypatch.setattr(tileiras, "compile", lambda bytecode, arch: b"\x7fELF stand-in")
    return _matmul_tma_example()


def test_launch_guard_decides_loop_conditions_for_the_whole_grid(monkeypatch, cache_dir,
                                                                 gpu_machine):
    # The guard the host runs before a launch (csrc/conversion/ttir_to_tile/launch_guard.h).
    mod = _compile_examples_with_stand_in_cubins(monkeypatch)
    from triton_tile.tools.tensor_descriptor import TensorDescriptor

    M, N, K, bm, bn, bk = 256, 384, 192, 128, 128, 64
    x = [triton.MockTensor(np.float16, s) for s in ((M, K), (K, N), (M, N))]
    descs = [TensorDescriptor.from_tensor(t, s) for t, s in zip(x, ([bm, bk], [bk, bn],
                                                                     [bm, bn]))]

    def flat(m=M, k_loop=K, k_a=K):  # the kernel's arguments in TTIR order
        return [0, m, k_a, K, 1, 0, K, N, N, 1, 0, M, N, N, 1, M, N, k_loop]

    tiles = (M // bm) * (N // bn)
    k = mod.matmul_desc_kernel.warmup(*descs, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                      grid=(tiles,))
    assert k.metadata.path == "tile" and "guard" in k.asm
    # the kernel launched when the guard holds: one dot loop; the general one: two
    assert k.asm["tileir"].count("mmaf") == 1 and k.asm["tileir_general"].count("mmaf") == 2
    assert k.asm["cubin_general"].startswith(b"\x7fELF")
    guard = k._guard
    assert guard.holds((tiles, 1, 1), flat())
    assert guard.holds((tiles - 1, 1, 1), flat())
    assert not guard.holds((tiles + 1, 1, 1), flat())  # a program past the last tile
    assert not guard.holds((tiles, 1, 1), flat(k_loop=K + bk))  # K tiles past A's extent
    assert not guard.holds((tiles, 1, 1), flat(m=M - bm))  # a row of tiles past A's rows
    assert guard.holds((tiles, 1, 1), flat(k_a=K + 1))  # a longer A is fine

    # The persistent kernel: its tile loop bounds every program, whatever the grid. Its loop
    # over tiles runs as a grid of tiles (backends/grid_stride.py): the guard decides the
    # grids a launch makes of it.
    p = mod.matmul_tma_kernel.fn.warmup(*descs, M, N, K, 4, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                        grid=(4,))
    assert "guard" in p.asm and p.asm["tileir"].count("mmaf") == 1 and "grid" in p.asm
    for programs in (1, 4, tiles + 5):
        grids = _launch_grids(p, (programs, 1, 1), flat() + [programs])
        assert grids == [(tiles, 1, 1)]  # one program per tile
        assert p._guard.holds(grids[0], flat() + [programs])
    grids = _launch_grids(p, (4, 1, 1), flat(k_loop=K + bk) + [4])
    assert not p._guard.holds(grids[0], flat(k_loop=K + bk) + [4])
    # A grid other than the step: (programs, iterations) with programs past the last tile,
    # which the guard leaves out (the kernel's `if item < tiles`).
    for programs, step in ((3, 4), (tiles + 5, 4)):
        grids = _launch_grids(p, (programs, 1, 1), flat() + [step])
        assert grids == [(programs, -(-tiles // step), 1)]
        assert p._guard.holds(grids[0], flat() + [step])
        assert not p._guard.holds(grids[0], flat(k_loop=K + bk) + [step])


def _launch_grids(kernel, grid, flat):
    """The grids a launch of `kernel` on `grid` runs its cubin on."""
    if kernel._grid_stride is None:
        return [grid]
    return kernel._grid_stride.launches(grid, tuple(flat[i] for i in kernel._grid_stride.args))


@triton.jit
def _row_block_kernel(x_ptr, y_ptr, n_rows, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    offs = rows[:, None] * 16 + tl.arange(0, 16)[None, :]
    x = tl.load(x_ptr + offs, mask=rows[:, None] < n_rows, other=0.0)
    tl.store(y_ptr + offs, x * 2, mask=rows[:, None] < n_rows)


def test_launch_guard_drops_the_branch_of_a_box_the_grid_never_empties(monkeypatch, cache_dir,
                                                                     gpu_machine):
    """A program's rows `n - pid * ROWS` may be empty as far as the kernel can tell, so each
    view access sits in a branch; over a grid of cdiv(n, ROWS) programs none is, which the host
    decides: the kernel it launches then accesses unbranched, the general one keeps both."""
    monkeypatch.setenv("TRITON_TILE_RAISE_VIEWS", "all")  # (no dot: views, not gathers)
    _compile_examples_with_stand_in_cubins(monkeypatch)
    n, rows = 100, 32
    x, y = (triton.MockTensor(np.float32, (n, 16)) for _ in range(2))
    grid = triton.cdiv(n, rows)
    k = _row_block_kernel.warmup(x, y, n, ROWS=rows, grid=(grid,))
    assert k.metadata.path == "tile" and "guard" in k.asm
    fast, general = k.asm["tileir"], k.asm["tileir_general"]
    assert " if " not in fast and "load_view_tko" in fast and "store_view_tko" in fast
    assert general.count(" if ") == 2
    assert k._guard.holds((grid, 1, 1), [0, 0, n])
    assert not k._guard.holds((grid + 1, 1, 1), [0, 0, n])  # a program past the last row
    assert not k._guard.holds((grid, 1, 1), [0, 0, n - rows])


@triton.jit
def _row_block_constexpr_first_kernel(x_ptr, ROWS: tl.constexpr, y_ptr, n_rows):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    x = tl.load(x_ptr + rows, mask=rows < n_rows, other=0.0)
    tl.store(y_ptr + rows, x + 1, mask=rows < n_rows)


def test_launch_reads_the_guards_arguments_past_constexprs(monkeypatch, cache_dir, gpu_machine):
    """A launch hands the guard its argument values picked from the runtime list, where a
    constexpr before them still holds its place (the guard's indices count TTIR arguments)."""
    from triton_tile.runtime import specialize as sp

    monkeypatch.setenv("TRITON_TILE_RAISE_VIEWS", "all")  # (no dot: views, not gathers)
    _compile_examples_with_stand_in_cubins(monkeypatch)
    x, y = (triton.MockTensor(np.float32, (100,)) for _ in range(2))
    k = _row_block_constexpr_first_kernel.warmup(x, 32, y, 100, grid=(4,))
    assert k._guard is not None and k._guard.args == (2,)
    runtime = ["x", sp.CONSTEXPR, "y", 100]
    assert k._guard_values(runtime) == (100,)
    assert k._guard.holds_for((4, 1, 1), (100,)) and not k._guard.holds_for((5, 1, 1), (100,))


def test_launch_guard_intervals_never_claim_more_than_the_executor(monkeypatch, cache_dir,
                                                                  gpu_machine):
    """The interval pre-check (backends/launch_guard.py) decides common launches without the
    executor, and where it says the conditions hold, running every program agrees: random
    shapes, grids past the tiles, K loops past the extent, huge strides. The persistent kernel
    in grouped tile order (GROUP_M 8, its default) bounds its tile row only relationally
    (first row + a remainder of min(rows left, GROUP_M)), which intervals cannot see: its
    common launch is decided by the executor, correctly; in row order (GROUP_M 1) by the
    intervals."""
    mod = _compile_examples_with_stand_in_cubins(monkeypatch)
    from triton_tile.tools.tensor_descriptor import TensorDescriptor

    x = [triton.MockTensor(np.float16, (256, 256)) for _ in range(3)]
    descs = [TensorDescriptor.from_tensor(t, s) for t, s in zip(x, ([64, 32], [32, 64],
                                                                     [64, 64]))]
    meta = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    one = mod.matmul_desc_kernel.warmup(*descs, 256, 256, 256, grid=(16,), **meta)
    persistent = mod.matmul_tma_kernel.fn.warmup(*descs, 256, 256, 256, 4, grid=(4,), **meta)
    in_rows = mod.matmul_tma_kernel.fn.warmup(*descs, 256, 256, 256, 4, grid=(4,), GROUP_M=1,
                                              **meta)
    rng = np.random.default_rng(7)
    agreed = 0
    for kernel, is_persistent, by_intervals in ((one, False, True), (in_rows, True, True),
                                                (persistent, True, False)):
        guard = kernel._guard
        assert guard._load()
        for case in range(300):
            m, n, k = (int(v) for v in rng.integers(1, 700, 3))
            # each descriptor extent near the loop's, on either side
            am, ak, bk, bn = (v + int(rng.integers(-70, 70)) for v in (m, k, k, n))
            stride = int(rng.choice([k, 1 << 31, 1 << 30]))
            flat = [0, am, ak, stride, 1, 0, bk, bn, n, 1, 0, m, n, n, 1, m, n, k]
            tiles = -(-m // 64) * -(-n // 64)
            if is_persistent:  # the step (NUM_SMS) the grid, or not (a 2-D grid of tiles)
                programs = int(rng.integers(1, 140))
                flat.append(programs if case % 2 else int(rng.integers(1, 140)))
            else:
                programs = max(1, tiles + int(rng.integers(-2, 3)))
            values = tuple(flat[i] for i in guard.args)
            for grid in _launch_grids(kernel, (programs, 1, 1), flat):
                if guard._intervals.proves(grid, values):
                    assert guard._run(grid, values), (case, flat, grid)
                    agreed += 1
        # the launches a matmul normally makes are decided without the executor
        g = ((-(-600 // 64)) ** 2 if not is_persistent else 132, 1, 1)
        extra = [132] if is_persistent else []
        flat = [0, 600, 600, 600, 1] * 3 + [600, 600, 600] + extra
        guard.executor_runs = 0
        (g,) = _launch_grids(kernel, g, flat)
        assert guard.holds(g, flat)
        assert guard.executor_runs == (0 if by_intervals else 1)
    assert agreed > 20  # the pre-check took part


def test_a_guard_the_executor_cannot_run_sends_launches_to_the_general_kernel():
    guard = tile_gpu.LaunchGuard("k", json.dumps({"ttir": "not ttir", "args": []}))
    with pytest.warns(RuntimeWarning, match="launch guard"):
        assert not guard.holds((4, 1, 1), [])
    assert not guard.holds((4, 1, 1), [])  # decided once per grid and arguments
    assert not guard.holds((8, 1, 1), [])  # and no second warning


class FakeTorchCuda:
    """A torch CUDA tensor as far as the launch path can tell (no memory behind it)."""

    is_cuda = True

    def __init__(self, ptr, device=0):
        self.ptr, self.device, self.dtype = ptr, device, np.dtype(np.float32)

    def data_ptr(self):
        return self.ptr

    def get_device(self):
        return self.device

    def storage_offset(self):
        return 0


def fake_twin(monkeypatch, jit_fn):
    """Registers a stand-in stock twin of `jit_fn`, holding the globals it reads as twin_of
    would (no stock Triton here)."""
    g = jit_fn.fn.__globals__
    copied = tuple((n, g[n]) for n in sorted(ptx_gpu.read_names(jit_fn)) if n in g)
    callees = tuple(v for _, v in copied if isinstance(v, type(jit_fn)))
    monkeypatch.setitem(ptx_gpu._TWINS, id(jit_fn),
                        (jit_fn, jit_fn.src, object(), copied, (), callees))
    for callee in callees:
        fake_twin(monkeypatch, callee)


@triton.jit
def _copy_block(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def copy_by_helper_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    _copy_block(x_ptr, out_ptr, BLOCK)  # the body reads no `tl`: only the annotation does


def test_stock_twins_hold_the_names_their_annotations_read(monkeypatch):
    """Stock Triton resolves `BLOCK: tl.constexpr` from the twin's globals, so a twin holds the
    names the source reads outside the code too. A kernel whose body left `tl` to a helper (the
    attention backward's preprocess) failed on the H100's PTX path with NameError('tl is not
    defined')."""

    class FakeStockJIT:
        def __init__(self, fn, **kwargs):
            self.fn, self.src = fn, None

        def _unsafe_update_src(self, src):
            self.src = src

    fake = types.SimpleNamespace(jit=FakeStockJIT, language=types.SimpleNamespace())
    monkeypatch.setattr(ptx_gpu, "stock_triton", lambda: fake)
    monkeypatch.setattr(ptx_gpu, "_TWINS", {})
    twin = ptx_gpu.twin_of(copy_by_helper_kernel)
    assert "tl" in twin.fn.__globals__ and "_copy_block" in twin.fn.__globals__
    assert type(twin.fn.__globals__["_copy_block"]) is FakeStockJIT  # the helper's twin
    assert "tl" in ptx_gpu.read_names(copy_by_helper_kernel)
    assert "tl" not in ptx_gpu._names(copy_by_helper_kernel.fn.__code__)


def test_ptx_path_launches_hand_straight_to_stock_triton(monkeypatch, gpu_machine):
    from triton_tile.runtime import specialize as sp

    monkeypatch.setenv("ENABLE_TILE", "0")
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeTorchCuda})
    stock_kernels = {}  # stock Triton's cache: one kernel per (n % 16 == 0)
    launches = []

    def launch_twin(twin, grid, args, opt_kw):
        launches.append((grid, args[3]))
        return stock_kernels.setdefault(args[3] % 16 == 0, object())

    monkeypatch.setattr(ptx_gpu, "launch_twin", launch_twin)
    fake_twin(monkeypatch, add_kernel)
    specialized = []
    x, y, out = (FakeTorchCuda((i + 1) << 20) for i in range(3))
    add_kernel._specialize((x, y, out, 1000, 256), True)  # makes the C++ specializer launches call
    real = add_kernel._fast_spec
    monkeypatch.setattr(add_kernel, "_fast_spec", lambda *a: specialized.append(1) or real(*a))
    add_kernel.cache.clear()

    k1 = add_kernel[(4,)](x, y, out, 1000, BLOCK=256)  # new stock kernel: ours is looked up
    assert isinstance(k1, ptx_gpu.PTXGPUKernel) and k1.stock_kernel is stock_kernels[False]
    assert (len(launches), len(specialized)) == (1, 1)
    k2 = add_kernel[lambda meta: (meta["n"] // 256 + 1,)](x, y, out, 1000, BLOCK=256)
    assert k2 is k1 and (len(launches), len(specialized)) == (2, 1)  # stock's work only
    assert launches[-1] == ((4, 1, 1), 1000)
    k3 = add_kernel[(4,)](x, y, out, 1024, BLOCK=256)  # another stock specialization
    assert k3 is not k1 and k3.stock_kernel is stock_kernels[True]
    assert (len(launches), len(specialized)) == (3, 2)  # launched once, never twice
    a, b, c = np.arange(8, dtype=np.float32), np.ones(8, np.float32), np.full(8, np.nan,
                                                                               np.float32)
    add_kernel[(1,)](a, b, c, 8, BLOCK=8)  # host arrays: the CPU executor, not stock Triton
    assert len(launches) == 3 and c.tolist() == (a + 1).tolist()


def test_ptx_fast_launch_translates_constexprs_only(monkeypatch, gpu_machine):
    """Tensors and scalars reach stock Triton as they are; constexprs (which may be our dtypes
    or constexpr objects) go through arg_to_stock."""
    from triton_tile.runtime import specialize as sp

    monkeypatch.setenv("ENABLE_TILE", "0")
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeTorchCuda})
    seen = []
    monkeypatch.setattr(ptx_gpu, "launch_twin", lambda twin, grid, args, opt_kw:
                        seen.append((args, opt_kw)) or object())
    monkeypatch.setattr(ptx_gpu, "arg_to_stock", lambda v: ("stock", v))
    fake_twin(monkeypatch, add_kernel)
    x, y, out = (FakeTorchCuda((i + 1) << 20) for i in range(3))
    add_kernel.cache.clear()
    add_kernel[(4,)](x, y, out, 1000, BLOCK=256)  # our path: looks the kernel up
    add_kernel[(4,)](x, y, out, 1000, BLOCK=256, num_warps=2)  # the fast launch
    args, opt_kw = seen[-1]
    assert args[:4] == [x, y, out, 1000] and args[4] == ("stock", 256)
    assert opt_kw == {"num_warps": 2}


class FakeStockKernel:
    """Stock Triton's CompiledKernel as its launch reads it: `run` (the launcher), `function`,
    `packed_metadata`, `launch_metadata`."""

    def __init__(self, name):
        self.function, self.packed_metadata, self.calls = f"{name}-fn", f"{name}-meta", []

    def run(self, *args):
        self.calls.append(args)

    def launch_metadata(self, grid, stream, *args):
        self.metadata_args = args  # what a hook sees: the tensors themselves
        return ("md", grid, stream)


class FakeScratchlessLauncher:
    """Stock 3.6's CudaLauncher of a kernel without scratch memory: its C `launch` and the
    flags its Python __call__ adds."""

    global_scratch_size = profile_scratch_size = 0
    launch_cooperative_grid, launch_pdl = "coop", "pdl"

    def __init__(self):
        self.calls = []

    def launch(self, *args):
        self.calls.append(args)


class HookChain:
    def __init__(self, calls):
        self.calls = calls


def test_ptx_path_calls_the_launcher_of_the_stock_kernel_that_ran(monkeypatch, gpu_machine):
    """Where stock Triton's launch call is known, a PTX kernel's first launch goes through
    stock's run (which compiles) and later ones straight to that stock kernel's launcher, with
    the arguments, launch metadata and hooks stock's run would pass, except that tensors pass
    as the device addresses our specializer read (the launcher would otherwise read them again
    and ask the driver about each); another specialization of ours is another stock kernel,
    and a stale twin goes back to stock's run."""
    import sys
    import types

    from triton_tile.runtime import specialize as sp

    monkeypatch.setenv("ENABLE_TILE", "0")
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeTorchCuda})
    monkeypatch.setattr(ptx_gpu, "direct_launch_known", lambda: True)
    runtime = types.SimpleNamespace(launch_enter_hook="enter", launch_exit_hook="exit")
    monkeypatch.setitem(sys.modules, "triton", types.SimpleNamespace(
        knobs=types.SimpleNamespace(runtime=runtime)))
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(
        cuda=types.SimpleNamespace(is_initialized=lambda: False),
        _C=types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 70 + device,
                                 _cuda_getDevice=lambda: 0)))
    stock_kernels, through_run = {}, []

    def launch_twin(twin, grid, args, opt_kw):
        through_run.append((grid, args[3]))
        return stock_kernels.setdefault(args[3] % 16 == 0, FakeStockKernel(str(args[3])))

    monkeypatch.setattr(ptx_gpu, "launch_twin", launch_twin)
    monkeypatch.setattr(ptx_gpu, "twin_of", lambda fn: ptx_gpu.current_twin(fn))
    fake_twin(monkeypatch, add_kernel)
    x, y, out = (FakeTorchCuda((i + 1) << 20) for i in range(3))
    add_kernel.cache.clear()

    k1 = add_kernel[(4,)](x, y, out, 1000, BLOCK=256)  # compiles: through stock's run
    first = stock_kernels[False]
    assert len(through_run) == 1 and first.calls == [] and k1.stock_kernel is first
    k2 = add_kernel[lambda meta: (meta["n"] // 256 + 1,)](x, y, out, 1000, BLOCK=256)
    assert k2 is k1 and len(through_run) == 1
    assert first.calls == [(4, 1, 1, 70, "1000-fn", "1000-meta", ("md", (4, 1, 1), 70),
                            "enter", "exit", x.ptr, y.ptr, out.ptr, 1000, 256)]
    assert first.metadata_args == (x, y, out, 1000, 256)
    k3 = add_kernel[(4,)](x, y, out, 1024, BLOCK=256)  # another specialization of ours
    assert k3 is not k1 and len(through_run) == 2 and stock_kernels[True].calls == []
    fake_twin(monkeypatch, add_kernel)  # a new twin (the old one went stale)
    add_kernel[(4,)](x, y, out, 1000, BLOCK=256)
    assert len(through_run) == 3 and len(first.calls) == 1
    add_kernel[(4,)](x, y, out, 1000, BLOCK=256)  # the new twin's kernel, directly
    assert len(through_run) == 3 and len(first.calls) == 2
    # A launcher with no scratch memory: its C launch, called as its __call__ would; hook
    # chains with nothing in them pass as None, and then no launch metadata is built.
    launcher = FakeScratchlessLauncher()
    stock_kernels[True].run = launcher
    runtime.launch_enter_hook, runtime.launch_exit_hook = HookChain([]), HookChain([])
    add_kernel[(4,)](x, y, out, 1024, BLOCK=256)  # the direct launch of a new twin's kernel
    add_kernel[(4,)](x, y, out, 1024, BLOCK=256)
    assert len(through_run) == 4 and launcher.calls == [
        (4, 1, 1, 70, "1024-fn", "coop", "pdl", None, None, "1024-meta", None, None, None,
         x.ptr, y.ptr, out.ptr, 1024, 256)]
    runtime.launch_exit_hook = HookChain(["a profiler"])  # not empty: passed, metadata built
    add_kernel[(4,)](x, y, out, 1024, BLOCK=256)
    assert launcher.calls[-1][9:13] == ("1024-meta", ("md", (4, 1, 1), 70), None,
                                        runtime.launch_exit_hook)


_SCALE = _SCALE_BEFORE = tl.constexpr(2)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * _SCALE, mask=offs < n)


def test_ptx_fast_launch_still_checks_globals_and_devices(monkeypatch, gpu_machine):
    from triton_tile.runtime import specialize as sp

    monkeypatch.setenv("ENABLE_TILE", "0")
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeTorchCuda})
    stock, launches = object(), []
    monkeypatch.setattr(ptx_gpu, "launch_twin",
                        lambda *a: launches.append(a[1]) or stock)
    fake_twin(monkeypatch, scale_kernel)
    x, out = FakeTorchCuda(1 << 20), FakeTorchCuda(2 << 20)
    scale_kernel.cache.clear()
    k = scale_kernel[(1,)](x, out, 100, BLOCK=128)
    assert scale_kernel[(1,)](x, out, 100, BLOCK=128) is k and len(launches) == 2
    # A global the kernel read was rebound: the twin (which holds a copy) is stale, so the
    # launch takes our path, which raises before launching, as stock Triton would.
    n = len(launches)
    monkeypatch.setitem(globals(), "_SCALE", tl.constexpr(3))
    with pytest.raises(RuntimeError, match="Global variable _SCALE has changed"):
        scale_kernel[(1,)](x, out, 100, BLOCK=128)
    assert len(launches) == n
    monkeypatch.setitem(globals(), "_SCALE", _SCALE_BEFORE)
    # Arrays on two devices: the TypeError comes before anything launches.
    n = len(launches)
    with pytest.raises(TypeError, match="on CUDA device 1 but argument 'x_ptr' is on CUDA "
                                        "device 0"):
        scale_kernel[(1,)](x, FakeTorchCuda(3 << 20, device=1), 100, BLOCK=128)
    assert len(launches) == n


_FACTOR = _FACTOR_BEFORE = tl.constexpr(3)


@triton.jit
def _times_factor(x):
    return x * _FACTOR


@triton.jit
def scale_by_callee_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, _times_factor(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)


def test_ptx_fast_launch_checks_the_globals_of_called_functions(monkeypatch, gpu_machine):
    """A global read only by a called @jit function is rebound: the caller's twin is stale too,
    so the launch takes our path, which raises before anything launches."""
    from triton_tile.runtime import specialize as sp

    monkeypatch.setenv("ENABLE_TILE", "0")
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeTorchCuda})
    stock, launches = object(), []
    monkeypatch.setattr(ptx_gpu, "launch_twin", lambda *a: launches.append(a[1]) or stock)
    fake_twin(monkeypatch, scale_by_callee_kernel)
    x, out = FakeTorchCuda(1 << 20), FakeTorchCuda(2 << 20)
    scale_by_callee_kernel.cache.clear()
    k = scale_by_callee_kernel[(1,)](x, out, 100, BLOCK=128)
    assert scale_by_callee_kernel[(1,)](x, out, 100, BLOCK=128) is k and len(launches) == 2
    monkeypatch.setitem(globals(), "_FACTOR", tl.constexpr(4))
    with pytest.raises(RuntimeError, match="Global variable _FACTOR has changed"):
        scale_by_callee_kernel[(1,)](x, out, 100, BLOCK=128)
    assert len(launches) == 2


def test_jit_function_is_freed_after_launches():
    """The launch specializer holds its function weakly: a launched kernel defined in a scope
    is garbage once the scope drops it."""
    import gc
    import weakref

    def make():
        @triton.jit
        def local_kernel(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, offs, mask=offs < n)

        return local_kernel

    k = make()
    a = np.zeros(8, np.int32)
    k[(1,)](a, 8, BLOCK=8)
    assert a.tolist() == list(range(8)) and k._fast_spec is not None
    ref = weakref.ref(k)
    del k
    gc.collect()
    assert ref() is None


def test_tile_ir_is_the_same_every_compile(monkeypatch, cache_dir, gpu_machine):
    """Compiling one kernel again gives the same Tile IR (index polynomials order their terms
    by value ids, not addresses: before, 10 of 20 compiles of this kernel differed)."""
    mod = _compile_examples_with_stand_in_cubins(monkeypatch)
    from triton_tile.tools.tensor_descriptor import TensorDescriptor

    x = [triton.MockTensor(np.float16, (256, 256)) for _ in range(3)]
    descs = [TensorDescriptor.from_tensor(t, s) for t, s in zip(x, ([64, 32], [32, 64],
                                                                     [64, 64]))]
    texts = set()
    for _ in range(8):
        mod.matmul_tma_kernel.fn.cache.clear()
        k = mod.matmul_tma_kernel.fn.warmup(*descs, 256, 256, 256, 4, grid=(4,), BLOCK_M=64,
                                            BLOCK_N=64, BLOCK_K=32)
        texts.add((k.asm["tileir"], k.asm["tileir_general"], k.asm["guard"]))
    assert len(texts) == 1


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x, y = tl.load(x_ptr + offs, mask=mask), tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


@pytest.mark.parametrize("how", ["default", "launch", "env"])
def test_gpu_targets_contract_multiply_add_as_stock_triton(monkeypatch, cache_dir, gpu_machine,
                                                            how):
    """`a * x + y` on a GPU target is one fma, as stock Triton's LLVM makes it (the H100 gave
    other bits in a quarter of the results without); enable_fp_fusion=False, at the launch
    or through TRITON_DEFAULT_FP_FUSION=0, keeps two roundings; the CPU executors never
    contract (the TTIR executor does not either)."""
    monkeypatch.setenv("ENABLE_TILE", "1")
    monkeypatch.setattr(tile_gpu, "installed_tileiras_version", lambda: "stand-in")
    monkeypatch.setattr(tileiras, "compile", lambda bytecode, arch: b"\x7fELF stand-in")
    kw = {"enable_fp_fusion": False} if how == "launch" else {}
    if how == "env":
        monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "0")
    axpy_kernel.cache.clear()
    k = axpy_kernel.warmup(*three_arrays(), 1.5, 1000, BLOCK=1024, grid=(1,), **kw)
    fused = how == "default"
    assert k.metadata.enable_fp_fusion is fused
    body = k.asm["tileir"]
    assert (" fma " in body, " mulf " in body, " addf " in body) == (fused, not fused,
                                                                      not fused)
    x, y, out = (np.random.default_rng(0).standard_normal(100, np.float32) for _ in range(3))
    host = axpy_kernel.warmup(x, y, out, 1.5, 100, BLOCK=128, grid=(1,))
    assert " fma " not in host.asm["tileir"] and " mulf " in host.asm["tileir"]


def _matmul_example():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "matmul.py")
    spec = importlib.util.spec_from_file_location("tt_example_matmul_lazy", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.matmul_kernel.fn


def test_a_launch_waits_only_for_the_guarded_cubin(monkeypatch, cache_dir, gpu_machine):
    """A guarded kernel's general cubin (both loop versions: tileiras's slowest compile)
    builds in the background: the compile returns with the guarded cubin, a launch whose
    guard fails waits for the general one, and the cache entry gains it when it is done."""
    import threading
    import time

    monkeypatch.setenv("ENABLE_TILE", "1")
    monkeypatch.setattr(tile_gpu, "installed_tileiras_version", lambda: "stand-in")
    release = threading.Event()

    def compile(bytecode, arch):
        if threading.current_thread().name.startswith("triton_tile_general_cubin"):
            assert release.wait(10), "the general cubin was waited for before it was needed"
            return b"\x7fELF general"
        return b"\x7fELF guarded"

    monkeypatch.setattr(tileiras, "compile", compile)
    kernel = _matmul_example()
    s = 512
    a, b, c = (FakeCudaArray(s * s, "<f2", (i + 1) << 24) for i in range(3))
    args = (a, b, c, s, s, s, s, 1, s, 1, s, 1)
    meta = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, ACTIVATION="", grid=(16,))
    k = kernel.warmup(*args, **meta)
    assert k.metadata.path == "tile" and "guard" in k.asm
    assert k.asm["cubin"] == b"\x7fELF guarded" and "cubin_general" not in k.asm
    assert not k.general_cubin.done()
    release.set()
    assert k._general_cubin() == b"\x7fELF general"  # what a failing guard loads
    entry = cache_dir / k.hash / "matmul_kernel.cubin_general"
    for _ in range(100):  # the entry is completed by the future's callback
        if entry.is_file():
            break
        time.sleep(0.05)
    assert entry.read_bytes() == b"\x7fELF general"
    kernel.cache.clear()  # a new process: the entry has both cubins
    again = kernel.warmup(*args, **meta)
    assert again.asm["cubin_general"] == b"\x7fELF general" and again.general_cubin is None


def test_a_general_kernel_tileiras_fails_on_sends_its_launches_to_the_ptx_path(
        monkeypatch, cache_dir, gpu_machine):
    """A guarded kernel compiled at its first launch: tileiras builds the guarded cubin, and
    the general one (both loop versions) in the background. Where tileiras fails on the
    general one, the launches the guard sends there run on the PTX path, loudly, as a kernel
    tileiras fails on does; the guarded launches stay on the Tile path."""
    import threading

    from triton_tile.runtime import specialize as sp

    monkeypatch.setenv("ENABLE_TILE", "1")
    monkeypatch.setenv("TRITON_TILE_RAISE_VIEWS", "all")  # (no dot: views, not gathers)
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    monkeypatch.setattr(tile_gpu, "installed_tileiras_version", lambda: "stand-in")
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeTorchCuda})
    monkeypatch.setattr(tile_stage, "_warned", set())

    def assemble(bytecode, arch, **kwargs):
        if threading.current_thread().name.startswith("triton_tile_general_cubin"):
            raise tileiras.TileirasError("tileiras failed (exit 5) compiling the kernel for "
                                         f"{arch}:\nerror: failed to compile Tile IR program",
                                         returncode=5)
        return b"\x7fELF stand-in"

    tile_launches, stock_launches = [], []

    class FakeCudaKernel:
        n_regs = 32

        def __init__(self, cubin, name, device, signature):
            assert cubin == b"\x7fELF stand-in"

        def launch(self, gx, gy, gz, stream, args):
            tile_launches.append(gx)

    monkeypatch.setattr(tileiras, "compile", assemble)
    monkeypatch.setattr(_core, "CudaKernel", FakeCudaKernel)
    monkeypatch.setattr(tile_gpu, "stream_of", lambda buf: 0)
    monkeypatch.setattr(ptx_gpu, "launch_stock", lambda jit_fn, grid, bound, opt_kw:
                        stock_launches.append(grid[0]) or object())
    _row_block_kernel.cache.clear()
    x, y = FakeTorchCuda(1 << 20), FakeTorchCuda(2 << 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the guarded launch is no fallback
        k = _row_block_kernel[(4,)](x, y, 100, ROWS=32)
    assert k.metadata.path == "tile" and "guard" in k.asm and tile_launches == [4]
    with pytest.warns(TileFallbackWarning, match=r"kernel _row_block_kernel: the Tile IR path "
                      r"cannot run it: its general kernel \(for launches where the launch "
                      r"guard fails\) has no cubin: tileiras failed \(exit 5\)"):
        _row_block_kernel[(5,)](x, y, 100, ROWS=32)  # a program past the last row
    assert stock_launches == [5] and tile_launches == [4]
    _row_block_kernel[(6,)](x, y, 100, ROWS=32)
    _row_block_kernel[(4,)](x, y, 100, ROWS=32)
    assert stock_launches == [5, 6] and tile_launches == [4, 4]

    _row_block_kernel.cache.clear()
    monkeypatch.setenv("TRITON_TILE_FALLBACK", "error")
    _row_block_kernel[(4,)](x, y, 100, ROWS=32)
    with pytest.raises(triton.TileFallbackError, match=r"its general kernel"):
        _row_block_kernel[(5,)](x, y, 100, ROWS=32)


@triton.jit
def per_problem_kernel(PTRS, SIZES, OUT, G, BLOCK: tl.constexpr):
    """Each problem's first block row summed through a descriptor made once per problem from
    an address read from a table: the grouped GEMM's form, whose loop's accesses index one
    view made per problem (TRITON_TILE_ANCHORED_VIEWS)."""
    acc = tl.zeros((BLOCK, BLOCK), tl.float32)
    for g in range(G):
        n = tl.load(SIZES + g)
        x = tl.load(PTRS + g).to(tl.pointer_type(tl.float32))
        desc = tl.make_tensor_descriptor(x, shape=[n, n], strides=[n, 1],
                                         block_shape=[BLOCK, BLOCK])
        for k in range(0, tl.cdiv(n, BLOCK)):
            acc += desc.load([0, k * BLOCK])
    r = tl.arange(0, BLOCK)
    tl.store(OUT + r[:, None] * BLOCK + r[None, :], acc)


def test_tileiras_rejecting_anchored_views_gets_a_view_per_access(monkeypatch, cache_dir,
                                                                  gpu_machine):
    """Where tileiras rejects a kernel whose views are made where their descriptors are (13.4
    exits 5 on the grouped GEMM's at a 128x256 tile), the kernel is converted again with a view
    per access and stays on the Tile path; its metadata says why. A kernel without such views
    still falls back (test_a_kernel_tileiras_does_not_assemble_falls_back_loudly)."""
    monkeypatch.setenv("ENABLE_TILE", "1")
    monkeypatch.setattr(tile_gpu, "installed_tileiras_version", lambda: "stand-in")
    seen = []

    def rejects_anchored(bytecode, arch):
        seen.append(bytecode)
        if len(seen) == 1:
            raise tileiras.TileirasError("tileiras failed (exit 5) compiling the kernel for "
                                         f"{arch}:\nerror: failed to compile Tile IR program",
                                         returncode=5)
        return b"\x7fELF stand-in"

    monkeypatch.setattr(tileiras, "compile", rejects_anchored)
    args = (FakeCudaArray(4, "<i8", 1 << 20), FakeCudaArray(4, "<i4", 2 << 20),
            FakeCudaArray(32 * 32, "<f4", 3 << 20), 4)
    per_problem_kernel.cache.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error", TileFallbackWarning)
        k = per_problem_kernel.warmup(*args, BLOCK=32, grid=(1,))
    assert k.metadata.path == "tile" and k.asm["cubin"] == b"\x7fELF stand-in"
    assert k.metadata.anchored_views.startswith("off: tileiras rejected them (tileiras failed")
    assert len(seen) == 2 and seen[0] != seen[1]
    details = [detail for op, _, _, detail in k.metadata.tile_accesses if "descriptor_load" in op]
    assert details and not any("made where its tensor is made" in d for d in details)
    # accepted at once: the views stay where the descriptor is made
    monkeypatch.setattr(tileiras, "compile", lambda bytecode, arch: b"\x7fELF stand-in")
    per_problem_kernel.cache.clear()
    k = per_problem_kernel.warmup(*args, BLOCK=16, grid=(1,))
    assert k.metadata.anchored_views is None
    details = [detail for op, _, _, detail in k.metadata.tile_accesses if "descriptor_load" in op]
    assert details and all("made where its tensor is made" in d for d in details)


@requires_tileiras
def test_the_grouped_gemms_large_descriptor_tile_stays_on_the_tile_path(monkeypatch,
                                                                        cache_dir):
    """The real tileiras on the grouped GEMM's descriptor kernel at 128x256x64 (8 warps, 3
    stages), ahead of time for sm_90: it stays on the Tile path with its loads and its tile
    store through the views made where the descriptors are. (13.4 rejected those views, exit
    5, while the store waited for the K loop's read tokens, before covered_reads.h; the kernel
    was then built with a view per access.)"""
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "grouped_gemm.py")
    spec = importlib.util.spec_from_file_location("tt_example_grouped_gemm_aot", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setenv("TRITON_TILE_TARGET", "sm_90")
    a = [np.zeros((s, s), np.float16) for s in (256, 512)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", TileFallbackWarning)
        k = mod.grouped_matmul_desc_kernel.warmup(
            *mod.group_tables(a, a, a), 2, NUM_PROGRAMS=132, BLOCK_M=128, BLOCK_N=256,
            BLOCK_K=64, num_warps=8, num_stages=3, occupancy=1, grid=(132,), enable_tile=True)
    assert k.metadata.path == "tile" and k.asm["cubin"]
    assert k.metadata.anchored_views is None
    details = [detail for op, _, _, detail in k.metadata.tile_accesses]
    assert len(details) == 3 and all("made where its tensor is made" in d for d in details)


def test_stock_triton_gets_no_option_only_triton_tile_knows():
    """The GPU's PTX path hands launch options to stock Triton, which rejects names it does
    not know (a KeyError on an H200 for grid_stride before it was filtered)."""
    seen = []

    class Twin:
        def __getitem__(self, grid):
            return lambda *args, **kw: seen.append(kw)

        def warmup(self, *args, grid, **kw):
            seen.append(kw)

    opts = {"num_warps": 4, "num_stages": 2, "occupancy": 2, "grid_stride": False,
            "enable_tile": False}
    ptx_gpu.launch_twin(Twin(), (1, 1, 1), [], opts)
    ptx_gpu.warmup_twin(Twin(), (1, 1, 1), [], opts)
    assert seen == [{"num_warps": 4, "num_stages": 2}] * 2
