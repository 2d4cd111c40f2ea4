// Compact pointer tiles (affine.h): tt.addptr, tt.load and tt.store on pointer tiles kept as
// one address per row.
//
// Register layout for R rows of L lanes (8-byte words):
//   [R row addresses][R lane limits][R*L exception lanes]
// Lane j < limit[r] of row r has the address start[r] + j * S (S, the stride in bytes, is a
// compile-time constant). Lanes j >= limit[r] are exceptions whose exact addresses are kept in
// the exception area; they come from
//  - a narrow (i8/i16/i32) offset that wraps within the row: the exception holds the address
//    the GPU would form from the wrapped offset (so a live wrapped lane faults like there);
//  - offsets whose stride was only assumed (a remainder `(x + arange) % n`, affine.h) and that
//    are not affine at run time, e.g. the last block of a tutorial-03 matmul when n is not a
//    multiple of the block: tt.addptr checks every lane of such offsets and keeps the others.
// Exceptions are rare; the common case touches 2R words per op. Loads and stores check bounds
// once per tile (or per row), copy affine rows with vector moves and gather exception lanes.
#include <algorithm>

#include "exec/compiler/compiler.h"
#include "exec/kernels/dot_store.h"
#include "exec/kernels/gemm.h"
#include "exec/kernels/memory_common.h"
#include "exec/kernels/shared_emit.h"
#include "exec/runtime/copy.h"
#include "exec/runtime/tile_memo.h"
#include "exec/tileir/tile_ops.h"

