"""The host side of grid-stride loops made grids (csrc/passes/grid_stride_loops.cpp).

A persistent kernel `for item in range(tl.program_id(0), n, step)` compiled on the Tile path
runs each (program, iteration) pair as a program of its own: program (pid, j) on axes 0 and 1
(and 2 past 65535 iterations) runs item pid + j * step when it is below n. A launch with grid
(G, gy, gz) becomes a launch of (G, min(J, 65535), ceil(J / 65535)) with J = ceil(n / step),
the most iterations any program had; or of (n, 1, 1) where the items are 0..n-1 (step = G, or
n <= min(G, step)), axis 0's id and count feed nothing but the loop's start and step, and no
counter needs the iteration ("linear"): then each program's id is its item and none is idle.
gy * gz such launches where the kernel read neither axis but the grid had them (each program
then ran the whole loop; so does each launch). The kernel's n and step come from its integer
arguments through the function the pass returns, run on the CPU executor once per (G, argument
values) and cached.
"""

from __future__ import annotations

import json
import threading
from typing import List, Tuple

from ..runtime.bounded_memo import BoundedMemo
from . import cpu

_X_LIMIT, _AXIS_LIMIT = 2**31 - 1, 65535  # CUDA's grid limits (compiler.kernel.GRID_LIMITS)
_I64_MAX = 2**63 - 1  # the kernel computes item = pid + j * step in i64


def asm_entry(tile) -> str:
    """asm['grid'] of a TileResult with a grid: its function's TTIR and argument indices."""
    return json.dumps({"ttir": tile.grid, "args": list(tile.grid_args),
                       "linear": tile.grid_linear})


class GridStride:
    """One compiled kernel's grid function: `launches(grid, values)` gives the grids to launch
    the flattened kernel with for a launch of the original on `grid` (3 ints), `values` the
    kernel's integer arguments at `self.args` (TTIR argument indices)."""

    def __init__(self, name: str, text: str):
        spec = json.loads(text)
        self.kernel = name
        self.name = f"{name}_grid"
        self.text, self.args = spec["ttir"], tuple(spec["args"])
        self.linear = bool(spec.get("linear"))
        self._program = None
        self._bounds = BoundedMemo()  # (programs, values) -> (end, step)
        self._lock = threading.Lock()  # (the grid function's program, made once)

    def launches(self, grid: tuple, values: tuple) -> List[tuple]:
        programs, gy, gz = grid
        if 0 in grid:
            return []
        key = (programs, values)
        bounds = self._bounds.get(key)
        if bounds is None:
            bounds = self._evaluate(programs, values)
            self._bounds.put(key, bounds)
        end, step = bounds
        if step <= 0:
            raise ValueError(f"kernel {self.kernel}: its loop over work items "
                             f"(range(tl.program_id(0), {end}, {step})) has step {step}; a "
                             "range's step must be positive")
        iterations = -(-end // step) if end > 0 else 0
        if iterations == 0:
            return []
        if self.linear and (step == programs or end <= min(programs, step)) and \
                end <= _X_LIMIT:
            return [(end, 1, 1)] * (gy * gz)  # items 0..end-1, each program's id its item
        along_y = min(iterations, _AXIS_LIMIT)
        along_z = -(-iterations // along_y)
        if along_z > _AXIS_LIMIT:
            raise ValueError(f"kernel {self.kernel}: its loop over work items runs {iterations} "
                             f"iterations (range(tl.program_id(0), {end}, {step})), over the "
                             f"{_AXIS_LIMIT ** 2} a grid of items holds; set "
                             "TRITON_TILE_GRID_STRIDE=0 to run the loop as written")
        last = (programs - 1) + (along_y * along_z - 1) * step
        if last > _I64_MAX:  # a wrapped item of an idle program is below the bound: it would run
            raise ValueError(f"kernel {self.kernel}: its loop over work items "
                             f"(range(tl.program_id(0), {end}, {step})) on {programs} programs "
                             f"runs as a grid of items whose last program's item, {last}, is "
                             "past the int64 range; set TRITON_TILE_GRID_STRIDE=0 (or "
                             "grid_stride=False) to run the loop as written")
        return [(programs, along_y, along_z)] * (gy * gz)

    def _evaluate(self, programs: int, values: tuple) -> Tuple[int, int]:
        import numpy as np

        with self._lock:
            if self._program is None:
                module = cpu.core().parse_ttir(self.text, self.name)
                self._program = cpu.prepare(module, self.name)
        out = np.zeros(2, dtype=np.int64)
        self._program.run(grid=(1, 1, 1), args=[*(int(v) for v in values), int(programs),
                                                (out.ctypes.data, out.nbytes)])
        return int(out[0]), int(out[1])


__all__ = ["GridStride", "asm_entry"]
