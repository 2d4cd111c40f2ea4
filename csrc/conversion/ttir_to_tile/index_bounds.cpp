#include "conversion/ttir_to_tile/index_bounds.h"

#include <cstdlib>
#include <numeric>

namespace tt {
namespace {

// cmpi predicates (ttir/ops.cpp).
constexpr int64_t kEq = 0, kSlt = 2, kSle = 3, kSgt = 4, kSge = 5;

// Proof search limits: steps of one nonNegative call, and the depth of nested proofs (a bound's
// side conditions inside a proof).
constexpr int kMaxSteps = 4000;
constexpr int kMaxDepth = 24;
// Coefficients stay far from int64's range: a product of two in-range ones cannot overflow.
constexpr int64_t kMaxCoef = int64_t(1) << 30;

const Value *newest(const Poly &p) {
  const Value *x = nullptr;
  for (const auto &t : p.terms)
    for (const Value *v : t.first)
      if (!x || v->id > x->id)
        x = v;
  return x;
}

bool olderThan(const Poly &p, const Value *x) {
  return allLeaves(p, [&](const Value *v) { return v->id < x->id; });
}

bool small(const Poly &p) {
  for (const auto &t : p.terms)
    if (std::llabs(t.second) > kMaxCoef)
      return false;
  return true;
}

// p = x * r + q, x in no term of q and at most once in each term; false when x appears squared.
bool splitOn(const Poly &p, const Value *x, Poly &r, Poly &q) {
  r = Poly{};
  q = Poly{};
  for (const auto &t : p.terms) {
    auto n = std::count(t.first.begin(), t.first.end(), x);
    if (n > 1)
      return false;
    if (n == 0) {
      q.terms[t.first] = t.second;
      continue;
    }
    std::vector<const Value *> rest = t.first;
    rest.erase(std::find(rest.begin(), rest.end(), x));
    r.terms[rest] = t.second;
  }
  return true;
}

// p divided by the gcd of its coefficients (the sign of p is kept).
Poly primitive(const Poly &p) {
  int64_t g = 0;
  for (const auto &t : p.terms)
    g = std::gcd(g, std::llabs(t.second));
  if (g <= 1)
    return p;
  Poly r;
  for (const auto &t : p.terms)
    r.terms[t.first] = t.second / g;
  return r;
}

} // namespace

BoundProver::BoundProver(PolyBuilder &polys, const Operation &loop, bool inBody) : polys_(polys) {
  addRegionFacts(loop, inBody);
  addFourierMotzkin();
}

void BoundProver::addConditionFacts(const Value *cond, const Rename &rename,
                                    const Operation *scope) {
  const Operation *d = cond->def;
  if (!d)
    return;
  if (d->is("arith.andi")) {
    addConditionFacts(d->operand(0), rename, scope);
    addConditionFacts(d->operand(1), rename, scope);
    return;
  }
  // (booleans compared as integers are not sizes: an i1's constant true may read as -1)
  if (!d->is("arith.cmpi") || !d->operand(0)->type.isInt() || d->operand(0)->type.intWidth() < 8)
    return;
  // Renames a while's before-region arguments; a fact on another value of that region (`scope`)
  // does not hold after it.
  bool ok = true;
  auto term = [&](const Value *v) {
    Poly p = polys_.of(v), r;
    for (const auto &t : p.terms) {
      std::vector<const Value *> m;
      for (const Value *l : t.first) {
        auto it = rename.find(l);
        if (it == rename.end() && scope && nestedIn(blockOf(l), scope))
          ok = false;
        m.push_back(it == rename.end() ? l : it->second);
      }
      std::sort(m.begin(), m.end(), [](const Value *a, const Value *b) { return a->id < b->id; });
      r = polyAdd(r, [&] {
        Poly one;
        one.terms[m] = t.second;
        return one;
      }());
    }
    return r;
  };
  Poly a = term(d->operand(0)), b = term(d->operand(1));
  if (!ok)
    return;
  Poly ab = polyAdd(b, polyScale(a, -1)); // b - a
  switch (d->intAttr("predicate")) {
  case kEq:
    facts_.push_back(ab);
    facts_.push_back(polyScale(ab, -1));
    break;
  case kSlt: // a < b
    facts_.push_back(polyAdd(ab, polyConst(-1)));
    break;
  case kSle:
    facts_.push_back(ab);
    break;
  case kSgt:
    facts_.push_back(polyAdd(polyScale(ab, -1), polyConst(-1)));
    break;
  case kSge:
    facts_.push_back(polyScale(ab, -1));
    break;
  default:
    break;
  }
}

void BoundProver::addRegionFacts(const Operation &loop, bool inBody) {
  auto forFacts = [&](const Operation &f) {
    const Value *iv = f.region(0)->front()->arg(0);
    facts_.push_back(polyAdd(polyLeaf(iv), polyScale(polys_.of(f.operand(0)), -1)));
    facts_.push_back(
        polyAdd(polyAdd(polys_.of(f.operand(1)), polyConst(-1)), polyScale(polyLeaf(iv), -1)));
  };
  auto whileFacts = [&](const Operation &w) {
    const Block &before = *w.region(0)->front(), &after = *w.region(1)->front();
    const Operation *cond = before.terminator();
    if (!cond || !cond->is("scf.condition"))
      return;
    Rename rename;
    for (size_t i = 0; i < before.numArgs(); ++i)
      for (size_t j = 1; j < cond->numOperands() && j - 1 < after.numArgs(); ++j)
        if (cond->operand(j) == before.arg(i))
          rename[before.arg(i)] = after.arg(j - 1);
    addConditionFacts(cond->operand(0), rename, &w);
  };
  if (inBody) {
    if (loop.is("scf.for"))
      forFacts(loop);
    else if (loop.is("scf.while"))
      whileFacts(loop);
  } else if (loop.is("scf.for")) { // lb + 1 <= ub
    facts_.push_back(polyAdd(polyAdd(polys_.of(loop.operand(1)), polyConst(-1)),
                             polyScale(polys_.of(loop.operand(0)), -1)));
  }
  const Operation *child = &loop;
  for (const Operation *p = loop.parentOp(); p; child = p, p = p->parentOp()) {
    const Block *blk = child->parentBlock();
    for (const auto &op : blk->ops()) {
      if (op.get() == child)
        break;
      if (op->is("llvm.intr.assume")) // tl.assume(cond)
        addConditionFacts(op->operand(0), {}, nullptr);
      if (op->is("tt.make_tensor_descriptor")) { // base, shape..., strides...
        size_t rank = (op->numOperands() - 1) / 2;
        for (size_t i = 0; i < rank; ++i)
          facts_.push_back(polys_.of(op->operand(1 + i)));
      }
    }
    if (p->is("scf.for"))
      forFacts(*p);
    else if (p->is("scf.while") && blk->parent() == p->region(1))
      whileFacts(*p);
    else if (p->is("scf.if") && blk->parent() == p->region(0))
      addConditionFacts(p->operand(0), {}, nullptr);
  }
}

// A fact f >= 0 as a bound of x: x once, linearly, with a constant coefficient, every other
// value older than x.
static bool factBound(const Poly &f, const Value *x, bool &lower, int64_t &c, Poly &b) {
  Poly r, q;
  int64_t a;
  if (!splitOn(f, x, r, q) || !r.isConst(a) || a == 0 || !olderThan(q, x))
    return false;
  lower = a > 0; // a x + q >= 0
  c = std::llabs(a);
  b = lower ? polyScale(q, -1) : q;
  return true;
}

void BoundProver::addFourierMotzkin() {
  std::vector<Poly> derived;
  for (size_t i = 0; i < facts_.size(); ++i) {
    const Value *x = newest(facts_[i]);
    bool lo1, lo2;
    int64_t c1, c2;
    Poly b1, b2;
    if (!x || !factBound(facts_[i], x, lo1, c1, b1))
      continue;
    for (size_t j = 0; j < facts_.size(); ++j) {
      if (!factBound(facts_[j], x, lo2, c2, b2) || !lo1 || lo2)
        continue;
      // c1 x >= b1 and c2 x <= b2: c2 b1 <= c1 c2 x <= c1 b2.
      Poly f = polyAdd(polyScale(b2, c1), polyScale(b1, -c2));
      int64_t k;
      if (!f.isConst(k) && small(f))
        derived.push_back(primitive(f));
    }
  }
  facts_.insert(facts_.end(), derived.begin(), derived.end());
}

const BoundProver::Bounds &BoundProver::boundsOf(const Value *x) {
  static const Bounds kNone;
  auto it = bounds_.find(x);
  if (it != bounds_.end() && it->second.ready)
    return it->second;
  if (std::count(open_.begin(), open_.end(), x))
    return kNone;
  open_.push_back(x);
  int saved = steps_;
  steps_ = 0;
  Bounds b;
  for (const Poly &f : facts_) {
    bool lower;
    int64_t c;
    Poly bound;
    if (factBound(f, x, lower, c, bound))
      (lower ? b.lower : b.upper).push_back({c, bound});
  }
  definitionBounds(x, b);
  b.ready = true;
  bounds_[x] = b;
  productBounds(x, b);
  bounds_[x] = b;
  steps_ = saved;
  open_.pop_back();
  return bounds_[x];
}

void BoundProver::definitionBounds(const Value *x, Bounds &b) {
  const Operation *d = x->def;
  if (!d)
    return;
  if (d->is("tt.get_program_id")) {
    b.lower.push_back({1, polyConst(0)});
    return;
  }
  if (d->is("tt.get_num_programs")) {
    b.lower.push_back({1, polyConst(1)});
    return;
  }
  if (d->is("arith.minsi") || d->is("arith.maxsi")) {
    for (size_t i = 0; i < 2; ++i)
      (d->is("arith.minsi") ? b.upper : b.lower).push_back({1, polys_.of(d->operand(i))});
    return;
  }
  bool div = d->is("arith.divsi"), rem = d->is("arith.remsi");
  if (!div && !rem)
    return;
  Poly n = polys_.of(d->operand(0)), den = polys_.of(d->operand(1));
  if (!prove(n, 1))
    return; // truncation toward zero: the bounds below need n >= 0
  int64_t k;
  bool constDen = den.isConst(k) && k != 0;
  bool posDen = constDen ? k > 0 : prove(polyAdd(den, polyConst(-1)), 1);
  if (rem) {
    b.lower.push_back({1, polyConst(0)});
    b.upper.push_back({1, n});
    if (constDen)
      b.upper.push_back({1, polyConst(std::llabs(k) - 1)});
    else if (posDen)
      b.upper.push_back({1, polyAdd(den, polyConst(-1))});
    return;
  }
  if (!posDen)
    return;
  b.lower.push_back({1, polyConst(0)});
  if (constDen) { // k q <= n <= k q + k - 1
    b.upper.push_back({k, n});
    b.lower.push_back({k, polyAdd(n, polyConst(1 - k))});
    return;
  }
  b.upper.push_back({1, n});
  Poly q;
  if (den.terms.size() == 1 && den.terms.begin()->second == 1 &&
      den.terms.begin()->first.size() == 1 && upperByDivision(n, den.terms.begin()->first[0], q))
    b.upper.push_back({1, q});
}

// With n <= d A + B (d >= 1, n >= 0): n divsi d <= A - 1 when B <= -1, A + B when B >= 0. The
// upper bound of n comes from replacing its values newer than d by their bounds.
bool BoundProver::upperByDivision(const Poly &n, const Value *d, Poly &q) {
  Poly u = n;
  for (;;) {
    Poly quot, rem;
    if (splitOn(u, d, quot, rem) && !quot.terms.empty()) {
      if (prove(polyAdd(polyScale(rem, -1), polyConst(-1)), 1)) {
        q = polyAdd(quot, polyConst(-1));
        return true;
      }
      if (prove(rem, 1)) {
        q = polyAdd(quot, rem);
        return true;
      }
    }
    const Value *x = newest(u);
    Poly r, rest;
    int64_t a;
    if (!x || x->id <= d->id || !splitOn(u, x, r, rest) || !r.isConst(a))
      return false;
    const Bounds &bx = boundsOf(x);
    bool found = false;
    for (const Bound &bd : a > 0 ? bx.upper : bx.lower) // a x <= (a / c) b
      if (a % bd.c == 0) {
        u = polyAdd(rest, polyScale(bd.b, a / bd.c));
        found = true;
        break;
      }
    if (!found || !small(u))
      return false;
  }
}

void BoundProver::productBounds(const Value *x, Bounds &b) {
  // a M + k >= 0 with a > 0 > k: the product M is >= 1, so each of its factors, all >= 0, is.
  for (const Poly &f : facts_) {
    if (f.terms.size() != 2)
      continue;
    const auto &m = std::prev(f.terms.end())->first; // the constant term sorts first
    int64_t k;
    Poly kp;
    kp.terms.insert(*f.terms.begin());
    if (m.size() < 2 || !kp.isConst(k) || k >= 0 || std::prev(f.terms.end())->second <= 0 ||
        !std::count(m.begin(), m.end(), x))
      continue;
    if (std::all_of(m.begin(), m.end(), [&](const Value *v) { return leafNonNegative(v, 1); })) {
      b.lower.push_back({1, polyConst(1)});
      return;
    }
  }
}

bool BoundProver::leafNonNegative(const Value *v, int depth) {
  const Bounds &b = boundsOf(v);
  for (const Bound &bd : b.lower)
    if (prove(bd.b, depth + 1))
      return true;
  return false;
}

bool BoundProver::nonNegative(const Poly &p) {
  steps_ = 0;
  return prove(p, 0);
}

bool BoundProver::prove(const Poly &p, int depth) {
  if (++steps_ > kMaxSteps || depth > kMaxDepth || !small(p))
    return false;
  int64_t k;
  if (p.isConst(k))
    return k >= 0;
  // A sum of non-negative terms.
  if (std::all_of(p.terms.begin(), p.terms.end(), [&](const auto &t) {
        return t.second > 0 && std::all_of(t.first.begin(), t.first.end(), [&](const Value *v) {
                 return leafNonNegative(v, depth + 1);
               });
      }))
    return true;
  // Replace the newest value x: p = x r + q with r of one sign.
  const Value *x = newest(p);
  Poly r, q;
  if (!splitOn(p, x, r, q))
    return false;
  int sign = 0;
  for (const auto &t : r.terms) {
    int s = t.second > 0 ? 1 : -1;
    if (sign && s != sign)
      return false;
    sign = s;
    for (const Value *v : t.first)
      if (!leafNonNegative(v, depth + 1))
        return false;
  }
  const Bounds &b = boundsOf(x);
  // c x >= B with r >= 0 (or c x <= B with r <= 0): c p = c q + (c x) r >= c q + B r.
  for (const Bound &bd : sign > 0 ? b.lower : b.upper) {
    Poly next = polyAdd(polyScale(q, bd.c), polyMul(bd.b, r));
    if (small(next) && prove(primitive(next), depth + 1))
      return true;
  }
  return false;
}

} // namespace tt
