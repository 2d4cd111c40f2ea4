"""Environment knobs: one registry, read at use, overridable."""

import os
import pathlib

import numpy as np
import pytest

import triton_tile
from triton_tile import knobs


def test_defaults(monkeypatch):
    for name in ("TRITON_TILE_CACHE_DIR", "TRITON_TILE_NUM_THREADS", "ENABLE_TILE",
                 "TRITON_TILE_FALLBACK", "TRITON_F32_DEFAULT"):
        monkeypatch.delenv(name, raising=False)
    assert knobs.cache_dir.endswith(os.path.join(".triton_tile", "cache"))
    assert knobs.num_threads == (os.cpu_count() or 1)
    assert knobs.enable_tile is False
    assert knobs.fallback == "warn"
    assert knobs.f32_default is None


def test_read_at_use_not_import(monkeypatch):
    monkeypatch.setenv("ENABLE_TILE", "1")
    assert knobs.enable_tile is True
    monkeypatch.setenv("ENABLE_TILE", "0")
    assert knobs.enable_tile is False
    monkeypatch.setenv("TRITON_TILE_NUM_THREADS", "3")
    assert knobs.num_threads == 3


def test_override_and_reset(monkeypatch):
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    knobs.print_autotuning = False
    try:
        assert knobs.print_autotuning is False
    finally:
        del knobs.print_autotuning
    assert knobs.print_autotuning is True


def test_bad_values_are_explained(monkeypatch):
    monkeypatch.setenv("TRITON_TILE_FALLBACK", "maybe")
    with pytest.raises(ValueError, match="TRITON_TILE_FALLBACK"):
        _ = knobs.fallback
    monkeypatch.setenv("TRITON_TILE_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="TRITON_TILE_NUM_THREADS"):
        _ = knobs.num_threads


def test_code_env_lists_code_changing_knobs(monkeypatch):
    names = dict(knobs.code_env())
    assert {"enable_tile", "enable_approx", "enable_ftz", "target", "f32_default"} <= set(names)
    assert "cache_dir" not in names and "num_threads" not in names


def test_every_documented_variable_exists():
    envs = set(knobs.describe())
    for name in ["TRITON_TILE_CACHE_DIR", "TRITON_TILE_NUM_THREADS", "TRITON_TILE_DUMP",
                 "TRITON_ALWAYS_COMPILE", "TRITON_DEBUG", "TRITON_PRINT_AUTOTUNING",
                 "TRITON_F32_DEFAULT", "ENABLE_TILE", "TRITON_TILE_FALLBACK",
                 "TILEIR_ENABLE_APPROX", "TILEIR_ENABLE_FTZ", "TRITON_TILE_CHECK",
                 "TRITON_TILE_TARGET", "TRITON_TILE_TILEIRAS"]:
        assert name in envs


def test_nothing_else_reads_the_environment():
    pkg = pathlib.Path(triton_tile.__file__).parent
    offenders = []
    for path in pkg.rglob("*.py"):
        if path.name == "knobs.py":
            continue
        text = path.read_text()
        if "os.environ" in text or "os.getenv" in text:
            offenders.append(str(path.relative_to(pkg)))
    assert offenders == [], f"read the environment through triton_tile.knobs: {offenders}"


def test_knob_sets_upstream_api(monkeypatch):
    """Triton's knob sets: `knobs.base_knobs` instances with descriptors carrying the variable
    name, copy/reset/scope, as upstream's `fresh_knobs` fixture uses them."""
    sets = {n: v for n, v in vars(knobs).items()
            if isinstance(v, knobs.base_knobs) and v is not knobs.base_knobs}
    assert {"cache", "runtime", "language", "compilation"} <= set(sets)
    monkeypatch.delenv("TRITON_DEFAULT_FP_FUSION", raising=False)
    lang = knobs.language
    assert lang.knob_descriptors["default_fp_fusion"].key == "TRITON_DEFAULT_FP_FUSION"
    assert lang.default_fp_fusion is True
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "0")
    assert lang.default_fp_fusion is False  # read at use
    monkeypatch.setattr(knobs, "propagate_env", False)
    fresh = lang.copy().reset()
    fresh.default_fp_fusion = True  # an override on the copy only
    monkeypatch.setattr(knobs, "propagate_env", True)
    assert fresh.default_fp_fusion is True and lang.default_fp_fusion is False
    monkeypatch.delenv("TRITON_OVERRIDE_ARCH", raising=False)
    with knobs.runtime.scope():
        knobs.runtime.override_arch = "sm90"
        assert knobs.runtime.override_arch == "sm90"
        assert os.environ["TRITON_OVERRIDE_ARCH"] == "sm90"  # propagated, as upstream
    assert knobs.runtime.override_arch is None
    assert "TRITON_OVERRIDE_ARCH" not in os.environ  # the scope undid it


def test_code_env_token_names_the_code_environment(monkeypatch):
    """The launch's cache-key token: the same int while the code-changing variables keep their
    values, a new one when one changes, the old one back when it changes back (equal text in a
    new object included), a fingerprint tuple while overrides are set; other variables do not
    count."""
    monkeypatch.delenv("TRITON_TILE_RAISE_VIEWS", raising=False)
    before = knobs.code_env_token()
    assert isinstance(before, int) and knobs.code_env_token() == before
    monkeypatch.setenv("TRITON_TILE_RAISE_VIEWS", "0")
    changed = knobs.code_env_token()
    assert changed != before and knobs.code_env_token() == changed
    monkeypatch.setenv("TRITON_TILE_RAISE_VIEWS", "".join(["0"]))  # equal text, a new object
    assert knobs.code_env_token() == changed
    monkeypatch.delenv("TRITON_TILE_RAISE_VIEWS")
    assert knobs.code_env_token() == before
    monkeypatch.setenv("SOME_OTHER_VARIABLE", "1")
    assert knobs.code_env_token() == before
    knobs.enable_tile = True
    try:
        assert knobs.code_env_token() == knobs.code_env_fingerprint() != before
    finally:
        del knobs.enable_tile
    assert knobs.code_env_token() == before


def test_a_variable_set_between_launches_recompiles(monkeypatch, rng):
    """The token in the in-memory key: a code-changing variable set after a launch gives the
    next launch its own compile (here the Tile path instead of the TTIR executor)."""
    import triton_tile as triton
    import triton_tile.language as tl

    @triton.jit
    def copy(x, y, n, B: tl.constexpr):
        o = tl.arange(0, B)
        tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)

    x = rng.standard_normal(13).astype(np.float32)
    y = np.full(13, np.nan, np.float32)
    monkeypatch.setenv("ENABLE_TILE", "0")
    assert copy[(1,)](x, y, 13, B=16).metadata.path != "tile"
    monkeypatch.setenv("ENABLE_TILE", "1")
    y[:] = np.nan
    assert copy[(1,)](x, y, 13, B=16).metadata.path == "tile"
    assert y.tolist() == x.tolist()
