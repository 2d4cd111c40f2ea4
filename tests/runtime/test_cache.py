"""Kernel caches: what invalidates a compiled kernel, and the on-disk entries."""

import importlib.util
import json
import os
import textwrap

import numpy as np
import pytest

import triton_tile as triton
import triton_tile.language as tl
from triton_tile.compiler import compiler as cc
from triton_tile.runtime import cache as disk
from triton_tile.runtime import jit as jit_module


@pytest.fixture
def compiles(monkeypatch):
    """Counts real compiles (frontend runs)."""
    calls = []
    real = cc.compile_kernel

    def counting(jit_fn, spec, options, key=None):
        calls.append(jit_fn.__name__)
        return real(jit_fn, spec, options, key=key)

    monkeypatch.setattr(cc, "compile_kernel", counting)
    return calls


@triton.jit
def add_one(x):
    return x + 1


@triton.jit
def apply_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, add_one(tl.load(x_ptr + offs, mask=mask)), mask=mask)


SCALE = tl.constexpr(3)


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)


@pytest.fixture(autouse=True)
def fresh_memory_cache():
    """Each test starts as a new process would: nothing compiled in memory."""
    for k in (add_one, apply_kernel, scale_kernel):
        k.cache.clear()


def _run(kernel, n=16, **kw):
    x = np.arange(n, dtype=np.float32)
    y = np.zeros(n, np.float32)
    compiled = kernel[(1,)](x, y, n, BLOCK=16, **kw)
    return y, compiled


def test_same_launch_compiles_once(compiles):
    _run(apply_kernel)
    _run(apply_kernel)
    assert compiles.count("apply_kernel") <= 1  # 0 if an earlier test compiled it


def test_new_specialization_compiles(compiles):
    _run(apply_kernel, n=16)
    before = len(compiles)
    _run(apply_kernel, n=17)  # 16 carries the divisibility hint, 17 does not
    assert len(compiles) == before + 1


def test_editing_a_callee_changes_key_and_recompiles():
    y, _ = _run(apply_kernel)
    np.testing.assert_array_equal(y, np.arange(16) + 1)
    key = apply_kernel.cache_key
    old = add_one.src
    try:
        add_one._unsafe_update_src(old.replace("x + 1", "x + 2"))
        assert apply_kernel.cache_key != key
        y, _ = _run(apply_kernel)
        np.testing.assert_array_equal(y, np.arange(16) + 2)
    finally:
        add_one._unsafe_update_src(old)
    assert apply_kernel.cache_key == key
    y, _ = _run(apply_kernel)
    np.testing.assert_array_equal(y, np.arange(16) + 1)


def test_changed_constexpr_global_raises():
    global SCALE
    y, _ = _run(scale_kernel)
    np.testing.assert_array_equal(y, np.arange(16) * 3)
    SCALE = tl.constexpr(4)
    try:
        with pytest.raises(RuntimeError, match="Global variable SCALE has changed"):
            _run(scale_kernel)
    finally:
        SCALE = tl.constexpr(3)
    y, _ = _run(scale_kernel)
    np.testing.assert_array_equal(y, np.arange(16) * 3)


def test_constexpr_global_is_part_of_cache_key():
    global SCALE
    key = scale_kernel.cache_key
    SCALE = tl.constexpr(5)
    try:
        jit_module._SRC_EPOCH[0] += 1  # force recomputation of memoized keys
        assert scale_kernel.cache_key != key
    finally:
        SCALE = tl.constexpr(3)
        jit_module._SRC_EPOCH[0] += 1
    assert scale_kernel.cache_key == key


def _load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_MODULE = """
import triton_tile as triton
import triton_tile.language as tl
{pad}

@triton.jit
def helper(x):
    return x * {factor}


@triton.jit
def kern(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, helper(tl.load(x_ptr + offs)))
"""


def test_edit_in_file_recompiles(tmp_path, cache_dir):
    path = tmp_path / "kmod.py"
    x = np.arange(16, dtype=np.float32)
    results, keys, hashes = [], [], []
    for i, (factor, pad) in enumerate([(2, ""), (3, ""), (3, "\n\n")]):
        path.write_text(_MODULE.format(factor=factor, pad=pad))
        mod = _load_module(path, f"kmod_{i}")
        y = np.zeros(16, np.float32)
        compiled = mod.kern[(1,)](x, y, BLOCK=16)
        results.append(y)
        keys.append(mod.kern.cache_key)
        hashes.append(compiled.hash)
    np.testing.assert_array_equal(results[0], x * 2)
    np.testing.assert_array_equal(results[1], x * 3)
    np.testing.assert_array_equal(results[2], x * 3)
    assert len(set(keys)) == 3  # the starting line is part of the key, as in Triton
    assert len(set(hashes)) == 3
    assert all(os.path.isdir(cache_dir / h) for h in hashes)


def test_disk_entry_round_trip(cache_dir):
    _, compiled = _run(apply_kernel)
    entry_dir = cache_dir / compiled.hash
    assert (entry_dir / "apply_kernel.ttir").read_text() == compiled.asm["ttir"]
    meta = json.loads((entry_dir / "apply_kernel.json").read_text())
    assert meta["key"] == compiled.hash
    assert meta["metadata"]["path"] == "ptx"
    assert meta["key_inputs"]["fn"] == apply_kernel.cache_key
    loaded = disk.DiskCache(str(cache_dir)).load(compiled.hash, "apply_kernel")
    assert loaded["asm"]["ttir"] == compiled.asm["ttir"]
    assert loaded["asm"]["ttir_locs"] == compiled.located_ttir
    assert 'loc("' in compiled.located_ttir and __file__ in compiled.located_ttir
    assert loaded["metadata"]["name"] == "apply_kernel"


