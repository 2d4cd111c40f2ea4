#!/usr/bin/env bash
# The GPU run, as a user meets it: on a bare GPU machine (python3 with torch, stock Triton and
# cupy; a CUDA toolkit with CUDA_HOME set; no tileiras, no network), in one device-tool call:
#
#   run(command="bash benchmarks/gpu_run.sh", carry=[".tileiras"], timeout_s=600)
#
# 1. tileiras: unpacked from .tileiras/tileiras-$TILEIRAS.tar.xz (its own three files: bin/
#    tileiras, bin/ptxas, lib/libnvvm.so.4, as `benchmarks/pack_tileiras.sh` makes them) and
#    put on PATH, as `pip install nvidia-cuda-tileiras` would. CUDA_HOME stays as the machine
#    has it.
# 2. the package built from source: `pip install --no-build-isolation -e .` (the machine has
#    scikit-build-core, pybind11, cmake and ninja; nothing is downloaded).
# 3. empty caches (ours and stock Triton's): every kernel compiles at its first launch.
# 4. STEPS (default: all, in this order):
#      probe  benchmarks/env_probe.py and tools.check: the process's C++ environment, tileiras
#      gpu    tests/gpu on both paths (PATHS="tile ptx")
#      multi  tests/gpu/test_multi_gpu.py alone, verbose, both paths (skips below two GPUs)
#      suite  the kernel suite (tests/language, tests/examples, or SUITE_TESTS) with --device
#             cuda, both paths
#      launch benchmarks/launch_overhead.py
#      bench  the benchmark table (LEAN=1: only the configs a user tunes), cold compile column
#      aot    the carried-cache feature: .gpu_cache (benchmarks/build_gpu_cache.sh) runs
#             tests/gpu's Tile path with tileiras off PATH
#    VERSUS=1: the bench step adds best against best (run_all.py --versus: each side tuned,
#    torch beside them, the hardware limit).
# Logs are written under /tmp and packed into $OUT as one archive, logs.tar.xz (the device tool
# brings back at most 8 files); the summary prints last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/triton_tile_gpu_run}
LOGS=$(mktemp -d /tmp/gpu_run.XXXX)
mkdir -p "$OUT" "$LOGS/logs"
L="$LOGS/logs"
STEPS=${STEPS:-probe gpu suite launch bench}
TILEIRAS=${TILEIRAS:-13.4}
export PYTHONUNBUFFERED=1
unset ENABLE_TILE TRITON_TILE_TARGET TRITON_TILE_FALLBACK TRITON_ALWAYS_COMPILE
unset TRITON_TILE_TILEIRAS TRITON_TILE_CACHE_DIR
PY=${PY:-python3}
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
SUMMARY=()
pack() { tar -C "$LOGS" -cJf "$OUT/logs.tar.xz" logs 2>/dev/null; }
trap pack EXIT

stamp "machine"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  $PY -c 'import sys, torch, triton; print("python", sys.version.split()[0], "torch",
    torch.__version__, "triton", triton.__version__)'
  echo "CUDA_HOME=${CUDA_HOME:-(unset)} CUDA_PATH=${CUDA_PATH:-(unset)}"
  g++ --version | head -1
} 2>&1 | tee "$L/machine.txt"

stamp "tileiras $TILEIRAS"
tarball=.tileiras/tileiras-$TILEIRAS.tar.xz
if [ -f "$tarball" ]; then
  root=/opt/tileiras-$TILEIRAS
  mkdir -p "$root" && tar -C "$root" -xJf "$tarball"
  export PATH="$root/bin:$PATH"
  tileiras --version | tail -2
else
  echo "no $tarball: the Tile path compiles nothing (falls back) unless AOT cubins are carried"
fi

stamp "build"
if ! $PY -m pip install --no-build-isolation --no-deps -e . > "$L/build.log" 2>&1; then
  tail -30 "$L/build.log"; echo "BUILD FAILED"; exit 1
fi
(cd / && $PY -c 'import triton_tile._core as c; print("built", c.__file__)')

export TRITON_TILE_CACHE_DIR=$(mktemp -d /tmp/tt_cache.XXXX) TRITON_CACHE_DIR=$(mktemp -d /tmp/triton_cache.XXXX)

