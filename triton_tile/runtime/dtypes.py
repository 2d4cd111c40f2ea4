"""Triton's dtype names (`fp16`, `i32`, `u1`, ...) for numpy, torch, ml_dtypes and tl dtypes,
and their element sizes. A leaf: argument specialization and the host TensorDescriptor both
name dtypes through it.
"""

from __future__ import annotations

from typing import Optional

# Canonical Triton names, keyed by the last component of `str(dtype)` (numpy, torch and
# ml_dtypes spell them alike; tl dtypes already print canonically).
_CANONICAL = {
    "bool": "u1", "int1": "u1", "uint1": "u1", "u1": "u1", "i1": "u1",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
    "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16",
    "float8e4nv": "fp8e4nv", "float8e5": "fp8e5", "float8e4b8": "fp8e4b8",
    "float8e5b16": "fp8e5b16", "float8e4b15": "fp8e4b15",
    "bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32",
    "float": "fp32", "float64": "fp64", "double": "fp64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
}
_TRITON_NAMES = {
    "u1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32", "fp64",
    "fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16", "fp8e4b15",
}
ELEM_BYTES = {
    "u1": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "fp16": 2, "bf16": 2, "i32": 4, "u32": 4,
    "fp32": 4, "i64": 8, "u64": 8, "fp64": 8, "fp8e4nv": 1, "fp8e5": 1, "fp8e4b8": 1,
    "fp8e5b16": 1, "fp8e4b15": 1,
}
FLOAT_NAMES = {"fp16", "bf16", "fp32", "fp64"}


def dtype_name(dtype) -> Optional[str]:
    """Triton's name for a numpy/torch/ml_dtypes/tl dtype, or None if Triton has none."""
    name = str(dtype).split(".")[-1]
    return name if name in _TRITON_NAMES else _CANONICAL.get(name)


def element_bytes(type_name: str) -> int:
    return ELEM_BYTES[type_name]
