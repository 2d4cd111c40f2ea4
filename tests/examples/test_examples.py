"""Run every example in examples/ on small (odd) sizes and check it against numpy, and check
the demo() contract that `python -m triton_tile.demo` relies on."""

import importlib.util
import math
import os
import sys

import pytest

EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
NAMES = ["vector_add", "fused_softmax", "matmul", "layer_norm", "fused_attention", "matmul_tma",
         "fused_attention_bwd",
         pytest.param("grouped_gemm",
                      marks=pytest.mark.cpu_only("the pointer tables hold host addresses")),
         "stencil"]


def load(name):
    key = f"triton_tile_example_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, os.path.join(EXAMPLES_DIR, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[key] = mod
    spec.loader.exec_module(mod)
    return mod


def _assert_ok(result, what):
    correct, err, _ = result
    assert correct, f"{what}: max abs error {err}"


@pytest.mark.parametrize("n", [1, 1000, 98_432])
def test_vector_add(n):
    _assert_ok(load("vector_add").check(n), f"vector_add n={n}")


@pytest.mark.parametrize("rows, cols", [(1, 1), (37, 45), (123, 781), (16, 1024)])
def test_fused_softmax(rows, cols):
    _assert_ok(load("fused_softmax").check(rows, cols), f"softmax {rows}x{cols}")


