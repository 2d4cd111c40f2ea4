"""Facts read off a TTIR module without running it: the op graph of a function (users,
parents, block arguments) and the arguments a kernel writes through (what a launch checks is
writable, what tools.classify and tools.verify report). A leaf: the compiler uses it, and so
do the tools, without either importing the other."""

from __future__ import annotations

from typing import Any, Dict, List, Set


class Graph:
    """The ops of one function in program order, with their users and parents."""

    def __init__(self, func):
        self.ops: List[Any] = []
        self.parent: Dict[int, Any] = {}  # id(op) -> the op whose region holds it
        self.users: Dict[int, List[Any]] = {}
        self.block_args: Dict[int, tuple] = {}  # value id -> (owning op, block, index)
        self._visit(func)

    def _visit(self, op):
        for i in range(op.num_regions):
            for block in op.region(i).blocks:
                for j, arg in enumerate(block.args):
                    self.block_args[arg.id] = (op, block, j)
                for child in block.ops:
                    self.parent[id(child)] = op
                    self.ops.append(child)
                    for v in child.operands:
                        self.users.setdefault(v.id, []).append(child)
                    self._visit(child)

    def region_args(self, op) -> list:
        return [a for i in range(op.num_regions) for b in op.region(i).blocks for a in b.args]

    def forward(self, seeds) -> Set[int]:
        """Ids of every value computed from `seeds` (through loops, ifs and yields)."""
        seen: Set[int] = set()
        todo = [v for v in seeds]
        while todo:
            v = todo.pop()
            if v.id in seen:
                continue
            seen.add(v.id)
            for user in self.users.get(v.id, ()):
                if user.name in ("scf.yield", "scf.condition"):
                    parent = self.parent.get(id(user))
                    if parent is not None:
                        todo += list(parent.results) + self.region_args(parent)
                elif user.num_regions and user.name.startswith("scf."):
                    todo += list(user.results) + self.region_args(user)
                else:
                    todo += list(user.results)
        return seen


def _pointer_like(t) -> bool:
    text = str(t)
    return t.is_ptr or "tt.ptr" in text or "tensordesc" in text


def _flat_count(t) -> int:
    """How many TTIR function arguments one parameter of this type string becomes."""
    if isinstance(t, (tuple, list)):
        return sum(_flat_count(x) for x in t)
    if t == "constexpr":
        return 0
    if t.startswith("tensordesc"):
        return 1 + 2 * (t[t.index("["):t.index("]")].count(",") + 1)
    return 1


_WRITES = ("tt.store", "tt.descriptor_store", "tt.atomic_rmw", "tt.atomic_cas")


def written_params(module, name: str, arg_names: List[str], param_types) -> List[str]:
    """The parameters function `name` of a TTIR module writes through (stores and atomics), in
    parameter order: each write's address is followed back through pointer arithmetic,
    splats, loops and ifs to the function arguments it starts from. `param_types` has one
    type string per parameter ("constexpr" for those folded away), as the signature."""
    found = written_param_indices(module, name, param_types)
    return [n for i, n in enumerate(arg_names) if i in found]


def written_param_indices(module, name: str, param_types) -> Set[int]:
    """written_params by parameter position."""
    flat = written_arg_indices(module, name)
    found, i = set(), 0
    for pnum, t in enumerate(param_types):
        k = _flat_count(t)
        if flat & set(range(i, i + k)):
            found.add(pnum)
        i += k
    return found


def written_arg_indices(module, name: str) -> Set[int]:
    """The function arguments (by position: the executor's arguments, tuples flattened) that
    function `name` writes through: what a launch checks is writable."""
    func = module.func(name)
    owner: Dict[int, int] = {a.id: i for i, a in enumerate(func.region(0).blocks[0].args)}
    g = Graph(func)
    found: Set[int] = set()
    seen: Set[int] = set()
    todo = [op.operands[0] for op in g.ops if op.name in _WRITES]
    while todo:
        v = todo.pop()
        if v.id in seen:
            continue
        seen.add(v.id)
        if v.id in owner:
            found.add(owner[v.id])
        elif v.id in g.block_args:
            op, _, j = g.block_args[v.id]
            if op.name == "scf.for" and j >= 1:
                todo.append(op.operands[3 + j - 1])
            else:
                todo += [x for x in op.operands if _pointer_like(x.type)]
        elif v.owner is not None:
            op = v.owner
            if op.name == "scf.for":
                todo.append(op.operands[3 + list(r.id for r in op.results).index(v.id)])
            elif op.num_regions and op.name.startswith("scf."):
                k = [r.id for r in op.results].index(v.id)
                todo += [b.ops[-1].operands[k] for i in range(op.num_regions)
                         for b in op.region(i).blocks if b.ops and len(b.ops[-1].operands) > k]
            else:
                todo += [x for x in op.operands if _pointer_like(x.type)]
    return found
