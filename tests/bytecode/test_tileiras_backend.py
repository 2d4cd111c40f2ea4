"""triton_tile.backends.tileiras: finding tileiras, errors that can be acted on, the cubin cache.

The cache tests replace the compiler with a counter, so they run everywhere; the error-path
tests need the real tileiras and skip without it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

import pytest
from emit_cases import vadd_bytecode

from triton_tile.backends import tileiras as T


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("TRITON_TILE_CACHE_DIR", str(d))
    monkeypatch.delenv("TRITON_ALWAYS_COMPILE", raising=False)
    return d


@pytest.fixture
def fake_compiler(monkeypatch):
    """tileiras replaced by a counter; the cubin depends on every input of the key."""
    calls = []
    fake = T.TileirasInfo("/fake/tileiras", "fake V13.4.92", "13.4.92", ("13.4", "13.3"))
    monkeypatch.setattr(T, "info", lambda: fake)
    monkeypatch.setattr(T, "_require_tileiras", lambda: fake.path)
    monkeypatch.setattr(T, "_version", lambda path: (fake.version, fake.short_version))

    def run(tool, bytecode, arch, opt_level, timeout, what="kernel"):
        calls.append((arch, opt_level))
        return b"\x7fELF" + arch.encode() + bytes([opt_level]) + bytecode

    monkeypatch.setattr(T, "_run_tileiras", run)
    return calls, fake


@pytest.fixture(scope="module")
def real_tileiras():
    try:
        return T.info()
    except T.TileirasNotFoundError as e:
        pytest.skip(f"tileiras not installed ({e})")


def test_normalize_arch():
    assert T.normalize_arch("sm_90") == T.normalize_arch(90) == T.normalize_arch("90") == "sm_90"
    for bad in ("sm_90a", "hopper", "compute_90"):
        with pytest.raises(ValueError, match="sm_XX"):
            T.normalize_arch(bad)


def test_configured_path_must_exist(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_TILE_TILEIRAS", str(tmp_path / "nope"))
    with pytest.raises(T.TileirasNotFoundError, match="TRITON_TILE_TILEIRAS"):
        T.find_tileiras()
    tool = tmp_path / "tileiras"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv("TRITON_TILE_TILEIRAS", str(tool))
    assert T.find_tileiras() == str(tool)


def test_cache_hit_miss_and_key(cache_dir, fake_compiler):
    calls, _ = fake_compiler
    first = T.compile(b"bytecode-1", "sm_90")
    assert T.compile(b"bytecode-1", "sm_90") == first and len(calls) == 1  # a hit
    T.compile(b"bytecode-1", "sm_100")
    T.compile(b"bytecode-1", "sm_90", opt_level=2)
    T.compile(b"bytecode-2", "sm_90")
    assert len(calls) == 4  # arch, opt level and bytecode are all in the key
    entries = list(cache_dir.rglob("*"))
    assert len([p for p in entries if p.is_file()]) == 4
    assert not [p for p in entries if p.name.endswith(".tmp")]  # renamed into place


def test_cache_is_keyed_on_the_tileiras_version(cache_dir, fake_compiler, monkeypatch):
    calls, _ = fake_compiler
    T.compile(b"bc", "sm_90")
    monkeypatch.setattr(T, "_version", lambda path: ("fake V13.5.0", "13.5.0"))
    T.compile(b"bc", "sm_90")
    assert len(calls) == 2


def test_corrupt_or_foreign_entries_are_not_used(cache_dir, fake_compiler):
    calls, _ = fake_compiler
    good = T.compile(b"bc", "sm_90")
    (entry,) = [p for p in cache_dir.rglob("*.cubin")]
    data = entry.read_bytes()
    entry.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # a flipped bit in the cubin
    assert T.compile(b"bc", "sm_90") == good and len(calls) == 2
    # An entry whose header names another key (e.g. copied by hand) is a miss too.
    entry.write_bytes(entry.read_bytes().replace(b'"sm_90"', b'"sm_80"'))
    assert T.compile(b"bc", "sm_90") == good and len(calls) == 3
    entry.write_bytes(b"garbage")
    assert T.compile(b"bc", "sm_90") == good and len(calls) == 4


def test_always_compile_and_no_cache(cache_dir, fake_compiler, monkeypatch):
    calls, _ = fake_compiler
    T.compile(b"bc", "sm_90")
    T.compile(b"bc", "sm_90", cache=False)
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    T.compile(b"bc", "sm_90")
    assert len(calls) == 3


def test_unwritable_cache_still_compiles(tmp_path, monkeypatch, fake_compiler):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("TRITON_TILE_CACHE_DIR", str(blocker))
    assert T.compile(b"bc", "sm_90").startswith(b"\x7fELF")


# ------------------------------------------------------------------------ the real tileiras


def test_probe(real_tileiras):
    assert "13.3" in real_tileiras.bytecode_versions
    assert real_tileiras.short_version.count(".") == 2
    assert T.info() is real_tileiras  # once per process


def test_corrupt_bytecode_is_a_tileiras_error(real_tileiras, cache_dir):
    bad = b"\x7fTileIR\x00\x0d\x03\x00\x00\x02\x05garbage"
    with pytest.raises(T.TileirasError) as info:
        T.compile(bad, "sm_90")
    e = info.value
    msg = str(e)
    assert e.stderr.strip() and e.stderr.strip().splitlines()[0] in msg
    assert e.kept_file and open(e.kept_file, "rb").read() == bad
    assert f"input kept: {e.kept_file}" in msg and f"reproduce: {e.command}" in msg
    # The command reproduces the failure as printed.
    rerun = subprocess.run(shlex.split(e.command), capture_output=True, text=True)
    assert rerun.returncode != 0 and rerun.stderr.strip()
    assert not list(cache_dir.rglob("*.cubin"))  # failures are not cached
    shutil.rmtree(os.path.dirname(e.kept_file))


def test_timeout_is_a_tileiras_error(real_tileiras, cache_dir):
    with pytest.raises(T.TileirasError, match="timed out") as info:
        T.compile(vadd_bytecode(), "sm_90", timeout=0.001, cache=False)
    assert os.path.exists(info.value.kept_file)
    shutil.rmtree(os.path.dirname(info.value.kept_file))


def test_real_compile_is_cached(real_tileiras, cache_dir, monkeypatch):
    cubin = T.compile(vadd_bytecode(), "sm_90")
    assert cubin.startswith(b"\x7fELF")

    def no_compiler(*args, **kwargs):
        raise AssertionError("tileiras ran on a cache hit")

    monkeypatch.setattr(T, "_run_tileiras", no_compiler)
    monkeypatch.setattr(T, "info", no_compiler)  # a hit needs only `--version`
    assert T.compile(vadd_bytecode(), "sm_90") == cubin
    assert T.version() == real_tileiras.version


def _toolkit(tmp_path, real, ptxas_exit=None):
    """A toolkit root in tileiras's layout: bin/tileiras runs the real one, bin/ptxas is the
    real one or a stand-in that exits with `ptxas_exit`, lib/libnvvm.so.4 the real one."""
    real_tools = T.toolchain(real.path)
    root = tmp_path / "toolkit"
    (root / "bin").mkdir(parents=True)
    (root / "lib").mkdir()
    tool = root / "bin" / "tileiras"
    tool.write_text(f"#!/bin/sh\nexec {shlex.quote(real_tools.tileiras)} \"$@\"\n")
    ptxas = root / "bin" / "ptxas"
    if ptxas_exit is None:
        ptxas.symlink_to(real_tools.ptxas)
    else:
        ptxas.write_text(f"#!/bin/sh\necho stand-in ptxas >&2\nexit {ptxas_exit}\n")
    for f in (tool, ptxas):
        f.chmod(0o755)
    (root / "lib" / "libnvvm.so.4").symlink_to(real_tools.libnvvm)
    return root


@pytest.mark.parametrize("var", ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"])
def test_user_cuda_root_does_not_leak_into_tileiras(real_tileiras, cache_dir, monkeypatch,
                                                    tmp_path, var):
    # A machine's CUDA toolkit (CUDA_HOME=/usr/local/cuda, say) holds a ptxas too old for the
    # PTX tileiras writes: tileiras would take it before its own and fail with exit 5.
    bad = tmp_path / "cuda"
    (bad / "bin").mkdir(parents=True)
    (bad / "bin" / "ptxas").write_text("#!/bin/sh\nexit 1\n")
    (bad / "bin" / "ptxas").chmod(0o755)
    monkeypatch.setenv(var, str(bad))
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    assert T.compile(vadd_bytecode(), "sm_90").startswith(b"\x7fELF")


def test_failure_names_the_toolchain(real_tileiras, cache_dir, monkeypatch, tmp_path):
    # The ptxas beside tileiras fails: the error names it and a command that reproduces.
    root = _toolkit(tmp_path, real_tileiras, ptxas_exit=1)
    monkeypatch.setenv("TRITON_TILE_TILEIRAS", str(root / "bin" / "tileiras"))
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    with pytest.raises(T.TileirasError) as e:
        T._run_tileiras(str(root / "bin" / "tileiras"), vadd_bytecode(), "sm_90", 3, 120.0)
    msg = str(e.value)
    assert f"ptxas {root}/bin/ptxas" in msg and f"CUDA_HOME={root}" in msg
    # The command it prints reproduces the failure; with the real ptxas the same layout works.
    cmd = shlex.split(e.value.command)
    assert subprocess.run(cmd, capture_output=True).returncode != 0
    (root / "bin" / "ptxas").unlink()
    (root / "bin" / "ptxas").symlink_to(T.toolchain(real_tileiras.path).ptxas)
    assert subprocess.run(cmd, capture_output=True).returncode == 0


def test_missing_ptxas_or_libnvvm_is_named(monkeypatch, tmp_path):
    root = tmp_path / "toolkit"
    (root / "bin").mkdir(parents=True)
    tool = root / "bin" / "tileiras"
    tool.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 13.4, V13.4.92'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("TRITON_TILE_TILEIRAS", str(tool))
    with pytest.raises(T.TileirasError, match="has no ptxas or libnvvm beside it"):
        T._probe(str(tool))


def test_bytecode_newer_than_tileiras_reads_is_named(cache_dir, fake_compiler):
    calls, fake = fake_compiler
    newer = b"\x7fTileIR\x00\x0d\x09\x00" + vadd_bytecode()[10:]  # a 13.9 header
    assert T.bytecode_version(newer) == "13.9" and T.bytecode_version(b"junk") is None
    with pytest.raises(T.TileirasError, match=r"bytecode 13\.9 and tileiras 13\.4\.92 reads "
                                              r"13\.4, 13\.3; install a newer one"):
        T.compile(newer, "sm_90")
    assert not calls  # refused before tileiras ran
    assert T.compile(vadd_bytecode(), "sm_90").startswith(b"\x7fELF") and calls


def test_short_version():
    text = "tileiras: NVIDIA (R) Cuda Tile IR optimizing assembler\nCuda compilation tools, " \
           "release 13.4, V13.4.92\n"
    assert T.short_version(text) == "13.4.92" and T.short_version(None) is None
