"""The compiled kernel and what every backend's stages share: the compiled-kernel object, its
metadata, the pass lists, grids, stage dumps. A leaf of the compiler: it imports no compile
step, so backends (backends/cpu_backends.py, tile_gpu.py, ptx_gpu.py) build on it without
reaching back into the drivers (compiler.py, driver.py)."""

from __future__ import annotations

import collections
import os
import sys
from typing import Any, Dict, NamedTuple, Optional, Sequence

import numpy as np

from .. import knobs
from ..backends import cpu
from ..backends.grid_stride import GridStride
from ..runtime import specialize as sp

TTIR_PASSES = ["inline", "canonicalize", "cse", "dce"]
# The PTX-style path runs pointer tiles only: block pointers and descriptors become masked
# pointer tiles (the Tile path turns the same accesses into views instead: tile_stage.py).
# licm hoists the invariant parts of the pointer and mask tiles a loop recomputes (each op is a
# pass over a tile there); the Tile path's view analysis reads the loop as written, so its
# pipeline leaves the loop alone. This path runs on the CPU only (a GPU's PTX-style path is
# stock Triton), so it asserts the contracts a GPU compile relies on (assert-contracts).
PTX_PASSES = ["assert-contracts", "expand-block-pointer-loops", "lower-block-pointers",
              "canonicalize", "cse", "licm", "cse", "dce"]


class Specialization(NamedTuple):
    """What the frontend compiles: contracts in docs/internals.md (Frontend <-> runtime)."""

    signature: Dict[str, Any]  # non-constexpr param name -> Triton type string
    constants: Dict[str, Any]  # constexpr and value-specialized params -> value
    attrs: Dict[str, list]  # param name -> [("tt.divisibility", 16)]
    param_types: tuple  # one type string per parameter, "constexpr" for folded ones


KernelMetadata = collections.namedtuple("KernelMetadata", [
    "name", "hash", "target", "path", "fallback_reason", "num_warps", "num_stages", "num_ctas",
    "occupancy", "maxnreg", "shared", "debug", "enable_fp_fusion", "default_dot_input_precision",
    "tile_accesses",  # Tile path: (op, location, raised to a view?, why / which view) per access
    # GPU Tile path: the tileiras that made the cubin, the bytecode version it read, and where
    # the compile's seconds went ({"frontend", "tileir", "tilebc", "cubin", "load"} or
    # {"cache"}); None elsewhere.
    "tileiras", "bytecode_version", "compile_times",
    # GPU Tile path, where tileiras rejected views made where their tensors are made
    # (TRITON_TILE_ANCHORED_VIEWS) and the kernel was built with a view per access: why
    "anchored_views",
], defaults=(None, None, None, None))


class CompiledKernel:
    """One specialization, compiled: `.asm` by stage, `.metadata`, and a direct launcher."""

    # The CPU has no registers to count; tutorial 02 divides by n_regs to size its grid, so
    # report a plausible per-thread count rather than 0.
    n_regs = 32
    n_spills = 0

    def __init__(self, name: str, asm: Dict[str, str], metadata: Dict[str, Any], program,
                 param_types: Sequence, located_ttir: str = "", written: tuple = ()):
        self.name = name
        self.asm = asm
        self.located_ttir = located_ttir  # TTIR with source locations: what the cache reloads
        self.metadata = KernelMetadata(**metadata)
        self.hash = self.metadata.hash
        self.n_max_threads = self.metadata.num_warps * 32
        self.function = None  # a CUfunction on GPU backends
        self.module = None
        self.program = program
        self.param_types = tuple(param_types)
        # The arguments the kernel stores or atomically writes through, as (parameter, path
        # into tuples or a descriptor) pairs: a launch refuses read-only arrays there before
        # it runs (sp.check_writable).
        self.written = tuple(written)
        # the Tile path's persistent loop made a grid of items: each launch's grid(s)
        self._grid_stride = GridStride(name, asm["grid"]) if "grid" in asm else None

    def with_options(self, options, key: str) -> "CompiledKernel":
        """The same program under other metadata-only options (see backends.cpu.same_code)."""
        md = make_metadata(self.name, key, self.metadata.path, self.metadata.fallback_reason,
                           options, self.metadata.tile_accesses, self.metadata.shared)
        return CompiledKernel(self.name, self.asm, md, self.program, self.param_types,
                              self.located_ttir, self.written)

    def _init_handles(self):
        """Resources are checked at compile time on the CPU; kept for Triton compatibility."""

    def launch(self, grid, args: list) -> None:
        """Run over a 3-d grid with executor-ready arguments (see runtime/specialize.py)."""
        if grid[0] <= 0 or grid[1] <= 0 or grid[2] <= 0:
            return
        if self._grid_stride is None:
            cpu.launch(self.program, grid, args, knobs.num_threads)
            return
        values = tuple(args[i] for i in self._grid_stride.args)
        for items in self._grid_stride.launches(tuple(grid), values):
            cpu.launch(self.program, items, args, knobs.num_threads)

    def __getitem__(self, grid):
        """`compiled[grid](*all_args)`: launch without binding or specialization checks; all
        parameters in order, constexpr ones included (and ignored), as Triton's launcher."""
        grid3 = normalize_grid(grid, self.name)

        def runner(*args, stream=None, **_ignored):
            vals = sp.runtime_values(self.name, args, self.param_types)
            sp.check_writable(self.name, [f"#{i}" for i in range(len(args))], args,
                              self.written)
            self.launch(grid3, executor_args(sp.flatten_runtime(vals)))
            return self

        return runner

    def launch_metadata(self, grid, stream, *args):
        return None

    def __repr__(self):
        return f"CompiledKernel({self.name}, path={self.metadata.path}, hash={self.hash[:12]})"


