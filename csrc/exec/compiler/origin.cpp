// Pointer origins: rules in origin.h.
#include "exec/compiler/origin.h"

#include <functional>
#include <string>
#include <vector>

#include "exec/tile/tile_control.h"
#include "ir/op_registry.h"

namespace tt::exec {
namespace {

constexpr int kMany = -2; // several arguments, or memory: no single origin

bool carriesPtr(const Value *v) { return v->type.element().isPtr() || v->type.isView(); }

// Ops whose pointer results come from memory or integers, not from their pointer operands.
bool foreignSource(const std::string &n) {
  return n == "tt.int_to_ptr" || n == "tt.load" || n == "tt.atomic_rmw" || n == "tt.atomic_cas" ||
         n == "cuda_tile.int_to_ptr" || n == "cuda_tile.load_ptr_tko" ||
         n == "cuda_tile.load_view_tko" || n == "cuda_tile.atomic_rmw_tko" ||
         n == "cuda_tile.atomic_cas_tko";
}

} // namespace

std::unordered_map<const Value *, int> pointerOrigins(const Operation &func) {
  std::unordered_map<const Value *, int> o;
  std::vector<const Operation *> ops;
  std::function<void(const Block &)> collect = [&](const Block &b) {
    for (const auto &op : b.ops()) {
      ops.push_back(op.get());
      for (size_t r = 0; r < op->numRegions(); ++r)
        for (const auto &blk : op->region(r)->blocks)
          collect(*blk);
    }
  };
  const Block &entry = *func.region(0)->front();
  collect(entry);
  for (size_t i = 0; i < entry.numArgs(); ++i)
    if (carriesPtr(entry.arg(i)))
      o[entry.arg(i)] = static_cast<int>(i);
  bool changed = true;
  // dst takes src's origin; two different origins meet as kMany, for good (monotone).
  auto meet = [&](const Value *dst, const Value *src) {
    if (!dst || !src || !carriesPtr(dst))
      return;
    auto s = o.find(src);
    if (s == o.end())
      return; // not known yet: a later sweep brings it
    auto d = o.find(dst);
    if (d == o.end()) {
      o[dst] = s->second;
      changed = true;
    } else if (d->second != s->second && d->second != kMany) {
      d->second = kMany;
      changed = true;
    }
  };
  auto many = [&](const Value *dst) {
    if (!carriesPtr(dst))
      return;
    auto d = o.find(dst);
    if (d == o.end() || d->second != kMany) {
      o[dst] = kMany;
      changed = true;
    }
  };
  for (int sweep = 0; changed && sweep < 64; ++sweep) {
    changed = false;
    for (const Operation *op : ops) {
      const std::string &n = op->name();
      if (n == "scf.for") {
        const Block &body = *op->region(0)->front();
        const Operation *y = body.terminator();
        for (size_t i = 0; i < op->numResults(); ++i) {
          meet(body.arg(i + 1), op->operand(i + 3));
          if (y && i < y->numOperands())
            meet(body.arg(i + 1), y->operand(i));
          meet(op->result(i), body.arg(i + 1));
        }
      } else if (n == "scf.while") {
        const Block &before = *op->region(0)->front(), &after = *op->region(1)->front();
        const Operation *cond = before.terminator(), *y = after.terminator();
        for (size_t i = 0; i < op->numOperands() && i < before.numArgs(); ++i) {
          meet(before.arg(i), op->operand(i));
          if (y && i < y->numOperands())
            meet(before.arg(i), y->operand(i));
        }
        for (size_t i = 0; cond && i + 1 < cond->numOperands(); ++i) {
          if (i < after.numArgs())
            meet(after.arg(i), cond->operand(i + 1));
          if (i < op->numResults())
            meet(op->result(i), cond->operand(i + 1));
        }
      } else if (n == "scf.if") {
        for (size_t r = 0; r < op->numRegions(); ++r) {
          if (op->region(r)->empty() || !op->region(r)->front()->terminator())
            continue;
          const Operation *y = op->region(r)->front()->terminator();
          for (size_t i = 0; i < y->numOperands() && i < op->numResults(); ++i)
            meet(op->result(i), y->operand(i));
        }
      } else if (n == "cuda_tile.for" || n == "cuda_tile.loop") {
        const Block &body = *op->region(0)->front();
        size_t first = n == "cuda_tile.for" ? 3 : 0, argBase = n == "cuda_tile.for" ? 1 : 0;
        for (size_t i = first; i < op->numOperands(); ++i)
          if (argBase + i - first < body.numArgs())
            meet(body.arg(argBase + i - first), op->operand(i));
        if (n == "cuda_tile.for")
          for (size_t i = 0; i < op->numResults() && i + 1 < body.numArgs(); ++i)
            meet(op->result(i), body.arg(i + 1));
      } else if (n.rfind("cuda_tile.", 0) == 0 && op->info()->has(kTerminator)) {
        // yield -> if results; continue -> iteration arguments; break -> loop results.
        const Operation *target = exitTarget(*op);
        if (!target)
          continue;
        for (size_t i = 0; i < op->numOperands(); ++i) {
          if (op->is("cuda_tile.continue")) {
            size_t base = target->is("cuda_tile.for") ? 1 : 0;
            const Block &body = *target->region(0)->front();
            if (base + i < body.numArgs())
              meet(body.arg(base + i), op->operand(i));
          } else if (i < target->numResults()) {
            meet(target->result(i), op->operand(i));
          }
        }
      } else if (foreignSource(n)) {
        for (size_t i = 0; i < op->numResults(); ++i)
          many(op->result(i));
      } else if (!op->numRegions()) {
        for (size_t i = 0; i < op->numResults(); ++i)
          for (const Value *v : op->operands)
            if (carriesPtr(v))
              meet(op->result(i), v);
      }
    }
  }
  for (auto it = o.begin(); it != o.end();)
    it = it->second < 0 ? o.erase(it) : std::next(it);
  return o;
}

} // namespace tt::exec
