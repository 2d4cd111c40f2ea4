// Tile IR view kernels: make_tensor_view, load_view_tko, store_view_tko and
// atomic_red_view_tko (see tile_view.h).
//
// Rules:
//  - a view access is a block copy: per row of its box (the lanes inside the view), one
//    contiguous copy when the row's tensor stride is 1, else a strided gather/scatter;
//  - bounds: the span of the whole box is checked once against the launch's arrays; only when
//    it fails are rows checked one by one, to name the first lane outside every array in the
//    IndexError (nothing is read or written before the check passes); views over pointers of
//    unknown provenance (foreign, affine.h) are checked against mapped memory instead
//    (mapped_memory.h);
//  - loads fill lanes outside the box with the padding (0 without one) and never read them;
//    stores skip them; rows of at least kStreamRowBytes into large arrays are written with
//    non-temporal stores (memory_common.h), like the TTIR executor's contiguous stores;
//  - a reduction applies each lane inside the box as its own atomic (atomics.h), in lane
//    order, after the streamed stores before it are settled.
#include "exec/tile/tile_view.h"

#include <cmath>

#include "exec/kernels/atomics.h"
#include "exec/kernels/dot_store.h"
#include "exec/kernels/gemm.h"
#include "exec/kernels/memory_common.h"
#include "exec/kernels/shared_emit.h"
#include "exec/runtime/copy.h"
#include "exec/runtime/tile_memo.h"

