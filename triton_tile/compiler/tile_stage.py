"""The Tile IR stage: TTIR -> CUDA Tile IR, or a loud reason to stay on the PTX-style path.

    TTIR --(clone)--> flatten-grid-stride-loop (a persistent loop as a grid of items),
         expand-block-pointer-loops, scalarize-loop-pointers, cleanups
         --> convert-ttir-to-tile (raise-pointers-to-views, lower-tensor-descriptors,
             insert-memory-tokens) --> Tile IR            asm['tileir']

The caller decides what runs it (the CPU tile executor; tileiras + the driver on a GPU).
"""

from __future__ import annotations

import functools
import os
import re
import warnings
from typing import List, NamedTuple, Optional, Tuple

from .. import knobs
from ..backends import cpu
from ..runtime.errors import TileFallbackError, TileFallbackWarning

TILE_PASSES = ["expand-block-pointer-loops", "scalarize-loop-pointers", "canonicalize", "cse",
               "dce"]
# CPU targets (the Tile executor) first assert the contracts a GPU compile relies on unchecked:
# in a GPU kernel the asserts cost (a grouped GEMM's K loop waited for each MMA: 454.8 against
# 560.1 TFLOP/s, H200).
CPU_TILE_PASSES = ["assert-contracts"] + TILE_PASSES


class TileResult(NamedTuple):
    module: object  # the Tile IR module, or None when the kernel falls back
    asm: str  # NVIDIA's textual form ("" on fallback)
    bytecode: bytes  # what tileiras assembles (b"" on fallback)
    reason: Optional[str]  # why the kernel falls back, naming the op and its source line
    accesses: List[Tuple[str, str, bool, str]]  # (op, location, raised to a view?, detail)
    # launch_guards only, when a loop's other version was left empty: the guard's TTIR (run
    # over the grid by the host before each launch; launch_guard.h), the kernel arguments it
    # takes, and the kernel with both versions, for launches where it fails.
    guard: Optional[str] = None
    guard_args: Tuple[int, ...] = ()
    general: Optional["TileResult"] = None
    # views made where their tensor is made (TRITON_TILE_ANCHORED_VIEWS), in this kernel or
    # its general one: a GPU compile converts again without them if tileiras rejects it
    anchored_views: int = 0
    # a persistent loop made a grid of items (TRITON_TILE_GRID_STRIDE): the TTIR of the
    # function the host runs for each launch's extent (backends/grid_stride.py) and the kernel
    # arguments it takes
    grid: Optional[str] = None
    grid_args: Tuple[int, ...] = ()
    grid_linear: bool = False  # its items may run on a 1-D grid, one a program (grid_stride.py)


# Without an occupancy hint Tile IR runs one CTA per SM. Measured on an H200 (see
# docs/gpu_perf_notes.md), 4-8 is 2.5x faster on softmax and layer norm (8 another 5-7% over 4)
# and 2 doubles matmul: NVIDIA's advice (1-2 for dot kernels, 4-8 for memory-bound ones) with
# numbers behind it.
DEFAULT_OCCUPANCY = {"dot": 2, "other": 8}
# But tileiras turns the hint into a register cap (65536 / (occupancy x threads), rounded down to
# a multiple of 8, at least 48: read from its cubins' .nv.info) and spills what does not fit: a
# one-pass softmax of 8192-wide rows at 4 warps (64 registers of row a thread) spilled (55 LDL)
# at occupancy 8. So a kernel without a dot gets the largest of occupancy 8, 4, 2, 1 whose cap
# holds its largest tile's registers a thread plus REGISTER_MARGIN for the other values
# (addresses, reduction scratch): that softmax, the row 32 registers a thread, did not spill
# under caps of 48 (8 warps) and 64 (4 warps); 64 registers under 64 did. Not the occupancies
# between: the margin is too coarse for them (a one-pass layer norm's 64 registers of row
# spilled under occupancy 6's 80, where a 4-row softmax ran faster at 3 than at 2). The figures,
# H200: benchmarks/RESULTS.md, 2026-11-30 08:20.
REGISTER_MARGIN = 16
_TENSOR = re.compile(r"tensor<((?:\d+x)+)(f64|i64|f32|i32|bf16|f16|i16|i8|f8\w*)>")


