"""Golden IR tests: one `.ttir` file per case under tests/golden/<family>/, run through
`python -m triton_tile.tools.opt` and checked with FileCheck directives (filecheck.py).

Each file holds one RUN line and its CHECK lines:

    // RUN: opt %s --passes canonicalize
    // RUN: opt %s --convert-to-tile --tile-option occupancy=4
    // RUN: not opt %s --convert-to-tile      (exit status 1; checks read standard error)

`%s` is the file itself. Folders: `passes/<pass>/` for a TTIR pass, `conversion/<family>/` for
the TTIR -> Tile IR conversion. To add a case: write the smallest TTIR that shows the rule,
run the RUN line by hand, and CHECK the lines that pin the decision (not the whole dump).
"""

from __future__ import annotations

import contextlib
import io
import os

import pytest
from filecheck import filecheck, parse_checks

from triton_tile.tools import opt

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = sorted(os.path.relpath(os.path.join(d, f), HERE)
               for d, _, files in os.walk(HERE) for f in files if f.endswith(".ttir"))


@pytest.mark.parametrize("case", CASES)
def test_golden(case):
    path = os.path.join(HERE, case)
    with open(path) as f:
        text = f.read()
    argv, expect_failure = opt.parse_run_line(text, path)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = opt.main(argv)
    if expect_failure:
        assert status == 1, f"{case}: expected exit status 1, got {status}: {err.getvalue()}"
        output = err.getvalue()
    else:
        assert status == 0, f"{case}: exit status {status}: {err.getvalue()}"
        output = out.getvalue()
    filecheck(output, parse_checks(text), case)


def test_every_family_has_cases():
    assert any(c.startswith("passes") for c in CASES)
    assert any(c.startswith("conversion") for c in CASES)
