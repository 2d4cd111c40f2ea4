"""The compile driver: every target through one loop.

    compile(jit_fn, spec, options, device, arch, frontend)
      select(options, device)        -> the backend: cpu-ttir, cpu-tile, gpu-tile or gpu-ptx
      the backend's cache policy     -> a finished kernel, or TTIR to resume from, or a miss
      frontend (compiler.frontend)   -> TTIR, asm['ttir']                (once, on a miss)
      backend.stages, in order       -> asm[stage name], timed by name
        a stage that raises Fallback(reason): reported loudly (tile_stage.fall_back), and the
        kernel goes on with backend.fallback's stages, from the same TTIR
      backend.make_kernel(state)     -> the launchable kernel (and its cache entry)

A backend is a target's stages and policies, nothing else (backends/cpu_backends.py,
backends/tile_gpu.py, backends/ptx_gpu.py). The fallback rule lives here: a Tile backend names
its fallback, and `run` follows it. Cache policies differ on purpose: a CPU entry keeps the
located TTIR and reruns the stages on a hit (compiler.compile_cached); a GPU Tile entry is
final (cubins), keyed in two steps by the tileiras version; the GPU PTX path is stock Triton's,
which caches for itself.
"""

from __future__ import annotations

import importlib
import time
from typing import Any, Callable, Dict, Optional, Tuple

from . import tile_stage


class Fallback(Exception):
    """A stage cannot take the kernel further on its backend; `reason` names the op and its
    source line, or what refused."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class State:
    """What one compile carries from stage to stage."""

    def __init__(self, jit_fn, spec, options, name: str, key: str, target: Optional[str] = None,
                 ahead_of_time: bool = False):
        self.jit_fn, self.spec, self.options = jit_fn, spec, options
        self.name, self.key, self.target = name, key, target
        self.ahead_of_time = ahead_of_time
        self.module = None  # the TTIR module after the frontend; stages may lower it
        self.asm: Dict[str, Any] = {}
        self.reason: Optional[str] = None  # why the kernel left the backend it was meant for
        self.times: Dict[str, float] = {}  # seconds per stage, in order
        self.data: Dict[str, Any] = {}  # what a backend's stages hand each other


class Backend:
    """One target: the stages after the frontend, each `(name, run(state))` in order (a stage's
    name is its asm key and dump extension where it makes one); the backend a stage's Fallback
    hands the kernel to; and the kernel it makes."""

    name = ""
    stages: Tuple[Tuple[str, Callable[[State], None]], ...] = ()
    fallback: Optional[str] = None
    runs_on = ""  # how a fallback message names where the kernel runs instead

    def make_kernel(self, state: State):
        raise NotImplementedError


# name -> module that defines it (imported at first use: the backends import the compiler)
_HOMES = {"cpu-ttir": "..backends.cpu_backends", "cpu-tile": "..backends.cpu_backends",
          "gpu-tile": "..backends.tile_gpu", "gpu-ptx": "..backends.ptx_gpu"}
_BACKENDS: Dict[str, Backend] = {}


def backend(name: str) -> Backend:
    b = _BACKENDS.get(name)
    if b is None:
        module = importlib.import_module(_HOMES[name], __package__)
        b = _BACKENDS[name] = module.BACKENDS[name]
    return b


def select(options, device=None) -> str:
    """(device, path) -> backend, decided once per launch signature: `device` is None for host
    arrays, ("cuda", index) for a GPU's, ("aot", arch) for an ahead-of-time warmup."""
    gpu = device is not None
    if options.enable_tile:
        return "gpu-tile" if gpu else "cpu-tile"
    return "gpu-ptx" if gpu else "cpu-ttir"


def run(name: str, state: State):
    """The stages of backend `name` in order, then its kernel. A Fallback is reported (or
    raised, under TRITON_TILE_FALLBACK=error) and the kernel goes on with the fallback."""
    b = backend(name)
    while True:
        try:
            for stage, fn in b.stages:
                start = time.perf_counter()
                fn(state)
                state.times[stage] = state.times.get(stage, 0.0) + time.perf_counter() - start
            break
        except Fallback as f:
            state.reason = f.reason
            then = backend(b.fallback)
            where = state.module.func(state.name).location if state.module is not None else ""
            tile_stage.fall_back(state.name, f.reason, where, runs_on=then.runs_on)
            b = then
    return b.make_kernel(state)


def compile(jit_fn, spec, options, device, arch: str, frontend):  # noqa: A001 - the entry
    """The kernel of one launch signature on a GPU (`device` ("cuda", index) or ("aot",
    target), compiling for `arch`): the backend selected, then its `compile` (cache policy,
    `frontend`, `run`). The caller hands over the frontend (compiler.frontend), as Triton's
    source objects carry their `make_ir`: the backends then need no path back to the language
    and the JIT. Host arrays go through compiler.compile_cached, whose entries resume after
    the TTIR."""
    return backend(select(options, device)).compile(jit_fn, spec, options, device, arch,
                                                    frontend)
