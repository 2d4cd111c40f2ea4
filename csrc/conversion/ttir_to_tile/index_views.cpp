#include "conversion/ttir_to_tile/index_views.h"

#include "conversion/ttir_to_tile/index_bounds.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <unordered_map>

namespace tt {

bool strideIsNarrowed(const Poly &s) {
  int64_t c;
  if (s.isConst(c))
    return false;
  if (s.terms.size() == 1 && s.terms.begin()->second == 1 && s.terms.begin()->first.size() == 1) {
    Type t = s.terms.begin()->first[0]->type;
    return !(t.isInt() && t.intWidth() <= 32);
  }
  return true;
}

namespace {

int64_t pow2Part(int64_t c) {
  if (c == 0)
    return int64_t(1) << 40;
  c = c < 0 ? -c : c;
  return c & -c;
}

class Planner {
public:
  Planner(const Operation &loop, const IndexContext &ctx) : loop_(loop), ctx_(ctx) {}

  PolyBuilder polys;

  bool topLevel(const Poly &p) const {
    return allLeaves(p, [&](const Value *v) { return blockOf(v) == ctx_.top; });
  }

  // Builds the conditions of `plan` and decides where they are checked; false when the plan
  // can never hold. A view made inside the kernel takes the coordinates of the `foldable`
  // dimensions (unmasked, invariant in the loop) into its base (index_views.h).
  bool finish(IndexPlan &plan, std::vector<IndexCond> conds, std::string &why,
              const std::vector<bool> &foldable = {}) {
    auto parts = [&]() {
      std::vector<Poly> ps = {polyLeaf(plan.base), plan.baseOffset};
      ps.insert(ps.end(), plan.strides.begin(), plan.strides.end());
      ps.insert(ps.end(), plan.extents.begin(), plan.extents.end());
      return ps;
    };
    std::vector<Poly> ps = parts();
    if (ctx_.anchorInner &&
        !std::all_of(ps.begin(), ps.end(), [&](const Poly &p) { return topLevel(p); })) {
      // (the folded coordinates' values are the unfolded extents', so the anchor stays)
      fold(plan, foldable);
      ps = parts();
    }
    if (!placeView(ps, plan.anchor, why))
      return false;
    for (size_t d = 0; d < plan.tile.size(); ++d) {
      const Poly &o = plan.coords[d];
      conds.push_back({polyConst(0), o, 0});
      conds.push_back({polyAdd(o, polyConst(1)), plan.extents[d], 0});
      conds.push_back({o, Poly{}, plan.tile[d]});
      if (strideIsNarrowed(plan.strides[d])) {
        conds.push_back({polyConst(0), plan.strides[d], 0});
        conds.push_back({plan.strides[d], polyConst(INT32_MAX), 0});
      }
    }
    std::vector<IndexCond> hoisted;
    bool canHoist = true;
    for (const IndexCond &c : conds)
      if (!hoist(c, hoisted)) {
        canHoist = false;
        break;
      }
    plan.hoisted = canHoist;
    // Hoisted conditions are checked before the loop, which they guard only when it runs.
    BoundProver prover(polys, loop_, !canHoist);
    for (const IndexCond &c : canHoist ? hoisted : conds) {
      int verdict = decide(c, prover);
      if (verdict < 0) {
        why = "the tile is never inside the view";
        return false;
      }
      if (verdict == 0)
        plan.conds.push_back(c);
    }
    std::string key = "v" + std::to_string(plan.base->id) + "+" + polyKey(plan.baseOffset);
    for (size_t d = 0; d < plan.tile.size(); ++d)
      key += "|" + std::to_string(plan.tile[d]) + ":" + polyKey(plan.strides[d]) + ":" +
             polyKey(plan.extents[d]);
    plan.key = std::move(key);
    return true;
  }

private:
  const Operation &loop_;
  const IndexContext &ctx_;

  // Moves the coordinates of the foldable dimensions into the base (index_views.h); a folded
  // dimension of size 1 (a row offset's) has nothing left to index and is dropped, with its
  // stride (which then needs no narrowing condition).
  static void fold(IndexPlan &plan, const std::vector<bool> &foldable) {
    for (size_t d = foldable.size(); d-- > 0;) {
      if (!foldable[d])
        continue;
      plan.baseOffset = polyAdd(plan.baseOffset, polyMul(plan.coords[d], plan.strides[d]));
      plan.coords[d] = Poly{};
      plan.extents[d] = polyConst(plan.tile[d]);
      if (plan.tile[d] == 1 && plan.tile.size() > 1) {
        plan.tile.erase(plan.tile.begin() + d);
        plan.strides.erase(plan.strides.begin() + d);
        plan.coords.erase(plan.coords.begin() + d);
        plan.extents.erase(plan.extents.begin() + d);
      }
    }
  }

