"""The host side of launch guards (csrc/conversion/ttir_to_tile/launch_guard.h).

A guard is a TTIR kernel with the launch's grid that clears an i32 flag wherever a guarded
loop's conditions fail; the GPU path launches the kernel without the loops' other versions only
where no program does. A decision for a (grid, argument values) pair takes two steps:

1. interval arithmetic over the guard's ops, once for the whole grid (tens of microseconds):
   every op's interval holds every value the op takes in any program and iteration, and an op
   whose result could leave its type's range (wrap) or that it does not model makes it give up;
   so "no flag store can run" is a proof;
2. where intervals cannot tell, the guard itself on the CPU executor: every program, every
   iteration of the loops it walks (milliseconds for large grids; see docs/gpu_perf_notes.md).

Decisions are cached per grid and argument values.
"""

from __future__ import annotations

import json
import warnings
from typing import Dict, Tuple

from ..runtime.bounded_memo import BoundedMemo
from . import cpu

Interval = Tuple[int, int]


class _Unknown(Exception):
    """Intervals cannot decide the guard."""


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _corners(f, a: Interval, b: Interval) -> Interval:
    vals = [f(x, y) for x in a for y in b]
    return min(vals), max(vals)


def _compare(pred: int, a: Interval, b: Interval) -> Interval:
    """arith.cmpi over intervals: (1, 1) always true, (0, 0) never, (0, 1) either."""
    if pred >= 6:  # unsigned: the signed order where both sides are non-negative
        if a[0] < 0 or b[0] < 0:
            raise _Unknown
        pred -= 4
    (a0, a1), (b0, b1) = a, b
    if pred in (0, 1):  # eq, ne
        if a0 == a1 == b0 == b1:
            eq = (1, 1)
        elif a1 < b0 or b1 < a0:
            eq = (0, 0)
        else:
            eq = (0, 1)
        return eq if pred == 0 else (1 - eq[1], 1 - eq[0])
    if pred in (4, 5):  # sgt, sge: slt, sle with the sides swapped
        (a0, a1), (b0, b1), pred = b, a, pred - 2
    if pred == 2:  # slt
        return (1, 1) if a1 < b0 else (0, 0) if a0 >= b1 else (0, 1)
    return (1, 1) if a1 <= b0 else (0, 0) if a0 > b1 else (0, 1)  # sle


def _transfer(name: str, attr: int, ins, width: int, grid) -> Interval:
    """The interval of an op's single integer result."""
    if name == "arith.constant":
        return attr, attr
    if name == "tt.get_program_id":
        return 0, grid[attr] - 1
    if name == "tt.get_num_programs":
        return grid[attr], grid[attr]
    if name in ("arith.extsi", "arith.trunci"):  # (trunci: the range check decides)
        return ins[0]
    if name == "arith.extui":
        if ins[0][0] < 0:
            raise _Unknown
        return ins[0]
    if name == "arith.select":
        c, a, b = ins
        return a if c == (1, 1) else b if c == (0, 0) else (min(a[0], b[0]), max(a[1], b[1]))
    if name == "arith.cmpi":
        return _compare(attr, *ins)
    a, b = ins
    if name == "arith.addi":
        return a[0] + b[0], a[1] + b[1]
    if name == "arith.subi":
        return a[0] - b[1], a[1] - b[0]
    if name == "arith.muli":
        return _corners(lambda x, y: x * y, a, b)
    if name == "arith.maxsi":
        return max(a[0], b[0]), max(a[1], b[1])
    if name == "arith.minsi":
        return min(a[0], b[0]), min(a[1], b[1])
    if name in ("arith.divsi", "arith.divui"):
        if b[0] <= 0 or (name == "arith.divui" and a[0] < 0):
            raise _Unknown
        return _corners(_trunc_div, a, b)  # monotone in each side for a positive divisor
    if name in ("arith.remsi", "arith.remui"):
        if a[0] < 0 or b[0] <= 0:
            raise _Unknown
        return (a[0], a[0]) if a[0] == a[1] and a[1] < b[0] else (0, min(a[1], b[1] - 1))
    if width == 1 and name in ("arith.andi", "arith.ori", "arith.xori"):
        if name == "arith.andi":
            return a[0] & b[0], a[1] & b[1]
        if name == "arith.ori":
            return a[0] | b[0], a[1] | b[1]
        if b[0] == b[1]:
            return (a[0], a[1]) if b[0] == 0 else (1 - a[1], 1 - a[0])
        return 0, 1
    raise _Unknown


_ATTR = {"arith.constant": "value", "tt.get_program_id": "axis",
         "tt.get_num_programs": "axis", "arith.cmpi": "predicate"}


