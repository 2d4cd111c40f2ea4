"""Host tensor descriptors: `TensorDescriptor`, Triton's API (triton/tools/tensor_descriptor.py).

    desc = TensorDescriptor.from_tensor(x, block_shape=[64, 64])        # or padding="nan"
    kernel[grid](desc, ...)          # in the kernel: desc.load([i, j]), desc.store([i, j], v)

In a kernel a host descriptor behaves exactly like one made by `tl.make_tensor_descriptor`:
lanes outside `[0, shape)` read the padding (zero or NaN) and are not written, for any offset.

How it reaches the kernel (docs/internals.md, "Tensor descriptors and block pointers"):

* its signature type is `signature_string(desc)`: `tensordesc<fp16[64, 64]>` (Triton's string)
  for zero padding, `tensordesc<fp16[64, 64],nan>` for NaN padding. The element type and the
  block shape and the padding are part of the specialization: changing `block_shape` (an
  autotune `pre_hook` does) compiles another kernel;
* its executor arguments are `runtime_values(desc)`: the array for the base pointer, then the
  shape (r ints, int32 parameters) and the strides (r ints, int64 parameters), in elements;
* the frontend turns the parameter into those `1 + 2r` kernel parameters and builds one
  `tt.make_tensor_descriptor` from them at entry.

Shapes and strides are in elements. Accepted bases: numpy arrays (strides in bytes are
converted), torch tensors, `TensorWrapper`/`MockTensor`, and anything with `data_ptr()`,
`stride()`, `shape` and `dtype`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List

import numpy as np

from ..runtime.dtypes import dtype_name as canonical_dtype
from ..runtime.dtypes import element_bytes

__all__ = ["TensorDescriptor", "signature_string", "runtime_values", "is_tensor_descriptor"]

MAX_RANK = 5
MAX_BLOCK_NUMEL = 2**20
_FLOAT_TYPES = ("fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16",
                "fp8e4b15")
_I32_MAX = 2**31 - 1


def _ints(values, what: str) -> List[int]:
    try:
        out = [int(v) for v in values]
    except TypeError:
        raise ValueError(f"TensorDescriptor: {what} must be a sequence of ints, got "
                         f"{values!r}") from None
    for v, raw in zip(out, values):
        if isinstance(raw, float) and raw != v:
            raise ValueError(f"TensorDescriptor: {what} must hold ints, got {values!r}")
    return out


def _dtype_name(base) -> str:
    dt = getattr(base, "dtype", None)
    name = canonical_dtype(dt) if dt is not None else None
    if name is None:
        raise ValueError(f"TensorDescriptor: the base has dtype {dt}, which kernels cannot take")
    return name


def _data_ptr(base):
    """The base's address, or None when it has none to check (fake tensors)."""
    if isinstance(base, np.ndarray):
        return base.__array_interface__["data"][0]
    if hasattr(base, "data_ptr"):
        try:
            return int(base.data_ptr())
        except Exception:  # fake/functional/meta tensors have no storage: nothing to check
            return None
    for attr in ("__array_interface__", "__cuda_array_interface__"):
        iface = getattr(base, attr, None)
        if iface is not None:
            return int(iface["data"][0])
    return None