def register_cap(occupancy: int, num_warps: int) -> int:
    """The registers a thread tileiras allows at `occupancy` CTAs of `num_warps` warps."""
    return max(48, min(255, 65536 // (occupancy * num_warps * 32) // 8 * 8))


def tile_registers(ttir_text: str, num_warps: int) -> int:
    """32-bit registers a thread for the largest tensor of integers or floats in the TTIR (a
    64-bit element takes two, a narrower one a whole register: it is widened to compute)."""
    most = 0
    for dims, elem in _TENSOR.findall(ttir_text):
        n = 1
        for d in dims[:-1].split("x"):
            n *= int(d)
        most = max(most, n * (2 if elem in ("f64", "i64") else 1))
    return -(-most // (32 * max(1, num_warps)))


def default_occupancy(ttir_text: str, num_warps: int = 4) -> int:
    if "tt.dot " in ttir_text:
        return DEFAULT_OCCUPANCY["dot"]
    need = tile_registers(ttir_text, num_warps) + REGISTER_MARGIN
    fits = [o for o in (DEFAULT_OCCUPANCY["other"], 4, 2) if register_cap(o, num_warps) >= need]
    return fits[0] if fits else 1


# Tile IR's num_worker_warps_per_cta (4 or 8; NVIDIA's 13.4 backend forwards num_warps so).
# Measured on an H200 (docs/gpu_perf_notes.md): num_warps=8 as 8 worker warps makes attention
# 1.7x and a persistent matmul 15x faster, and a plain matmul 1.4x slower, so by default
# (TileOptions.worker_warps_auto) the conversion gives it to kernels with reductions, with a
# dot in nested loops, with a loop of several dots (attention backward) or, at 8 warps, with a
# dot accumulating more than 128x128 (a 128x256 matmul tile spilled without: 44 against 635
# TFLOP/s, H100).
def worker_warps(options) -> int:
    return 0 if knobs.worker_warps == "off" else (8 if options.num_warps >= 8 else 4)


def tile_options(options, alias_classes=(), arch=None, ttir_text: str = "",
                 anchored_views: Optional[str] = None):
    """The conversion's options from the launch options and the environment knobs; `arch` is
    the GPU compiled for (a GPU launch's device), else TRITON_TILE_TARGET or sm_90."""
    o = cpu.core().TileOptions()
    o.approx = knobs.enable_approx
    o.ftz = knobs.enable_ftz
    o.occupancy = options.occupancy or (
        default_occupancy(ttir_text, options.num_warps) if ttir_text else 0)
    o.num_ctas = options.num_ctas
    # num_stages is Triton's pipelining depth for loops feeding dots; NVIDIA's backend passes it
    # as the latency hint of every load and store. Here only kernels with dots get it: in the
    # others tileiras's own estimate measured 8-10% faster on layer norm (H200; softmax even).
    o.num_stages = options.num_stages if "tt.dot " in ttir_text else 0
    o.arch = arch or knobs.target or "sm_90"
    o.raise_views = knobs.raise_views != "off"
    o.loop_vector_views = knobs.raise_views == "all"
    # (a GPU's: the CPU executors copy a view's rows as blocks, faster than gathers)
    o.gathers_without_dot = bool(arch) and knobs.raise_views == "auto"
    o.index_views = knobs.index_views
    o.anchored_views = {"off": 0, "desc": 1, "all": 2}[anchored_views or knobs.anchored_views]
    o.allow_tma = knobs.allow_tma
    o.kernel_tma_maps = knobs.tma_kernel_maps
    o.view_reductions = knobs.view_reductions
    # Tile IR accepts 4 or 8 worker warps (NVIDIA's 13.4 backend forwards num_warps so).
    o.worker_warps = worker_warps(options)
    o.worker_warps_auto = knobs.worker_warps == "auto"
    o.guard_views = knobs.view_guards
    o.version_loops = knobs.version_loops
    o.alias_classes = [list(c) for c in alias_classes]
    # GPU targets contract a * b + c into one fma, as stock Triton's LLVM does
    # (enable_fp_fusion, TRITON_DEFAULT_FP_FUSION): their results then match stock Triton's
    # bit for bit. The CPU executors round each op, as the TTIR executor does.
    if arch and options.enable_fp_fusion:
        o.passes = list(o.passes) + ["fuse-fma"]
    return o


def flatten_grid_stride(module, name: str, flatten: Optional[bool] = None,
                        alias_classes=()) -> Tuple[Optional[str], Tuple[int, ...], bool]:
    """Runs a persistent loop as a grid of items in `module` (in place) where
    TRITON_TILE_GRID_STRIDE, or `flatten` (the launch's grid_stride) when set, asks for it:
    (the grid function's TTIR or None, its argument indices, linear) as
    `_core.flatten_grid_stride_loop` returns them (passes/grid_stride_loops.cpp)."""
    mode = knobs.grid_stride if flatten is None else ("on" if flatten else "off")
    if mode == "off":
        return None, (), False
    return cpu.core().flatten_grid_stride_loop(
        module, name, [list(c) for c in alias_classes], nested_only=mode == "auto")


def convert(ttir, name: str, options, alias_classes=(), arch=None,
            launch_guards: bool = False, anchored_views: Optional[str] = None) -> TileResult:
    """Converts a copy of the (already inlined and cleaned) TTIR module. `launch_guards`
    (GPU targets): loops whose conditions the host can decide get an empty other version, and
    the result carries the guard and the general kernel. `anchored_views`: overrides
    TRITON_TILE_ANCHORED_VIEWS."""
    core = cpu.core()
    alias_classes = alias_classes or getattr(options, "alias_classes", ())
    module = ttir.clone()
    grid, grid_args, linear = flatten_grid_stride(module, name,
                                                  getattr(options, "grid_stride", None),
                                                  alias_classes)
    core.run_passes(module, TILE_PASSES if arch else CPU_TILE_PASSES)
    o = tile_options(options, alias_classes, arch, str(module), anchored_views)
    o.launch_guards = launch_guards and knobs.launch_guards
    r = core.convert_to_tile(module, name, o)
    if r.unsupported:
        op, loc, why = r.unsupported[0]
        more = f" (and {len(r.unsupported) - 1} more)" if len(r.unsupported) > 1 else ""
        return TileResult(None, "", b"", f"'{op}' at {loc}: {why}{more}", list(r.accesses))
    tile = r.take_module()
    bytecode = encode(tile)
    if _recorded is not None:
        redo = None
        if r.anchored_views:  # (a copy: the caller's module may change after this)
            redo = functools.partial(_without_anchored_views, ttir.clone(), name, options,
                                     alias_classes, arch)
        _recorded.append((name, bytecode, redo))
    result = TileResult(tile, core.print_tile(tile), bytecode, None, list(r.accesses),
                        anchored_views=r.anchored_views, grid=str(grid) if grid else None,
                        grid_args=tuple(grid_args), grid_linear=linear)
    guard = r.take_guard()
    if guard is None:
        return result
    general = convert(ttir, name, options, alias_classes, arch, anchored_views=anchored_views)
    return result._replace(guard=str(guard), guard_args=tuple(r.guard_args), general=general,
                           anchored_views=r.anchored_views + general.anchored_views)


def encode(tile) -> bytes:
    """A Tile IR module's bytecode, with its ops' source lines unless TRITON_DISABLE_LINE_INFO."""
    return cpu.core().tile_to_bytecode(tile, line_info=not knobs.disable_line_info)


# Bytecode of every kernel converted in this process, when a test session asks for it (CI
# assembles them all with tileiras: tests/conftest.py).
_recorded: Optional[list] = None


def record_bytecode() -> list:
    """Starts recording every kernel converted from now on; returns the list of (name,
    bytecode, redo): `redo()`, for a kernel with views made where their tensors are made,
    gives the bytecode without them, what a GPU compile falls back to where tileiras rejects
    them (backends/tile_gpu.py); None otherwise."""
    global _recorded
    _recorded = []
    return _recorded


def _without_anchored_views(ttir, name, options, alias_classes, arch) -> bytes:
    global _recorded
    saved, _recorded = _recorded, None  # (the record's own redo is not recorded)
    try:
        return convert(ttir, name, options, alias_classes, arch, anchored_views="off").bytecode
    finally:
        _recorded = saved


def unrecord(result: TileResult) -> None:
    """Drops a conversion tileiras rejected and the caller replaced (a GPU compile without
    anchored views, backends/tile_gpu.py) from the record: what runs is the replacement."""
    gone = {result.bytecode} | ({result.general.bytecode} if result.general else set())
    if _recorded is not None:
        _recorded[:] = [r for r in _recorded if r[1] not in gone]


def describe_accesses(accesses) -> str:
    """One line per memory access: raised to a view, or why it stays a gather/scatter."""
    lines = []
    for op, loc, raised, detail in accesses:
        lines.append(f"{loc}: {op}: {'view' if raised else 'pointers'}: {detail}")
    return "\n".join(lines) + "\n"


_warned = set()


def _user_stacklevel() -> int:
    """warnings.warn's stacklevel of the first frame outside this package: the user's launch
    (or warmup) line, however deep the compile that falls back."""
    import sys

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(2), 2  # the caller of fall_back is level 2
    while frame is not None and frame.f_code.co_filename.startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def fall_back(name: str, reason: str, where: str, runs_on: str) -> None:
    """Never silent: a TileFallbackWarning once per kernel (`where` its definition's
    location: kernels of one name in two files are two kernels), or an error on request;
    `runs_on` names where the kernel runs instead (the fallback backend's `runs_on`). The
    warning points at the user's line that launched the kernel."""
    if knobs.fallback == "error":
        raise TileFallbackError(f"kernel {name}: the Tile IR path cannot run it: {reason}; "
                                "TRITON_TILE_FALLBACK=error forbids falling back to the "
                                "PTX-style path")
    message = (f"kernel {name}: the Tile IR path cannot run it: {reason}; running on the "
               f"PTX-style path ({runs_on})")
    if (name, where) not in _warned:
        _warned.add((name, where))
        warnings.warn(TileFallbackWarning(message), stacklevel=_user_stacklevel())
