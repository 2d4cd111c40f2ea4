// A store of a deferred dot's accumulator that runs the dot's last GEMM (forward.cpp, "fused
// stores"; dot.cpp).
//
// A deferred dot's last K steps wait until the store of its accumulator, which runs them as one
// GEMM whose result goes straight to the store's rows: the tile is written while the next
// blocks' FMAs run, where a flush after the loop and then the store's copy wrote it twice and
// waited for each line's read for ownership (the copy was 1.6-3.2% of a 1024^3 fp32 matmul's
// samples on 2 cores). The store is the accumulator's last reader, so it is left as it was.
#pragma once

#include <cstdint>
#include <vector>

#include "exec/compiler/program.h"

namespace tt::exec {

// Runs the steps the dots of `pendings` (their Pending registers) still hold. With `out`, when
// the waiting dot's tile is `rows` x `lanes` and those rows meet no memory the steps read (A's
// rows, B's tile), the result goes to `out`, rows `ldo` floats apart, and true is returned: the
// store is done. Otherwise the steps run into the
// accumulator, which the store then writes as usual (false; also when no step waits).
bool runFusedDotSteps(const std::vector<uint32_t> &pendings, Frame &F, float *out, int64_t ldo,
                      int64_t rows, int64_t lanes);

} // namespace tt::exec
