"""Host runtime: the JIT, autotuning, caches, argument handling and the driver shim."""

from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .driver import driver
from .errors import AutotunerError, InterpreterError, OutOfResources, TritonError
from .jit import JITFunction, KernelInterface, KernelParam
from .tensors import MockTensor, TensorWrapper, reinterpret

__all__ = [
    "Autotuner", "Config", "Heuristics", "autotune", "heuristics", "driver", "AutotunerError",
    "InterpreterError", "OutOfResources", "TritonError", "JITFunction", "KernelInterface",
    "KernelParam", "MockTensor", "TensorWrapper", "reinterpret",
]
