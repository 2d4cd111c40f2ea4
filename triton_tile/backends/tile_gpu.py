"""The Tile IR path on NVIDIA GPUs.

    TTIR --tile_stage--> Tile IR --_core.tile_to_bytecode--> asm['tilebc']
         --tileiras (backends/tileiras.py)--> asm['cubin'] --_core.CudaKernel--> launch

A launch whose arrays live on a GPU compiles for that GPU's arch (`sm_90` for cc 9.0); a
`kernel.warmup(...)` with TRITON_TILE_TARGET set compiles for that arch with no GPU present
(ahead of time). The kernel launches with grid = tile blocks, block = (1,1,1), no dynamic
shared memory (docs/gpu_chain.md), one 8-byte parameter slot per kernel argument, on the
current stream of the arrays' owner (torch's or cupy's; else the default stream).

The on-disk cache (runtime/cache.py) keys a GPU kernel on everything a CPU kernel's key has,
with the arch as the target, plus the tileiras version, in two steps:

    base = cache_key(..., target=arch)          # no tileiras version in it
    key  = sha256(base + tileiras --version)    # the entry: ttir, tileir, tilebc, cubin, json

Where tileiras is installed its version is read (`--version`, once per process). Where it is
not (a GPU machine running a cache built elsewhere), no version can be probed, so the versions
come from the cache itself: `<cache>/tileiras_index/<base>.json` lists the tileiras versions
that entries under this base were compiled by, and the newest entry that loads (its key and
checksums verified) runs unchanged. Nothing else machine-specific enters either key: the
compiler fingerprint hashes sources, not binaries, and TRITON_TILE_TARGET/TRITON_TILE_TILEIRAS
enter only as the arch and the version.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Optional

from .. import knobs
from ..compiler import driver, tile_stage
from ..compiler import kernel as cc
from ..runtime import cache as disk
from ..runtime import specialize as sp
from . import cpu, tileiras
from .grid_stride import asm_entry
from .launch_guard import LaunchGuard

_ARCH: Dict[int, str] = {}
_INDEX_LOCK = threading.Lock()
_GENERAL_LOCK = threading.Lock()


class _NoGeneralCubin(Exception):
    """A guarded kernel's general cubin is neither cached nor being built."""


def device_arch(device: int) -> str:
    """`sm_XY` of CUDA device `device` (cubins are arch-exact)."""
    arch = _ARCH.get(device)
    if arch is None:
        major, minor = cpu.core().cuda_compute_capability(device)
        arch = _ARCH[device] = f"sm_{major}{minor}"
    return arch


def stream_of(buf: sp.DeviceBuffer) -> int:
    """The stream a launch on `buf`'s data runs on: its owner's current stream."""
    if buf.owner == "torch":
        torch = sys.modules["torch"]
        return torch._C._cuda_getCurrentRawStream(buf.device)
    if buf.owner == "cupy":
        return sys.modules["cupy"].cuda.get_current_stream().ptr
    return 0


# Kernel parameter kinds for _core.CudaKernel (csrc/python/bind_cuda.cpp): pointers 'p', every
# integer width 'q' (its 64-bit two's complement; the driver reads the declared size), floats
# by width.
_FLOAT_KINDS = {"fp32": "f", "fp64": "d", "fp16": "h", "bf16": "b"}


def abi_signature(param_types, keep_constexpr: bool = False) -> str:
    """One kind character per kernel parameter, in order: constexprs dropped (or '-', which
    the launcher skips), tuples flattened, a host TensorDescriptor expanded to base,
    shape x r, strides x r."""
    out: List[str] = []
    for t in param_types:
        if isinstance(t, tuple):
            out.append(abi_signature(t))
        elif t == "constexpr":
            out.append("-" if keep_constexpr else "")
        elif t.startswith("*"):
            out.append("p")
        elif t.startswith("tensordesc"):
            rank = t[t.index("[") + 1:t.index("]")].count(",") + 1
            out.append("p" + "q" * (2 * rank))
        else:
            out.append(_FLOAT_KINDS.get(t, "q"))
    return "".join(out)


