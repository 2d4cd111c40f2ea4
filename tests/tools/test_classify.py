"""`python -m triton_tile.tools.classify`: one kernel per class (decided from the TTIR), the
workflow's advice, autotune configs that are valid Python, and clear errors."""

import ast
import json
import os
import subprocess
import sys
import textwrap

import pytest

from triton_tile.tools import classify

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNELS = textwrap.dedent('''
    import triton_tile as triton
    import triton_tile.language as tl


    @triton.jit
    def scale(x, factor):
        return x * factor


    @triton.jit
    def relu_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, scale(tl.maximum(x + y, 0.0), 2.0), mask=mask)


    @triton.jit
    def rmsnorm(x_ptr, out_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        rms = tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
        tl.store(out_ptr + row * stride + cols, x / rms, mask=cols < n_cols)


    @triton.jit
    def row_sum(x_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
        cols = tl.arange(0, BLOCK_C)
        ptrs = x_ptr + rows[:, None] * n_cols + cols[None, :]
        x = tl.load(ptrs, mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols), other=0.0)
        tl.store(out_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


    @triton.jit
    def small_matmul(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
        rm = tl.arange(0, BLOCK_M)
        rn = tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])
        b = tl.load(b_ptr + rk[:, None] * BLOCK_N + rn[None, :])
        tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], tl.dot(a, b))
''')

EXPECTED = {"relu_add": "element-wise", "rmsnorm": "norm-like", "row_sum": "reduction",
            "small_matmul": "dot-related"}


@pytest.fixture(scope="module")
def kernels_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("classify") / "kernels.py"
    path.write_text(KERNELS)
    return str(path)


def _json(capsys, *argv):
    rc = classify.main([*argv, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def _check_configs(source: str):
    ast.parse(source)
    ns = {}
    exec(compile(source, "<configs>", "exec"), ns)
    configs = ns["tileir_configs"](pre_hook=None)
    assert configs and all(c.occupancy for c in configs)
    return configs


# Occupancies that won on the GPU (benchmarks/RESULTS.md: H100 and H200, tileiras 13.4): the
# matmuls 2, the TMA matmul 1, layer norm 4, softmax 8 (its default) and 16 (tuned against
# stock Triton's best). The configs classify prints for a class must include them (issue 14:
# the tuner finds the winners).
MEASURED_WINNERS = {"dot-related": {1, 2}, "norm-like": {4, 8, 16}}
# Block shapes (M, N, K) that won the small GEMMs: 512^3 and 1024^3 on an H100 (2026-11-25),
# 1024^3 on an H200 (64x256x32, 2026-11-26), 512^3 and 1024^3 on an H100 (64x64x64,
# 2026-11-26); and the large ones: 4096^3 and 8192^3 on an H100 (128x256x64, 2026-11-26).
MEASURED_DOT_BLOCKS = {(64, 64, 32), (128, 64, 32), (64, 256, 32), (64, 64, 64), (128, 256, 64)}
# Whole configs (M, N, K, num_stages, occupancy) that won: fp16 and bf16 4096^3 and 8192^3 on
# an H100, fp8 (K-major B) 4096^3 and 8192^3 there, and the small GEMMs at one CTA per SM,
# 512^3 (64x64x128) and 1024^3 (128x64x64 at 4 stages) there (2026-11-26); 1024^3 at 64x128x64,
# 4 stages (H100, the face-off tables of 2026-11-27); 1024^3 at 64x128x128, 3 stages (H200,
# 2026-11-30).
MEASURED_DOT_CONFIGS = {(128, 256, 64, 4, 1), (128, 256, 128, 4, 1), (256, 128, 128, 4, 1),
                        (64, 64, 128, 3, 1), (128, 64, 64, 4, 1), (64, 128, 64, 4, 1),
                        (64, 128, 128, 3, 1)}


def test_configs_include_the_occupancies_that_won_on_the_gpu():
    for kind, won in MEASURED_WINNERS.items():
        assert won <= set(classify.STRATEGY[kind][2]), kind


def test_dot_configs_include_the_block_shapes_that_won_on_the_gpu(kernels_file, capsys):
    rc, out = _json(capsys, kernels_file)
    assert rc == 0
    k = next(k for k in out["kernels"] if k["kernel"] == "small_matmul")
    configs = _check_configs(k["autotune_configs"])
    shapes = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"]) for c in configs}
    assert MEASURED_DOT_BLOCKS <= shapes, shapes
    full = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"], c.num_stages,
             c.occupancy) for c in configs}
    assert MEASURED_DOT_CONFIGS <= full, full
    # 8 worker warps, and 4 only for a 128x128 accumulator at occupancy 1: the 128x256 tile
    # spills at fewer
    four = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.occupancy) for c in configs
            if c.num_warps == 4}
    assert four == {(128, 128, 1)}, four
    assert {c.num_warps for c in configs} == {4, 8}


