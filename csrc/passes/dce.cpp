// dce: removes ops whose results are unused and that have no side effects (kPure or
// kReadOnly), and unused results of nothing else. Loops and ifs are kept (their bodies may
// store); a pure op inside them is still removed when unused. Iterates to a fixed point.
#include <unordered_set>

#include "ir/op_registry.h"
#include "passes/passes.h"

namespace tt {

void eliminateDeadCode(Module &m) {
  for (Operation *func : m.funcs()) {
    bool changed = true;
    while (changed) {
      changed = false;
      std::unordered_set<const Value *> used;
      func->walk([&](Operation *op) {
        for (Value *v : op->operands)
          used.insert(v);
      });
      std::vector<Operation *> dead;
      func->walk([&](Operation *op) {
        if (op == func || op->numRegions() || op->numResults() == 0)
          return;
        if (!op->info()->has(kPure) && !op->info()->has(kReadOnly))
          return;
        if (op->info()->has(kTerminator))
          return;
        for (size_t i = 0; i < op->numResults(); ++i)
          if (used.count(op->result(i)))
            return;
        dead.push_back(op);
      });
      // Erase innermost-last so a dead op inside a region is erased before its parent is
      // visited again; regions are never erased here, so order does not matter otherwise.
      for (Operation *op : dead)
        op->parentBlock()->erase(op);
      changed = !dead.empty();
    }
  }
}

} // namespace tt