# ------------------------------------------------------------------------------- the cache


def installed_tileiras_version() -> Optional[str]:
    """The full `tileiras --version` text, or None when no tileiras is installed."""
    if tileiras.find_tileiras() is None:
        return None
    return tileiras.version()


def entry_key(base: str, tileiras_version: str) -> str:
    return hashlib.sha256(f"{base}\ntileiras:{tileiras_version}".encode()).hexdigest()


def _index_path(base: str) -> str:
    return os.path.join(knobs.cache_dir, "tileiras_index", base + ".json")


def indexed_versions(base: str) -> List[str]:
    """tileiras versions that compiled entries under `base`, most recent first."""
    try:
        with open(_index_path(base)) as f:
            versions = json.load(f)["versions"]
        return [v for v in reversed(versions) if isinstance(v, str)]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _index_add(base: str, version: str) -> None:
    path = _index_path(base)
    with _INDEX_LOCK:
        versions = [v for v in reversed(indexed_versions(base)) if v != version] + [version]
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                json.dump({"versions": versions}, f)
            os.replace(tmp, path)
        except OSError:  # an unwritable cache costs a recompile later, nothing else
            pass


# ----------------------------------------------------------------------------- compiling


def arch_of(device) -> str:
    """The arch a GPU compile targets: the device's (("cuda", index)) or the ahead-of-time
    target's (("aot", "sm_90"))."""
    return device_arch(device[1]) if device[0] == "cuda" else tileiras.normalize_arch(device[1])


class GPUTile(driver.Backend):
    """tileir (tile_stage.convert for the arch, with launch guards), tilebc (the bytecode, or
    a Fallback: an op the writer cannot encode, no tileiras and no cached cubin), cubin
    (tileiras). Falls back to gpu-ptx, stock Triton.

    A kernel with a launch guard has two cubins. For a launch, only the guarded one (what runs
    where the guard holds, the usual case) is waited for; the general one (both versions of
    each guarded loop, about 3x tileiras's time for the tutorial matmul) compiles in the
    background, and a launch whose guard fails waits for it then (where tileiras fails on it,
    such launches run on the PTX path, loudly). Ahead of time both compile before returning:
    the machine that runs the cache may have no tileiras.

    The cache entry is final (the cubins), keyed in two steps by the tileiras version (this
    module's docstring). `metadata.compile_times` says where a cold compile spent its seconds
    (frontend, tileir, tilebc, cubin: tileiras, with its probe on the first compile of a
    process; `load` is added at the first launch on a device), or `cache` on a hit."""

    name = "gpu-tile"
    fallback = "gpu-ptx"

    def compile(self, jit_fn, spec, options, device, arch, frontend):
        name = jit_fn.__name__
        start = time.perf_counter()
        base, material = disk.cache_key(jit_fn, spec, options, target=arch)
        version = installed_tileiras_version()
        store = disk.DiskCache(knobs.cache_dir)
        if not knobs.always_compile:
            for v in [version] if version else indexed_versions(base):
                entry = store.load(entry_key(base, v), name)
                if entry is not None and "cubin" in entry["asm"]:
                    asm = {k: a for k, a in entry["asm"].items() if k != disk.LOCATED_TTIR}
                    md = dict(entry["metadata"],
                              compile_times={"cache": time.perf_counter() - start})
                    kernel = TileGPUKernel(jit_fn, spec, options, asm, md, v)
                    if "guard" in asm and "cubin_general" not in asm and version:
                        # its general cubin was still compiling when the entry was written
                        kernel.general_cubin = _BACKGROUND.submit(
                            _finish_general, store, entry_key(base, v), name,
                            asm["tilebc_general"], arch, dict(entry["metadata"]),
                            dict(material, tileiras=v))
                    return kernel
        module, _ = frontend(jit_fn, spec, options, base)
        state = driver.State(jit_fn, spec, options, name, entry_key(base, version or "none"),
                             arch, ahead_of_time=device[0] == "aot")
        state.module = module
        state.asm = cc.ttir_asm(module, name, base)
        state.times["frontend"] = time.perf_counter() - start
        state.data.update(base=base, material=material, version=version, store=store)
        return driver.run(self.name, state)

    def make_kernel(self, state):
        d, asm, name = state.data, state.asm, state.name
        version, store, key = d["version"], d["store"], state.key
        md = cc.make_metadata(name, key, "tile", None, state.options, d["accesses"])
        md["target"] = state.target
        if "anchored_views" in d:
            md["anchored_views"] = d["anchored_views"]
        md.update(tileiras=tileiras.short_version(version),
                  bytecode_version=cpu.core().bytecode_version(d["tile"].module))
        files = dict(asm, **{disk.LOCATED_TTIR: state.module.str(True)})
        material = dict(d["material"], tileiras=version)
        if store.store(key, name, files, md, material):
            _index_add(d["base"], version)
        kernel = TileGPUKernel(state.jit_fn, state.spec, state.options, asm,
                               dict(md, compile_times=dict(state.times)), version)
        general = d.get("general")
        if general is not None and "cubin_general" not in asm:
            general.add_done_callback(lambda done: _store_general(done, store, key, name, files,
                                                                  md, material))
            kernel.general_cubin = general
        return kernel