namespace tt::exec {
namespace {

using namespace mem;

struct CompactAux : Aux {
  bool intervalMask = false; // the mask is an interval mask (rows == 1)
  int64_t rows = 1, rowLen = 1;
  int64_t stride = 0; // bytes between neighbouring lanes
  int es = 4;         // element bytes (load/store)
  bool hasMask = false, hasOther = false, isBool = false;
  bool forward = false;     // a forwarded load (Frame::fwdSlot)
  bool forwardRows = false; // ... read as a dot's A: evenly spaced rows too (Frame::fwdRowBytes)
  int memo = -1;            // ... read as a dot's B: its TileMemo id (tile_memo.h)
  // A store of deferred dots' accumulator: their waiting steps (dot_store.h).
  std::vector<uint32_t> dotPendings;
  // Masks of outer products (affine.h): 1 row bytes (a folded broadcast of rows), 2 lane bytes
  // (of lanes), 3 a box mask (R row bytes, then L lane bytes); 0 otherwise.
  int boxMode = 0;
  // tt.addptr
  // 0 broadcast scalar, 1 compact, 2 full tile, 3 full tile whose rows are one address each
  // (a broadcast along the last dimension: the lanes need no check), 4 a folded broadcast of
  // rows (the register holds one address per row)
  int baseMode = 0;
  int64_t baseStride = 0; // bytes, compact or full base
  bool offBcast = false;
  // A folded offset broadcast: rows (one offset per row) or lanes (one row for all rows).
  bool offRows = false, offShared = false;
  bool verifyOffsets = false; // the offset stride was assumed: check every lane
  int64_t offStride = 0;      // elements
  int offBits = 32;
  int shift = 2; // log2(sizeof(pointee))
};

// Whether every row of the pointer tile `v` is one address repeated: a broadcast (TTIR's, or
// Tile IR's) of a tile whose last dimension is 1.
bool rowUniform(const Value *v) {
  const Operation *d = v->def;
  if (!d || !(d->is("tt.broadcast") || d->is("cuda_tile.broadcast")) || d->numOperands() != 1)
    return false;
  const Type src = d->operand(0)->type;
  return src.isTensor() && src.rank() == v->type.rank() && src.rank() > 0 &&
         src.shape().back() == 1;
}

// The first lane of a row whose narrow offset off0 + so*j leaves the type's range.
inline int64_t firstWrappedLane(int64_t off0, int64_t so, int bits, int64_t rowLen) {
  if (bits >= 64 || so == 0)
    return rowLen;
  const int64_t hi = (int64_t(1) << (bits - 1)) - 1, lo = -hi - 1;
  int64_t j = so == 1  ? hi - off0 + 1 // (the usual unit stride: no division per row)
              : so > 0 ? (hi - off0) / so + 1
                       : (off0 - lo) / (-so) + 1;
  return j < rowLen ? j : rowLen;
}

// off0 + so*j in the offset type's wrapping arithmetic, sign-extended.
template <class Off> inline int64_t wrapped(int64_t off0, int64_t so, int64_t j) {
  return static_cast<int64_t>(
      static_cast<Off>(static_cast<uint64_t>(off0) + static_cast<uint64_t>(so * j)));
}

template <class Off> void compactAddptrK(const Inst &I, Frame &F) {
  const CompactAux &a = *static_cast<const CompactAux *>(I.aux);
  const int64_t R = a.rows, L = a.rowLen;
  uint64_t *starts = F.at<uint64_t>(I.out);
  int64_t *limits = reinterpret_cast<int64_t *>(starts + R);
  uint64_t *ex = starts + 2 * R;
  const uint64_t *base = F.at<uint64_t>(I.in[0].off);
  const Off *off = F.at<Off>(I.in[1].off);
  if (a.baseMode == 1 && a.offBcast) { // ptrs += uniform step: move every row and exception
    const uint64_t delta = static_cast<uint64_t>(static_cast<int64_t>(off[0])) << a.shift;
    const int64_t *blim = reinterpret_cast<const int64_t *>(base + R);
    // (the loop's pointers advance by a step each iteration: branch-free loops over the rows,
    // and the exception lanes only when a row has some)
    int64_t minLim = L;
    for (int64_t r = 0; r < R; ++r) {
      starts[r] = base[r] + delta;
      minLim = blim[r] < minLim ? blim[r] : minLim;
    }
    if (limits != blim)
      std::copy(blim, blim + R, limits);
    if (minLim < L)
      for (int64_t r = 0; r < R; ++r)
        for (int64_t j = limits[r]; j < L; ++j)
          ex[r * L + j] = base[2 * R + r * L + j] + delta;
    return;
  }
  // A folded offset of lanes is the same row for every row: its first wrapped lane too.
  const int64_t sharedLim =
      a.offShared ? firstWrappedLane(static_cast<int64_t>(off[0]), a.offStride, a.offBits, L) : L;
  if (a.baseMode == 4 && a.offShared && sharedLim == L) { // rows + one lane row: no exceptions
    const uint64_t delta = static_cast<uint64_t>(static_cast<int64_t>(off[0])) << a.shift;
    for (int64_t r = 0; r < R; ++r) {
      starts[r] = base[r] + delta;
      limits[r] = L;
    }
    return;
  }
  for (int64_t r = 0; r < R; ++r) {
    uint64_t b;
    int64_t limB = L;
    if (a.baseMode == 0) {
      b = base[0];
    } else if (a.baseMode == 1) {
      b = base[r];
      limB = reinterpret_cast<const int64_t *>(base + R)[r];
    } else if (a.baseMode == 3) {
      b = base[r * L];
    } else if (a.baseMode == 4) {
      b = base[r];
    } else {
      b = base[r * L];
      for (int64_t j = 1; j < L; ++j) // a full base: affine up to its first odd lane
        if (base[r * L + j] != b + static_cast<uint64_t>(j * a.baseStride)) {
          limB = j;
          break;
        }
    }
    const Off *orow = off + (a.offBcast || a.offShared ? 0 : a.offRows ? r : r * L);
    const int64_t o0 = static_cast<int64_t>(orow[0]);
    int64_t lim = limB;
    if (!a.offBcast) {
      lim =
          std::min(lim, a.offShared ? sharedLim : firstWrappedLane(o0, a.offStride, a.offBits, L));
      if (a.verifyOffsets)
        for (int64_t j = 1; j < lim; ++j)
          if (static_cast<int64_t>(orow[j]) != wrapped<Off>(o0, a.offStride, j)) {
            lim = j;
            break;
          }
    }
    starts[r] = b + (static_cast<uint64_t>(o0) << a.shift);
    limits[r] = lim;
    // Exception lanes: the exact address of each.
    for (int64_t j = lim; j < L; ++j) {
      uint64_t bj = a.baseMode == 0 || a.baseMode >= 3 ? b
                    : a.baseMode == 2                  ? base[r * L + j]
                    : j < limB                         ? b + static_cast<uint64_t>(j * a.baseStride)
                                                       : base[2 * R + r * L + j];
      // Verified offsets are read; proven ones follow the stride (a lazy offset register holds
      // lane 0 only).
      int64_t oj = a.offBcast        ? o0
                   : a.verifyOffsets ? static_cast<int64_t>(orow[j])
                                     : wrapped<Off>(o0, a.offStride, j);
      ex[r * L + j] = bj + (static_cast<uint64_t>(oj) << a.shift);
    }
  }
}

// Checks a row's active lanes [first, last]; throws at the first bad one.
void checkRow(const Inst &I, const Frame &F, Access kind, uint64_t start, int64_t limit,
              const uint64_t *ex, int64_t stride, int es, const uint8_t *m, int64_t first,
              int64_t last, int64_t laneBase) {
  const LaunchState &L = *F.launch;
  int64_t affLast = std::min(last, limit - 1);
  if (first <= affLast) {
    uint64_t lo = start + first * stride, hi = start + affLast * stride;
    if (lo > hi)
      std::swap(lo, hi);
    if (!accessible(I, L, kind, lo, hi - lo + es, false))
      for (int64_t j = first; j <= affLast; ++j) {
        uint64_t addr = start + j * stride;
        if ((!m || m[j]) && !accessible(I, L, kind, addr, es, true))
          throwOob(I, F, kind, addr, laneBase + j);
      }
  }
  for (int64_t j = std::max(first, limit); j <= last; ++j)
    if ((!m || m[j]) && !accessible(I, L, kind, ex[j], es, true))
      throwOob(I, F, kind, ex[j], laneBase + j);
}

// ---- interval masks (affine.h): [int64 lo][int64 hi][L bytes] ----
// lo >= 0: lanes [lo, hi) are active; lo < 0: the L bytes hold the mask lane by lane.

struct IntervalAux : Aux {
  int64_t L = 1;
  int pred = 2;                      // arith.cmpi predicate (2..9)
  int64_t sa = 0, sb = 0;            // lane strides of the operands
  DType dt = DType::I32;             // operand type
  bool aFull = false, bFull = false; // andi: operand modes are read from their headers
};

inline bool cmpPred(int pred, int64_t sx, int64_t sy) {
  if (pred >= 6) { // unsigned predicates
    uint64_t x = static_cast<uint64_t>(sx), y = static_cast<uint64_t>(sy);
    return pred == 6 ? x < y : pred == 7 ? x <= y : pred == 8 ? x > y : x >= y;
  }
  const int64_t x = sx, y = sy;
  switch (pred) {
  case 2:
  case 6:
    return x < y;
  case 3:
  case 7:
    return x <= y;
  case 4:
  case 8:
    return x > y;
  default:
    return x >= y;
  }
}

// Lane j of a lazy (or splat) operand, exactly in its type's wrapping arithmetic.
inline int64_t laneValue(int64_t v0, int64_t s, int64_t j, int bits, bool isUnsigned) {
  uint64_t u = static_cast<uint64_t>(v0) + static_cast<uint64_t>(s * j);
  if (bits < 64) {
    u &= (uint64_t(1) << bits) - 1;
    if (!isUnsigned && (u >> (bits - 1)))
      u |= ~((uint64_t(1) << bits) - 1);
  }
  return static_cast<int64_t>(u);
}

void intervalCmpK(const Inst &I, Frame &F) {
  const IntervalAux &a = *static_cast<const IntervalAux *>(I.aux);
  const bool uns = a.pred >= 6;
  const int bits = intBits(a.dt);
  const int64_t a0 = readIntSext(F.R + I.in[0].off, a.dt, uns);
  const int64_t b0 = readIntSext(F.R + I.in[1].off, a.dt, uns);
  int64_t *hdr = F.at<int64_t>(I.out);
  uint8_t *bytes = F.at<uint8_t>(I.out) + 16;
  const int64_t L = a.L;
  auto P = [&](int64_t j) {
    return cmpPred(a.pred, laneValue(a0, a.sa, j, bits, uns), laneValue(b0, a.sb, j, bits, uns));
  };
  // Without a wrap inside the row both operands are linear in j, so P is monotone.
  auto noWrap = [&](int64_t v0, int64_t s) {
    if (s == 0)
      return true;
    __int128 lo = uns ? 0 : -(__int128(1) << (bits - 1));
    __int128 hi = uns ? (__int128(1) << bits) - 1 : (__int128(1) << (bits - 1)) - 1;
    __int128 v = uns && bits == 64 ? __int128(static_cast<uint64_t>(v0)) : __int128(v0);
    __int128 last = v + __int128(s) * (L - 1);
    return last >= lo && last <= hi;
  };
  if (noWrap(a0, a.sa) && noWrap(b0, a.sb)) {
    bool p0 = P(0), pl = P(L - 1);
    if (p0 == pl) {
      hdr[0] = 0;
      hdr[1] = p0 ? L : 0;
      return;
    }
    int64_t lo = 0, hi = L - 1; // P(lo) == p0, P(hi) != p0
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      (P(mid) == p0 ? lo : hi) = mid;
    }
    hdr[0] = p0 ? 0 : hi;
    hdr[1] = p0 ? hi : L;
    return;
  }
  hdr[0] = -1;
  hdr[1] = -1;
  for (int64_t j = 0; j < L; ++j)
    bytes[j] = P(j) ? 1 : 0;
}

void intervalAndK(const Inst &I, Frame &F) {
  const IntervalAux &a = *static_cast<const IntervalAux *>(I.aux);
  const int64_t *x = F.at<int64_t>(I.in[0].off), *y = F.at<int64_t>(I.in[1].off);
  int64_t *hdr = F.at<int64_t>(I.out);
  if (x[0] >= 0 && y[0] >= 0) {
    int64_t lo = std::max(x[0], y[0]), hi = std::min(x[1], y[1]);
    hdr[0] = lo < hi ? lo : 0;
    hdr[1] = lo < hi ? hi : 0;
    return;
  }
  uint8_t *out = F.at<uint8_t>(I.out) + 16;
  const uint8_t *xb = reinterpret_cast<const uint8_t *>(x + 2);
  const uint8_t *yb = reinterpret_cast<const uint8_t *>(y + 2);
  for (int64_t j = 0; j < a.L; ++j) {
    bool xj = x[0] >= 0 ? (j >= x[0] && j < x[1]) : xb[j] != 0;
    bool yj = y[0] >= 0 ? (j >= y[0] && j < y[1]) : yb[j] != 0;
    out[j] = xj && yj;
  }
  hdr[0] = -1;
  hdr[1] = -1;
}

// ---- box masks (affine.h): [R row bytes][L lane bytes] ----

struct BoxAux : Aux {
  int64_t R = 1, L = 1;
  int modes[2] = {0, 0}; // each operand's: 1 row bytes, 2 lane bytes, 3 a box
};

void boxAndK(const Inst &I, Frame &F) {
  const BoxAux &a = *static_cast<const BoxAux *>(I.aux);
  const int64_t R = a.R, L = a.L;
  uint8_t *rows = F.at<uint8_t>(I.out), *lanes = rows + R;
  std::fill(rows, rows + R + L, uint8_t(1));
  for (int k = 0; k < 2; ++k) {
    const uint8_t *src = F.at<uint8_t>(I.in[k].off);
    const int mode = a.modes[k];
    if (mode & 1)
      for (int64_t r = 0; r < R; ++r)
        rows[r] &= src[r] != 0;
    if (mode & 2) {
      const uint8_t *sl = src + (mode & 1 ? R : 0);
      for (int64_t j = 0; j < L; ++j)
        lanes[j] &= sl[j] != 0;
    }
  }
}

// A box operand's row and lane bytes (null: all active), from a mask register of mode `mode`.
inline void boxParts(const uint8_t *m, int mode, int64_t R, int64_t L, const uint8_t *&rows,
                     const uint8_t *&lanes) {
  rows = mode & 1 ? m : nullptr;
  lanes = mode & 2 ? m + (mode & 1 ? R : 0) : nullptr;
  if (rows && countActive(rows, R) == R)
    rows = nullptr;
  if (lanes && countActive(lanes, L) == L)
    lanes = nullptr;
}

// One pass over a tile's rows: whether they are evenly spaced (`pitch` bytes from each row to
// the next; 0 apart: one row repeated; negative: bottom up), the span of their starts and the
// smallest lane limit. Loads and stores run it at every K step of a matmul, so it is one
// branch-free loop (vectorized) in the usual case of even rows.
struct RowScan {
  uint64_t lo, hi; // the lowest and highest row start
  int64_t minLim;  // the smallest lane limit (L: no exception lane)
  int64_t pitch;
  bool even;
};
inline RowScan scanRows(const uint64_t *starts, const int64_t *limits, int64_t R, int64_t L) {
  RowScan s;
  s.pitch = R > 1 ? static_cast<int64_t>(starts[1] - starts[0]) : 0;
  uint64_t off = 0; // any bit set: some row is not where even spacing puts it
  int64_t minLim = L;
  for (int64_t r = 0; r < R; ++r) {
    off |= starts[r] ^ (starts[0] + static_cast<uint64_t>(r) * static_cast<uint64_t>(s.pitch));
    minLim = limits[r] < minLim ? limits[r] : minLim;
  }
  s.minLim = minLim;
  s.even = off == 0;
  // The first and last rows bound the others only when (R - 1) * pitch does not wrap: a
  // pitch whose multiple wraps to a few bytes puts the middle rows anywhere.
  const uint64_t mag =
      s.pitch < 0 ? 0 - static_cast<uint64_t>(s.pitch) : static_cast<uint64_t>(s.pitch);
  const bool spanFits = R <= 1 || mag <= UINT64_MAX / static_cast<uint64_t>(R - 1);
  if (s.even && spanFits) {
    s.lo = std::min(starts[0], starts[R - 1]);
    s.hi = std::max(starts[0], starts[R - 1]);
  } else {
    s.lo = UINT64_MAX;
    s.hi = 0;
    for (int64_t r = 0; r < R; ++r) {
      s.lo = starts[r] < s.lo ? starts[r] : s.lo;
      s.hi = starts[r] > s.hi ? starts[r] : s.hi;
    }
  }
  return s;
}

// The whole tile in one check: no exception lane, and the span of all rows inside one array.
inline bool tileClear(const Inst &I, const Frame &F, const RowScan &s, int64_t L, int64_t S,
                      int es) {
  if (s.minLim < L)
    return false;
  uint64_t lo = s.lo, hi = s.hi;
  const int64_t span = (L - 1) * S; // lanes reach [start + min(0, span), start + max(0, span)]
  if (span >= 0)
    hi += static_cast<uint64_t>(span);
  else
    lo -= static_cast<uint64_t>(-span);
  return hi >= lo && inBoundsI(I, *F.launch, lo, hi - lo + es);
}

template <int ES> void compactLoadK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const CompactAux &a = *static_cast<const CompactAux *>(I.aux);
  const int64_t R = a.rows, L = a.rowLen, S = a.stride;
  const uint64_t *starts = F.at<uint64_t>(I.in[0].off);
  const int64_t *limits = reinterpret_cast<const int64_t *>(starts + R);
  const uint64_t *ex = starts + 2 * R;
  const uint8_t *m = a.hasMask ? F.at<uint8_t>(I.in[1].off) : nullptr;
  const bool mb = I.in[1].bcast;
  const T *oth = a.hasOther ? F.at<T>(I.in[2].off) : nullptr;
  const bool ob = I.in[2].bcast;
  T *__restrict o = F.at<T>(I.out);
  const int64_t n = I.n;
  auto otherAt = [&](int64_t i) -> T { return oth ? oth[ob ? 0 : i] : T(0); };
  auto fillRow = [&](int64_t r) {
    for (int64_t j = 0; j < L; ++j)
      o[r * L + j] = otherAt(r * L + j);
  };
  // Row r under the lane mask mr (null: every lane), its active lanes [first, last]; dense:
  // every lane of [first, last] active (a K loop's last, partial step: a block of bytes, where
  // lane by lane it cost a 1000^3 matmul on the TTIR path a tenth of its time).
  auto loadRow = [&](int64_t r, const uint8_t *mr, int64_t first, int64_t last, bool dense) {
    T *orow = o + r * L;
    const uint64_t *exr = ex + r * L;
    const int64_t lim = limits[r];
    checkRow(I, F, Access::Load, starts[r], lim, exr, S, ES, mr, first, last, r * L);
    const char *src = reinterpret_cast<const char *>(starts[r]);
    if ((!mr || dense) && last < lim && S == ES) {
      for (int64_t j = 0; j < first; ++j)
        orow[j] = otherAt(r * L + j);
      copyBytes(orow + first, src + first * ES, static_cast<size_t>(last - first + 1) * ES);
      for (int64_t j = last + 1; j < L; ++j)
        orow[j] = otherAt(r * L + j);
      return;
    }
    for (int64_t j = 0; j < L; ++j)
      orow[j] = mr && !mr[j]
                    ? otherAt(r * L + j)
                    : loadAs<T>(j < lim ? src + j * S : reinterpret_cast<const char *>(exr[j]));
  };
  if (a.forward) // the register, unless the fast path below leaves the tile in memory
    F.fwdSlot(I.out) = reinterpret_cast<const char *>(o);
  if (a.forwardRows)
    F.fwdRowBytes(I.out) = L * ES;
  if (a.memo >= 0) // row-major, unless the memo below holds it in panels
    F.fwdPanels(I.out) = 0;
  if (a.intervalMask) {
    const int64_t *h = reinterpret_cast<const int64_t *>(m);
    if (h[0] >= 0) { // lanes [lo, hi) of the single row
      const int64_t lo = h[0], hi = h[1];
      if (a.forward && lo == 0 && hi == L && limits[0] >= L && S == ES) {
        checkRow(I, F, Access::Load, starts[0], limits[0], ex, S, ES, nullptr, 0, L - 1, 0);
        F.fwdSlot(I.out) = reinterpret_cast<const char *>(starts[0]);
        return;
      }
      for (int64_t j = 0; j < lo; ++j)
        o[j] = otherAt(j);
      for (int64_t j = hi > lo ? hi : lo; j < L; ++j)
        o[j] = otherAt(j);
      if (lo >= hi)
        return;
      checkRow(I, F, Access::Load, starts[0], limits[0], ex, S, ES, nullptr, lo, hi - 1, 0);
      const char *src = reinterpret_cast<const char *>(starts[0]);
      if (limits[0] >= hi && S == ES) {
        copyBytes(o + lo, src + lo * ES, static_cast<size_t>(hi - lo) * ES);
      } else {
        for (int64_t j = lo; j < hi; ++j)
          o[j] = loadAs<T>(j < limits[0] ? src + j * S : reinterpret_cast<const char *>(ex[j]));
      }
      if (a.isBool)
        for (int64_t i = 0; i < n; ++i)
          o[i] = o[i] != 0;
      return;
    }
    m += 16; // lane-by-lane bytes
  }
  if (a.boxMode) {
    const uint8_t *rows, *lanes;
    boxParts(m, a.boxMode, R, L, rows, lanes);
    m = nullptr;
    if (rows || lanes) { // some lane inactive: row by row, the lanes the box keeps
      int64_t first, last;
      const bool any = activeSpan(lanes, L, first, last);
      const bool dense = any && denseSpan(lanes, first, last);
      for (int64_t r = 0; r < R; ++r) {
        if (!any || (rows && !rows[r]))
          fillRow(r);
        else
          loadRow(r, lanes, first, last, dense);
      }
      if (a.isBool)
        for (int64_t i = 0; i < n; ++i)
          o[i] = o[i] != 0;
      return;
    }
  }
  if (m && mb) {
    if (!m[0]) {
      for (int64_t i = 0; i < n; ++i)
        o[i] = otherAt(i);
      return;
    }
    m = nullptr;
  }
  // The row pass only where every lane is active: a masked load goes lane by lane anyway.
  const bool all = !m || countActive(m, n) == n;
  const RowScan rs = all ? scanRows(starts, limits, R, L) : RowScan{};
  if (all && tileClear(I, F, rs, L, S, ES)) {
    // Rows a whole number of elements apart; (R == 1: one row, pitch 0)
    const bool evenRows = S == ES && rs.even && rs.pitch % ES == 0;
    if (a.forward && evenRows && (R == 1 || rs.pitch == L * ES)) { // one block of memory
      F.fwdSlot(I.out) = reinterpret_cast<const char *>(starts[0]);
      return;
    }
    if (a.forwardRows && evenRows) { // a dot's A, in place
      F.fwdSlot(I.out) = reinterpret_cast<const char *>(starts[0]);
      F.fwdRowBytes(I.out) = rs.pitch;
      return;
    }
    if (a.memo >= 0 && evenRows) { // a dot's B, memoized
      const int64_t panel = gemmPanelBytes(L, ES);
      if (const char *slot = F.memo->fetch(a.memo, reinterpret_cast<const char *>(starts[0]), R,
                                           L * ES, rs.pitch, panel)) {
        F.fwdSlot(I.out) = slot;
        F.fwdPanels(I.out) = panel > 0;
        return;
      }
    }
    for (int64_t r = 0; r < R; ++r) {
      const char *src = reinterpret_cast<const char *>(starts[r]);
      T *orow = o + r * L;
      if (S == ES)
        copyBytes(orow, src, static_cast<size_t>(L) * ES);
      else
        for (int64_t j = 0; j < L; ++j)
          orow[j] = loadAs<T>(src + j * S);
    }
  } else {
    for (int64_t r = 0; r < R; ++r) {
      const uint8_t *mr = m ? m + r * L : nullptr;
      if (mr && countActive(mr, L) == L)
        mr = nullptr;
      int64_t first, last;
      if (activeSpan(mr, L, first, last))
        loadRow(r, mr, first, last, denseSpan(mr, first, last));
      else
        fillRow(r);
    }
  }
  if (a.isBool)
    for (int64_t i = 0; i < n; ++i)
      o[i] = o[i] != 0;
}

