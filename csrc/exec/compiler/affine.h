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
// A remainder (x % n, x with stride s, n the same along the row) gets the stride s as an
// assumption (affine.h's AffineInfo::intAssumed); compact tt.addptr checks such offsets lane by
// lane and keeps the lanes where the assumption fails as exceptions (compact_ptr.cpp).
//
// A pointer tensor with a known stride whose every use is a load/store address, the base of
// another compact tt.addptr, or a loop-carried value that is compact too, is kept *compact*:
// its register holds one address per row, and per row the first lane that does not follow the
// stride (a narrow offset that wrapped, or a failed assumption), whose exact addresses are kept
// aside (compact_ptr.cpp). Compact tiles are never materialized: tt.addptr updates R row
// addresses instead of R*L lanes, and loads/stores check bounds once per tile or row.
//
// Outer-product broadcasts (TTIR only): a rank-2 tt.broadcast of an (R, 1) or a (1, L) tile to
// (R, L), R and L both above 1, from a source that is not a splat, is *folded* (its register is
// the source's, never written) when every use reads it through the source:
//  - a pointer broadcast of rows, as the base of a compact tt.addptr (a row address each);
//  - an integer broadcast, as the offset of a compact tt.addptr with a proven stride (rows: the
//    row's one offset; lanes: lane 0 and the stride, the same for every row);
//  - an i1 broadcast, as the mask of a compact load or store, or an operand of a box mask.
// A *box mask* is an i1 arith.andi of (R, L) whose operands are folded i1 broadcasts or box
// masks, used only as compact access masks or by box masks: its register holds R row bytes
// then L lane bytes, and lane j of row r is active when both are (compact_ptr.cpp). Together
// they replace the R*L-lane pointer, offset and mask tiles that a masked 2-D access's
// `rows[:, None] ... cols[None, :]` arithmetic builds (every iteration of a K loop) with R + L
// bytes. Strip-mined kernels (rank 1) have none.
//
// Tile IR (cuda_tile.entry) gets the same analysis through the TTIR op each op's rule follows
// (iota as make_range, offset as addptr, reshape/broadcast of a one-element tile as a splat,
// exti as extsi, ...; loop-carried values meet over for/loop/if and their continue/break/yield
// terminators), so the pointer gathers the conversion leaves inside loops
// (`offset(broadcast(reshape(base)), start + iota)` then load_ptr_tko/store_ptr_tko) run as
// compact accesses like their tt.load/tt.store originals. Only weak (plain) load_ptr_tko and
// store_ptr_tko take compact pointers, and Tile IR pointer tiles that cross control flow stay
// full. The Tile IR checker (TRITON_TILE_CHECK) does not run the analysis: it records every lane.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "ir/operation.h"

namespace tt::exec {

struct CompactPtr {
  int64_t rowLen = 1;      // lanes per row (the last dimension)
  int64_t rows = 1;        // numel / rowLen
  int64_t strideBytes = 0; // address step between neighbouring lanes of a row
};

// Pointers whose provenance is not a kernel argument: made from integers (tt.int_to_ptr) or
// loaded from memory, or computed from such pointers. The executor cannot know the extent of
// the memory they point into, so their accesses are not bounds-checked (documented limit).
struct AffineInfo {
  std::unordered_set<const Value *> foreignPtr;

  std::unordered_map<const Value *, int64_t> intStride; // elements
  // Integer strides that are assumed, not proven: remainders `(x + arange) % n` are affine
  // within a row only when the row does not cross a multiple of n; their users check.
  std::unordered_set<const Value *> intAssumed;
  std::unordered_map<const Value *, int64_t> ptrStride; // bytes, proven values only
  std::unordered_map<const Value *, CompactPtr> compact;
  // Rank-1 tiles never materialized (compact_ptr.cpp): integer tiles with a proven stride that
  // only feed compact tt.addptr offsets, interval masks and each other are computed at lane 0
  // only ("lazy"); i1 tiles from an ordering tt.cmpi of such values (and andi of those) that
  // only feed the masks of compact loads/stores are kept as one interval of active lanes.
  std::unordered_set<const Value *> lazyInt;
  std::unordered_set<const Value *> intervalMask;
  // Folded broadcasts: true where the source is (R, 1) (rows), false where it is (1, L).
  std::unordered_map<const Value *, bool> folded;
  std::unordered_set<const Value *> boxMask;

  const CompactPtr *compactOf(const Value *v) const {
    auto it = compact.find(v);
    return it == compact.end() ? nullptr : &it->second;
  }
  bool lazy(const Value *v) const { return lazyInt.count(v) != 0; }
  bool interval(const Value *v) const { return intervalMask.count(v) != 0; }
  bool assumed(const Value *v) const { return intAssumed.count(v) != 0; }
  // 0: not folded; 1: a folded broadcast of rows; 2: of lanes.
  int foldOf(const Value *v) const {
    auto it = folded.find(v);
    return it == folded.end() ? 0 : it->second ? 1 : 2;
  }
  bool box(const Value *v) const { return boxMask.count(v) != 0; }
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
