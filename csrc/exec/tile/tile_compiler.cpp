// The Tile IR parts of preparation (compiler.h): storage classes of cuda_tile ops and the
// provenance of pointers.
//
// Storage classes:
//  - reshape, bitcast, int_to_ptr, ptr_to_int, ptr_to_ptr and assume share their operand's
//    register (row-major reshapes move no data; assume is the identity);
//  - broadcast of a one-element tile (how Tile IR spells a splat) is a broadcast scalar: users
//    read one element with Ref::bcast, nothing is materialized;
//  - make_partition_view shares its tensor_view's register (its tile shape, dim_map and
//    padding are static, in its type);
//  - `for` results share the registers of the iteration arguments they end up in; `loop` and
//    `if` results have their own, written by `break` and `yield`.
// Foreign pointers (affine.h): pointers made by int_to_ptr or loaded from memory, and views
// over them, point into memory of unknown extent: their accesses are not bounds-checked.
#include <functional>
#include <unordered_set>

#include "exec/compiler/compiler.h"
#include "exec/tile/tile_control.h"

namespace tt::exec {

void Compiler::classifyTileOp(const Operation &op) {
  if (!op.numResults())
    return;
  const Value *res = op.result(0);
  const std::string &n = op.name();
  if (n == "cuda_tile.reshape" || n == "cuda_tile.bitcast" || n == "cuda_tile.int_to_ptr" ||
      n == "cuda_tile.ptr_to_int" || n == "cuda_tile.ptr_to_ptr" || n == "cuda_tile.assume") {
    setRoot(res, op.operand(0));
    infos_[res].bcast = infos_[op.operand(0)].bcast;
  } else if (n == "cuda_tile.broadcast") {
    const bool srcBcast = infos_[op.operand(0)].bcast;
    const bool one = infos_[op.operand(0)].numel == 1;
    if (srcBcast || one || op.operand(0)->type == res->type) {
      setRoot(res, op.operand(0));
      infos_[res].bcast = srcBcast || (one && infos_[res].numel > 1);
    }
  } else if (n == "cuda_tile.make_partition_view") {
    setRoot(res, op.operand(0));
  } else if (n == "cuda_tile.for") {
    const Block &body = *op.region(0)->front();
    for (size_t i = 0; i < op.numResults(); ++i)
      setRoot(op.result(i), body.arg(i + 1));
  }
}

void Compiler::analyzeTile(const Operation &entry) {
  auto &foreign = affine_.foreignPtr;
  std::vector<const Operation *> ops;
  std::function<void(const Block &)> collect = [&](const Block &b) {
    for (const auto &op : b.ops()) {
      ops.push_back(op.get());
      if (op->is("cuda_tile.reduce") || op->is("cuda_tile.scan"))
        continue; // pure regions
      for (size_t r = 0; r < op->numRegions(); ++r)
        for (const auto &blk : op->region(r)->blocks)
          collect(*blk);
    }
  };
  collect(*entry.region(0)->front());
  const_cast<Operation &>(entry).walk([&](Operation *op) {
    for (const Value *v : op->operands)
      users_[v].push_back(op);
  });
  auto carriesPtr = [](const Value *v) { return v->type.element().isPtr() || v->type.isView(); };
  bool changed = true;
  auto mark = [&](const Value *v) {
    if (carriesPtr(v) && foreign.insert(v).second)
      changed = true;
  };
  while (changed) {
    changed = false;
    for (const Operation *op : ops) {
      const std::string &n = op->name();
      if (n == "cuda_tile.for" || n == "cuda_tile.loop") {
        const Block &body = *op->region(0)->front();
        size_t first = n == "cuda_tile.for" ? 3 : 0, argBase = n == "cuda_tile.for" ? 1 : 0;
        for (size_t i = first; i < op->numOperands(); ++i)
          if (foreign.count(op->operand(i)))
            mark(body.arg(argBase + i - first));
        if (n == "cuda_tile.for")
          for (size_t i = 0; i < op->numResults(); ++i)
            if (foreign.count(body.arg(i + 1)))
              mark(op->result(i));
        continue;
      }
      if (op->info()->has(kTerminator)) {
        // yield -> if results; continue -> iteration arguments; break -> loop results.
        const Operation *target = exitTarget(*op);
        if (!target)
          continue;
        for (size_t i = 0; i < op->numOperands(); ++i) {
          if (!foreign.count(op->operand(i)))
            continue;
          if (op->is("cuda_tile.continue")) {
            size_t base = target->is("cuda_tile.for") ? 1 : 0;
            mark(target->region(0)->front()->arg(base + i));
          } else if (i < target->numResults()) {
            mark(target->result(i));
          }
        }
        continue;
      }
      bool taint = n == "cuda_tile.int_to_ptr" || n == "cuda_tile.load_ptr_tko" ||
                   n == "cuda_tile.load_view_tko" || n == "cuda_tile.atomic_rmw_tko" ||
                   n == "cuda_tile.atomic_cas_tko";
      for (const Value *v : op->operands)
        taint |= foreign.count(v) != 0;
      if (taint && !op->numRegions())
        for (size_t i = 0; i < op->numResults(); ++i)
          mark(op->result(i));
    }
  }
}

} // namespace tt::exec
