"""`python -m triton_tile.tools.classify FILE`: what kind of kernel is this, and how to tune it
for the Tile IR backend.

For each `@jit` kernel in FILE (the file is imported as a module; `@autotune`/`@heuristics`
wrappers are looked through; `@jit` helpers that other kernels in the file call are skipped
unless named with `--kernel`), the kernel is compiled to TTIR without launching it
(`triton_tile.compile(ASTSource(...))`) and the ops of that IR decide its class, following the
decision tree of NVIDIA's TileIR tuning workflow (`seed-tileir-optimization-workflow`):

- dot-related: a `tt.dot` (or `dot_scaled`) anywhere, helpers inlined (GEMM, attention);
- norm-like: a `tt.reduce` whose result is broadcast back (`tt.splat`/`tt.broadcast`) and
  combined element-wise with the loaded data it was reduced from: the row rescale of softmax,
  layer norm, RMS norm;
- reduction: `tt.reduce`/`tt.scan` whose results are not rescaled back over the data (sum,
  mean, max, cumsum);
- element-wise: none of the above (add, ReLU, GELU, exp).

The report gives the class, the evidence (the ops and their source lines), the workflow's
tuning advice for the class (occupancy, `num_ctas=2` on Blackwell, TMA descriptors, ...) and
ready-to-paste `triton.autotune` configs (Python source). `--json` prints it machine-readable.

Compiling needs argument types, which a launch would supply. Without one:

- `--signature '{"x_ptr": "*fp16", "n": "i64"}'` gives a parameter's Triton type string;
- otherwise an annotation (`x: "*fp16"`) is used; otherwise the type is inferred from how the
  kernel body uses the parameter (an AST walk of the body, for the signature only): a pointer
  (`*fp32`, or `--dtype`) when it flows through `+`/`-` into the address of `tl.load`,
  `tl.store`, an atomic, `tl.make_block_ptr`/`make_tensor_descriptor`, or into a pointer
  parameter of a called `@jit` helper (`*i32` when the values loaded through it are used as
  integers, `*i64` when they are cast to pointers: a table of addresses); a host tensor
  descriptor when the body calls its
  `.load`/`.store` (block shape 64 per dimension, or what the first autotune config's
  `pre_hook` sets); an `i32` scalar otherwise (a float scalar compiled as i32 classifies the
  same).
- `tl.constexpr` values: `--constexprs JSON`, else the first `@autotune` config's values, else
  the parameter's default, else 64 (a power of two that serves as a block size; flags read it
  as true).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import sys
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Set, Tuple

from ..compiler.ir_graph import (  # noqa: F401 - written_*: classify's API too
    _WRITES,
    _flat_count,
    _pointer_like,
    written_arg_indices,
    written_param_indices,
    written_params,
)
from ..compiler.ir_graph import (
    Graph as _Graph,
)

WORKFLOW = "seed-tileir-optimization-workflow"
DEFAULT_CONSTEXPR = 64
DEFAULT_BLOCK = 64  # host tensor descriptors' block extent per dimension
CLASSES = ("dot-related", "norm-like", "reduction", "element-wise")

# --- loading a file and finding its kernels ------------------------------------------------


class Kernel(NamedTuple):
    name: str
    jit: Any  # the JITFunction
    configs: list  # the @autotune configs ([] when not autotuned)
    key: list  # the @autotune key ([] when not autotuned)


class FileImportError(LookupError):
    """A kernel file that did not import (a syntax error, a failing import): the tools print
    it as a usage error, not a traceback."""


def load_file(path: str):
    """Import a Python file as a fresh module (its own directory first on sys.path, so sibling
    imports work). Its `if __name__ == "__main__":` block does not run. A file that fails to
    import raises FileImportError naming it and the error."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file")
    name = "_tt_tool_" + "".join(c if c.isalnum() else "_" for c in path)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise FileImportError(f"{path}: importing it failed: {type(e).__name__}: {e}") from e
    except BaseException:  # KeyboardInterrupt, SystemExit: not the file's error to report
        del sys.modules[name]
        raise
    finally:
        sys.path.remove(os.path.dirname(path))
    return module


def _unwrap(obj):
    """(JITFunction, autotune configs, autotune key) of a jit function or its wrappers."""
    from ..runtime.jit import JITFunction

    configs, key = [], []
    for _ in range(8):  # autotune(heuristics(jit(...))) and the like
        if isinstance(obj, JITFunction):
            return obj, configs, key
        if hasattr(obj, "configs") and not configs:
            configs, key = list(obj.configs), list(getattr(obj, "keys", None) or
                                                   getattr(obj, "key", None) or [])
        obj = getattr(obj, "fn", None)
        if obj is None:
            return None, [], []
    return None, [], []


def find_kernels(module, name: Optional[str] = None) -> List[Kernel]:
    """The kernels of a module, in definition order: every `@jit` function (through any
    wrappers) that no other jit function of the module calls; or the one called `name`."""
    from ..runtime import dependencies as deps

    found: Dict[int, Kernel] = {}
    for attr, value in list(vars(module).items()):
        fn, configs, key = _unwrap(value)
        if fn is None or getattr(fn, "module", None) != module.__name__:
            continue
        if name is not None and name not in (attr, fn.__name__):
            continue
        if id(fn) not in found or configs:
            found[id(fn)] = Kernel(fn.__name__, fn, configs, key)
    if name is not None:
        if not found:
            raise LookupError(f"no @jit function named {name!r} in {module.__file__}")
        return list(found.values())
    called: Set[int] = set()
    for k in found.values():
        for _, value, _ in deps.resolve(k.jit.fn, deps.external_chains(k.jit.src)):
            if deps.is_jit_function(value):
                called.add(id(_unwrap(value)[0]))
    return [k for i, k in found.items() if i not in called]


# --- argument inference (to compile without a launch) --------------------------------------

_MEMORY_FNS = {"load", "store", "make_block_ptr", "make_tensor_descriptor", "atomic_add",
               "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
               "atomic_xchg", "atomic_cas"}