def _convert(state, anchored_views=None) -> None:
    tile = tile_stage.convert(state.module, state.name, state.options, arch=state.target,
                              launch_guards=True, anchored_views=anchored_views)
    state.data.update(tile=tile, accesses=tile.accesses)


def _encode(state) -> None:
    tile, name, key, asm = state.data["tile"], state.name, state.key, state.asm
    reason, bytecode = tile.reason, None
    if reason is None and tile.general is not None:
        reason = tile.general.reason
    if tile.module is not None:
        asm["tileir"] = tile.asm
        cc._dump(name, key, "tileir", tile.asm)
        if tile.grid is not None:
            asm["grid"] = asm_entry(tile)
            cc._dump(name, key, "grid.ttir", tile.grid)
        if tile.guard is not None:
            cc._dump(name, key, "guard.ttir", tile.guard)
            cc._dump(name, key, "general.tileir", tile.general.asm)
        bytecode = getattr(tile, "bytecode", None)  # the Tile stage may have encoded it
        try:
            bytecode = bytecode or tile_stage.encode(tile.module)
        except Exception as e:  # an op the bytecode writer cannot encode yet
            reason = f"the bytecode writer cannot encode it: {e}"
    if reason is None and state.data["version"] is None:
        reason = (f"tileiras is not installed and the cache ({knobs.cache_dir}) holds no cubin "
                  f"of this kernel for {state.target}; install it ({tileiras.INSTALL_HINT}) "
                  "or build the cache ahead of time with TRITON_TILE_TARGET set")
        differs = state.data["store"].nearest_difference(name, state.data["material"])
        if differs:
            reason += (f" (its nearest entry of {name} was built from other key inputs: "
                       f"{differs})")
    if reason:
        raise driver.Fallback(reason)
    state.data["bytecode"] = bytecode


def _assemble(state) -> None:
    """tileiras builds the cubin. Where it fails on a kernel with anchored views, the kernel is
    made again without them first (_without_anchored_views). Where it fails on our bytecode
    otherwise (it exits 5 on some kernels it should take, docs/gpu_chain.md), the Tile path
    cannot run the kernel: a Fallback, whose message keeps tileiras's error, the kept input
    and the command that reproduces it."""
    try:
        try:
            _assemble_cubins(state)
        except tileiras.TileirasError as e:
            if not state.data["tile"].anchored_views:
                raise
            _without_anchored_views(state, e)
    except tileiras.TileirasError as e:
        for name in ("cubin", "cubin_general", "guard", "grid"):  # none of them runs now
            state.asm.pop(name, None)
        raise driver.Fallback(f"tileiras did not assemble it: {e}") from None


