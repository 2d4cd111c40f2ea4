"""Stand-in tensors the host API hands around: MockTensor (warmup) and TensorWrapper."""

from __future__ import annotations

import numpy as np


def _is_dtype_like(x) -> bool:
    if isinstance(x, np.dtype):
        return True
    if isinstance(x, type) and issubclass(x, np.generic):
        return True
    return type(x).__module__.startswith("torch") and type(x).__name__ == "dtype"


class MockTensor:
    """A tensor with a dtype and no memory: lets `kernel.warmup` compile from dtypes alone.

    Its `data_ptr()` is 0, so like Triton it is optimistically specialized as 16-byte aligned.
    """

    def __init__(self, dtype, shape=None):
        self.dtype = np.dtype(dtype) if isinstance(dtype, type) else dtype
        self.shape = tuple(shape) if shape is not None else (1,)

    @staticmethod
    def wrap_dtype(arg):
        return MockTensor(arg) if _is_dtype_like(arg) else arg

    @staticmethod
    def data_ptr():
        return 0

    def stride(self, dim=None):
        strides, acc = [], 1
        for n in reversed(self.shape):
            strides.append(acc)
            acc *= n
        strides = tuple(reversed(strides))
        return strides if dim is None else strides[dim]

    def __repr__(self):
        return f"MockTensor(dtype={self.dtype}, shape={self.shape})"


class TensorWrapper:
    """An array viewed with another element type: `reinterpret(uint_array, tl.float8e5)`."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype
        self.shape = getattr(base, "shape", None)

    def data_ptr(self):
        if isinstance(self.base, np.ndarray):
            return self.base.__array_interface__["data"][0]
        return self.base.data_ptr()

    def stride(self, *args):
        if isinstance(self.base, np.ndarray):
            st = tuple(s // self.base.itemsize for s in self.base.strides)
            return st[args[0]] if args else st
        return self.base.stride(*args)

    @property
    def device(self):
        return getattr(self.base, "device", "cpu")

    def numel(self):
        return int(np.prod(self.shape)) if self.shape is not None else self.base.numel()

    def __str__(self):
        return f"TensorWrapper[{self.dtype}]({self.base})"

    __repr__ = __str__


def reinterpret(tensor, dtype):
    """View `tensor`'s memory as `dtype` (a tl dtype or a numpy/torch dtype) when passed to a
    kernel; reinterpreting a wrapper back to its base's dtype returns the base."""
    if isinstance(tensor, TensorWrapper):
        if str(dtype) == str(tensor.base.dtype):
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if isinstance(tensor, np.ndarray) or hasattr(tensor, "data_ptr") or \
            hasattr(tensor, "__array_interface__"):
        return TensorWrapper(tensor, dtype)
    raise TypeError(f"cannot reinterpret {type(tensor).__name__}")
