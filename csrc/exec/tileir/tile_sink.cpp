// Sinking pure ops into the `if` branch that uses them; see tile_sink.h.
#include "exec/tileir/tile_sink.h"

#include <unordered_map>
#include <vector>

#include "ir/op_registry.h"

namespace tt::exec {
namespace {

class Sinker {
public:
  explicit Sinker(Operation &entry) {
    entry.walk([&](Operation *op) {
      for (Value *v : op->operands)
        users_[v].push_back(op);
    });
  }

  void block(Block &b) {
    std::vector<Operation *> ops;
    for (auto &o : b.ops())
      ops.push_back(o.get());
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      Operation *op = *it;
      if (!sinkable(*op))
        continue;
      Block *target = branchOfAllUses(*op, b);
      if (!target)
        continue;
      std::unique_ptr<Operation> owned = b.remove(op);
      target->insert(target->ops().begin(), std::move(owned));
    }
    for (auto &o : b.ops())
      for (size_t r = 0; r < o->numRegions(); ++r)
        for (auto &inner : o->region(r)->blocks)
          block(*inner);
  }

private:
  static bool sinkable(const Operation &op) {
    return op.info()->has(kPure) && op.numRegions() == 0 && op.numResults() > 0 &&
           !op.is("cuda_tile.extract") && !op.is("cuda_tile.constant") && !op.is("cuda_tile.iota");
  }

  // The block of the one `if` region (of an op of `b`) holding every use of op's results.
  Block *branchOfAllUses(const Operation &op, Block &b) {
    Block *found = nullptr;
    for (size_t i = 0; i < op.numResults(); ++i) {
      auto it = users_.find(op.result(i));
      if (it == users_.end())
        continue;
      for (Operation *u : it->second) {
        Block *inner = u->parentBlock();
        Operation *cur = u;
        while (cur && cur->parentBlock() != &b) {
          inner = cur->parentBlock();
          cur = cur->parentOp();
        }
        if (!cur || cur == u || !cur->is("cuda_tile.if"))
          return nullptr;
        if (found && found != inner)
          return nullptr;
        found = inner;
      }
    }
    return found;
  }

  std::unordered_map<const Value *, std::vector<Operation *>> users_;
};

} // namespace

void sinkIntoBranches(Operation &entry) {
  Sinker s(entry);
  for (auto &b : entry.region(0)->blocks)
    s.block(*b);
}

} // namespace tt::exec
