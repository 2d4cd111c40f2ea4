#include "conversion/ttir_to_tile/launch_guard.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"

namespace tt {
namespace {

// cmpi predicates (ttir/ops.cpp).
constexpr int64_t kEq = 0, kSle = 3;

bool encloses(const Operation *f, const Operation &op) {
  for (const Operation *p = op.parentOp(); p; p = p->parentOp())
    if (p == f)
      return true;
  return false;
}

int depth(const Operation *op) {
  int d = 0;
  for (const Operation *p = op->parentOp(); p; p = p->parentOp())
    ++d;
  return d;
}

// What evaluating a set of values needs: the kernel arguments and the scf.for loops whose
// induction variables they use.
struct Slice {
  const Block &top;
  const Operation &loop;
  std::set<int> args;
  std::set<const Operation *> fors;
  std::unordered_set<const Value *> seen;

  bool add(const Value *v) {
    if (!v->type.isInt())
      return false;
    if (seen.count(v))
      return true;
    if (!v->def) {
      if (v->ownerBlock == &top) {
        args.insert(static_cast<int>(v->index));
      } else {
        const Operation *f = v->ownerBlock ? v->ownerBlock->parentOp() : nullptr;
        if (!f || !f->is("scf.for") || v->index != 0 || f == &loop || !encloses(f, loop))
          return false;
        for (size_t i = 0; i < 3; ++i)
          if (!add(f->operand(i)))
            return false;
        fors.insert(f);
      }
      seen.insert(v);
      return true;
    }
    const Operation *d = v->def;
    if (!(d->info()->traits & kPure) || d->numRegions() || d->numResults() != 1)
      return false;
    for (const Value *o : d->operands)
      if (!add(o))
        return false;
    seen.insert(v);
    return true;
  }

  bool add(const Poly &p) {
    for (const auto &t : p.terms)
      for (const Value *v : t.first)
        if (!add(v))
          return false;
    return true;
  }
};

// Emits the guard's arithmetic; `map` takes kernel values to the guard's.
class Emitter {
public:
  Emitter(Builder &b, std::unordered_map<const Value *, Value *> &map) : b_(b), map_(map) {}

  Value *value(const Value *v) {
    auto it = map_.find(v);
    if (it != map_.end())
      return it->second;
    for (const Value *o : v->def->operands)
      value(o);
    b_.insert(cloneOp(*v->def, map_));
    return map_.at(v);
  }

  // The same i64 arithmetic as the kernel's check (Converter::emitPoly, convert_index.cpp).
  Value *poly(const Poly &p) {
    Value *sum = nullptr;
    for (const auto &t : p.terms) {
      Value *term = nullptr;
      for (const Value *v : t.first) {
        Value *x = i64(value(v));
        term = term ? bin("arith.muli", term, x) : x;
      }
      if (!term)
        term = b_.constInt(t.second, I64());
      else if (t.second != 1)
        term = bin("arith.muli", term, b_.constInt(t.second, I64()));
      sum = sum ? bin("arith.addi", sum, term) : term;
    }
    return sum ? sum : b_.constInt(0, I64());
  }

  Value *holds(const IndexCond &c) {
    if (c.div) {
      Value *low = bin("arith.andi", poly(c.lhs), b_.constInt(c.div - 1, I64()));
      return cmp(kEq, low, b_.constInt(0, I64()));
    }
    return cmp(kSle, poly(c.lhs), poly(c.rhs));
  }

  Value *bin(const char *op, Value *a, Value *b) {
    return b_.create(op, {a, b}, {a->type})->result(0);
  }

private:
  Builder &b_;
  std::unordered_map<const Value *, Value *> &map_;

  static Type I64() { return Type::integer(64); }

  Value *i64(Value *v) {
    return v->type.isInt(64) ? v : b_.create("arith.extsi", {v}, {I64()})->result(0);
  }

