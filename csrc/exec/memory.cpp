// Memory: tt.load, tt.store, tt.atomic_rmw, tt.atomic_cas over tiles of host addresses.
//
// Rules:
//  - a masked-off lane never touches memory; it reads `other` (0 without it) and writes
//    nothing;
//  - every address range a live lane accesses must lie inside one array argument of the launch;
//    otherwise OutOfBoundsError (IndexError in Python) is thrown before the op writes anything;
//  - fast paths are chosen per execution: when the last dimension of the pointer tile is
//    contiguous (p[i+1] - p[i] == element size within each row) a row is bounds-checked once
//    and copied with memcpy (or a masked copy); otherwise each lane is gathered or scattered;
//  - i1 is stored as one byte; a loaded nonzero byte reads as 1;
//  - atomics are real (GCC __atomic builtins) with `sem` mapped to memory orders; float add,
//    max and min and every op on 8/16-bit elements run as compare-and-swap loops; float
//    max/min follow Triton's rule (val >= 0: signed integer max/min of the bits, else unsigned
//    min/max), which orders -0.0 below +0.0; duplicate addresses within a tile are all applied
//    in lane order; masked-off lanes return 0;
//  - a failing tt.atomic_cas yields the CPU (pause, then sched_yield after repeated failures)
//    so spin locks between concurrently running programs make progress.
#include <sched.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "exec/casts.h"
#include "exec/compiler.h"
#include "exec/copy.h"

#include <algorithm>

namespace tt::exec {
namespace {

enum class Access { Load, Store, Atomic };

[[noreturn]] void throwOob(const Inst &I, const Frame &F, Access kind, uint64_t addr,
                           int64_t lane) {
  const char *k = kind == Access::Load ? "load" : (kind == Access::Store ? "store" : "atomic");
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, addr);
  throw OutOfBoundsError(std::string("out-of-bounds ") + k + " in kernel " +
                         *F.launch->kernelName + " at " + I.site->loc + ": address " + buf +
                         " (lane " + std::to_string(lane) + ") is not inside any array argument");
}

// True when [addr, addr + bytes) lies inside one array argument.
inline bool inBounds(const LaunchState &L, uint64_t addr, uint64_t bytes) {
  for (const auto &r : L.ranges)
    if (addr >= r.lo && addr <= r.hi && r.hi - addr >= bytes)
      return true;
  return false;
}

struct MemAux : Aux {
  int es = 4;          // element bytes
  int64_t rowLen = 1;  // last dimension of the tile
  bool hasMask = false, hasOther = false;
  bool isBool = false; // i1 elements: loads normalize to 0/1
  int rmwOp = 0, order = __ATOMIC_SEQ_CST;
  DType dt = DType::I32;
};

// Checks every active lane; throws at the first bad one.
void checkLanes(const Inst &I, const Frame &F, Access kind, const uint64_t *p, bool pb,
                const uint8_t *m, bool mb, int64_t n, int es) {
  const LaunchState &L = *F.launch;
  // Fast: the span of active lanes fits one array.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool on = !m || m[mb ? 0 : i];
    uint64_t a = p[pb ? 0 : i];
    lo = on && a < lo ? a : lo;
    hi = on && a > hi ? a : hi;
  }
  if (lo == UINT64_MAX && hi == 0)
    return; // no active lane
  if (hi >= lo && inBounds(L, lo, hi - lo + es))
    return;
  for (int64_t i = 0; i < n; ++i) {
    if (m && !m[mb ? 0 : i])
      continue;
    uint64_t a = p[pb ? 0 : i];
    if (!inBounds(L, a, es))
      throwOob(I, F, kind, a, i);
  }
}

// True when every row of the tile has consecutive addresses.
inline bool rowsContiguous(const uint64_t *p, int64_t n, int64_t rowLen, int es) {
  uint64_t bad = 0;
  for (int64_t r = 0; r < n; r += rowLen) {
    const uint64_t *q = p + r;
    for (int64_t c = 1; c < rowLen; ++c)
      bad |= (q[c] - q[c - 1]) ^ static_cast<uint64_t>(es);
    if (bad)
      return false;
  }
  return true;
}

