"""Standard-library helpers written in the language itself (@jit functions, compiled like user
code and inlined), plus `sort`, which is a compare-exchange network emitted directly."""

from __future__ import annotations

from ..runtime.jit import jit
from . import core
from . import math as _math
from .core import _unwrap_if_constexpr, builtin


@jit
def sigmoid(x):
    """1 / (1 + exp(-x)); like tl.exp, fp32/fp64 only."""
    return 1 / (1 + _math.exp(-x))


@jit
def softmax(x, dim=None, keep_dims=False, ieee_rounding: core.constexpr = False):
    """exp(x - max) / sum(exp(x - max)) along `dim` (default 0); the result has x's shape."""
    if dim is None:
        axis: core.constexpr = 0
    else:
        axis: core.constexpr = dim
    shifted = x - core.max(x, axis, keep_dims=True)
    num = _math.exp(shifted)
    den = core.sum(num, axis, keep_dims=True)
    return core.fdiv(num, den, ieee_rounding)


@jit
def swizzle2d(i, j, size_i, size_j, size_g):
    """Map row-major program ids (i, j) of a size_i x size_j grid to grouped order: groups of
    size_g rows are walked column by column, which keeps their tiles in cache."""
    linear = i * size_j + j
    per_group = size_g * size_j
    group = linear // per_group
    first_row = group * size_g
    # the last group may have fewer rows
    rows = core.minimum(size_i - first_row, size_g)
    in_group = linear % per_group
    new_i = first_row + in_group % rows
    new_j = in_group // rows
    return new_i, new_j


@core._tensor_member_fn
@builtin
def sort(x, dim=None, descending=core.constexpr(False), _semantic=None):
    """Sort along the last dimension (a power of two) with a bitonic network."""
    x = _along_last_dim(x, dim, "sort", _semantic)
    return _semantic.sort(x, bool(_unwrap_if_constexpr(descending)))


@core._tensor_member_fn
@builtin
def topk(x, k, dim=None, _semantic=None):
    """The `k` largest values along the last dimension, largest first, as torch.topk's values;
    `k` and the dimension are powers of two."""
    x = _along_last_dim(x, dim, "topk", _semantic)
    return _semantic.topk(x, int(_unwrap_if_constexpr(k)))


def _along_last_dim(x, dim, what: str, semantic):
    """`x` as a tensor, after checking that `dim` (None: the last) is its last dimension."""
    x = semantic.to_tensor(x)
    dim = _unwrap_if_constexpr(dim)
    rank = len(x.shape)
    if dim is not None and core._wrap_axis(dim, rank) != rank - 1:
        raise ValueError(f"only the last dimension is supported by {what}")
    return x


# Tensor methods that are @jit functions (x.sigmoid(), x.softmax()); the frontend binds them.
JIT_MEMBERS = {"sigmoid": sigmoid, "softmax": softmax}
core._install_tensor_members()