def _without_anchored_views(state, error) -> None:
    """The kernel again with a view per access where it had views made where their tensors
    are made (TRITON_TILE_ANCHORED_VIEWS): tileiras 13.4 exits 5 on a grouped GEMM's
    descriptors so at a 128x256 tile (its K loop's two versions; one version, or a 128x128
    tile, assembles), and takes the per-access form. The metadata keeps why."""
    for name in ("tileir", "tilebc", "cubin", "cubin_general", "guard", "grid", "tileir_general",
                 "tilebc_general"):
        state.asm.pop(name, None)
    state.data.pop("general", None)
    tile_stage.unrecord(state.data["tile"])
    _convert(state, anchored_views="off")
    _encode(state)
    _assemble_cubins(state)
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    state.data["anchored_views"] = f"off: tileiras rejected them ({first})"


def _assemble_cubins(state) -> None:
    tile, asm, arch = state.data["tile"], state.asm, state.target
    bytecode = asm["tilebc"] = state.data["bytecode"]
    if tile.guard is None:
        asm["cubin"] = tileiras.compile(bytecode, arch)
        return
    asm["guard"] = json.dumps({"ttir": tile.guard, "args": list(tile.guard_args)})
    asm["tileir_general"] = tile.general.asm
    asm["tilebc_general"] = tile.general.bytecode
    # Two tileiras processes at once; a launch waits only for the guarded cubin.
    general = _BACKGROUND.submit(tileiras.compile, tile.general.bytecode, arch)
    asm["cubin"] = tileiras.compile(bytecode, arch)
    if state.ahead_of_time:
        asm["cubin_general"] = general.result()
    else:
        state.data["general"] = general


GPUTile.stages = (("tileir", _convert), ("tilebc", _encode), ("cubin", _assemble))


# Background tileiras runs: general cubins (see GPUTile). Threads, each waiting on a
# tileiras process; at exit the interpreter waits for the ones in flight.
_BACKGROUND = ThreadPoolExecutor(4, thread_name_prefix="triton_tile_general_cubin")


def _store_general(done, store, key, name, files, md, material) -> None:
    """Completes the kernel's cache entry with its general cubin once tileiras is done (on a
    failure, a launch that needs the cubin falls back: TileGPUKernel._load_general)."""
    if done.exception() is None:
        store.store(key, name, dict(files, cubin_general=done.result()), md, material)


def _finish_general(store, key, name, bytecode, arch, md, material) -> bytes:
    """A cache entry without its general cubin: compile it and complete the entry."""
    cubin = tileiras.compile(bytecode, arch)
    entry = store.load(key, name)
    if entry is not None:
        store.store(key, name, dict(entry["asm"], cubin_general=cubin), md, material)
    return cubin


# ------------------------------------------------------------------------------ the kernel


def _picker(indices, kept=None):
    """A function of a launch's argument list giving the values at TTIR argument `indices`
    (through `kept`, the non-constexpr positions, where the list keeps constexprs in place)."""
    idx = [kept[i] for i in indices] if kept is not None else list(indices)
    if not idx:
        return lambda _: ()
    pick = operator.itemgetter(*idx)
    return pick if len(idx) != 1 else (lambda xs: (pick(xs),))


