"""Shared by the executor tests (test_ttir_executor.py, test_tile_executor.py): launching a
program on numpy arrays and the vector-add kernel both executors run.

Imported as ``from exec_harness import ...`` (pytest puts this directory on sys.path for the
test modules in it). Importing it skips the importing module when the C++ core is not built.
"""
# ruff: noqa: E501  (TTIR lines in the kernel below are long)

import numpy as np
import pytest

_core = pytest.importorskip("triton_tile._core")


def ptr(a):
    """An executor pointer argument: (address, nbytes) of the whole array."""
    return (a.ctypes.data, a.nbytes)


def run(p, grid, *args, threads=2):
    p.run(grid=grid, args=list(args), num_threads=threads)


def line_of(src, marker):
    """The 1-based line of `src` holding `marker` (kernels mark the ops tests name)."""
    return next(i + 1 for i, line in enumerate(src.splitlines()) if marker in line)


# Masked vector add, 256 lanes a program; `// marker:` comments name the x load and the store.
VADD = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %o: !tt.ptr<f32>, %n: i32) {
    %c = arith.constant 256 : i32
    %pid = tt.get_program_id x : i32
    %s = arith.muli %pid, %c : i32
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %ss = tt.splat %s : i32 -> tensor<256xi32>
    %off = arith.addi %ss, %r : tensor<256xi32>
    %nn = tt.splat %n : i32 -> tensor<256xi32>
    %m = arith.cmpi slt, %off, %nn : tensor<256xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %off : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %a = tt.load %xp, %m : tensor<256x!tt.ptr<f32>>  // marker: load-x
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %yp = tt.addptr %ys, %off : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %b = tt.load %yp, %m : tensor<256x!tt.ptr<f32>>
    %sum = arith.addf %a, %b : tensor<256xf32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %op = tt.addptr %os, %off : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %op, %sum, %m : tensor<256x!tt.ptr<f32>>  // marker: store-o
    tt.return
  }
}
"""


def check_vector_add_masked(p, rng, threads):
    """Run VADD's program `p` on 1000 elements (4 programs): out[:n] is x + y and the 24
    lanes past n stay untouched."""
    n = 1000
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n + 24, np.nan, np.float32)  # lanes past n must stay untouched
    run(p, (4, 1, 1), ptr(x), ptr(y), ptr(out), n, threads=threads)
    np.testing.assert_array_equal(out[:n], x + y)
    assert np.isnan(out[n:]).all(), out[n:]