template <int ES> void compactStoreK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const CompactAux &a = *static_cast<const CompactAux *>(I.aux);
  const int64_t R = a.rows, L = a.rowLen, S = a.stride;
  const uint64_t *starts = F.at<uint64_t>(I.in[0].off);
  const int64_t *limits = reinterpret_cast<const int64_t *>(starts + R);
  const uint64_t *ex = starts + 2 * R;
  const T *v = F.at<T>(I.in[1].off);
  const bool vb = I.in[1].bcast;
  const uint8_t *m = a.hasMask ? F.at<uint8_t>(I.in[2].off) : nullptr;
  // Deferred dots' waiting steps (dot_store.h) run into the accumulator before a partial store;
  // the whole-tile store at the end may have their GEMM write its rows instead.
  auto settle = [&] {
    if (!a.dotPendings.empty())
      runFusedDotSteps(a.dotPendings, F, nullptr, 0, 0, 0);
  };
  // Row r under the lane mask mr (null: every lane), its lanes checked already and its active
  // lanes [first, last], as loadRow's: one interval of them (dense) is written as a block of
  // bytes, streamed where `stream` and the row is whole.
  auto storeRow = [&](int64_t r, const uint8_t *mr, int64_t first, int64_t last, bool dense,
                      bool stream) {
    char *dst = reinterpret_cast<char *>(starts[r]);
    const T *vr = v + (vb ? 0 : r * L);
    const uint64_t *exr = ex + r * L;
    const int64_t lim = limits[r];
    if (dense && last < lim && S == ES && !vb) {
      const size_t bytes = static_cast<size_t>(last - first + 1) * ES;
      if (stream && first == 0 && last == L - 1)
        streamBytes(dst, vr, bytes);
      else
        copyBytes(dst + first * ES, vr + first, bytes);
      return;
    }
    for (int64_t j = first; j <= last; ++j)
      if (!mr || mr[j])
        storeAs<T>(j < lim ? dst + j * S : reinterpret_cast<char *>(exr[j]), vr[vb ? 0 : j]);
  };
  if (a.intervalMask) {
    settle();
    const int64_t *h = reinterpret_cast<const int64_t *>(m);
    if (h[0] >= 0) { // lanes [lo, hi) of the single row
      const int64_t lo = h[0], hi = h[1];
      if (lo >= hi)
        return;
      checkRow(I, F, Access::Store, starts[0], limits[0], ex, S, ES, nullptr, lo, hi - 1, 0);
      char *dst = reinterpret_cast<char *>(starts[0]);
      const size_t bytes = static_cast<size_t>(hi - lo) * ES;
      if (limits[0] >= hi && S == ES && !vb) {
        if (bytes >= kStreamRowBytes && streamingTarget(I, *F.launch, starts[0])) {
          streamBytes(dst + lo * ES, v + lo, bytes);
          streamed(F);
        } else {
          copyBytes(dst + lo * ES, v + lo, bytes);
        }
      } else {
        for (int64_t j = lo; j < hi; ++j)
          storeAs<T>(j < limits[0] ? dst + j * S : reinterpret_cast<char *>(ex[j]), v[vb ? 0 : j]);
      }
      return;
    }
    m += 16; // lane-by-lane bytes
  }
  if (a.boxMode) {
    const uint8_t *rows, *lanes;
    boxParts(m, a.boxMode, R, L, rows, lanes);
    m = nullptr;
    if (rows || lanes) { // some lane inactive: check the kept rows, then write them
      settle();
      int64_t first, last;
      if (!activeSpan(lanes, L, first, last))
        return;
      for (int64_t r = 0; r < R; ++r)
        if (!rows || rows[r])
          checkRow(I, F, Access::Store, starts[r], limits[r], ex + r * L, S, ES, lanes, first, last,
                   r * L);
      const bool dense = denseSpan(lanes, first, last);
      for (int64_t r = 0; r < R; ++r)
        if (!rows || rows[r])
          storeRow(r, lanes, first, last, dense, false);
      return;
    }
  }
  if (m && I.in[2].bcast) {
    if (!m[0])
      return;
    m = nullptr;
  }
  const int64_t n = I.n;
  bool all = !m || countActive(m, n) == n;
  if (!(all && tileClear(I, F, scanRows(starts, limits, R, L), L, S, ES))) {
    // Check every row first: nothing is written when any lane is out of bounds.
    for (int64_t r = 0; r < R; ++r) {
      const uint8_t *mr = m ? m + r * L : nullptr;
      int64_t first, last;
      if (activeSpan(mr, L, first, last))
        checkRow(I, F, Access::Store, starts[r], limits[r], ex + r * L, S, ES, mr, first, last,
                 r * L);
    }
  }
  const bool stream = static_cast<uint64_t>(L) * ES >= kStreamRowBytes && S == ES && !vb &&
                      streamingTarget(I, *F.launch, starts[0]);
  if (!a.dotPendings.empty()) { // whole rows of f32 evenly spaced, not overlapping: the GEMM's
    const int64_t pitch = R > 1 ? static_cast<int64_t>(starts[1] - starts[0]) : L * ES;
    bool rows = ES == 4 && S == ES && !vb && !stream && all && pitch % ES == 0 &&
                (pitch >= L * ES || pitch <= -L * ES);
    for (int64_t r = 0; r < R && rows; ++r)
      rows = limits[r] == L &&
             starts[r] == starts[0] + static_cast<uint64_t>(r) * static_cast<uint64_t>(pitch);
    if (runFusedDotSteps(a.dotPendings, F, rows ? reinterpret_cast<float *>(starts[0]) : nullptr,
                         pitch / ES, R, L))
      return;
  }
  for (int64_t r = 0; r < R; ++r) {
    const uint8_t *mr = m ? m + r * L : nullptr;
    int64_t first, last;
    if (activeSpan(mr, L, first, last))
      storeRow(r, mr, first, last, denseSpan(mr, first, last), stream);
  }
  if (stream)
    streamed(F);
}