def _shape_and_strides(t):
    """(shape, strides in elements) of an array-like."""
    shape = [int(d) for d in t.shape]
    if isinstance(t, np.ndarray):
        item = t.itemsize
        strides = []
        for s in t.strides:
            if s % item:
                raise ValueError(f"TensorDescriptor.from_tensor: stride {s} bytes is not a "
                                 f"multiple of the element size ({item} bytes)")
            strides.append(s // item)
        return shape, strides
    if hasattr(t, "stride"):
        return shape, [int(s) for s in t.stride()]
    arr = np.asarray(t)
    return _shape_and_strides(arr)


@dataclass
class TensorDescriptor:
    """A strided global tensor (`base`, `shape`, `strides` in elements) moved in `block_shape`
    tiles; out-of-bounds lanes read `padding` ("zero" or "nan") and are not written.

    Checked when made and whenever `block_shape` or `padding` is reassigned (ValueError):
    rank 1 to 5; base 16-byte aligned; block dimensions powers of 2 with at most 2**20
    elements; every stride but the last times the element size a multiple of 16 bytes; the
    last stride 1; every dimension > 0; padding "zero" or "nan", "nan" for floats only.
    """

    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        object.__setattr__(self, "shape", _ints(self.shape, "shape"))
        object.__setattr__(self, "strides", _ints(self.strides, "strides"))
        object.__setattr__(self, "block_shape", _ints(self.block_shape, "block_shape"))
        self._validate_layout()
        self._validate_block()
        self._validate_padding()
        object.__setattr__(self, "_ready", True)

    def __setattr__(self, name, value):
        if not self.__dict__.get("_ready"):
            object.__setattr__(self, name, value)
            return
        # An autotune pre_hook sets block_shape; keep the descriptor valid at every step.
        if name in ("shape", "strides", "block_shape"):
            value = _ints(value, name)
        old = self.__dict__.get(name)
        object.__setattr__(self, name, value)
        try:
            if name in ("base", "shape", "strides"):
                self._validate_layout()
            if name in ("block_shape", "shape", "strides"):
                self._validate_block()
            if name in ("padding", "base"):
                self._validate_padding()
        except ValueError:
            object.__setattr__(self, name, old)
            raise

    # -- construction ----------------------------------------------------------------------

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], padding: str = "zero"
                    ) -> "TensorDescriptor":
        """A descriptor of all of `tensor` (its shape, and its strides in elements)."""
        shape, strides = _shape_and_strides(tensor)
        return TensorDescriptor(tensor, shape, strides, block_shape, padding)

    # -- checks ----------------------------------------------------------------------------

    @property
    def dtype_name(self) -> str:
        """Triton's name of the element type (`fp16`, `bf16`, `i32`, ...)."""
        return _dtype_name(self.base)

    @property
    def rank(self) -> int:
        return len(self.shape)

    def _validate_layout(self):
        rank = len(self.shape)
        if not 1 <= rank <= MAX_RANK:
            raise ValueError(f"TensorDescriptor: rank must be 1 to {MAX_RANK}, got {rank} "
                             f"(shape {self.shape})")
        if len(self.strides) != rank:
            raise ValueError(f"TensorDescriptor: {len(self.strides)} strides for a rank-{rank} "
                             f"shape {self.shape}")
        for i, d in enumerate(self.shape):
            if d <= 0:
                raise ValueError(f"TensorDescriptor: shape must be > 0 in every dimension, got "
                                 f"shape {self.shape} (dimension {i})")
            if d > _I32_MAX:
                raise ValueError(f"TensorDescriptor: shape {self.shape} does not fit in int32 "
                                 f"(dimension {i})")
        name = _dtype_name(self.base)
        if name == "u1":
            raise ValueError("TensorDescriptor: bool tensors are not supported; view the data "
                             "as int8")
        size = element_bytes(name)
        ptr = _data_ptr(self.base)
        if ptr is not None and ptr % 16 != 0:
            raise ValueError(f"TensorDescriptor: the base must be 16-byte aligned, but its "
                             f"address 0x{ptr:x} is {ptr % 16} bytes past a 16-byte boundary")
        if self.strides[-1] != 1:
            raise ValueError(f"TensorDescriptor: the last stride must be 1 (contiguous last "
                             f"dimension), got strides {self.strides}")
        for i, s in enumerate(self.strides[:-1]):
            # A TMA map's strides are unsigned bytes below 2^40 (cuTensorMapEncodeTiled); a
            # larger one wrapped silently in the int64 argument (2^64 became 0).
            if not 0 <= s * size < 1 << 40:
                raise ValueError(f"TensorDescriptor: stride {i} is {s} elements * {size} bytes, "
                                 f"outside [0, 2^40) bytes (strides {self.strides})")
            if (s * size) % 16 != 0:
                raise ValueError(f"TensorDescriptor: every stride but the last must be a "
                                 f"multiple of 16 bytes; stride {i} is {s} elements * {size} "
                                 f"bytes = {s * size} bytes (strides {self.strides})")

    def _validate_block(self):
        rank = len(self.shape)
        if len(self.block_shape) != rank:
            raise ValueError(f"TensorDescriptor: block_shape {self.block_shape} must have one "
                             f"entry per dimension of shape {self.shape}")
        numel = 1
        for i, d in enumerate(self.block_shape):
            if d <= 0 or d & (d - 1):
                raise ValueError(f"TensorDescriptor: block_shape must be powers of 2, got "
                                 f"{self.block_shape} (dimension {i})")
            numel *= d
        if numel > MAX_BLOCK_NUMEL:
            raise ValueError(f"TensorDescriptor: block_shape {self.block_shape} has {numel} "
                             f"elements, more than the maximum {MAX_BLOCK_NUMEL}")

    def _validate_padding(self):
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding must be 'zero' or 'nan', got "
                             f"{self.padding!r}")
        if self.padding == "nan" and _dtype_name(self.base) not in _FLOAT_TYPES:
            raise ValueError(f"TensorDescriptor: padding 'nan' needs a floating-point tensor, "
                             f"got {_dtype_name(self.base)}")

    def validate(self) -> None:
        """Re-check everything (the base may have been replaced in place)."""
        self._validate_layout()
        self._validate_block()
        self._validate_padding()


def is_tensor_descriptor(x) -> bool:
    return isinstance(x, TensorDescriptor)


def signature_string(desc: TensorDescriptor) -> str:
    """The kernel signature type of a host descriptor argument: `tensordesc<fp16[64, 64]>`
    (zero padding, Triton's spelling) or `tensordesc<fp16[64, 64],nan>`."""
    desc.validate()
    block = ", ".join(str(d) for d in desc.block_shape)
    pad = ",nan" if desc.padding == "nan" else ""
    return f"tensordesc<{desc.dtype_name}[{block}]{pad}>"


def runtime_values(desc: TensorDescriptor) -> list:
    """The executor arguments of a host descriptor, in kernel-parameter order: the base array
    (convert it like any pointer argument), then shape x r (int32 parameters), then strides x r
    (int64 parameters), in elements."""
    return [desc.base] + [int(d) for d in desc.shape] + [int(s) for s in desc.strides]
