"""A seeded generator of small, valid Triton kernels, each with inputs and a numpy model.

`generate(seed)` returns a `Case`: the kernel's source (a module defining `kernel`), its
inputs, its grid, and the expected value of every output computed by a numpy model (float64
for float arithmetic, the kernel's own dtype for integers, which are exact). `run_case` runs
a case on one path and compares; it takes an `array_factory` (numpy array -> the array the
kernel gets, e.g. a CUDA tensor) and `to_host` (its inverse), so the same cases run on the
GPU (the Tile path against stock Triton) as on the CPU's two executors.

Float outputs are compared with an error bound: each model value carries a magnitude, an upper
bound of the absolute values its computation went through, and the tolerance is the output
dtype's rounding error times that magnitude (times a small factor per operation). What could
turn a rounding difference into a large one is kept out of the kernels: float -> int casts and
comparisons only read loaded inputs, never computed values; no division by values near zero;
no integer division, shifts or Python scalar operands (whose typing is the language's, not
the model's, business).
"""

from __future__ import annotations

import importlib.util
import os
import random
import textwrap
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

try:
    import ml_dtypes

    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - the setup installs it
    _BF16 = None

FLOATS = ["fp16", "bf16", "fp32", "fp64"]
INTS = ["i8", "i16", "i32", "i64", "u8", "u32"]
NP = {"fp16": np.dtype(np.float16), "bf16": _BF16, "fp32": np.dtype(np.float32),
      "fp64": np.dtype(np.float64), "i8": np.dtype(np.int8), "i16": np.dtype(np.int16),
      "i32": np.dtype(np.int32), "i64": np.dtype(np.int64), "u8": np.dtype(np.uint8),
      "u32": np.dtype(np.uint32)}
TL = {"fp16": "tl.float16", "bf16": "tl.bfloat16", "fp32": "tl.float32", "fp64": "tl.float64",
      "i8": "tl.int8", "i16": "tl.int16", "i32": "tl.int32", "i64": "tl.int64",
      "u8": "tl.uint8", "u32": "tl.uint32"}
# Unit roundoff of each float type: the tolerance per operation.
EPS = {"fp16": 2.0**-10, "bf16": 2.0**-7, "fp32": 2.0**-22, "fp64": 2.0**-50}
BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8, "u32": 32}


def is_float(t: str) -> bool:
    return t in FLOATS


@dataclass
class Val:
    """A model value: its numpy value (float64 for floats, the dtype for ints), an upper
    bound of the magnitudes its computation went through, and how many rounding steps."""

    v: np.ndarray
    mag: np.ndarray
    ops: int = 0
    eps: float = 0.0  # the largest unit roundoff of the float types it went through


@dataclass
class Node:
    code: str
    t: str
    model: Callable[[Dict[str, Val]], Val]
    leaf: bool = False


@dataclass
class Output:
    name: str
    t: str
    expected: np.ndarray  # float64 for floats, the dtype for ints
    tol: Optional[np.ndarray] = None  # per element, floats only
    init: str = "poison"  # or "zero": accumulators of atomics; or an array: its start value
    region: Optional[Tuple[slice, ...]] = None  # the part compared (padded rows: the rest)


@dataclass
class Desc:
    """A TensorDescriptor argument, made at launch over the array the factory returns."""

    base: np.ndarray
    shape: List[int]
    strides: List[int]
    block: List[int]


@dataclass
class Case:
    seed: int
    kind: str
    source: str  # a module defining `kernel`
    params: List[str]
    args: Dict[str, Any]  # numpy arrays and scalars by parameter name; constexprs in meta
    meta: Dict[str, Any]
    grid: Tuple[int, ...]
    outputs: List[Output] = field(default_factory=list)
    notes: str = ""

    def describe(self) -> str:
        arrays = {k: f"{v.dtype}{list(v.shape)}" for k, v in self.args.items()
                  if isinstance(v, np.ndarray)}
        return (f"seed {self.seed} ({self.kind}): grid {self.grid}, meta {self.meta}, "
                f"arrays {arrays}\n{self.source}")


# --- expressions -----------------------------------------------------------------------------


def rounded(v: np.ndarray, t: str) -> np.ndarray:
    """A float64 value rounded to float type `t` (overflow included), back in float64: the
    model computes each operation in float64 and rounds its result, as the kernel does."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(v, np.float64).astype(NP[t]).astype(np.float64)


def _cast_model(x: Val, src: str, dst: str) -> Val:
    if is_float(dst):
        v = rounded(x.v, dst)
        return Val(v, np.maximum(x.mag, np.abs(v)), x.ops + 1, max(x.eps, EPS[dst]))
    if is_float(src):  # only loaded inputs (exact) reach here: truncation toward zero
        v = np.trunc(x.v).astype(np.int64).astype(NP[dst])
    else:
        v = x.v.astype(NP[dst])  # wraps, as Triton's integer casts do
    return Val(v, np.abs(v.astype(np.float64)), 0)


def cast(node: Node, dst: str) -> Node:
    if node.t == dst:
        return node
    src = node.t
    return Node(f"({node.code}).to({TL[dst]})", dst, lambda env: _cast_model(node.model(env), src,
                                                                          dst))


def _unify(rng: random.Random, a: Node, b: Node) -> Tuple[Node, Node]:
    """Both operands cast to one type: a float if either is (ints are cast to it), else the
    wider int. Floats are never cast to ints here (see the module docstring)."""
    if a.t == b.t:
        return a, b
    if is_float(a.t) or is_float(b.t):
        floats = [t for t in (a.t, b.t) if is_float(t)]
        t = max(floats, key=lambda x: (EPS[x] < 1e-4, FLOATS.index(x))) if len(floats) == 2 \
            else floats[0]
        if len(floats) == 2 and {a.t, b.t} == {"fp16", "bf16"}:
            t = "fp32"
        return cast(a, t), cast(b, t)
    t = a.t if BITS[a.t] >= BITS[b.t] else b.t
    return cast(a, t), cast(b, t)


def _bin_model(op: str, t: str, fa, fb, in_t: Optional[str] = None) -> Callable:
    """`t` the result's type, `in_t` the operands' (they differ for 16-bit division)."""
    in_t = in_t or t

    def model(env):
        x, y = fa(env), fb(env)
        if is_float(t):
            if op == "+":
                v, mag = x.v + y.v, x.mag + y.mag
            elif op == "-":
                v, mag = x.v - y.v, x.mag + y.mag
            elif op == "*":
                v, mag = x.v * y.v, x.mag * y.mag
            elif op == "/":  # x / (|y| + 1): the divisor (rounded in its own type) >= 1
                v, mag = x.v / rounded(np.abs(y.v) + 1, in_t), x.mag
            elif op == "max":
                v, mag = np.fmax(x.v, y.v), np.maximum(x.mag, y.mag)  # maxnum: NaN loses
            else:
                v, mag = np.fmin(x.v, y.v), np.maximum(x.mag, y.mag)
            v = rounded(v, t)
            return Val(v, np.maximum(mag, np.abs(v)), x.ops + y.ops + 1,
                       max(x.eps, y.eps, EPS[t]))
        with np.errstate(over="ignore"):
            v = {"+": np.add, "-": np.subtract, "*": np.multiply, "max": np.maximum,
                 "min": np.minimum, "&": np.bitwise_and, "|": np.bitwise_or,
                 "^": np.bitwise_xor}[op](x.v, y.v)
        v = v.astype(NP[t])
        return Val(v, np.abs(v.astype(np.float64)), 0)

    return model


def _wrap(values, t: str) -> np.ndarray:
    """Python ints wrapped to integer type t, as the kernel's arithmetic wraps."""
    bits = BITS[t]
    out = [v % (1 << bits) for v in values]
    if not t.startswith("u"):
        out = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in out]
    return np.array(out, dtype=np.int64 if not t.startswith("u") else np.uint64).astype(NP[t])


