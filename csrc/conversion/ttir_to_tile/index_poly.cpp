#include "conversion/ttir_to_tile/index_poly.h"

namespace tt {

bool Poly::isConst(int64_t &c) const {
  if (terms.empty()) {
    c = 0;
    return true;
  }
  if (terms.size() == 1 && terms.begin()->first.empty()) {
    c = terms.begin()->second;
    return true;
  }
  return false;
}

Poly polyConst(int64_t c) {
  Poly p;
  if (c != 0)
    p.terms[{}] = c;
  return p;
}

Poly polyAdd(const Poly &a, const Poly &b) {
  Poly r = a;
  for (const auto &t : b.terms) {
    int64_t &c = r.terms[t.first];
    c += t.second;
    if (c == 0)
      r.terms.erase(t.first);
  }
  return r;
}

Poly polyScale(const Poly &a, int64_t c) {
  Poly r;
  if (c != 0)
    for (const auto &t : a.terms)
      r.terms[t.first] = t.second * c;
  return r;
}

static bool byId(const Value *a, const Value *b) { return a->id < b->id; }

Poly polyMul(const Poly &a, const Poly &b) {
  Poly r;
  for (const auto &x : a.terms)
    for (const auto &y : b.terms) {
      std::vector<const Value *> m = x.first;
      m.insert(m.end(), y.first.begin(), y.first.end());
      std::sort(m.begin(), m.end(), byId);
      r = polyAdd(r, [&] {
        Poly t;
        t.terms[m] = x.second * y.second;
        return t;
      }());
    }
  return r;
}

Poly polyLeaf(const Value *v) {
  Poly p;
  p.terms[{v}] = 1;
  return p;
}

// A text that equal polynomials share. Built with std::to_string, not a stream: the core uses
// no iostreams on the compile path, so nothing another library in the process does to the
// stream machinery (locales, interposed libstdc++ symbols) can reach a conversion.
std::string polyKey(const Poly &p) {
  std::string s;
  for (const auto &t : p.terms) {
    s += std::to_string(t.second);
    for (const Value *v : t.first)
      s += "*v" + std::to_string(v->id);
    s += "+";
  }
  return s;
}

// Is `b` (a block) nested in op `f`'s regions?
bool nestedIn(const Block *b, const Operation *f) {
  const Operation *p = b ? b->parentOp() : nullptr;
  while (p) {
    if (p == f)
      return true;
    p = p->parentBlock() ? p->parentBlock()->parentOp() : nullptr;
  }
  return false;
}

bool allLeaves(const Poly &p, const std::function<bool(const Value *)> &ok) {
  for (const auto &t : p.terms)
    for (const Value *v : t.first)
      if (!ok(v))
        return false;
  return true;
}

namespace {

const Operation *loopOfIterArg(const Value *v) {
  if (v->def || !v->ownerBlock)
    return nullptr;
  const Operation *f = v->ownerBlock->parentOp();
  return f && f->is("scf.for") ? f : nullptr;
}

} // namespace

Poly PolyBuilder::of(const Value *v) {
  auto it = memo_.find(v);
  if (it != memo_.end())
    return it->second;
  Poly p = compute(v);
  memo_[v] = p;
  return p;
}

Poly PolyBuilder::of(const SExprPtr &e) {
  if (!e)
    return Poly{};
  switch (e->kind) {
  case SExpr::Kind::Const:
    return polyConst(e->c);
  case SExpr::Kind::Val:
    return of(e->v);
  case SExpr::Kind::Add:
    return polyAdd(of(e->a), of(e->b));
  case SExpr::Kind::Mul:
    return polyMul(of(e->a), of(e->b));
  }
  return Poly{};
}

Poly PolyBuilder::compute(const Value *v) {
  const Operation *d = v->def;
  if (!d)
    return carried(v);
  const std::string &n = d->name();
  if (n == "arith.constant" && d->attr("value").kind() == Attribute::Kind::Int)
    return polyConst(d->attr("value").getInt());
  if (n == "arith.addi")
    return polyAdd(of(d->operand(0)), of(d->operand(1)));
  if (n == "arith.subi")
    return polyAdd(of(d->operand(0)), polyScale(of(d->operand(1)), -1));
  if (n == "arith.muli")
    return polyMul(of(d->operand(0)), of(d->operand(1)));
  // Widening keeps the value; narrowing is taken as exact (raise_views' i64 rule).
  if (n == "arith.extsi" || n == "arith.trunci")
    return of(d->operand(0));
  return polyLeaf(v);
}

// x carried by scf.for with yield x + inc (inc invariant): x = init + (iv - lb) / step * inc.
Poly PolyBuilder::carried(const Value *x) {
  const Operation *f = loopOfIterArg(x);
  if (!f || x->index == 0 || std::count(open_.begin(), open_.end(), x))
    return polyLeaf(x);
  const Block &body = *f->region(0)->front();
  const Operation *yield = body.terminator();
  size_t i = x->index - 1;
  if (!yield || i >= yield->numOperands() || 3 + i >= f->numOperands())
    return polyLeaf(x);
  open_.push_back(x);
  Poly inc = polyAdd(of(yield->operand(i)), polyScale(polyLeaf(x), -1));
  open_.pop_back();
  memo_.erase(yield->operand(i)); // it was computed with x as a leaf
  int64_t step;
  if (!of(f->operand(2)).isConst(step) || step <= 0)
    return polyLeaf(x);
  Poly perIter;
  for (const auto &t : inc.terms) {
    for (const Value *l : t.first)
      if (l == x || nestedIn(blockOf(l), f))
        return polyLeaf(x);
    if (t.second % step != 0)
      return polyLeaf(x);
    perIter.terms[t.first] = t.second / step;
  }
  Poly trips = polyAdd(polyLeaf(body.arg(0)), polyScale(of(f->operand(0)), -1));
  return polyAdd(of(f->operand(3 + i)), polyMul(trips, perIter));
}

Poly polyOf(const SExprPtr &e) {
  PolyBuilder b;
  return b.of(e);
}

} // namespace tt
