// Tile IR memory ops: views (tile_view.cpp), pointer-tile gathers/scatters and atomics
// (memory.cpp's kernels, or compact_ptr.cpp's when the pointer tile is compact, affine.h), each
// preceded by the checker's record when it is on (tile_check.h).
//
// Rules:
//  - optional operands are found through operandSegmentSizes; a token operand carries no data
//    (program order already orders the CPU's accesses of one program);
//  - load_ptr_tko: masked-off lanes read the padding tile (0 without one) and never memory;
//    store_ptr_tko: masked-off lanes are not written;
//  - memory_ordering_semantics: weak accesses are plain; relaxed/acquire/release/acq_rel
//    loads and stores add the matching fence; atomics run with that order (weak: relaxed);
//  - atomic_rmw_tko modes and 8/16-bit or float restrictions follow memory.cpp; masked-off
//    lanes of atomic_cas_tko leave memory alone and return `cmp`.
#include "exec/kernels/shared_emit.h"
#include "exec/tile/tile_check.h"
#include "exec/tileir/tile_ops.h"
#include "tile/tile.h"

namespace tt::exec {
namespace {

// Operands by operandSegmentSizes: groups[i] is empty when optional operand i is absent.
std::vector<std::vector<Value *>> segments(Compiler &c, const Operation &op, size_t groups) {
  const Attribute &a = op.attr("operandSegmentSizes");
  if (a.kind() != Attribute::Kind::I32Array || a.getInts().size() != groups)
    c.fail(op, "needs operandSegmentSizes with " + std::to_string(groups) + " entries");
  std::vector<std::vector<Value *>> out;
  size_t k = 0;
  for (int64_t n : a.getInts()) {
    std::vector<Value *> g;
    for (int64_t i = 0; i < n; ++i) {
      if (k >= op.numOperands())
        c.fail(op, "operandSegmentSizes do not match the operands");
      g.push_back(op.operand(k++));
    }
    out.push_back(g);
  }
  return out;
}

const Value *first(const std::vector<Value *> &g) { return g.empty() ? nullptr : g[0]; }

// TTIR's sem numbering (shared_emit.h) of a Tile IR ordering; 0 = weak.
int semOf(const Operation &op) {
  switch (op.intAttr("memory_ordering_semantics", tile::kWeak)) {
  case tile::kRelaxed:
    return 1;
  case tile::kAcquire:
    return 2;
  case tile::kRelease:
    return 3;
  case tile::kAcqRel:
    return 4;
  default:
    return 0;
  }
}

const Value *resultToken(const Operation &op) {
  const Value *t = op.result(op.numResults() - 1);
  return t->type.isToken() ? t : nullptr;
}

void loadView(Compiler &c, const Operation &op) {
  auto g = segments(c, op, 3);
  const Value *res = op.result(0);
  ViewAux *a = makeViewAux(c, op, first(g[0]), g[1], res);
  if (c.checking())
    emitCheckViewAccess(c, op, a, first(g[2]), resultToken(op), false, semOf(op) != 0);
  emitViewLoad(c, op, a, res);
  if (semOf(op) == 2 || semOf(op) == 4)
    emitFence(c, op, semOf(op));
}

void storeView(Compiler &c, const Operation &op) {
  auto g = segments(c, op, 4);
  const Value *val = first(g[0]);
  ViewAux *a = makeViewAux(c, op, first(g[1]), g[2], val);
  if (semOf(op) == 3 || semOf(op) == 4)
    emitFence(c, op, semOf(op));
  if (c.checking())
    emitCheckViewAccess(c, op, a, first(g[3]), resultToken(op), true, semOf(op) != 0);
  emitViewStore(c, op, a, val);
}

// operands: view, indices, value, token?
void reduceView(Compiler &c, const Operation &op) {
  auto g = segments(c, op, 4);
  const Value *val = first(g[2]);
  ViewAux *a = makeViewAux(c, op, first(g[0]), g[1], val);
  if (c.checking())
    emitCheckViewAccess(c, op, a, first(g[3]), resultToken(op), true, true);
  emitViewReduce(c, op, a, val, static_cast<int>(op.intAttr("mode", -1)));
}

void loadPtr(Compiler &c, const Operation &op) {
  auto g = segments(c, op, 4);
  const Value *res = op.result(0);
  // Compact pointer tiles (affine.h) are only chosen for weak accesses outside the checker.
  if (emitCompactLoad(c, op, first(g[0]), first(g[1]), first(g[2]), res))
    return;
  if (c.checking())
    emitCheckPointerAccess(c, op, first(g[0]), first(g[1]), first(g[3]), resultToken(op),
                           dtypeSize(c.dtype(res)), false, semOf(op) != 0);
  emitPointerLoad(c, op, first(g[0]), first(g[1]), first(g[2]), res, semOf(op));
}

void storePtr(Compiler &c, const Operation &op) {
  auto g = segments(c, op, 4);
  if (emitCompactStore(c, op, first(g[0]), first(g[1]), first(g[2])))
    return;
  if (c.checking())
    emitCheckPointerAccess(c, op, first(g[0]), first(g[2]), first(g[3]), resultToken(op),
                           dtypeSize(c.dtype(first(g[1]))), true, semOf(op) != 0);
  emitPointerStore(c, op, first(g[0]), first(g[1]), first(g[2]), semOf(op));
}

void atomicRmw(Compiler &c, const Operation &op) {
  auto g = segments(c, op, 4);
  const Value *res = op.result(0);
  int sem = semOf(op) ? semOf(op) : 1;
  if (c.checking())
    emitCheckPointerAccess(c, op, first(g[0]), first(g[2]), first(g[3]), resultToken(op),
                           dtypeSize(c.dtype(res)), true, true);
  // Tile IR's modes (and 0 .. xchg 9) are TTIR's atomic_rmw_op (and 1 .. xchg 10) minus one.
  emitAtomicRmwAs(c, op, first(g[0]), first(g[1]), first(g[2]), res,
                  static_cast<int>(op.intAttr("mode", -1)) + 1, sem);
}

void atomicCas(Compiler &c, const Operation &op) {
  auto g = segments(c, op, 5);
  const Value *res = op.result(0);
  int sem = semOf(op) ? semOf(op) : 1;
  if (c.checking())
    emitCheckPointerAccess(c, op, first(g[0]), first(g[3]), first(g[4]), resultToken(op),
                           dtypeSize(c.dtype(res)), true, true);
  emitAtomicCasAs(c, op, first(g[0]), first(g[1]), first(g[2]), first(g[3]), res, sem);
}

} // namespace

bool emitTileMemory(Compiler &c, const Operation &op) {
  std::string n = tileOpName(op);
  if (n == "make_tensor_view")
    emitMakeTensorView(c, op);
  else if (n == "make_partition_view")
    ; // shares its tensor_view's register
  else if (n == "load_view_tko")
    loadView(c, op);
  else if (n == "store_view_tko")
    storeView(c, op);
  else if (n == "load_ptr_tko")
    loadPtr(c, op);
  else if (n == "store_ptr_tko")
    storePtr(c, op);
  else if (n == "atomic_rmw_tko")
    atomicRmw(c, op);
  else if (n == "atomic_cas_tko")
    atomicCas(c, op);
  else if (n == "atomic_red_view_tko")
    reduceView(c, op);
  else
    return false;
  return true;
}

} // namespace tt::exec
