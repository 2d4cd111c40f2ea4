"""The CPU backend: launch options, the target, and preparing the TTIR executor."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Optional, Tuple

import numpy as np

from ..runtime.errors import LaunchOptionError
from . import GPUTarget

TARGET = GPUTarget("cpu", 0, 32)

# Launch keywords Triton users pass that mean nothing on this backend. They are accepted so
# kernels written for CUDA or ROCm (tutorial 03's HIP configs) run unchanged, and they stay out
# of cache keys because they cannot change the code.
IGNORED_OPTIONS = frozenset({
    # CUDA
    "enable_reflect_ftz", "launch_cooperative_grid", "launch_pdl", "extern_libs", "arch",
    "ptx_options", "ir_override", "supported_fp8_dtypes", "deprecated_fp8_dot_operand_dtypes",
    "max_num_imprecise_acc_default", "cluster_dims", "ptx_version", "instrumentation_mode",
    "num_buffers_warp_spec", "num_consumer_groups", "reg_dec_producer", "reg_inc_consumer",
    "opt_level", "backend_name",
    # ROCm
    "waves_per_eu", "matrix_instr_nonkdim", "kpack", "instruction_sched_variant",
    "schedule_hint", "allow_flush_denorm",
})
# Rejected as in Triton: the device and stream come from the arguments, not keywords.
DEPRECATED_OPTIONS = frozenset({"device", "stream", "device_type"})


@dataclasses.dataclass(frozen=True)
class CPUOptions:
    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    occupancy: Optional[int] = None
    # Tile path: a persistent loop over work items as a grid of items (None: the environment's
    # TRITON_TILE_GRID_STRIDE; csrc/passes/grid_stride_loops.cpp)
    grid_stride: Optional[bool] = None
    maxnreg: Optional[int] = None
    enable_fp_fusion: bool = True
    debug: bool = False
    sanitize_overflow: bool = True
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: Tuple[str, ...] = ("tf32", "tf32x3", "ieee")
    enable_tile: bool = False
    # Tile path: groups of pointer parameters that share an allocation at launch
    # (runtime/specialize.alias_classes).
    alias_classes: Tuple[Tuple[int, ...], ...] = ()

    def __post_init__(self):
        def need(ok, msg):
            if not ok:
                raise LaunchOptionError(msg)

        def is_int(v):  # a bool is an int to Python, not a count to a launch
            return isinstance(v, int) and not isinstance(v, bool)

        nw = self.num_warps
        need(is_int(nw) and nw > 0 and nw & (nw - 1) == 0,
             f"num_warps must be a power of 2, got {nw!r}")
        need(is_int(self.num_stages) and self.num_stages >= 0,
             f"num_stages must be a non-negative int, got {self.num_stages!r}")
        nc = self.num_ctas
        need(is_int(nc) and 1 <= nc <= 16 and nc & (nc - 1) == 0,
             f"num_ctas must be a power of 2 in 1..16 (a CTA cluster's size), got {nc!r}")
        for flag in ("debug", "enable_tile", "enable_fp_fusion", "sanitize_overflow"):
            need(isinstance(getattr(self, flag), bool),
                 f"{flag} must be True or False, got {getattr(self, flag)!r}")
        need(self.occupancy is None or (is_int(self.occupancy) and 1 <= self.occupancy <= 32),
             f"occupancy must be an int in 1..32, got {self.occupancy!r}")
        need(self.grid_stride is None or isinstance(self.grid_stride, bool),
             f"grid_stride must be True, False or None, got {self.grid_stride!r}")
        need(self.maxnreg is None or (is_int(self.maxnreg) and self.maxnreg > 0),
             f"maxnreg must be a positive int, got {self.maxnreg!r}")
        need(self.default_dot_input_precision in self.allowed_dot_input_precisions,
             f"default_dot_input_precision must be one of {self.allowed_dot_input_precisions}")

    def __hash__(self) -> int:
        # Launches hash the options in two cache keys each: the fields' hash is kept (outside
        # the fields, so equality is the dataclass's) and dropped when pickled (a string's
        # hash differs between processes).
        h = self.__dict__.get("_field_hash")
        if h is None:
            h = hash(tuple(getattr(self, f.name) for f in dataclasses.fields(self)))
            object.__setattr__(self, "_field_hash", h)
        return h

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_field_hash"}

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def hash(self) -> str:
        text = json.dumps(self.as_dict(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()


# Options that only describe GPU scheduling: on the CPU path they change no code, so kernels
# that differ only in these share one compiled program.
METADATA_ONLY = ("num_warps", "num_stages", "num_ctas", "occupancy", "maxnreg", "grid_stride")


def same_code(a: CPUOptions, b: CPUOptions) -> bool:
    if a.enable_tile or b.enable_tile:
        return a == b
    reset = {f: getattr(a, f) for f in METADATA_ONLY}
    return dataclasses.replace(b, **reset) == a


OPTION_NAMES = frozenset(f.name for f in dataclasses.fields(CPUOptions))
# The launch options only triton_tile knows: stock Triton (the GPU's PTX path) rejects them.
TILE_ONLY_OPTIONS = frozenset({"enable_tile", "occupancy", "grid_stride", "alias_classes"})


def parse_options(launch_kwargs: dict, *, debug: bool, enable_tile: bool,
                  f32_default: Optional[str], fp_fusion: bool = True) -> CPUOptions:
    """Options from launch keywords; `debug`, `enable_tile`, `f32_default` and `fp_fusion`
    are the values already resolved from decorator and environment (launch keywords win)."""
    kw = {k: v for k, v in launch_kwargs.items() if k in OPTION_NAMES}
    kw.setdefault("debug", debug)
    kw.setdefault("enable_tile", enable_tile)
    kw.setdefault("enable_fp_fusion", fp_fusion)
    if f32_default:
        kw.setdefault("default_dot_input_precision", f32_default)
    for name in ("num_warps", "num_stages", "num_ctas", "occupancy", "maxnreg"):
        # numpy ints count as ints; anything else (a float, a string, a bool) is left for
        # CPUOptions to reject by name rather than truncated or parsed here.
        v = kw.get(name)
        if isinstance(v, np.integer):
            kw[name] = int(v)
    if "allowed_dot_input_precisions" in kw:
        kw["allowed_dot_input_precisions"] = tuple(kw["allowed_dot_input_precisions"])
    for flag in ("debug", "enable_tile", "enable_fp_fusion", "grid_stride"):
        if isinstance(kw.get(flag), np.bool_):
            kw[flag] = bool(kw[flag])
    return CPUOptions(**kw)


def core():
    """The C++ core module, or an ImportError that says how to build it."""
    try:
        from .. import _core
    except ImportError as e:
        raise ImportError(f"triton_tile's C++ core (triton_tile._core) is not built or not "
                          f"importable ({e}); build it with `pip install --no-build-isolation "
                          "-e .` or `bash .ci/setup` from a source checkout") from e
    return _core


def prepare(module, name: str):
    """Turn a TTIR module (after passes) into a runnable executor program."""
    return core().TTIRProgram(module, name)


def prepare_tile(tile_module, name: str):
    """(program, None) running Tile IR on the CPU tile executor, or (None, why not): an op
    the executor refuses sends the kernel back to the PTX-style path, loudly (the caller)."""
    from .. import knobs

    try:
        return core().TileProgram(tile_module, name, check=knobs.check), None
    except RuntimeError as e:
        return None, f"the CPU tile executor cannot run it: {e}"


def pointer_arg(buf):
    """Executor argument for a pointer: `(address, base, nbytes)`: the pointer's value and the
    whole allocation it points into, so views (a row, a reversed array) may be indexed
    anywhere their memory is, and nowhere else."""
    return (buf.ptr, buf.lo, buf.hi - buf.lo)


def launch(program, grid, args, num_threads: int) -> None:
    program.run(grid=grid, args=args, num_threads=num_threads)
