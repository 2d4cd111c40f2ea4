#!/usr/bin/env python3
"""The import graph of the `triton_tile` package, and its cycles.

    python tools/import_graph.py            # print modules, edges and cycles
    python tools/import_graph.py --check    # exit 1 on a cycle the baseline below does not allow

Built from the source with `ast` (nothing is imported, so it works without the C++ core).
An edge A -> B means module A names module B in an import statement. Each edge is marked:

    module    at least one import of B runs when A is imported (module or class level)
    function  every import of B sits inside a function: it runs at call time

Only explicit imports count: importing `a.b.c` also runs `a/__init__.py` and `a/b/__init__.py`,
but those implied edges are left out (every module would otherwise reach the package root).

A cycle is reported as a strongly connected component (modules that all reach each other) of
two or more modules. Two graphs are checked: the module-level edges alone (a cycle there is
import-order dependent) and all edges (a cycle there means the layers are not layered; the
function-level import is how it was made to load). --check passes when every component is
contained in one of the baseline's: removing edges only splits components, so it never fails a
cleanup, and any new cycle, or a module joining an old one, fails it.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from typing import Dict, Iterable, List, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "triton_tile"
CORE = PACKAGE + "._core"

# The cycles --check allows: the @jit standard library's alone (issue 13's redesign removed the
# rest). Never grow these lists.
# Names are relative to the package ("" is triton_tile itself).
ALLOWED_MODULE_LEVEL_CYCLES: List[Set[str]] = []  # none today: keep it so
ALLOWED_CYCLES: List[Set[str]] = [
    # The @jit standard library's, as in Triton: language.standard's functions are @jit
    # functions (runtime.jit), the JIT compiles through compiler.compiler, whose frontend
    # inlines the standard library. Nothing else: keep it so.
    {"compiler.compiler", "compiler.frontend", "language.standard", "runtime.jit"},
]

Edge = Tuple[str, str]


def module_files(root: str = ROOT) -> Dict[str, str]:
    """Module name -> file, for every .py file of the package."""
    out = {}
    base = os.path.join(root, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), root)[:-3].split(os.sep)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out[".".join(rel)] = os.path.join(dirpath, f)
    out[CORE] = ""  # the C++ extension, built from csrc/: a leaf, no Python source
    return out


def _is_package(name: str, files: Dict[str, str]) -> bool:
    return files[name].endswith("__init__.py")  # (the C++ core's "" is not)


def _targets(node, name: str, files: Dict[str, str]) -> Iterable[str]:
    """The package's modules one import statement in module `name` names."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] == PACKAGE:
                yield _nearest(alias.name, files)
        return
    if node.level:
        parts = name.split(".")
        if not _is_package(name, files):
            parts = parts[:-1]  # a module's relative imports start at its package
        parts = parts[:len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    if base.split(".")[0] != PACKAGE:
        return
    found = False
    for alias in node.names:  # `from pkg import submodule` imports the submodule
        sub = f"{base}.{alias.name}"
        if sub in files:
            found = True
            yield sub
    if not found or any(f"{base}.{a.name}" not in files for a in node.names):
        yield _nearest(base, files)


def _nearest(dotted: str, files: Dict[str, str]) -> str:
    """`dotted`, or its longest prefix that is a module (`from m import a_function`)."""
    parts = dotted.split(".")
    while parts and ".".join(parts) not in files:
        parts.pop()
    return ".".join(parts)


class _Imports(ast.NodeVisitor):
    def __init__(self, name: str, files: Dict[str, str]):
        self.name, self.files = name, files
        self.depth = 0  # > 0 inside a function body
        self.found: List[Tuple[str, bool]] = []  # (target, at module level)

    def _function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node):
        for t in _targets(node, self.name, self.files):
            self.found.append((t, self.depth == 0))

    visit_ImportFrom = visit_Import


def build(root: str = ROOT) -> Tuple[List[str], Dict[Edge, str]]:
    """(modules, {(importer, imported): "module" | "function"})."""
    files = module_files(root)
    edges: Dict[Edge, str] = {}
    for name, path in files.items():
        if not path:
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        v = _Imports(name, files)
        v.visit(tree)
        for target, top in v.found:
            if not target or target == name:
                continue
            if top or edges.get((name, target)) != "module":
                edges[(name, target)] = "module" if top else "function"
    return sorted(files), edges


def components(modules: List[str], edges: Iterable[Edge]) -> List[Set[str]]:
    """Strongly connected components of two or more modules (Tarjan, iterative)."""
    succ: Dict[str, List[str]] = {m: [] for m in modules}
    for a, b in edges:
        succ[a].append(b)
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    out: List[Set[str]] = []
    for start in modules:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            if i < len(succ[v]):
                work.append((v, i + 1))
                w = succ[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            for w in succ[v]:
                if w in on_stack:
                    low[v] = min(low[v], low[w])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return sorted(out, key=lambda c: sorted(c))


def cycles(modules: List[str], edges: Dict[Edge, str]) -> Tuple[List[Set[str]], List[Set[str]]]:
    """(components of the module-level edges, components of all edges)."""
    top = [e for e, kind in edges.items() if kind == "module"]
    return components(modules, top), components(modules, edges)


def _full(names: Set[str]) -> Set[str]:
    return {f"{PACKAGE}.{n}" if n else PACKAGE for n in names}


def not_allowed(found: List[Set[str]], allowed: List[Set[str]]) -> List[Set[str]]:
    """The components of `found` not contained in one of `allowed` (short names)."""
    full = [_full(a) for a in allowed]
    return [c for c in found if not any(c <= a for a in full)]


def _short(m: str) -> str:
    return m[len(PACKAGE) + 1:] if m.startswith(PACKAGE + ".") else m


def report(modules: List[str], edges: Dict[Edge, str]) -> str:
    lines = [f"{len(modules)} modules, {len(edges)} edges "
             f"({sum(k == 'module' for k in edges.values())} module-level, "
             f"{sum(k == 'function' for k in edges.values())} function-level only)", ""]
    for m in modules:
        outs = sorted((b, k) for (a, b), k in edges.items() if a == m)
        lines.append(f"{m}{'   (C++ extension, csrc/)' if m == CORE else ''}")
        for b, k in outs:
            lines.append(f"    -> {b}{'' if k == 'module' else '   (function)'}")
    top, every = cycles(modules, edges)
    for title, comps in (("cycles of module-level imports", top),
                         ("cycles of all imports", every)):
        lines += ["", f"{title}: {len(comps)}"]
        for c in comps:
            lines.append("  {" + ", ".join(sorted(_short(m) for m in c)) + "}")
            for (a, b), k in sorted(edges.items()):
                if a in c and b in c and (k == "module" or title.endswith("all imports")):
                    lines.append(f"      {_short(a)} -> {_short(b)}"
                                 f"{'' if k == 'module' else '   (function)'}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a cycle is not contained in the baseline's")
    ap.add_argument("--root", default=ROOT, help="repository root (default: this checkout)")
    args = ap.parse_args(argv)
    modules, edges = build(args.root)
    print(report(modules, edges))
    if not args.check:
        return 0
    top, every = cycles(modules, edges)
    bad = [("module-level", c) for c in not_allowed(top, ALLOWED_MODULE_LEVEL_CYCLES)]
    bad += [("any", c) for c in not_allowed(every, ALLOWED_CYCLES)]
    for kind, c in bad:
        print(f"import_graph: new {kind} import cycle: {sorted(c)} (break it: issue 13 keeps "
              "the package layered; see docs/architecture.md)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
