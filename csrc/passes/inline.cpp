// inline: replaces every tt.call by a copy of its callee's body, then removes the private
// functions. Rules: callees are single-block tt.funcs that end in tt.return (the frontend
// emits structured control flow only); inlined ops keep their own location with the call
// site appended, so errors show the chain of calls. Calls are inlined until none remain;
// recursion that does not terminate (a cycle of calls) is reported as an error.
#include <stdexcept>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/verifier.h"
#include "passes/passes.h"

namespace tt {
namespace {

constexpr int kMaxRounds = 64;

void inlineOne(Module &m, Operation *func, Operation *call) {
  const std::string &name = call->attr("callee").getString();
  Operation *callee = m.lookupFunc(name);
  if (!callee)
    throw IRError("call to unknown function @" + name, call->loc());
  Block *body = callee->region(0)->front();
  Operation *ret = body->terminator();
  if (!ret || !ret->is("tt.return"))
    throw IRError("callee @" + name + " does not end in tt.return", callee->loc());
  if (body->numArgs() != call->numOperands())
    throw IRError("call to @" + name + " passes the wrong number of arguments", call->loc());

  std::unordered_map<const Value *, Value *> map;
  for (size_t i = 0; i < body->numArgs(); ++i)
    map[body->arg(i)] = call->operand(i);
  Builder b(call->parentBlock());
  b.setInsertionPointBefore(call);
  for (auto &op : body->ops()) {
    if (op.get() == ret)
      break;
    b.insert(cloneOp(*op, map, call->loc()));
  }
  std::vector<Value *> returned;
  for (Value *v : ret->operands) {
    auto it = map.find(v);
    returned.push_back(it == map.end() ? v : it->second);
  }
  replaceUses(func, mapResults(call, returned));
  call->parentBlock()->erase(call);
}

} // namespace

void inlineCalls(Module &m) {
  for (Operation *func : m.funcs()) {
    for (int round = 0;; ++round) {
      std::vector<Operation *> calls;
      func->walk([&](Operation *op) {
        if (op->is("tt.call"))
          calls.push_back(op);
      });
      if (calls.empty())
        break;
      if (round == kMaxRounds)
        throw IRError("calls nest deeper than " + std::to_string(kMaxRounds) +
                          " levels: is there unbounded recursion?",
                      calls.front()->loc());
      for (Operation *call : calls)
        inlineOne(m, func, call);
    }
  }
  for (Operation *func : m.funcs())
    if (func->attr("sym_visibility").getString() == "private")
      m.body()->erase(func);
}

} // namespace tt