def _div_model(op: str, t: str, fa, fb) -> Callable:
    def model(env):
        x, y = fa(env).v, fb(env).v
        xs, ys = x.reshape(-1).tolist(), y.reshape(-1).tolist()
        out = []
        for a, b in zip(xs, ys):
            if b == 0 or (b == -1 and not t.startswith("u")):
                b += 2
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # toward zero
            out.append(q if op == "//" else a - q * b)
        v = _wrap(out, t).reshape(x.shape)
        return Val(v, np.abs(v.astype(np.float64)), 0)

    return model


def _shift_model(op: str, k: int, t: str, fa) -> Callable:
    def model(env):
        x = fa(env).v
        if op == "<<":
            v = _wrap([a << k for a in x.reshape(-1).tolist()], t).reshape(x.shape)
        else:
            v = (x >> k).astype(NP[t])  # arithmetic for signed, logical for unsigned
        return Val(v, np.abs(v.astype(np.float64)), 0)

    return model


def _unary(rng: random.Random, a: Node) -> Node:
    fa = a.model
    if is_float(a.t) and a.leaf:  # math functions on loaded inputs only (bounded arguments)
        fn = rng.choice(["exp", "sin", "cos", "sqrt", "abs", "neg"])
        if fn in ("exp", "sin", "cos", "sqrt") and a.t in ("fp16", "bf16"):
            a = cast(a, "fp32")  # Triton's math functions take fp32 and fp64 only
            fa = a.model
        t = a.t
        if fn == "sqrt":
            code = f"tl.sqrt(tl.abs({a.code}))"

            def model(env):
                x = fa(env)
                v = rounded(np.sqrt(np.abs(x.v)), t)
                return Val(v, np.maximum(np.abs(v), 1.0), x.ops + 2, EPS[t])
        elif fn in ("abs", "neg"):
            code = f"tl.abs({a.code})" if fn == "abs" else f"(-{a.code})"

            def model(env, fn=fn):
                x = fa(env)
                return Val(np.abs(x.v) if fn == "abs" else -x.v, x.mag, x.ops, x.eps)
        else:
            code = f"tl.{fn}({a.code})"

            def model(env, fn=fn):
                x = fa(env)
                v = rounded(getattr(np, fn)(x.v), t)
                return Val(v, np.maximum(np.abs(v), 1.0), x.ops + 4, EPS[t])
        return Node(code, t, model)
    if is_float(a.t):
        return Node(f"tl.abs({a.code})", a.t,
                    lambda env: (lambda x: Val(np.abs(x.v), x.mag, x.ops, x.eps))(fa(env)))
    if a.t.startswith("u"):
        return a
    t = a.t

    def imodel(env):
        x = fa(env)
        v = np.abs(x.v).astype(NP[t])  # abs(INT_MIN) wraps to itself in both
        return Val(v, np.abs(v.astype(np.float64)), 0)

    return Node(f"tl.abs({a.code})", a.t, imodel)


def expression(rng: random.Random, leaves: List[Node], depth: int) -> Node:
    if depth == 0 or rng.random() < 0.25:
        leaf = rng.choice(leaves)
        r = rng.random()
        if r < 0.2:
            return _unary(rng, leaf)
        if r < 0.35:  # a cast of a loaded input: float -> int only here
            dst = rng.choice(FLOATS + INTS)
            if _BF16 is None and dst == "bf16":
                dst = "fp32"
            if is_float(leaf.t) and not is_float(dst) and dst.startswith("u"):
                leaf = Node(f"tl.abs({leaf.code})", leaf.t,
                            lambda env, f=leaf.model: (lambda x: Val(np.abs(x.v), x.mag,
                                                                     x.ops))(f(env)), True)
            return cast(leaf, dst)
        if r < 0.45 and len(leaves) >= 2 and depth > 0:  # tl.where on two loaded inputs
            x, y = rng.sample(leaves, 2)
            cx, cy = _unify(rng, x, y)
            cmp = rng.choice(["<", ">", "<=", ">=", "==", "!="])
            a = expression(rng, leaves, depth - 1)
            b = expression(rng, leaves, depth - 1)
            a, b = _unify(rng, a, b)
            npcmp = {"<": np.less, ">": np.greater, "<=": np.less_equal,
                     ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}[cmp]

            def wmodel(env, cx=cx, cy=cy, a=a, b=b, npcmp=npcmp):
                c = npcmp(cx.model(env).v, cy.model(env).v)
                va, vb = a.model(env), b.model(env)
                return Val(np.where(c, va.v, vb.v), np.maximum(va.mag, vb.mag),
                           max(va.ops, vb.ops), max(va.eps, vb.eps))

            return Node(f"tl.where({cx.code} {cmp} {cy.code}, {a.code}, {b.code})", a.t, wmodel)
        return leaf
    a = expression(rng, leaves, depth - 1)
    b = expression(rng, leaves, depth - 1)
    a, b = _unify(rng, a, b)
    t = a.t
    ops = ["+", "-", "*", "max", "min"] + (["/"] if is_float(t) else
                                           ["&", "|", "^", "//", "%", "<<", ">>"])
    op = rng.choice(ops)
    if op in ("//", "%"):  # C semantics: truncation; the divisor is never 0 (nor -1)
        guard = f"({b.code} == 0)" if t.startswith("u") else \
            f"(({b.code} == 0) | ({b.code} == -1))"
        code = f"({a.code} {op} tl.where({guard}, {b.code} + 2, {b.code}))"
        return Node(code, t, _div_model(op, t, a.model, b.model))
    if op in ("<<", ">>"):  # by a constant below the width (wider shifts are undefined)
        k = rng.randint(1, 7)
        return Node(f"({a.code} {op} {k})", t, _shift_model(op, k, t, a.model))
    if op in ("max", "min"):
        code = f"tl.maximum({a.code}, {b.code})" if op == "max" else \
            f"tl.minimum({a.code}, {b.code})"
        if t == "bf16":  # Triton computes bf16 min/max in fp32 and keeps fp32
            t = "fp32"
    elif op == "/":
        code = f"({a.code} / (tl.abs({b.code}) + 1))"
        if t in ("fp16", "bf16"):  # Triton divides 16-bit floats in fp32 and keeps fp32
            t = "fp32"
        # `+ 1` is a Python scalar: it takes the tensor's type, the one rule of scalar typing
        # the model relies on (shared by Triton and triton_tile).
    else:
        code = f"({a.code} {op} {b.code})"
    return Node(code, t, _bin_model(op, t, a.model, b.model, a.t))