// A load or store through a compact pointer tile; mask/other may be null.
void emitCompactAccess(Compiler &c, const Operation &op, const CompactPtr &cp, bool load,
                       const Value *ptr, const Value *val, const Value *mask, const Value *other) {
  auto *a = c.makeAux<CompactAux>();
  a->rows = cp.rows;
  a->rowLen = cp.rowLen;
  a->stride = cp.strideBytes;
  DType dt = c.dtype(val);
  a->es = dtypeSize(dt);
  a->isBool = dt == DType::I1;
  a->hasMask = mask != nullptr;
  a->hasOther = load && other != nullptr;
  a->intervalMask = mask && c.intervalMask(mask);
  a->boxMode = !mask ? 0 : c.boxMask(mask) ? 3 : c.foldOf(mask);
  Ref pr = c.ref(ptr);
  Ref r1, r2;
  if (load) {
    a->forward = c.forwarded(val);
    a->forwardRows = c.forwardedRows(val);
    a->memo = c.memoOf(val);
    if (mask)
      r1 = c.ref(mask, true);
    if (a->hasOther)
      r2 = c.ref(other, true);
  } else {
    r1 = c.ref(val, true);
    if (mask)
      r2 = c.ref(mask, true);
    a->dotPendings = c.fusedPendings(op);
  }
  Inst &I = c.emit(
      load ? pickBySize(a->es, compactLoadK<1>, compactLoadK<2>, compactLoadK<4>, compactLoadK<8>)
           : pickBySize(a->es, compactStoreK<1>, compactStoreK<2>, compactStoreK<4>,
                        compactStoreK<8>),
      op);
  I.aux = a;
  I.in[0] = pr;
  I.in[1] = r1;
  I.in[2] = r2;
  if (load)
    I.out = c.out(val);
  I.checked = !c.foreignPointer(ptr);
  I.origin = c.pointerOrigin(ptr);
  I.n = cp.rows * cp.rowLen;
}

} // namespace

