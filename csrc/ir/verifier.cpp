#include "ir/verifier.h"

#include <unordered_set>

#include "ir/op_registry.h"

namespace tt {
namespace {

class Verifier {
public:
  void op(const Operation &o, std::unordered_set<const Value *> &visible) {
    for (size_t i = 0; i < o.numOperands(); ++i)
      if (!visible.count(o.operand(i)))
        fail(o, "operand #" + std::to_string(i) + " does not dominate this use");
    if (o.info()->verify) {
      std::string msg = o.info()->verify(o);
      if (!msg.empty())
        fail(o, msg);
    }
    bool isolated = o.info()->has(kSymbol);
    for (size_t r = 0; r < o.numRegions(); ++r)
      for (const auto &b : o.region(r)->blocks) {
        std::unordered_set<const Value *> inner;
        if (!isolated)
          inner = visible;
        block(o, *b, inner);
      }
  }

  void block(const Operation &parent, const Block &b, std::unordered_set<const Value *> &visible) {
    for (size_t a = 0; a < b.numArgs(); ++a)
      visible.insert(b.arg(a));
    bool needsTerminator = !parent.is("builtin.module");
    for (auto it = b.ops().begin(); it != b.ops().end(); ++it) {
      const Operation &o = **it;
      bool last = std::next(it) == b.ops().end();
      if (o.info()->has(kTerminator) && !last)
        fail(o, "terminator '" + o.name() + "' is not the last op of its block");
      op(o, visible);
      for (size_t i = 0; i < o.numResults(); ++i)
        visible.insert(o.result(i));
    }
    if (needsTerminator && !b.terminator())
      fail(parent, "a block of '" + parent.name() + "' does not end with a terminator");
  }

  [[noreturn]] void fail(const Operation &o, const std::string &msg) {
    throw IRError("'" + o.name() + "' op " + msg, o.loc());
  }
};

} // namespace

void verifyOp(const Operation &op) {
  std::unordered_set<const Value *> visible;
  Verifier().op(op, visible);
}

void verifyModule(const Module &m) { verifyOp(*m.op()); }

} // namespace tt