# The descriptor matmuls' winners (M, N, K, num_stages, occupancy, num_warps), H100, 2026-11-27
# (benchmarks/RESULTS.md, 12:30): the one-tile kernel at 128x256x64, 5 stages (tileiras 13.4);
# the persistent one at 128x128x64, 4 stages, 4 warps (13.4) and at 128x256x64, 5 stages (13.5).
MEASURED_DESC_CONFIGS = {
    "matmul_desc_kernel": {(128, 256, 64, 5, 1, 8), (128, 256, 64, 4, 1, 8)},
    "matmul_tma_kernel": {(128, 128, 64, 4, 1, 4), (128, 256, 64, 5, 1, 8)},
}


@pytest.mark.parametrize("name", sorted(MEASURED_DESC_CONFIGS))
def test_descriptor_matmul_configs_include_the_winners(name, capsys):
    rc, out = _json(capsys, os.path.join(ROOT, "examples", "matmul_tma.py"), "--kernel", name)
    assert rc == 0
    k = out["kernels"][0]
    assert k["class"] == "dot-related"
    full = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"], c.num_stages,
             c.occupancy, c.num_warps) for c in _check_configs(k["autotune_configs"])}
    assert MEASURED_DESC_CONFIGS[name] <= full, sorted(full)


def test_persistent_matmul_configs_tune_the_loop_as_written(capsys):
    """Tutorial 09's persistent pointer matmul runs its loop as a grid of tiles by default, but
    won as the loop at 128x256x64, 4 stages, occupancy 1, 8 warps (676.6 against 632.1 TFLOP/s,
    H200, benchmarks/RESULTS.md, 2026-11-29 19:25): both forms must be tried. A kernel without
    a persistent loop gets no such twin."""
    rc, out = _json(capsys, os.path.join(ROOT, "examples", "matmul.py"))
    assert rc == 0
    got = {k["kernel"]: k for k in out["kernels"]}
    persistent = got["matmul_persistent_kernel"]
    assert persistent["facts"]["persistent_loop"] is True
    configs = _check_configs(persistent["autotune_configs"])
    full = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"], c.num_stages,
             c.occupancy, c.num_warps, c.grid_stride) for c in configs}
    assert {(128, 256, 64, 4, 1, 8, False), (128, 256, 64, 4, 1, 8, None)} <= full, full
    assert all(c.occupancy == 1 for c in configs if c.grid_stride is False)
    assert any("grid_stride=False" in a for a in persistent["advice"])
    plain = got["matmul_kernel"]
    assert "persistent_loop" not in plain["facts"]
    assert "grid_stride" not in plain["autotune_configs"]