namespace tt::exec {
namespace {

using namespace mem;

// ---- make_tensor_view ----

struct MakeViewAux : Aux {
  std::vector<int64_t> words; // [0, shape..., strides...] with kDynamic where an operand goes
  std::vector<Ref> dyn;
  std::vector<DType> dynType;
  Ref base;
};

void makeViewK(const Inst &I, Frame &F) {
  const MakeViewAux &a = *static_cast<const MakeViewAux *>(I.aux);
  int64_t *o = F.at<int64_t>(I.out);
  o[0] = static_cast<int64_t>(*F.at<uint64_t>(a.base.off));
  size_t k = 0;
  for (size_t w = 1; w < a.words.size(); ++w) {
    if (a.words[w] != kDynamic) {
      o[w] = a.words[w];
      continue;
    }
    o[w] = readIntSext(F.R + a.dyn[k].off, a.dynType[k]);
    ++k;
  }
}

// ---- bounds ----

// The byte span [lo, hi) of a non-empty box; false when a dimension's reach overflows (a
// stride near 2^63 whose multiples wrap back inside the array: then every lane is checked).
inline bool boxSpan(const ViewAux &a, const ViewBox &b, uint64_t &lo, uint64_t &hi) {
  int64_t neg = 0, pos = 0;
  for (int i = 0; i < a.rank; ++i) {
    int64_t ext;
    if (__builtin_mul_overflow(b.hi[i] - 1, b.step[i], &ext))
      return false;
    int64_t &side = ext < 0 ? neg : pos;
    if (__builtin_add_overflow(side, ext, &side))
      return false;
  }
  lo = b.base + static_cast<uint64_t>(neg);
  hi = b.base + static_cast<uint64_t>(pos) + static_cast<uint64_t>(a.es);
  return true;
}

[[noreturn]] __attribute__((cold)) void throwOutside(const Inst &I, const Frame &F,
                                                     const ViewAux &a) {
  const int64_t *v = F.at<int64_t>(a.view);
  std::string where;
  for (int i = 0; i < a.rank; ++i) {
    const int d = a.dimMap[i];
    const int64_t k = a.idxConst[i] ? static_cast<int64_t>(a.idxValue[i])
                                    : readIntSext(F.R + a.idx[i].off, a.idxType[i], true);
    where += (i ? ", " : "") + std::to_string(k) + " of " +
             (a.fused ? std::string("?") : std::to_string(v[1 + d])) + "/" +
             std::to_string(a.tile[i]);
  }
  throw ExecError("view access in kernel " + *F.launch->kernelName + " at " + I.site->loc +
                  ": a tile index outside the view's index space (index of shape/tile per "
                  "dimension: " +
                  where + "); Tile IR leaves it undefined");
}

void checkBox(const Inst &I, const Frame &F, const ViewAux &a, const ViewBox &b, Access kind) {
  if (b.outside)
    throwOutside(I, F, a);
  if (b.empty)
    return;
  uint64_t lo, hi;
  if (boxSpan(a, b, lo, hi) && hi > lo && accessible(I, *F.launch, kind, lo, hi - lo, false))
    return;
  const int64_t inner = b.step[a.rank - 1];
  forEachRow(a, b, [&](uint64_t addr, int64_t lane, int64_t len) {
    for (int64_t j = 0; j < len; ++j) {
      uint64_t x = addr + static_cast<uint64_t>(j * inner);
      if (!accessible(I, *F.launch, kind, x, static_cast<uint64_t>(a.es), true))
        throwOob(I, F, kind, x, lane + j);
    }
  });
}

// ---- load_view_tko ----

// True when the lanes of a full box are one contiguous block in tile order.
inline bool contiguous(const ViewAux &a, const ViewBox &b) {
  int64_t step = a.es;
  for (int i = a.rank - 1; i >= 0; --i) {
    if (b.hi[i] > 1 && b.step[i] != step)
      return false;
    step *= a.tile[i];
  }
  return true;
}

template <int ES> void viewLoadK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const ViewAux &a = *static_cast<const ViewAux *>(I.aux);
  const ViewBox b = viewBox(a, F);
  checkBox(I, F, a, b, Access::Load);
  T *__restrict o = F.at<T>(I.out);
  if (a.forward) { // Frame::fwdSlot: the memory itself when the box is one contiguous block
    const bool inMemory = b.full && contiguous(a, b);
    // A dot's A (rank 2): rows of adjacent lanes, whatever the row pitch.
    const bool rowsInMemory = a.forwardRows && b.full && b.step[1] == ES && b.step[0] % ES == 0;
    F.fwdSlot(I.out) = inMemory || rowsInMemory ? reinterpret_cast<const char *>(b.base)
                                                : reinterpret_cast<const char *>(o);
    if (a.forwardRows)
      F.fwdRowBytes(I.out) = inMemory || !rowsInMemory ? a.tile[1] * ES : b.step[0];
    if (a.memo >= 0) // row-major, unless the memo below holds it in panels
      F.fwdPanels(I.out) = 0;
    if (inMemory || rowsInMemory)
      return;
    // A dot's B (rank 2): a dense copy in the thread's memo, made once per launch and thread
    // while it stays in the memo's FIFO, in the GEMM's panels where its width allows.
    if (a.memo >= 0 && b.full && b.step[1] == ES) {
      const int64_t panel = gemmPanelBytes(a.tile[1], ES);
      if (const char *slot = F.memo->fetch(a.memo, reinterpret_cast<const char *>(b.base),
                                           a.tile[0], a.tile[1] * ES, b.step[0], panel)) {
        F.fwdSlot(I.out) = slot;
        F.fwdPanels(I.out) = panel > 0;
        return;
      }
    }
  }
  if (!b.full) {
    const T pad = loadAs<T>(a.pad.data());
    for (int64_t i = 0; i < a.numel; ++i)
      o[i] = pad;
  }
  const int64_t inner = b.step[a.rank - 1];
  forEachRow(a, b, [&](uint64_t addr, int64_t lane, int64_t len) {
    const char *src = reinterpret_cast<const char *>(addr);
    if (inner == ES) {
      copyBytes(o + lane, src, static_cast<size_t>(len) * ES);
    } else {
      for (int64_t j = 0; j < len; ++j)
        o[lane + j] = loadAs<T>(src + j * inner);
    }
  });
  if (a.isBool)
    for (int64_t i = 0; i < a.numel; ++i)
      o[i] = o[i] != 0;
}

// ---- store_view_tko ----

template <int ES> void viewStoreK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const ViewAux &a = *static_cast<const ViewAux *>(I.aux);
  const ViewBox b = viewBox(a, F);
  checkBox(I, F, a, b, Access::Store);
  const T *v = F.at<T>(I.in[0].off);
  const bool vb = I.in[0].bcast;
  const int64_t inner = b.step[a.rank - 1];
  if (!a.dotPendings.empty()) { // the dots' last GEMM writes whole rows of f32 itself
    const int64_t pitch = a.rank == 2 ? b.step[0] : 0, rowBytes = a.tile[1] * ES;
    const bool rows = ES == 4 && a.rank == 2 && b.full && !vb && inner == ES && pitch % ES == 0 &&
                      (pitch >= rowBytes || pitch <= -rowBytes) &&
                      (static_cast<uint64_t>(rowBytes) < kStreamRowBytes ||
                       !streamingTarget(I, *F.launch, b.base));
    if (runFusedDotSteps(a.dotPendings, F, rows ? reinterpret_cast<float *>(b.base) : nullptr,
                         pitch / ES, a.tile[0], a.tile[1]))
      return;
  }
  // The row 4 ahead is prefetched for writing while this one is copied: its lines' reads for
  // ownership overlap. A 64x64 f32 tile of a 1024-wide matrix stored 20-30% faster (Zen 3).
  const int64_t ahead = a.rank >= 2 ? 4 * b.step[a.rank - 2] : 0;
  bool wroteStreams = false;
  forEachRow(a, b, [&](uint64_t addr, int64_t lane, int64_t len) {
    char *dst = reinterpret_cast<char *>(addr);
    const size_t bytes = static_cast<size_t>(len) * ES;
    if (ahead && inner == ES && !vb && bytes < kStreamRowBytes) { // (streamed rows skip caches)
      const uintptr_t first = reinterpret_cast<uintptr_t>(dst + ahead), last = first + bytes - 1;
      for (uintptr_t line = first & ~uintptr_t(63); line <= last; line += 64)
        __builtin_prefetch(reinterpret_cast<const void *>(line), 1); // (harmless past the box)
    }
    if (vb) {
      for (int64_t j = 0; j < len; ++j)
        storeAs<T>(dst + j * inner, v[0]);
    } else if (inner == ES) {
      if (bytes >= kStreamRowBytes && streamingTarget(I, *F.launch, addr)) {
        streamBytes(dst, v + lane, bytes);
        wroteStreams = true;
      } else {
        copyBytes(dst, v + lane, bytes);
      }
    } else {
      for (int64_t j = 0; j < len; ++j)
        storeAs<T>(dst + j * inner, v[lane + j]);
    }
  });
  if (wroteStreams)
    streamed(F);
}