inline bool tileContiguous(const uint64_t *p, int64_t n, int64_t rowLen, int es) {
  for (int64_t r = rowLen; r < n; r += rowLen)
    if (p[r] != p[r - rowLen] + static_cast<uint64_t>(rowLen * es))
      return false;
  return true;
}

inline int64_t countActive(const uint8_t *m, int64_t n) {
  uint32_t s = 0; // tiles hold fewer than 2^31 elements
  for (int64_t i = 0; i < n; ++i)
    s += m[i];
  return s;
}

// Elements are moved as raw bytes of size ES.
template <int ES> struct Elem {
  using T = std::conditional_t<
      ES == 1, uint8_t, std::conditional_t<ES == 2, uint16_t, std::conditional_t<ES == 4, uint32_t, uint64_t>>>;
};

// ---- tt.load ----
template <int ES> void loadK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const MemAux &a = *static_cast<const MemAux *>(I.aux);
  const uint64_t *p = F.at<uint64_t>(I.in[0].off);
  const bool pb = I.in[0].bcast;
  const uint8_t *m = a.hasMask ? F.at<uint8_t>(I.in[1].off) : nullptr;
  const bool mb = I.in[1].bcast;
  const T *oth = a.hasOther ? F.at<T>(I.in[2].off) : nullptr;
  const bool ob = I.in[2].bcast;
  T *__restrict o = F.at<T>(I.out);
  const int64_t n = I.n;
  const LaunchState &L = *F.launch;
  auto otherAt = [&](int64_t i) -> T { return oth ? oth[ob ? 0 : i] : T(0); };

  if (m && mb) {
    if (!m[0]) { // everything masked off
      for (int64_t i = 0; i < n; ++i)
        o[i] = otherAt(i);
      return;
    }
    m = nullptr;
  }

  if (!pb && rowsContiguous(p, n, a.rowLen, ES)) {
    int64_t rowLen = a.rowLen;
    if (rowLen < n && tileContiguous(p, n, rowLen, ES))
      rowLen = n;
    for (int64_t r = 0; r < n; r += rowLen) {
      const uint64_t base = p[r];
      T *orow = o + r;
      int64_t active = m ? countActive(m + r, rowLen) : rowLen;
      if (active == rowLen) {
        if (!inBounds(L, base, static_cast<uint64_t>(rowLen) * ES))
          checkLanes(I, F, Access::Load, p + r, false, nullptr, false, rowLen, ES);
        copyBytes(orow, reinterpret_cast<const void *>(base), static_cast<size_t>(rowLen) * ES);
      } else if (active == 0) {
        for (int64_t c = 0; c < rowLen; ++c)
          orow[c] = otherAt(r + c);
      } else {
        const uint8_t *mr = m + r;
        int64_t first = 0, last = rowLen - 1;
        while (!mr[first])
          ++first;
        while (!mr[last])
          --last;
        if (!inBounds(L, base + first * ES, static_cast<uint64_t>(last - first + 1) * ES))
          checkLanes(I, F, Access::Load, p + r, false, mr, false, rowLen, ES);
        const T *src = reinterpret_cast<const T *>(base);
        for (int64_t c = 0; c < rowLen; ++c)
          orow[c] = mr[c] ? loadAs<T>(src + c) : otherAt(r + c);
      }
    }
  } else {
    checkLanes(I, F, Access::Load, p, pb, m, false, n, ES);
    for (int64_t i = 0; i < n; ++i) {
      if (m && !m[i])
        o[i] = otherAt(i);
      else
        o[i] = loadAs<T>(reinterpret_cast<const void *>(p[pb ? 0 : i]));
    }
  }
  if (a.isBool)
    for (int64_t i = 0; i < n; ++i)
      o[i] = o[i] != 0;
}

