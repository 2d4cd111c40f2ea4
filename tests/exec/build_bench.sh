#!/bin/sh
# Builds tests/exec/exec_bench against build/libtt_core.a (run after the main build).
set -e
cd "$(dirname "$0")/../.."
g++ -std=c++17 -O3 -g -march=x86-64-v3 -DNDEBUG -Icsrc -I/usr/include/eigen3 \
  tests/exec/exec_bench.cpp build/libtt_core.a -lpthread -o build/exec_bench
