// cse: merges identical pure ops (same name, operands, attributes and result types) when the
// first dominates the second: within a block, or from an enclosing block into a nested
// region. Ops with regions and impure ops are never merged.
#include <unordered_map>

#include "ir/op_registry.h"
#include "passes/passes.h"

namespace tt {
namespace {

struct Key {
  const Operation *op;
  bool operator==(const Key &o) const {
    const Operation &a = *op, &b = *o.op;
    if (a.name() != b.name() || a.operands != b.operands || a.numResults() != b.numResults())
      return false;
    for (size_t i = 0; i < a.numResults(); ++i)
      if (a.result(i)->type != b.result(i)->type)
        return false;
    if (a.attrs().size() != b.attrs().size())
      return false;
    for (const auto &kv : a.attrs())
      if (b.attr(kv.first) != kv.second)
        return false;
    return true;
  }
};

struct KeyHash {
  size_t operator()(const Key &k) const {
    size_t h = std::hash<std::string>()(k.op->name());
    for (const Value *v : k.op->operands)
      h = h * 31 + std::hash<const void *>()(v);
    for (const auto &kv : k.op->attrs())
      h = h * 31 + kv.second.hash();
    return h;
  }
};

using Table = std::unordered_map<Key, Operation *, KeyHash>;

void cseBlock(Block &b, Table table, std::vector<std::pair<Value *, Value *>> &repl,
              std::unordered_map<Value *, Value *> &replMap) {
  for (auto it = b.ops().begin(); it != b.ops().end();) {
    Operation *op = (it++)->get();
    // Apply earlier replacements so identical ops over replaced values match.
    for (Value *&v : op->operands) {
      auto r = replMap.find(v);
      if (r != replMap.end())
        v = r->second;
    }
    for (size_t i = 0; i < op->numRegions(); ++i)
      for (auto &inner : op->region(i)->blocks)
        cseBlock(*inner, table, repl, replMap);
    if (!op->info()->has(kPure) || op->numRegions() || op->numResults() == 0)
      continue;
    auto found = table.find(Key{op});
    if (found == table.end()) {
      table.emplace(Key{op}, op);
      continue;
    }
    for (size_t i = 0; i < op->numResults(); ++i)
      replMap[op->result(i)] = found->second->result(i);
    b.erase(op);
  }
}

} // namespace

void eliminateCommonSubexpressions(Module &m) {
  for (Operation *func : m.funcs()) {
    std::vector<std::pair<Value *, Value *>> repl;
    std::unordered_map<Value *, Value *> replMap;
    for (auto &blk : func->region(0)->blocks)
      cseBlock(*blk, Table(), repl, replMap);
  }
}

} // namespace tt