// ---- tt.store ----
template <int ES> void storeK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const MemAux &a = *static_cast<const MemAux *>(I.aux);
  const uint64_t *p = F.at<uint64_t>(I.in[0].off);
  const bool pb = I.in[0].bcast;
  const T *v = F.at<T>(I.in[1].off);
  const bool vb = I.in[1].bcast;
  const uint8_t *m = a.hasMask ? F.at<uint8_t>(I.in[2].off) : nullptr;
  const bool mb = I.in[2].bcast;
  const int64_t n = I.n;
  const LaunchState &L = *F.launch;
  if (m && mb) {
    if (!m[0])
      return;
    m = nullptr;
  }

  if (!pb && rowsContiguous(p, n, a.rowLen, ES)) {
    int64_t rowLen = a.rowLen;
    if (rowLen < n && tileContiguous(p, n, rowLen, ES))
      rowLen = n;
    // Check every row before writing anything.
    for (int64_t r = 0; r < n; r += rowLen) {
      const uint8_t *mr = m ? m + r : nullptr;
      int64_t first = 0, last = rowLen - 1;
      if (mr) {
        while (first < rowLen && !mr[first])
          ++first;
        if (first == rowLen)
          continue;
        while (!mr[last])
          --last;
      }
      if (!inBounds(L, p[r] + first * ES, static_cast<uint64_t>(last - first + 1) * ES))
        checkLanes(I, F, Access::Store, p + r, false, mr, false, rowLen, ES);
    }
    for (int64_t r = 0; r < n; r += rowLen) {
      T *dst = reinterpret_cast<T *>(p[r]);
      const uint8_t *mr = m ? m + r : nullptr;
      int64_t active = mr ? countActive(mr, rowLen) : rowLen;
      if (active == 0)
        continue;
      if (active == rowLen) {
        if (vb) {
          for (int64_t c = 0; c < rowLen; ++c)
            storeAs<T>(dst + c, v[0]);
        } else {
          copyBytes(dst, v + r, static_cast<size_t>(rowLen) * ES);
        }
      } else {
        for (int64_t c = 0; c < rowLen; ++c)
          if (mr[c])
            storeAs<T>(dst + c, v[vb ? 0 : r + c]);
      }
    }
  } else {
    checkLanes(I, F, Access::Store, p, pb, m, false, n, ES);
    for (int64_t i = 0; i < n; ++i)
      if (!m || m[i])
        storeAs<T>(reinterpret_cast<void *>(p[pb ? 0 : i]), v[vb ? 0 : i]);
  }
}

KernelFn pickBySize(int es, KernelFn k1, KernelFn k2, KernelFn k4, KernelFn k8) {
  switch (es) {
  case 1:
    return k1;
  case 2:
    return k2;
  case 4:
    return k4;
  default:
    return k8;
  }
}

// ---- atomics ----

enum RmwOp { kAnd = 1, kOr, kXor, kAdd, kFAdd, kMax, kMin, kUMax, kUMin, kXchg };

int memOrder(int64_t sem) {
  switch (sem) {
  case 1:
    return __ATOMIC_RELAXED;
  case 2:
    return __ATOMIC_ACQUIRE;
  case 3:
    return __ATOMIC_RELEASE;
  default:
    return __ATOMIC_ACQ_REL;
  }
}
int failOrder(int order) {
  return order == __ATOMIC_RELEASE   ? __ATOMIC_RELAXED
         : order == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE
                                     : order;
}

template <class T> double toDouble(T bits, DType dt) {
  if constexpr (sizeof(T) == 2)
    return dt == DType::F16 ? f16ToF32(bits) : bf16ToF32(bits);
  else if constexpr (sizeof(T) == 4)
    return bitsF32(bits);
  else if constexpr (sizeof(T) == 8)
    return bitsF64(bits);
  else
    return 0;
}
template <class T> T fromDouble(double v, DType dt) {
  if constexpr (sizeof(T) == 2)
    return dt == DType::F16 ? f32ToF16(static_cast<float>(v)) : f32ToBf16(static_cast<float>(v));
  else if constexpr (sizeof(T) == 4)
    return f32Bits(static_cast<float>(v));
  else if constexpr (sizeof(T) == 8)
    return f64Bits(v);
  else
    return 0;
}