def test_key_covers_options_and_code_knobs(monkeypatch):
    _, a = _run(apply_kernel)
    _, b = _run(apply_kernel, num_warps=8)
    _, c = _run(apply_kernel, debug=True)
    monkeypatch.setenv("TRITON_F32_DEFAULT", "ieee")
    _, d = _run(apply_kernel)
    assert len({a.hash, b.hash, c.hash, d.hash}) == 4
    assert b.metadata.num_warps == 8 and c.metadata.debug
    assert d.metadata.default_dot_input_precision == "ieee"


def test_metadata_only_options_share_the_program(compiles):
    _, a = _run(apply_kernel, num_stages=2)
    n = len(compiles)
    _, b = _run(apply_kernel, num_stages=5, num_warps=2, occupancy=4)
    assert len(compiles) == n
    assert a.program is b.program
    assert (b.metadata.num_stages, b.metadata.num_warps, b.metadata.occupancy) == (5, 2, 4)


def test_stale_or_tampered_entry_is_never_used(cache_dir):
    _, compiled = _run(apply_kernel)
    store = disk.DiskCache(str(cache_dir))
    ttir = cache_dir / compiled.hash / "apply_kernel.ttir"
    ttir.write_text(compiled.asm["ttir"].replace("tt.store", "tt.load"))
    assert store.load(compiled.hash, "apply_kernel") is None
    meta_path = cache_dir / compiled.hash / "apply_kernel.json"
    meta = json.loads(meta_path.read_text())
    ttir.write_text(compiled.asm["ttir"])
    assert store.load(compiled.hash, "apply_kernel") is not None
    meta["key"] = "0" * 64
    meta_path.write_text(json.dumps(meta))
    assert store.load(compiled.hash, "apply_kernel") is None
    # A fresh process (empty in-memory cache) recompiles, runs correctly, repairs the entry.
    apply_kernel.cache.clear()
    y, again = _run(apply_kernel)
    np.testing.assert_array_equal(y, np.arange(16) + 1)
    assert store.load(again.hash, "apply_kernel")["asm"]["ttir"] == again.asm["ttir"]


def test_entry_replaced_by_a_file_is_repaired(cache_dir, compiles):
    # Issue 12: a plain file where a key's directory belongs made every run recompile.
    _, compiled = _run(apply_kernel)
    entry = cache_dir / compiled.hash
    for p in entry.iterdir():
        p.unlink()
    entry.rmdir()
    entry.write_text("not an entry")
    apply_kernel.cache.clear()
    y, _ = _run(apply_kernel)  # recompiles (the file is no entry) and repairs it
    np.testing.assert_array_equal(y, np.arange(16) + 1)
    assert entry.is_dir()
    apply_kernel.cache.clear()
    compiles.clear()
    y, _ = _run(apply_kernel)
    np.testing.assert_array_equal(y, np.arange(16) + 1)
    assert compiles == []  # a disk hit again


def test_entry_written_atomically(cache_dir):
    _run(apply_kernel)
    leftovers = [p for p in os.listdir(cache_dir) if p.startswith(".tmp")]
    assert leftovers == []


def test_unwritable_cache_dir_warns_and_runs(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("TRITON_TILE_CACHE_DIR", str(blocker / "sub"))
    apply_kernel.cache.clear()
    with pytest.warns(UserWarning, match="not writable"):
        y, _ = _run(apply_kernel, n=15)
    np.testing.assert_array_equal(y[:15], np.arange(15) + 1)


def test_disk_hit_skips_the_frontend(compiles):
    compiles.clear()
    _, first = _run(apply_kernel)
    assert compiles == ["apply_kernel"]
    apply_kernel.cache.clear()  # as in a new process
    y, again = _run(apply_kernel)
    assert compiles == ["apply_kernel"]  # parsed back from the .ttir, not recompiled
    np.testing.assert_array_equal(y, np.arange(16) + 1)
    assert again.hash == first.hash and again.asm == first.asm
    assert again.metadata == first.metadata


def test_always_compile_knob(monkeypatch, compiles):
    _run(apply_kernel)
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    apply_kernel.cache.clear()
    _run(apply_kernel)
    assert compiles == ["apply_kernel", "apply_kernel"]  # the disk entry was not used


def test_errors_keep_source_locations_across_the_disk_cache():
    @triton.jit
    def oob(x_ptr, B: tl.constexpr):
        offs = tl.arange(0, B)
        tl.store(x_ptr + offs, offs)

    x = np.zeros(8, np.int32)
    for _ in range(2):  # compiled, then (in a "new process") reloaded from disk
        oob.cache.clear()
        with pytest.raises(IndexError, match=rf"{os.path.basename(__file__)}:\d+"):
            oob[(1,)](x, B=16)


def test_compiler_fingerprint_is_stable():
    assert disk.compiler_fingerprint() == disk.compiler_fingerprint()
    assert len(disk.compiler_fingerprint()) == 64


def test_cache_key_shape():
    key = apply_kernel.cache_key
    assert len(key) == 64 and int(key, 16) >= 0
    assert add_one.cache_key != key


def test_dedent_and_decorator_stripping():
    src = textwrap.dedent(apply_kernel.src)
    assert src.startswith("def apply_kernel(")
    with open(apply_kernel.file_name) as f:
        lines = f.read().splitlines()
    assert lines[apply_kernel.starting_line_number - 1].startswith("def apply_kernel(")
