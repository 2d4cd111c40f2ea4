// canonicalize: local rewrites that make the IR smaller and the executors' job simpler.
// Rules (each fires on one op, to a fixed point):
//   - integer arith on scalar/splat constants folds (wrap-around at the type's width);
//     integer compares of constants fold;
//   - splat/broadcast/reshape/expand_dims of a constant become one constant;
//   - broadcast/reshape to the same type is the operand itself;
//   - x + 0, x - 0, x * 1, x / 1 (signed or unsigned) and addptr(p, 0) are x (p);
//   - select and scf.if on a constant condition keep the taken side;
//   - integer casts of constants fold, and float casts of constants when exact.
// Known limits: float arithmetic is not folded (rounding would have to match the executors).
#include <cmath>
#include <unordered_map>

#include "ir/builder.h"
#include "passes/passes.h"

namespace tt {
namespace {

int64_t wrap(int64_t v, int width) {
  if (width >= 64)
    return v;
  if (width == 1)
    return v & 1;
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  uint64_t sign = uint64_t(1) << (width - 1);
  return static_cast<int64_t>((u ^ sign) - sign); // sign-extend
}

uint64_t unsignedOf(int64_t v, int width) {
  return width >= 64 ? static_cast<uint64_t>(v)
                     : static_cast<uint64_t>(v) & ((uint64_t(1) << width) - 1);
}

bool foldInt(const std::string &n, int64_t a, int64_t b, int w, int64_t &out) {
  uint64_t ua = unsignedOf(a, w), ub = unsignedOf(b, w);
  if (n == "arith.addi")
    out = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else if (n == "arith.subi")
    out = static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  else if (n == "arith.muli")
    out = static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else if (n == "arith.andi")
    out = a & b;
  else if (n == "arith.ori")
    out = a | b;
  else if (n == "arith.xori")
    out = a ^ b;
  else if (n == "arith.maxsi")
    out = a > b ? a : b;
  else if (n == "arith.minsi")
    out = a < b ? a : b;
  else if (n == "arith.divsi" && b != 0 && !(b == -1 && a == wrap(int64_t(1) << (w - 1), w)))
    out = a / b;
  else if (n == "arith.remsi" && b != 0 && b != -1)
    out = a % b;
  else if (n == "arith.divui" && ub != 0)
    out = static_cast<int64_t>(ua / ub);
  else if (n == "arith.remui" && ub != 0)
    out = static_cast<int64_t>(ua % ub);
  else
    return false;
  out = wrap(out, w);
  return true;
}

bool foldCmp(int64_t pred, int64_t a, int64_t b, int w, int64_t &out) {
  uint64_t ua = unsignedOf(a, w), ub = unsignedOf(b, w);
  bool r;
  switch (pred) {
  case 0:
    r = a == b;
    break;
  case 1:
    r = a != b;
    break;
  case 2:
    r = a < b;
    break;
  case 3:
    r = a <= b;
    break;
  case 4:
    r = a > b;
    break;
  case 5:
    r = a >= b;
    break;
  case 6:
    r = ua < ub;
    break;
  case 7:
    r = ua <= ub;
    break;
  case 8:
    r = ua > ub;
    break;
  case 9:
    r = ua >= ub;
    break;
  default:
    return false;
  }
  out = r;
  return true;
}

class Canonicalizer {
public:
  explicit Canonicalizer(Operation *func) : func_(func) {}

  bool run() {
    bool any = false;
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<Operation *> ops;
      func_->walk([&](Operation *op) { ops.push_back(op); });
      for (Operation *op : ops)
        if (!erased_.count(op) && rewrite(op))
          changed = any = true;
      erased_.clear();
    }
    return any;
  }

private:
  void replace(Operation *op, const std::vector<Value *> &with) {
    replaceUses(func_, mapResults(op, with));
    erase(op);
  }
  void erase(Operation *op) {
    op->walk([&](Operation *o) { erased_[o] = true; });
    op->parentBlock()->erase(op);
  }

  Value *makeConst(Operation *before, Type t, const Attribute &source) {
    Builder b(before->parentBlock());
    b.setInsertionPointBefore(before);
    b.setLoc(before->loc());
    if (source.denseIsFloat() || source.kind() == Attribute::Kind::Float)
      return b.constFloat(source.getFloat(), t);
    return b.constInt(source.getInt(), t);
  }

