// Memory: tt.load, tt.store, tt.atomic_rmw, tt.atomic_cas over tiles of host addresses.
//
// Rules:
//  - a masked-off lane never touches memory; it reads `other` (0 without it) and writes
//    nothing;
//  - every address range a live lane accesses must lie inside one array argument of the launch;
//    otherwise OutOfBoundsError (IndexError in Python) is thrown before the op writes anything.
//    pointers whose provenance is not a kernel argument (made by tt.int_to_ptr or loaded from
//    memory, as in grouped GEMM's pointer tables) point into memory of unknown extent: their
//    ranges must lie in memory the process may read (write, for stores and atomics) instead
//    (mapped_memory.h), so a wild one raises rather than crashing the process;
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

#include "exec/kernels/shared_emit.h"
#include "exec/runtime/copy.h"

#include <algorithm>

#include "exec/kernels/atomics.h"
#include "exec/kernels/memory_common.h"

namespace tt::exec {
namespace {

using namespace mem;

struct MemAux : Aux {
  int es = 4;         // element bytes
  int64_t rowLen = 1; // last dimension of the tile
  bool hasMask = false, hasOther = false;
  bool isBool = false; // i1 elements: loads normalize to 0/1
  int rmwOp = 0, order = __ATOMIC_SEQ_CST;
  DType dt = DType::I32;
};

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
        if (!inBoundsI(I, L, base, static_cast<uint64_t>(rowLen) * ES))
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
        if (!inBoundsI(I, L, base + first * ES, static_cast<uint64_t>(last - first + 1) * ES))
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
      if (!inBoundsI(I, L, p[r] + first * ES, static_cast<uint64_t>(last - first + 1) * ES))
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

// ---- atomics (atomics.h) ----

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
  settleStreams(F);
  for (int64_t i = 0; i < n; ++i) {
    if (m && !m[mb ? 0 : i]) {
      o[i] = 0;
      continue;
    }
    o[i] =
        atomicRmw<T>(reinterpret_cast<T *>(p[pb ? 0 : i]), a.rmwOp, v[vb ? 0 : i], a.dt, a.order);
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
  const uint8_t *m = a.hasMask ? F.at<uint8_t>(I.in[3].off) : nullptr;
  const bool mb = I.in[3].bcast;
  T *o = F.at<T>(I.out);
  const int64_t n = I.n;
  checkLanes(I, F, Access::Atomic, p, pb, m, mb, n, ES);
  settleStreams(F);
  bool failed = false;
  for (int64_t i = 0; i < n; ++i) {
    if (m && !m[mb ? 0 : i]) { // masked off: memory untouched, the comparand comes back
      o[i] = cmp[cb ? 0 : i];
      continue;
    }
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

void fenceK(const Inst &I, Frame &F) {
  settleStreams(F);
  __atomic_thread_fence(static_cast<int>(I.imm));
}

} // namespace

void emitPointerLoad(Compiler &c, const Operation &op, const Value *ptr, const Value *mask,
                     const Value *other, const Value *res, int sem) {
  auto *a = c.makeAux<MemAux>();
  a->dt = c.dtype(res);
  a->es = dtypeSize(a->dt);
  a->isBool = a->dt == DType::I1;
  a->rowLen = c.rowLen(res);
  a->hasMask = mask != nullptr;
  a->hasOther = other != nullptr;
  Ref p = c.ref(ptr, true);
  Ref mr = mask ? c.ref(mask, true) : Ref{};
  Ref orr = other ? c.ref(other, true) : Ref{};
  Inst &I = c.emit(pickBySize(a->es, loadK<1>, loadK<2>, loadK<4>, loadK<8>), op);
  I.aux = a;
  I.checked = !c.foreignPointer(ptr);
  I.origin = c.pointerOrigin(ptr);
  I.out = c.out(res);
  I.n = c.numel(res);
  I.in[0] = p;
  I.in[1] = mr;
  I.in[2] = orr;
  if (sem == 2 || sem == 4)
    emitFence(c, op, sem);
}

void emitPointerStore(Compiler &c, const Operation &op, const Value *ptr, const Value *val,
                      const Value *mask, int sem) {
  if (sem == 3 || sem == 4)
    emitFence(c, op, sem);
  auto *a = c.makeAux<MemAux>();
  a->dt = c.dtype(val);
  a->es = dtypeSize(a->dt);
  a->rowLen = c.rowLen(val);
  a->hasMask = mask != nullptr;
  Ref p = c.ref(ptr, true), v = c.ref(val, true);
  Ref mr = mask ? c.ref(mask, true) : Ref{};
  Inst &I = c.emit(pickBySize(a->es, storeK<1>, storeK<2>, storeK<4>, storeK<8>), op);
  I.aux = a;
  I.checked = !c.foreignPointer(ptr);
  I.origin = c.pointerOrigin(ptr);
  I.n = c.numel(val);
  I.in[0] = p;
  I.in[1] = v;
  I.in[2] = mr;
}

void emitFence(Compiler &c, const Operation &op, int sem) {
  c.emit(fenceK, op).imm = memOrder(sem);
}

void emitAtomicRmwAs(Compiler &c, const Operation &op, const Value *ptr, const Value *val,
                     const Value *mask, const Value *res, int rmwOp, int sem) {
  auto *a = c.makeAux<MemAux>();
  a->dt = c.dtype(res);
  a->es = dtypeSize(a->dt);
  a->order = memOrder(sem);
  a->rmwOp = rmwOp;
  if (a->rmwOp < kAnd || a->rmwOp > kXchg)
    c.fail(op, "unknown atomic operation " + std::to_string(a->rmwOp));
  bool isFloat = isFloatDType(a->dt);
  if (a->rmwOp == kFAdd && !(isFloat && a->dt != DType::F8E4M3 && a->dt != DType::F8E5M2))
    c.fail(op, std::string("fadd needs f16, bf16, f32 or f64 elements, not ") + dtypeName(a->dt));
  if (isFloat && a->rmwOp != kFAdd && a->rmwOp != kMax && a->rmwOp != kMin && a->rmwOp != kXchg)
    c.fail(op, std::string("this atomic op does not apply to ") + dtypeName(a->dt));
  a->hasMask = mask != nullptr;
  Ref p = c.ref(ptr, true), v = c.ref(val, true);
  Ref mr = mask ? c.ref(mask, true) : Ref{};
  Inst &I =
      c.emit(pickBySize(a->es, atomicRmwK<1>, atomicRmwK<2>, atomicRmwK<4>, atomicRmwK<8>), op);
  I.in[0] = p;
  I.in[1] = v;
  I.in[2] = mr;
  I.aux = a;
  I.out = c.out(res);
  I.n = c.numel(res);
  I.checked = !c.foreignPointer(ptr);
  I.origin = c.pointerOrigin(ptr);
}

void emitAtomicCasAs(Compiler &c, const Operation &op, const Value *ptr, const Value *cmp,
                     const Value *val, const Value *mask, const Value *res, int sem) {
  auto *a = c.makeAux<MemAux>();
  a->dt = c.dtype(res);
  a->es = dtypeSize(a->dt);
  a->order = memOrder(sem);
  a->hasMask = mask != nullptr;
  Ref p = c.ref(ptr, true), cr = c.ref(cmp, true), v = c.ref(val, true);
  Ref mr = mask ? c.ref(mask, true) : Ref{};
  Inst &I =
      c.emit(pickBySize(a->es, atomicCasK<1>, atomicCasK<2>, atomicCasK<4>, atomicCasK<8>), op);
  I.in[0] = p;
  I.in[1] = cr;
  I.in[2] = v;
  I.in[3] = mr;
  I.aux = a;
  I.out = c.out(res);
  I.n = c.numel(res);
  I.checked = !c.foreignPointer(ptr);
  I.origin = c.pointerOrigin(ptr);
}

bool emitMemory(Compiler &c, const Operation &op) {
  const std::string &name = op.name();
  if (emitCompact(c, op))
    return true;
  auto opt = [&](size_t i) -> const Value * {
    return op.numOperands() > i ? op.operand(i) : nullptr;
  };
  if (name == "tt.load") {
    emitPointerLoad(c, op, op.operand(0), opt(1), opt(2), op.result(0));
    return true;
  }
  if (name == "tt.store") {
    emitPointerStore(c, op, op.operand(0), op.operand(1), opt(2));
    return true;
  }
  if (name == "tt.atomic_rmw") {
    emitAtomicRmwAs(c, op, op.operand(0), op.operand(1), opt(2), op.result(0),
                    static_cast<int>(op.intAttr("atomic_rmw_op", 0)),
                    static_cast<int>(op.intAttr("sem", 4)));
    return true;
  }
  if (name == "tt.atomic_cas") {
    emitAtomicCasAs(c, op, op.operand(0), op.operand(1), op.operand(2), nullptr, op.result(0),
                    static_cast<int>(op.intAttr("sem", 4)));
    return true;
  }
  return false;
}

} // namespace tt::exec
