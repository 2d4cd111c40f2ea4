#!/usr/bin/env bash
# The whole GPU run, in one device-tool call on the bare GPU machine (python3 with torch,
# triton, cupy; nvcc, cmake, ninja, pybind11; no tileiras, no network):
#
#   benchmarks/build_gpu_cache.sh                                  # here first: the cubins
#   run(command="bash benchmarks/gpu_run.sh", carry=[".gpu_cache"], timeout_s=600)
#
# It builds the package in place (cmake + ninja, nothing downloaded), runs tests/gpu on both
# paths (Tile: cubins from .gpu_cache, since tileiras is absent; PTX: stock Triton), measures
# launch overhead, and prints the benchmark table last. Logs go to $OUT. QUICK=1: smaller
# benchmark sizes (a debugging run).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/triton_tile_gpu_run}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export TRITON_TILE_CACHE_DIR="$PWD/.gpu_cache"
unset ENABLE_TILE TRITON_TILE_TARGET TRITON_TILE_FALLBACK TRITON_ALWAYS_COMPILE
PY=python3
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*"; }

stamp "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/machine.txt"
$PY -c 'import sys, torch, triton; print("python", sys.version.split()[0], "torch",
  torch.__version__, "triton", triton.__version__)' | tee -a "$OUT/machine.txt"
[ -d .gpu_cache ] || echo "WARNING: no .gpu_cache: the Tile path has no cubins (run" \
  "benchmarks/build_gpu_cache.sh here first and carry .gpu_cache)"

stamp "build"
if ! { cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v $PY)" \
       && ninja -C build -j "$(nproc)"; } > "$OUT/build.log" 2>&1; then
  tail -30 "$OUT/build.log"; echo "BUILD FAILED"; exit 1
fi
$PY -m triton_tile.tools.check --no-probe | tee "$OUT/check.json"

declare -A RESULT
for p in tile ptx; do
  stamp "tests/gpu, $p path"
  $PY -m pytest -q tests/gpu -k "$p" -p no:cacheprovider -rfEs --timeout=300 \
    > "$OUT/tests_$p.log" 2>&1
  RESULT[$p]=$(tail -1 "$OUT/tests_$p.log")
  grep -E "^(FAILED|ERROR)" "$OUT/tests_$p.log" | cut -c1-200
  echo "  $p: ${RESULT[$p]}"
done

stamp "launch overhead"
$PY benchmarks/launch_overhead.py 2>&1 | tee "$OUT/launch_overhead.log"

# One process per family, each under a time limit: a kernel that never finishes costs its own
# family's numbers, not the whole table.
: > "$OUT/bench.log"
for fam in ${FAMILIES:-vector_add softmax layer_norm matmul matmul_tma attention}; do
  stamp "benchmarks: $fam"
  timeout "${FAMILY_TIMEOUT:-170}" $PY benchmarks/run_all.py --device cuda ${QUICK:+--quick} \
    --only "$fam" > "$OUT/bench_$fam.log" 2> "$OUT/bench_$fam.err"
  rc=$?
  [ $rc -eq 124 ] && echo "  $fam: TIMED OUT after ${FAMILY_TIMEOUT:-170}s" | tee -a "$OUT/bench.log"
  grep -v "^  measured" "$OUT/bench_$fam.err" | tail -5
  cat "$OUT/bench_$fam.log" >> "$OUT/bench.log"
done

stamp "done"
echo "tests/gpu: tile path: ${RESULT[tile]}; ptx path: ${RESULT[ptx]}"
cat "$OUT/bench.log"