// The new value an RMW stores, given the old one (T: unsigned storage).
template <class T> T combine(int op, T old, T val, DType dt) {
  using S = std::make_signed_t<T>;
  bool isFloat = isFloatDType(dt);
  switch (op) {
  case kAnd:
    return old & val;
  case kOr:
    return old | val;
  case kXor:
    return old ^ val;
  case kAdd:
    return static_cast<T>(old + val);
  case kFAdd:
    return fromDouble<T>(toDouble<T>(old, dt) + toDouble<T>(val, dt), dt);
  case kMax:
    if (isFloat && !(toDouble<T>(val, dt) >= 0)) // Triton: negative floats use unsigned min
      return old < val ? old : val;
    return static_cast<S>(old) > static_cast<S>(val) ? old : val;
  case kMin:
    if (isFloat && !(toDouble<T>(val, dt) >= 0))
      return old > val ? old : val;
    return static_cast<S>(old) < static_cast<S>(val) ? old : val;
  case kUMax:
    return old > val ? old : val;
  case kUMin:
    return old < val ? old : val;
  default: // xchg
    return val;
  }
}

template <class T> T atomicRmw(T *addr, int op, T val, DType dt, int order) {
  if constexpr (sizeof(T) >= 4) {
    switch (op) {
    case kAnd:
      return __atomic_fetch_and(addr, val, order);
    case kOr:
      return __atomic_fetch_or(addr, val, order);
    case kXor:
      return __atomic_fetch_xor(addr, val, order);
    case kAdd:
      return __atomic_fetch_add(addr, val, order);
    case kXchg:
      return __atomic_exchange_n(addr, val, order);
    default:
      break;
    }
  }
  T old = __atomic_load_n(addr, __ATOMIC_RELAXED);
  for (;;) {
    T nv = combine<T>(op, old, val, dt);
    if (__atomic_compare_exchange_n(addr, &old, nv, false, order, failOrder(order)))
      return old;
  }
}

template <int ES> void atomicRmwK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const MemAux &a = *static_cast<const MemAux *>(I.aux);
  const uint64_t *p = F.at<uint64_t>(I.in[0].off);
  const bool pb = I.in[0].bcast;
  const T *v = F.at<T>(I.in[1].off);
  const bool vb = I.in[1].bcast;
  const uint8_t *m = a.hasMask ? F.at<uint8_t>(I.in[2].off) : nullptr;
  const bool mb = I.in[2].bcast;
  T *o = F.at<T>(I.out);
  const int64_t n = I.n;
  checkLanes(I, F, Access::Atomic, p, pb, m, mb, n, ES);
  for (int64_t i = 0; i < n; ++i) {
    if (m && !m[mb ? 0 : i]) {
      o[i] = 0;
      continue;
    }
    o[i] = atomicRmw<T>(reinterpret_cast<T *>(p[pb ? 0 : i]), a.rmwOp, v[vb ? 0 : i], a.dt,
                        a.order);
  }
}

inline void cpuRelax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

