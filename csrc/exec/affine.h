// Static stride analysis along the last dimension, and the compact pointer tiles it enables.
//
// For an integer tensor v the analysis proves, where it can, v[r, j] = v[r, 0] + s * j (in the
// type's wrapping arithmetic) for every row r and lane j of the last dimension, with s a
// compile-time constant: make_range has s = 1, splats and constants s = 0, a value whose last
// dimension is 1 has s = 0, addi/subi add strides, muli/shli by a constant scale them,
// broadcast/expand_dims/trunci keep them, extsi/extui keep them when the source cannot wrap
// within a row (s = 0 or a make_range), loop-carried values keep the stride their init and
// yield agree on. Pointer tensors get a stride in bytes through tt.splat and tt.addptr.
//
// A pointer tensor with a known stride whose every use is a load/store address, the base of
// another compact tt.addptr, or a loop-carried value that is compact too, is kept *compact*:
// its register holds one address per row plus, per row, the first lane whose narrow offset
// wrapped (so such a lane faults like the GPU's wild address would, instead of silently
// reading the unwrapped neighbour). Compact tiles are never materialized: tt.addptr updates
// R row addresses instead of R*L lanes, and loads/stores check bounds once per row.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "ir/operation.h"

namespace tt::exec {

struct CompactPtr {
  int64_t rowLen = 1;      // lanes per row (the last dimension)
  int64_t rows = 1;        // numel / rowLen
  int64_t strideBytes = 0; // address step between neighbouring lanes of a row
};

struct AffineInfo {
  std::unordered_map<const Value *, int64_t> intStride; // elements, proven values only
  std::unordered_map<const Value *, int64_t> ptrStride; // bytes, proven values only
  std::unordered_map<const Value *, CompactPtr> compact;

  const CompactPtr *compactOf(const Value *v) const {
    auto it = compact.find(v);
    return it == compact.end() ? nullptr : &it->second;
  }
  bool intStrideOf(const Value *v, int64_t &s) const {
    auto it = intStride.find(v);
    if (it == intStride.end())
      return false;
    s = it->second;
    return true;
  }
};

AffineInfo analyzeAffine(const Operation &func);

} // namespace tt::exec