# CUDA's limits on a grid's dimensions; the CPU enforces them too, so a launch that works on
# the CPU works on the GPU.
GRID_LIMITS = (2**31 - 1, 65535, 65535)


def normalize_grid(grid, name: Optional[str] = None) -> tuple:
    """A 3-d grid of ints from a launch's grid; errors name the kernel `name`. Only ints are
    grid sizes: a float or a string is a TypeError, not truncated or parsed."""
    if type(grid) is tuple and len(grid) == 1 and type(grid[0]) is int and \
            0 <= grid[0] <= GRID_LIMITS[0]:
        return grid + (1, 1)  # every launch comes here: the usual (n,) first
    who = f"{name}: " if name else ""
    if isinstance(grid, (int, np.integer)) and not isinstance(grid, (bool, np.bool_)):
        grid = (grid,)
    if isinstance(grid, np.ndarray) and grid.ndim == 1:
        grid = tuple(grid.tolist())
    if not isinstance(grid, (tuple, list)):
        raise TypeError(f"{who}grid must be a tuple of 1-3 ints or a callable returning one, "
                        f"got {grid!r}")
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"{who}grid must have 1 to 3 dimensions, got {grid!r}")
    for d, g in enumerate(grid):
        if not isinstance(g, (int, np.integer)) or isinstance(g, (bool, np.bool_)):
            raise TypeError(f"{who}grid dimension {d} must be an int, got {g!r} "
                            f"({type(g).__name__}) in grid {grid!r}")
        if g < 0:
            raise ValueError(f"{who}grid dimensions must be non-negative, got {grid!r}")
        if g > GRID_LIMITS[d]:
            raise ValueError(f"{who}grid dimension {d} is {int(g)}, over CUDA's limit of "
                             f"{GRID_LIMITS[d]}, in grid {grid!r}")
    return tuple(int(g) for g in grid) + (1,) * (3 - len(grid))


def executor_args(values: list) -> list:
    return [cpu.pointer_arg(v) if isinstance(v, sp.HostBuffer) else v for v in values]


def _dump(name: str, key: str, stage: str, text: str) -> None:
    where = knobs.dump
    if not where or where.lower() in ("0", "false", "off"):
        return
    if where.lower() in ("1", "true", "on"):
        sys.stderr.write(f"// -----// {stage} of {name} ({key[:12]}) //----- //\n{text}\n")
        return
    os.makedirs(where, exist_ok=True)
    with open(os.path.join(where, f"{name}-{key[:12]}.{stage}"), "w") as f:
        f.write(text)


def ttir_asm(module, name: str, key: str) -> Dict[str, Any]:
    """The kernel's `asm` after the frontend: {"ttir": text}, dumped as `ttir`."""
    asm = {"ttir": str(module)}
    _dump(name, key, "ttir", asm["ttir"])
    return asm


def make_metadata(name, key, path, reason, options, accesses=(), shared=0) -> Dict[str, Any]:
    """`shared` is the executor's per-program working memory (its register arena), the CPU's
    nearest thing to shared memory; tutorial 02 divides by it, so it is never reported as 0."""
    return dict(name=name, hash=key, target=cpu.TARGET.backend, path=path,
                tile_accesses=tuple(tuple(a) for a in accesses),
                fallback_reason=reason, num_warps=options.num_warps,
                num_stages=options.num_stages, num_ctas=options.num_ctas,
                occupancy=options.occupancy, maxnreg=options.maxnreg, shared=max(1, shared),
                debug=options.debug, enable_fp_fusion=options.enable_fp_fusion,
                default_dot_input_precision=options.default_dot_input_precision)