template <int ES> void atomicCasK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const MemAux &a = *static_cast<const MemAux *>(I.aux);
  const uint64_t *p = F.at<uint64_t>(I.in[0].off);
  const bool pb = I.in[0].bcast;
  const T *cmp = F.at<T>(I.in[1].off);
  const bool cb = I.in[1].bcast;
  const T *v = F.at<T>(I.in[2].off);
  const bool vb = I.in[2].bcast;
  T *o = F.at<T>(I.out);
  const int64_t n = I.n;
  checkLanes(I, F, Access::Atomic, p, pb, nullptr, false, n, ES);
  bool failed = false;
  for (int64_t i = 0; i < n; ++i) {
    T expected = cmp[cb ? 0 : i];
    __atomic_compare_exchange_n(reinterpret_cast<T *>(p[pb ? 0 : i]), &expected, v[vb ? 0 : i],
                                false, a.order, failOrder(a.order));
    failed |= expected != cmp[cb ? 0 : i];
    o[i] = expected;
  }
  if (failed) {
    cpuRelax();
    if (++F.casFailures >= 64) {
      F.casFailures = 0;
      sched_yield();
    }
  } else {
    F.casFailures = 0;
  }
}


// ---- compact pointer tiles (affine.h): R row addresses, then R lane limits ----

struct CompactAux : Aux {
  int64_t rows = 1, rowLen = 1;
  int64_t stride = 0;   // bytes between neighbouring lanes
  int es = 4;           // element bytes (load/store)
  bool hasMask = false, hasOther = false, isBool = false;
  // tt.addptr
  int baseMode = 0;     // 0 broadcast scalar, 1 compact, 2 full tile
  bool offBcast = false;
  int64_t offStride = 0; // elements
  int offBits = 32;
  int shift = 2;        // log2(sizeof(pointee))
};

// The first lane of a row whose narrow offset off0 + so*j leaves the type's range.
inline int64_t firstWrappedLane(int64_t off0, int64_t so, int bits, int64_t rowLen) {
  if (bits >= 64 || so == 0)
    return rowLen;
  const int64_t hi = (int64_t(1) << (bits - 1)) - 1, lo = -hi - 1;
  int64_t j = so > 0 ? (hi - off0) / so + 1 : (off0 - lo) / (-so) + 1;
  return j < rowLen ? j : rowLen;
}

template <class Off> void compactAddptrK(const Inst &I, Frame &F) {
  const CompactAux &a = *static_cast<const CompactAux *>(I.aux);
  const int64_t R = a.rows, L = a.rowLen;
  uint64_t *starts = F.at<uint64_t>(I.out);
  int64_t *limits = F.at<int64_t>(I.out) + R;
  const uint64_t *base = F.at<uint64_t>(I.in[0].off);
  const Off *off = F.at<Off>(I.in[1].off);
  for (int64_t r = 0; r < R; ++r) {
    uint64_t b;
    int64_t lim = L;
    if (a.baseMode == 0) {
      b = base[0];
    } else if (a.baseMode == 1) {
      b = base[r];
      lim = reinterpret_cast<const int64_t *>(base + R)[r];
    } else {
      b = base[r * L];
    }
    const int64_t o0 = static_cast<int64_t>(off[a.offBcast ? 0 : r * L]);
    starts[r] = b + (static_cast<uint64_t>(o0) << a.shift);
    if (!a.offBcast) {
      int64_t w = firstWrappedLane(o0, a.offStride, a.offBits, L);
      lim = w < lim ? w : lim;
    }
    limits[r] = lim;
  }
}

// Finds the range of active lanes [first, last] of a row; false when none is active.
inline bool activeSpan(const uint8_t *m, int64_t L, int64_t &first, int64_t &last) {
  first = 0;
  last = L - 1;
  if (!m)
    return true;
  while (first < L && !m[first])
    ++first;
  if (first == L)
    return false;
  while (!m[last])
    --last;
  return true;
}

// Checks a compact row's active lanes [first, last]; throws at the first bad lane.
void checkCompactRow(const Inst &I, const Frame &F, Access kind, uint64_t start, int64_t limit,
                     int64_t stride, int es, const uint8_t *m, int64_t first, int64_t last,
                     int64_t laneBase, int offBits) {
  const LaunchState &L = *F.launch;
  if (last >= limit) { // a lane whose offset wrapped: the GPU would use a wild address
    for (int64_t j = limit; j <= last; ++j)
      if (!m || m[j])
        throwOob(I, F, kind, start + j * stride - (uint64_t(1) << (offBits < 64 ? offBits : 63)) * es,
                 laneBase + j);
  }
  uint64_t lo = start + first * stride, hi = start + last * stride;
  if (lo > hi)
    std::swap(lo, hi);
  if (inBounds(L, lo, hi - lo + es))
    return;
  for (int64_t j = first; j <= last; ++j) {
    if (m && !m[j])
      continue;
    uint64_t addr = start + j * stride;
    if (!inBounds(L, addr, es))
      throwOob(I, F, kind, addr, laneBase + j);
  }
}

