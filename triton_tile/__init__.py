"""triton_tile: a Triton-compatible kernel language and compiler.

`import triton_tile as triton; import triton_tile.language as tl` runs Triton kernels: on any
CPU through the C++ executors, and (with the Tile IR backend) on NVIDIA GPUs.
"""

__version__ = "0.1.0"

from . import (  # noqa: E402,I001
    compiler,
    knobs,  # noqa: E402  (the version must exist first: cache keys read it)
    language,
    runtime,
    testing,
    tools,
)
from .compiler import CompilationError, compile  # noqa: E402
from .runtime import driver  # noqa: E402
from .runtime.autotuner import Config, autotune, heuristics  # noqa: E402
from .runtime.errors import (  # noqa: E402
    InterpreterError,
    OutOfResources,
    TileFallbackWarning,
    TritonError,
)
from .runtime.jit import (  # noqa: E402
    JITFunction,
    KernelInterface,
    cdiv,
    constexpr_function,
    jit,
    must_use_result,
    next_power_of_2,
)
from .runtime.tensors import MockTensor, TensorWrapper, reinterpret  # noqa: E402

_allocator = None


def set_allocator(allocator) -> None:
    """Kernels that build tensor descriptors on the device ask this for scratch memory on a GPU;
    the CPU executors allocate their own, so the allocator is only recorded."""
    global _allocator
    _allocator = allocator


__all__ = [
    "__version__", "jit", "autotune", "Config", "heuristics", "JITFunction", "KernelInterface",
    "cdiv", "next_power_of_2", "constexpr_function", "must_use_result", "CompilationError",
    "TritonError", "OutOfResources", "InterpreterError", "TileFallbackWarning", "compile",
    "language", "testing", "tools", "runtime", "compiler", "knobs", "driver", "MockTensor",
    "TensorWrapper", "reinterpret", "set_allocator",
]
