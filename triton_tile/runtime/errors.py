"""Host-side exceptions and warnings (compile errors live in compiler/errors.py)."""

from __future__ import annotations


class TritonError(Exception):
    """Base of every error triton_tile raises on purpose."""


class OutOfResources(TritonError):
    """A compiled kernel needs more of a resource than the target has."""

    def __init__(self, required, limit, name):
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__(
            f"out of resource: {name}, Required: {required}, Hardware limit: {limit}. "
            "Reducing block sizes or `num_stages` may help.")

    def __reduce__(self):
        return (type(self), (self.required, self.limit, self.name))


class LaunchKeywordError(TypeError, KeyError):
    """A launch keyword that is neither a parameter nor a launch option. A TypeError, as a
    Python call with an unexpected keyword; also a KeyError, which stock Triton raises."""

    __str__ = TypeError.__str__  # not KeyError's, which quotes the message


class DeviceMismatchError(TypeError, ValueError):
    """A launch's arrays are on two devices (two GPUs, or host memory and a GPU): the message
    names the kernel and both arguments. A ValueError, as the multi-GPU issue specifies, and a
    TypeError, what triton_tile raised before."""


class AutotunerError(TritonError):
    """The autotuner was misconfigured (no config left after pruning, conflicting keys)."""


class LaunchOptionError(ValueError, AssertionError):
    """A launch option out of its range (num_warps not a power of 2, ...): a ValueError, as
    triton_tile documents, and an AssertionError, what Triton raises for the same options."""


class InterpreterError(TritonError):
    """Triton's interpreter (TRITON_INTERPRET=1, the CPU) raises it for errors in kernels.
    triton_tile has no interpreter, but its CompilationError derives from this, so code written
    for the interpreter catches the same kernel errors here."""


class TileFallbackError(TritonError, RuntimeError):
    """TRITON_TILE_FALLBACK=error and a kernel the Tile IR path cannot run: says why. Also a
    RuntimeError, what this raised before it had its own class."""


class TileFallbackWarning(UserWarning):
    """A kernel asked for the Tile IR path ran on the PTX-style path instead; says why."""
