// A C++ driver for profiling the executors without Python (perf sees every symbol):
//   exec_bench FILE.ttir KERNEL G0 THREADS REPS ARG...
// With TT_BENCH_TILE=1 in the environment the kernel runs on the Tile IR executor: the Tile
// pipeline's passes (compiler/tile_stage.py's TILE_PASSES) and the conversion's defaults first.
// ARG: pBYTES (a fresh array of BYTES bytes holding floats in [0, 1)), iVALUE, fVALUE.
// Runs the kernel over (G0, 1, 1) programs REPS times and prints the best time.
// Build: tests/exec/build_bench.sh (after the main build).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "conversion/ttir_to_tile/convert.h"
#include "exec/compiler/program.h"
#include "passes/passes.h"
#include "ttir/parser.h"

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s FILE KERNEL G0 THREADS REPS ARG...\n", argv[0]);
    return 2;
  }
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  auto m = tt::parseTTIR(ss.str(), argv[1]);
  std::unique_ptr<tt::exec::TTIRProgram> ttirProg;
  std::unique_ptr<tt::exec::TileProgram> tileProg;
  const char *tile = std::getenv("TT_BENCH_TILE");
  if (tile && tile[0] == '1') {
    tt::runPasses(*m, {"expand-block-pointer-loops", "scalarize-loop-pointers", "canonicalize",
                       "cse", "dce"});
    tt::TileConversion conv = tt::convertTTIRToTile(*m, argv[2], tt::TileOptions{});
    if (!conv.module) {
      std::fprintf(stderr, "the Tile conversion refused the kernel\n");
      return 1;
    }
    tileProg = std::make_unique<tt::exec::TileProgram>(*conv.module, argv[2]);
  } else {
    ttirProg = std::make_unique<tt::exec::TTIRProgram>(*m, argv[2]);
  }
  int64_t g0 = std::atoll(argv[3]);
  int threads = std::atoi(argv[4]), reps = std::atoi(argv[5]);
  using tt::exec::ArgValue;
  std::vector<std::vector<float>> arrays;
  std::vector<ArgValue> args;
  for (int i = 6; i < argc; ++i) {
    const char *a = argv[i];
    if (a[0] == 'p') {
      size_t bytes = std::strtoull(a + 1, nullptr, 10);
      arrays.emplace_back((bytes + 3) / 4);
      for (size_t k = 0; k < arrays.back().size(); ++k)
        arrays.back()[k] = static_cast<float>(std::rand()) / RAND_MAX;
      args.push_back(ArgValue::pointer(reinterpret_cast<uint64_t>(arrays.back().data()), bytes));
    } else if (a[0] == 'i') {
      args.push_back(ArgValue::integer(std::atoll(a + 1)));
    } else {
      args.push_back(ArgValue::floating(std::atof(a + 1)));
    }
  }
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    if (tileProg)
      tileProg->run({g0, 1, 1}, args, threads);
    else
      ttirProg->run({g0, 1, 1}, args, threads);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = t < best ? t : best;
  }
  std::printf("best %.3f ms\n", best * 1e3);
}