_ADDRESS_KWARGS = ("pointer", "base", "ptr")
_PASS_THROUGH = {"multiple_of", "max_contiguous", "max_constancy", "advance", "broadcast_to",
                 "reshape", "view", "expand_dims"}
_DESCRIPTOR_METHODS = {"load", "store", "gather", "scatter", "atomic_add", "atomic_min",
                       "atomic_max", "atomic_and", "atomic_or", "atomic_xor"}


class ParamKind(NamedTuple):
    kind: str  # constexpr, pointer, descriptor, scalar
    rank: int = 0  # descriptors: dimensions
    int_data: bool = False  # pointers: the values loaded through it are used as integers
    addresses: bool = False  # ... as addresses (cast to pointers): a table of 64-bit integers


# Operators only integers take: a loaded value under one says its pointer holds integers.
_INT_OPS = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift, ast.Mod, ast.FloorDiv)


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


class _Flow:
    """Which parameters a name's value may be a pointer offset of (`p + offsets`)."""

    def __init__(self, params: Iterable[str]):
        self.params = set(params)
        self.derived: Dict[str, Set[str]] = {}

    def bases(self, e) -> Set[str]:
        if isinstance(e, ast.Name):
            return ({e.id} & self.params) | self.derived.get(e.id, set())
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)):
            return self.bases(e.left) | self.bases(e.right)
        if isinstance(e, ast.Subscript):
            return self.bases(e.value)
        if isinstance(e, ast.IfExp):
            return self.bases(e.body) | self.bases(e.orelse)
        if isinstance(e, ast.Call) and _call_name(e) in _PASS_THROUGH and e.args:
            return self.bases(e.args[0])
        return set()

    def assign(self, target, value) -> bool:
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            return any([self.assign(t, v) for t, v in zip(target.elts, value.elts)])
        if not isinstance(target, ast.Name):
            return False
        new = self.bases(value) - self.derived.get(target.id, set())
        self.derived.setdefault(target.id, set()).update(new)
        return bool(new)


def _fn_def(jit_fn) -> ast.FunctionDef:
    return ast.parse(jit_fn.src).body[0]


def param_kinds(jit_fn, _seen: Optional[set] = None) -> Dict[str, ParamKind]:
    """Each parameter's kind, from annotations and from how the body uses it (see the module
    docstring). Called `@jit` helpers are analysed too, for pointers passed down to them."""
    from ..runtime import dependencies as deps

    seen = set() if _seen is None else _seen
    seen.add(id(jit_fn))
    names = [p.name for p in jit_fn.params]
    flow = _Flow(names)
    tree = _fn_def(jit_fn)
    nodes = list(ast.walk(tree))
    for _ in range(len(nodes)):  # to a fixed point: loops carry pointers around
        changed = False
        for n in nodes:
            if isinstance(n, ast.Assign):
                changed |= any([flow.assign(t, n.value) for t in n.targets])
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and n.value is not None:
                changed |= flow.assign(n.target, n.value)
        if not changed:
            break
    scope = jit_fn.get_capture_scope()
    pointers: Set[str] = set()
    descriptors: Dict[str, int] = {}
    for n in nodes:
        if isinstance(n, ast.Attribute) and n.attr == "element_ty":
            pointers |= flow.bases(getattr(n.value, "value", n.value))
        if not isinstance(n, ast.Call):
            continue
        f, called = n.func, _call_name(n)
        if isinstance(f, ast.Attribute) and called in _DESCRIPTOR_METHODS and \
                isinstance(f.value, ast.Name) and f.value.id in flow.params:
            first = n.args[0] if n.args else None
            descriptors[f.value.id] = len(first.elts) if isinstance(
                first, (ast.List, ast.Tuple)) else 2
            continue
        if called in _MEMORY_FNS:
            addr = n.args[0] if n.args else next(
                (k.value for k in n.keywords if k.arg in _ADDRESS_KWARGS), None)
            if addr is not None:
                pointers |= flow.bases(addr)
            continue
        target = scope.get(f.id) if isinstance(f, ast.Name) else None
        if deps.is_jit_function(target) and id(target) not in seen:
            callee = param_kinds(target, seen)
            cnames = [p.name for p in target.params]
            pairs = list(zip(cnames, n.args)) + [(k.arg, k.value) for k in n.keywords]
            for cname, arg in pairs:
                if callee.get(cname, ParamKind("scalar")).kind == "pointer":
                    pointers |= flow.bases(arg)
    ints, addresses = _integer_pointers(nodes, flow)
    out = {}
    for p in jit_fn.params:
        if p.is_constexpr:
            out[p.name] = ParamKind("constexpr")
        elif p.name in descriptors:
            out[p.name] = ParamKind("descriptor", descriptors[p.name])
        elif p.name in pointers or p.annotation_type.startswith("*"):
            out[p.name] = ParamKind("pointer", int_data=p.name in ints | addresses,
                                    addresses=p.name in addresses)
        else:
            out[p.name] = ParamKind("scalar")
    return out