// ---- atomic_red_view_tko ----

template <int ES> void viewReduceK(const Inst &I, Frame &F) {
  using T = typename Elem<ES>::T;
  const ViewAux &a = *static_cast<const ViewAux *>(I.aux);
  const ViewBox b = viewBox(a, F);
  checkBox(I, F, a, b, Access::Atomic);
  settleStreams(F);
  const T *v = F.at<T>(I.in[0].off);
  const bool vb = I.in[0].bcast;
  const int64_t inner = b.step[a.rank - 1];
  forEachRow(a, b, [&](uint64_t addr, int64_t lane, int64_t len) {
    for (int64_t j = 0; j < len; ++j)
      atomicRmw<T>(reinterpret_cast<T *>(addr + static_cast<uint64_t>(j * inner)), a.rmwOp,
                   v[vb ? 0 : lane + j], a.dt, a.order);
  });
}

void paddingBytes(Padding p, DType dt, std::array<char, 8> &out, bool &zero) {
  out.fill(0);
  zero = p == Padding::None || p == Padding::Zero || !isFloatDType(dt);
  if (!zero)
    encodeConstant(out.data(), dt, true, paddingValue(p), 0);
}

// A make_tensor_view whose views have exactly one access, in its own block with nothing between
// them that takes a register or runs (partition views, constants, tokens): the access computes
// the view's words itself, from the make_tensor_view's operands, which stay live up to it (no
// value is defined in between) and are read before the access writes its result.
const Operation *fusedAccess(const Compiler &c, const Operation &make) {
  if (c.checking())
    return nullptr;
  const Operation *access = nullptr;
  for (const Operation *p : c.usersOf(make.result(0))) {
    if (!p->is("cuda_tile.make_partition_view"))
      return nullptr;
    for (const Operation *u : c.usersOf(p->result(0))) {
      bool load = u->is("cuda_tile.load_view_tko"), store = u->is("cuda_tile.store_view_tko");
      if ((!load && !store) || u->operand(load ? 0 : 1) != p->result(0) || access)
        return nullptr;
      for (size_t i = 0; i < u->numOperands(); ++i) // the view is its view operand only
        if (u->operand(i) == p->result(0) && i != (load ? 0u : 1u))
          return nullptr;
      access = u;
    }
  }
  if (!access || access->parentBlock() != make.parentBlock())
    return nullptr;
  bool between = false;
  for (const auto &o : make.parentBlock()->ops()) {
    if (o.get() == &make) {
      between = true;
      continue;
    }
    if (o.get() == access)
      return access;
    if (between && !o->is("cuda_tile.make_partition_view") && !o->is("cuda_tile.constant") &&
        !o->is("cuda_tile.iota") && !o->is("cuda_tile.make_token") &&
        !o->is("cuda_tile.join_tokens"))
      return nullptr;
  }
  return nullptr;
}

} // namespace

