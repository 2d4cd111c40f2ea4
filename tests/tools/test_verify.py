"""`python -m triton_tile.tools.verify`: a correct kernel passes on both paths, a wrong one
fails with a nonzero exit and its error, bad command lines name the bad option."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from triton_tile.tools import verify

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNELS = textwrap.dedent('''
    import numpy as np

    import triton_tile as triton
    import triton_tile.language as tl


    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs,
                 mask=mask), mask=mask)


    @triton.jit
    def wrong_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) - tl.load(y_ptr + offs,
                 mask=mask), mask=mask)


    @triton.jit
    def half_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n // 2  # leaves the upper half unwritten
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs,
                 mask=mask), mask=mask)


    @triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 128},
                                                                         occupancy=2)],
                     key=["n_rows"])
    @triton.jit
    def row_stats(x_ptr, mean_ptr, max_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        top = tl.full([BLOCK], float("-inf"), tl.float32)
        for start in range(0, n_cols, BLOCK):
            x = tl.load(x_ptr + row * stride + start + cols, mask=start + cols < n_cols,
                        other=0.0).to(tl.float32)
            acc += x
            top = tl.maximum(top, tl.where(start + cols < n_cols, x, float("-inf")))
        tl.store(mean_ptr + row, tl.sum(acc, axis=0) / n_cols)
        tl.store(max_ptr + row, tl.max(top, axis=0))


    def reference(x):
        return x.mean(1), x.max(1)


    @triton.jit
    def hist(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
        # 2^21 compares: the Tile path falls back to the PTX path
        tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(tl.load(x_ptr + tl.arange(0, N)),
                                                             BINS))


    def histo(x):
        x = x.astype(np.int64)
        return np.bincount(x[(x >= 0) & (x < 1024)], minlength=1024)
''')

ADD = ["--shapes", '{"x_ptr": [1000], "y_ptr": [1000], "out_ptr": [1000]}',
       "--args", '{"n": "x_ptr.size"}', "--constexprs", '{"BLOCK": 128}',
       "--grid", "[cdiv(n, BLOCK)]", "--reference", "x + y"]


@pytest.fixture(scope="module")
def kfile(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "kernels.py"
    path.write_text(KERNELS)
    return str(path)


def _run(capsys, *argv):
    rc = verify.main([*argv, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_correct_kernel_passes_on_both_paths(kfile, capsys):
    rc, out = _run(capsys, "--kernel", f"{kfile}:add", *ADD)
    assert rc == 0 and out["passed"]
    assert out["outputs"] == ["out_ptr"]  # found from the TTIR's stores
    assert [r["path"] for r in out["results"]] == ["ptx", "tile"]
    assert out["results"][1]["taken"] == "tile"
    for r in out["results"]:
        c = r["outputs"]["out_ptr"]
        assert c["passed"] and c["nan"] == 0 and c["max_abs"] < 1e-6


def test_wrong_kernel_fails_with_its_error(kfile, capsys):
    rc, out = _run(capsys, "--kernel", f"{kfile}:wrong_add", *ADD)
    assert rc == 1 and not out["passed"]
    for r in out["results"]:
        c = r["outputs"]["out_ptr"]
        assert not c["passed"] and c["max_abs"] > 0.1
    rc = verify.main(["--kernel", f"{kfile}:wrong_add", *ADD, "--paths", "tile"])
    text = capsys.readouterr().out
    assert rc == 1 and "FAIL" in text and "tile" in text and "ptx " not in text


def test_unwritten_output_is_reported(kfile, capsys):
    rc = verify.main(["--kernel", f"{kfile}:half_add", *ADD])
    text = capsys.readouterr().out
    assert rc == 1 and "500 element(s) NaN (never written?)" in text


def test_autotuned_kernel_every_config_two_outputs(kfile, capsys):
    rc, out = _run(capsys, "--kernel", f"{kfile}:row_stats", "--shapes",
                   '{"x_ptr": [7, 300], "mean_ptr": [7], "max_ptr": [7]}', "--dtypes",
                   '{"x_ptr": "float16"}', "--args",
                   '{"n_rows": "x_ptr.shape[0]", "n_cols": "x_ptr.shape[1]", '
                   '"stride": "stride(x_ptr, 0)"}', "--grid", "[n_rows]",
                   "--reference", "reference(x)")  # the file's own reference()
    assert rc == 0, out
    assert out["outputs"] == ["mean_ptr", "max_ptr"]
    assert len(out["results"]) == 4  # 2 configs x 2 paths
    assert "BLOCK: 128" in out["results"][2]["config"]


def test_vector_add_example(capsys):
    rc = verify.main(["--kernel", os.path.join(ROOT, "examples", "vector_add.py"), "--shapes",
                      '{"x_ptr": [5000], "y_ptr": [5000], "out_ptr": [5000]}', "--args",
                      '{"n_elements": "x_ptr.size"}', "--constexprs", '{"BLOCK_SIZE": 1024}',
                      "--grid", "[cdiv(n_elements, BLOCK_SIZE)]", "--reference", "x + y"])
    text = capsys.readouterr().out
    assert rc == 0 and text.rstrip().endswith("PASS")


@pytest.mark.parametrize("change, message", [
    (("--shapes", "{x"), "--shapes: not valid JSON"),
    (("--shapes", '{"x_ptr": [1000], "y_ptr": [1000]}'),
     "--shapes: out_ptr of add is a pointer and needs a shape"),
    (("--shapes", '{"x_ptr": [1000], "y_ptr": [1000], "out_ptr": [1000], "z": [3]}'),
     "--shapes: z: not a parameter of add"),
    (("--shapes", '{"x_ptr": "big", "y_ptr": [1000], "out_ptr": [1000]}'),
     "--shapes: x_ptr: expected a list of non-negative ints"),
    (("--args", "{}"), "--args: the scalar parameter 'n' of add needs a value"),
    (("--args", '{"n": "x_ptr.sise"}'), "--args: n: 'x_ptr.sise' failed: AttributeError"),
    (("--dtypes", '{"x_ptr": "float17"}'), "--dtypes: x_ptr: 'float17' is not a dtype"),
    (("--constexprs", "{}"), "--constexprs: the tl.constexpr parameter 'BLOCK' of add "
                             "needs a value"),
    (("--grid", "[cdiv(n,"), "--grid: neither JSON nor a Python expression"),
    (("--grid", "[0.5]"), "--grid: expected 1 to 3 non-negative ints"),
    (("--reference", "x +* y"), "--reference: not a Python expression"),
    (("--reference", "{'out': x}"), "--reference: the dict has no entry for out_ptr"),
    (("--reference", "x[:10]"), "--reference: the value for out_ptr (shape (10,)) does not "
                                "fit its shape (1000,)"),
    (("--outputs", "n"), "--outputs: n: not an array parameter"),
    (("--paths", "gpu"), "--paths: 'gpu': expected ptx, tile or ptx,tile"),
])
def test_bad_cli_input_names_the_option(kfile, capsys, change, message):
    argv = list(ADD)
    if change[0] in argv:
        argv[argv.index(change[0]) + 1] = change[1]
    else:
        argv += list(change)
    with pytest.raises(SystemExit) as e:
        verify.main(["--kernel", f"{kfile}:add", *argv])
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_kernel_selection_errors(kfile, capsys):
    with pytest.raises(SystemExit):
        verify.main(["--kernel", kfile, *ADD])
    assert "has several kernels" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        verify.main(["--kernel", f"{kfile}:nope", *ADD])
    assert "--kernel: no @jit function named 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        verify.main(["--kernel", f"{kfile}:add", *[a for a in ADD if a not in (
            "--grid", "[cdiv(n, BLOCK)]")]])
    assert "--grid: required" in capsys.readouterr().err


@pytest.mark.parametrize("source, message", [
    ("def f(:\n    pass\n", "importing it failed: SyntaxError"),
    ("import no_such_module_here\n", "importing it failed: ModuleNotFoundError"),
    ("x = 1\n", "no @jit kernels found"),
])
def test_a_kernel_file_that_is_no_kernel_file(tmp_path, capsys, source, message):
    """A usage error naming the file (exit status 2), as classify gives; verify printed a
    traceback for the first two and 'has several kernels ()' for the last."""
    path = tmp_path / "not_kernels.py"
    path.write_text(source)
    with pytest.raises(SystemExit) as e:
        verify.main(["--kernel", str(path), *ADD])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"--kernel: {path}: {message}" in err and "Traceback" not in err


def test_module_entry_point_exit_status(kfile):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = [sys.executable, "-m", "triton_tile.tools.verify"]
    ok = subprocess.run(run + ["--kernel", f"{kfile}:add", *ADD], env=env,
                        capture_output=True, text=True, timeout=300)
    bad = subprocess.run(run + ["--kernel", f"{kfile}:wrong_add", *ADD], env=env,
                         capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert bad.returncode == 1 and bad.stdout.rstrip().endswith("FAIL")


def test_relative_error_ignores_zero_references(kfile, capsys):
    # Issue 12: where the reference is 0 the relative error was diff / tiny, e.g. 7.6e+306.
    rc, out = _run(capsys, "--kernel", f"{kfile}:add", *ADD[:-1],
                   "np.where(x > 0, x + y, 0)")
    assert rc == 1
    for r in out["results"]:
        c = r["outputs"]["out_ptr"]
        assert c["max_abs"] > 0.01 and c["max_rel"] < 1e-5, c


def test_no_fallback_row_says_fail(kfile, capsys):
    argv = ["--kernel", f"{kfile}:hist", "--shapes", '{"x_ptr": [2048], "out_ptr": [1024]}',
            "--dtypes", '{"x_ptr": "int32", "out_ptr": "int32"}', "--constexprs",
            '{"N": 2048, "BINS": 1024}', "--grid", "[1]", "--reference", "histo(x)",
            "--paths", "tile", "--no-fallback"]
    rc = verify.main(argv)
    text = capsys.readouterr().out
    assert rc == 1
    rows = [line for line in text.splitlines() if line.strip().startswith("tile*")]
    assert rows and all("FAIL" in line and "PASS" not in line for line in rows), text
    assert verify.main(argv[:-1]) == 0  # without --no-fallback the fallback's values pass