class TileGPUKernel(cc.CompiledKernel):
    """A Tile IR kernel compiled to a cubin; loaded on a device at its first launch there."""

    def __init__(self, jit_fn, spec, options, asm, metadata, tileiras_version):
        md = dict(metadata)
        md["tile_accesses"] = tuple(tuple(a) for a in md.get("tile_accesses", ()))
        super().__init__(md["name"], asm, md, None, spec.param_types)
        self.tileiras_version = tileiras_version
        # Without tuple or descriptor parameters (the usual case) the runtime's argument list
        # maps one to one onto the signature, constexprs marked '-': launches pass it as is.
        self._as_is = not any(isinstance(t, tuple) or t.startswith("tensordesc")
                              for t in spec.param_types)
        self.signature = abi_signature(spec.param_types, keep_constexpr=self._as_is)
        self._spec = (jit_fn, spec, options)
        self._cuda: Dict[int, object] = {}  # device -> _core.CudaKernel
        self._general: Dict[int, object] = {}  # device -> the kernel with both loop versions
        self._fallback: Dict[int, object] = {}  # device -> PTX kernel, where the driver refuses
        self._guard = LaunchGuard(self.name, asm["guard"]) if "guard" in asm else None
        # (self._grid_stride: CompiledKernel's, from asm["grid"])
        # The guard's and the grid function's argument values straight from the runtime list
        # (as is: constexprs in place, so their TTIR argument indices shift), else from the
        # flattened list.
        kept = [i for i, t in enumerate(spec.param_types) if t != "constexpr"]
        self._guard_values = self._grid_values = None
        if self._guard is not None:
            self._guard_values = _picker(self._guard.args, kept if self._as_is else None)
        if self._grid_stride is not None:
            self._grid_values = _picker(self._grid_stride.args, kept if self._as_is else None)
        # Future of the general cubin while it compiles in the background (compile_kernel).
        self.general_cubin = None
        self.general_launches = 0  # launches the guard sent to the kernel with both versions

    def _load(self, device: int):
        """The _core.CudaKernel on `device`, or a PTXGPUKernel where the driver rejects it."""
        kernel = self._cuda.get(device) or self._fallback.get(device)
        if kernel is not None:
            return kernel
        core = cpu.core()
        arch = device_arch(device)
        if arch != self.metadata.target:
            raise RuntimeError(f"kernel {self.name}: compiled for {self.metadata.target} but "
                               f"CUDA device {device} is {arch} (cubins are arch-exact)")
        try:
            start = time.perf_counter()
            kernel = self._cuda[device] = core.CudaKernel(self.asm["cubin"], self.name, device,
                                                          self.signature)
            times = self.metadata.compile_times
            if isinstance(times, dict):
                times.setdefault("load", time.perf_counter() - start)
        except core.CudaError as e:
            if not (len(e.args) > 1 and core.cuda_image_rejected(e.args[1])):
                raise
            from . import ptx_gpu

            # This driver cannot run tileiras cubins (some 580.x containers lack the driver's
            # Tile IR library: CUDA_ERROR_JIT_COMPILER_NOT_FOUND): stock Triton runs it.
            tile_stage.fall_back(self.name, f"the CUDA driver rejects the cubin ({e.args[0]})",
                                 f"load:{device}", runs_on=ptx_gpu.GPUPTX.runs_on)
            kernel = self._fallback[device] = ptx_gpu.PTXGPUKernel(*self._spec, arch,
                                                                   asm=self.asm)
        return kernel

    def _pick(self, device: int, grid: tuple, values: tuple):
        """The kernel for this launch: the one with empty other versions where the guard holds
        for the whole grid (3 ints) and the guard's argument `values`, else the one with both."""
        kernel = self._cuda[device]
        if self._guard.holds_for(grid, values):
            return kernel
        self.general_launches += 1  # (a statistic: not exact under concurrent launches)
        general = self._general.get(device)
        if general is None:
            with _GENERAL_LOCK:  # one module per device, never unloaded under a launch
                general = self._general.get(device)
                if general is None:
                    general = self._general[device] = self._load_general(device)
        return general

    def _load_general(self, device: int):
        """The kernel with both loop versions on `device`: its cubin, or, where there is none
        (tileiras failed on it in the background, or a cache entry without it on a machine
        without tileiras), the PTX path for the launches the guard sends there, loudly."""
        try:
            cubin = self._general_cubin()
        except (tileiras.TileirasError, _NoGeneralCubin) as e:
            from . import ptx_gpu

            tile_stage.fall_back(self.name, "its general kernel (for launches where the launch "
                                 f"guard fails) has no cubin: {e}", f"general:{device}",
                                 runs_on=ptx_gpu.GPUPTX.runs_on)
            return ptx_gpu.PTXGPUKernel(*self._spec, device_arch(device), asm=self.asm)
        return cpu.core().CudaKernel(cubin, self.name, device, self.signature)

    def _general_cubin(self) -> bytes:
        cubin = self.asm.get("cubin_general")
        if cubin is None:
            if self.general_cubin is None:
                raise _NoGeneralCubin("the cache entry lacks it and tileiras is not installed to "
                                      f"build it ({tileiras.INSTALL_HINT})")
            cubin = self.asm["cubin_general"] = self.general_cubin.result()
        return cubin

    def launch_device(self, grid, runtime, buf, bound, opt_kw, addresses=None) -> None:
        kernel = self._cuda.get(buf.device)
        if kernel is None:
            kernel = self._load(buf.device)
            if buf.device in self._fallback:
                kernel.launch_device(grid, runtime, buf, bound, opt_kw, addresses)
                return
        args = runtime if self._as_is else sp.flatten_runtime(runtime)
        if self._grid_stride is None:  # (the usual launch: no list, no loop; launch overhead)
            if self._guard is not None:
                kernel = self._pick(buf.device, grid, self._guard_values(args))
                if isinstance(kernel, cc.CompiledKernel):  # the general kernel's PTX fallback
                    kernel.launch_device(grid, runtime, buf, bound, opt_kw, addresses)
                    return
            kernel.launch(grid[0], grid[1], grid[2], stream_of(buf), args)
            return
        grids = self._grids(grid, args)
        if self._guard is not None and grids:
            kernel = self._pick(buf.device, grids[0], self._guard_values(args))
            if isinstance(kernel, cc.CompiledKernel):
                kernel.launch_device(grid, runtime, buf, bound, opt_kw, addresses)
                return
        stream = stream_of(buf)
        for g in grids:
            kernel.launch(g[0], g[1], g[2], stream, args)

    def _grids(self, grid, args) -> list:
        """The grids this launch runs the cubin on: the launch's own, or a persistent loop's
        items (backends/grid_stride.py)."""
        if self._grid_stride is None:
            return [grid]
        return self._grid_stride.launches(tuple(grid), self._grid_values(args))

    def launch(self, grid, args) -> None:
        raise TypeError(f"kernel {self.name} was compiled for {self.metadata.target}; launch "
                        "it with CUDA arrays")

    def _init_handles(self):
        """Loads the cubin on the current CUDA device (Triton's hook before n_regs is read)."""
        torch = sys.modules.get("torch")
        device = torch.cuda.current_device() if torch is not None else 0
        self._load(device)

    @property
    def n_regs(self):
        return next(iter(self._cuda.values())).n_regs if self._cuda else 0

    def __getitem__(self, grid):
        """`compiled[grid](*all_args)`: a direct launch (constexprs included and ignored)."""
        grid3 = cc.normalize_grid(grid)

        def runner(*args, stream=None, **_ignored):
            vals = sp.runtime_values(self.name, args, self.param_types)
            buf = sp.launch_device([f"#{i}" for i in range(len(vals))], vals, self.name)
            if buf is None:
                raise TypeError(f"{self.name}: a GPU kernel needs CUDA arrays")
            kernel = self._load(buf.device)
            if buf.device in self._fallback:
                raise RuntimeError(f"{self.name}: the driver rejects this cubin; launch through "
                                   "the @jit function to run it on the PTX path")
            args = vals if self._as_is else sp.flatten_runtime(vals)
            grids = self._grids(grid3, args)
            if self._guard is not None and grids:
                kernel = self._pick(buf.device, grids[0], self._guard_values(args))
                if isinstance(kernel, cc.CompiledKernel):
                    raise RuntimeError(f"{self.name}: this launch needs the general kernel, "
                                       "which has no cubin; launch through the @jit function "
                                       "to run it on the PTX path")
            for g in grids:
                kernel.launch(*g, stream if stream is not None else stream_of(buf), args)
            return self

        return runner


BACKENDS = {"gpu-tile": GPUTile()}
