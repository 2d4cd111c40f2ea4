"""Argument specialization (Triton's table) and conversion of arguments for the executor.

`specialize_arg` maps one bound argument to `(type_string, key, runtime_value)`:
type and key follow Triton's specialization (python/src/specialize.cc) exactly; the runtime
value is what the executor receives (a `HostBuffer` for pointers, a Python int or float for
scalars, `CONSTEXPR` for arguments folded into the kernel). Doing both in one pass means one
type dispatch per argument per launch.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple, Optional, Tuple

import numpy as np

from ..tools import tensor_descriptor as td
from .dtypes import ELEM_BYTES as _ELEM_BYTES
from .dtypes import FLOAT_NAMES as _FLOAT_NAMES
from .dtypes import (
    dtype_name,
    element_bytes,  # noqa: F401 (re-exported)
)
from .errors import DeviceMismatchError
from .tensors import MockTensor, TensorWrapper

CONSTEXPR = object()  # runtime value of an argument that became a compile-time constant

_I32_MIN, _I32_MAX = -(2**31), 2**31
_I64_MIN, _I64_MAX = -(2**63), 2**63
_U64_MAX = 2**64

# dtype object -> canonical name: str(dtype) is slow for numpy. The C++ launch specializer
# reads this dict too (on this module, so tests can replace it).
_DTYPE_NAMES: dict = {}


def canonical_dtype(dtype) -> Optional[str]:
    """Triton's name for a numpy/torch/ml_dtypes/tl dtype, or None if Triton has none."""
    try:
        return _DTYPE_NAMES[dtype]
    except (KeyError, TypeError):
        pass
    result = dtype_name(dtype)
    try:
        _DTYPE_NAMES[dtype] = result
    except TypeError:
        pass
    return result




class HostBuffer(NamedTuple):
    """A pointer argument: the data pointer and the allocation [lo, hi) it lies in."""

    ptr: int
    lo: int
    hi: int


class DeviceBuffer(NamedTuple):
    """A pointer argument in CUDA memory: the device address, the device index, who owns the
    memory ("torch", "cupy" or "cai"; the launch's stream follows the owner, torch's or cupy's
    current stream) and the first byte of the allocation it lies in (a torch tensor's storage;
    `ptr` where the array does not say): two views of one storage are one buffer to the Tile
    path's memory ordering (alias_classes)."""

    ptr: int
    device: int
    owner: str
    lo: int


class ArgError(Exception):
    """Raised by converters; the caller re-raises as TypeError/ValueError naming the kernel."""

    def __init__(self, exc_type, message):
        super().__init__(message)
        self.exc_type = exc_type


# --- host memory of array-likes -------------------------------------------------------------

try:  # numpy >= 2
    from numpy.lib.array_utils import byte_bounds as _byte_bounds
except ImportError:  # pragma: no cover - numpy 1.x
    _byte_bounds = np.byte_bounds


def _numpy_buffer(arr: np.ndarray) -> HostBuffer:
    ptr = arr.__array_interface__["data"][0]
    root = arr.base
    if root is None:  # owns its memory, allocated contiguous from its data pointer
        return HostBuffer(ptr, ptr, ptr + arr.nbytes)
    # Views may legally be indexed anywhere in the allocation they view (negative strides, a
    # row of a matrix...), so the bounds are those of the array that owns the memory.
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.base is None:
        lo = root.__array_interface__["data"][0]
        hi = lo + root.nbytes
    else:  # wraps foreign memory (frombuffer, mmap, __array_interface__): its own bounds
        lo, hi = _byte_bounds(root)
    return HostBuffer(ptr, lo, hi)


# Tensor classes seen holding CUDA memory: specialize_arg's fast path for the arguments of
# every GPU launch (is_cuda, data_ptr and get_device are torch's cheapest queries).
_TORCH_CUDA_TYPES: set = set()
# ... and seen holding host memory: the C++ specializer's fast path for CPU tensors
# (launch_specializer.h).
_TORCH_HOST_TYPES: set = set()


