// fuse-fma (Tile IR): contracts a float multiply feeding an add or subtract into one fma, the
// single rounding stock Triton's GPU path gets from LLVM (`enable_fp_fusion`, on by default;
// NVPTX fuses aggressively). Without it the Tile path's `a * x + y` differs from stock
// Triton's in the last bits of about a quarter of the results (seen on an H100), and tileiras
// does not contract on its own.
//
// Rules, after LLVM's DAG combiner for NVPTX (so results match stock Triton's bit for bit):
//   - addf(mulf(a, b), c) and addf(c, mulf(a, b)) -> fma(a, b, c); when both operands are
//     multiplies, the one with fewer uses is fused (the left one on a tie);
//   - subf(mulf(a, b), c) -> fma(a, b, negf(c)); subf(c, mulf(a, b)) -> fma(negf(a), b, c);
//   - the multiply is fused whatever its other uses (they keep it), but only when it sits in
//     the add's block: LLVM combines within a basic block, and this never moves a multiply
//     into a loop;
//   - element types f16, bf16, f32, f64 (fma's); the multiply's rounding and flush-to-zero
//     must be the add's; the fma takes the add's attributes and location.
// Known limits: no contraction through a select, a conversion or a loop-carried value.
#include <unordered_map>

#include "ir/builder.h"
#include "passes/passes.h"

namespace tt {
namespace {

bool fusableType(Type t) {
  Type e = t.element();
  if (!e.isFloat())
    return false;
  FloatKind k = e.floatKind();
  return k == FloatKind::F16 || k == FloatKind::BF16 || k == FloatKind::F32 || k == FloatKind::F64;
}

// The multiply that defines `v`, when it may be fused into `add`.
Operation *fusableMul(const Value *v, const Operation &add) {
  Operation *mul = v->def;
  if (!mul || !mul->is("cuda_tile.mulf") || mul->parentBlock() != add.parentBlock())
    return nullptr;
  if (mul->result(0)->type != add.result(0)->type)
    return nullptr;
  for (const char *a : {"rounding", "flush_to_zero"})
    if (mul->attr(a) != add.attr(a))
      return nullptr;
  return mul;
}

void fuseInFunction(Operation *func) {
  std::unordered_map<const Value *, int> uses;
  std::vector<Operation *> adds;
  func->walk([&](Operation *op) {
    for (const Value *v : op->operands)
      ++uses[v];
    if ((op->is("cuda_tile.addf") || op->is("cuda_tile.subf")) && op->numResults() == 1 &&
        op->operands.size() == 2 && fusableType(op->result(0)->type))
      adds.push_back(op);
  });
  for (Operation *op : adds) {
    Value *lhs = op->operands[0], *rhs = op->operands[1];
    Operation *left = fusableMul(lhs, *op), *right = fusableMul(rhs, *op);
    if (left && right && uses[right->result(0)] < uses[left->result(0)])
      left = nullptr;
    if (!left && !right)
      continue;
    Builder b(op->parentBlock());
    b.setInsertionPointBefore(op);
    b.setLoc(op->loc());
    Type t = op->result(0)->type;
    auto neg = [&](Value *v) { return b.create("cuda_tile.negf", {v}, {t})->result(0); };
    bool sub = op->is("cuda_tile.subf");
    std::vector<Value *> abc;
    if (left)
      abc = {left->operands[0], left->operands[1], sub ? neg(rhs) : rhs};
    else
      abc = {sub ? neg(right->operands[0]) : right->operands[0], right->operands[1], lhs};
    Value *fma = b.create("cuda_tile.fma", abc, {t}, op->attrs())->result(0);
    Operation *mul = left ? left : right;
    --uses[mul->result(0)];
    replaceUses(func, {{op->result(0), fma}});
    op->parentBlock()->erase(op);
    if (uses[mul->result(0)] == 0)
      mul->parentBlock()->erase(mul);
  }
}

} // namespace

void fuseMultiplyAdd(Module &m) {
  for (Operation *func : m.funcs())
    fuseInFunction(func);
}

} // namespace tt
