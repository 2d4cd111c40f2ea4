// orderByData: see tile_data_order.h.
#include "exec/tileir/tile_data_order.h"

#include <map>

#include "ir/builder.h"
#include "ir/op_registry.h"
#include "tile/tile.h"

namespace tt::exec {
namespace {

bool isWrite(const Operation &op) { return tile::isStore(op) || tile::isAtomic(op); }

using tile::hasTokenOperand;

class DataOrder {
public:
  void block(Block &blk, Value *ctl) {
    std::vector<Operation *> ops;
    for (auto &o : blk.ops())
      ops.push_back(o.get());
    for (Operation *op : ops)
      visit(*op, ctl);
  }

private:
  std::map<const Value *, Value *> shadow_;

  Value *shadowOf(const Value *v) {
    auto it = shadow_.find(v);
    return it == shadow_.end() ? nullptr : it->second;
  }

  static Value *join(Builder &b, std::vector<Value *> toks) {
    return tile::joinTokens(b, std::move(toks));
  }

  static Value *orFresh(Builder &b, Value *t) { return t ? t : tile::freshToken(b); }

  // The shadows of op's data operands (not its token operand) and `ctl`.
  std::vector<Value *> operandShadows(const Operation &op, Value *ctl) {
    std::vector<Value *> out{ctl};
    for (Value *v : op.operands)
      if (!v->type.isToken())
        out.push_back(shadowOf(v));
    return out;
  }

  void visit(Operation &op, Value *ctl) {
    Builder b(op.parentBlock());
    b.setLoc(op.loc());
    if (op.is("cuda_tile.if")) {
      ifOp(op, ctl);
    } else if (op.is("cuda_tile.for") || op.is("cuda_tile.loop")) {
      loopOp(op, ctl);
    } else if (op.is("cuda_tile.yield") || op.is("cuda_tile.continue") ||
               op.is("cuda_tile.break")) {
      Operation *parent = op.parentBlock()->parentOp();
      if (op.is("cuda_tile.yield") && !(parent && parent->is("cuda_tile.if")))
        return; // a reduce's or scan's body
      b.setInsertionPointBefore(&op);
      std::vector<Value *> extra;
      for (Value *v : op.operands)
        if (!v->type.isToken())
          extra.push_back(orFresh(b, join(b, {shadowOf(v), ctl})));
      op.operands.insert(op.operands.end(), extra.begin(), extra.end());
    } else if (isWrite(op)) {
      b.setInsertionPointBefore(&op);
      std::vector<Value *> deps = operandShadows(op, ctl);
      if (hasTokenOperand(op))
        deps.push_back(op.operands.back());
      if (Value *tok = join(b, deps))
        tile::setTokenOperand(op, tok);
      if (op.numResults() == 2) // an atomic's old values
        readResult(op, b, {op.result(1), join(b, operandShadows(op, nullptr))});
    } else if (tile::isLoad(op)) {
      b.setInsertionPointBefore(&op);
      Value *in = join(b, operandShadows(op, nullptr));
      readResult(op, b, {op.result(op.numResults() - 1), in});
    } else if (op.is("cuda_tile.reduce") || op.is("cuda_tile.scan") ||
               (op.numRegions() == 0 && op.info()->has(kPure))) {
      b.setInsertionPointAfter(&op);
      Value *s = join(b, operandShadows(op, nullptr));
      if (s)
        for (size_t i = 0; i < op.numResults(); ++i)
          shadow_[op.result(i)] = s;
    }
  }

  // A read's (or an atomic's) first result stands for the access and what its operands came
  // from.
  void readResult(Operation &op, Builder &b, std::vector<Value *> toks) {
    b.setInsertionPointAfter(&op);
    shadow_[op.result(0)] = join(b, std::move(toks));
  }

  // New token results for each non-token result of a region op, in order: the shadows that its
  // terminators append (visit) arrive there; `also` (a condition's or a bound's) joins them.
  void shadowResults(Operation &op, size_t count, Value *also) {
    std::vector<std::pair<Value *, Value *>> pairs;
    for (size_t i = 0; i < count; ++i)
      if (!op.result(i)->type.isToken())
        pairs.push_back({op.result(i), op.addResult(Type::token())});
    Builder b(op.parentBlock());
    b.setLoc(op.loc());
    b.setInsertionPointAfter(&op);
    for (auto &[value, tok] : pairs)
      shadow_[value] = join(b, {tok, also});
  }

  void ifOp(Operation &op, Value *ctl) {
    Builder b(op.parentBlock());
    b.setLoc(op.loc());
    b.setInsertionPointBefore(&op);
    Value *cond = shadowOf(op.operand(0));
    Value *inner = join(b, {ctl, cond});
    size_t results = op.numResults();
    for (size_t r = 0; r < op.numRegions(); ++r)
      if (!op.region(r)->empty())
        block(*op.region(r)->front(), inner);
    shadowResults(op, results, cond);
  }

  void loopOp(Operation &op, Value *ctl) {
    bool isFor = op.is("cuda_tile.for");
    Builder b(op.parentBlock());
    b.setLoc(op.loc());
    b.setInsertionPointBefore(&op);
    Block *body = op.region(0)->front();
    Value *bounds =
        isFor ? join(b, {shadowOf(op.operand(0)), shadowOf(op.operand(1)), shadowOf(op.operand(2))})
              : nullptr;
    if (bounds)
      shadow_[body->arg(0)] = bounds;
    size_t first = isFor ? 3 : 0, results = op.numResults(), inits = op.numOperands();
    for (size_t i = first; i < inits; ++i) {
      if (op.operand(i)->type.isToken())
        continue;
      op.operands.push_back(orFresh(b, shadowOf(op.operand(i))));
      shadow_[body->arg(isFor ? i - 2 : i)] = body->addArg(Type::token());
    }
    block(*body, join(b, {ctl, bounds}));
    shadowResults(op, results, bounds);
  }
};

} // namespace

void orderByData(Operation &entry) {
  Block *body = entry.region(0)->front();
  if (body)
    DataOrder().block(*body, nullptr);
}

} // namespace tt::exec
