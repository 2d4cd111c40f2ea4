// flatten-grid-stride-loop: a persistent kernel's loop over work items, as a grid of items.
//
// A persistent kernel runs G programs, each looping over the work items pid, pid + S, ...
// below UB (`for item in range(tl.program_id(0), UB, S)`). tileiras 13.4 compiles a loop
// nested in such a loop badly: the persistent attention backward keeps 680 bytes of stack and
// two copies of its inner loop, and runs at 0.57x its one-item-a-program form (212 against 373
// TFLOP/s, H200; docs/gpu_perf_notes.md). This pass makes each (program, iteration) pair a
// program of its own: program (pid, j) on grid axes 0 and 1 (and 2 for more than 65535
// iterations) runs item pid + j * S when it is below UB. That is the loop's own set of items,
// whatever G, S and UB are; the host launches ceil(UB / S) programs along axis 1 (computed by
// the grid function this pass also returns), so the kernel holds no loop over items. Where the
// body reads neither the program id nor the count of axis 0 and the items are 0..UB-1 (S = G,
// or UB <= min(G, S)), the host launches UB programs on axis 0 instead: every program has an
// item, which a launch guard (launch_guard.h, which ignores the `if`) needs to hold.
//
// Rules (else the kernel is left as it is):
// - the kernel's body is pure ops, then the loop (scf.for from tt.get_program_id x), then
//   tt.return; values the loop carries are integers in closed form (the same at every
//   iteration, or stepped by a value from outside the loop or a constant: tutorial 09's
//   tile_id_c), each replaced by init + j * step (such a counter needs the iteration j, so its
//   grid of items stays two-dimensional); the bound and step are pure integer functions of the
//   kernel's integer arguments and constants (tt.get_num_programs x, G, allowed);
// - no op reads the program id or count of axis 1 or 2 (they now number iterations);
// - items may run in any order, so the loop must not carry anything through memory between
//   them: no memory it reads is written by the kernel (by argument, through the launch's alias
//   classes), no atomic's old value is used, no compare-and-swap, and every plain store's
//   address depends on the item (a per-program location written by each item would have its
//   last writer change).
// Where: by default (nestedOnly) only loops that hold another loop. A persistent loop without
// one (tutorial 02's softmax over rows) ran slower as a grid on an H200 (2212 against 3130
// GB/s at 4096x4096 fp16), and tutorial 09's pointer matmul ran faster as a loop at 4 stages
// (676.6 against 632.1 TFLOP/s): the choice is also a launch option (grid_stride).
// Known limits: that a plain store's address depends on the item is checked, not that it
// differs between items: two items of one program writing one address (Y[item // 8]) lose
// their order, the last writer may change (items of different programs race in the original
// too). item = pid + j * step is computed in i64; where the grid's last program's item would
// pass 2^63 (an i64 bound near it) the host refuses the launch (backends/grid_stride.py).
// Also: a kernel reading what it writes elsewhere in the loop (a per-item scratch
// buffer) keeps its loop; so does a loop carrying other values (an accumulator over items, a
// pointer stepped per item, a grouped GEMM's counters).
// On a two-dimensional grid of items a launch guard leaves out the programs past the last item
// (their `if` is false; launch_guard.h).
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "passes/passes.h"

namespace tt {
namespace {

bool pointerLike(Type t) {
  return t.isPtr() || t.isTensorDesc() || (t.isTensor() && t.element().isPtr());
}

bool isAxis(const Operation *op, int64_t axis) {
  return (op->is("tt.get_program_id") || op->is("tt.get_num_programs")) &&
         op->intAttr("axis") == axis;
}

// The kernel arguments a pointer value derives from; false where one cannot be named (a
// pointer loaded from memory, or made from an integer).
class Roots {
public:
  explicit Roots(const Block &top) : top_(top) {}

