// Tile IR views on the CPU (tile_view.cpp): tensor_view registers and partition_view accesses.
//
// A tensor_view register holds int64 words [base address, shape_0..r-1, strides_0..r-1]
// (strides in elements); a partition_view shares it and adds, statically, the tile shape, the
// dim_map and the padding. load_view_tko/store_view_tko at indices (k_0..k_{r-1}) touch the
// tile whose element (j_0..j_{r-1}) is the tensor element x with x[dim_map[i]] = k_i * tile_i +
// j_i. Lanes with some x_d outside [0, shape_d) are outside the view: loads give the padding
// (0 when none) without reading memory, stores skip them. Since starts are >= 0, the lanes
// inside form a box [0, hi_0) x ... x [0, hi_{r-1}) of the tile (ViewBox). A tile index outside
// the index space (k_i * tile_i >= shape) is undefined in Tile IR: an ExecError here, never the
// padding, so a conversion that plans such an access fails on the CPU as it would on a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "exec/compiler/compiler.h"

namespace tt::exec {

constexpr int kMaxViewRank = 8;

// Everything an access needs, in one block of memory (it is read on every access).
struct ViewAux : Aux {
  int rank = 1;
  int es = 4;               // element bytes
  bool isBool = false;      // i1: loads canonicalize nonzero bytes to 1
  bool forward = false;     // a forwarded load (Frame::fwdSlot)
  bool forwardRows = false; // ... read as a dot's A: evenly spaced rows too (Frame::fwdRowBytes)
  int memo = -1;            // ... read as a dot's B: its TileMemo id (tile_memo.h)
  // A store of deferred dots' accumulator: their waiting steps (dot_store.h).
  std::vector<uint32_t> dotPendings;
  // A reduction through the view (atomic_red_view_tko): its atomics.h operation, element type
  // and memory order.
  int rmwOp = 0, order = 0;
  DType dt = DType::F32;
  bool padZero = true;
  std::array<char, 8> pad{}; // the padding element
  uint32_t view = 0;         // the tensor_view register
  int64_t numel = 1;
  int64_t tile[kMaxViewRank] = {}; // tile shape, per tile dimension
  // A strip-mined program (compiler.h; rank 1): a run moves the `numel` lanes of the tile from
  // Frame::laneBase on.
  bool strip = false;
  int dimMap[kMaxViewRank] = {}; // tile dimension -> tensor dimension
  Ref idx[kMaxViewRank];         // tile indices (read unsigned) ...
  DType idxType[kMaxViewRank] = {};
  bool idxConst[kMaxViewRank] = {}; // ... or constants known at prepare time
  uint64_t idxValue[kMaxViewRank] = {};
  // A make_tensor_view fused into its only access (tile_view.cpp): the view's words are
  // computed here from `words` (kDynamic where the next `dyn` register goes) and `base`.
  bool fused = false;
  Ref base;
  int64_t words[1 + 2 * kMaxViewRank] = {};
  Ref dyn[2 * kMaxViewRank];
  DType dynType[2 * kMaxViewRank] = {};
};

// The lanes of one access inside the view: element (j_0..) lives at base + sum j_i * step[i]
// (bytes) for 0 <= j_i < hi[i].
// Only the first `rank` entries of step and hi are set (no zero fill: this is built per access).
struct ViewBox {
  uint64_t base;
  int64_t step[kMaxViewRank];
  int64_t hi[kMaxViewRank];
  bool empty, full;
  bool outside; // a tile index outside the index space (ceil(shape / tile)): undefined in Tile IR
};

inline ViewBox viewBox(const ViewAux &a, const Frame &F) {
  ViewBox b;
  const int r = a.rank;
  int64_t local[1 + 2 * kMaxViewRank];
  const int64_t *v = F.at<int64_t>(a.view);
  if (a.fused) {
    local[0] = static_cast<int64_t>(*F.at<uint64_t>(a.base.off));
    for (int w = 1, k = 0; w <= 2 * r; ++w) {
      if (a.words[w] != kDynamic) {
        local[w] = a.words[w];
      } else {
        local[w] = readIntSext(F.R + a.dyn[k].off, a.dynType[k]);
        ++k;
      }
    }
    v = local;
  }
  b.base = static_cast<uint64_t>(v[0]);
  b.empty = false;
  b.full = true;
  b.outside = false;
  for (int i = 0; i < r; ++i) {
    const int d = a.dimMap[i];
    const uint64_t k =
        a.idxConst[i] ? a.idxValue[i]
                      : static_cast<uint64_t>(readIntSext(F.R + a.idx[i].off, a.idxType[i], true));
    const int64_t shape = v[1 + d], stride = v[1 + r + d];
    // (in 128 bits: an i32 index times a tile never wraps)
    const unsigned __int128 tileStart = static_cast<unsigned __int128>(k) * a.tile[i];
    const unsigned __int128 start = tileStart + static_cast<uint64_t>(a.strip ? F.laneBase : 0);
    const int64_t lanes = a.strip ? a.numel : a.tile[i];
    b.outside |= tileStart >= static_cast<uint64_t>(shape) || shape <= 0;
    int64_t hi = 0;
    if (shape > 0 && start < static_cast<unsigned __int128>(shape))
      hi = shape - static_cast<int64_t>(start);
    else
      b.empty = true;
    hi = hi < lanes ? hi : lanes;
    b.hi[i] = hi;
    b.full &= hi == lanes;
    b.step[i] = stride * a.es;
    if (b.empty)
      continue;
    b.base += static_cast<uint64_t>(static_cast<int64_t>(start) * stride * a.es);
  }
  b.full &= !b.empty;
  return b;
}

// Calls f(address of the row's first lane, the row's first lane index in the tile, row length)
// for every row (along the last tile dimension) of the box.
template <class Fn> inline void forEachRow(const ViewAux &a, const ViewBox &b, Fn &&f) {
  if (b.empty)
    return;
  const int r = a.rank;
  const int64_t len = b.hi[r - 1];
  if (r == 1) {
    f(b.base, int64_t(0), len);
    return;
  }
  int64_t pos[kMaxViewRank];
  for (int i = 0; i < r; ++i)
    pos[i] = 0;
  for (;;) {
    uint64_t addr = b.base;
    int64_t lane = 0;
    for (int i = 0; i < r - 1; ++i) {
      addr += static_cast<uint64_t>(pos[i] * b.step[i]);
      lane = lane * a.tile[i] + pos[i];
    }
    lane *= a.tile[r - 1];
    f(addr, lane, len);
    int i = r - 2;
    for (; i >= 0; --i) {
      if (++pos[i] < b.hi[i])
        break;
      pos[i] = 0;
    }
    if (i < 0)
      return;
  }
}

// Emission (tile_view.cpp).
void emitMakeTensorView(Compiler &c, const Operation &op);
// A ViewAux for a load_view_tko/store_view_tko of `view` at `indices` moving `tileValue`.
ViewAux *makeViewAux(Compiler &c, const Operation &op, const Value *view,
                     const std::vector<Value *> &indices, const Value *tileValue);
void emitViewLoad(Compiler &c, const Operation &op, ViewAux *a, const Value *res);
void emitViewStore(Compiler &c, const Operation &op, ViewAux *a, const Value *val);
// atomic_red_view_tko: each lane of `val` inside the view applied to memory by `mode` (Tile
// IR's AtomicRMWMode) as a relaxed atomic; lanes outside are skipped.
void emitViewReduce(Compiler &c, const Operation &op, ViewAux *a, const Value *val, int mode);

} // namespace tt::exec
