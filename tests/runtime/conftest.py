"""Runtime tests: every test gets its own kernel cache directory, so on-disk state from one
test (or from the user's ~/.triton_tile) never leaks into another."""

import pytest


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "tt_cache"
    monkeypatch.setenv("TRITON_TILE_CACHE_DIR", str(d))
    return d
