"""The TTIR printer and parser are two halves written by hand (csrc/ir/printer.cpp and the op
set's printers; csrc/ttir/parser.cpp): what one prints the other must read back to the same
module. The CPU cache relies on it (an entry keeps the TTIR text and reparses it), and so does
every golden file. Each case prints a module, parses the print and prints that again: the two
prints must be the same text, after the pipelines too."""

import pathlib
import sys

import numpy as np
import pytest

from triton_tile import _core
from triton_tile.compiler.kernel import PTX_PASSES, TTIR_PASSES

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = sorted((ROOT / "tests" / "golden").rglob("*.ttir"))


def round_trip(text: str, name: str) -> None:
    first = _core.parse_ttir(text, name).str()
    second = _core.parse_ttir(first, name).str()
    assert second == first, f"{name}: the printer's output does not parse back to itself"


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: str(p.relative_to(ROOT / "tests")))
def test_golden_files_print_what_parses_back(path):
    text = path.read_text()
    if "expected-error" in text or "/errors/" in str(path):
        pytest.skip("a file that is meant not to convert")
    module = _core.parse_ttir(text, str(path))
    round_trip(module.str(), path.name)
    for passes in (TTIR_PASSES, PTX_PASSES):
        module = _core.parse_ttir(text, str(path))
        try:
            _core.run_passes(module, passes)
        except Exception:  # a file written for another pipeline
            continue
        round_trip(module.str(), f"{path.name} after {passes}")


def test_compiled_kernels_print_what_parses_back():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import matmul_forms as mf

    from triton_tile.tools.tensor_descriptor import TensorDescriptor

    n = 64
    a, b = np.ones((n, n), np.float32), np.ones((n, n), np.float32)
    for name, kernel, _, _, _, desc in mf.FORMS:
        c = np.empty((n, n), np.float32)
        ops = tuple(TensorDescriptor.from_tensor(x, [16, 16]) for x in (a, b, c)) if desc \
            else (a, b, c)
        k = kernel[(n // 16, n // 16)](*ops, n, n, n, BM=16, BN=16, BK=16)
        assert np.allclose(c, a @ b), name
        round_trip(k.asm["ttir"], name)