def _is_torch_tensor(x) -> bool:
    # No hard torch import: recognise a tensor by its type's module.
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def array_dtype_and_buffer(x, warmup: bool) -> Tuple[Any, Optional[HostBuffer]]:
    """(dtype, buffer) of an array-like argument; buffer None for MockTensor (warmup)."""
    if isinstance(x, np.ndarray):
        return x.dtype, _numpy_buffer(x)
    if isinstance(x, TensorWrapper):
        _, buf = array_dtype_and_buffer(x.base, warmup)
        return x.dtype, buf
    if isinstance(x, MockTensor):
        if not warmup:
            raise ArgError(TypeError, "is a MockTensor, which only kernel.warmup() accepts")
        return x.dtype, None
    if _is_torch_tensor(x):
        dev = x.device
        if dev.type == "cuda":
            _TORCH_CUDA_TYPES.add(type(x))
            ptr = x.data_ptr()
            return x.dtype, DeviceBuffer(ptr, dev.index or 0, "torch",
                                         ptr - x.storage_offset() * x.element_size())
        if dev.type != "cpu":
            raise ArgError(ValueError, f"is a tensor on device '{dev}'; kernels take host "
                                       "(CPU) or CUDA memory")
        _TORCH_HOST_TYPES.add(type(x))
        ptr = x.data_ptr()
        storage = x.untyped_storage()
        lo = storage.data_ptr()
        return x.dtype, HostBuffer(ptr, lo, lo + storage.nbytes())
    if hasattr(x, "__cuda_array_interface__"):
        return _cuda_array(x)
    if hasattr(x, "__array_interface__"):
        arr = np.asarray(x)
        return arr.dtype, _numpy_buffer(arr)
    if hasattr(x, "__dlpack__"):
        dev = x.__dlpack_device__() if hasattr(x, "__dlpack_device__") else (1, 0)
        if int(dev[0]) == 2:  # kDLCUDA: read it through torch, which understands DLPack
            return array_dtype_and_buffer(_torch_from_dlpack(x), warmup)
        if int(dev[0]) not in (1, 3):  # kDLCPU, kDLCUDAHost
            raise ArgError(ValueError, f"is a DLPack tensor on device type {dev[0]}; kernels "
                                       "take host (CPU) or CUDA memory")
        arr = np.from_dlpack(x)
        return arr.dtype, _numpy_buffer(arr)
    return None, None


def _cuda_array(x) -> Tuple[Any, DeviceBuffer]:
    """dtype and DeviceBuffer of an object with `__cuda_array_interface__` (cupy, numba, ...).
    The interface does not name the device: cupy's `.device.id` does, else device 0."""
    cai = x.__cuda_array_interface__
    try:
        dtype = np.dtype(cai["typestr"])
    except TypeError:
        raise ArgError(TypeError, f"has CUDA array typestr {cai['typestr']!r}, which numpy "
                                  "cannot name") from None
    device = getattr(getattr(x, "device", None), "id", 0)
    owner = "cupy" if type(x).__module__.startswith("cupy") else "cai"
    ptr = int(cai["data"][0] or 0)
    return dtype, DeviceBuffer(ptr, int(device), owner, ptr)


def _torch_from_dlpack(x):
    try:
        import torch
    except ImportError:
        raise ArgError(TypeError, "is a CUDA DLPack tensor; passing one needs torch installed "
                                  "(or pass a torch/cupy array directly)") from None
    return torch.from_dlpack(x)


def is_array_like(x) -> bool:
    return (isinstance(x, (np.ndarray, TensorWrapper, MockTensor)) or _is_torch_tensor(x)
            or hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__")
            or hasattr(x, "__cuda_array_interface__"))


# --- the specialization table ---------------------------------------------------------------