def _integer_pointers(nodes, flow: _Flow) -> Tuple[Set[str], Set[str]]:
    """Pointer parameters whose loaded values the body uses as integers: as an offset in an
    address (a gather's indices), under a bitwise, shift, `%` or `//` operator, in tl.cdiv,
    tl.multiple_of or range, or counted by tl.histogram. Such a pointer is compiled as `*i32`,
    not the float default. Second: those whose loaded values are cast to pointers
    (`tl.load(A_PTRS + g).to(tl.pointer_type(tl.float16))`, a grouped GEMM's tables of
    addresses), compiled as `*i64`."""
    loaded: Dict[str, Set[str]] = {}  # name -> the pointers its value was loaded through

    def load_bases(e) -> Set[str]:
        if isinstance(e, ast.Call) and _call_name(e) == "load":
            addr = e.args[0] if e.args else next(
                (k.value for k in e.keywords if k.arg in _ADDRESS_KWARGS), None)
            return flow.bases(addr) if addr is not None else set()
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                e.func.attr in _PASS_THROUGH | {"to"}:
            return load_bases(e.func.value) if e.func.attr == "to" else load_bases(e.args[0]) \
                if e.args else set()
        return set()

    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name):
            got = load_bases(n.value)
            if got:
                loaded.setdefault(n.targets[0].id, set()).update(got)

    def integer_use(e) -> Set[str]:
        """The pointers whose loaded values expression `e` reads."""
        out: Set[str] = set()
        for sub in ast.walk(e):
            if isinstance(sub, ast.Name) and sub.id in loaded:
                out |= loaded[sub.id]
            elif isinstance(sub, ast.Call):
                out |= load_bases(sub)
        return out

    ints: Set[str] = set()
    addresses: Set[str] = set()
    for n in nodes:
        called = _call_name(n) if isinstance(n, ast.Call) else None
        if called == "to" and isinstance(n.func, ast.Attribute) and any(
                isinstance(a, ast.Call) and _call_name(a) == "pointer_type" for a in n.args):
            addresses |= load_bases(n.func.value)
        elif called in ("cdiv", "multiple_of", "range"):
            for a in n.args:
                ints |= integer_use(a)
        elif called in ("make_tensor_descriptor", "make_block_ptr"):  # shape, strides, offsets
            for a in n.args[1:] + [k.value for k in n.keywords if k.arg not in _ADDRESS_KWARGS]:
                ints |= integer_use(a)
        if isinstance(n, ast.BinOp) and isinstance(n.op, _INT_OPS):
            ints |= integer_use(n.left) | integer_use(n.right)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Invert):
            ints |= integer_use(n.operand)
        elif isinstance(n, ast.Call) and _call_name(n) == "histogram" and n.args:
            ints |= integer_use(n.args[0])
        elif isinstance(n, ast.Call) and _call_name(n) in _MEMORY_FNS:
            addr = n.args[0] if n.args else next(
                (k.value for k in n.keywords if k.arg in _ADDRESS_KWARGS), None)
            if isinstance(addr, ast.BinOp):  # base + offsets: offsets loaded are indices
                ints |= integer_use(addr.right) | (integer_use(addr.left) - flow.bases(addr))
    return ints - addresses, addresses


def default_constexprs(kernel: Kernel, given: Optional[dict] = None, config=None,
                       fallback: Any = DEFAULT_CONSTEXPR) -> Dict[str, Any]:
    """Values for every constexpr parameter: `given`, else the autotune `config`'s (by
    default the first config's), else the parameter's default, else `fallback` (a
    LookupError when `fallback` is LookupError)."""
    given = dict(given or {})
    if config is None and kernel.configs:
        config = kernel.configs[0]
    meta = config.kwargs if config is not None else {}
    out = {}
    for p in kernel.jit.params:
        if not p.is_constexpr:
            continue
        if p.name in given:
            out[p.name] = given.pop(p.name)
        elif p.name in meta:
            out[p.name] = meta[p.name]
        elif p.has_default:
            out[p.name] = p.default
        elif fallback is LookupError:
            raise LookupError(f"--constexprs: the tl.constexpr parameter {p.name!r} of "
                              f"{kernel.name} needs a value")
        else:
            out[p.name] = fallback
    if given:
        raise ValueError(f"--constexprs: {', '.join(sorted(given))} "
                         f"{'is not a' if len(given) == 1 else 'are not'} tl.constexpr "
                         f"parameter{'' if len(given) == 1 else 's'} of {kernel.name}")
    return out


_DTYPE_ALIASES = {"fp16": "float16", "half": "float16", "fp32": "float32", "float": "float32",
                  "fp64": "float64", "double": "float64", "i8": "int8", "i16": "int16",
                  "i32": "int32", "i64": "int64", "u8": "uint8", "u1": "bool", "int1": "bool"}


def parse_dtype(option: str, text: str):
    """A numpy dtype from a numpy or Triton name (float16/fp16, bfloat16/bf16, ...); a
    ValueError naming the option otherwise."""
    import numpy as np

    name = _DTYPE_ALIASES.get(str(text).lower(), str(text).lower())
    if name in ("bfloat16", "bf16"):
        try:
            import ml_dtypes
        except ImportError:
            raise ValueError(f"{option}: bfloat16 needs the ml_dtypes package") from None
        return np.dtype(ml_dtypes.bfloat16)
    try:
        return np.dtype(name)
    except TypeError:
        raise ValueError(f"{option}: {text!r} is not a dtype (float16, bfloat16, float32, "
                         "float64, int8..int64, uint8, bool)") from None


def infer_signature(kernel: Kernel, kinds: Dict[str, ParamKind], constexprs: Dict[str, Any],
                    given: Optional[dict] = None, dtype: str = "fp32",
                    meta: Optional[Dict[str, Any]] = None) -> Dict[str, str]:
    """The Triton type string of every non-constexpr parameter (see the module docstring).
    Descriptors get the block shapes the kernel's pre_hook sets for its first config, or for
    `meta` (a config's block sizes) where given, as autotuning would launch that config."""
    import numpy as np

    from ..runtime import specialize as sp
    from . import tensor_descriptor as td

    np_dtype = parse_dtype("--dtype", dtype)
    dtype = sp.canonical_dtype(np_dtype)
    given = dict(given or {})
    unknown = sorted(set(given) - set(kinds))
    if unknown:
        raise ValueError(f"--signature: {', '.join(unknown)}: not a parameter of "
                         f"{kernel.name} (parameters: {', '.join(kinds)})")
    params = {p.name: p for p in kernel.jit.params}
    sig: Dict[str, str] = {}
    descs = {}
    for name, k in kinds.items():
        if k.kind == "constexpr":
            continue
        if name in given:
            sig[name] = str(given[name])
        elif params[name].annotation_type:
            sig[name] = params[name].annotation_type
        elif k.kind == "pointer":
            sig[name] = "*i64" if k.addresses else "*i32" if k.int_data else "*" + dtype
        elif k.kind == "descriptor":
            base = np.zeros((DEFAULT_BLOCK * 4,) * k.rank, dtype=np_dtype)
            descs[name] = td.TensorDescriptor.from_tensor(base, [DEFAULT_BLOCK] * k.rank)
        else:
            sig[name] = "i32"
    hook = kernel.configs[0].pre_hook if kernel.configs else None
    if descs and hook is None and meta:  # the hook the advice asks for (a kernel without one)
        hook = _gemm_block_hook
    if descs and hook is not None:  # e.g. tma_set_block_size_hook: block shapes from a config
        nargs = {n: 256 for n in kinds}
        configured = kernel.configs[0].all_kwargs() if kernel.configs else {}
        for more in (descs, constexprs, configured, meta or {}):
            nargs.update(more)
        try:
            hook(nargs)
        except Exception:  # a hook that needs real data: keep the default block shapes
            pass
    sig.update({n: td.signature_string(d) for n, d in descs.items()})
    return sig