def test_attention_backward_configs_include_the_winner(capsys):
    """Attention backward with dQ by atomics won at BLOCK_M1 64, BLOCK_N1 128, 3 stages,
    occupancy 1, 8 warps on both sides (H100, benchmarks/RESULTS.md, 2026-11-26 18:45)."""
    rc, out = _json(capsys, os.path.join(ROOT, "examples", "fused_attention_bwd.py"), "--kernel",
                    "attn_bwd_atomic_kernel")
    assert rc == 0
    k = out["kernels"][0]
    assert k["class"] == "dot-related"
    configs = _check_configs(k["autotune_configs"])
    full = {(c.kwargs["BLOCK_M1"], c.kwargs["BLOCK_N1"], c.num_stages, c.occupancy, c.num_warps)
            for c in configs}
    assert (64, 128, 3, 1, 8) in full, full


def test_attention_forward_configs_include_the_winner_and_only_shapes_that_compile(capsys):
    """Attention forward won at 128x128 and 2 stages (H100, benchmarks/RESULTS.md, 2026-11-26:
    526.7-550.4 TFLOP/s in three runs). Its kernel asserts BLOCK_M % BLOCK_N == 0, so a
    64x128 config cannot run: it is left out, with the reason, instead of printed."""
    path = os.path.join(ROOT, "examples", "fused_attention.py")
    rc, out = _json(capsys, path, "--kernel", "attn_fwd_kernel")
    assert rc == 0
    source = out["kernels"][0]["autotune_configs"]
    with open(path) as f:
        line = next(i for i, text in enumerate(f, 1) if "tl.static_assert(BLOCK_M %" in text)
    configs = _check_configs(source)
    shapes = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"]) for c in configs}
    assert (128, 128) in shapes and all(m % n == 0 for m, n in shapes), shapes
    full = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.num_stages, c.occupancy)
            for c in configs}
    assert (128, 128, 2, 1) in full, full
    # and 128x64 at 4 warps, 3 stages, occupancy 2: the winner on an H200 (2026-11-29 19:25)
    warps = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.num_stages, c.occupancy, c.num_warps)
             for c in configs}
    assert (128, 64, 3, 2, 4) in warps, warps
    assert ('left out, the kernel does not compile there: {"BLOCK_M": 64, "BLOCK_N": 128} '
            f'(fused_attention.py:{line}: static_assert failed: '
            'tl.static_assert(BLOCK_M % BLOCK_N == 0))') in source


def test_one_dot_kernels_do_not_try_two_stages(kernels_file, capsys):
    rc, out = _json(capsys, kernels_file)
    k = next(k for k in out["kernels"] if k["kernel"] == "small_matmul")
    configs = _check_configs(k["autotune_configs"])
    assert {c.num_stages for c in configs} == {3, 4, 5}
    # 5 stages only for accumulators of 128x256 or more, at occupancy 1
    assert all(c.kwargs["BLOCK_M"] * c.kwargs["BLOCK_N"] >= 128 * 256 and c.occupancy == 1
               for c in configs if c.num_stages == 5)


def test_one_kernel_per_class(kernels_file, capsys):
    rc, out = _json(capsys, kernels_file)
    assert rc == 0
    got = {k["kernel"]: k for k in out["kernels"]}
    assert set(got) == set(EXPECTED)  # `scale` is a helper the others call: not a kernel
    for name, kind in EXPECTED.items():
        k = got[name]
        assert k["class"] == kind, (name, k["evidence"])
        assert k["evidence"] and k["advice"]
        assert any("seed-tileir-optimization-workflow" in a for a in k["advice"])
        configs = _check_configs(k["autotune_configs"])
        occupancies = {c.occupancy for c in configs}
        assert occupancies == set(classify.STRATEGY[kind][2])
    assert got["small_matmul"]["evidence"][0]["op"] == "tt.dot"
    assert "kernels.py:" in got["small_matmul"]["evidence"][0]["at"]
    assert any("TMA" in a and "MANDATORY" in a for a in got["small_matmul"]["advice"])
    assert any("num_ctas=2" in a for a in got["small_matmul"]["advice"])
    assert "num_ctas=2" in got["small_matmul"]["autotune_configs"]
    assert got["rmsnorm"]["evidence"][0]["op"] == "tt.reduce"
    assert "arith.divf" in got["rmsnorm"]["evidence"][0]["detail"]
    # the inferred signature: pointers through `+` into tl.load/tl.store, the rest i32
    assert got["rmsnorm"]["signature"] == {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                           "stride": "i32", "n_cols": "i32", "eps": "i32"}
    assert got["relu_add"]["constexprs"] == {"BLOCK": 64}