for step in $STEPS; do
  case $step in
  probe)
    stamp "probe"
    $PY benchmarks/env_probe.py 2>&1 | tee "$L/env_probe.txt"
    $PY -m triton_tile.tools.check 2>&1 | tee "$L/check.txt" | tail -25
    ;;
  gpu)
    for p in ${PATHS:-tile ptx}; do
      stamp "tests/gpu, $p path"
      timeout -k 10 "${GPU_TIMEOUT:-200}" $PY -m pytest -q tests/gpu -k "$p" -p no:cacheprovider \
        -rfEs -n "${WORKERS:-12}" --timeout=300 > "$L/gpu_$p.log" 2>&1
      grep -E "^(FAILED|ERROR)|Fatal|Segmentation" "$L/gpu_$p.log" | cut -c1-220
      SUMMARY+=("tests/gpu $p: $(tail -1 "$L/gpu_$p.log")")
      echo "  ${SUMMARY[-1]}"
    done
    ;;
  multi)
    stamp "several GPUs in one process ($(nvidia-smi -L | wc -l) GPUs)"
    $PY -m pytest -v tests/gpu/test_multi_gpu.py -k "tile or ptx" -p no:cacheprovider -rfEs \
      --timeout=300 > "$L/multi_gpu.log" 2>&1
    grep -E "PASSED|FAILED|ERROR|SKIPPED" "$L/multi_gpu.log" | cut -c1-200 | head -30
    SUMMARY+=("tests/gpu/test_multi_gpu.py ($(nvidia-smi -L | wc -l) GPUs): $(tail -1 "$L/multi_gpu.log")")
    ;;
  suite)
    for p in ${PATHS:-tile ptx}; do
      stamp "kernel suite on the GPU, $p path"
      timeout -k 10 "${SUITE_TIMEOUT:-300}" $PY -m pytest -q ${SUITE_TESTS:-tests/language tests/examples} \
        --device cuda -k "$p" -p no:cacheprovider -n "${WORKERS:-12}" --timeout=120 \
        --timeout-method=thread -v -rfE > "$L/suite_$p.log" 2>&1
      grep -E "^(FAILED|ERROR)|Fatal|Segmentation|crashed|Timeout" "$L/suite_$p.log" | cut -c1-200 \
        | head -30
      SUMMARY+=("kernel suite (--device cuda) $p: $(tail -1 "$L/suite_$p.log")")
      echo "  ${SUMMARY[-1]}"
    done
    ;;
  launch)
    stamp "launch overhead"
    # LAUNCH_ARGS: e.g. --profile (each path's cProfile, in the log)
    $PY benchmarks/launch_overhead.py ${LAUNCH_ARGS:-} > "$L/launch_overhead.log" 2>&1
    head -5 "$L/launch_overhead.log"
    ;;
  bench)
    # One process per family, each under a time limit: a kernel that never finishes costs its
    # own family's numbers, not the whole table. Fresh caches per family: each family's first
    # launches are cold.
    : > "$L/bench.log"
    for fam in ${FAMILIES:-vector_add softmax layer_norm stencil matmul matmul_fp8 matmul_tma attention attention_bwd grouped_gemm}; do
      stamp "benchmarks: $fam"
      TRITON_TILE_CACHE_DIR=$(mktemp -d /tmp/tt_cache.XXXX) \
      TRITON_CACHE_DIR=$(mktemp -d /tmp/triton_cache.XXXX) \
        timeout "${FAMILY_TIMEOUT:-170}" $PY benchmarks/run_all.py --device cuda \
        ${QUICK:+--quick} ${LEAN:+--lean} ${VERSUS:+--versus} --only "$fam" > "$L/bench_$fam.log" 2> "$L/bench_$fam.err"
      rc=$?
      [ $rc -eq 124 ] && echo "  $fam: TIMED OUT after ${FAMILY_TIMEOUT:-170}s" | tee -a "$L/bench.log"
      grep -v "^  \(measured\|variant\)" "$L/bench_$fam.err" | tail -5
      cat "$L/bench_$fam.log" >> "$L/bench.log"
    done
    ;;
  aot)
    stamp "ahead-of-time cache, tileiras off PATH"
    if [ -d .gpu_cache ]; then
      (export PATH=$(echo "$PATH" | tr : '\n' | grep -v tileiras | paste -sd:) \
              TRITON_TILE_CACHE_DIR=$PWD/.gpu_cache TRITON_TILE_FALLBACK=error
       # (gpu_only tests launch outside dev.launch: nothing builds them ahead of time)
       $PY -m pytest -q tests/gpu -k tile -m "not gpu_only" -p no:cacheprovider \
         --timeout=300 > "$L/aot.log" 2>&1)
      SUMMARY+=("AOT cache, tests/gpu tile: $(tail -1 "$L/aot.log")")
    else
      SUMMARY+=("AOT cache: not carried (.gpu_cache)")
    fi
    ;;
  esac
done

stamp "done"
cat "$L/machine.txt"
for s in "${SUMMARY[@]}"; do echo "$s"; done
[ -f "$L/bench.log" ] && cat "$L/bench.log"