def _is_constexpr_obj(x) -> bool:
    # tl.constexpr lives in the language package; match it by name to stay import-light.
    return type(x).__name__ == "constexpr" and hasattr(x, "value")


def _is_tl_dtype(x) -> bool:
    mod = type(x).__module__
    return mod.startswith("triton_tile.language") and hasattr(x, "primitive_bitwidth")


def _is_jit_fn(x) -> bool:
    return hasattr(x, "cache_key") and hasattr(x, "arg_names") and hasattr(x, "fn")


def _int_type(v: int) -> str:
    if _I32_MIN <= v < _I32_MAX:
        return "i32"
    if _I64_MIN <= v < _I64_MAX:
        return "i64"
    if _I64_MAX <= v < _U64_MAX:
        return "u64"
    raise ArgError(OverflowError, f"integer {v} does not fit in 64 bits")


def _int_runtime(v: int) -> int:
    # u64 values travel as their two's complement in int64 (the executor's argument width).
    return v - _U64_MAX if v >= _I64_MAX else v


def specialize_arg(value, specialize: bool, align: bool, annotation: str, warmup: bool
                   ) -> Tuple[Any, Any, Any]:
    """(type_string, key, runtime_value) for one non-constexpr parameter's argument."""
    if type(value) is np.ndarray and not annotation:  # the common case first
        name = canonical_dtype(value.dtype)
        if name is not None:
            buf = _numpy_buffer(value)
            return "*" + name, ("D" if specialize and align and buf.ptr % 16 == 0 else None), buf
    if type(value) is int and not annotation and _I32_MIN <= value < _I32_MAX:  # sizes
        if specialize and value == 1:
            return "constexpr", 1, CONSTEXPR
        return "i32", "D" if specialize and align and value % 16 == 0 else None, value
    if type(value) in _TORCH_CUDA_TYPES and not annotation and value.is_cuda:  # GPU launches
        name = canonical_dtype(value.dtype)
        if name is not None:
            ptr = value.data_ptr()
            return ("*" + name, "D" if specialize and align and ptr % 16 == 0 else None,
                    DeviceBuffer(ptr, value.get_device(), "torch",
                                 ptr - value.storage_offset() * _ELEM_BYTES[name]))
    if value is None:
        return "constexpr", None, CONSTEXPR
    if _is_constexpr_obj(value):
        return "constexpr", value.value, CONSTEXPR
    if annotation:
        return _specialize_annotated(value, specialize, align, annotation, warmup)
    if isinstance(value, (bool, np.bool_)):
        return "u1", None, int(value)
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if specialize and v == 1:
            return "constexpr", 1, CONSTEXPR
        t = _int_type(v)
        key = "D" if specialize and align and v % 16 == 0 else None
        return t, key, _int_runtime(v)
    if isinstance(value, (float, np.floating)):
        return "fp32", None, float(value)
    if isinstance(value, tuple):
        parts = [specialize_arg(v, True, True, "", warmup) for v in value]
        types = tuple(p[0] for p in parts)
        keys = tuple(hashable(k) if t == "constexpr" else k for t, k, _ in parts)
        if hasattr(value, "_fields"):  # a namedtuple: the frontend resolves field names
            cls = type(value)
            types = cls(*types)
            keys = ("namedtuple", f"{cls.__module__}.{cls.__qualname__}", keys)
        return types, keys, tuple(p[2] for p in parts)
    if _is_jit_fn(value):
        return "constexpr", value.cache_key, CONSTEXPR
    if _is_tl_dtype(value):
        return "constexpr", value, CONSTEXPR
    if is_array_like(value):
        dtype, buf = array_dtype_and_buffer(value, warmup)
        name = canonical_dtype(dtype)
        if name is None:
            raise ArgError(TypeError, f"has dtype {dtype}, which Triton kernels cannot take")
        ptr = 0 if buf is None else buf.ptr
        key = "D" if specialize and align and ptr % 16 == 0 else None
        return "*" + name, key, buf
    if type(value).__name__ == "TensorDescriptor":
        return _specialize_descriptor(value, warmup)
    raise ArgError(TypeError, f"has type {type(value).__name__}, which is not a kernel argument "
                              "type (arrays, tensors, TensorDescriptor, int, float, bool, None, "
                              "tl.constexpr)")