def _gemm_block_hook(nargs: Dict[str, Any]) -> None:
    """The advice's tma_set_block_size_hook for a GEMM's descriptors, by their names: A (a_desc)
    gets BLOCK_M x BLOCK_K, B gets BLOCK_K x BLOCK_N, C (c_desc, d_desc, out_desc) BLOCK_M x
    BLOCK_N. Where a kernel has no pre_hook, classify checks each config as the hook it asks for
    would launch it; another descriptor keeps its block shape."""
    from . import tensor_descriptor as td

    blocks = _block_dims(nargs)
    dims = {"a": "MK", "b": "KN", "c": "MN", "d": "MN", "o": "MN"}
    for name, desc in nargs.items():
        want = dims.get(name[:1].lower())
        if isinstance(desc, td.TensorDescriptor) and want and len(desc.block_shape) == 2 and \
                all(d in blocks for d in want):
            desc.block_shape = [blocks[d] for d in want]


def compile_kernel(kernel: Kernel, signature: Dict[str, str], constexprs: Dict[str, Any]):
    """The kernel compiled with these types and constexpr values (raises where it does not
    compile: a static_assert, a type error)."""
    from .. import compile as tt_compile
    from ..compiler import ASTSource

    return tt_compile(ASTSource(kernel.jit, signature, constexprs))


def kernel_ttir(kernel: Kernel, signature: Dict[str, str], constexprs: Dict[str, Any]):
    """The kernel's TTIR module (helpers inlined, canonicalized), with source locations."""
    from ..backends import cpu

    compiled = compile_kernel(kernel, signature, constexprs)
    return cpu.core().parse_ttir(compiled.located_ttir, kernel.jit.file_name)


# --- the IR walk ---------------------------------------------------------------------------


def _where(op) -> str:
    loc = op.location or "?"
    path, _, rest = loc.rpartition(":") if loc.count(":") >= 2 else (loc, "", "")
    path, _, line = path.rpartition(":")
    return f"{os.path.basename(path)}:{line}" if path else loc


def _is_elementwise(op) -> bool:
    return op.name.split(".")[0] in ("arith", "math") or op.name in (
        "tt.precise_divf", "tt.precise_sqrt", "tt.clampf", "tt.fp_to_fp", "tt.mulhiui")


def _tensor(v) -> bool:
    return v.type.is_tensor


def _combine_op(reduce_op) -> str:
    try:
        ops = reduce_op.region(0).blocks[0].ops
        return ",".join(o.name for o in ops if not o.name.endswith(".return")) or "?"
    except Exception:
        return "?"


def classify_module(module, name: str) -> Dict[str, Any]:
    """The class of function `name` of a TTIR module and the evidence for it."""
    func = module.func(name)
    g = _Graph(func)
    count: Dict[str, int] = {}
    for op in g.ops:
        count[op.name] = count.get(op.name, 0) + 1
    facts = {"ops": dict(sorted(count.items())),
             "descriptor_accesses": count.get("tt.descriptor_load", 0)
             + count.get("tt.descriptor_store", 0),
             "block_pointers": count.get("tt.make_tensor_ptr", 0),
             "pointer_loads": count.get("tt.load", 0), "pointer_stores": count.get("tt.store", 0)}
    dots = [op for op in g.ops if op.name in ("tt.dot", "tt.dot_scaled")]
    reduces = [op for op in g.ops if op.name in ("tt.reduce", "tt.scan")]
    evidence: List[Dict[str, str]] = []
    if dots:
        loaded = g.forward([r for op in g.ops if op.name == "tt.descriptor_load"
                            for r in op.results])
        for op in dots:
            a, b = op.operands[0], op.operands[1]
            via = "TMA descriptors" if a.id in loaded and b.id in loaded else "pointer loads"
            facts.setdefault("dot_operands_via", set()).add(via)
            evidence.append({"op": op.name, "at": _where(op),
                             "detail": f"{a.type} x {b.type} -> {op.results[0].type} "
                                       f"(operands from {via})"})
        facts["dot_operands_via"] = sorted(facts["dot_operands_via"])
        kind = "dot-related"
    else:
        loaded = g.forward([r for op in g.ops if op.name in (
            "tt.load", "tt.descriptor_load", "tt.gather") for r in op.results])
        rescales = []
        for red in (r for r in reduces if r.name == "tt.reduce"):
            derived = g.forward(list(red.results))
            for op in g.ops:
                if op.name not in ("tt.splat", "tt.broadcast") or op.operands[0].id not in derived:
                    continue
                spread = op.results[0]
                for user in g.users.get(spread.id, ()):
                    others = [v for v in user.operands if v.id != spread.id]
                    if _is_elementwise(user) and any(_tensor(v) and v.id in loaded
                                                     for v in others):
                        rescales.append((red, user))
        seen_reduces = set()
        for red, user in rescales:
            if id(red) in seen_reduces:
                continue
            seen_reduces.add(id(red))
            evidence.append({"op": red.name, "at": _where(red),
                             "detail": f"reduce ({_combine_op(red)}) of "
                                       f"{red.operands[0].type} (axis {red.attr('axis')}), "
                                       f"broadcast back by {user.name} at {_where(user)} "
                                       "onto the loaded data"})
        across = _across_lanes(g, count)
        if rescales:
            kind = "norm-like"
        elif across:  # counts or orders a whole block: a reduction's kind of tuning
            kind = "reduction"
            evidence += across
        elif reduces:
            kind = "reduction"
            for red in reduces:
                evidence.append({"op": red.name, "at": _where(red),
                                 "detail": f"{red.name[3:]} ({_combine_op(red)}) of "
                                           f"{red.operands[0].type} (axis {red.attr('axis')}), "
                                           "not rescaled back over the data"})
        else:
            kind = "element-wise"
            mem = [op for op in g.ops if op.name in ("tt.load", "tt.store", "tt.descriptor_load",
                                                     "tt.descriptor_store")]
            math_ops = sorted({op.name for op in g.ops if _is_elementwise(op) and op.results
                               and _tensor(op.results[0])})
            evidence.append({"op": "(none)", "at": "",
                             "detail": "no tt.dot, tt.reduce or tt.scan; "
                                       f"{len(mem)} loads/stores, element-wise ops: "
                                       + (", ".join(math_ops) or "none")})
            for op in mem:
                evidence.append({"op": op.name, "at": _where(op),
                                 "detail": str(op.results[0].type if op.results
                                               else op.operands[1].type)})
    return {"class": kind, "evidence": _merge(evidence), "facts": facts}