  const Value *iv() const { return loop_.region(0)->front()->arg(0); }

  // Values the view may use where it is made: top-level ones, or with anchorInner any defined
  // outside the loop.
  bool available(const Poly &p) const {
    return ctx_.anchorInner ? allLeaves(p, [&](const Value *v) { return invariant(v); })
                            : topLevel(p);
  }

  static int depth(const Block *b) {
    int d = 0;
    for (const Operation *p = b ? b->parentOp() : nullptr; p;
         p = p->parentBlock() ? p->parentBlock()->parentOp() : nullptr)
      ++d;
    return d;
  }

  // Where the view over `parts` (base, strides, extents) is made: null for the top level, else
  // the loop's ancestor (the loop included) in the innermost block defining one of them.
  bool placeView(const std::vector<Poly> &parts, const Operation *&anchor, std::string &why) {
    anchor = nullptr;
    if (std::all_of(parts.begin(), parts.end(), [&](const Poly &p) { return topLevel(p); }))
      return true;
    if (!ctx_.anchorInner) {
      why = "the tensor's base, strides or extents vary inside the kernel";
      return false;
    }
    const Block *inner = ctx_.top;
    for (const Poly &p : parts)
      if (!allLeaves(p, [&](const Value *v) {
            if (!invariant(v))
              return false;
            if (depth(blockOf(v)) > depth(inner))
              inner = blockOf(v);
            return true;
          })) {
        why = "the tensor's base, strides or extents vary inside the loop";
        return false;
      }
    for (const Operation *a = &loop_; a; a = a->parentOp())
      if (a->parentBlock() == inner) {
        anchor = a;
        return true;
      }
    why = "no block around the loop defines the tensor's base, strides and extents";
    return false;
  }

public:
  // An extent that every coordinate `o` the loop reaches stays below, less B: o + B when o is
  // invariant in the loop (`invariant` set: the coordinate may be folded into the base), a *
  // (ub - 1) + r + B when o = a * iv + r (a > 0).
  bool reachExtent(const Poly &o, int64_t b, Poly &e, bool &invariant) {
    invariant = available(o);
    if (invariant) {
      e = polyAdd(o, polyConst(b));
      return true;
    }
    int64_t a;
    Poly r;
    if (!splitIv(o, a, r) || a <= 0 || !available(r))
      return false;
    Poly ub = polys.of(loop_.operand(1));
    if (!available(ub))
      return false;
    e = polyAdd(polyAdd(polyScale(ub, a), r), polyConst(b - a));
    return true;
  }

private:
  bool invariant(const Value *v) const { return !nestedIn(blockOf(v), &loop_); }

  // A while loop has no induction variable: its accesses' conditions are checked where they
  // are, and a coordinate that varies in it has no known reach.
  bool isFor() const { return loop_.is("scf.for"); }

  // q = a * iv + r with a constant and r invariant in the loop.
  bool splitIv(const Poly &q, int64_t &a, Poly &r) const {
    if (!isFor())
      return false;
    a = 0;
    r = Poly{};
    for (const auto &t : q.terms) {
      size_t ivs = std::count(t.first.begin(), t.first.end(), iv());
      if (ivs == 1 && t.first.size() == 1) {
        a += t.second;
        continue;
      }
      if (ivs > 0)
        return false;
      for (const Value *v : t.first)
        if (!invariant(v))
          return false;
      r.terms[t.first] = t.second;
    }
    return true;
  }

  // Rewrites `c` (at the access) into conditions checked before the loop that imply it for
  // every iteration.
  bool hoist(const IndexCond &c, std::vector<IndexCond> &out) {
    if (!isFor())
      return false;
    const Operation &f = loop_;
    Poly lb = polys.of(f.operand(0));
    Poly ub = polys.of(f.operand(1));
    Poly step = polys.of(f.operand(2));
    int64_t a;
    Poly r;
    if (c.div) {
      if (!splitIv(c.lhs, a, r))
        return false;
      // iv = lb + k * step: a * step must be a multiple too, and so must a * lb + r.
      out.push_back({polyScale(step, a), Poly{}, c.div});
      out.push_back({polyAdd(polyScale(lb, a), r), Poly{}, c.div});
      return true;
    }
    // rhs - lhs = a * iv + r >= 0 over lb <= iv <= ub - 1.
    if (!splitIv(polyAdd(c.rhs, polyScale(c.lhs, -1)), a, r))
      return false;
    Poly at = a >= 0 ? lb : polyAdd(ub, polyConst(-1));
    out.push_back({polyConst(0), polyAdd(polyScale(at, a), r), 0});
    return true;
  }