def random_input(nrng: np.random.Generator, t: str, shape) -> np.ndarray:
    if is_float(t):
        return nrng.uniform(-2, 2, shape).astype(NP[t])
    info = np.iinfo(NP[t])
    lo, hi = (info.min, info.max) if BITS[t] <= 16 else (-1000, 1000)
    if t.startswith("u"):
        lo, hi = 0, (info.max if BITS[t] <= 16 else 2**32 - 1)
    return nrng.integers(lo, hi, shape, endpoint=True, dtype=np.int64).astype(NP[t])


def leaf_val(x: np.ndarray, t: str) -> Val:
    if is_float(t):
        v = x.astype(np.float64)
        return Val(v, np.abs(v), 0)
    return Val(x.copy(), np.abs(x.astype(np.float64)), 0)


# The smallest subnormal of each float type: rounding near 0 is absolute, not relative.
TINY = {"fp16": 2.0**-24, "bf16": 2.0**-133, "fp32": 2.0**-149, "fp64": 2.0**-1074}


def tolerance(t: str, val: Val) -> np.ndarray:
    return (max(EPS[t], val.eps) * 4 * (val.ops + 2)) * val.mag + TINY[t] * 4 * (val.ops + 2)


def _pick_types(rng: random.Random, k: int) -> List[str]:
    pool = FLOATS + INTS if _BF16 is not None else [t for t in FLOATS + INTS if t != "bf16"]
    return [rng.choice(pool) for _ in range(k)]


HEADER = "import triton_tile as triton\nimport triton_tile.language as tl\n\n\n"


def _finish(seed, kind, body: str, params, args, meta, grid, outputs, notes="") -> Case:
    src = HEADER + "@triton.jit\ndef kernel(" + ", ".join(params) + "):\n" + \
        textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
    return Case(seed, kind, src, [p.split(":")[0] for p in params], args, meta, grid, outputs,
                notes)


# --- templates -------------------------------------------------------------------------------


