// C++-only check of the chain's last link: loads tileiras cubins through csrc/cuda (dlopen'd
// libcuda), launches vadd with grid = ceil(n / tile), block = (1,1,1), and compares with the
// host sum. Built by tools/gpu_chain/build_chain.sh; run on the GPU host:
//
//   cpp_vadd CUBIN[:TILE] ...
#include "cuda/driver.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tt::cuda;

static std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

int main(int argc, char **argv) {
  try {
    Driver &d = Driver::get();
    d.ensureContext();
    auto cc = d.computeCapability();
    std::printf("driver %d, %s, cc %d.%d\n", d.version(), d.deviceName().c_str(), cc.first,
                cc.second);
    const int n = 1000003, guard = 4099, total = n + guard;
    std::mt19937 rng(1234);
    std::normal_distribution<float> dist;
    std::vector<float> a(total), b(total), c(total, std::numeric_limits<float>::quiet_NaN());
    for (int i = 0; i < total; ++i) {
      a[i] = dist(rng);
      b[i] = dist(rng);
    }
    CUdeviceptr da, db, dc;
    d.check("cuMemAlloc", d.cuMemAlloc(&da, total * 4));
    d.check("cuMemAlloc", d.cuMemAlloc(&db, total * 4));
    d.check("cuMemAlloc", d.cuMemAlloc(&dc, total * 4));
    d.check("cuMemcpyHtoD", d.cuMemcpyHtoD(da, a.data(), total * 4));
    d.check("cuMemcpyHtoD", d.cuMemcpyHtoD(db, b.data(), total * 4));
    ModuleCache cache;
    int failures = 0;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i], path = arg;
      unsigned tile = 1024;
      auto colon = arg.rfind(':');
      if (colon != std::string::npos) {
        path = arg.substr(0, colon);
        tile = unsigned(std::atoi(arg.c_str() + colon + 1));
      }
      d.check("cuMemcpyHtoD", d.cuMemcpyHtoD(dc, c.data(), total * 4)); // NaN poison
      Module &m = cache.get(path, readFile(path));
      CUfunction f = m.function("vadd");
      const unsigned grid = (unsigned(n) + tile - 1) / tile;
      auto t0 = std::chrono::steady_clock::now();
      launch(f, {grid, 1, 1}, {1, 1, 1}, nullptr,
             {KernelArg::ptr(da), KernelArg::ptr(db), KernelArg::ptr(dc), KernelArg::i32(n)});
      d.check("cuCtxSynchronize", d.cuCtxSynchronize());
      auto t1 = std::chrono::steady_clock::now();
      std::vector<float> out(total);
      d.check("cuMemcpyDtoH", d.cuMemcpyDtoH(out.data(), dc, total * 4));
      double max_err = 0;
      long bad = 0, guard_bad = 0;
      for (int k = 0; k < n; ++k) {
        double e = std::fabs(double(out[k]) - double(a[k] + b[k]));
        if (!(e <= max_err))
          max_err = std::isnan(e) ? INFINITY : e;
        bad += out[k] != a[k] + b[k];
      }
      for (int k = n; k < total; ++k)
        guard_bad += !std::isnan(out[k]);
      const bool ok = bad == 0 && guard_bad == 0;
      failures += !ok;
      std::printf("%s: tile %u grid %u: max err %g, mismatches %ld, guard writes %ld, first "
                  "launch %.3f ms -> %s\n",
                  path.c_str(), tile, grid, max_err, bad, guard_bad,
                  std::chrono::duration<double, std::milli>(t1 - t0).count(), ok ? "OK" : "FAIL");
    }
    d.cuMemFree(da);
    d.cuMemFree(db);
    d.cuMemFree(dc);
    return failures ? 1 : 0;
  } catch (const DriverError &e) {
    std::fprintf(stderr, "driver error: %s (code %d %s)\n", e.what(), e.code, e.errname.c_str());
    return 2;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
