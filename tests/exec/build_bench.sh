#!/bin/sh
# Builds tests/exec/exec_bench against the core's archives in build/ (run after the main build):
# the executor's rooms (csrc/exec/*, one archive each) and tt_base. The group lets the linker
# go around the one declared cycle (compiler <-> kernels, tile; docs/architecture.md).
set -e
cd "$(dirname "$0")/../.."
# The archives of the newest build: pip's build directory (build/{wheel_tag}) or a plain one.
B=$(ls -td build/*/libtt_base.a build/libtt_base.a 2>/dev/null | head -1 | xargs dirname)
[ -n "$B" ] || { echo "no build: pip install -e . first" >&2; exit 1; }
g++ -std=c++17 -O3 -g -march=x86-64-v3 -DNDEBUG -Icsrc -I/usr/include/eigen3 \
  tests/exec/exec_bench.cpp -Wl,--start-group "$B"/libtt_exec_run.a "$B"/libtt_exec_tile.a \
  "$B"/libtt_exec_kernels.a "$B"/libtt_exec_compiler.a "$B"/libtt_exec_tileir.a \
  "$B"/libtt_exec_runtime.a "$B"/libtt_base.a -Wl,--end-group -lpthread -ldl -o build/exec_bench