def _across_lanes(g: "_Graph", count: Dict[str, int]) -> List[Dict[str, str]]:
    """Evidence of work across a block's lanes without tt.reduce: tl.histogram, and tl.sort
    (a compare-exchange network: tt.split into halves, compare, select, tt.join)."""
    out = [{"op": op.name, "at": _where(op),
            "detail": f"histogram of {op.operands[0].type} into {op.results[0].type}"}
           for op in g.ops if op.name == "tt.histogram"]
    if all(count.get(n) for n in ("tt.split", "tt.join", "arith.select")) and \
            (count.get("arith.cmpf") or count.get("arith.cmpi")):
        first = next(op for op in g.ops if op.name == "tt.split")
        out.append({"op": "tt.split/tt.join", "at": _where(first),
                    "detail": f"a sort's compare-exchange network ({count['tt.split']} splits, "
                              f"{count['arith.select']} selects)"})
    return out


def _merge(evidence: List[Dict[str, str]]) -> List[Dict[str, str]]:
    """One entry per distinct (op, place, detail), with how often it occurs (a helper inlined
    twice gives two equal ops)."""
    out: Dict[tuple, Dict[str, Any]] = {}
    for e in evidence:
        key = (e["op"], e["at"], e["detail"])
        out.setdefault(key, dict(e, count=0))["count"] += 1
    return list(out.values())


# --- the workflow's advice and configs ------------------------------------------------------

# (strategy, expected speedup, occupancies to tune over). The workflow's, except norm-like's 8
# and 16: on the H100/H200 (benchmarks/RESULTS.md, tileiras 13.4) softmax won at 8 and, tuned
# against stock Triton's best (2026-11-25, `--versus`), at 16; layer norm at 4; the matmuls won
# at 2 and the TMA matmul at 1.
STRATEGY = {
    "dot-related": ("TMA + 2CTA + occupancy + larger blocks", "1.2-2.0x", (1, 2)),
    "norm-like": ("High occupancy", "2.0-5.0x", (2, 4, 8, 16)),
    "element-wise": ("Occupancy", "1.5-3.0x", (1, 2, 4, 8, 16)),
    "reduction": ("High occupancy + num_warps", "1.8-4.0x", (4, 8, 16)),
}


def advice(kind: str, facts: Dict[str, Any]) -> List[str]:
    """The workflow's advice for a class, adjusted to what the IR shows."""
    strategy, speedup, occ = STRATEGY[kind]
    occ_text = ", ".join(map(str, occ))
    out = [f"Strategy ({WORKFLOW}): {strategy}; expected Tile IR speedup {speedup} on "
           "Blackwell."]
    if kind == "dot-related":
        if facts.get("dot_operands_via") == ["TMA descriptors"]:
            out.append("The dot operands already come through TMA tensor descriptors: keep "
                       "pre_hook=tma_set_block_size_hook on every config so each descriptor "
                       "gets the config's block shape (without it descriptors keep dummy block "
                       "sizes: runtime errors or wrong results).")
        else:
            out.append("Convert the dot operands' tl.load/tl.store to TMA tensor descriptors "
                       "(host TensorDescriptor or tl.make_tensor_descriptor): the workflow "
                       "calls this MANDATORY for dot kernels. Add pre_hook="
                       "tma_set_block_size_hook to the configs to set each descriptor's block "
                       "shape from the config.")
        out += [f"Tune occupancy ({occ_text}), the Tile IR knob, and num_stages (3, 4, 5: the "
                "128x256 tile won at 4 and 5 with occupancy 1 on an H100).",
                "num_warps becomes Tile IR's worker warps where the kernel gets them: a dot "
                "accumulating over 128x128 at num_warps=8 (the 128x256 tile spills without: "
                "44 against 635 TFLOP/s), reductions, dots in nested loops (persistent "
                "kernels), loops of several dots. At 4 worker warps a persistent matmul "
                "needs occupancy 1 (143 against 587 TFLOP/s, H100); elsewhere tileiras "
                "picks the warps and num_warps does not matter.",
                "On Blackwell (sm_100+) add num_ctas=2 configs (2CTA MMA). A persistent grid "
                "must not oversubscribe the SMs: in the pre_hook, nargs['NUM_SMS'] //= "
                "nargs['NUM_CTAS'] (or num_ctas).",
                "Larger blocks are often better on Tile IR than on PTX (e.g. 128x128, "
                "256x128).",
                "Gate the TMA/2CTA configs on compute capability >= 10: they crash "
                "pre-Blackwell GPUs under nvtriton.",
                "B transposed: pass b.T.contiguous() and use tl.dot(a, b.T, acc); a "
                "transposition mismatch gives wrong results silently."]
        if facts.get("persistent_loop"):
            out.append("The persistent loop runs as a grid of work items on the Tile path by "
                       "default (TRITON_TILE_GRID_STRIDE); tune grid_stride=False too, which "
                       "keeps the loop: tutorial 09's pointer matmul won as a loop at "
                       "128x256x64, 4 stages (676.6 against 632.1 TFLOP/s, H200), the "
                       "persistent attention backward (benchmarks/attn_bwd_probe.py) as a grid "
                       "(413.6 against 218.6).")
    elif kind == "norm-like":
        out += [f"High occupancy ({occ_text}) and num_warps (4, 8): on the Tile path a "
                "reduction takes num_warps as its worker warps (layer norm 4096x4096 won at 4, "
                "1.02x stock Triton's best on an H100).",
                "Keep a whole row in one block where it fits: the reduction and the rescale "
                "then stay on chip."]
    elif kind == "element-wise":
        out += [f"Tune occupancy ({occ_text}) and the block sizes; not num_stages or "
                "num_warps, which change no code of a kernel without dots on the Tile path "
                "(the seed workflow's num_stages is the loads' latency hint; tileiras's own "
                "estimate ran 8-10% faster on layer norm, so only dot kernels pass it).",
                "Larger blocks are often better on Tile IR than on PTX."]
    else:
        out += [f"High occupancy ({occ_text}) with num_warps (4, 8) for the PTX path.",
                "Larger blocks are often better on Tile IR than on PTX."]
    out += ["Verify on the PTX path (ENABLE_TILE=0) before tuning and on the Tile path "
            "(ENABLE_TILE=1) after: python -m triton_tile.tools.verify ...",
            "Benchmark PTX vs Tile IR over sizes (128, 1024, 8192): "
            "triton_tile.testing.compare_backends(kernel, grid, *args).",
            "f32 math is stock Triton's already (`/`, tl.sqrt, tl.exp, tl.exp2 fast); where "
            "accuracy allows more: TILEIR_ENABLE_APPROX=1 and TILEIR_ENABLE_FTZ=1 (every f32 "
            "op approximate and flushing)."]
    return out