  Value *cmp(int64_t pred, Value *a, Value *b) {
    return b_
        .create("arith.cmpi", {a, b}, {Type::integer(1)},
                {{"predicate", Attribute::integer(pred, I64())}})
        ->result(0);
  }
};

// The conditions of the scf.if ops around `loop` that the host can evaluate (each with whether
// the loop sits in its else region), added to `s`; the others are left out, as if always
// taken: that can only clear the flag more often than needed. A program that does not reach
// the loop does not need its conditions (a persistent loop made a grid of items: the programs
// past the last item, grid_stride_loops.cpp).
std::vector<std::pair<const Value *, bool>> enclosingIfs(const Operation &loop, Slice &s) {
  std::vector<std::pair<const Value *, bool>> out;
  const Operation *inner = &loop;
  for (const Operation *p = loop.parentOp(); p && !p->is("tt.func"); inner = p, p = p->parentOp()) {
    if (!p->is("scf.if"))
      continue;
    Slice trial{s.top, loop, {}, {}, {}};
    if (!trial.add(p->operand(0)))
      continue;
    s.add(p->operand(0));
    bool inElse = p->numRegions() > 1 && inner->parentBlock() &&
                  inner->parentBlock()->parent() == p->region(1);
    out.push_back({p->operand(0), inElse});
  }
  return out;
}

} // namespace

bool LaunchGuard::accepts(const Operation &loop, const std::vector<IndexCond> &conds) const {
  Slice s{top_, loop, {}, {}, {}};
  for (const IndexCond &c : conds)
    if (!s.add(c.lhs) || !s.add(c.rhs))
      return false;
  return true;
}

void LaunchGuard::add(const Operation &loop, const std::vector<IndexCond> &conds) {
  loops_.push_back({&loop, conds});
}

std::unique_ptr<Module> LaunchGuard::build(const std::string &name, std::vector<int> &args) const {
  std::set<int> used;
  std::vector<std::vector<const Operation *>> nests;
  std::vector<std::vector<std::pair<const Value *, bool>>> ifs;
  for (const Guarded &g : loops_) {
    Slice s{top_, *g.loop, {}, {}, {}};
    for (const IndexCond &c : g.conds) {
      s.add(c.lhs);
      s.add(c.rhs);
    }
    ifs.push_back(enclosingIfs(*g.loop, s));
    used.insert(s.args.begin(), s.args.end());
    std::vector<const Operation *> nest(s.fors.begin(), s.fors.end());
    std::sort(nest.begin(), nest.end(),
              [](const Operation *a, const Operation *b) { return depth(a) < depth(b); });
    nests.push_back(nest);
  }
  args.assign(used.begin(), used.end());
  std::vector<Type> inputs;
  for (int i : args)
    inputs.push_back(top_.arg(i)->type);
  Type flagType = Type::pointer(Type::integer(32));
  inputs.push_back(flagType);

  auto m = std::make_unique<Module>();
  Builder b(*m);
  Block *body = createPublicFunction(b, name, inputs);
  std::vector<Value *> guardArgs;
  for (size_t i = 0; i < inputs.size(); ++i)
    guardArgs.push_back(body->arg(i));
  Value *flag = guardArgs.back();

  for (size_t n = 0; n < loops_.size(); ++n) {
    std::unordered_map<const Value *, Value *> map;
    for (size_t i = 0; i < args.size(); ++i)
      map[top_.arg(args[i])] = guardArgs[i];
    b.setInsertionPointToEnd(body);
    Emitter e(b, map);
    // The loops whose induction variables the conditions use, outermost first.
    for (const Operation *loop : nests[n]) {
      std::vector<Value *> bounds = {e.value(loop->operand(0)), e.value(loop->operand(1)),
                                     e.value(loop->operand(2))};
      Operation *g = b.create("scf.for", bounds, {}, {}, 1);
      Block *gb = g->region(0)->addBlock();
      map[loop->region(0)->front()->arg(0)] = gb->addArg(bounds[0]->type);
      b.setInsertionPointToEnd(gb);
      Operation *y = b.create("scf.yield", {}, {});
      b.setInsertionPointBefore(y);
    }
    Value *all = nullptr;
    for (const IndexCond &c : loops_[n].conds) {
      Value *v = e.holds(c);
      all = all ? e.bin("arith.andi", all, v) : v;
    }
    Value *fails = e.bin("arith.xori", all, b.constInt(1, Type::integer(1)));
    for (const auto &[cond, inElse] : ifs[n]) {
      Value *reached = e.value(cond);
      if (inElse)
        reached = e.bin("arith.xori", reached, b.constInt(1, Type::integer(1)));
      fails = e.bin("arith.andi", fails, reached);
    }
    Operation *ifOp = b.create("scf.if", {fails}, {}, {}, 2);
    b.setInsertionPointToEnd(ifOp->region(0)->addBlock());
    b.create("tt.store", {flag, b.constInt(0, Type::integer(32))}, {});
    b.create("scf.yield", {}, {});
  }
  b.setInsertionPointToEnd(body);
  b.create("tt.return", {}, {});
  verifyModule(*m);
  return m;
}

} // namespace tt
