// The persistent thread pool (see thread_pool.h for the rules).
#include "exec/runtime/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tt::exec {
namespace {

inline void cpuRelax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

class ThreadPool {
public:
  ~ThreadPool() = delete; // lives for the whole process (threads are detached at exit)

  void run(int64_t n, int numThreads, int64_t chunk, const RangeFn &fn) {
    std::unique_lock<std::mutex> submit(submitMutex_, std::try_to_lock);
    if (!submit.owns_lock() || numThreads <= 1 || n <= 1) {
      fn(0, 0, n);
      return;
    }
    numThreads = static_cast<int>(std::min<int64_t>({numThreads, n, 4096}));
    ensureThreads(numThreads - 1);
    if (chunk <= 0)
      chunk = std::max<int64_t>(1, std::min<int64_t>(64, n / (int64_t(numThreads) * 8)));

    fn_ = &fn;
    n_ = n;
    chunk_ = chunk;
    workers_ = numThreads;
    next_.store(0, std::memory_order_relaxed);
    cancelled_.store(false, std::memory_order_relaxed);
    error_ = nullptr;
    pending_.store(numThreads - 1, std::memory_order_relaxed);
    {
      // The generation word carries the participant count, so a helper decides whether to
      // join from one atomic read, never from job fields a later job may be rewriting.
      std::lock_guard<std::mutex> lk(mutex_);
      uint64_t seq = (generation_.load(std::memory_order_relaxed) >> 16) + 1;
      generation_.store((seq << 16) | uint64_t(numThreads), std::memory_order_release);
    }
    wake_.notify_all();

    work(0);

    // Wait for the helpers: spin briefly, then sleep.
    for (int i = 0; i < 20000 && pending_.load(std::memory_order_acquire) != 0; ++i)
      cpuRelax();
    if (pending_.load(std::memory_order_acquire) != 0) {
      std::unique_lock<std::mutex> lk(mutex_);
      done_.wait(lk, [&] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    fn_ = nullptr;
    if (error_) {
      std::exception_ptr e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }

  static ThreadPool *&instance() {
    static ThreadPool *pool = nullptr;
    return pool;
  }

private:
  ThreadPool() = default;
  friend ThreadPool &pool();

  void ensureThreads(int helpers) {
    while (static_cast<int>(threads_.size()) < helpers) {
      int index = static_cast<int>(threads_.size()) + 1;
      // The generation is read here, before this launch publishes a new one, so the helper
      // cannot miss it.
      uint64_t seen = generation_.load(std::memory_order_acquire);
      threads_.emplace_back([this, index, seen] { helperLoop(index, seen); });
      threads_.back().detach();
    }
  }

  void work(int worker) {
    try {
      for (;;) {
        if (cancelled_.load(std::memory_order_relaxed))
          return;
        // Chunks shrink in the tail, to a share of what is left (guided scheduling), so the
        // threads finish together: with whole chunks to the end, the first thread done waited
        // 4-6% of a 1024^3 matmul's launch for the other, now 0.4-0.9% (2 threads, chunks of
        // 16 programs, Zen 3).
        int64_t begin = next_.load(std::memory_order_relaxed), size;
        do {
          if (begin >= n_)
            return;
          size = std::clamp<int64_t>((n_ - begin) / (2 * int64_t(workers_)), 1, chunk_);
        } while (!next_.compare_exchange_weak(begin, begin + size, std::memory_order_relaxed));
        (*fn_)(worker, begin, begin + size);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lk(errorMutex_);
      if (!error_)
        error_ = std::current_exception();
      cancelled_.store(true, std::memory_order_relaxed);
    }
  }

  void helperLoop(int index, uint64_t seen) {
    for (;;) {
      // Spin a little for back-to-back launches, then sleep.
      uint64_t g = seen;
      for (int i = 0; i < 4000 && (g = generation_.load(std::memory_order_acquire)) == seen; ++i)
        cpuRelax();
      if (g == seen) {
        std::unique_lock<std::mutex> lk(mutex_);
        wake_.wait(lk, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        g = generation_.load(std::memory_order_acquire);
      }
      seen = g;
      if (index >= static_cast<int>(g & 0xffff))
        continue;
      work(index);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lk(mutex_);
        done_.notify_all();
      }
    }
  }

  std::mutex submitMutex_;
  std::mutex mutex_, errorMutex_;
  std::condition_variable wake_, done_;
  std::atomic<uint64_t> generation_{0};
  std::vector<std::thread> threads_;

  const RangeFn *fn_ = nullptr;
  int64_t n_ = 0, chunk_ = 1;
  int workers_ = 1;
  std::atomic<int64_t> next_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> cancelled_{false};
  std::exception_ptr error_;
};

void forgetPoolInChild() { ThreadPool::instance() = nullptr; } // the old one is leaked

ThreadPool &pool() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, forgetPoolInChild); });
  static std::mutex createMutex;
  std::lock_guard<std::mutex> lk(createMutex);
  ThreadPool *&p = ThreadPool::instance();
  if (!p)
    p = new ThreadPool();
  return *p;
}

} // namespace

void parallelFor(int64_t n, int numThreads, int64_t chunk, const RangeFn &fn) {
  if (n <= 0)
    return;
  if (numThreads <= 0)
    numThreads = hardwareThreads();
  pool().run(n, numThreads, chunk, fn);
}

int hardwareThreads() {
  unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(h);
}

} // namespace tt::exec
