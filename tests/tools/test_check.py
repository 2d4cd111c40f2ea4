"""`python -m triton_tile.tools.check`: the JSON report and its recommendations (CPU machine:
no GPU is assumed; the GPU branches are driven with synthetic reports)."""

import json
import os
import subprocess
import sys

import pytest

from triton_tile.tools import check

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(env_extra, *args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               **env_extra)
    out = subprocess.run([sys.executable, "-m", "triton_tile.tools.check", *args], env=env,
                         capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout)


def test_report_is_json_with_every_section():
    r = _run({"ENABLE_TILE": "1"}, "--no-probe")
    assert set(r) >= {"triton_tile", "tileiras", "gpu", "tile_path", "stock_triton",
                      "recommendation"}
    assert r["tile_path"]["enable_tile"] is True
    assert isinstance(r["gpu"]["available"], bool) and isinstance(r["gpu"]["devices"], list)
    assert isinstance(r["tileiras"]["found"], bool)
    if r["tileiras"]["found"]:
        assert r["tileiras"]["version"].count(".") == 2  # e.g. 13.4.92
    assert r["recommendation"]


def test_bad_tileiras_path_is_reported_not_raised(tmp_path):
    r = _run({"TRITON_TILE_TILEIRAS": str(tmp_path / "no-such-tileiras"), "ENABLE_TILE": "0"})
    assert r["tileiras"]["found"] is False
    assert "no-such-tileiras" in r["tileiras"]["error"]
    assert r["tile_path"]["enable_tile"] is False


def test_no_gpu_here_is_reported():
    from triton_tile import _core

    if _core.cuda_available():
        pytest.skip("a GPU machine")
    r = _run({}, "--no-probe")
    assert r["gpu"]["available"] is False and r["gpu"]["error"]
    assert "CPU executors" in r["recommendation"]


_H100 = {"available": True, "driver_version": 13000,
         "devices": [{"index": 0, "name": "H100", "compute_capability": "9.0",
                      "arch": "sm_90"}]}
_TOOL = {"found": True, "path": "/x/tileiras", "version": "13.4.92"}


@pytest.mark.parametrize("tool, gpu, enable_tile, stock, expect", [
    (_TOOL, _H100, False, "3.6.0", "set ENABLE_TILE=1"),
    (_TOOL, _H100, True, "3.6.0", "Tile IR path is active on sm_90"),
    ({"found": False}, _H100, True, None, "Install tileiras"),
    (dict(_TOOL, version="13.2.1"), _H100, True, None, "cannot compile for sm_90"),
    (_TOOL, dict(_H100, devices=[dict(_H100["devices"][0], arch="sm_75")]), True, None,
     "older than sm_80"),
    (_TOOL, {"available": False, "devices": []}, False, None, "TRITON_TILE_TARGET=sm_90"),
    ({"found": False}, {"available": False, "devices": []}, False, None, "CPU executors"),
])
def test_recommendations(tool, gpu, enable_tile, stock, expect):
    assert expect in check.recommend(tool, gpu, enable_tile, None, stock)