def _specialize_descriptor(desc, warmup: bool):
    """A host TensorDescriptor: its type string carries dtype, block shape and padding (so they
    are specialized); it reaches the executor as base, shape..., strides... (tools/
    tensor_descriptor.py and docs/internals.md)."""
    if not td.is_tensor_descriptor(desc):
        raise ArgError(TypeError, f"is a {type(desc).__module__}.TensorDescriptor; pass "
                                  "triton_tile.tools.tensor_descriptor.TensorDescriptor")
    return td.signature_string(desc), None, _descriptor_runtime(desc, warmup)


def _descriptor_runtime(desc, warmup: bool) -> tuple:
    base, *ints = td.runtime_values(desc)
    _, buf = array_dtype_and_buffer(base, warmup)
    return (buf,) + tuple(_int_runtime(int(v)) for v in ints)


def _specialize_annotated(value, specialize, align, annotation, warmup):
    if annotation.startswith("*"):
        t, key, rt = specialize_arg(value, specialize, align, "", warmup)
        if not (isinstance(t, str) and t.startswith("*")):
            raise ArgError(TypeError, f"is annotated {annotation} but got "
                                      f"{type(value).__name__}")
        want = annotation.lstrip("*k")
        if _ELEM_BYTES.get(want) != _ELEM_BYTES.get(t[1:]):
            raise ArgError(ValueError, f"is annotated {annotation} but the array holds {t[1:]}, "
                                       "of another element size")
        return annotation, key, rt
    if annotation in _FLOAT_NAMES or annotation.startswith("fp"):
        # Annotated floats and bools are never value-specialized.
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise ArgError(TypeError, f"is annotated {annotation} but got "
                                      f"{type(value).__name__}")
        return annotation, None, float(value)
    if annotation == "u1":
        if not isinstance(value, (bool, np.bool_, int, np.integer)):
            raise ArgError(TypeError, f"is annotated u1 but got {type(value).__name__}")
        return "u1", None, int(bool(value))
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise ArgError(TypeError, f"is annotated {annotation} but got {type(value).__name__}")
    v = int(value)
    bits = _ELEM_BYTES[annotation] * 8
    lo, hi = (0, 2**bits) if annotation.startswith("u") else (-(2**(bits - 1)), 2**(bits - 1))
    if not lo <= v < hi:
        raise ArgError(OverflowError, f"value {v} does not fit its annotation {annotation}")
    key = "D" if specialize and align and v % 16 == 0 else None
    return annotation, key, _int_runtime(v) if bits == 64 else v


def annotation_type(annotation) -> str:
    """Canonical type string of a parameter annotation, '' if it does not force a type.

    Accepts tl dtypes (`x: tl.float64`), strings (`"*fp32"`, `"const *fp16"` -> `*kfp16`,
    `"tl.uint8"`, the form `from __future__ import annotations` produces) and ignores the rest
    (`torch.Tensor`, `int`), as Triton does.
    """
    if annotation is None or annotation is _EMPTY:
        return ""
    text = annotation if isinstance(annotation, str) else str(annotation)
    text = text.strip()
    if text.startswith("pointer<") and text.endswith(">"):
        text = "*" + text[len("pointer<"):-1]
    const = text.startswith("const ")
    if const:
        text = text[len("const "):].strip()
    if text.startswith("*"):
        elem = canonical_dtype(text[1:].strip().split(".")[-1])
        return (("*k" if const else "*") + elem) if elem else ""
    return canonical_dtype(text.split(".")[-1]) or ""


def is_constexpr_annotation(annotation) -> bool:
    if isinstance(annotation, str):
        return annotation.strip().split(".")[-1] == "constexpr"
    return getattr(annotation, "__name__", "") == "constexpr"


