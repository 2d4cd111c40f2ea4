// scalarize-loop-pointers: a loop that carries a tensor of pointers and advances it by a
// loop-invariant splat each iteration (`a_ptrs += BLOCK_K * stride_ak`, Triton's matmul
// idiom) instead carries the scalar distance travelled, and rebuilds the pointers from their
// initial value where they are used. The pointer expression then reads `base + offsets +
// splat(distance)`, which raise-pointers-to-views can turn into a view access.
//
// Rules: the iteration argument's initial value is defined outside the loop, its yielded
// value is exactly `tt.addptr(arg, splat(d))` with d defined outside the loop, and d is an
// integer scalar. The distance is carried in i64 (Triton adds d to a 64-bit pointer each
// iteration, so no narrower total may wrap). Results of the loop for that argument are
// rebuilt the same way after it.
// Known limits: only scf.for; only splat increments (a per-lane increment stays a pointer).
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/op_registry.h"
#include "passes/passes.h"

namespace tt {
namespace {

bool definedOutside(const Value *v, const Operation *loop) {
  const Operation *d = v->def;
  const Block *b = v->isBlockArg() ? v->ownerBlock : (d ? d->parentBlock() : nullptr);
  for (; b; b = b->parentOp() ? b->parentOp()->parentBlock() : nullptr)
    if (b->parentOp() == loop)
      return false;
  return true;
}

// True when v is computed outside the loop, or by pure, region-free ops directly in the loop
// body whose operands are themselves invariant (`a_ptrs += BLOCK_K * stride_ak` computes the
// increment inside the loop).
bool invariant(const Value *v, const Operation *loop, int depth = 0) {
  if (definedOutside(v, loop))
    return true;
  const Operation *d = v->def;
  if (!d || depth > 16 || !d->info()->has(kPure) || d->numRegions() ||
      d->parentBlock() != loop->region(0)->front())
    return false;
  for (const Value *o : d->operands)
    if (!invariant(o, loop, depth + 1))
      return false;
  return true;
}

// Moves the invariant computation of v in front of the loop (operands first).
void hoist(Value *v, Operation *loop) {
  if (definedOutside(v, loop))
    return;
  Operation *d = v->def;
  for (Value *o : d->operands)
    hoist(o, loop);
  Block *parent = loop->parentBlock();
  parent->insert(parent->find(loop), d->parentBlock()->remove(d));
}

// How iteration argument i advances each iteration: by splat(value) or by a constant splat.
struct Increment {
  Value *value = nullptr;
  int64_t constant = 0;
  bool isConstant = false;
  explicit operator bool() const { return value || isConstant; }
};

Increment increment(Operation *loop, size_t i) {
  Increment inc;
  const Block *body = loop->region(0)->front();
  const Value *arg = body->arg(i + 1);
  const Value *init = loop->operand(i + 3);
  if (!arg->type.isTensor() || !arg->type.element().isPtr() || !definedOutside(init, loop))
    return inc;
  const Operation *yield = body->terminator();
  const Operation *add = yield->operand(i)->def;
  if (!add || !add->is("tt.addptr") || add->operand(0) != arg)
    return inc;
  const Operation *step = add->operand(1)->def;
  if (step && step->is("tt.splat") && invariant(step->operand(0), loop)) {
    inc.value = step->operand(0);
  } else if (step && step->is("arith.constant") &&
             step->attr("value").kind() == Attribute::Kind::Dense) {
    inc.isConstant = true;
    inc.constant = step->attr("value").getInt();
  }
  return inc;
}

// Rebuilds `init + splat(distance)` at the builder's insertion point.
Value *rebuild(Builder &b, Value *init, Value *distance) {
  Type offs = init->type.withElement(Type::integer(64));
  Value *s = b.create("tt.splat", {distance}, {offs})->result(0);
  return b.create("tt.addptr", {init, s}, {init->type})->result(0);
}

Value *toI64(Builder &b, Value *v) {
  if (v->type.isInt(64))
    return v;
  return b.create("arith.extsi", {v}, {Type::integer(64)})->result(0);
}

bool rewrite(Operation *func, Operation *loop) {
  size_t numIters = loop->numOperands() - 3;
  std::vector<size_t> picked;
  std::vector<Increment> deltas;
  for (size_t i = 0; i < numIters; ++i)
    if (Increment d = increment(loop, i)) {
      picked.push_back(i);
      deltas.push_back(d);
    }
  if (picked.empty())
    return false;
  std::unordered_set<size_t> isPicked(picked.begin(), picked.end());
  Block *oldBody = loop->region(0)->front();
  Builder b(loop->parentBlock());
  b.setInsertionPointBefore(loop);
  b.setLoc(loop->loc());
  Type i64 = Type::integer(64);

  // New loop: the other iteration arguments, then one i64 distance per picked pointer.
  std::vector<Value *> operands = {loop->operand(0), loop->operand(1), loop->operand(2)};
  std::vector<Type> types;
  for (size_t i = 0; i < numIters; ++i)
    if (!isPicked.count(i)) {
      operands.push_back(loop->operand(i + 3));
      types.push_back(loop->result(i)->type);
    }
  for (const Increment &d : deltas)
    if (d.value)
      hoist(d.value, loop);
  std::vector<Value *> d64;
  for (const Increment &d : deltas) {
    d64.push_back(d.value ? toI64(b, d.value) : b.constInt(d.constant, i64));
    operands.push_back(b.constInt(0, i64));
    types.push_back(i64);
  }
  Operation *nl = b.create("scf.for", operands, types, {}, 1);
  Block *body = nl->region(0)->addBlock();
  std::vector<std::pair<Value *, Value *>> inBody;
  inBody.emplace_back(oldBody->arg(0), body->addArg(oldBody->arg(0)->type));
  for (size_t i = 0; i < numIters; ++i)
    if (!isPicked.count(i))
      inBody.emplace_back(oldBody->arg(i + 1), body->addArg(oldBody->arg(i + 1)->type));
  std::vector<Value *> dist;
  for (size_t k = 0; k < picked.size(); ++k)
    dist.push_back(body->addArg(i64));

  // Rebuild each picked pointer at the top of the body from its initial value.
  Builder bb(body);
  bb.setLoc(loop->loc());
  for (size_t k = 0; k < picked.size(); ++k)
    inBody.emplace_back(oldBody->arg(picked[k] + 1),
                        rebuild(bb, loop->operand(picked[k] + 3), dist[k]));
  // Move the old body's ops over.
  while (!oldBody->empty())
    body->insert(body->ops().end(), oldBody->remove(oldBody->ops().front().get()));
  Operation *yield = body->terminator();
  std::vector<Value *> yielded;
  for (size_t i = 0; i < numIters; ++i)
    if (!isPicked.count(i))
      yielded.push_back(yield->operand(i));
  bb.setInsertionPointBefore(yield);
  for (size_t k = 0; k < picked.size(); ++k)
    yielded.push_back(bb.create("arith.addi", {dist[k], d64[k]}, {i64})->result(0));
  yield->operands = yielded;
  replaceUses(nl, inBody);

  // Results: the kept ones map over; picked ones are rebuilt after the loop.
  b.setInsertionPointAfter(nl);
  std::vector<std::pair<Value *, Value *>> after;
  size_t r = 0;
  for (size_t i = 0; i < numIters; ++i)
    if (!isPicked.count(i))
      after.emplace_back(loop->result(i), nl->result(r++));
  for (size_t k = 0; k < picked.size(); ++k)
    after.emplace_back(loop->result(picked[k]),
                       rebuild(b, loop->operand(picked[k] + 3), nl->result(r + k)));
  replaceUses(func, after);
  loop->parentBlock()->erase(loop);
  return true;
}

} // namespace

void scalarizeLoopPointers(Module &m) {
  for (Operation *func : m.funcs()) {
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<Operation *> loops;
      func->walk([&](Operation *op) {
        if (op->is("scf.for"))
          loops.push_back(op);
      });
      for (Operation *loop : loops)
        if (rewrite(func, loop)) {
          changed = true;
          break; // the walk's list is stale after a rewrite
        }
    }
  }
}

} // namespace tt
