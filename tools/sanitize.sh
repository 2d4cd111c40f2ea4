#!/usr/bin/env bash
# The C++ core under AddressSanitizer and UBSan: builds it into build/sanitize (RelWithDebInfo,
# TT_SANITIZE=address,undefined; incremental) and runs pytest against it, loading that build
# through TRITON_TILE_CORE with the ASan runtime preloaded into Python.
#
#   tools/sanitize.sh                       # the whole suite (CI runs this)
#   tools/sanitize.sh tests/language -k dot # any pytest arguments
#
# Any ASan report or UBSan finding aborts the process, so the run fails. Leak detection is off:
# CPython itself keeps memory until exit. PY picks the interpreter (default .venv/bin/python).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
BUILD=${BUILD:-build/sanitize}

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTT_SANITIZE=address,undefined -DPython_EXECUTABLE="$(command -v "$PY" || echo "$PY")" \
  >/dev/null
cmake --build "$BUILD" | tail -1
core=$(ls "$BUILD"/_core*.so)

asan=$(${CXX:-g++} -print-file-name=libasan.so)
ubsan=$(${CXX:-g++} -print-file-name=libubsan.so)
export LD_PRELOAD="$asan:$ubsan${LD_PRELOAD:+:$LD_PRELOAD}"
# Reports go to files too: pytest captures the test's stderr, and an aborted process never
# shows what it captured.
reports="$PWD/$BUILD/reports"
rm -rf "$reports" && mkdir -p "$reports"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:log_path=$reports/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export TRITON_TILE_CORE="$PWD/$core"
# By default the whole suite (about 4 minutes on 2 cores, 4x the plain run): every kernel it
# compiles goes through the frontend, the passes, both executors and the conversion. tileiras
# is not needed (the assemble check belongs to the plain run).
if [ $# -eq 0 ]; then
  set -- tests
fi
"$PY" -c 'import triton_tile, sys; assert "sanitize" in triton_tile._core.__file__ or \
  triton_tile._core.__file__ == sys.argv[1], triton_tile._core.__file__' "$TRITON_TILE_CORE"
rc=0
"$PY" -m pytest -q -p no:cacheprovider "$@" || rc=$?
for f in "$reports"/*; do
  [ -e "$f" ] || continue
  echo "---- $f"; cat "$f"; rc=${rc/#0/1}
done
exit $rc
