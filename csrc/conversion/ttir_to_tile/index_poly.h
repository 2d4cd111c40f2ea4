// Polynomials over TTIR integer scalars: the algebra of the tile-index planner (index_views.h)
// and its prover (index_bounds.h).
//
// Rules. Integer arithmetic (addi, subi, muli, constants) is expanded; widening and narrowing
// keep the value (raise_views' i64 rule: the offsets of an access do not wrap); a scalar
// carried by an scf.for with `yield x + inc` (inc invariant, a multiple of a constant step) is
// replaced by its closed form init + (iv - lb) / step * inc, valid inside that loop; every other
// value is a leaf.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "conversion/ttir_to_tile/raise_views.h"
#include "ir/operation.h"

namespace tt {

// Monomials in the order of their values' ids (creation order), not their addresses: the
// terms of a polynomial, and so the Tile IR emitted from them, come out the same every run.
struct MonomialOrder {
  bool operator()(const std::vector<const Value *> &a, const std::vector<const Value *> &b) const {
    return std::lexicographical_compare(
        a.begin(), a.end(), b.begin(), b.end(),
        [](const Value *x, const Value *y) { return x->id < y->id; });
  }
};

// A polynomial over TTIR scalar values: coefficient per monomial (values sorted by id).
struct Poly {
  std::map<std::vector<const Value *>, int64_t, MonomialOrder> terms;
  bool isConst(int64_t &c) const;
};

Poly polyConst(int64_t c);
Poly polyLeaf(const Value *v);
Poly polyAdd(const Poly &a, const Poly &b);
Poly polyMul(const Poly &a, const Poly &b);
Poly polyScale(const Poly &a, int64_t c);
// A raise_views expression as a polynomial.
Poly polyOf(const SExprPtr &e);
// A text that equal polynomials share.
std::string polyKey(const Poly &p);
// Is block `b` nested in op `f`'s regions?
bool nestedIn(const Block *b, const Operation *f);
bool allLeaves(const Poly &p, const std::function<bool(const Value *)> &ok);

// Polynomials of TTIR values, memoized (see the rules above).
class PolyBuilder {
public:
  Poly of(const Value *v);
  Poly of(const SExprPtr &e);

private:
  std::unordered_map<const Value *, Poly> memo_;
  std::vector<const Value *> open_; // carried values whose closed form is being computed

  Poly compute(const Value *v);
  Poly carried(const Value *x);
};

} // namespace tt
