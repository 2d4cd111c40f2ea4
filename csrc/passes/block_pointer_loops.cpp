// expand-block-pointer-loops: makes every block-pointer use see its tt.make_tensor_ptr.
//
// Rules:
//   - tt.advance(tt.make_tensor_ptr(b, shape, strides, offsets), d) folds into
//     tt.make_tensor_ptr(b, shape, strides, offsets + d);
//   - a block pointer carried by scf.for whose initial value is a tt.make_tensor_ptr with base,
//     shape and strides defined outside the loop, and whose yielded value is the argument
//     itself or tt.advance chains of it, is carried as its offsets (one i32 each) instead; the
//     pointer is rebuilt at the top of the body and after the loop.
// Both CPU paths and the Tile conversion rely on it: views cannot be loop-carried in Tile IR,
// and the pointer lowering reads offsets straight from the make_tensor_ptr.
// Known limits: scf.while and scf.if results that are block pointers are left alone (their
// uses stay unsupported and say so).
#include "ir/builder.h"
#include "passes/passes.h"

namespace tt {
namespace {

bool outside(const Value *v, const Operation *loop) {
  for (const Block *b = v->isBlockArg() ? v->ownerBlock : v->def->parentBlock(); b;
       b = b->parentOp() ? b->parentOp()->parentBlock() : nullptr)
    if (b->parentOp() == loop)
      return false;
  return true;
}

size_t rankOf(const Operation *mtp) {
  return static_cast<size_t>(mtp->result(0)->type.pointee().rank());
}

// Folds advance(make_tensor_ptr(...)) chains; returns true if anything changed.
bool foldAdvances(Operation *func) {
  std::vector<Operation *> advances;
  func->walk([&](Operation *op) {
    if (op->is("tt.advance") && op->operand(0)->def &&
        op->operand(0)->def->is("tt.make_tensor_ptr"))
      advances.push_back(op);
  });
  for (Operation *adv : advances) {
    Operation *mtp = adv->operand(0)->def;
    size_t r = rankOf(mtp);
    Builder b(adv->parentBlock());
    b.setInsertionPointBefore(adv);
    b.setLoc(adv->loc());
    std::vector<Value *> ops(mtp->operands.begin(), mtp->operands.begin() + 1 + 2 * r);
    for (size_t d = 0; d < r; ++d) {
      Value *o = mtp->operand(1 + 2 * r + d), *delta = adv->operand(1 + d);
      ops.push_back(b.create("arith.addi", {o, delta}, {o->type})->result(0));
    }
    Value *n = b.create("tt.make_tensor_ptr", ops, {mtp->result(0)->type}, mtp->attrs())->result(0);
    replaceUses(func, {{adv->result(0), n}});
    adv->parentBlock()->erase(adv);
  }
  return !advances.empty();
}

// The per-iteration deltas when `yielded` is `arg` advanced zero or more times.
bool deltasOf(const Value *yielded, const Value *arg, std::vector<Value *> &deltas) {
  if (yielded == arg)
    return true;
  const Operation *d = yielded->def;
  if (!d || !d->is("tt.advance") || !deltasOf(d->operand(0), arg, deltas))
    return false;
  for (size_t i = 1; i < d->numOperands(); ++i)
    deltas.push_back(d->operand(i)); // collected in order; summed by the caller
  return true;
}

Value *rebuild(Builder &b, const Operation *init, const std::vector<Value *> &offsets) {
  size_t r = rankOf(init);
  std::vector<Value *> ops(init->operands.begin(), init->operands.begin() + 1 + 2 * r);
  ops.insert(ops.end(), offsets.begin(), offsets.end());
  return b.create("tt.make_tensor_ptr", ops, {init->result(0)->type}, init->attrs())->result(0);
}

bool expandLoop(Operation *func, Operation *loop) {
  Block *body = loop->region(0)->front();
  Operation *yield = body->terminator();
  size_t n = loop->numOperands() - 3;
  for (size_t i = 0; i < n; ++i) {
    Value *arg = body->arg(i + 1);
    Value *init = loop->operand(i + 3);
    if (!arg->type.isBlockPtr() || !init->def || !init->def->is("tt.make_tensor_ptr"))
      continue;
    const Operation *mtp = init->def;
    size_t r = rankOf(mtp);
    bool invariant = true;
    for (size_t k = 0; k < 1 + 2 * r; ++k)
      invariant &= outside(mtp->operand(k), loop);
    std::vector<Value *> flat;
    if (!invariant || !deltasOf(yield->operand(i), arg, flat) || flat.size() % r)
      continue;

    // New loop: all old iteration values but this one, plus its r offsets.
    Builder b(loop->parentBlock());
    b.setInsertionPointBefore(loop);
    b.setLoc(loop->loc());
    std::vector<Value *> operands(loop->operands.begin(), loop->operands.begin() + 3);
    std::vector<Type> types;
    for (size_t k = 0; k < n; ++k)
      if (k != i) {
        operands.push_back(loop->operand(k + 3));
        types.push_back(loop->result(k)->type);
      }
    for (size_t d = 0; d < r; ++d) {
      operands.push_back(mtp->operand(1 + 2 * r + d));
      types.push_back(mtp->operand(1 + 2 * r + d)->type);
    }
    Operation *nl = b.create("scf.for", operands, types, {}, 1);
    Block *nb = nl->region(0)->addBlock();
    std::vector<std::pair<Value *, Value *>> remap = {
        {body->arg(0), nb->addArg(body->arg(0)->type)}};
    for (size_t k = 0; k < n; ++k)
      if (k != i)
        remap.emplace_back(body->arg(k + 1), nb->addArg(body->arg(k + 1)->type));
    std::vector<Value *> offs;
    for (size_t d = 0; d < r; ++d)
      offs.push_back(nb->addArg(types[types.size() - r + d]));
    Builder bb(nb);
    bb.setLoc(loop->loc());
    remap.emplace_back(arg, rebuild(bb, mtp, offs));
    while (!body->empty())
      nb->insert(nb->ops().end(), body->remove(body->ops().front().get()));
    // Next offsets: current + every advance's deltas (in the order they were applied).
    bb.setInsertionPointBefore(yield);
    std::vector<Value *> next = offs;
    for (size_t k = 0; k < flat.size(); ++k)
      next[k % r] = bb.create("arith.addi", {next[k % r], flat[k]}, {next[k % r]->type})->result(0);
    std::vector<Value *> yielded;
    for (size_t k = 0; k < n; ++k)
      if (k != i)
        yielded.push_back(yield->operand(k));
    yielded.insert(yielded.end(), next.begin(), next.end());
    yield->operands = yielded;
    replaceUses(nl, remap);

    b.setInsertionPointAfter(nl);
    std::vector<std::pair<Value *, Value *>> after;
    size_t res = 0;
    for (size_t k = 0; k < n; ++k)
      if (k != i)
        after.emplace_back(loop->result(k), nl->result(res++));
    std::vector<Value *> finalOffs;
    for (size_t d = 0; d < r; ++d)
      finalOffs.push_back(nl->result(res + d));
    after.emplace_back(loop->result(i), rebuild(b, mtp, finalOffs));
    replaceUses(func, after);
    loop->parentBlock()->erase(loop);
    return true;
  }
  return false;
}

} // namespace

void expandBlockPointerLoops(Module &m) {
  for (Operation *func : m.funcs()) {
    foldAdvances(func);
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<Operation *> loops;
      func->walk([&](Operation *op) {
        if (op->is("scf.for"))
          loops.push_back(op);
      });
      for (Operation *loop : loops)
        if (expandLoop(func, loop)) {
          changed = true;
          break;
        }
      changed |= foldAdvances(func);
    }
  }
}

} // namespace tt