def test_fused_softmax_strided_rows():
    mod = load("fused_softmax")
    import numpy as np

    x = np.random.default_rng(3).standard_normal((50, 200)).astype(np.float32)[::2, :150]
    out, _ = mod.softmax(x)
    assert np.allclose(out, mod.reference(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("m, n, k, num_sms, block", [
    (200, 136, 100, 4, (64, 64, 32)),  # more tiles than programs, tiles past the edges
    (64, 64, 32, 1, (64, 64, 32)),  # one program, one tile
    (333, 129, 77, 7, (64, 64, 32)),
    (130, 300, 64, 3, (32, 64, 32))])
def test_matmul_persistent(m, n, k, num_sms, block, path):
    """Tutorial 09's persistent form (on the Tile path its loop over tiles runs as a grid of
    tiles: csrc/passes/grid_stride_loops.cpp)."""
    result = load("matmul").check_persistent(m, n, k, num_sms, block)
    _assert_ok(result, f"matmul_persistent {m}x{n}x{k} on {num_sms} programs {block}")
    assert ("grid" in result[2].asm) == (path == "tile")


@pytest.mark.parametrize("m, n, k, activation, transpose_b", [
    (200, 136, 100, "", False), (64, 64, 64, "leaky_relu", False), (37, 45, 29, "", True)])
def test_matmul(m, n, k, activation, transpose_b):
    _assert_ok(load("matmul").check(m, n, k, activation, transpose_b),
               f"matmul {m}x{n}x{k} {activation} transpose_b={transpose_b}")


@pytest.mark.parametrize("m, n, block", [(37, 1151, 256), (5, 64, 64), (8, 3000, 1024)])
def test_layer_norm(m, n, block):
    _assert_ok(load("layer_norm").check(m, n, block_size=block), f"layer_norm {m}x{n}")


def test_layer_norm_fp32():
    import numpy as np

    _assert_ok(load("layer_norm").check(13, 333, dtype=np.float32, block_size=128),
               "layer_norm fp32")


@pytest.mark.parametrize("causal", [False, True])
# (N_CTX 64: whole blocks, the kernel's EVEN form; 96: whole key blocks but not query blocks)
@pytest.mark.parametrize("z, h, n_ctx, d", [(1, 2, 100, 64), (2, 1, 64, 32), (1, 1, 96, 32)])
def test_fused_attention(causal, z, h, n_ctx, d):
    _assert_ok(load("fused_attention").check(z, h, n_ctx, d, causal=causal),
               f"attention Z={z} H={h} N={n_ctx} D={d} causal={causal}")


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("z, h, n_ctx, d, blocks", [
    (1, 2, 100, 32, {}), (2, 1, 67, 16, {}),
    (1, 1, 150, 64, dict(block_m1=16, block_n1=64, block_m2=64, block_n2=32))])
def test_fused_attention_bwd(causal, z, h, n_ctx, d, blocks, rng):
    """dQ, dK, dV (and Delta) against float64 on fresh inputs; outputs start as NaN."""
    seed = int(rng.integers(1 << 31))
    _assert_ok(load("fused_attention_bwd").check(z, h, n_ctx, d, causal=causal, seed=seed,
                                                 **blocks),
               f"attention bwd Z={z} H={h} N={n_ctx} D={d} causal={causal} {blocks}")


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("z, h, n_ctx, d, blocks", [
    (1, 2, 100, 32, {}), (2, 1, 67, 16, dict(block_m1=32, block_n1=32)),
    (1, 1, 150, 64, dict(block_m1=16, block_n1=64)),
    # persistent: fewer programs than work items (8), one program, more programs than items
    (2, 2, 67, 16, dict(block_m1=16, block_n1=32, num_programs=3)),
    (1, 2, 100, 32, dict(num_programs=1)),
    (1, 1, 150, 64, dict(block_m1=16, block_n1=64, num_programs=7))])
def test_fused_attention_bwd_atomic(causal, z, h, n_ctx, d, blocks, rng):
    """The 5-matmul form: dQ's terms added with atomics to a float32 accumulator that
    starts as NaN (its preprocess must zero it), against float64 on fresh inputs; one
    program per key block and head, or a persistent grid."""
    seed = int(rng.integers(1 << 31))
    _assert_ok(load("fused_attention_bwd").check(z, h, n_ctx, d, causal=causal, seed=seed,
                                                 atomic=True, **blocks),
               f"attention bwd atomic Z={z} H={h} N={n_ctx} D={d} causal={causal} {blocks}")


@pytest.mark.cpu_only("the pointer tables hold host addresses")
@pytest.mark.parametrize("anchored", ["desc", "all"])
@pytest.mark.parametrize("even", [False, True])
@pytest.mark.parametrize("num_programs, blocks", [
    (5, {}), (1, {}), (64, {}), (3, dict(block_m=16, block_n=32, block_k=16))])
def test_grouped_gemm(even, num_programs, blocks, anchored, rng, monkeypatch):
    """Problems of different sizes in one persistent launch (fewer programs than tiles, one
    program, more programs than tiles): odd sizes, or whole tiles (the EVEN kernel: no masks,
    alignment hints); outputs start as NaN. On the Tile path the K loop's loads use a view per
    access (desc: only descriptors' views are made where their tensor is), or (all) one view
    per tile whose base is the tile's corner (index_views.h)."""
    monkeypatch.setenv("TRITON_TILE_ANCHORED_VIEWS", anchored)
    mod = load("grouped_gemm")
    problems = mod.EVEN_PROBLEMS if even else mod.PROBLEMS
    seed = int(rng.integers(1 << 31))
    _assert_ok(mod.check(problems, num_programs=num_programs, seed=seed, **blocks),
               f"grouped_gemm even={even} num_programs={num_programs} {blocks}")


@pytest.mark.cpu_only("the pointer tables hold host addresses")
@pytest.mark.parametrize("anchored", ["desc", "off"])
@pytest.mark.parametrize("num_programs, blocks", [
    (5, {}), (1, {}), (64, {}), (3, dict(block_m=16, block_n=32, block_k=16))])
def test_grouped_gemm_through_descriptors(num_programs, blocks, anchored, rng, monkeypatch):
    """The descriptor kernel (tensor descriptors made in the kernel, once per problem) over
    partial tiles in every dimension; outputs start as NaN. On the Tile path its loops index
    views made per problem, or (off: what a GPU compile falls back to where tileiras rejects
    those) a view per access."""
    monkeypatch.setenv("TRITON_TILE_ANCHORED_VIEWS", anchored)
    mod = load("grouped_gemm")
    seed = int(rng.integers(1 << 31))
    _assert_ok(mod.check(mod.DESC_PROBLEMS, num_programs=num_programs, seed=seed, desc=True,
                         **blocks),
               f"grouped_gemm desc num_programs={num_programs} {blocks}")


def test_grouped_gemm_whole_tiles():
    """EVEN only where every size is a multiple of its block, every row aligned."""
    import numpy as np

    mod = load("grouped_gemm")

    def tables(m, n, k, offset=0):
        a = mod._aligned(np.ones((m, k + offset), np.float16))[:, offset:]
        return mod.group_tables([a], [mod._aligned(np.ones((k, n), np.float16))],
                                [mod._aligned(np.ones((m, n), np.float16))])

    assert mod.whole_tiles(tables(64, 32, 48), 32, 32, 16)
    assert not mod.whole_tiles(tables(64, 32, 40), 32, 32, 16)  # K
    assert not mod.whole_tiles(tables(64, 40, 48), 32, 32, 16)  # N
    assert not mod.whole_tiles(tables(64, 32, 48, offset=1), 32, 32, 16)  # A's address, lda


@pytest.mark.parametrize("name", NAMES)
def test_demo_contract(name):
    r = load(name).demo(quick=True)
    assert r["kernel"] == name
    assert r["correct"] is True
    assert r["unit"] in ("GB/s", "GFLOP/s")
    assert isinstance(r["size"], str) and r["size"]
    assert r["ms"] > 0 and math.isfinite(r["ms"])
    assert r["metric"] > 0 and math.isfinite(r["metric"])


@pytest.mark.parametrize("m, n, k", [(200, 136, 96), (64, 64, 64), (33, 264, 80)])
def test_matmul_tma_persistent(m, n, k):
    """Host descriptors whose block shapes an autotune pre_hook sets per config."""
    _assert_ok(load("matmul_tma").check(m, n, k), f"matmul_tma {m}x{n}x{k}")


@pytest.mark.parametrize("m,n,k", [(200, 136, 96), (64, 64, 64), (72, 40, 200)])
def test_matmul_tma_one_tile_per_program(m, n, k):
    _assert_ok(load("matmul_tma").check_tiles(m, n, k), f"matmul_desc {m}x{n}x{k}")


@pytest.mark.parametrize("group_m", [1, 2, 3])
@pytest.mark.parametrize("extra_programs", [0, 5])
def test_matmul_tma_tiles_in_groups_of_rows(group_m, extra_programs):
    """Grouped tile order with 7 tile rows: groups of 1 (row-major), 2 and 3 rows, the last group
    short; every tile is written once (the output starts as NaN); programs past the last tile
    write nothing."""
    _assert_ok(load("matmul_tma").check_tiles(200, 136, 96, block=(32, 32, 32), group_m=group_m,
                                              extra_programs=extra_programs),
               f"matmul_desc group_m={group_m} extra_programs={extra_programs}")


def test_matmul_tma_rejects_unaligned_strides():
    # TMA needs 16-byte aligned leading strides: 257 fp16 columns are 514 bytes.
    with pytest.raises(ValueError, match="multiple of 16"):
        load("matmul_tma").check(33, 257, 80)


@pytest.mark.parametrize("m, n", [(1, 1), (2, 3), (37, 45), (300, 517), (64, 256)])
def test_stencil(m, n):
    _assert_ok(load("stencil").check(m, n), f"stencil {m}x{n}")


def test_stencil_taps_are_gathers_and_its_store_a_view(path):
    """Each tap's mask tests its lanes from below: on the Tile path the five loads stay gathers
    (on an H100 they ran at 2618 GB/s, as views behind a branch 401, raise_views.cpp), and the
    store, tested from above only, is a view."""
    mod = load("stencil")
    correct, err, k = mod.check(70, 300)
    assert correct, err
    if path == "tile":
        views = [(a[2], "lower bound" in a[3]) for a in k.metadata.tile_accesses]
        assert views == [(False, True)] * 5 + [(True, False)], k.metadata.tile_accesses