void emitMakeTensorView(Compiler &c, const Operation &op) {
  if (fusedAccess(c, op))
    return; // computed by its access (makeViewAux)
  Type tv = op.result(0)->type;
  auto *a = c.makeAux<MakeViewAux>();
  a->words.push_back(0);
  for (int64_t d : tv.viewShape())
    a->words.push_back(d);
  for (int64_t s : tv.viewStrides())
    a->words.push_back(s);
  a->base = c.ref(op.operand(0));
  for (size_t i = 1; i < op.numOperands(); ++i) {
    a->dyn.push_back(c.ref(op.operand(i)));
    a->dynType.push_back(c.dtype(op.operand(i)));
  }
  Inst &I = c.emit(makeViewK, op);
  I.aux = a;
  I.out = c.out(op.result(0));
}

ViewAux *makeViewAux(Compiler &c, const Operation &op, const Value *view,
                     const std::vector<Value *> &indices, const Value *tileValue) {
  Type pv = view->type;
  if (!pv.isPartitionView())
    c.fail(op, "expects a partition_view");
  auto *a = c.makeAux<ViewAux>();
  const auto &tile = pv.tileShape();
  a->rank = static_cast<int>(tile.size());
  const Type tv = pv.tensorViewOf();
  if (a->rank < 1 || a->rank > kMaxViewRank ||
      tv.viewShape().size() != static_cast<size_t>(a->rank) ||
      indices.size() != static_cast<size_t>(a->rank))
    c.fail(op, "needs a tile, a tensor_view and indices of one rank (1 to 8)");
  std::vector<bool> seen(a->rank, false);
  const auto &dm = pv.dimMap();
  for (int i = 0; i < a->rank; ++i) {
    int d = dm.size() == static_cast<size_t>(a->rank) ? static_cast<int>(dm[i]) : i;
    if (d < 0 || d >= a->rank || seen[d])
      c.fail(op, "dim_map must be a permutation of the tensor dimensions");
    seen[d] = true;
    a->dimMap[i] = d;
    a->tile[i] = tile[i];
  }
  DType dt = c.dtype(tileValue);
  a->es = dtypeSize(dt);
  a->isBool = dt == DType::I1;
  a->numel = c.numel(tileValue);
  a->strip = c.stripLen() != 0; // rank 1, tile = the whole N lanes (chooseStripLen)
  paddingBytes(pv.padding(), dt, a->pad, a->padZero);
  const Operation *make = view->def ? view->def->operand(0)->def : nullptr;
  if (make && make->is("cuda_tile.make_tensor_view") && fusedAccess(c, *make) == &op) {
    a->fused = true;
    a->base = c.ref(make->operand(0));
    size_t w = 1, k = 1;
    for (int64_t d : tv.viewShape())
      a->words[w++] = d;
    for (int64_t s : tv.viewStrides())
      a->words[w++] = s;
    for (size_t i = 1; i < w; ++i)
      if (a->words[i] == kDynamic) {
        a->dyn[k - 1] = c.ref(make->operand(k));
        a->dynType[k - 1] = c.dtype(make->operand(k));
        ++k;
      }
  } else {
    a->view = c.ref(view).off;
  }
  for (int i = 0; i < a->rank; ++i) {
    int64_t k;
    if (c.constInt(indices[i], k)) {
      a->idxConst[i] = true; // indices are read unsigned: zero-extend from their width
      int bits = intBits(c.dtype(indices[i]));
      a->idxValue[i] = bits >= 64 ? static_cast<uint64_t>(k)
                                  : static_cast<uint64_t>(k) & ((uint64_t(1) << bits) - 1);
    } else {
      a->idx[i] = c.ref(indices[i]);
      a->idxType[i] = c.dtype(indices[i]);
    }
  }
  return a;
}