class _Empty:
    pass


_EMPTY = _Empty()

def runtime_value(value, type_str, warmup: bool = False):
    """Executor value of an argument whose type is already known (CompiledKernel launches)."""
    if isinstance(type_str, tuple):
        return tuple(runtime_value(v, t, warmup) for v, t in zip(value, type_str))
    if type_str == "constexpr":
        return CONSTEXPR
    if type_str.startswith("tensordesc"):
        return _descriptor_runtime(value, warmup)
    if type_str.startswith("*"):
        if not is_array_like(value):
            raise ArgError(TypeError, f"expects an array ({type_str}) but got "
                                      f"{type(value).__name__}")
        return array_dtype_and_buffer(value, warmup)[1]
    if type_str in _FLOAT_NAMES:
        return float(value)
    v = int(value)
    return _int_runtime(v) if v >= _I64_MAX else v


def runtime_values(name: str, args, param_types) -> list:
    """Executor values of a compiled kernel's direct launch (`compiled[grid](*all_args)`): every
    parameter in order, constexprs included; errors name the kernel and the argument."""
    if len(args) != len(param_types):
        raise TypeError(f"{name}: expected {len(param_types)} arguments (constexprs included), "
                        f"got {len(args)}")
    vals = []
    for i, (a, t) in enumerate(zip(args, param_types)):
        try:
            vals.append(runtime_value(a, t))
        except ArgError as e:
            raise e.exc_type(f"{name}: argument #{i} {e}") from None
    return vals


def tuple_constants(value, types):
    """A tuple argument's compile-time view for the frontend: the values of its constexpr
    elements (None elsewhere), nested, with the namedtuple type kept."""
    out = []
    for v, t in zip(value, types):
        if isinstance(t, tuple):
            out.append(tuple_constants(v, t))
        elif t == "constexpr":
            out.append(v.value if _is_constexpr_obj(v) else v)
        else:
            out.append(None)
    return type(value)(*out) if hasattr(value, "_fields") else tuple(out)


def _read_only(x) -> Optional[str]:
    """Why an array argument must not be written (a phrase), or None when it may be."""
    if isinstance(x, TensorWrapper):
        return _read_only(x.base)
    if isinstance(x, np.ndarray):
        if not x.flags.writeable:
            return "a read-only numpy array (flags.writeable is False)"
        return None
    if _is_torch_tensor(x):
        # torch has no read-only flag: a tensor over memory the process maps read-only (made
        # from a read-only np.memmap) would crash the process when written. Memory torch
        # allocated itself (a resizable storage) is writable: only foreign memory is looked
        # up in the process's mappings (a few hundred us).
        if x.device.type != "cpu" or not x.numel() or _torch_owns_memory(x):
            return None
        if not _os_writable(*_extent(x)):
            return "a torch tensor over memory mapped read-only"
        return None
    if hasattr(x, "__cuda_array_interface__"):
        data = x.__cuda_array_interface__.get("data") or (0, False)
        return "a read-only CUDA array (its interface's data says read-only)" if data[1] \
            else None
    if hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__"):
        try:
            arr = np.asarray(x) if hasattr(x, "__array_interface__") else np.from_dlpack(x)
        except (TypeError, ValueError, BufferError, RuntimeError):
            return None  # not a host array: its launch says so
        if not arr.flags.writeable:
            how = "__array_interface__" if hasattr(x, "__array_interface__") else "DLPack"
            return f"read-only (its {how} export says so)"
    if type(x).__name__ == "TensorDescriptor" and hasattr(x, "base"):
        return _read_only(x.base)
    return None


def _torch_owns_memory(t) -> bool:
    """Whether a CPU tensor's memory came from torch's allocator (its storage can resize),
    not from numpy, a buffer or a file (torch.from_numpy, torch.frombuffer)."""
    try:
        return bool(t.untyped_storage().resizable())
    except (AttributeError, RuntimeError):
        return False