def _steps(block) -> list:
    """A block's ops as plain tuples, read once from the IR: (name, result id, operand ids,
    integer attribute, result width, the body's steps and induction variable id for scf.for);
    None for an op the intervals do not model."""
    out = []
    for op in block.ops:
        name = op.name
        if name in ("scf.yield", "tt.return"):
            continue
        operands = tuple(v.id for v in op.operands)
        if name == "scf.for":
            body = op.region(0).blocks[0]
            if op.num_results or body.num_args != 1:
                return None
            inner = _steps(body)
            if inner is None:
                return None
            out.append((name, None, operands, None, 0, (body.arg(0).id, inner)))
            continue
        if name == "scf.if":
            out.append((name, None, operands, None, 0, None))
            continue
        if op.num_results != 1 or op.num_regions or not op.results[0].type.int_width:
            return None
        key = _ATTR.get(name)
        attr = int(str(op.attr(key))) if key else None
        out.append((name, op.results[0].id, operands, attr, op.results[0].type.int_width, None))
    return out


def _walk(steps, env, grid) -> None:
    for name, result, operands, attr, width, body in steps:
        if name == "scf.if":  # guards a store to the flag: it must never run
            if env[operands[0]] != (0, 0):
                raise _Unknown
            continue
        if name == "scf.for":
            (lb, _), (_, ub), (step, _) = (env[v] for v in operands[:3])
            if step <= 0:
                raise _Unknown
            if ub - 1 >= lb:  # else no program runs it
                env[body[0]] = (lb, ub - 1)
                _walk(body[1], env, grid)
            continue
        lo, hi = _transfer(name, attr, [env[v] for v in operands], width, grid)
        bound = (0, 1) if width == 1 else (-(1 << (width - 1)), (1 << (width - 1)) - 1)
        if lo > hi or lo < bound[0] or hi > bound[1]:
            raise _Unknown  # it may wrap: the intervals no longer bound it
        env[result] = (lo, hi)


class Intervals:
    """A guard kernel read once for interval decisions (module docstring, step 1)."""

    def __init__(self, func):
        block = func.region(0).blocks[0]
        self.args = [block.arg(i).id for i in range(block.num_args - 1)]  # (less the flag)
        self.steps = _steps(block)

    def proves(self, grid, values) -> bool:
        """Whether no program of `grid` clears the flag with these argument values; False
        when the intervals cannot tell."""
        if 0 in grid:
            return True  # no program runs
        if self.steps is None:
            return False
        env: Dict[int, Interval] = {a: (v, v) for a, v in zip(self.args, values)}
        try:
            _walk(self.steps, env, grid)
        except (_Unknown, KeyError, IndexError):
            return False
        return True


class LaunchGuard:
    """One compiled kernel's guard: `holds(grid, flat)` decides a launch (module docstring);
    `asm['guard']` holds its TTIR and the kernel argument indices it takes."""

    def __init__(self, name: str, text: str):
        spec = json.loads(text)
        self.name = f"{name}_launch_guard"
        self.text, self.args = spec["ttir"], tuple(spec["args"])
        self._module = self._program = None
        self._decided = BoundedMemo()  # (grid, values) -> bool
        self.executor_runs = 0  # decisions the intervals left to the executor

    def holds(self, grid, flat) -> bool:
        return self.holds_for(tuple(int(g) for g in grid),
                              tuple(int(flat[i]) for i in self.args))

    def holds_for(self, grid: tuple, values: tuple) -> bool:
        """holds() on a grid of 3 ints and the guard's argument values as ints, in
        `self.args` order: the launch path's form (every masked access of a kernel may have a
        guard, so a cached decision must cost little more than a dict lookup)."""
        key = (grid, values)
        ok = self._decided.get(key)
        if ok is None:
            ok = self._decide(grid, tuple(int(v) for v in values))
            self._decided.put(key, ok)
        return ok

    def _decide(self, grid, values) -> bool:
        if not self._load():
            return False
        if self._intervals.proves(grid, values):
            return True
        self.executor_runs += 1
        return self._run(grid, values)

    def _load(self) -> bool:
        if self._module is None:
            try:
                self._module = cpu.core().parse_ttir(self.text, self.name)
                self._intervals = Intervals(self._module.func(self.name))
                self._program = cpu.prepare(self._module, self.name)
            except Exception as e:  # a bug, but the launch can still run: the general kernel
                warnings.warn(f"kernel {self.name}: the CPU executor cannot run the launch "
                              f"guard ({e}); every launch takes the kernel with both loop "
                              "versions", RuntimeWarning, stacklevel=4)
                self._module = False
        return bool(self._module)

    def _run(self, grid, values) -> bool:
        import numpy as np

        flag = np.ones(1, dtype=np.int32)
        try:
            self._program.run(grid=grid, args=[*values, (flag.ctypes.data, flag.nbytes)])
        except Exception:  # (a loop step the executor refuses): the kernel with both versions
            return False
        return bool(flag[0])


__all__ = ["Intervals", "LaunchGuard"]
