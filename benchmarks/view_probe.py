"""Which accesses should become views? Copies whose loads are aligned or not, on the GPU.

    python benchmarks/view_probe.py            # a GPU machine with tileiras and stock Triton

Each form is one copy kernel, timed in one process on the Tile path as converted by default,
on the Tile path with every access a pointer gather (TRITON_TILE_RAISE_VIEWS=0), and through
stock Triton, at the same block sizes. The forms differ only in where the load's first element
lies: aligned, one element past (a view with an unaligned base), one row past, or in rows of
an odd length (no row is aligned). The raise-to-views rule (csrc/conversion/ttir_to_tile/
raise_views.cpp) should take the faster form of each; the stencil found a load with a lower
bound faster as a gather (benchmarks/RESULTS.md, 2026-11-27).
"""

from __future__ import annotations

import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench as gb  # noqa: E402

import triton_tile as tt  # noqa: E402
import triton_tile.language as tl  # noqa: E402


@tt.jit
def shifted_copy_1d(x_ptr, y_ptr, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i + SHIFT, mask=i + SHIFT < n, other=0.0)
    tl.store(y_ptr + i, x, mask=i < n)


@tt.jit
def shifted_copy_2d(x_ptr, y_ptr, n_rows, n_cols, SHIFT_R: tl.constexpr, SHIFT_C: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    r = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    c = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    sr, sc = r + SHIFT_R, c + SHIFT_C
    x = tl.load(x_ptr + sr[:, None] * n_cols + sc[None, :],
                mask=(sr[:, None] < n_rows) & (sc[None, :] < n_cols), other=0.0)
    tl.store(y_ptr + r[:, None] * n_cols + c[None, :], x,
             mask=(r[:, None] < n_rows) & (c[None, :] < n_cols))


@tt.jit
def split_copy_2d(x_ptr, y_ptr, n_rows, n_cols, SHIFT_R: tl.constexpr, SHIFT_C: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # shifted_copy_2d with the blocks wholly inside the array unmasked, by hand
    r = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    c = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    sr, sc = r + SHIFT_R, c + SHIFT_C
    src = x_ptr + sr[:, None] * n_cols + sc[None, :]
    dst = y_ptr + r[:, None] * n_cols + c[None, :]
    last_r = tl.program_id(0) * BLOCK_M + BLOCK_M + SHIFT_R
    last_c = tl.program_id(1) * BLOCK_N + BLOCK_N + SHIFT_C
    if (last_r <= n_rows) & (last_c <= n_cols):
        tl.store(dst, tl.load(src))
    else:
        x = tl.load(src, mask=(sr[:, None] < n_rows) & (sc[None, :] < n_cols), other=0.0)
        tl.store(dst, x, mask=(r[:, None] < n_rows) & (c[None, :] < n_cols))


def _case_1d(t, n, shift):
    x, y = t.randn(n, "float32"), t.empty(n, "float32")

    def check():
        ref = gb._torch().zeros_like(x)
        ref[:n - shift] = x[shift:]
        return gb._rel_err(y, ref)

    return gb.Case(f"copy 1-D, shift {shift}", f"N={n}", shifted_copy_1d, (tt.cdiv(n, 1024),),
                   [x, y, n], {"SHIFT": shift, "BLOCK": 1024}, [y], check, 0.0, 8.0 * n,
                   "GB/s")


def _case_2d(t, m, n, shift_r, shift_c, kernel=shifted_copy_2d):
    x, y = t.randn((m, n), "float32"), t.empty((m, n), "float32")

    def check():
        ref = gb._torch().zeros_like(x)
        ref[:m - shift_r, :n - shift_c] = x[shift_r:, shift_c:]
        return gb._rel_err(y, ref)

    split = ", inside split" if kernel is split_copy_2d else ""
    return gb.Case(f"copy 2-D, shift ({shift_r}, {shift_c}){split}", f"{m}x{n}", kernel,
                   (tt.cdiv(m, 32), tt.cdiv(n, 128)), [x, y, m, n],
                   {"SHIFT_R": shift_r, "SHIFT_C": shift_c, "BLOCK_M": 32, "BLOCK_N": 128},
                   [y], check, 0.0, 8.0 * m * n, "GB/s")


# Tile IR's occupancy hints beside the default (8 for a kernel without dots): tileiras sizes
# its registers, and so the loads it keeps in flight, by it.
OCCUPANCY = (2, 4, 16)


def main() -> int:
    import torch

    t = gb.Tensors(aot=False)
    n = 1 << 26
    cases = [lambda: _case_1d(t, n, 0), lambda: _case_1d(t, n, 1),
             lambda: _case_2d(t, 8192, 8192, 0, 0), lambda: _case_2d(t, 8192, 8192, 0, 1),
             lambda: _case_2d(t, 8192, 8192, 1, 0), lambda: _case_2d(t, 8191, 8191, 0, 0),
             lambda: _case_2d(t, 8191, 8191, 0, 0, split_copy_2d),
             lambda: _case_2d(t, 8192, 8192, 0, 1, split_copy_2d)]
    rows = []
    for make in cases:
        case = make()
        runs = {}
        sides = [("tile", {}, False, {}), ("tile, gathers", gb.POINTER_VARIANT["env"], False, {}),
                 ("stock", {}, True, {})] + [
            (f"tile, occupancy {o}", {}, False, {"occupancy": o}) for o in OCCUPANCY]
        for side, env, stock, knobs in sides:
            launch = functools.partial(gb.launcher(case, stock), case.grid,
                                       dict(case.meta, **knobs))
            with gb._Env(env):
                r = gb._measure(case, launch)
            runs[side] = f"{r['value']:.1f}{'' if r['ok'] else ' WRONG'}"
            if side == "tile":
                acc = getattr(r["kernel"].metadata, "tile_accesses", ())
                runs["load form"] = next((a[3] if a[2] else "gather: " + a[3] for a in acc
                                          if a[0] == "tt.load"), "-")
        rows.append([case.name, case.label, runs["tile"], runs["tile, gathers"], runs["stock"]]
                    + [runs[f"tile, occupancy {o}"] for o in OCCUPANCY] + [runs["load form"][:60]])
        del case
        torch.cuda.empty_cache()
    import triton

    print(f"{torch.cuda.get_device_name()}, stock Triton {triton.__version__}, GB/s")
    gb._print_table(["form", "size", "tile (default)", "tile, gathers", "stock Triton"]
                    + [f"tile, occupancy {o}" for o in OCCUPANCY] + ["tile load"], rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
