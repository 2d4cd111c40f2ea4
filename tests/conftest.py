"""Test configuration shared by the whole suite.

The kernel tests (tests/language, tests/examples, tests/gpu) run once per execution path: a
test that takes the ``path`` fixture is parametrized over

    PATHS = ["ptx", "tile"]      # tests/language, tests/examples: the two CPU executors
    GPU_PATHS = ["tile", "ptx"]  # tests/gpu: Tile IR through tileiras, PTX through stock Triton

The autouse fixture ``path`` sets ENABLE_TILE for the test ("0" for ptx, "1" for tile); the
runtime reads ENABLE_TILE at launch, so one test body covers both paths. Tests outside the
kernel directories are not parametrized and see the environment untouched. With
``--device cuda`` the kernel test bodies of tests/language and tests/examples launch on the GPU
(tests/device_mode.py). The ``rng`` fixture is a numpy Generator seeded from the test id (the
path left out, so both paths see the same inputs).

The session compiles into a fresh cache directory unless TRITON_TILE_CACHE_DIR is set; with
TRITON_TILE_ASSEMBLE_SUITE=sm_90,... (CI) tileiras assembles the Tile IR of every kernel the
suite converted, at the end, and a rejected module fails the run.

Shared helpers live in tests/tt_utils.py (``from tt_utils import numpy_random, poisoned, ...``).
"""

import os
import sys
import zlib

import numpy as np
import pytest

# The execution paths every kernel test runs on: the TTIR executor and the Tile IR path.
PATHS = ["ptx", "tile"]
# tests/gpu runs both GPU paths: Tile IR through tileiras, PTX through stock Triton.
GPU_PATHS = ["tile", "ptx"]

# Directories (under tests/) whose tests launch kernels and so run once per path.
KERNEL_TEST_DIRS = ("language", "examples", "gpu")

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import device_mode  # noqa: E402
from tt_utils import ml_dtypes, requires_ml_dtypes  # noqa: E402,F401

# CI proves our bytecode is real: with TRITON_TILE_ASSEMBLE_SUITE=sm_90,sm_100 the Tile IR of
# every kernel the suite converts is assembled by tileiras for each arch at the end of the
# session, and any rejection fails the run. A kernel with views made where their tensors are
# made that tileiras rejects is assembled again without them, as a GPU compile does
# (backends/tile_gpu.py); the summary names those.
ASSEMBLE_ARCHS = [a for a in os.environ.get("TRITON_TILE_ASSEMBLE_SUITE", "").split(",") if a]
_assembled = None


def pytest_addoption(parser):
    device_mode.pytest_addoption(parser)


def pytest_configure(config):
    global _assembled
    device_mode.pytest_configure(config)
    # Compiled kernels go to a fresh cache per session (not the user's ~/.triton_tile), unless
    # the caller chose one.
    if "TRITON_TILE_CACHE_DIR" not in os.environ:
        import tempfile

        os.environ["TRITON_TILE_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton_tile_test_cache_")
    if ASSEMBLE_ARCHS:
        from triton_tile.compiler import tile_stage

        _assembled = tile_stage.record_bytecode()


def pytest_sessionfinish(session, exitstatus):
    if not ASSEMBLE_ARCHS or _assembled is None:
        return
    from concurrent.futures import ThreadPoolExecutor

    from triton_tile import knobs
    from triton_tile.backends import tileiras

    unique = {}
    for name, data, redo in _assembled:
        unique.setdefault(data, (name, redo))
    every_arch = [(data, name, redo, arch) for data, (name, redo) in unique.items()
                  for arch in ASSEMBLE_ARCHS]
    # Another tileiras assembles for the first arch only: the pinned one covers them all, and
    # each pass over the suite's few thousand modules costs minutes on two cores.
    first_arch = [job for job in every_arch if job[3] == ASSEMBLE_ARCHS[0]]

    def assemble(job):
        """None, ("failed", why) or ("redone", kernel): assembled without anchored views."""
        data, name, redo, arch = job
        try:
            tileiras.compile(data, arch)
            return None
        except Exception as e:  # noqa: BLE001 - every failure is reported, with its kernel
            first = e
        if redo is not None:
            try:
                tileiras.compile(redo(), arch)
                return ("redone", f"{name} ({arch})")
            except Exception as e:  # noqa: BLE001
                return ("failed", f"{name} ({arch}): {first}; without anchored views: {e}")
        return ("failed", f"{name} ({arch}): {first}")

    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    # The tileiras found as usual, then each one TRITON_TILE_ASSEMBLE_WITH names.
    tools = [None] + [t for t in os.environ.get("TRITON_TILE_ASSEMBLE_WITH", "").split(":") if t]
    failed = False
    for tool in tools:
        jobs = every_arch if tool is None else first_arch
        if tool is not None:
            knobs.tileiras = tool
        try:
            version = tileiras.info().short_version
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                results = [r for r in pool.map(assemble, jobs) if r]
        except Exception as e:  # noqa: BLE001 - a tileiras that cannot run fails the run
            version, results = tool, [("failed", f"tileiras {tool}: {e}")]
        finally:
            if tool is not None:
                del knobs.tileiras
        failures = [why for kind, why in results if kind == "failed"]
        redone = [why for kind, why in results if kind == "redone"]
        archs = ASSEMBLE_ARCHS if tool is None else ASSEMBLE_ARCHS[:1]
        summary = (f"tileiras {version} assembled {len(jobs) - len(failures)}/{len(jobs)} "
                   f"modules ({len(unique)} kernels x {', '.join(archs)})")
        if redone:
            summary += (f", {len(redone)} of them without their anchored views, as a GPU "
                        f"compile makes them where tileiras rejects those: "
                        f"{', '.join(sorted(set(redone)))}")
        if tr is not None:
            tr.write_line(summary)
            for f in failures:
                tr.write_line(f"tileiras REJECTED {f}")
        failed = failed or bool(failures)
    if failed:
        session.exitstatus = 1


def _runs_kernels(fspath):
    rel = os.path.relpath(str(fspath), _HERE)
    return rel.split(os.sep)[0] in KERNEL_TEST_DIRS


def pytest_generate_tests(metafunc):
    if "path" in metafunc.fixturenames and _runs_kernels(metafunc.definition.path):
        rel = os.path.relpath(str(metafunc.definition.path), _HERE)
        paths = GPU_PATHS if rel.split(os.sep)[0] == "gpu" else PATHS
        metafunc.parametrize("path", paths, indirect=True)


@pytest.fixture(autouse=True)
def path(request, monkeypatch):
    """The execution path of this test: "ptx" or "tile" (None outside kernel tests)."""
    p = getattr(request, "param", None)
    if p is None:
        return None
    monkeypatch.setenv("ENABLE_TILE", "1" if p == "tile" else "0")
    device = request.config.getoption("--device")
    rel = os.path.relpath(str(request.node.path), _HERE)
    if device != "cpu" and rel.split(os.sep)[0] != "gpu":
        device_mode.skip_if_cpu_only(request.node)
        device_mode.install(monkeypatch, device)
    return p


def _seed_key(node):
    callspec = getattr(node, "callspec", None)
    ids = ""
    if callspec is not None:
        # The path id is left out so both paths see the same inputs.
        ids = "-".join(t for t in callspec.id.split("-") if t not in PATHS + GPU_PATHS)
    return f"{node.path.name}::{getattr(node, 'originalname', node.name)}[{ids}]"


@pytest.fixture
def rng(request):
    """A numpy Generator seeded from the test id: fresh inputs per test, reproducible."""
    return np.random.default_rng(zlib.crc32(_seed_key(request.node).encode()))
