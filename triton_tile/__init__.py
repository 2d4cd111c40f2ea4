"""triton_tile: a Triton-compatible kernel language and compiler.

`import triton_tile as triton; import triton_tile.language as tl` runs Triton kernels: on any
CPU through the C++ executors, and (with the Tile IR backend) on NVIDIA GPUs.
"""

# ruff: noqa: E402
from . import knobs
from ._version import __version__  # noqa: F401 - first: cache keys read it while importing


def _load_core_override() -> None:
    """TRITON_TILE_CORE names another build of the C++ core (a sanitized one, say): it becomes
    `triton_tile._core` before any module imports the installed one."""
    path = knobs.core
    if not path:
        return
    import importlib.util
    import os
    import sys

    if not os.path.isfile(path):
        raise ImportError(f"TRITON_TILE_CORE={path!r} is not a file")
    spec = importlib.util.spec_from_file_location(__name__ + "._core", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    globals()["_core"] = module


_load_core_override()

from . import compiler, language, runtime, testing, tools
from .compiler import CompilationError, compile
from .runtime import driver
from .runtime.autotuner import Config, autotune, heuristics
from .runtime.errors import (
    InterpreterError,
    OutOfResources,
    TileFallbackError,
    TileFallbackWarning,
    TritonError,
)
from .runtime.jit import (
    JITFunction,
    KernelInterface,
    cdiv,
    constexpr_function,
    jit,
    must_use_result,
    next_power_of_2,
)
from .runtime.tensors import MockTensor, TensorWrapper, reinterpret

_allocator = None


def set_allocator(allocator) -> None:
    """Kernels that build tensor descriptors on the device ask this for scratch memory on a GPU.
    The CPU executors and the Tile path need none; the GPU's PTX path runs stock Triton, which
    gets the allocator too (as in Triton, it holds for the calling thread's context)."""
    global _allocator
    _allocator = allocator
    import importlib.util

    if importlib.util.find_spec("triton") is not None:
        import sys

        import triton

        # `triton` may be this package under another name (upstream's tests run against
        # triton_tile that way): forwarding to it would recurse
        if triton is not sys.modules[__name__]:
            triton.set_allocator(allocator)


__all__ = [
    "__version__", "jit", "autotune", "Config", "heuristics", "JITFunction", "KernelInterface",
    "cdiv", "next_power_of_2", "constexpr_function", "must_use_result", "CompilationError",
    "TritonError", "OutOfResources", "InterpreterError", "TileFallbackWarning",
    "TileFallbackError", "compile",
    "language", "testing", "tools", "runtime", "compiler", "knobs", "driver", "MockTensor",
    "TensorWrapper", "reinterpret", "set_allocator",
]