  bool of(const Value *v, std::set<int> &out) {
    std::vector<const Value *> todo = {v};
    std::unordered_set<const Value *> seen;
    while (!todo.empty()) {
      const Value *x = todo.back();
      todo.pop_back();
      if (!seen.insert(x).second)
        continue;
      if (!x->def) {
        if (x->ownerBlock == &top_) {
          out.insert(static_cast<int>(x->index));
          continue;
        }
        const Operation *loop = x->ownerBlock ? x->ownerBlock->parentOp() : nullptr;
        if (!loop || !loop->is("scf.for") || x->index == 0)
          return false; // (an scf.while's arguments: not followed)
        todo.push_back(loop->operand(3 + x->index - 1));
        const Operation *yield = x->ownerBlock->terminator();
        if (!yield)
          return false;
        todo.push_back(yield->operand(x->index - 1));
        continue;
      }
      const Operation *d = x->def;
      if (d->numRegions()) {
        if (!d->is("scf.for") && !d->is("scf.if"))
          return false;
        if (d->is("scf.for"))
          todo.push_back(d->operand(3 + x->index));
        for (size_t r = 0; r < d->numRegions(); ++r)
          for (const auto &b : d->region(r)->blocks)
            if (const Operation *y = b->terminator())
              todo.push_back(y->operand(x->index));
        continue;
      }
      if (!d->info()->has(kPure))
        return false; // a pointer read from memory
      bool any = false;
      for (const Value *o : d->operands)
        if (pointerLike(o->type)) {
          todo.push_back(o);
          any = true;
        }
      if (!any)
        return false; // tt.int_to_ptr and the like
    }
    return true;
  }

private:
  const Block &top_;
};

bool dependsOn(const Value *v, const Value *on, std::unordered_map<const Value *, bool> &memo) {
  if (v == on)
    return true;
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  memo[v] = false; // (cycles through loop arguments end here)
  bool dep = false;
  if (v->def) {
    for (const Value *o : v->def->operands)
      dep = dep || dependsOn(o, on, memo);
  } else if (const Operation *loop = v->ownerBlock ? v->ownerBlock->parentOp() : nullptr) {
    for (const Value *o : loop->operands)
      dep = dep || dependsOn(o, on, memo);
  }
  memo[v] = dep;
  return dep;
}

// Whether the loop's items may run in any order (the header's third rule).
bool independentItems(const Block &top, Operation *loop,
                      const std::vector<std::vector<int>> &aliasClasses,
                      const std::vector<const Value *> &itemLike) {
  std::unordered_map<int, int> cls;
  for (size_t c = 0; c < aliasClasses.size(); ++c)
    for (int a : aliasClasses[c])
      cls[a] = -1 - static_cast<int>(c);
  auto canon = [&](int a) { return cls.count(a) ? cls[a] : a; };
  const Value *iv = loop->region(0)->front()->arg(0);
  Roots roots(top);
  std::set<int> reads, writes;
  std::unordered_map<const Value *, bool> memo;
  for (const Value *v : itemLike)
    memo[v] = true; // a counter stepped with the loop: a function of the item's iteration
  std::unordered_set<const Value *> used;
  loop->walk([&](Operation *op) { used.insert(op->operands.begin(), op->operands.end()); });
  bool ok = true;
  loop->walk([&](Operation *op) {
    if (!ok || op == loop || op->info()->has(kPure) || op->info()->has(kTerminator))
      return;
    const std::string &n = op->name();
    std::set<int> r;
    if (op->info()->has(kReadOnly)) {
      ok = roots.of(op->operand(0), r);
      for (int a : r)
        reads.insert(canon(a));
    } else if (n == "tt.store" || n == "tt.descriptor_store" || n == "tt.atomic_rmw") {
      ok = roots.of(op->operand(0), r);
      if (n == "tt.atomic_rmw" && used.count(op->result(0)))
        ok = false;
      if (n != "tt.atomic_rmw") { // the address: the pointer, or descriptor and offsets
        bool dep = dependsOn(op->operand(0), iv, memo);
        for (size_t i = 2; n == "tt.descriptor_store" && i < op->numOperands(); ++i)
          dep = dep || dependsOn(op->operand(i), iv, memo);
        ok = ok && dep;
      }
      for (int a : r)
        writes.insert(canon(a));
    } else if (!op->is("scf.for") && !op->is("scf.if") && !op->is("scf.while") &&
               !op->is("tt.print") && !op->is("tt.assert") && !op->is("llvm.intr.assume")) {
      ok = false; // compare-and-swap, barriers, anything else with effects
    }
  });
  if (!ok)
    return false;
  for (int a : reads)
    if (writes.count(a))
      return false;
  return true;
}

// The loop's bound and step as pure integer functions of the kernel's integer arguments; the
// argument indices they use go to `args`.
bool hostComputable(const Value *v, const Block &top, std::set<int> &args,
                    std::unordered_set<const Operation *> &slice) {
  if (!v->type.isInt())
    return false;
  if (!v->def) {
    if (v->ownerBlock != &top)
      return false;
    args.insert(static_cast<int>(v->index));
    return true;
  }
  const Operation *d = v->def;
  slice.insert(d);
  if (d->is("tt.get_num_programs"))
    return d->intAttr("axis") == 0;
  if (d->is("tt.get_program_id") || !d->info()->has(kPure) || d->numRegions() ||
      d->numResults() != 1)
    return false;
  for (const Value *o : d->operands)
    if (!hostComputable(o, top, args, slice))
      return false;
  return true;
}

// Whether the program id and count of axis 0 are read only by the loop's bounds: then a
// program's item can be its id, and a grid of items one-dimensional (backends/grid_stride.py).
bool linearItems(Operation *f, const Operation *loop) {
  std::unordered_set<const Value *> axis0;
  f->walk([&](Operation *op) {
    if (isAxis(op, 0))
      axis0.insert(op->result(0));
  });
  // Only as the loop's start and step themselves: on a 1-D grid the kernel's count of axis 0 is
  // the number of items, so a value computed from it (a bound c - G, a step G * 2 the body
  // also reads) would differ from the launch's.
  bool linear = true;
  f->walk([&](Operation *op) {
    for (size_t i = 0; i < op->numOperands(); ++i)
      if (axis0.count(op->operand(i)) && !(op == loop && (i == 0 || i == 2)))
        linear = false;
  });
  return linear;
}

Value *toI64(Builder &b, Value *v) {
  return v->type.isInt(64) ? v : b.create("arith.extsi", {v}, {Type::integer(64)})->result(0);
}

Value *binary(Builder &b, const char *op, Value *x, Value *y) {
  return b.create(op, {x, y}, {x->type})->result(0);
}

// The grid function: the kernel's integer arguments `args`, then G (the launch's axis 0) and a
// pointer to two i64: it stores the loop's bound and step there.
std::unique_ptr<Module> buildGridFunction(const std::string &name, const Block &top,
                                          const Operation &loop, const std::vector<int> &args) {
  std::vector<Type> inputs;
  for (int i : args)
    inputs.push_back(top.arg(i)->type);
  inputs.push_back(Type::integer(32));
  Type out = Type::pointer(Type::integer(64));
  inputs.push_back(out);
  auto m = std::make_unique<Module>();
  Builder b(*m);
  Block *body = createPublicFunction(b, name, inputs);
  std::unordered_map<const Value *, Value *> map;
  for (size_t i = 0; i < args.size(); ++i)
    map[top.arg(args[i])] = body->arg(i);
  Value *programs = body->arg(args.size());
  Value *ptr = body->arg(args.size() + 1);
  std::function<Value *(const Value *)> value = [&](const Value *v) -> Value * {
    auto it = map.find(v);
    if (it != map.end())
      return it->second;
    if (v->def->is("tt.get_num_programs"))
      return map[v] = programs;
    for (const Value *o : v->def->operands)
      value(o);
    b.insert(cloneOp(*v->def, map));
    return map.at(v);
  };
  Value *ub = toI64(b, value(loop.operand(1)));
  Value *step = toI64(b, value(loop.operand(2)));
  b.create("tt.store", {ptr, ub}, {});
  Value *next = b.create("tt.addptr", {ptr, b.constInt(1, Type::integer(32))}, {out})->result(0);
  b.create("tt.store", {next, step}, {});
  b.create("tt.return", {}, {});
  verifyModule(*m);
  return m;
}

// A value the loop carries in closed form: `init` at the first iteration, `init + j * step` at
// iteration j (step null: `init` throughout). Tutorial 09's persistent matmuls carry their
// epilogue's tile counter so (tile_id_c += NUM_SMS).
struct ClosedForm {
  Value *arg, *init, *step;
};

bool closedForms(Operation *loop, const Block &top, std::vector<ClosedForm> &out) {
  Block *body = loop->region(0)->front();
  const Operation *yield = body->terminator();
  if (!yield || yield->numOperands() != body->numArgs() - 1)
    return false;
  auto outside = [&](const Value *v) {
    return v->def ? v->def->parentBlock() == &top : v->ownerBlock == &top;
  };
  for (size_t k = 0; k + 1 < body->numArgs(); ++k) {
    Value *arg = body->arg(k + 1), *next = yield->operand(k);
    if (!arg->type.isInt())
      return false;
    Value *step = nullptr;
    if (next != arg) {
      const Operation *d = next->def;
      if (!d || !d->is("arith.addi") || d->parentBlock() != body)
        return false;
      step = d->operand(0) == arg ? d->operand(1) : d->operand(1) == arg ? d->operand(0) : nullptr;
      // a constant the frontend put in the body is invariant too (cloned before the loop)
      if (!step || !(outside(step) || (step->def && step->def->is("arith.constant"))))
        return false;
    }
    out.push_back({arg, loop->operand(3 + k), step});
  }
  return true;
}

} // namespace

GridStride flattenGridStrideLoop(Module &m, const std::string &kernel,
                                 const std::vector<std::vector<int>> &aliasClasses,
                                 bool nestedOnly) {
  GridStride result;
  Operation *f = m.lookupFunc(kernel);
  if (!f || f->region(0)->empty())
    return result;
  Block &top = *f->region(0)->front();
  // The body: pure ops, the loop, tt.return.
  Operation *loop = nullptr;
  for (auto &owned : top.ops()) {
    Operation *op = owned.get();
    if (op->is("scf.for")) {
      loop = op;
      break;
    }
    if (!op->info()->has(kPure) || op->numRegions())
      return result;
  }
  if (!loop || loop == top.back() || std::next(top.find(loop))->get() != top.back() ||
      !top.back()->is("tt.return") || !loop->operand(0)->def || !isAxis(loop->operand(0)->def, 0) ||
      !loop->operand(0)->def->is("tt.get_program_id"))
    return result;
  bool nested = false;
  loop->walk([&](Operation *op) {
    nested = nested || (op != loop && (op->is("scf.for") || op->is("scf.while")));
  });
  if (nestedOnly && !nested)
    return result;
  bool otherAxes = false;
  f->walk([&](Operation *op) { otherAxes = otherAxes || isAxis(op, 1) || isAxis(op, 2); });
  std::vector<ClosedForm> carried;
  std::vector<const Value *> itemLike;
  if (!closedForms(loop, top, carried))
    return result;
  // A counter stepped by the loop's own step (positive: the host checks) or a nonzero constant
  // differs from item to item of a program, as tutorial 09's tile_id_c; others may not.
  for (const ClosedForm &c : carried) {
    int64_t k = 0;
    if (c.step && (c.step == loop->operand(2) || (constantInt(c.step, k) && k != 0)))
      itemLike.push_back(c.arg);
  }
  std::set<int> args;
  std::unordered_set<const Operation *> slice;
  if (otherAxes || !hostComputable(loop->operand(1), top, args, slice) ||
      !hostComputable(loop->operand(2), top, args, slice) ||
      !independentItems(top, loop, aliasClasses, itemLike))
    return result;
  result.args.assign(args.begin(), args.end());
  // (a counter stepped with the loop needs the iteration, which a 1-D grid does not number)
  result.linear = itemLike.empty() && linearItems(f, loop);
  result.grid = buildGridFunction(kernel + "_grid", top, *loop, result.args);

  // item = pid + (y + z * ny) * step, in i64 (an iteration past the last may pass i32's range)
  Builder b(&top);
  b.setInsertionPointBefore(loop);
  b.setLoc(loop->loc());
  Type i32 = Type::integer(32);
  auto axis = [&](const char *op, int64_t a) {
    return b.create(op, {}, {i32}, {{"axis", Attribute::integer(a, i32)}})->result(0);
  };
  Value *y = toI64(b, axis("tt.get_program_id", 1));
  Value *z = toI64(b, axis("tt.get_program_id", 2));
  Value *ny = toI64(b, axis("tt.get_num_programs", 1));
  Value *j = binary(b, "arith.addi", y, binary(b, "arith.muli", z, ny));
  Value *item = binary(b, "arith.addi", toI64(b, loop->operand(0)),
                       binary(b, "arith.muli", j, toI64(b, loop->operand(2))));
  Value *inRange = b.create("arith.cmpi", {item, toI64(b, loop->operand(1))}, {Type::integer(1)},
                            {{"predicate", Attribute::integer(2, Type::integer(64))}}) // slt
                       ->result(0);
  Block *body = loop->region(0)->front();
  Value *iv = body->arg(0);
  if (!iv->type.isInt(64))
    item = b.create("arith.trunci", {item}, {iv->type})->result(0);
  std::vector<std::pair<Value *, Value *>> uses = {{iv, item}};
  for (const ClosedForm &c : carried) {
    Value *v = c.init;
    if (c.step) {
      Value *step = c.step;
      if (step->def && step->def->parentBlock() != &top) { // (an arith.constant in the body)
        std::unordered_map<const Value *, Value *> none;
        step = b.insert(cloneOp(*step->def, none))->result(0);
      }
      v = binary(b, "arith.addi", toI64(b, c.init), binary(b, "arith.muli", j, toI64(b, step)));
      if (!c.arg->type.isInt(64))
        v = b.create("arith.trunci", {v}, {c.arg->type})->result(0);
    }
    uses.push_back({c.arg, v});
  }
  Operation *ifOp = b.create("scf.if", {inRange}, {}, {}, 2);
  Block *then = ifOp->region(0)->addBlock();
  while (!body->empty())
    then->insert(then->ops().end(), body->remove(body->ops().front().get()));
  then->erase(then->back()); // the loop's scf.yield: the if's yields nothing
  b.setInsertionPointToEnd(then);
  b.create("scf.yield", {}, {});
  replaceUses(ifOp, uses);
  top.erase(loop);
  verifyModule(m);
  return result;
}

} // namespace tt
