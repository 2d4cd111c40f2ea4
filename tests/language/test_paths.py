"""The `path` fixture really selects the execution path: a kernel launched under it reports
that path in its metadata (a plain vector add never needs the Tile IR fallback)."""

import warnings

import numpy as np
from tt_utils import assert_close, cdiv, numpy_random, poisoned

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _axpy_kernel(X, Y, Z, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Z + offs, a * tl.load(X + offs, mask=mask) + tl.load(Y + offs, mask=mask),
             mask=mask)


def test_kernel_runs_on_the_selected_path(path, rng):
    n = 1000
    x, y = numpy_random(n, "float32", rng), numpy_random(n, "float32", rng)
    z = poisoned(n, "float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error", triton.TileFallbackWarning)
        compiled = _axpy_kernel[(cdiv(n, 128),)](x, y, z, 2.5, n, BLOCK=128)
    assert compiled.metadata.path == path
    # a*x + y may or may not be contracted to an fma: allow the product's rounding
    assert_close(z, 2.5 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)
