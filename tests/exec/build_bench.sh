#!/bin/sh
# Builds tests/exec/exec_bench against the core's archives in build/ (run after the main build):
# the executor's rooms (csrc/exec/*, one archive each) and tt_base. The group lets the linker
# go around the one declared cycle (compiler <-> kernels, tile; docs/architecture.md).
set -e
cd "$(dirname "$0")/../.."
g++ -std=c++17 -O3 -g -march=x86-64-v3 -DNDEBUG -Icsrc -I/usr/include/eigen3 \
  tests/exec/exec_bench.cpp -Wl,--start-group build/libtt_exec_run.a build/libtt_exec_tile.a \
  build/libtt_exec_kernels.a build/libtt_exec_compiler.a build/libtt_exec_tileir.a \
  build/libtt_exec_runtime.a build/libtt_base.a -Wl,--end-group -lpthread -ldl -o build/exec_bench
