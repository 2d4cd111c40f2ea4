"""Test configuration shared by the whole suite.

The kernel tests (tests/language, tests/examples, tests/gpu) run once per execution path:

    PATHS = ["ptx"]          # the TTIR executor; the Tile IR path adds "tile"

The autouse fixture ``path`` sets ENABLE_TILE for the test ("0" for ptx, "1" for tile); the
runtime reads ENABLE_TILE at launch, so one test body covers both paths. Tests outside the
kernel directories are not parametrized and see the environment untouched.

Shared helpers live in tests/tt_utils.py (``from tt_utils import numpy_random, poisoned, ...``).
"""

import os
import sys
import zlib

import numpy as np
import pytest

# The execution paths every kernel test runs on. Add "tile" here when the Tile IR path lands.
PATHS = ["ptx"]

# Directories (under tests/) whose tests launch kernels and so run once per path.
KERNEL_TEST_DIRS = ("language", "examples", "gpu")

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from tt_utils import ml_dtypes, requires_ml_dtypes  # noqa: E402,F401


def pytest_configure(config):
    # Compiled kernels go to a fresh cache per session (not the user's ~/.triton_tile), unless
    # the caller chose one.
    if "TRITON_TILE_CACHE_DIR" not in os.environ:
        import tempfile

        os.environ["TRITON_TILE_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton_tile_test_cache_")


def _runs_kernels(fspath):
    rel = os.path.relpath(str(fspath), _HERE)
    return rel.split(os.sep)[0] in KERNEL_TEST_DIRS


def pytest_generate_tests(metafunc):
    if "path" in metafunc.fixturenames and _runs_kernels(metafunc.definition.path):
        metafunc.parametrize("path", PATHS, indirect=True)


@pytest.fixture(autouse=True)
def path(request, monkeypatch):
    """The execution path of this test: "ptx" or "tile" (None outside kernel tests)."""
    p = getattr(request, "param", None)
    if p is None:
        return None
    monkeypatch.setenv("ENABLE_TILE", "1" if p == "tile" else "0")
    return p


def _seed_key(node):
    callspec = getattr(node, "callspec", None)
    ids = ""
    if callspec is not None:
        # The path id is left out so both paths see the same inputs.
        ids = "-".join(t for t in callspec.id.split("-") if t not in PATHS)
    return f"{node.path.name}::{getattr(node, 'originalname', node.name)}[{ids}]"


@pytest.fixture
def rng(request):
    """A numpy Generator seeded from the test id: fresh inputs per test, reproducible."""
    return np.random.default_rng(zlib.crc32(_seed_key(request.node).encode()))
