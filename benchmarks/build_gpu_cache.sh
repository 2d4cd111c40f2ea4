#!/usr/bin/env bash
# Builds, on this CPU machine (tileiras installed, no GPU), the sm_90 cubins that the GPU run
# (benchmarks/gpu_run.sh) needs, into a git-ignored cache directory inside the checkout, to be
# copied to the GPU machine with it.
#
#   benchmarks/build_gpu_cache.sh [CACHE_DIR]        # default .gpu_cache; TARGET=sm_90
#   ONLY=tests benchmarks/build_gpu_cache.sh         # tests/gpu's kernels alone
#
# ONLY=tests is what gpu_run.sh's aot step runs (about 3 MB; the whole cache, about 20 MB, and
# tileiras's 57 MB are more than the device tool carries at once).
#
# It runs the GPU tests' and the benchmarks' kernels with TRITON_TILE_TARGET set, so each
# launch site compiles for the target through kernel.warmup with the same arguments the GPU
# run uses (backends/tile_gpu.py explains why the cache keys then match on the GPU machine,
# which has no tileiras). Run it again after any change to the sources: the keys cover them.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${1:-.gpu_cache}
exclude=$(git rev-parse --git-path info/exclude)  # (a worktree's .git is a file)
grep -qxF "/$CACHE/" "$exclude" 2>/dev/null || echo "/$CACHE/" >> "$exclude"

# The C++ core that python imports must be built from these sources: its source hash is part
# of every key, and the GPU machine builds from the sources. (An editable install's core wins
# over PYTHONPATH, and it goes stale when a source changes after `pip install -e .`: the whole
# cache then misses on the GPU machine, key input "compiler".)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
sources_hash() {
  local h; h=$(mktemp)
  cmake -DROOT="$PWD" -DOUT="$h" -P cmake/source_hash.cmake && cut -d'"' -f2 "$h"; rm -f "$h"
}
core_hash() { (cd / && python -c 'import triton_tile._core as c; print(c.source_hash)'); }
want=$(sources_hash)
if [ "$(core_hash 2>/dev/null)" != "$want" ]; then
  echo "the imported C++ core is not built from these sources: rebuilding (pip install -e .)"
  flock /tmp/tt_build.lock python -m pip install -q --no-build-isolation --no-deps -e . \
    | tail -3
  [ "$(core_hash)" = "$want" ] || { echo "still stale: $(core_hash) != $want"; exit 1; }
fi

rm -rf "$CACHE"  # only entries of this tree's code
export TRITON_TILE_CACHE_DIR="$PWD/$CACHE" TRITON_TILE_TARGET="${TARGET:-sm_90}"
unset ENABLE_TILE TRITON_TILE_FALLBACK TRITON_ALWAYS_COMPILE
python -m triton_tile.tools.check --no-probe | grep -E '"(found|version)"' || true
python -m pytest -q tests/gpu -p no:cacheprovider -W ignore::UserWarning | tail -3 || true
if [ "${ONLY:-}" = tests ]; then
  echo "cache: $(find "$CACHE" -name '*.cubin' -not -path '*/tileiras/*' | wc -l) kernels," \
       "$(du -sh "$CACHE" | cut -f1) in $CACHE for $TRITON_TILE_TARGET (tests/gpu only)"
  exit 0
fi
python benchmarks/run_all.py --device cuda --aot
python benchmarks/run_all.py --device cuda --aot --quick >/dev/null  # QUICK=1 GPU runs
python benchmarks/launch_overhead.py --aot
echo "cache: $(find "$CACHE" -name '*.cubin' -not -path '*/tileiras/*' | wc -l) kernels," \
     "$(du -sh "$CACHE" | cut -f1) in $CACHE for $TRITON_TILE_TARGET"
