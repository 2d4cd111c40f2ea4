// licm: hoists loop-invariant computation out of scf.for loops, as stock Triton's make_ttir
// does (MLIR's loop-invariant-code-motion). A kernel that recomputes its pointer and mask tiles
// from loop-invariant parts inside the loop (`A + rm[:, None] * K + rk[None, :]` with only rk
// varying) then builds the invariant parts once: on the CPU's TTIR executor every op is a pass
// over its tile, so what is not hoisted is paid at every iteration.
//
// Rules:
//   - an iter_arg that the body yields back unchanged is its init value: uses read the init;
//   - an op directly in an scf.for body moves to just before the loop when it is pure (kPure),
//     has no regions, is not a terminator, every operand is defined outside the loop (or by an
//     op already hoisted), and it cannot fault when the loop would not have run it (a loop may
//     run zero times): integer division and remainder stay, their divisor may be zero;
//   - loops are visited innermost first, so an invariant leaves a nest as far as it can;
//   - hoisted ops keep their order in the body (operands before users).
// Known limits: only scf.for (an scf.while's condition region runs at least once: a separate
// rule); nothing moves out of an scf.if inside the loop; reads (tt.load) never move, even from
// memory the loop does not write.
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/op_registry.h"
#include "passes/passes.h"

namespace tt {
namespace {

bool mayFault(const Operation &op) {
  static const std::unordered_set<std::string> kDivisions = {"arith.divsi", "arith.divui",
                                                             "arith.remsi", "arith.remui"};
  return kDivisions.count(op.name()) != 0;
}

// Whether `v` is defined inside `loop`: by an op nested in it, or as an argument of a block in
// it (the induction variable and iter_args are the body's).
bool definedInside(const Value *v, const Operation *loop) {
  for (const Operation *p = v->isBlockArg() ? v->ownerBlock->parentOp() : v->def; p;
       p = p->parentOp())
    if (p == loop)
      return true;
  return false;
}

bool hoistable(const Operation &op, const Operation *loop) {
  if (op.numRegions() || op.numResults() == 0 || !op.info()->has(kPure) ||
      op.info()->has(kTerminator) || mayFault(op))
    return false;
  for (const Value *v : op.operands)
    if (definedInside(v, loop))
      return false;
  return true;
}

// An iter_arg the body yields back unchanged holds its init value at every iteration and
// after the loop: its uses read the init instead, so what they compute becomes invariant
// (lowered block pointers carry such offsets: a block pointer advanced along one dimension
// keeps the other). The iter_arg itself stays, read by nothing but its yield.
void forwardUnchangedIterArgs(Operation *loop, Operation *func) {
  Block *body = loop->region(0)->front();
  Operation *yield = body->terminator();
  if (!yield || !yield->is("scf.yield"))
    return;
  std::vector<std::pair<Value *, Value *>> inside, after;
  for (size_t i = 0; i < yield->numOperands() && i + 1 < body->numArgs(); ++i) {
    Value *arg = body->arg(i + 1), *init = loop->operand(3 + i);
    if (yield->operand(i) != arg)
      continue;
    inside.push_back({arg, init});
    after.push_back({loop->result(i), init});
  }
  for (auto &op : body->ops())
    if (op.get() != yield)
      replaceUses(op.get(), inside);
  replaceUses(func, after);
}

// Moves the loop's invariant ops before it, to a fixed point: an op whose operands were just
// hoisted is invariant in the next round.
void hoistFrom(Operation *loop, Operation *func) {
  Block *body = loop->region(0)->front();
  Block *outer = loop->parentBlock();
  if (!body || !outer)
    return;
  forwardUnchangedIterArgs(loop, func);
  for (bool moved = true; moved;) {
    std::vector<Operation *> invariant;
    for (auto &op : body->ops())
      if (hoistable(*op, loop))
        invariant.push_back(op.get());
    for (Operation *op : invariant)
      outer->insert(outer->find(loop), body->remove(op));
    moved = !invariant.empty();
  }
}

} // namespace

void hoistLoopInvariants(Module &m) {
  for (Operation *func : m.funcs()) {
    std::vector<Operation *> loops; // pre-order: a loop before the loops inside it
    func->walk([&](Operation *op) {
      if (op->is("scf.for"))
        loops.push_back(op);
    });
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) // innermost first
      hoistFrom(*it, func);
  }
}

} // namespace tt
