"""pytest plugin: run upstream Triton's language tests against triton_tile.

Loaded with `-p plugin` (tools/upstream_suite on sys.path), it makes `import triton` and every
`import triton.X` give `triton_tile` and `triton_tile.X`, and `triton._internal_testing` the
stand-in beside this file (with --real-triton: nothing is aliased, for measuring upstream's
interpreter on the same ids) (whose `is_interpreter()` is true, so the tests take the CPU branches
upstream's interpreter CI takes). It also supplies what upstream's python/test/conftest.py
does: the `--device` option and the `device`, `fresh_knobs` and `fresh_triton_cache` fixtures,
and the `interpreter` marker; and it makes the source of kernels the tests define with
`exec` readable (see _exec_sources_hook). Nothing about kernels is stubbed or skipped here.
"""

import importlib
import importlib.abc
import importlib.util
import linecache
import os
import re
import sys
import tempfile

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
_STAND_IN = "triton._internal_testing"


class _Alias(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class _TritonFinder(importlib.abc.MetaPathFinder):
    """`triton[.X]` -> `triton_tile[.X]`; the module object is shared, not copied, so
    `triton.language is triton_tile.language` and monkeypatching one patches the other."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == _STAND_IN:
            return importlib.util.spec_from_file_location(
                fullname, os.path.join(_HERE, "internal_testing.py"))
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        real = "triton_tile" + fullname[len("triton"):]
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(real),
                                               is_package=fullname == "triton" or None)


def install() -> None:
    for name in [m for m in sys.modules if m == "triton" or m.startswith("triton.")]:
        del sys.modules[name]  # an installed upstream triton imported earlier must not win
    if not any(isinstance(f, _TritonFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _TritonFinder())
    import triton  # noqa: F401  (binds triton -> triton_tile before any test module imports)


def _exec_sources_hook(event, args):
    """Upstream's tests build kernel variants by exec'ing edited source text (patch_kernel and
    friends: the interpreter runs Python functions and needs no file). triton_tile's @jit, like
    upstream's compiled @jit, reads a kernel's source with `inspect`, which finds nothing for
    "<string>". Python reports the text on its `compile` audit event, just before the `exec`
    event that runs it; put it in linecache for that run, where `inspect` looks."""
    global _pending_source
    if event == "compile":
        src, filename = args[0], args[1]
        if filename == "<string>" and isinstance(src, (str, bytes)):
            _pending_source = src.decode() if isinstance(src, bytes) else src
    elif event == "exec" and _pending_source is not None:
        code = args[0]
        if getattr(code, "co_filename", None) == "<string>":
            lines = _pending_source.splitlines(keepends=True)
            linecache.cache["<string>"] = (len(_pending_source), None, lines, "<string>")
        _pending_source = None


_pending_source = None


def pytest_configure(config):
    if not config.getoption("--real-triton"):
        install()
        sys.addaudithook(_exec_sources_hook)
        # every fallback counted, not one per source line (see pytest_runtest_setup)
        config.addinivalue_line("filterwarnings",
                                "always::triton_tile.runtime.errors.TileFallbackWarning")
    config.addinivalue_line("markers",
                            "interpreter: indicate whether interpreter supports the test")


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="cpu")
    parser.addoption("--real-triton", action="store_true",
                     help="leave `triton` alone: measure the installed upstream Triton "
                     "(its interpreter with TRITON_INTERPRET=1) on the same files")


@pytest.fixture
def device(request):
    return request.config.getoption("--device")


@pytest.fixture
def fresh_triton_cache():
    from triton import knobs

    with tempfile.TemporaryDirectory() as tmpdir:
        with knobs.cache.scope(), knobs.runtime.scope():
            knobs.cache.dir = tmpdir
            yield tmpdir


@pytest.fixture
def fresh_knobs():
    from triton._internal_testing import _fresh_knobs_impl

    fresh_function, reset_function = _fresh_knobs_impl()
    try:
        yield fresh_function()
    finally:
        reset_function()


@pytest.fixture
def fresh_knobs_except_libraries():
    from triton._internal_testing import _fresh_knobs_impl

    fresh_function, reset_function = _fresh_knobs_impl(skipped_attr={"build", "nvidia", "amd"})
    try:
        yield fresh_function()
    finally:
        reset_function()


@pytest.fixture
def with_allocator():
    import triton
    from triton._internal_testing import default_alloc_fn

    triton.set_allocator(default_alloc_fn)
    try:
        yield
    finally:
        triton.set_allocator(None)


# On the Tile path (ENABLE_TILE=1) a kernel the conversion cannot express runs on the PTX-style
# path with a TileFallbackWarning: count the tests that fell back, and why, so a measurement of
# the Tile path says how much of it ran as Tile IR.
_fallbacks = {}


def pytest_runtest_setup(item):
    # triton_tile warns once per kernel per process; a kernel here is defined once per test
    # (and its source line is shared by a test's parametrizations): warn again in each test
    mod = sys.modules.get("triton_tile.compiler.tile_stage")
    if mod is not None and hasattr(mod, "_warned"):
        mod._warned.clear()


def pytest_warning_recorded(warning_message, when, nodeid, location):
    if type(warning_message.message).__name__ != "TileFallbackWarning":
        return
    text = str(warning_message.message)
    # "kernel K: the Tile IR path cannot run it: 'op' at file:line:col: reason[ (and N more)];
    # running on the PTX-style path (...)": grouped by op and reason, numbers elided
    m = re.search(r"cannot run it: '([^']+)' at \S+?:\d+:\d+: (.*?)(?: \(and \d+ more\))?; "
                  r"running on", text)
    reason = f"{m.group(1)}: {m.group(2)}" if m else text.split("cannot run it: ")[-1]
    reason = re.sub(r"\d+", "N", reason)[:150]
    _fallbacks.setdefault(reason, set()).add(nodeid)


def pytest_terminal_summary(terminalreporter):
    if not _fallbacks:
        return
    tests = set().union(*_fallbacks.values())
    terminalreporter.write_line(f"tile fallbacks: {len(tests)} tests had a kernel fall back to "
                                "the PTX-style path; by reason:")
    for reason, ids in sorted(_fallbacks.items(), key=lambda kv: -len(kv[1])):
        terminalreporter.write_line(f"  {len(ids):5}  {reason}")
