#include "conversion/ttir_to_tile/raise_views.h"

namespace tt {

SExprPtr sConst(int64_t c) {
  auto e = std::make_shared<SExpr>();
  e->kind = SExpr::Kind::Const;
  e->c = c;
  return e;
}

SExprPtr sVal(const Value *v) {
  auto e = std::make_shared<SExpr>();
  e->kind = SExpr::Kind::Val;
  e->v = v;
  return e;
}

bool sIsConst(const SExprPtr &e, int64_t &out) {
  if (e && e->kind == SExpr::Kind::Const) {
    out = e->c;
    return true;
  }
  return false;
}

SExprPtr scalarExpr(const Value *v) {
  const Operation *d = v->def;
  if (d && d->is("arith.constant") && d->attr("value").kind() == Attribute::Kind::Int)
    return sConst(d->attr("value").getInt());
  return sVal(v);
}

SExprPtr sAdd(SExprPtr a, SExprPtr b) {
  int64_t x, y;
  if (!a)
    return b;
  if (!b)
    return a;
  if (sIsConst(a, x) && sIsConst(b, y))
    return sConst(x + y);
  if (sIsConst(a, x) && x == 0)
    return b;
  if (sIsConst(b, y) && y == 0)
    return a;
  auto e = std::make_shared<SExpr>();
  e->kind = SExpr::Kind::Add;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}

SExprPtr sMul(SExprPtr a, SExprPtr b) {
  int64_t x, y;
  if (!a || !b)
    return nullptr; // 0 * anything
  if (sIsConst(a, x) && sIsConst(b, y))
    return sConst(x * y);
  if ((sIsConst(a, x) && x == 0) || (sIsConst(b, y) && y == 0))
    return nullptr;
  if (sIsConst(a, x) && x == 1)
    return b;
  if (sIsConst(b, y) && y == 1)
    return a;
  auto e = std::make_shared<SExpr>();
  e->kind = SExpr::Kind::Mul;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}

namespace {

// x = scalar + sum_d arange_d * coef[d]; a null SExpr means 0.
struct Affine {
  SExprPtr scalar;
  std::vector<SExprPtr> coef;
};

using Conditions = std::vector<std::pair<SExprPtr, SExprPtr>>;

bool isScalarInt(const Value *v) { return v->type.isInt() && !v->type.isTensor(); }

Affine scale(const Affine &x, const SExprPtr &s) {
  Affine r;
  r.scalar = sMul(x.scalar, s);
  for (const auto &c : x.coef)
    r.coef.push_back(sMul(c, s));
  return r;
}

Affine sum(const Affine &x, const Affine &y) {
  Affine r;
  r.scalar = sAdd(x.scalar, y.scalar);
  r.coef.resize(std::max(x.coef.size(), y.coef.size()));
  for (size_t d = 0; d < r.coef.size(); ++d)
    r.coef[d] =
        sAdd(d < x.coef.size() ? x.coef[d] : nullptr, d < y.coef.size() ? y.coef[d] : nullptr);
  return r;
}

bool onlyScalar(const Affine &x) {
  for (const auto &c : x.coef)
    if (c)
      return false;
  return true;
}

// Conditions collected while decomposing the current access (planView is not reentrant).
thread_local Conditions *gConditions = nullptr;

// Decomposes an integer (tensor or scalar) value; `why` says what stopped it.
bool decompose(const Value *v, Affine &out, std::string &why, int depth = 0) {
  if (depth > 64) {
    why = "index expression too deep";
    return false;
  }
  size_t rank = v->type.shape().size();
  out = Affine{};
  out.coef.assign(rank, nullptr);
  if (isScalarInt(v)) {
    int64_t c;
    if (v->def && v->def->is("arith.constant") &&
        v->def->attr("value").kind() == Attribute::Kind::Int) {
      c = v->def->attr("value").getInt();
      out.scalar = sConst(c);
    } else {
      out.scalar = sVal(v);
    }
    return true;
  }
  const Operation *op = v->def;
  if (!op) {
    why = "index is a loop-carried tensor";
    return false;
  }
  const std::string &n = op->name();
  if (n == "tt.make_range") {
    out.scalar = sConst(op->intAttr("start"));
    out.coef[0] = sConst(1);
    return true;
  }
  if (n == "arith.constant") {
    Attribute a = op->attr("value");
    if (a.kind() == Attribute::Kind::Dense && !a.denseIsFloat()) {
      out.scalar = sConst(a.getInt());
      return true;
    }
  }
  if (n == "tt.splat")
    return decompose(op->operand(0), out, why, depth + 1) && (out.coef.assign(rank, nullptr), true);
  if (n == "arith.extsi" || n == "arith.extui" || n == "arith.trunci") {
    if (!decompose(op->operand(0), out, why, depth + 1))
      return false;
    return true;
  }
  if (n == "tt.broadcast" || n == "tt.expand_dims") {
    Affine in;
    if (!decompose(op->operand(0), in, why, depth + 1))
      return false;
    out.scalar = in.scalar;
    const auto &inShape = op->operand(0)->type.shape();
    if (n == "tt.broadcast") {
      for (size_t d = 0; d < rank; ++d)
        out.coef[d] = inShape[d] == 1 ? nullptr : in.coef[d];
    } else {
      size_t axis = static_cast<size_t>(op->intAttr("axis"));
      for (size_t d = 0, k = 0; d < rank; ++d)
        out.coef[d] = d == axis ? nullptr : in.coef[k++];
    }
    return true;
  }
  if (n == "arith.addi" || n == "arith.subi" || n == "arith.muli") {
    Affine a, b;
    if (!decompose(op->operand(0), a, why, depth + 1) ||
        !decompose(op->operand(1), b, why, depth + 1))
      return false;
    if (n == "arith.addi") {
      out = sum(a, b);
    } else if (n == "arith.subi") {
      out = sum(a, scale(b, sConst(-1)));
    } else if (onlyScalar(b)) {
      out = scale(a, b.scalar);
    } else if (onlyScalar(a)) {
      out = scale(b, a.scalar);
    } else {
      why = "index multiplies two varying tensors";
      return false;
    }
    out.coef.resize(rank);
    return true;
  }
  if (n == "arith.remsi" && gConditions) {
    Affine a, m;
    if (!decompose(op->operand(0), a, why, depth + 1) ||
        !decompose(op->operand(1), m, why, depth + 1))
      return false;
    int dim = -1;
    for (size_t d = 0; d < a.coef.size(); ++d) {
      int64_t one;
      if (!a.coef[d])
        continue;
      if (dim >= 0 || !sIsConst(a.coef[d], one) || one != 1)
        dim = -2;
      else
        dim = static_cast<int>(d);
    }
    if (dim < 0 || !onlyScalar(m)) {
      why = "index `%` is not `(offset + arange) % scalar`";
      return false;
    }
    SExprPtr c = a.scalar ? a.scalar : sConst(0);
    gConditions->emplace_back(sConst(0), c);
    gConditions->emplace_back(sAdd(c, sConst(v->type.shape()[dim])), m.scalar);
    out = a;
    return true;
  }
  why = "index depends on '" + n + "'";
  return false;
}

struct PtrAffine {
  const Value *base = nullptr;
  Affine index;
};

bool decomposePointer(const Value *v, PtrAffine &out, std::string &why, int depth = 0) {
  size_t rank = v->type.shape().size();
  const Operation *op = v->def;
  if (!op) {
    why = "pointer is a loop-carried tensor";
    return false;
  }
  if (op->is("tt.splat")) {
    out.base = op->operand(0);
    out.index = Affine{};
    out.index.coef.assign(rank, nullptr);
    return true;
  }
  if (op->is("tt.addptr")) {
    Affine off;
    if (!decomposePointer(op->operand(0), out, why, depth + 1) ||
        !decompose(op->operand(1), off, why))
      return false;
    out.index = sum(out.index, off);
    out.index.coef.resize(rank);
    return true;
  }
  if (op->is("tt.broadcast") || op->is("tt.expand_dims")) {
    PtrAffine in;
    if (!decomposePointer(op->operand(0), in, why, depth + 1))
      return false;
    out.base = in.base;
    out.index.scalar = in.index.scalar;
    out.index.coef.assign(rank, nullptr);
    const auto &inShape = op->operand(0)->type.shape();
    if (op->is("tt.broadcast")) {
      for (size_t d = 0; d < rank; ++d)
        out.index.coef[d] = inShape[d] == 1 ? nullptr : in.index.coef[d];
    } else {
      size_t axis = static_cast<size_t>(op->intAttr("axis"));
      for (size_t d = 0, k = 0; d < rank; ++d)
        out.index.coef[d] = d == axis ? nullptr : in.index.coef[k++];
    }
    return true;
  }
  why = "pointer comes from '" + op->name() + "'";
  return false;
}

struct Test {
  SExprPtr c, bound;
};

// The one dimension d of an index `c + arange_d` (coefficient 1), or -1 with `why` set.
int arangeDim(const Affine &a, std::string &why) {
  int dim = -1;
  for (size_t d = 0; d < a.coef.size(); ++d) {
    if (!a.coef[d])
      continue;
    int64_t one;
    if (dim >= 0 || !sIsConst(a.coef[d], one) || one != 1) {
      why = "mask index is not `offset + arange`";
      return -1;
    }
    dim = static_cast<int>(d);
  }
  if (dim < 0)
    why = "mask does not depend on the tile index";
  return dim;
}

// Collects bounds tests `c + arange_d < bound` (or `<=`, the index on either side) from a
// conjunction, per dimension. With `lowerBounds` (atomics), a test `c + arange_d >= lo` (or `>`)
// holds for every lane exactly when lo <= c: that becomes one of the plan's conditions (the
// pointer form runs when it fails), as a tensor descriptor's atomics test their lanes against 0.
// A load's or store's lower bound stays a gather: on an H100 (2026-11-27) the 5-point stencil
// (examples/stencil.py, fp32 8192^2) ran 401 GB/s with a view and a gather behind each tap's
// condition, 2072 with the views alone (unsafe), and 2618 with the gathers, which tileiras
// vectorizes where contiguous.
bool decomposeMask(const Value *m, std::vector<std::optional<Test>> &tests, std::string &why,
                   bool lowerBounds, int depth = 0) {
  size_t rank = m->type.shape().size();
  const Operation *op = m->def;
  if (!op) {
    why = "mask is a loop-carried tensor";
    return false;
  }
  if (op->is("arith.andi")) {
    return decomposeMask(op->operand(0), tests, why, lowerBounds, depth + 1) &&
           decomposeMask(op->operand(1), tests, why, lowerBounds, depth + 1);
  }
  if (op->is("tt.broadcast") || op->is("tt.expand_dims")) {
    std::vector<std::optional<Test>> inner(op->operand(0)->type.shape().size());
    if (!decomposeMask(op->operand(0), inner, why, lowerBounds, depth + 1))
      return false;
    size_t axis = op->is("tt.expand_dims") ? static_cast<size_t>(op->intAttr("axis")) : rank;
    for (size_t d = 0, k = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      size_t src = k++;
      std::optional<Test> t = inner[src];
      if (!t)
        continue;
      if (op->is("tt.broadcast") && op->operand(0)->type.shape()[src] == 1 &&
          m->type.shape()[d] > 1) {
        why = "a size-1 bounds test is broadcast";
        return false;
      }
      if (tests[d]) {
        why = "two bounds tests on one dimension";
        return false;
      }
      tests[d] = t;
    }
    return true;
  }
  if (op->is("arith.cmpi")) {
    // Signed order tests, the index on either side (arith.cmpi's slt 2, sle 3, sgt 4, sge 5).
    int64_t pred = op->intAttr("predicate");
    if (pred < 2 || pred > 5) {
      why = "mask is not a signed order test";
      return false;
    }
    Affine idx, bound;
    if (!decompose(op->operand(0), idx, why) || !decompose(op->operand(1), bound, why))
      return false;
    if (onlyScalar(idx)) { // `s < idx` is `idx > s`
      std::swap(idx, bound);
      pred = pred <= 3 ? pred + 2 : pred - 2;
    }
    if (!onlyScalar(bound)) {
      why = "mask bound varies across the tile";
      return false;
    }
    int dim = arangeDim(idx, why);
    if (dim < 0)
      return false;
    SExprPtr c = idx.scalar ? idx.scalar : sConst(0);
    SExprPtr s = bound.scalar ? bound.scalar : sConst(0);
    if (pred >= 4) { // c + arange > s (>= s): every lane is kept exactly when s + 1 (s) <= c
      if (!lowerBounds) {
        why = "a lower bound on a load or store (a gather: faster than a view behind a branch)";
        return false;
      }
      gConditions->emplace_back(pred == 4 ? sAdd(s, sConst(1)) : s, c);
      return true;
    }
    if (tests[dim]) {
      why = "two bounds tests on one dimension";
      return false;
    }
    tests[dim] = Test{c, pred == 3 ? sAdd(s, sConst(1)) : s}; // c + arange <= s: < s + 1
    return true;
  }
  why = "mask comes from '" + op->name() + "'";
  return false;
}

} // namespace

std::optional<ViewPlan> planView(const Operation &access, std::string &why) {
  const Value *ptr = access.operand(0);
  const Value *mask = nullptr;
  if (access.is("tt.load") && access.numOperands() > 1)
    mask = access.operand(1);
  if ((access.is("tt.store") || access.is("tt.atomic_rmw")) && access.numOperands() > 2)
    mask = access.operand(2);
  if (!ptr->type.isTensor()) {
    why = "scalar access";
    return std::nullopt;
  }
  ViewPlan plan;
  gConditions = &plan.conditions;
  struct Reset {
    ~Reset() { gConditions = nullptr; }
  } reset;
  PtrAffine pa;
  if (!decomposePointer(ptr, pa, why))
    return std::nullopt;
  plan.base = pa.base;
  plan.offset = pa.index.scalar ? pa.index.scalar : sConst(0);
  plan.tile = ptr->type.shape();
  size_t rank = plan.tile.size();
  for (size_t d = 0; d < rank; ++d) {
    SExprPtr s = pa.index.coef[d];
    if (!s && plan.tile[d] > 1) {
      why = "dimension " + std::to_string(d) + " has stride 0 (a broadcast): gather";
      return std::nullopt;
    }
    plan.strides.push_back(s ? s : sConst(1));
  }
  plan.extents.assign(rank, nullptr);
  if (mask) {
    std::vector<std::optional<Test>> tests(rank);
    if (!decomposeMask(mask, tests, why, access.is("tt.atomic_rmw")))
      return std::nullopt;
    for (size_t d = 0; d < rank; ++d)
      if (tests[d])
        plan.extents[d] =
            sAdd(tests[d]->bound, sMul(tests[d]->c ? tests[d]->c : sConst(0), sConst(-1)));
  }
  return plan;
}

} // namespace tt
