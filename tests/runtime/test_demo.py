"""The demo harness (python -m triton_tile.demo): table, error reporting, exit code."""

import textwrap

from triton_tile import demo

_GOOD = """
def demo(quick=False):
    return dict(kernel="fake add", size="N=16", correct=True, ms=0.5, metric=1.25,
                unit="GB/s", path="ptx")
"""
_BAD = """
def demo(quick=False):
    raise RuntimeError("boom")
"""


def _write(tmp_path, files):
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))


def test_table_and_exit_code(tmp_path, capsys):
    _write(tmp_path, {"a": _GOOD, "b": _BAD, "c": "x = 1\n"})
    rc = demo.main(["--examples", str(tmp_path), "--only", "a", "b", "c", "d", "--quick"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "fake add" in out and "1.25 GB/s" in out and "0.500" in out
    assert "RuntimeError: boom" in out
    assert "no demo() entry point" in out
    assert "d: missing" in out


def test_all_good_exits_zero(tmp_path, capsys):
    _write(tmp_path, {"a": _GOOD})
    assert demo.main(["--examples", str(tmp_path), "--only", "a"]) == 0
    assert "yes" in capsys.readouterr().out


def test_finds_repository_examples():
    found = demo.find_examples()
    assert found is None or found.endswith("examples")
