// A persistent thread pool shared by the CPU executors (TTIR and Tile IR).
//
// Rules:
//  - threads are created on first need and reused for every launch of the process; the pool
//    grows to the largest thread count asked for and never shrinks;
//  - the calling thread takes part as worker 0, so `numThreads == 1` runs inline;
//  - work items [0, n) are handed out dynamically in chunks through an atomic counter, so
//    items run concurrently and in any order; a chunk is at most `chunk` items and, in the
//    tail, a share of those left (guided), so that the threads finish together;
//  - the first exception thrown by an item cancels the items not yet started and is rethrown
//    on the calling thread once every worker has stopped;
//  - one parallelFor runs at a time; a second concurrent call (another Python thread) runs its
//    items inline on its own thread rather than waiting;
//  - after fork() the child gets a fresh pool (the parent's threads do not exist there).
#pragma once

#include <cstdint>
#include <functional>

namespace tt::exec {

// Runs fn(worker, begin, end) over [0, n) in chunks of at most `chunk` items (0: automatic).
// `worker` is in [0, numThreads) and identifies the thread for per-thread state.
using RangeFn = std::function<void(int worker, int64_t begin, int64_t end)>;
void parallelFor(int64_t n, int numThreads, int64_t chunk, const RangeFn &fn);

// The number of hardware threads (at least 1).
int hardwareThreads();

} // namespace tt::exec