  bool rewrite(Operation *op) {
    const std::string &n = op->name();
    if (op->numResults() == 1 && op->numOperands() == 2 && n.rfind("arith.", 0) == 0) {
      Type t = op->result(0)->type;
      int64_t a, b, r;
      bool ca = constantInt(op->operand(0), a), cb = constantInt(op->operand(1), b);
      if (n == "arith.cmpi" && ca && cb) {
        int w =
            op->operand(0)->type.element().isInt() ? op->operand(0)->type.element().intWidth() : 64;
        if (foldCmp(op->intAttr("predicate"), a, b, w, r)) {
          Builder bl(op->parentBlock());
          bl.setInsertionPointBefore(op);
          bl.setLoc(op->loc());
          replace(op, {bl.constInt(r, t)});
          return true;
        }
      }
      if (ca && cb && t.element().isInt() && foldInt(n, a, b, t.element().intWidth(), r)) {
        Builder bl(op->parentBlock());
        bl.setInsertionPointBefore(op);
        bl.setLoc(op->loc());
        replace(op, {bl.constInt(r, t)});
        return true;
      }
      if (cb && ((b == 0 && (n == "arith.addi" || n == "arith.subi" || n == "arith.ori" ||
                             n == "arith.xori" || n == "arith.shli" || n == "arith.shrsi" ||
                             n == "arith.shrui")) ||
                 (b == 1 && (n == "arith.muli" || n == "arith.divsi" || n == "arith.divui")))) {
        replace(op, {op->operand(0)});
        return true;
      }
      if (ca && a == 0 && (n == "arith.addi" || n == "arith.ori" || n == "arith.xori")) {
        replace(op, {op->operand(1)});
        return true;
      }
      if (ca && a == 1 && n == "arith.muli") {
        replace(op, {op->operand(1)});
        return true;
      }
    }
    if ((n == "arith.extsi" || n == "arith.extui" || n == "arith.trunci") &&
        op->result(0)->type.element().isInt()) {
      int64_t c;
      if (constantInt(op->operand(0), c)) {
        int from = op->operand(0)->type.element().intWidth();
        int to = op->result(0)->type.element().intWidth();
        int64_t v = n == "arith.extui" ? static_cast<int64_t>(unsignedOf(c, from)) : wrap(c, to);
        Builder bl(op->parentBlock());
        bl.setInsertionPointBefore(op);
        bl.setLoc(op->loc());
        replace(op, {bl.constInt(v, op->result(0)->type)});
        return true;
      }
    }
    if ((n == "arith.extf" || n == "arith.truncf") && isConstant(op->operand(0))) {
      // Widening is exact; narrowing only for values every float format holds exactly.
      const Attribute &a = op->operand(0)->def->attr("value");
      double v = a.getFloat();
      if (n == "arith.extf" || v == 0 || std::isinf(v) || std::isnan(v)) {
        Builder bl(op->parentBlock());
        bl.setInsertionPointBefore(op);
        bl.setLoc(op->loc());
        replace(op, {bl.constFloat(v, op->result(0)->type)});
        return true;
      }
    }
    if (n == "tt.addptr") {
      int64_t off;
      if (constantInt(op->operand(1), off) && off == 0) {
        replace(op, {op->operand(0)});
        return true;
      }
    }
    if (n == "tt.splat" || n == "tt.broadcast" || n == "tt.reshape" || n == "tt.expand_dims") {
      Value *src = op->operand(0);
      Type t = op->result(0)->type;
      if (src->type == t) {
        replace(op, {src});
        return true;
      }
      if (isConstant(src) && !t.element().isPtr()) {
        replace(op, {makeConst(op, t, src->def->attr("value"))});
        return true;
      }
    }
    if (n == "arith.select") {
      int64_t c;
      if (constantInt(op->operand(0), c)) {
        replace(op, {op->operand(c ? 1 : 2)});
        return true;
      }
      if (op->operand(1) == op->operand(2)) {
        replace(op, {op->operand(1)});
        return true;
      }
    }
    if (n == "scf.if") {
      int64_t c;
      if (constantInt(op->operand(0), c))
        return inlineIf(op, c != 0);
    }
    return false;
  }

  // Moves the taken branch's ops before the if and forwards its yielded values.
  bool inlineIf(Operation *op, bool cond) {
    Region *r = op->region(cond ? 0 : 1);
    std::vector<Value *> yielded;
    if (!r->empty()) {
      Block *blk = r->front();
      Operation *y = blk->terminator();
      yielded = y ? y->operands : std::vector<Value *>{};
      Block *parent = op->parentBlock();
      auto pos = parent->find(op);
      while (!blk->empty() && blk->ops().front().get() != y) {
        Operation *inner = blk->ops().front().get();
        parent->insert(pos, blk->remove(inner));
      }
    }
    if (yielded.size() != op->numResults())
      return false;
    replace(op, yielded);
    return true;
  }

  Operation *func_;
  std::unordered_map<Operation *, bool> erased_;
};

} // namespace

void canonicalize(Module &m) {
  for (Operation *func : m.funcs())
    Canonicalizer(func).run();
}

} // namespace tt