  // 1: always true, -1: never, 0: unknown until run time.
  int decide(const IndexCond &c, BoundProver &prover) {
    if (c.div) {
      int64_t worst = int64_t(1) << 40;
      for (const auto &t : c.lhs.terms) {
        int64_t d = pow2Part(t.second);
        for (const Value *v : t.first)
          d *= divisibility(v);
        worst = std::min(worst, d);
      }
      return worst % c.div == 0 ? 1 : 0;
    }
    Poly diff = polyAdd(c.rhs, polyScale(c.lhs, -1));
    int64_t k;
    if (diff.isConst(k))
      return k >= 0 ? 1 : -1;
    return prover.nonNegative(diff) ? 1 : 0;
  }

  int64_t divisibility(const Value *v) const {
    auto it = ctx_.intDivisibility.find(v);
    if (it != ctx_.intDivisibility.end())
      return std::max<int64_t>(it->second, 1);
    return 1;
  }
};

bool isArg(const Value *v, const Block *top) { return !v->def && v->ownerBlock == top; }

// Splits `offset` into sum_d coord_d * stride_d; what no dimension takes is left in `rest`.
// The dimension with a constant stride takes the terms without kernel arguments (a term with
// one is a row offset: `row * stride`).
bool splitOffset(Poly offset, const std::vector<Poly> &strides, const std::vector<int64_t> &tile,
                 const Block *top, std::vector<Poly> &coords, Poly &rest, std::string &why) {
  size_t rank = tile.size();
  coords.assign(rank, Poly{});
  int constDim = -1;
  for (size_t d = 0; d < rank; ++d) {
    if (tile[d] == 1)
      continue;
    const Poly &s = strides[d];
    int64_t c;
    if (s.isConst(c)) {
      if (constDim >= 0 || c == 0) {
        why = "two dimensions with constant strides";
        return false;
      }
      constDim = static_cast<int>(d);
      continue;
    }
    if (s.terms.size() != 1) {
      why = "a stride is not a single product";
      return false;
    }
    const auto &mono = s.terms.begin()->first;
    int64_t coef = s.terms.begin()->second;
    Poly rest;
    for (const auto &t : offset.terms) {
      std::vector<const Value *> left = t.first;
      bool contains = true;
      for (const Value *m : mono) {
        auto it = std::find(left.begin(), left.end(), m);
        if (it == left.end()) {
          contains = false;
          break;
        }
        left.erase(it);
      }
      if (contains && t.second % coef == 0)
        coords[d].terms[left] += t.second / coef;
      else
        rest.terms[t.first] = t.second;
    }
    offset = rest;
  }
  if (constDim >= 0) {
    int64_t c;
    strides[constDim].isConst(c);
    Poly left;
    for (const auto &t : offset.terms) {
      if (std::any_of(t.first.begin(), t.first.end(),
                      [&](const Value *v) { return isArg(v, top); })) {
        left.terms[t.first] = t.second;
        continue;
      }
      if (t.second % c != 0) {
        why = "the offset does not split by the strides";
        return false;
      }
      coords[constDim].terms[t.first] = t.second / c;
    }
    offset = left;
  }
  rest = offset;
  return true;
}

} // namespace

std::optional<IndexPlan> planIndexFromView(const ViewPlan &view, const Operation &loop,
                                           const IndexContext &ctx, std::string &why) {
  Planner pl(loop, ctx);
  IndexPlan plan;
  plan.base = view.base;
  plan.tile = view.tile;
  size_t rank = plan.tile.size();
  for (size_t d = 0; d < rank; ++d)
    plan.strides.push_back(plan.tile[d] == 1 ? polyConst(1) : pl.polys.of(view.strides[d]));
  // A scalar `ptr + row * stride` base made inside the loop is a top-level pointer plus a row
  // offset.
  Poly offset = pl.polys.of(view.offset);
  while (plan.base->def && plan.base->def->is("tt.addptr") && !pl.topLevel(polyLeaf(plan.base))) {
    offset = polyAdd(offset, pl.polys.of(plan.base->def->operand(1)));
    plan.base = plan.base->def->operand(0);
  }
  Poly rest;
  if (!splitOffset(offset, plan.strides, plan.tile, ctx.top, plan.coords, rest, why))
    return std::nullopt;
  // raise_views' `%` conditions come in pairs (0 <= c, c + B <= m).
  std::vector<IndexCond> conds;
  std::vector<std::pair<Poly, Poly>> wraps; // (c, m)
  for (size_t i = 0; i + 1 < view.conditions.size(); i += 2) {
    Poly c = pl.polys.of(view.conditions[i].second);
    wraps.push_back({c, pl.polys.of(view.conditions[i + 1].second)});
    conds.push_back({pl.polys.of(view.conditions[i].first), c, 0});
    conds.push_back({pl.polys.of(view.conditions[i + 1].first), wraps.back().second, 0});
  }
  std::vector<bool> foldable(rank, false);
  for (size_t d = 0; d < rank; ++d) {
    const Poly &o = plan.coords[d];
    int64_t k;
    Poly e;
    bool invariant = false;
    if (plan.tile[d] == 1) {
      e = polyConst(1);
    } else if (view.extents[d]) {
      e = polyAdd(pl.polys.of(view.extents[d]), o);
    } else if (o.isConst(k)) {
      e = polyConst(k + plan.tile[d]);
    } else {
      bool found = false;
      for (const auto &w : wraps)
        if (polyKey(w.first) == polyKey(o)) {
          e = w.second;
          found = true;
        }
      if (!found && !pl.reachExtent(o, plan.tile[d], e, invariant)) {
        why = "dimension " + std::to_string(d) + " is unmasked and its reach is unknown";
        return std::nullopt;
      }
      foldable[d] = !found && invariant;
    }
    plan.extents.push_back(e);
  }
  // What no dimension took (a row offset `row * stride` of a 1-D access) becomes leading
  // dimensions of size 1, one per stride: kernel arguments are the strides, the rest of each
  // term the coordinate.
  std::map<std::vector<const Value *>, Poly, MonomialOrder> phantoms;
  for (const auto &t : rest.terms) {
    std::vector<const Value *> stride, coord;
    for (const Value *v : t.first)
      (isArg(v, ctx.top) ? stride : coord).push_back(v);
    if (stride.empty()) {
      why = "the offset does not split by the strides";
      return std::nullopt;
    }
    phantoms[stride].terms[coord] += t.second;
  }
  for (const auto &ph : phantoms) {
    Poly e, s;
    s.terms[ph.first] = 1;
    bool invariant = false;
    if (!pl.reachExtent(ph.second, 1, e, invariant)) {
      why = "a row offset's reach is unknown";
      return std::nullopt;
    }
    foldable.insert(foldable.begin(), invariant);
    plan.tile.insert(plan.tile.begin(), 1);
    plan.strides.insert(plan.strides.begin(), s);
    plan.coords.insert(plan.coords.begin(), ph.second);
    plan.extents.insert(plan.extents.begin(), e);
  }
  if (!pl.finish(plan, conds, why, foldable))
    return std::nullopt;
  return plan;
}

std::optional<IndexPlan> planIndexFromBox(const Value *base,
                                          const std::vector<const Value *> &coords,
                                          const std::vector<const Value *> &extents,
                                          const std::vector<const Value *> &strides,
                                          const std::vector<int64_t> &tile, const Operation &loop,
                                          const IndexContext &ctx, std::string &why) {
  Planner pl(loop, ctx);
  IndexPlan plan;
  plan.base = base;
  plan.tile = tile;
  for (size_t d = 0; d < tile.size(); ++d) {
    Poly o = pl.polys.of(coords[d]);
    int64_t k;
    Poly e;
    if (extents[d])
      e = pl.polys.of(extents[d]);
    else if (o.isConst(k))
      e = polyConst(k + tile[d]);
    else {
      why = "dimension " + std::to_string(d) + " is not bounds-checked and its offset varies";
      return std::nullopt;
    }
    plan.coords.push_back(o);
    plan.extents.push_back(e);
    plan.strides.push_back(pl.polys.of(strides[d]));
  }
  if (!pl.finish(plan, {}, why))
    return std::nullopt;
  return plan;
}

} // namespace tt