def _os_writable(lo: int, hi: int) -> bool:
    """Whether the process may write [lo, hi): every byte in a mapping with 'w' permission
    (Linux's /proc/self/maps; elsewhere assumed writable)."""
    if hi <= lo:
        return True
    try:
        with open("/proc/self/maps") as f:
            maps = f.read().splitlines()
    except OSError:
        return True
    pos = lo
    for line in maps:
        span, perms = line.split()[:2]
        start, end = (int(a, 16) for a in span.split("-"))
        if start <= pos < end:
            if perms[1] != "w":
                return False
            pos = end
            if pos >= hi:
                return True
    return False


def locate_arguments(param_types, flat_indices) -> tuple:
    """Executor argument positions (tuples flattened, constexprs dropped) as (parameter
    index, path) pairs: a path steps into tuple elements by index and into a tensor
    descriptor's "base" array; positions that are a descriptor's sizes are left out."""
    wanted, out, pos = set(flat_indices), [], 0

    def walk(pnum, t, path):
        nonlocal pos
        if isinstance(t, (tuple, list)):
            for j, sub in enumerate(t):
                walk(pnum, sub, path + (j,))
        elif t == "constexpr":
            return
        elif isinstance(t, str) and t.startswith("tensordesc"):
            if pos in wanted:
                out.append((pnum, path + ("base",)))
            pos += 1 + 2 * (t[t.index("["):t.index("]")].count(",") + 1)
        else:
            if pos in wanted:
                out.append((pnum, path))
            pos += 1

    for pnum, t in enumerate(param_types):
        walk(pnum, t, ())
    return tuple(out)


def check_writable(kernel: str, names, values, written) -> None:
    """A ValueError naming the kernel and the argument when an argument the kernel writes
    through (`written`: locate_arguments pairs) is read-only, before anything runs."""
    for pnum, path in written:
        v, name = values[pnum], names[pnum]
        for step in path:
            v = getattr(v, "base", None) if step == "base" else v[step]
            if step != "base":
                name += f"[{step}]"
        if v is None or isinstance(v, (int, float)):
            continue
        why = _read_only(v)
        if why is not None:
            raise ValueError(f"{kernel}: argument {name!r} is {why}, but the kernel "
                             "stores to it (tl.store or an atomic); pass a writable array")


def _extent(x) -> Optional[Tuple[int, int]]:
    """[lo, hi) of the bytes an array argument's own elements span (not its allocation's), or
    None where it cannot be known."""
    if isinstance(x, TensorWrapper):
        return _extent(x.base)
    if isinstance(x, np.ndarray):
        if x.size == 0:
            ptr = x.__array_interface__["data"][0]
            return ptr, ptr
        lo, hi = _byte_bounds(x)
        return int(lo), int(hi)
    if _is_torch_tensor(x) and x.device.type == "cpu":
        ptr, es = x.data_ptr(), x.element_size()
        if x.numel() == 0:
            return ptr, ptr
        lo = sum(min(0, (n - 1) * st) for n, st in zip(x.shape, x.stride()))
        hi = sum(max(0, (n - 1) * st) for n, st in zip(x.shape, x.stride())) + 1
        return ptr + lo * es, ptr + hi * es
    if hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__"):
        try:
            return _extent(np.asarray(x) if hasattr(x, "__array_interface__")
                           else np.from_dlpack(x))
        except (TypeError, ValueError, BufferError):
            return None
    return None


def debug_extents(bound, runtime) -> list:
    """The runtime values of a debug launch: each host array argument bounded by its own
    elements' extent instead of its allocation's, so `x = buf[:1000]` read past element 999
    raises IndexError (by default, as in Triton, any address in the allocation is legal)."""
    out = list(runtime)
    for i, (v, rt) in enumerate(zip(bound, runtime)):
        if type(rt) is HostBuffer:
            ext = _extent(v)
            if ext is not None:
                out[i] = HostBuffer(rt.ptr, max(rt.lo, ext[0]), min(rt.hi, ext[1]))
    return out