def _is_block_name(name: str) -> bool:
    return any(w in name.upper() for w in ("BLOCK", "TILE"))


def _block_dim(name: str) -> str:
    """The dimension a block parameter names: its last letter (BLOCK_SIZE_M, BLOCK_N2 -> M, N)."""
    return name.upper().rstrip("_0123456789")[-1:]


def _block_dims(values: Dict[str, Any]) -> Dict[str, int]:
    """The int block sizes among `values` by the dimension they name ({"M": 128, "N": 256})."""
    return {_block_dim(k): v for k, v in values.items() if type(v) is int and _is_block_name(k)}


def _block_params(kernel: Kernel) -> List[str]:
    return [p.name for p in kernel.jit.params if p.is_constexpr and _is_block_name(p.name)]


def _dot_metas(kernel: Kernel, constexprs: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Block shapes for a dot kernel beyond its own configs (M x N x K): the small GEMMs'
    winners 64x64x32 and 128x64x32 (512^3 and 1024^3 on the H100, 2026-11-25 `--versus`),
    64x256x32 (1024^3 on an H200, benchmarks/RESULTS.md, 2026-11-26), 64x64x64 (512^3 and
    1024^3, H100, 2026-11-26) and 64x64x128 (512^3, H100, 2026-11-26 22:30, occupancy 1), then
    larger blocks 128x64x64, 128x128x64, 256x128x64 and
    128x256x64 (4096^3 and 8192^3 on the H100, 2026-11-26: stock Triton's tile, at 8 worker
    warps, 4 stages and occupancy 1), and fp8's 128x256x128 and 256x128x128 (K-major B, 4096^3
    and 8192^3, H100, 2026-11-26, at the same knobs); and 64x128 (BLOCK_M1 x BLOCK_N1: attention
    backward with dQ by atomics, H100, 2026-11-26, 3 stages, occupancy 1; as 64x128x64, 1024^3's
    winner in the face-off of 2026-11-27, 4 stages, occupancy 1), and 64x128x128 (1024^3's
    winner on an H200, 2026-11-30, 3 stages, occupancy 1: 200.9 TFLOP/s against stock Triton's
    best 194.0)."""
    picks = {"M": (64, 128, 64, 64, 64, 128, 128, 256, 128, 128, 256, 64, 64),
             "N": (64, 64, 256, 64, 64, 64, 128, 128, 256, 256, 128, 128, 128),
             "K": (32, 32, 32, 64, 128, 64, 64, 64, 64, 128, 128, 64, 128)}
    larger = [{} for _ in range(len(picks["M"]))]
    for name in _block_params(kernel):
        last = _block_dim(name)
        for i, meta in enumerate(larger):
            meta[name] = picks[last][i] if last in picks else constexprs.get(name)
    base = kernel.configs[0].kwargs if kernel.configs else {}
    metas: List[Dict[str, Any]] = []
    for meta in [dict(c.kwargs) for c in kernel.configs] + [dict(base, **m) for m in larger]:
        if meta not in metas:  # the kernel's own search space, then larger blocks
            metas.append(meta)
    return metas


def _dot_knobs(meta: Dict[str, Any], dots: int, occupancies) -> List[Tuple[int, int, int]]:
    """(num_stages, occupancy, num_warps) to try for one block shape, stages outermost.

    Stages: 3 and 4 (4 won the 128x256 tile, H100, 2026-11-26: 635 TFLOP/s against 559 at 3;
    1024^3's 128x64x64 at occupancy 1, 220.8 TFLOP/s, 2026-11-26 22:30; and the persistent TMA
    matmul's 128x128x64, 612.7 TFLOP/s, tileiras 13.4, 2026-11-27), 5 too for an accumulator of
    128x256 or more, at occupancy 1 only (the descriptor matmul's winner with tileiras 13.4,
    622.4 TFLOP/s, and the persistent one's with 13.5, 654.3, H100, 2026-11-27; two CTAs of five
    stages do not fit an SM's shared memory); and 2 for a kernel of several dots (attention: the
    forward's 128x128 won at 2 stages in three runs, 526.7-550.4 TFLOP/s, and the two-pass
    backward's 64/128/128/64 in two, H100, 2026-11-26).

    Warps: 8 (a 128x256 accumulator spills at fewer worker warps: 44 against 635 TFLOP/s, H100),
    and 4 too for a 128x128 accumulator at occupancy 1 (the persistent TMA matmul's winner with
    tileiras 13.4, 612.7 TFLOP/s, H100, 2026-11-27; at occupancy 2 four worker warps cost a
    persistent matmul 143 against 587 TFLOP/s), and for a 128x64 block of a kernel of several
    dots (attention forward's winner on an H200: 128x64, 4 warps, 3 stages, the default
    occupancy 2, 492.2 TFLOP/s, benchmarks/RESULTS.md 2026-11-29 19:25)."""
    dims = _block_dims(meta)
    area = dims.get("M", 0) * dims.get("N", 0)
    stages = ((2,) if dots > 1 else ()) + ((3, 4, 5) if area >= 128 * 256 else (3, 4))
    square = dims.get("M") == 128 and dims.get("N") == 128
    narrow = dots > 1 and dims.get("M") == 128 and dims.get("N") == 64
    return [(st, o, w) for st in stages for o in occupancies if st < 5 or o == 1
            for w in ((8, 4) if (square and o == 1) or narrow else (8,))]


def _config(meta, **options) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in options.items())
    return f"        triton.Config({json.dumps(meta)}, {opts}),"


def _reason(e: Exception) -> str:
    """One line for a failed compile: `where: what: the source line`, e.g.
    `fused_attention.py:78: static_assert failed: tl.static_assert(BLOCK_M % BLOCK_N == 0)`."""
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip() not in ("", "^")]
    if not lines:
        return type(e).__name__
    head = lines[0]
    parts = head.split(": ", 1)
    if len(parts) == 2 and parts[0].count(":") >= 2:  # path:line:col: message
        path, line, _ = parts[0].rsplit(":", 2)
        head = f"{os.path.basename(path)}:{line}: {parts[1]}"
    return ": ".join([head] + lines[1:2])


def _compiling(metas: List[Dict[str, Any]], compiles) -> Tuple[list, list]:
    """The block shapes the kernel compiles at, and the others with why not (a static_assert
    of the kernel, say `BLOCK_M % BLOCK_N == 0`): a printed config must run."""
    kept, left = [], []
    for meta in metas:
        why = compiles(meta) if compiles is not None else None
        (left if why else kept).append((meta, why) if why else meta)
    return kept, left


def autotune_source(kernel: Kernel, kind: str, facts: Dict[str, Any],
                    constexprs: Dict[str, Any], kinds: Dict[str, ParamKind],
                    compiles=None) -> str:
    """Ready-to-paste Python: `tileir_configs(pre_hook=None)` and the decorator line.
    `compiles(meta)`: None where the kernel compiles with those block sizes, else why not."""
    occ = STRATEGY[kind][2]
    key = kernel.key or [n for n, k in kinds.items() if k.kind == "scalar" and not any(
        w in n.lower() for w in ("stride", "eps", "scale"))]
    hook = kernel.configs[0].pre_hook if kernel.configs else None
    lines = [f"# TileIR autotune configs for {kernel.name} ({kind}; {WORKFLOW}).",
             "import triton_tile as triton  # or: import triton", "", ""]
    if kind == "dot-related":
        lines += ["def _is_blackwell():",
                  "    try:",
                  "        target = triton.runtime.driver.active.get_current_target()",
                  "        return target.backend == \"cuda\" and target.arch >= 100",
                  "    except Exception:  # no GPU driver",
                  "        return False", "", ""]
    lines.append("def tileir_configs(pre_hook=None):")
    if kind == "dot-related":
        metas, left = _compiling(_dot_metas(kernel, constexprs), compiles)
        ops = facts.get("ops", {})
        dots = ops.get("tt.dot", 0) + ops.get("tt.dot_scaled", 0)
        lines += ["    # pre_hook: tma_set_block_size_hook (sets each descriptor's block_shape; "
                  "with num_ctas=2",
                  "    # it must also do nargs['NUM_SMS'] //= nargs['num_ctas'] for a "
                  "persistent grid)."]
        lines += [f"    # left out, the kernel does not compile there: {json.dumps(m)} ({why})"
                  for m, why in left]
        lines += ["    configs = ["]
        points = [(m, st, o, w) for m in metas for st, o, w in _dot_knobs(m, dots, occ)]
        lines += [_config(m, num_stages=st, num_warps=w, occupancy=o, pre_hook="pre_hook")
                  for m, st, o, w in points]
        if facts.get("persistent_loop"):
            lines += ["        # the loop as written (a grid of items by default), at one CTA "
                      "per SM"]
            lines += [_config(m, num_stages=st, num_warps=w, occupancy=o, grid_stride=False,
                              pre_hook="pre_hook")
                      for m, st, o, w in points if o == 1]
        lines += ["    ]", "    if _is_blackwell():  # 2CTA mode: sm_100+ only",
                  "        configs += ["]
        lines += ["    " + _config(m, num_stages=3, num_warps=8, occupancy=1, num_ctas=2,
                                   pre_hook="pre_hook") for m in metas]
        lines += ["        ]", "    return configs"]
    else:
        metas = [dict(c.kwargs) for c in kernel.configs] or [{}]
        metas = [m for i, m in enumerate(metas) if m not in metas[:i]]
        blocks = _block_params(kernel)
        if not kernel.configs and blocks:
            lines.append(f"    # {', '.join(blocks)}: left to the launcher, which passes "
                         "it; to tune it here, add it to each dict and drop it from the "
                         "launch.")
        lines.append("    return [")
        if kind == "element-wise":  # occupancy only: the other knobs compile the same code
            lines += [_config(m, occupancy=o, pre_hook="pre_hook") for m in metas for o in occ]
        else:
            lines += [_config(m, num_warps=w, occupancy=o, pre_hook="pre_hook")
                      for m in metas for o in occ for w in (4, 8)]
        lines.append("    ]")
    hook_arg = f"pre_hook={hook.__name__}" if hook is not None and hasattr(
        hook, "__name__") else ""
    lines += ["", "",
              f"# @triton.autotune(configs=tileir_configs({hook_arg}), key={json.dumps(key)})",
              "# @triton.jit", f"# def {kernel.name}(...):", ""]
    return "\n".join(lines)


# --- one kernel, end to end -----------------------------------------------------------------


def _persistent_loop(module, name: str) -> bool:
    """Whether the Tile path runs the kernel's persistent loop (`for item in
    range(tl.program_id(0), n, step)`) as a grid of items by default
    (TRITON_TILE_GRID_STRIDE, backends/grid_stride.py): then `grid_stride=False` configs, which
    keep the loop, are worth tuning too."""
    from ..compiler.tile_stage import flatten_grid_stride

    return flatten_grid_stride(module.clone(), name)[0] is not None


def classify_kernel(kernel: Kernel, signature: Optional[dict] = None,
                    constexprs: Optional[dict] = None, dtype: str = "fp32") -> Dict[str, Any]:
    kinds = param_kinds(kernel.jit)
    values = default_constexprs(kernel, constexprs)
    sig = infer_signature(kernel, kinds, values, signature, dtype)
    report: Dict[str, Any] = {"kernel": kernel.name, "file": kernel.jit.file_name,
                              "signature": sig, "constexprs": values,
                              "autotuned": bool(kernel.configs)}
    try:
        module = kernel_ttir(kernel, sig, values)
    except Exception as e:  # the kernel does not compile with these types: say how to fix
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        report.update({"class": None, "error": f"{type(e).__name__}: {first}",
                       "hint": "give the parameter types with --signature and the constexpr "
                               "values with --constexprs"})
        return report
    result = classify_module(module, kernel.name)
    kind = result["class"]
    if _persistent_loop(module, kernel.name):
        result["facts"]["persistent_loop"] = True

    def compiles(meta: Dict[str, Any]) -> Optional[str]:
        try:  # descriptors at the config's block shapes (its pre_hook), as a launch has them
            meta_sig = infer_signature(kernel, kinds, values, signature, dtype, meta)
            compile_kernel(kernel, meta_sig, dict(values, **meta))
        except Exception as e:  # noqa: BLE001 - the reason is printed beside the config
            return _reason(e)
        return None

    report.update({"class": kind, "strategy": STRATEGY[kind][0],
                   "expected_speedup": STRATEGY[kind][1], "evidence": result["evidence"],
                   "facts": result["facts"], "advice": advice(kind, result["facts"]),
                   "autotune_configs": autotune_source(kernel, kind, result["facts"], values,
                                                       kinds, compiles)})
    return report


def format_text(report: Dict[str, Any]) -> str:
    out = [f"{report['kernel']} ({os.path.relpath(report['file'])}): "
           f"{report['class'] or 'not classified'}"]
    if report.get("error"):
        out += [f"  error: {report['error']}", f"  hint: {report['hint']}",
                f"  signature used: {json.dumps(report['signature'])}",
                f"  constexprs used: {json.dumps(report['constexprs'], default=str)}"]
        return "\n".join(out)
    out.append(f"  compiled with signature {json.dumps(report['signature'])}, constexprs "
               f"{json.dumps(report['constexprs'], default=str)}")
    out.append("  evidence (TTIR):")
    out += [f"    {e['op']}" + (f" at {e['at']}" if e["at"] else "") + f": {e['detail']}"
            + (f" (x{e['count']})" if e["count"] > 1 else "") for e in report["evidence"]]
    out.append("  advice:")
    out += [f"    - {a}" for a in report["advice"]]
    out.append("  autotune configs (ready to paste):")
    out += [("    " + line).rstrip() for line in report["autotune_configs"].splitlines()]
    return "\n".join(out)


def json_option(option: str, text: Optional[str], kinds=(dict,), default=None):
    """A command-line option's JSON value (`default` when not given); a ValueError naming the
    option when it is not JSON or not of one of `kinds`."""
    if text is None:
        return default
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{option}: not valid JSON ({e.msg} at column {e.colno}): "
                         f"{text!r}") from None
    if not isinstance(value, kinds):
        names = " or ".join({dict: "a JSON object", list: "a JSON list", str: "a string"}[k]
                            for k in kinds)
        raise ValueError(f"{option}: expected {names}, got {text!r}")
    return value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m triton_tile.tools.classify",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="a Python file defining @jit kernels")
    ap.add_argument("--kernel", help="classify only this @jit function")
    ap.add_argument("--signature", help='JSON: parameter -> Triton type, e.g. {"x": "*fp16"}')
    ap.add_argument("--constexprs", help='JSON: tl.constexpr parameter -> value')
    ap.add_argument("--dtype", default="fp32",
                    help="element type of inferred pointers and descriptors (default fp32)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        signature = json_option("--signature", args.signature)
        constexprs = json_option("--constexprs", args.constexprs)
        parse_dtype("--dtype", args.dtype)
        module = load_file(args.file)
        kernels = find_kernels(module, args.kernel)
    except (FileNotFoundError, LookupError, ValueError, ImportError) as e:
        ap.error(str(e))
    if not kernels:
        ap.error(f"{args.file}: no @jit kernels found")
    try:
        reports = [classify_kernel(k, signature, constexprs, args.dtype) for k in kernels]
    except ValueError as e:
        ap.error(str(e))
    try:
        if args.json:
            json.dump({"file": os.path.abspath(args.file), "kernels": reports}, sys.stdout,
                      indent=2, default=str)
            sys.stdout.write("\n")
        else:
            print("\n\n".join(format_text(r) for r in reports))
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_broken_pipe()
    return 1 if any(r["class"] is None for r in reports) else 0


def quiet_broken_pipe() -> None:
    """The reader went away (`| head`): stop writing, without a traceback at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