def test_signature_constexprs_and_text_output(kernels_file, capsys):
    rc = classify.main([kernels_file, "--kernel", "row_sum", "--signature",
                        '{"x_ptr": "*fp16", "n_cols": "i64"}', "--constexprs",
                        '{"BLOCK_R": 4, "BLOCK_C": 128}'])
    text = capsys.readouterr().out
    assert rc == 0
    assert text.startswith("row_sum (") and ": reduction" in text.splitlines()[0]
    assert '"x_ptr": "*fp16"' in text and '"BLOCK_C": 128' in text
    assert "tensor<4x128xf16>" in text  # the IR those values give
    assert "def tileir_configs(pre_hook=None):" in text


@pytest.mark.parametrize("example, kind", [
    ("vector_add.py", "element-wise"), ("fused_softmax.py", "norm-like"),
    ("layer_norm.py", "norm-like"), ("matmul.py", "dot-related"),
    ("matmul_tma.py", "dot-related"), ("fused_attention.py", "dot-related")])
def test_examples(example, kind, capsys):
    rc, out = _json(capsys, os.path.join(ROOT, "examples", example))
    # matmul_tma.py and matmul.py have a persistent kernel beside the one-tile-per-program one
    two = ("matmul_tma.py", "matmul.py")
    assert rc == 0 and len(out["kernels"]) == (2 if example in two else 1)
    assert all(k["class"] == kind for k in out["kernels"])
    k = out["kernels"][0]
    _check_configs(k["autotune_configs"])
    if example == "matmul_tma.py":  # descriptors found, shaped by the config's pre_hook
        assert k["signature"]["a_desc"] == "tensordesc<fp32[64, 32]>"
        assert k["facts"]["dot_operands_via"] == ["TMA descriptors"]
        assert "pre_hook=tma_set_block_size_hook" in k["autotune_configs"]
    if example == "fused_attention.py":  # M is a pointer there (stored through)
        assert k["signature"]["M"].startswith("*") and k["signature"]["H"] == "i32"


def test_bad_input_is_a_clear_error(kernels_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        classify.main([str(tmp_path / "missing.py")])
    assert e.value.code == 2 and "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        classify.main([kernels_file, "--kernel", "nope"])
    assert "no @jit function named 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        classify.main([kernels_file, "--kernel", "rmsnorm", "--constexprs", '{"BLOK": 1}'])
    assert "--constexprs: BLOK is not a tl.constexpr parameter of rmsnorm" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit):
        classify.main([kernels_file, "--signature", "{x"])
    assert "--signature: not valid JSON" in capsys.readouterr().err


def test_kernel_that_does_not_compile_says_how_to_fix(kernels_file, capsys):
    rc, out = _json(capsys, kernels_file, "--kernel", "relu_add", "--signature",
                    '{"x_ptr": "i32"}')
    assert rc == 1
    k = out["kernels"][0]
    assert k["class"] is None and k["error"] and "--signature" in k["hint"]


def test_module_entry_point(kernels_file):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-m", "triton_tile.tools.classify", kernels_file,
                          "--kernel", "rmsnorm"], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "rmsnorm (" in out.stdout and "norm-like" in out.stdout


