// A small C++ driver for profiling the TTIR executor without Python:
//   exec_bench FILE.ttir KERNEL N THREADS REPS
// runs KERNEL(x, y, out, n) (three f32 arrays of N elements and an i32) over cdiv(N, 1024)
// programs, REPS times, and prints the best time. Build: tests/exec/build_bench.sh.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "exec/program.h"
#include "ttir/parser.h"

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s FILE KERNEL N THREADS REPS\n", argv[0]);
    return 2;
  }
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  auto m = tt::parseTTIR(ss.str(), argv[1]);
  tt::exec::TTIRProgram prog(*m, argv[2]);
  int64_t n = std::atoll(argv[3]);
  int threads = std::atoi(argv[4]), reps = std::atoi(argv[5]);
  std::vector<float> x(n, 1.0f), y(n, 2.0f), o(n, 0.0f);
  using tt::exec::ArgValue;
  std::vector<ArgValue> args = {
      ArgValue::pointer(reinterpret_cast<uint64_t>(x.data()), n * 4),
      ArgValue::pointer(reinterpret_cast<uint64_t>(y.data()), n * 4),
      ArgValue::pointer(reinterpret_cast<uint64_t>(o.data()), n * 4), ArgValue::integer(n)};
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    prog.run({(n + 1023) / 1024, 1, 1}, args, threads);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = t < best ? t : best;
  }
  std::printf("best %.3f ms, out[0] = %g\n", best * 1e3, o[0]);
}