void emitViewLoad(Compiler &c, const Operation &op, ViewAux *a, const Value *res) {
  a->forward = c.forwarded(res);
  a->forwardRows = c.forwardedRows(res); // the value is 2-D (forward.cpp)
  a->memo = c.memoOf(res);
  if ((a->forwardRows || a->memo >= 0) && a->rank != 2)
    c.fail(op, "internal error: a dot's operand forwarded from a view of rank " +
                   std::to_string(a->rank));
  Inst &I = c.emit(pickBySize(a->es, viewLoadK<1>, viewLoadK<2>, viewLoadK<4>, viewLoadK<8>), op);
  I.aux = a;
  I.out = c.out(res);
  I.n = a->numel;
  I.checked = !c.foreignPointer(op.operand(0));
  I.origin = c.pointerOrigin(op.operand(0));
}

namespace {
// A store or reduction of `val` through `view` (the op's view operand), run by `fn`.
void emitViewWrite(Compiler &c, const Operation &op, ViewAux *a, const Value *val,
                   const Value *view, KernelFn fn) {
  Ref v = c.ref(val, true);
  Inst &I = c.emit(fn, op);
  I.aux = a;
  I.in[0] = v;
  I.n = a->numel;
  I.checked = !c.foreignPointer(view);
  I.origin = c.pointerOrigin(view);
}
} // namespace

void emitViewStore(Compiler &c, const Operation &op, ViewAux *a, const Value *val) {
  a->dotPendings = c.fusedPendings(op);
  emitViewWrite(c, op, a, val, op.operand(1),
                pickBySize(a->es, viewStoreK<1>, viewStoreK<2>, viewStoreK<4>, viewStoreK<8>));
}

void emitViewReduce(Compiler &c, const Operation &op, ViewAux *a, const Value *val, int mode) {
  // Tile IR's modes (and 0 .. xchg 9) are atomics.h's (and 1 .. xchg 10) minus one.
  a->rmwOp = mode + 1;
  a->dt = c.dtype(val);
  a->order = __ATOMIC_RELAXED;
  const bool isFloat = isFloatDType(a->dt);
  if (a->rmwOp < kAnd || a->rmwOp >= kXchg)
    c.fail(op, "atomic_red_view_tko: mode " + std::to_string(mode) + " is not a reduction");
  if ((a->rmwOp == kFAdd) != isFloat || (isFloat && a->es == 1))
    c.fail(op, std::string("atomic_red_view_tko: this mode does not apply to ") + dtypeName(a->dt));
  emitViewWrite(c, op, a, val, op.operand(0),
                pickBySize(a->es, viewReduceK<1>, viewReduceK<2>, viewReduceK<4>, viewReduceK<8>));
}

} // namespace tt::exec