INTEGER_KERNELS = textwrap.dedent('''
    import triton_tile as triton
    import triton_tile.language as tl


    @triton.jit
    def sort_kernel(x_ptr, out_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs)))


    @triton.jit
    def hist_kernel(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(tl.load(x_ptr + offs), BINS))


    @triton.jit
    def gather_kernel(idx_ptr, x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        i = tl.load(idx_ptr + offs, mask=offs < n)
        tl.store(out_ptr + offs, tl.load(x_ptr + i, mask=offs < n), mask=offs < n)


    @triton.jit
    def bits_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(out_ptr + offs, (v >> 4) & 0xF, mask=offs < n)
''')


def test_pointers_whose_values_are_integers_are_inferred_int(tmp_path, capsys):
    # Issue 12: every pointer was *fp32, so gathers, bit twiddling and histograms failed.
    path = tmp_path / "ints.py"
    path.write_text(INTEGER_KERNELS)
    rc, out = _json(capsys, str(path))
    assert rc == 0, out
    by = {k["kernel"]: k for k in out["kernels"]}
    assert by["gather_kernel"]["signature"]["idx_ptr"] == "*i32"
    assert by["gather_kernel"]["signature"]["x_ptr"] == "*fp32"
    assert by["bits_kernel"]["signature"]["x_ptr"] == "*i32"
    assert by["hist_kernel"]["signature"]["x_ptr"] == "*i32"
    # Histograms and sorts work across the block: reductions, not element-wise.
    assert by["hist_kernel"]["class"] == "reduction"
    assert any(e["op"] == "tt.histogram" for e in by["hist_kernel"]["evidence"])
    assert by["sort_kernel"]["class"] == "reduction"
    assert by["gather_kernel"]["class"] == by["bits_kernel"]["class"] == "element-wise"


def test_piped_into_head_prints_no_traceback(kernels_file):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "triton_tile.tools.classify", kernels_file,
                             "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)  # `| head -c 10`: read a little, then go away
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_element_wise_configs_each_compile_other_code(kernels_file, capsys):
    """On the Tile path num_stages reaches only kernels with dots (tile_stage.tile_options),
    so element-wise configs vary occupancy alone: two configs that differ in num_stages would
    compile the same kernel and autotuning would time it twice."""
    from triton_tile.backends import cpu
    from triton_tile.compiler import tile_stage

    rc, out = _json(capsys, kernels_file)
    k = next(k for k in out["kernels"] if k["kernel"] == "relu_add")
    configs = _check_configs(k["autotune_configs"])
    knobs = [(json.dumps(c.kwargs, sort_keys=True), c.occupancy) for c in configs]
    assert len(set(knobs)) == len(knobs) == len(classify.STRATEGY["element-wise"][2])
    ttir = "tt.func public @k() {\n  tt.return\n}"  # a kernel without dots
    stages = {tile_stage.tile_options(cpu.CPUOptions(num_stages=n), ttir_text=ttir).num_stages
              for n in (2, 3, 4)}
    assert stages == {0}


def test_tables_of_addresses_and_sizes_are_integers(capsys):
    """A grouped GEMM reads its operands' addresses from int64 tables (`tl.load(A_PTRS +
    g).to(tl.pointer_type(...))`) and its sizes and strides from int32 ones (tl.cdiv,
    tl.multiple_of, a descriptor's shape and strides). Inferred as float pointers, neither
    kernel compiled: 'cannot cast tensor<fp32> to pointer<fp16>'."""
    rc, out = _json(capsys, os.path.join(ROOT, "examples", "grouped_gemm.py"))
    assert rc == 0
    got = {k["kernel"]: k for k in out["kernels"]}
    assert set(got) == {"grouped_matmul_kernel", "grouped_matmul_desc_kernel"}
    for k in got.values():
        assert k["class"] == "dot-related", k.get("error")
        sig = k["signature"]
        assert (sig["A_PTRS"], sig["B_PTRS"], sig["C_PTRS"]) == ("*i64",) * 3, sig
        assert (sig["SIZES"], sig["LDS"], sig["GROUP_SIZE"]) == ("*i32", "*i32", "i32"), sig
