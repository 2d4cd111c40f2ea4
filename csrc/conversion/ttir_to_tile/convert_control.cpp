// convert-ttir-to-tile, control flow: scf.for (and loop versioning, launch_guard.h), scf.if,
// scf.while.

#include <cmath>
#include <cstdlib>

#include "conversion/ttir_to_tile/converter.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "passes/passes.h"

namespace tt::tile_conv {

void Converter::forOp(const Operation &o) {
  std::vector<const Operation *> planned;
  std::vector<IndexCond> conds;
  if (opts_.raiseViews && opts_.indexViews)
    conds = planLoopAccesses(o, *o.region(0)->front(), planned);
  if (conds.empty() || !opts_.guardViews || !opts_.versionLoops) {
    loop(o);
  } else {
    bool hostDecides = opts_.launchGuards && guard_->accepts(o, conds);
    if (hostDecides)
      guard_->add(o, conds);
    Operation *ifOp = make("if", {emitIndexConds(conds)}, resultTypesOf(o), {}, 2);
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(ifOp->region(0)->addBlock());
    make("yield", loop(o), {});
    b_.setInsertionPointToEnd(ifOp->region(1)->addBlock());
    if (hostDecides) {
      std::vector<Value *> inits;
      for (size_t i = 3; i < o.numOperands(); ++i)
        inits.push_back(get(o.operand(i)));
      make("yield", inits, {});
    } else {
      // The other version: descriptor accesses as plain gathers/scatters. It runs only for
      // edge tiles, and a view made per iteration there cost the fast version 25% (H200).
      for (const Operation *a : planned) {
        indexPlans_.erase(a);
        if (isBoxAccess(*a))
          gatherOnly_.insert(a);
      }
      bool was = reporting_;
      reporting_ = false;
      make("yield", loop(o), {});
      reporting_ = was;
    }
    b_.restoreInsertionPoint(ip);
    bindResults(o, ifOp);
  }
  for (const Operation *a : planned) {
    indexPlans_.erase(a);
    gatherOnly_.erase(a);
  }
}

std::vector<Value *> Converter::loop(const Operation &o) {
  LoopScope scope(loopDepth_);
  std::vector<Type> types = resultTypesOf(o);
  Operation *f = make("for", get(o.operands), types, {}, 1);
  const Block &body = *o.region(0)->front();
  Block *dst = f->region(0)->addBlock();
  for (size_t i = 0; i < body.numArgs(); ++i)
    map_[body.arg(i)] = dst->addArg(body.arg(i)->type);
  auto ip = b_.saveInsertionPoint();
  b_.setInsertionPointToEnd(dst);
  block(body, Term::Continue);
  b_.restoreInsertionPoint(ip);
  bindResults(o, f);
  std::vector<Value *> res;
  for (size_t i = 0; i < f->numResults(); ++i)
    res.push_back(f->result(i));
  return res;
}

void Converter::ifOp(const Operation &o) {
  std::vector<Type> types = resultTypesOf(o);
  Operation *f = make("if", {get(o.operand(0))}, types, {}, 2);
  for (int r = 0; r < 2; ++r) {
    if (o.region(r)->empty())
      continue;
    Block *dst = f->region(r)->addBlock();
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(dst);
    block(*o.region(r)->front(), Term::Yield);
    b_.restoreInsertionPoint(ip);
  }
  bindResults(o, f);
}

void Converter::whileOp(const Operation &o) {
  LoopScope scope(loopDepth_);
  std::vector<Type> types = resultTypesOf(o);
  Operation *loop = make("loop", get(o.operands), types, {}, 1);
  const Block &before = *o.region(0)->front();
  const Block &after = *o.region(1)->front();
  Block *dst = loop->region(0)->addBlock();
  for (size_t i = 0; i < before.numArgs(); ++i)
    map_[before.arg(i)] = dst->addArg(before.arg(i)->type);
  auto ip = b_.saveInsertionPoint();
  b_.setInsertionPointToEnd(dst);
  const Operation *cond = nullptr;
  for (const auto &op2 : before.ops()) {
    if (op2->is("scf.condition")) {
      cond = op2.get();
      break;
    }
    b_.setLoc(op2->loc());
    op(*op2);
  }
  if (!cond)
    throw Unsupported{"scf.while without scf.condition"};
  std::vector<Value *> passed;
  for (size_t i = 1; i < cond->numOperands(); ++i)
    passed.push_back(get(cond->operand(i)));
  Operation *branch = make("if", {get(cond->operand(0))}, {}, {}, 2);
  b_.setInsertionPointToEnd(branch->region(0)->addBlock());
  for (size_t i = 0; i < after.numArgs(); ++i)
    map_[after.arg(i)] = passed.at(i);
  // The body's own accesses (not those of loops inside it) index views too, with their
  // conditions checked at each access: a grouped GEMM's tile store, on a descriptor made per
  // problem, then uses a view made with the descriptor instead of one made per store.
  std::vector<const Operation *> planned;
  if (opts_.raiseViews && opts_.indexViews)
    planLoopAccesses(o, after, planned);
  block(after, Term::WhileAfter);
  for (const Operation *a : planned)
    indexPlans_.erase(a);
  b_.setInsertionPointToEnd(dst);
  make("break", passed, {});
  b_.restoreInsertionPoint(ip);
  bindResults(o, loop);
}

void Converter::print(const Operation &o) {
  std::string fmt = o.attr("prefix").getString();
  for (const Value *v : o.operands)
    fmt += v->type.element().isFloat() ? " %f" : " %d";
  fmt += "\n";
  // Prints carry a token so insert-memory-tokens keeps them in program order.
  make("print", get(o.operands), {Type::token()},
       {{"format", Attribute::string(fmt)},
        {"operandSegmentSizes", Attribute::i32Array({static_cast<int64_t>(o.numOperands()), 0})}});
}

} // namespace tt::tile_conv
