"""Stand-in for upstream's `triton._internal_testing`, for triton_tile on the CPU.

The same names with the values upstream's interpreter CI sees: `is_interpreter()` is true, no
GPU predicate holds, tensors are torch CPU tensors (unsigned and fp8 ones wrapped with
`reinterpret`). The data helpers (numpy_random, to_triton, to_numpy) draw the same values
as upstream's, so a test's inputs are the ones the interpreter is measured on.
"""

import os
import re
from typing import Optional, Set, Union

import numpy as np
import pytest
import torch
import triton
import triton.language as tl
from numpy.random import RandomState
from triton import knobs
from triton.runtime.tensors import TensorWrapper, reinterpret

int_dtypes = ['int8', 'int16', 'int32', 'int64']
uint_dtypes = ['uint8', 'uint16', 'uint32', 'uint64']
integral_dtypes = int_dtypes + uint_dtypes
float_dtypes = ['float16', 'float32', 'float64']
float_dtypes_with_bfloat16 = float_dtypes + ['bfloat16']
dtypes = integral_dtypes + float_dtypes
dtypes_with_bfloat16 = dtypes + ['bfloat16']
torch_float8_dtypes = ['float8_e4m3fn', 'float8_e5m2']
torch_dtypes = ['bool'] + int_dtypes + ['uint8'] + float_dtypes + ['bfloat16']
tma_dtypes = sorted(set(dtypes_with_bfloat16) - {"int64", "uint64", "float64"})

# torch / numpy spellings -> Triton's names (upstream keeps this in runtime/jit.py).
type_canonicalisation_dict = {
    "bool": "i1", "float8e4nv": "fp8e4nv", "float8e5": "fp8e5", "float8e4b15": "fp8e4b15",
    "float8_e4m3fn": "fp8e4nv", "float8e4b8": "fp8e4b8", "float8_e4m3fnuz": "fp8e4b8",
    "float8_e5m2": "fp8e5", "float8e5b16": "fp8e5b16", "float8_e5m2fnuz": "fp8e5b16",
    "half": "fp16", "float16": "fp16", "bfloat16": "bf16", "float": "fp32", "float32": "fp32",
    "double": "fp64", "float64": "fp64", "int8": "i8", "int16": "i16", "int": "i32",
    "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
    "uint64": "u64", "void": "void",
}


def is_interpreter():
    return True


def get_current_target():
    return None


def _false(*_args, **_kwargs):
    return False


is_cuda = is_ampere_or_newer = is_blackwell = is_hopper_or_newer = is_hopper = _false
is_sm12x = is_hip = is_hip_cdna2 = is_hip_cdna3 = is_hip_cdna4 = is_hip_gfx11 = _false
is_hip_gfx12 = is_hip_gfx1250 = is_hip_cdna = is_xpu = _false


def get_hip_lds_size():
    return 65536


def get_arch():
    return ""


def numpy_random(shape, dtype_str, rs: Optional[RandomState] = None, low=None, high=None):
    if isinstance(shape, int):
        shape = (shape, )
    if rs is None:
        rs = RandomState(seed=17)
    if dtype_str in int_dtypes + uint_dtypes:
        iinfo = np.iinfo(getattr(np, dtype_str))
        low = iinfo.min if low is None else max(low, iinfo.min)
        high = iinfo.max if high is None else min(high, iinfo.max)
        x = rs.randint(low, high, shape, dtype=getattr(np, dtype_str))
        x[x == 0] = 1  # as upstream: no zeros, so division tests do not trap
        return x
    if dtype_str and 'float8' in dtype_str:
        return rs.randint(20, 40, shape, dtype=np.int8)
    if dtype_str in float_dtypes:
        return rs.normal(0, 1, shape).astype(dtype_str)
    if dtype_str == 'bfloat16':
        return (rs.normal(0, 1, shape).astype('float32').view('uint32')
                & np.uint32(0xffff0000)).view('float32')
    if dtype_str in ['bool', 'int1', 'bool_']:
        return rs.normal(0, 1, shape) > 0.0
    raise RuntimeError(f'Unknown dtype {dtype_str}')


def to_triton(x: np.ndarray, device, dst_type=None) -> Union[TensorWrapper, torch.Tensor]:
    t = x.dtype.name
    if t in uint_dtypes:
        x_signed = x.astype(getattr(np, t.lstrip('u')))
        return reinterpret(torch.tensor(x_signed, device=device), getattr(tl, t))
    if dst_type and 'float8' in dst_type:
        return reinterpret(torch.tensor(x, device=device), getattr(tl, dst_type))
    if t == 'float32' and dst_type == 'bfloat16':
        return torch.tensor(x, device=device).bfloat16()
    return torch.tensor(x, device=device)


def str_to_triton_dtype(x: str) -> tl.dtype:
    return tl.str_to_ty(type_canonicalisation_dict[x], None)


def torch_dtype_name(dtype) -> str:
    if isinstance(dtype, tl.dtype):
        return dtype.name
    if isinstance(dtype, torch.dtype):
        return re.match(r'^torch\.(\w+)$', str(dtype)).group(1)
    raise TypeError(f'not a triton or torch dtype: {type(dtype)}')


def to_numpy(x):
    if isinstance(x, TensorWrapper):
        return x.base.cpu().numpy().astype(getattr(np, torch_dtype_name(x.dtype)))
    if isinstance(x, torch.Tensor):
        if x.dtype is torch.bfloat16:
            return x.cpu().float().numpy()
        return x.cpu().numpy()
    raise ValueError(f"Not a triton-compatible tensor: {x}")


def supports_tma(byval_only=False):
    return True


def supports_ws():
    return True


def tma_skip_msg(byval_only=False):
    return "Requires TMA support"


requires_tma = pytest.mark.skipif(not supports_tma(), reason=tma_skip_msg())


def default_alloc_fn(size: int, align: int, _):
    return torch.empty(size, dtype=torch.int8, device="cpu")


def unwrap_tensor(t):
    return t.base if isinstance(t, TensorWrapper) else t


def _fresh_knobs_impl(skipped_attr: Optional[Set[str]] = None):
    """Upstream's: every knob set in `knobs` replaced by a reset copy, environment variables
    they read removed, all restored afterwards."""
    skipped_attr = skipped_attr or set()
    monkeypatch = pytest.MonkeyPatch()
    knobs_map = {
        name: knobset
        for name, knobset in knobs.__dict__.items()
        if isinstance(knobset, knobs.base_knobs) and knobset != knobs.base_knobs
        and name not in skipped_attr
    }
    env_to_unset = []
    prev_propagate_env = knobs.propagate_env

    def fresh_function():
        for name, knobset in knobs_map.items():
            setattr(knobs, name, knobset.copy().reset())
            for knob in knobset.knob_descriptors.values():
                if knob.key in os.environ:
                    monkeypatch.delenv(knob.key, raising=False)
                else:
                    env_to_unset.append(knob.key)
        knobs.propagate_env = True
        return knobs

    def reset_function():
        for name, knobset in knobs_map.items():
            setattr(knobs, name, knobset)
        monkeypatch.undo()
        for k in env_to_unset:
            os.environ.pop(k, None)
        knobs.propagate_env = prev_propagate_env

    return fresh_function, reset_function


__all__ = [n for n in dir() if not n.startswith("__")] + ["triton"]
