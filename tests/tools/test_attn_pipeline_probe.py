"""benchmarks/attn_pipeline_probe.py's two kernels, launched as the probe launches them: its
pipelined attention (the next key block's scores issued before this block's softmax) and the
example's, each against the float64 reference on both CPU paths, so that what the probe times
on a GPU is the same attention."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
import attn_pipeline_probe as probe  # noqa: E402
import fused_attention as fa  # noqa: E402


@pytest.mark.parametrize("kernel", ["pipelined", "example"])
@pytest.mark.parametrize("tile", [True, False], ids=["tile", "ptx"])
def test_both_kernels_match_the_reference(kernel, tile):
    z, h, n, d = 1, 2, 192, 32  # three key blocks of 64: the last iteration's wrap is unused
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((z, h, n, d)).astype(np.float16) for _ in range(3))
    scale = d ** -0.5
    ref, lse2 = fa.reference(q, k, v, False, scale)
    o = np.full_like(q, np.nan)
    m = np.full((z, h, n), np.nan, np.float32)
    fn = probe.attn_fwd_pipe if kernel == "pipelined" else fa.attn_fwd_kernel
    probe.launch(fn, q, k, v, scale, m, o, 64, 64, enable_tile=tile)
    assert np.abs(o.astype(np.float64) - ref).max() < 2e-3
    np.testing.assert_allclose(m, lse2, atol=1e-3)  # the row's log-sum-exp, base 2