template <int ES> void compactLoadK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const CompactAux &a = *static_cast<const CompactAux *>(I.aux);
  const int64_t R = a.rows, L = a.rowLen, S = a.stride;
  const uint64_t *starts = F.at<uint64_t>(I.in[0].off);
  const int64_t *limits = F.at<int64_t>(I.in[0].off) + R;
  const uint8_t *m = a.hasMask ? F.at<uint8_t>(I.in[1].off) : nullptr;
  const bool mb = I.in[1].bcast;
  const T *oth = a.hasOther ? F.at<T>(I.in[2].off) : nullptr;
  const bool ob = I.in[2].bcast;
  T *__restrict o = F.at<T>(I.out);
  if (m && mb) {
    if (!m[0]) {
      for (int64_t i = 0, n = I.n; i < n; ++i)
        o[i] = oth ? oth[ob ? 0 : i] : T(0);
      return;
    }
    m = nullptr;
  }
  for (int64_t r = 0; r < R; ++r) {
    const uint8_t *mr = m ? m + r * L : nullptr;
    T *orow = o + r * L;
    const T *orr = oth ? oth + (ob ? 0 : r * L) : nullptr;
    int64_t first, last;
    bool all = !mr || countActive(mr, L) == L;
    if (!activeSpan(all ? nullptr : mr, L, first, last)) {
      for (int64_t j = 0; j < L; ++j)
        orow[j] = orr ? orr[ob ? 0 : j] : T(0);
      continue;
    }
    checkCompactRow(I, F, Access::Load, starts[r], limits[r], S, ES, all ? nullptr : mr, first,
                    last, r * L, static_cast<int>(I.imm2));
    const char *src = reinterpret_cast<const char *>(starts[r]);
    if (all && S == ES) {
      copyBytes(orow, src, static_cast<size_t>(L) * ES);
    } else if (all) {
      for (int64_t j = 0; j < L; ++j)
        orow[j] = loadAs<T>(src + j * S);
    } else {
      for (int64_t j = 0; j < L; ++j)
        orow[j] = mr[j] ? loadAs<T>(src + j * S) : (orr ? orr[ob ? 0 : j] : T(0));
    }
  }
  if (a.isBool)
    for (int64_t i = 0, n = I.n; i < n; ++i)
      o[i] = o[i] != 0;
}

template <int ES> void compactStoreK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const CompactAux &a = *static_cast<const CompactAux *>(I.aux);
  const int64_t R = a.rows, L = a.rowLen, S = a.stride;
  const uint64_t *starts = F.at<uint64_t>(I.in[0].off);
  const int64_t *limits = F.at<int64_t>(I.in[0].off) + R;
  const T *v = F.at<T>(I.in[1].off);
  const bool vb = I.in[1].bcast;
  const uint8_t *m = a.hasMask ? F.at<uint8_t>(I.in[2].off) : nullptr;
  if (m && I.in[2].bcast) {
    if (!m[0])
      return;
    m = nullptr;
  }
  // Check every row first: nothing is written when any lane is out of bounds.
  for (int64_t r = 0; r < R; ++r) {
    const uint8_t *mr = m ? m + r * L : nullptr;
    int64_t first, last;
    if (activeSpan(mr, L, first, last))
      checkCompactRow(I, F, Access::Store, starts[r], limits[r], S, ES, mr, first, last, r * L,
                      static_cast<int>(I.imm2));
  }
  for (int64_t r = 0; r < R; ++r) {
    const uint8_t *mr = m ? m + r * L : nullptr;
    char *dst = reinterpret_cast<char *>(starts[r]);
    const T *vr = v + (vb ? 0 : r * L);
    bool all = !mr || countActive(mr, L) == L;
    if (all && S == ES && !vb) {
      copyBytes(dst, vr, static_cast<size_t>(L) * ES);
    } else {
      for (int64_t j = 0; j < L; ++j)
        if (!mr || mr[j])
          storeAs<T>(dst + j * S, vr[vb ? 0 : j]);
    }
  }
}

