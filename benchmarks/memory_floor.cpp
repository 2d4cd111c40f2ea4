// The memory floor of a vector add on this machine: c = a + b over n fp32 elements, split
// evenly over T threads, stores non-temporal (no read-for-ownership of c). No kernel that
// reads a and b and writes c can beat it by much; run_all.py compares the executor (and, through
// it, the interpreter-speedup target) against it.
//
//   g++ -O2 -pthread benchmarks/memory_floor.cpp -o /tmp/memory_floor && /tmp/memory_floor N T
//
// Prints the median time of 21 passes in ms (after one warm-up), as run_all.py's own timings.
// Threads are started once per pass (~50 us, small against the ~5 ms a 2^24 add takes).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static void add(const float *a, const float *b, float *c, size_t n) {
#if defined(__SSE2__)
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    _mm_stream_ps(c + i, _mm_add_ps(_mm_load_ps(a + i), _mm_load_ps(b + i)));
  for (; i < n; ++i)
    c[i] = a[i] + b[i];
  _mm_sfence();
#else
  for (size_t i = 0; i < n; ++i)
    c[i] = a[i] + b[i];
#endif
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t(1) << 24);
  int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  n = (n + 63) / 64 * 64; // whole 256-byte chunks per array: every thread's slice stays aligned
  auto *a = static_cast<float *>(std::aligned_alloc(64, n * 4));
  auto *b = static_cast<float *>(std::aligned_alloc(64, n * 4));
  auto *c = static_cast<float *>(std::aligned_alloc(64, n * 4));
  for (size_t i = 0; i < n; ++i) {
    a[i] = float(i % 1000);
    b[i] = 0.5f * float(i % 777);
    c[i] = 0;
  }
  size_t chunk = (n / threads + 63) / 64 * 64;
  std::vector<double> times;
  for (int pass = 0; pass < 22; ++pass) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      size_t lo = std::min(n, t * chunk), hi = std::min(n, lo + chunk);
      pool.emplace_back(add, a + lo, b + lo, c + lo, hi - lo);
    }
    for (auto &t : pool)
      t.join();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (pass > 0)
      times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  std::printf("%.4f\n", times[times.size() / 2]);
  bool ok = c[n - 1] == a[n - 1] + b[n - 1] && c[0] == a[0] + b[0];
  std::free(a);
  std::free(b);
  std::free(c);
  return ok ? 0 : 1;
}
