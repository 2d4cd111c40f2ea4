#include <stdexcept>

#include "ir/verifier.h"
#include "passes/passes.h"

namespace tt {

void runPasses(Module &m, const std::vector<std::string> &names, const PassContext &ctx) {
  for (const std::string &n : names) {
    if (n == "inline")
      inlineCalls(m);
    else if (n == "canonicalize")
      canonicalize(m);
    else if (n == "cse")
      eliminateCommonSubexpressions(m);
    else if (n == "dce")
      eliminateDeadCode(m);
    else if (n == "scalarize-loop-pointers")
      scalarizeLoopPointers(m);
    else if (n == "expand-block-pointer-loops")
      expandBlockPointerLoops(m);
    else if (n == "lower-block-pointers")
      lowerBlockPointers(m);
    else if (n == "assert-contracts")
      assertContracts(m);
    else if (n == "licm")
      hoistLoopInvariants(m);
    else if (n == "insert-memory-tokens")
      insertMemoryTokens(m, ctx.aliasClasses);
    else if (n == "fuse-fma")
      fuseMultiplyAdd(m);
    else
      throw std::invalid_argument("unknown pass '" + n + "'");
    verifyModule(m);
  }
}

bool isConstant(const Value *v) { return v->def && v->def->is("arith.constant"); }

bool constantInt(const Value *v, int64_t &out) {
  if (!isConstant(v))
    return false;
  Attribute a = v->def->attr("value");
  if (a.kind() == Attribute::Kind::Int ||
      (a.kind() == Attribute::Kind::Dense && !a.denseIsFloat())) {
    out = a.getInt();
    return true;
  }
  return false;
}

std::vector<std::pair<Value *, Value *>> mapResults(Operation *from,
                                                    const std::vector<Value *> &to) {
  std::vector<std::pair<Value *, Value *>> m;
  for (size_t i = 0; i < from->numResults(); ++i)
    m.emplace_back(from->result(i), to.at(i));
  return m;
}

} // namespace tt