bool emitCompactLoad(Compiler &c, const Operation &op, const Value *ptr, const Value *mask,
                     const Value *other, const Value *res) {
  const CompactPtr *cp = c.compact(ptr);
  if (!cp)
    return false;
  emitCompactAccess(c, op, *cp, true, ptr, res, mask, other);
  return true;
}

bool emitCompactStore(Compiler &c, const Operation &op, const Value *ptr, const Value *val,
                      const Value *mask) {
  const CompactPtr *cp = c.compact(ptr);
  if (!cp)
    return false;
  emitCompactAccess(c, op, *cp, false, ptr, val, mask, nullptr);
  return true;
}

// TTIR's tt.addptr/tt.load/tt.store and interval arith.cmpi/arith.andi; Tile IR's offset and
// interval cmpi/andi (its pointer accesses come through emitCompactLoad/emitCompactStore).
bool emitCompact(Compiler &c, const Operation &op) {
  const std::string &name = op.name();
  const bool cmpi = name == "arith.cmpi" || name == "cuda_tile.cmpi";
  const bool andi = name == "arith.andi" || name == "cuda_tile.andi";
  if ((cmpi || andi) && op.numResults() == 1 && c.intervalMask(op.result(0))) {
    auto *a = c.makeAux<IntervalAux>();
    const Value *x = op.operand(0), *y = op.operand(1);
    a->L = c.rowLen(op.result(0));
    Ref rx = c.ref(x, true), ry = c.ref(y, true);
    if (cmpi) {
      a->pred = static_cast<int>(c.tileIR() ? tileElementwiseKernel(op).predicate
                                            : op.intAttr("predicate"));
      a->dt = c.dtype(x);
      if (!c.intStride(x, a->sa) || !c.intStride(y, a->sb))
        c.fail(op, "internal error: interval mask without operand strides");
    }
    Inst &I = c.emit(cmpi ? intervalCmpK : intervalAndK, op);
    I.aux = a;
    I.out = c.out(op.result(0));
    I.in[0] = rx;
    I.in[1] = ry;
    I.n = 1;
    return true;
  }
  if (andi && op.numResults() == 1 && c.boxMask(op.result(0))) {
    auto *a = c.makeAux<BoxAux>();
    const Value *res = op.result(0);
    a->R = res->type.shape()[0];
    a->L = res->type.shape()[1];
    Ref in[2];
    for (int k = 0; k < 2; ++k) {
      const Value *x = op.operand(k);
      a->modes[k] = c.boxMask(x) ? 3 : c.foldOf(x);
      if (!a->modes[k])
        c.fail(op, "internal error: a box mask of an operand neither folded nor a box");
      in[k] = c.ref(x);
    }
    Inst &I = c.emit(boxAndK, op);
    I.aux = a;
    I.in[0] = in[0];
    I.in[1] = in[1];
    I.out = c.out(res);
    I.n = a->R + a->L;
    return true;
  }
  if (name == "tt.addptr" || name == "cuda_tile.offset") {
    const Value *res = op.result(0), *base = op.operand(0), *off = op.operand(1);
    const CompactPtr *cp = c.compact(res);
    if (!cp)
      return false;
    auto *a = c.makeAux<CompactAux>();
    a->rows = cp->rows;
    a->rowLen = cp->rowLen;
    Ref b = c.ref(base, true);
    const CompactPtr *cb = c.compact(base);
    a->baseMode = cb                                ? 1
                  : c.foldOf(base) == 1             ? 4
                  : (b.bcast || c.numel(base) == 1) ? 0
                  : rowUniform(base)                ? 3
                                                    : 2;
    a->baseStride = cb ? cb->strideBytes : cp->strideBytes; // full base: same stride as res
    Ref o = c.ref(off, true);
    a->offRows = c.foldOf(off) == 1;
    a->offShared = c.foldOf(off) == 2;
    a->offBcast = o.bcast || (c.numel(off) == 1 && !c.lazyInt(off) && !a->offRows &&
                              !a->offShared); // lazy: lane 0 + stride
    if (!a->offBcast && !c.intStride(off, a->offStride))
      c.fail(op, "internal error: compact tt.addptr without an offset stride");
    a->verifyOffsets = !a->offBcast && c.intStrideAssumed(off);
    a->offBits = intBits(c.dtype(off));
    Type pointee = res->type.element().pointee();
    int pb = pointee.isPtr() ? 8 : dtypeSize(dtypeOf(pointee));
    a->shift = __builtin_ctz(static_cast<unsigned>(pb));
    if (a->baseMode == 4 && cp->strideBytes != (a->offBcast ? 0 : a->offStride * pb))
      c.fail(op, "internal error: a folded base whose rows do not follow the result's stride");
    if (a->baseMode == 3 && cp->strideBytes != (a->offBcast ? 0 : a->offStride * pb))
      a->baseMode = 2;    // (cannot happen: the base adds nothing to the stride; checked anyway)
    if (a->baseMode == 2) // a full base: its lanes step by (result stride - offset stride)
      a->baseStride = cp->strideBytes - (a->offBcast ? 0 : a->offStride * pb);
    KernelFn fn = nullptr;
    switch (c.dtype(off)) {
    case DType::I8:
      fn = compactAddptrK<int8_t>;
      break;
    case DType::I16:
      fn = compactAddptrK<int16_t>;
      break;
    case DType::I32:
      fn = compactAddptrK<int32_t>;
      break;
    case DType::I64:
      fn = compactAddptrK<int64_t>;
      break;
    default:
      c.fail(op, "unsupported offset type " + off->type.str());
    }
    Inst &I = c.emit(fn, op);
    I.aux = a;
    I.out = c.out(res);
    I.in[0] = b;
    I.in[1] = o;
    I.n = cp->rows;
    return true;
  }
  if (name == "tt.load") {
    auto opt = [&](size_t i) { return op.numOperands() > i ? op.operand(i) : nullptr; };
    return emitCompactLoad(c, op, op.operand(0), opt(1), opt(2), op.result(0));
  }
  if (name == "tt.store")
    return emitCompactStore(c, op, op.operand(0), op.operand(1),
                            op.numOperands() > 2 ? op.operand(2) : nullptr);
  return false;
}

} // namespace tt::exec
