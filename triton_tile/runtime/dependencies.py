"""What a @jit function reaches: other jit functions and constexpr globals.

These feed `JITFunction.cache_key` (so editing a callee or a constexpr global changes the key)
and the per-launch check that the globals a compiled kernel read have not changed since.
"""

from __future__ import annotations

import ast
import builtins
import functools
import types
from typing import Any, Callable, Dict, List, NamedTuple, Set, Tuple

MISSING = object()


class _Refs(ast.NodeVisitor):
    """Names a function body reads from outside: plain names and attribute chains on them."""

    def __init__(self):
        self.chains: Set[Tuple[str, ...]] = set()
        self.bound: Set[str] = set()

    def visit_arguments(self, node):
        for a in node.posonlyargs + node.args + node.kwonlyargs:
            self.bound.add(a.arg)
        if node.vararg:
            self.bound.add(node.vararg.arg)
        if node.kwarg:
            self.bound.add(node.kwarg.arg)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.chains.add((node.id,))
        else:
            self.bound.add(node.id)

    def visit_Attribute(self, node):
        parts = []
        cur = node
        while isinstance(cur, ast.Attribute):
            parts.append(cur.attr)
            cur = cur.value
        if isinstance(cur, ast.Name) and isinstance(cur.ctx, ast.Load):
            self.chains.add((cur.id, *reversed(parts)))
        else:
            self.generic_visit(node)

    def visit_FunctionDef(self, node):  # only the body: defaults/annotations run at def time
        self.visit_arguments(node.args)
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncFunctionDef = visit_FunctionDef


def external_chains(src: str) -> List[Tuple[str, ...]]:
    tree = ast.parse(src)
    finder = _Refs()
    finder.visit(tree.body[0] if tree.body else tree)
    return sorted(c for c in finder.chains if c[0] not in finder.bound)


class GlobalUse(NamedTuple):
    """A value a kernel read from outside at compile time, and how to read it again."""

    name: str
    value: Any
    getter: Callable[[], Any]


def capture_scope(fn) -> Dict[str, Any]:
    """The names a function body can see: its globals, overlaid with its closure variables."""
    scope = dict(fn.__globals__)
    code = fn.__code__
    if fn.__closure__:
        for name, cell in zip(code.co_freevars, fn.__closure__):
            try:
                scope[name] = cell.cell_contents
            except ValueError:  # an empty cell: the variable is assigned after the def
                pass
    return scope


def _cell_getter(cell):
    def get():
        try:
            return cell.cell_contents
        except ValueError:
            return MISSING

    return get


def _root_getter(fn, name: str) -> Callable[[], Any]:
    code = fn.__code__
    if fn.__closure__ and name in code.co_freevars:
        return _cell_getter(fn.__closure__[code.co_freevars.index(name)])
    return functools.partial(fn.__globals__.get, name, MISSING)


def is_jit_function(v) -> bool:
    return type(v).__name__ == "JITFunction" and hasattr(v, "cache_key")


def is_tracked_value(v) -> bool:
    """Values that become compile-time constants when a kernel reads them as globals."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    t = type(v)
    if t.__name__ == "constexpr" and hasattr(v, "value"):
        return True
    return t.__module__.startswith("triton_tile.language") and hasattr(v, "primitive_bitwidth")


def resolve(fn, chains) -> List[Tuple[str, Any, Callable[[], Any]]]:
    """(dotted name, value, getter) for every chain that ends on a jit function or a tracked
    value. Chains descend through modules only: `mod.helper`, `mod.CONST`."""
    scope_get = _root_getter
    out = []
    for chain in chains:
        root = chain[0]
        getter = scope_get(fn, root)
        value = getter()
        if value is MISSING:
            value = getattr(builtins, root, MISSING)
            if value is not MISSING:
                continue  # builtins (range, min, ...) are not user state
        i = 1
        while i < len(chain) and isinstance(value, types.ModuleType):
            mod = value
            value = getattr(mod, chain[i], MISSING)
            getter = functools.partial(mod.__dict__.get, chain[i], MISSING)
            i += 1
        if value is MISSING:
            continue
        if is_jit_function(value) or is_tracked_value(value):
            out.append((".".join(chain[:i]), value, getter))
    return out


def same_value(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if type(a).__name__ == "constexpr" and hasattr(a, "value"):
        return same_value(a.value, b.value)
    try:
        return bool(a == b)
    except Exception:
        return False


def stable_repr(v) -> str:
    """A repr that is the same in every process (no addresses), for cache keys."""
    if is_jit_function(v):
        return f"jit:{v.cache_key}"
    if type(v).__name__ == "constexpr" and hasattr(v, "value"):
        return f"constexpr({stable_repr(v.value)})"
    if isinstance(v, (list, tuple)):
        return type(v).__name__ + "(" + ",".join(stable_repr(x) for x in v) + ")"
    if isinstance(v, dict):
        return "{" + ",".join(f"{stable_repr(k)}:{stable_repr(x)}" for k, x in
                              sorted(v.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(v, float):
        return f"float:{v!r}"
    return f"{type(v).__name__}:{v!r}" if isinstance(v, (bool, int, str, type(None))) \
        else f"{type(v).__module__}.{type(v).__qualname__}:{v}"