def alias_classes(values) -> tuple:
    """Kernel parameters (by position among the executor arguments) whose pointers share one
    allocation at this launch: the Tile path orders their accesses as one buffer's (Tile IR
    orders memory only through tokens; two names for one array must not race)."""
    groups: dict = {}
    for i, v in enumerate(flatten_runtime(values)):
        if isinstance(v, HostBuffer):
            groups.setdefault(("host", v.lo), []).append(i)
        elif isinstance(v, DeviceBuffer):
            groups.setdefault(("cuda", v.device, v.lo), []).append(i)
    return tuple(tuple(g) for g in groups.values() if len(g) > 1)


def flatten_runtime(values) -> list:
    """Executor arguments in order: constexprs dropped, tuples flattened."""
    out: list = []
    for v in values:
        if v is CONSTEXPR:
            continue
        if isinstance(v, tuple) and not isinstance(v, (HostBuffer, DeviceBuffer)):
            out.extend(flatten_runtime(v))
        else:
            out.append(v)
    return out


def launch_device(names, runtime, kernel: str) -> Optional[DeviceBuffer]:
    """Where a launch runs: None for host memory (the CPU executors), else the first CUDA
    buffer (its device and owner). The executor follows the data, so host and CUDA arrays,
    or arrays on two GPUs, in one launch are a DeviceMismatchError (a TypeError and a
    ValueError) naming the kernel and arguments."""
    host = dev = None  # (argument name, buffer) of the first of each
    for name, v in zip(names, runtime):
        t = type(v)
        if t is HostBuffer:
            host = host or (name, v)
            continue
        if t is not DeviceBuffer and t is not tuple:  # scalars, constexprs
            continue
        for b in (v,) if t is DeviceBuffer else _buffers(v):
            if type(b) is HostBuffer:
                host = host or (name, b)
            elif type(b) is DeviceBuffer:
                if dev is not None and b.device != dev[1].device:
                    raise DeviceMismatchError(
                        f"{kernel}: argument {name!r} is on CUDA device {b.device} but "
                        f"argument {dev[0]!r} is on CUDA device {dev[1].device}; pass all "
                        "arrays on one device")
                dev = dev or (name, b)
    if host is not None and dev is not None:
        raise DeviceMismatchError(
            f"{kernel}: argument {host[0]!r} is in host memory but argument {dev[0]!r} is on "
            f"CUDA device {dev[1].device}; the kernel runs where the data is, so pass all "
            "arrays on the GPU or all on the host")
    return None if dev is None else dev[1]


def _buffers(values):
    for v in values:
        if type(v) is tuple:
            yield from _buffers(v)
        else:
            yield v


_SIMPLE_CONSTEXPRS = {int: "int", bool: "bool", float: "float", str: "str",
                      type(None): "NoneType"}


def hashable(value) -> Any:
    """A hashable stand-in for a constexpr value that keeps 1, 1.0 and True apart."""
    simple = _SIMPLE_CONSTEXPRS.get(type(value))
    if simple is not None:  # the common case, on every launch: BLOCK sizes, flags, names
        return simple, value
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(hashable(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, hashable(v)) for k, v in value.items())))
    if _is_jit_fn(value):
        return ("jit", value.cache_key)
    try:
        hash(value)
    except TypeError:
        raise ArgError(TypeError, f"is a constexpr of unhashable type {type(value).__name__}"
                       ) from None
    return (type(value).__name__, value)


__all__ = [
    "CONSTEXPR", "HostBuffer", "DeviceBuffer", "ArgError", "launch_device", "canonical_dtype",
    "element_bytes", "specialize_arg",
    "annotation_type", "is_constexpr_annotation", "runtime_value", "flatten_runtime", "hashable",
]
