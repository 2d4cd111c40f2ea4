// covered-reads: the reads in loops whose completion the stores after the loop need not wait
// for by token, because those stores consume the reads' values (an analysis of
// insert-memory-tokens).
//
// Why: a loop of loads whose values end in a store after the loop (a K loop's tiles summed
// into the tile a matmul stores) would have its read tokens joined every iteration and carried
// out of the loop for that store to wait on (write after read), whenever the store may alias
// the loads (pointers read from memory alias everything). tileiras 13.4 then makes every load
// of the loop wait for its own completion (the TMA producer copies synchronously), so the loop
// is not pipelined: a grouped GEMM ran at 146 TFLOP/s with those tokens and at 271-287 without
// them (H200, 2026-11-29, benchmarks/RESULTS.md).
//
// Tile IR orders an op after the ops whose values it consumes: a store that consumes a read's
// value runs after that read completed, token or not. A read R is covered, and the stores
// observing it skip its token, when:
//   - R is in a loop (`for` or `loop`) that holds none of the stores below: elsewhere a token
//     costs nothing and stays (and the race checker, which follows tokens, sees it);
//   - the values computed from R's value (through pure ops, `if` yields, loop-carried values
//     and loop results: S(R)) are observed only by stores (store_view_tko, store_ptr_tko) of
//     R's alias class or of the universal one; no load, atomic, condition, loop bound, assert
//     or print sees them;
//   - no value of S(R) is carried by a loop that holds one of those stores (it would reach a
//     later iteration's store, which does not consume this iteration's read);
//   - one value V of S(R) lies on every path from R to the stores, and V is computed at most
//     once per run of the block that encloses V and the stores (no loop in between).
// Then each instance of R since the last write of its class is either part of V's latest
// value, which each such store consumes, or never observed (an accumulator overwritten), and
// each such store ends R's window for the instances before it. Known limits: an `if` whose
// condition, or a loop whose bounds, depend on R make R a plain read; atomics that consume R
// do too; within one tile, a store is ordered after the loaded elements its own elements are
// computed from (an in-place update that overwrites elements other than those it read needs
// tl.debug_barrier() in Triton too, a full fence here).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <vector>

#include "ir/operation.h"

namespace tt {

struct CoveredReads {
  // A covered read -> its group: the index of the set of stores observing it.
  std::map<const Operation *, int> group;
  std::vector<std::set<const Operation *>> stores; // per group
};

// The covered reads of a function (`entry`, before tokens are threaded); `classOf` is the alias
// class of an access (insert-memory-tokens' roots), `universal` the class that aliases all.
CoveredReads findCoveredReads(Operation *entry,
                              const std::function<int(const Operation &)> &classOf, int universal);

} // namespace tt