int64_t lastDim(Type t) { return t.isTensor() ? t.shape().back() : 1; }

} // namespace

// The offset bits of the narrowest offset along a compact pointer's tt.addptr chain: lanes
// whose offsets wrapped fault with an address reported as if they had wrapped at that width.
int offsetBitsOf(Compiler &c, const Value *ptr) {
  int bits = 64;
  for (const Value *v = ptr; v && v->def && v->def->is("tt.addptr"); v = v->def->operand(0))
    bits = std::min(bits, intBits(c.dtype(v->def->operand(1))));
  return bits;
}

bool emitCompact(Compiler &c, const Operation &op) {
  const std::string &name = op.name();
  if (name == "tt.addptr") {
    const Value *res = op.result(0), *base = op.operand(0), *off = op.operand(1);
    const CompactPtr *cp = c.compact(res);
    if (!cp)
      return false;
    auto *a = c.makeAux<CompactAux>();
    a->rows = cp->rows;
    a->rowLen = cp->rowLen;
    Ref b = c.ref(base, true);
    a->baseMode = c.compact(base) ? 1 : ((b.bcast || c.numel(base) == 1) ? 0 : 2);
    Ref o = c.ref(off, true);
    a->offBcast = o.bcast || c.numel(off) == 1;
    if (!a->offBcast && !c.intStride(off, a->offStride))
      c.fail(op, "internal error: compact tt.addptr without an offset stride");
    a->offBits = intBits(c.dtype(off));
    Type pointee = res->type.element().pointee();
    a->shift = __builtin_ctz(static_cast<unsigned>(pointee.isPtr() ? 8 : dtypeSize(dtypeOf(pointee))));
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
  if (name == "tt.load" || name == "tt.store") {
    const Value *ptr = op.operand(0);
    const CompactPtr *cp = c.compact(ptr);
    if (!cp)
      return false;
    bool load = name == "tt.load";
    const Value *val = load ? op.result(0) : op.operand(1);
    auto *a = c.makeAux<CompactAux>();
    a->rows = cp->rows;
    a->rowLen = cp->rowLen;
    a->stride = cp->strideBytes;
    DType dt = c.dtype(val);
    a->es = dtypeSize(dt);
    a->isBool = dt == DType::I1;
    Ref pr = c.ref(ptr);
    Inst *I;
    if (load) {
      a->hasMask = op.numOperands() > 1;
      a->hasOther = op.numOperands() > 2;
      I = &c.emit(pickBySize(a->es, compactLoadK<1>, compactLoadK<2>, compactLoadK<4>,
                             compactLoadK<8>),
                  op);
      I->out = c.out(val);
      if (a->hasMask)
        I->in[1] = c.ref(op.operand(1), true);
      if (a->hasOther)
        I->in[2] = c.ref(op.operand(2), true);
    } else {
      a->hasMask = op.numOperands() > 2;
      I = &c.emit(pickBySize(a->es, compactStoreK<1>, compactStoreK<2>, compactStoreK<4>,
                             compactStoreK<8>),
                  op);
      I->in[1] = c.ref(val, true);
      if (a->hasMask)
        I->in[2] = c.ref(op.operand(2), true);
    }
    I->aux = a;
    I->in[0] = pr;
    I->n = cp->rows * cp->rowLen;
    I->imm2 = offsetBitsOf(c, ptr);
    return true;
  }
  return false;
}

bool emitMemory(Compiler &c, const Operation &op) {
  const std::string &name = op.name();
  if (emitCompact(c, op))
    return true;
  if (name == "tt.load") {
    const Value *res = op.result(0);
    auto *a = c.makeAux<MemAux>();
    a->dt = c.dtype(res);
    a->es = dtypeSize(a->dt);
    a->isBool = a->dt == DType::I1;
    a->rowLen = lastDim(res->type);
    a->hasMask = op.numOperands() > 1;
    a->hasOther = op.numOperands() > 2;
    Inst &I = c.emit(pickBySize(a->es, loadK<1>, loadK<2>, loadK<4>, loadK<8>), op);
    I.aux = a;
    I.out = c.out(res);
    I.n = c.numel(res);
    I.in[0] = c.ref(op.operand(0), true);
    if (a->hasMask)
      I.in[1] = c.ref(op.operand(1), true);
    if (a->hasOther)
      I.in[2] = c.ref(op.operand(2), true);
    return true;
  }
  if (name == "tt.store") {
    const Value *val = op.operand(1);
    auto *a = c.makeAux<MemAux>();
    a->dt = c.dtype(val);
    a->es = dtypeSize(a->dt);
    a->rowLen = lastDim(val->type);
    a->hasMask = op.numOperands() > 2;
    Inst &I = c.emit(pickBySize(a->es, storeK<1>, storeK<2>, storeK<4>, storeK<8>), op);
    I.aux = a;
    I.n = val->type.numel();
    I.in[0] = c.ref(op.operand(0), true);
    I.in[1] = c.ref(val, true);
    if (a->hasMask)
      I.in[2] = c.ref(op.operand(2), true);
    return true;
  }
  if (name == "tt.atomic_rmw" || name == "tt.atomic_cas") {
    const Value *res = op.result(0);
    auto *a = c.makeAux<MemAux>();
    a->dt = c.dtype(res);
    a->es = dtypeSize(a->dt);
    a->order = memOrder(op.intAttr("sem", 4));
    Inst *I;
    if (name == "tt.atomic_rmw") {
      a->rmwOp = static_cast<int>(op.intAttr("atomic_rmw_op", 0));
      if (a->rmwOp < kAnd || a->rmwOp > kXchg)
        c.fail(op, "unknown atomic_rmw_op " + std::to_string(a->rmwOp));
      bool isFloat = isFloatDType(a->dt);
      if (a->rmwOp == kFAdd && !(isFloat && a->dt != DType::F8E4M3 && a->dt != DType::F8E5M2))
        c.fail(op, std::string("fadd needs f16, bf16, f32 or f64 elements, not ") +
                       dtypeName(a->dt));
      if (isFloat && a->rmwOp != kFAdd && a->rmwOp != kMax && a->rmwOp != kMin &&
          a->rmwOp != kXchg)
        c.fail(op, std::string("this atomic op does not apply to ") + dtypeName(a->dt));
      a->hasMask = op.numOperands() > 2;
      I = &c.emit(pickBySize(a->es, atomicRmwK<1>, atomicRmwK<2>, atomicRmwK<4>, atomicRmwK<8>),
                  op);
      I->in[0] = c.ref(op.operand(0), true);
      I->in[1] = c.ref(op.operand(1), true);
      if (a->hasMask)
        I->in[2] = c.ref(op.operand(2), true);
    } else {
      I = &c.emit(pickBySize(a->es, atomicCasK<1>, atomicCasK<2>, atomicCasK<4>, atomicCasK<8>),
                  op);
      I->in[0] = c.ref(op.operand(0), true);
      I->in[1] = c.ref(op.operand(1), true);
      I->in[2] = c.ref(op.operand(2), true);
    }
    I->aux = a;
    I->out = c.out(res);
    I->n = c.numel(res);
    return true;
  }
  return false;
}

} // namespace tt::exec