def elementwise(seed: int, rng: random.Random, nrng: np.random.Generator) -> Case:
    """1-D: loads (as views, strided or through a gather), an expression, a masked store."""
    n = rng.choice([1, 7, 33, 100, 257, 1000, 1023, 1500])
    block = rng.choice([16, 64, 128, 256])
    types = _pick_types(rng, rng.randint(1, 3))
    names = [f"x{i}" for i in range(len(types))]
    lines = ["pid = tl.program_id(0)", "offs = pid * BLOCK + tl.arange(0, BLOCK)",
             "mask = offs < n"]
    args: Dict[str, Any] = {}
    params = []
    env_inputs = {}
    leaves = []
    for name, t in zip(names, types):
        mode = rng.choice(["view", "view", "strided", "gather"])
        data = random_input(nrng, t, n)
        other = "" if rng.random() < 0.5 else ", other=0"
        if mode == "view":
            args[f"{name}_ptr"] = data
            params.append(f"{name}_ptr")
            lines.append(f"{name} = tl.load({name}_ptr + offs, mask=mask{other})")
        elif mode == "strided":
            s = rng.choice([2, 3])
            full = random_input(nrng, t, n * s)
            full[::s] = data
            args[f"{name}_ptr"] = full
            args[f"{name}_s"] = s
            params += [f"{name}_ptr", f"{name}_s"]
            lines.append(f"{name} = tl.load({name}_ptr + offs * {name}_s, mask=mask{other})")
        else:
            perm = nrng.permutation(n).astype(np.int32)
            src = np.empty_like(data)
            src[perm] = data  # src[perm[i]] = data[i]
            args[f"{name}_ptr"] = src
            args[f"{name}_idx"] = perm
            params += [f"{name}_ptr", f"{name}_idx"]
            lines.append(f"{name}_i = tl.load({name}_idx + offs, mask=mask)")
            lines.append(f"{name} = tl.load({name}_ptr + {name}_i, mask=mask{other})")
        env_inputs[name] = leaf_val(data, t)
        leaves.append(Node(name, t, lambda env, name=name: env[name], leaf=True))
    expr = expression(rng, leaves, rng.randint(1, 3))
    out_t = expr.t
    if rng.random() < 0.2:
        out_t = rng.choice([t for t in FLOATS if NP[t] is not None]) if is_float(expr.t) \
            else rng.choice(INTS)
        expr = cast(expr, out_t)
    val = expr.model(env_inputs)
    expected, tol = val.v, tolerance(out_t, val) if is_float(out_t) else None
    if rng.random() < 0.3:  # a scatter: out[perm[i]] = value i
        perm = nrng.permutation(n).astype(np.int32)
        args["out_idx"] = perm
        params.append("out_idx")
        lines.append("oi = tl.load(out_idx + offs, mask=mask)")
        lines.append(f"tl.store(out_ptr + oi, {expr.code}, mask=mask)")
        expected = np.empty_like(expected)
        expected[perm] = val.v
        if tol is not None:
            tol = np.empty_like(tol)
            tol[perm] = tolerance(out_t, val)
    else:
        lines.append(f"tl.store(out_ptr + offs, {expr.code}, mask=mask)")
    args["out_ptr"] = np.empty(n, NP[out_t])
    params = params + ["out_ptr", "n", "BLOCK: tl.constexpr"]
    args["n"] = n
    out = Output("out_ptr", out_t, expected, tol)
    return _finish(seed, "elementwise", "\n".join(lines), params, args, {"BLOCK": block},
                   (-(-n // block),), [out])


def _np_reduce(kind: str, v: np.ndarray, axis: int) -> np.ndarray:
    return {"sum": np.sum, "max": np.max, "min": np.min}[kind](v, axis=axis)


def reduce2d(seed: int, rng: random.Random, nrng: np.random.Generator) -> Case:
    """2-D tiles over rows with a padded row stride: a reduction or scan along either axis,
    broadcasting of a row vector, or the element-wise expression stored back."""
    m = rng.choice([1, 3, 17, 40, 65])
    n = rng.choice([1, 5, 16, 31, 100])
    ld = n + rng.choice([0, 0, 3])  # the row stride: padded rows are views, not contiguous
    op = rng.choice(["sum", "max", "min", "cumsum", "store", "bcast", "argmax", "argmin"])
    axis = rng.choice([0, 1])
    t = rng.choice(["fp32", "fp16", "i32", "i8", "u32"] + (["bf16"] if _BF16 else []))
    acc_t = "fp32" if is_float(t) else ("i32" if t != "u32" else "u32")
    if op in ("sum", "max", "min", "cumsum", "argmax", "argmin"):
        full = 1 << (max(m, n) - 1).bit_length()
        bm = 1 << (m - 1).bit_length() if axis == 0 else rng.choice([1, 2, 8])
        bn = 1 << (n - 1).bit_length() if axis == 1 else rng.choice([1, 4, 16])
        del full
    else:
        bm, bn = rng.choice([1, 4, 16]), rng.choice([4, 16, 32])
    data = random_input(nrng, t, (m, ld))
    if not is_float(t):  # keep sums exact and away from wrapping; ties for argmax
        data = (data % (64 if op != "argmax" else 5)).astype(NP[t])
    elif op in ("argmax", "argmin"):
        data = np.round(data).astype(NP[t])  # ties: the first index wins
    args: Dict[str, Any] = {"x_ptr": data, "m": m, "n": n, "ld": ld}
    lines = ["rm = tl.program_id(0) * BM + tl.arange(0, BM)",
             "rn = tl.program_id(1) * BN + tl.arange(0, BN)",
             "mask = (rm[:, None] < m) & (rn[None, :] < n)",
             "x = tl.load(x_ptr + rm[:, None] * ld + rn[None, :], mask=mask)",
             f"x = x.to({TL[acc_t]})"]
    xv = data[:, :n]
    x64 = xv.astype(np.float64) if is_float(t) else xv.astype(NP[acc_t])
    params = ["x_ptr", "m", "n", "ld"]
    outputs = []
    grid = (-(-m // bm), -(-n // bn))
    if op in ("argmax", "argmin"):
        big = {"fp32": "float('inf')", "i32": "2147483647", "u32": "4294967295"}[acc_t]
        small = {"fp32": "float('-inf')", "i32": "-2147483648", "u32": "0"}[acc_t]
        lines.append(f"x = tl.where(mask, x, {small if op == 'argmax' else big})")
        lines.append(f"r = tl.{op}(x, axis={axis})")
        if axis == 1:
            lines.append("tl.store(out_ptr + rm, r, mask=rm < m)")
            size, grid = m, (-(-m // bm), 1)
        else:
            lines.append("tl.store(out_ptr + rn, r, mask=rn < n)")
            size, grid = n, (1, -(-n // bn))
        exp = (np.argmax if op == "argmax" else np.argmin)(x64, axis=axis).astype(np.int32)
        outputs.append(Output("out_ptr", "i32", exp))
        args["out_ptr"] = np.empty(size, np.int32)
    elif op in ("sum", "max", "min"):
        ident = {"sum": "0", "max": "float('-inf')" if is_float(acc_t) else
                 ("0" if acc_t == "u32" else "-2147483648"),
                 "min": "float('inf')" if is_float(acc_t) else
                 ("4294967295" if acc_t == "u32" else "2147483647")}[op]
        lines.append(f"x = tl.where(mask, x, {ident})")
        lines.append(f"r = tl.{op}(x, axis={axis})")
        if axis == 1:
            lines.append("tl.store(out_ptr + rm, r, mask=rm < m)")
            size, grid = m, (-(-m // bm), 1)
        else:
            lines.append("tl.store(out_ptr + rn, r, mask=rn < n)")
            size, grid = n, (1, -(-n // bn))
        # an axis-0 reduction's grid runs over columns: program_id(1)
        exp = _np_reduce(op, x64, axis)
        tol = None
        if is_float(acc_t):
            mag = np.sum(np.abs(x64), axis=axis) if op == "sum" else np.max(np.abs(x64), axis)
            tol = EPS["fp32"] * 8 * (max(m, n) + 2) * mag + 1e-300
        outputs.append(Output("out_ptr", acc_t, exp if is_float(acc_t) else
                              exp.astype(NP[acc_t]), tol))
        args["out_ptr"] = np.empty(size, NP[acc_t])
    elif op == "cumsum":
        lines.append("x = tl.where(mask, x, 0)")
        lines.append(f"r = tl.cumsum(x, axis={axis})")
        lines.append("tl.store(out_ptr + rm[:, None] * n + rn[None, :], r, mask=mask)")
        exp = np.cumsum(x64, axis=axis)
        tol = None
        if is_float(acc_t):
            tol = EPS["fp32"] * 8 * (max(m, n) + 2) * np.cumsum(np.abs(x64), axis=axis) + 1e-300
        else:
            exp = exp.astype(NP[acc_t])
        outputs.append(Output("out_ptr", acc_t, exp, tol))
        args["out_ptr"] = np.empty((m, n), NP[acc_t])
    elif op == "bcast":  # a row vector loaded once, broadcast over the tile's rows
        bias = random_input(nrng, t, n)
        if not is_float(t):
            bias = (bias % 64).astype(NP[t])
        args["b_ptr"] = bias
        params.append("b_ptr")
        lines.append(f"b = tl.load(b_ptr + rn, mask=rn < n).to({TL[acc_t]})")
        lines.append("r = x * 2 + b[None, :]" if is_float(acc_t) else "r = x + b[None, :]")
        lines.append("tl.store(out_ptr + rm[:, None] * n + rn[None, :], r, mask=mask)")
        b64 = bias.astype(np.float64) if is_float(t) else bias.astype(NP[acc_t])
        exp = x64 * 2 + b64[None, :] if is_float(acc_t) else (x64 + b64[None, :]).astype(
            NP[acc_t])
        tol = EPS["fp32"] * 8 * (np.abs(x64) * 2 + np.abs(b64)[None, :]) + 1e-300 \
            if is_float(acc_t) else None
        outputs.append(Output("out_ptr", acc_t, exp, tol))
        args["out_ptr"] = np.empty((m, n), NP[acc_t])
    else:  # transposed store: out is n x m
        lines.append("tl.store(out_ptr + rn[None, :] * m + rm[:, None], x, mask=mask)")
        exp = x64.T.copy()
        outputs.append(Output("out_ptr", acc_t, exp if is_float(acc_t) else
                              exp.astype(NP[acc_t]), np.zeros(exp.shape) + 1e-300
                              if is_float(acc_t) else None))
        args["out_ptr"] = np.empty((n, m), NP[acc_t])
    params += ["out_ptr", "BM: tl.constexpr", "BN: tl.constexpr"]
    return _finish(seed, f"2d-{op}-axis{axis}-{t}", "\n".join(lines), params, args,
                   {"BM": bm, "BN": bn}, grid, outputs)


def loop(seed: int, rng: random.Random, nrng: np.random.Generator) -> Case:
    """A loop over a long row with loop-carried values: a running sum, max and an int count."""
    rows = rng.choice([1, 3, 8])
    n = rng.choice([5, 100, 333, 1000])
    block = rng.choice([16, 64, 128])
    t = rng.choice(["fp32", "fp16"] + (["bf16"] if _BF16 else []))
    data = random_input(nrng, t, (rows, n))
    body = """
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    best = tl.full([BLOCK], float('-inf'), tl.float32)
    count = 0
    k = 0
    while k < n:
        offs = k + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x_ptr + row * n + offs, mask=mask, other=0).to(tl.float32)
        acc += v * v * scale
        best = tl.maximum(best, tl.where(mask, v, float('-inf')))
        count += tl.sum((v > 0).to(tl.int32), axis=0)
        k += BLOCK
    tl.store(sum_ptr + row, tl.sum(acc, axis=0))
    tl.store(max_ptr + row, tl.max(best, axis=0))
    tl.store(count_ptr + row, count)
    """
    if rng.random() < 0.5:  # a for loop instead of the while loop
        body = body.replace("k = 0\n    while k < n:", "for k in range(0, n, BLOCK):")
        body = body.replace("        k += BLOCK\n", "")
    scale = rng.choice([0.5, 1.5, 3.0])  # a runtime fp32 scalar argument
    x64 = data.astype(np.float64)
    args = {"x_ptr": data, "n": n, "scale": scale, "sum_ptr": np.empty(rows, np.float32),
            "max_ptr": np.empty(rows, np.float32), "count_ptr": np.empty(rows, np.int32)}
    sq = np.sum(x64 * x64, axis=1) * scale
    outputs = [Output("sum_ptr", "fp32", sq, EPS["fp32"] * 8 * (n + 2) * sq + 1e-300),
               Output("max_ptr", "fp32", np.max(x64, axis=1), np.zeros(rows) + 1e-300),
               Output("count_ptr", "i32", np.sum(x64 > 0, axis=1).astype(np.int32))]
    params = ["x_ptr", "n", "scale", "sum_ptr", "max_ptr", "count_ptr", "BLOCK: tl.constexpr"]
    return _finish(seed, f"loop-{t}", body, params, args, {"BLOCK": block}, (rows,), outputs)


def reshape(seed: int, rng: random.Random, nrng: np.random.Generator) -> Case:
    """A 1-D block reshaped to 2-D (and maybe transposed), reduced along one axis."""
    r = rng.choice([2, 4, 8])
    block = rng.choice([16, 32, 64])
    nblocks = rng.choice([1, 3, 5])
    trans = rng.random() < 0.5
    axis = rng.choice([0, 1])
    data = random_input(nrng, "fp32", nblocks * block)
    shape = (block // r, r)
    lines = ["offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
             "x = tl.load(x_ptr + offs)",
             f"y = tl.reshape(x, ({shape[0]}, {shape[1]}))"]
    if trans:
        lines.append("y = tl.trans(y)")
    lines.append(f"s = tl.sum(y, axis={axis})")
    blocks = data.reshape(nblocks, *shape).astype(np.float64)
    if trans:
        blocks = blocks.transpose(0, 2, 1)
    exp = blocks.sum(axis=1 + axis)
    width = exp.shape[1]
    lines.append(f"tl.store(out_ptr + tl.program_id(0) * {width} + tl.arange(0, {width}), s)")
    mag = np.abs(blocks).sum(axis=1 + axis)
    outputs = [Output("out_ptr", "fp32", exp.reshape(-1),
                      (EPS["fp32"] * 8 * (r + block) * mag + 1e-300).reshape(-1))]
    args = {"x_ptr": data, "out_ptr": np.empty(nblocks * width, np.float32)}
    return _finish(seed, "reshape", "\n".join(lines), ["x_ptr", "out_ptr", "BLOCK: tl.constexpr"],
                   args, {"BLOCK": block}, (nblocks,), outputs)


def dot(seed: int, rng: random.Random, nrng: np.random.Generator) -> Case:
    """C = A @ B (+ C's old values) tile by tile with a K loop; masks on every edge."""
    bm, bn, bk = (rng.choice([16, 32, 64]) for _ in range(3))
    m, n, k = (rng.choice([1, 16, 17, 40, 64, 70]) for _ in range(3))
    t = rng.choice(["fp16", "fp32", "i8"] + (["bf16"] if _BF16 else []))
    if t == "i8":
        bk = max(bk, 32)  # Triton's rule for 8-bit dot operands
    prec = ", input_precision='ieee'" if t == "fp32" and rng.random() < 0.5 else ""
    bt = rng.random() < 0.3  # B stored transposed (N x K), loaded and tl.trans'd
    a = random_input(nrng, t, (m, k)) if is_float(t) else \
        nrng.integers(-100, 100, (m, k)).astype(np.int8)
    b = random_input(nrng, t, (k, n)) if is_float(t) else \
        nrng.integers(-100, 100, (k, n)).astype(np.int8)
    acc_t = "i32" if t == "i8" else "fp32"
    body = f"""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros([BM, BN], dtype={TL[acc_t]})
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0)
        {"bt = tl.load(b_ptr + rn[:, None] * K + rk[None, :], mask=(rn[:, None] < N) & "
         "(rk[None, :] < K), other=0)" if bt else
         "b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & "
         "(rn[None, :] < N), other=0)"}
        acc += tl.dot(a, {"tl.trans(bt)" if bt else "b"}{prec})
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
    """
    if is_float(t):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        exp = a64 @ b64
        eps = EPS["fp32"] if prec else 2.0**-10  # tf32 rounds the inputs to 10 bits
        tol = eps * 8 * (k + 2) * (np.abs(a64) @ np.abs(b64)) + 1e-300
        out = Output("c_ptr", "fp32", exp, tol)
    else:
        out = Output("c_ptr", "i32", (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32))
    args = {"a_ptr": a, "b_ptr": np.ascontiguousarray(b.T) if bt else b,
            "c_ptr": np.empty((m, n), NP[acc_t]), "M": m, "N": n, "K": k}
    params = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "BM: tl.constexpr", "BN: tl.constexpr",
              "BK: tl.constexpr"]
    kind = f"dot-{t}{'-ieee' if prec else ''}{'-bt' if bt else ''}"
    return _finish(seed, kind, body, params, args, {"BM": bm, "BN": bn, "BK": bk},
                   (-(-m // bm), -(-n // bn)), [out])


def atomics(seed: int, rng: random.Random, nrng: np.random.Generator) -> Case:
    """atomic_add / atomic_max into bins: with contention (few bins) or without (a
    permutation)."""
    n = rng.choice([7, 100, 1000, 4097])
    block = rng.choice([32, 128, 512])
    contention = rng.random() < 0.6
    bins = rng.choice([1, 3, 16]) if contention else n
    op = rng.choice(["add", "add", "max", "min"])
    t = rng.choice(["i32", "fp32", "u32"]) if op == "add" else rng.choice(["i32", "fp32"])
    idx = nrng.integers(0, bins, n).astype(np.int32) if contention else \
        nrng.permutation(n).astype(np.int32)
    if t == "fp32":
        vals = nrng.uniform(-2, 2, n).astype(np.float32)
    elif t == "u32":
        vals = nrng.integers(0, 1000, n).astype(np.uint32)
    else:
        vals = nrng.integers(-1000, 1000, n).astype(np.int32)
    body = f"""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i = tl.load(idx_ptr + offs, mask=mask, other=0)
    v = tl.load(val_ptr + offs, mask=mask, other=0)
    tl.atomic_{op}(out_ptr + i, v, mask=mask)
    """
    v64 = vals.astype(np.float64)
    if op == "add":
        exp = np.zeros(bins)
        np.add.at(exp, idx, v64)
        mag = np.zeros(bins)
        np.add.at(mag, idx, np.abs(v64))
    else:
        # max/min against the zero-initialised accumulator
        exp = np.zeros(bins)
        (np.maximum if op == "max" else np.minimum).at(exp, idx, v64)
        mag = np.zeros(bins)
    tol = EPS["fp32"] * 8 * (n + 2) * mag + 1e-300 if t == "fp32" else None
    out = Output("out_ptr", t, exp if t == "fp32" else exp.astype(NP[t]), tol, init="zero")
    args = {"idx_ptr": idx, "val_ptr": vals, "out_ptr": np.zeros(bins, NP[t]), "n": n}
    return _finish(seed, f"atomic-{op}-{t}-{'contended' if contention else 'unique'}", body,
                   ["idx_ptr", "val_ptr", "out_ptr", "n", "BLOCK: tl.constexpr"], args,
                   {"BLOCK": block}, (-(-n // block),), [out])


def tiles(seed: int, rng: random.Random, nrng: np.random.Generator) -> Case:
    """2-D tiles read and written through block pointers or tensor descriptors (the Tile
    path's views), over odd shapes with padded row strides, possibly stored transposed in
    memory, with a loop advancing along the rows (a running row sum) or a plain copy."""
    t = rng.choice(["fp32", "fp16", "i32", "i8"] + (["bf16"] if _BF16 else []))
    style = rng.choice(["blockptr", "blockptr", "desc"])
    m, n = rng.choice([1, 7, 16, 33, 50]), rng.choice([3, 16, 31, 40, 64])
    bm, bn = rng.choice([8, 16, 32]), rng.choice([8, 16, 32])
    es = NP[t].itemsize
    align = 16 // es  # descriptors: 16-byte row strides
    ld = -(-n // align) * align + rng.choice([0, align])
    op = rng.choice(["copy", "rowsum"])
    colmajor = style == "blockptr" and rng.random() < 0.3
    data = random_input(nrng, t, (m, n))
    if not is_float(t):
        data = (data % 50).astype(NP[t])
    acc_t = "fp32" if is_float(t) else "i32"
    if colmajor:  # x[i, j] at i + j * ldt: a column-major array
        ldt = m + rng.choice([0, 3])
        base = random_input(nrng, t, (n, ldt))
        base[:, :m] = data.T
        shape_strides = "shape=(m, n), strides=(1, ldt)"
        order = "(0, 1)"
    else:
        base = random_input(nrng, t, (m, ld))
        base[:, :n] = data
        shape_strides = "shape=(m, n), strides=(ld, 1)"
        order = "(1, 0)"
    args: Dict[str, Any] = {"m": m, "n": n}
    params = []
    lines = ["pid_m = tl.program_id(0)", "pid_n = tl.program_id(1)"]
    x64 = data.astype(np.float64) if is_float(t) else data.astype(np.int64)
    if style == "desc":
        args["x_desc"] = Desc(base, [m, n], [ld, 1], [bm, bn])
        params.append("x_desc")
        load = "x_desc.load([pid_m * BM, col])"
    else:
        args["x_ptr"] = base
        args["ld"] = ld if not colmajor else 1
        args["ldt"] = ldt if colmajor else 1
        params += ["x_ptr", "ld", "ldt"]
        lines.append(f"xp = tl.make_block_ptr(x_ptr, {shape_strides}, offsets=(pid_m * BM, "
                     f"pid_n * BN), block_shape=(BM, BN), order={order})")
        load = "tl.load(xp, boundary_check=(0, 1), padding_option='zero')"
    outputs = []
    if op == "copy":
        lines.insert(2, "col = pid_n * BN")
        lines.append(f"x = {load}")
        expr = "x * 3 - 1" if is_float(t) else "x + x"
        exp = x64 * 3 - 1 if is_float(t) else (x64 + x64).astype(NP[t])
        if is_float(t):
            exp = rounded(exp, t)
        ldo = -(-n // align) * align
        out_base = np.empty((m, ldo), NP[t])
        if style == "desc":
            args["o_desc"] = Desc(out_base, [m, n], [ldo, 1], [bm, bn])
            params.append("o_desc")
            lines.append(f"o_desc.store([pid_m * BM, col], {expr})")
            name = "o_desc#base"
        else:
            args["o_ptr"] = out_base
            args["ldo"] = ldo
            params += ["o_ptr", "ldo"]
            lines.append("op = tl.make_block_ptr(o_ptr, shape=(m, n), strides=(ldo, 1), "
                         "offsets=(pid_m * BM, pid_n * BN), block_shape=(BM, BN), order=(1, 0))")
            lines.append(f"tl.store(op, ({expr}).to(o_ptr.dtype.element_ty), "
                         "boundary_check=(0, 1))")
            name = "o_ptr"
        tol = EPS[t] * 8 * (np.abs(x64) * 3 + 1) + 1e-300 if is_float(t) else None
        outputs.append(Output(name, t, exp, tol, region=(slice(0, m), slice(0, n))))
        grid = (-(-m // bm), -(-n // bn))
    else:  # a loop along the rows: the row sums of the tile's rows
        lines.insert(2, "col = 0")
        lines.append(f"acc = tl.zeros([BM], dtype={TL[acc_t]})")
        if style == "desc":
            lines.append("for k in range(0, n, BN):")
            lines.append(f"    x = x_desc.load([pid_m * BM, k]).to({TL[acc_t]})")
            lines.append("    acc += tl.sum(x, axis=1)")
        else:
            lines.append("for k in range(0, n, BN):")
            lines.append(f"    x = {load}.to({TL[acc_t]})")
            lines.append("    acc += tl.sum(x, axis=1)")
            lines.append("    xp = tl.advance(xp, (0, BN))")
        lines.append("rows = pid_m * BM + tl.arange(0, BM)")
        lines.append("tl.store(out_ptr + rows, acc, mask=rows < m)")
        args["out_ptr"] = np.empty(m, NP[acc_t])
        params.append("out_ptr")
        exp = x64.sum(axis=1)
        tol = EPS["fp32"] * 8 * (n + 2) * np.abs(x64).sum(axis=1) + 1e-300 if is_float(t) \
            else None
        outputs.append(Output("out_ptr", acc_t, exp if is_float(t) else exp.astype(np.int32),
                              tol))
        grid = (-(-m // bm), 1)
    params = params + ["m", "n", "BM: tl.constexpr", "BN: tl.constexpr"]
    return _finish(seed, f"tiles-{style}-{op}-{t}{'-colmajor' if colmajor else ''}",
                   "\n".join(lines), params, args, {"BM": bm, "BN": bn}, grid, outputs)


def combine(seed: int, rng: random.Random, nrng: np.random.Generator) -> Case:
    """tl.reduce and tl.associative_scan with combine functions of the kernel's own, and a
    reversed cumsum / cumprod, along either axis of a masked 2-D tile."""
    m, n = rng.choice([1, 5, 16, 31]), rng.choice([2, 9, 16, 33])
    bm, bn = 1 << (m - 1).bit_length(), 1 << (n - 1).bit_length()
    axis = rng.choice([0, 1])
    op = rng.choice(["absmax", "scan_max", "rev_cumsum", "cumprod"])
    data = nrng.uniform(-2, 2, (m, n)).astype(np.float32)
    if op == "cumprod":
        data = nrng.uniform(0.8, 1.25, (m, n)).astype(np.float32)
    x64 = data.astype(np.float64)
    lines = ["rm = tl.arange(0, BM)", "rn = tl.arange(0, BN)",
             "mask = (rm[:, None] < m) & (rn[None, :] < n)",
             "x = tl.load(x_ptr + rm[:, None] * n + rn[None, :], mask=mask, other=0)"]
    helpers = ""
    if op == "absmax":
        helpers = ("@triton.jit\ndef absmax(a, b):\n"
                   "    return tl.where(tl.abs(a) >= tl.abs(b), a, b)\n\n\n")
        lines.append(f"r = tl.reduce(x, {axis}, absmax)")
        idx = np.argmax(np.abs(x64), axis=axis)
        exp = np.take_along_axis(x64, np.expand_dims(idx, axis), axis).squeeze(axis)
        # ties of |a| == |b| with opposite signs are the combine's order: inputs avoid them
        size = m if axis == 1 else n
        store = "tl.store(out_ptr + rm, r, mask=rm < m)" if axis == 1 else \
            "tl.store(out_ptr + rn, r, mask=rn < n)"
        tol = np.zeros(size) + 1e-300
        outshape = (size,)
    else:
        if op == "scan_max":
            helpers = ("@triton.jit\ndef mx(a, b):\n    return tl.maximum(a, b)\n\n\n")
            lines.append("x = tl.where(mask, x, float('-inf'))")
            lines.append(f"r = tl.associative_scan(x, {axis}, mx)")
            exp = np.maximum.accumulate(x64, axis=axis)
            tol = np.zeros(x64.shape) + 1e-300
        elif op == "rev_cumsum":
            lines.append(f"r = tl.cumsum(x, axis={axis}, reverse=True)")
            exp = np.flip(np.cumsum(np.flip(x64, axis), axis=axis), axis)
            tol = EPS["fp32"] * 8 * (max(m, n) + 2) * np.flip(
                np.cumsum(np.flip(np.abs(x64), axis), axis=axis), axis) + 1e-300
        else:
            lines.append("x = tl.where(mask, x, 1.0)")
            lines.append(f"r = tl.cumprod(x, axis={axis})")
            exp = np.cumprod(x64, axis=axis)
            tol = EPS["fp32"] * 8 * (max(m, n) + 2) * np.abs(exp) + 1e-300
        store = "tl.store(out_ptr + rm[:, None] * n + rn[None, :], r, mask=mask)"
        outshape = (m, n)
    lines.append(store)
    args = {"x_ptr": data, "out_ptr": np.empty(outshape, np.float32), "m": m, "n": n}
    case = _finish(seed, f"combine-{op}-axis{axis}", "\n".join(lines),
                   ["x_ptr", "out_ptr", "m", "n", "BM: tl.constexpr", "BN: tl.constexpr"],
                   args, {"BM": bm, "BN": bn}, (1,),
                   [Output("out_ptr", "fp32", exp, tol)])
    case.source = case.source.replace("@triton.jit\ndef kernel", helpers + "@triton.jit\n"
                                      "def kernel")
    return case


def atomics_old(seed: int, rng: random.Random, nrng: np.random.Generator) -> Case:
    """Atomics that return the old value (add, xchg, cas, max) at distinct addresses: the
    old values are the start values, the new ones follow from them."""
    n = rng.choice([5, 100, 777])
    block = rng.choice([32, 128])
    op = rng.choice(["add", "xchg", "cas", "max", "min"])
    t = rng.choice(["i32", "fp32"]) if op != "cas" else "i32"
    perm = nrng.permutation(n).astype(np.int32)
    start = nrng.integers(-50, 50, n).astype(NP[t])
    vals = nrng.integers(-50, 50, n).astype(NP[t])
    call = f"tl.atomic_{op}(out_ptr + i, v, mask=mask)" if op != "cas" else \
        "tl.atomic_cas(out_ptr + i, tl.where(v > 0, tl.load(start_ptr + i, mask=mask), v), v)"
    body = f"""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i = tl.load(idx_ptr + offs, mask=mask, other=0)
    v = tl.load(val_ptr + offs, mask=mask, other=0)
    old = {call}
    tl.store(old_ptr + offs, old, mask=mask)
    """
    s64 = start[perm].astype(np.float64)  # the start value each lane meets
    v64 = vals.astype(np.float64)
    new = {"add": s64 + v64, "xchg": v64, "max": np.maximum(s64, v64),
           "min": np.minimum(s64, v64), "cas": np.where(v64 > 0, v64, s64)}[op]
    final = np.empty(n)
    final[perm] = new
    # tl.atomic_cas takes no mask: a masked-off lane swaps 0 for 0 at out[0], changing nothing
    outs = [Output("out_ptr", t, final if t == "fp32" else final.astype(NP[t]),
                   np.zeros(n) + 1e-300 if t == "fp32" else None, init=start),
            Output("old_ptr", t, s64 if t == "fp32" else s64.astype(NP[t]),
                   np.zeros(n) + 1e-300 if t == "fp32" else None)]
    args = {"idx_ptr": perm, "val_ptr": vals, "start_ptr": start, "out_ptr": start.copy(),
            "old_ptr": np.empty(n, NP[t]), "n": n}
    return _finish(seed, f"atomic-old-{op}-{t}", body,
                   ["idx_ptr", "val_ptr", "start_ptr", "out_ptr", "old_ptr", "n",
                    "BLOCK: tl.constexpr"], args, {"BLOCK": block}, (-(-n // block),), outs)


TEMPLATES = [(elementwise, 5), (reduce2d, 3), (loop, 1), (reshape, 1), (dot, 2), (atomics, 2),
             (tiles, 3), (combine, 1), (atomics_old, 1)]


def generate(seed: int) -> Case:
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    fns = [f for f, w in TEMPLATES for _ in range(w)]
    with np.errstate(all="ignore"):  # the models overflow where the kernels do
        return rng.choice(fns)(seed, rng, nrng)


# --- running ---------------------------------------------------------------------------------


def load_kernel(case: Case, directory: str):
    """The case's `kernel`, imported from a file (a @jit function needs its source file)."""
    path = os.path.join(directory, f"fuzz_{case.seed}.py")
    with open(path, "w") as f:
        f.write(case.source)
    spec = importlib.util.spec_from_file_location(f"fuzz_{case.seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


def _poison(arr: np.ndarray, init) -> np.ndarray:
    out = np.empty_like(arr)
    if isinstance(init, np.ndarray):
        out[...] = init
    elif init == "zero":
        out[...] = 0
    elif out.dtype.kind == "f" or out.dtype == _BF16:
        out[...] = np.nan
    else:
        out.view(np.uint8)[...] = 0xA5
    return out


def compare(out: Output, got: np.ndarray) -> Optional[str]:
    """None when `got` matches, else what differs."""
    if is_float(out.t):
        return _compare_floats(out, got)
    bad = got != out.expected
    return _report(out, got, bad)


def _compare_floats(out: Output, got: np.ndarray) -> Optional[str]:
    with np.errstate(invalid="ignore", over="ignore"):
        g = got.astype(np.float64)
        diff = np.abs(g - out.expected)
        # A magnitude that overflowed (inf * 0 -> NaN) bounds nothing: relative to the value
        tol = np.where(np.isfinite(out.tol), out.tol, 2.0**-3 * np.abs(out.expected))
        bad = ~((diff <= tol) | (g == out.expected)) & ~(np.isnan(g) & np.isnan(out.expected))
        bad &= ~(np.isinf(out.expected) & (g == out.expected))
    return _report(out, got, bad)


def _report(out: Output, got: np.ndarray, bad: np.ndarray) -> Optional[str]:
    if not bad.any():
        return None
    where = np.argwhere(bad)[:3]
    first = tuple(int(i) for i in where[0])
    return (f"{out.name}: {int(bad.sum())} of {bad.size} elements differ, e.g. at {first}: "
            f"got {got[first]!r}, expected {out.expected[first]!r}")


def run_case(case: Case, kernel, path: str, array_factory: Callable = lambda a: a,
             to_host: Callable = np.asarray) -> Tuple[Optional[str], str]:
    """(what diverged or None, the path taken). `path`: 'ptx' or 'tile'."""
    args = dict(case.args)
    outs = {}
    for o in case.outputs:
        if o.name in args:
            outs[o.name] = array_factory(_poison(args[o.name], o.init))
    def arg(p):
        v = args[p]
        if p in outs:
            v = outs[p]
        elif isinstance(v, np.ndarray):
            v = array_factory(v)
        if isinstance(v, Desc):
            from triton_tile.tools.tensor_descriptor import TensorDescriptor

            base = outs.get(p + "#base")
            base = array_factory(v.base) if base is None else base
            return TensorDescriptor(base, v.shape, v.strides, v.block)
        return v

    for o in case.outputs:  # an output written through a descriptor: poison its base
        if isinstance(args.get(o.name[:-len("#base")]), Desc):
            outs[o.name] = array_factory(_poison(args[o.name[:-len("#base")]].base, o.init))
    call = [arg(p) for p in case.params if p in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            k = kernel[case.grid](*call, **case.meta, enable_tile=path == "tile")
        except Exception as e:  # noqa: BLE001 - a divergence to report, with its type
            return f"raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", \
                path
    taken = getattr(getattr(k, "metadata", None), "path", path)
    for o in case.outputs:
        got = np.asarray(to_host(outs[o.name]))
        why = compare(o, got[o.region] if o.region is not None else got)
        if why is not None:
            return why, taken
    return None, taken
