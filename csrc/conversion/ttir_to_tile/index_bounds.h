// index-bounds: proves `p >= 0` for a polynomial over TTIR integer scalars (index_poly.h) at a
// point of the kernel, from what the control flow around that point and the defining ops of
// its values say. The tile-index planner (index_views.h) asks it whether a view's conditions
// (0 <= coordinate < extent) hold, so that a loop needs no second version and an access no
// branch.
//
// Facts (each a polynomial known >= 0 at the point):
//   - an enclosing scf.for: lb <= iv <= ub - 1; the loop itself, for conditions checked just
//     before it: lb + 1 <= ub (a check before an empty loop guards nothing);
//   - an enclosing scf.if's then-region and an scf.while's after-region: the signed order tests
//     (`cmpi slt/sle/sgt/sge/eq`, through `andi`) of its condition, a while's before-region
//     arguments renamed to the after-region's by the values scf.condition forwards;
//   - a tl.make_tensor_descriptor that dominates the point: its shape is >= 0 (the descriptor's
//     contract, as for a TMA map: the CPU executors check it, convert_memory.cpp);
//   - a tl.assume(cond) that dominates the point (llvm.intr.assume): its order tests, as above
//     (the user's contract: the CPU executors check it too);
//   - Fourier-Motzkin: c1 x >= L and c2 x <= U give c1 U - c2 L >= 0;
//   - a product of values each >= 0 that is >= 1 has every factor >= 1.
// Bounds of a leaf x (c x >= L or c x <= U, c > 0, L and U over values created before x):
//   - the facts above in which x appears once, linearly, with the other values older than x;
//   - tt.get_program_id >= 0, tt.get_num_programs >= 1;
//   - q = n divsi d with n >= 0: q >= 0; d a constant > 0: d q <= n, d q >= n - d + 1;
//     d >= 1: q <= n, and q <= A - 1 (or A + B) where an upper bound of n, its values newer
//     than d replaced by their bounds, is d A + B with B <= -1 (or B >= 0);
//   - r = n remsi d with n >= 0: 0 <= r <= n, r <= |d| - 1 (or d - 1 when d >= 1);
//   - minsi is below both operands, maxsi above both.
// Proof: the newest value of p is replaced by its bound (a lower bound where its coefficient is
// positive, an upper bound where negative, a product's other factors proven of one sign), and
// so on until p is a constant >= 0 or a sum of non-negative terms; each step tries every bound,
// under a step budget. Values are integers without wrapping (index_poly.h's rule).
// Known limits: bounds of a value with a non-constant coefficient need that coefficient to be
// a sum of one-signed products; no case splits; unsigned tests, selects and else-regions give
// no facts.
#pragma once

#include <unordered_map>
#include <vector>

#include "conversion/ttir_to_tile/index_poly.h"

namespace tt {

class BoundProver {
public:
  // The facts at the start of `loop`'s body (`inBody`), or just before `loop` where it runs at
  // least once.
  BoundProver(PolyBuilder &polys, const Operation &loop, bool inBody);

  // p >= 0 wherever the point is reached.
  bool nonNegative(const Poly &p);

private:
  struct Bound {
    int64_t c; // c * x >= b (a lower bound) or c * x <= b (an upper bound); c > 0
    Poly b;
  };
  struct Bounds {
    std::vector<Bound> lower, upper;
    bool ready = false;
  };

  PolyBuilder &polys_;
  std::vector<Poly> facts_;
  std::unordered_map<const Value *, Bounds> bounds_;
  std::vector<const Value *> open_; // leaves whose bounds are being computed
  int steps_ = 0;

  void addRegionFacts(const Operation &loop, bool inBody);
  using Rename = std::unordered_map<const Value *, const Value *>;
  void addConditionFacts(const Value *cond, const Rename &rename, const Operation *scope);
  void addFourierMotzkin();
  const Bounds &boundsOf(const Value *x);
  void definitionBounds(const Value *x, Bounds &b);
  void productBounds(const Value *x, Bounds &b);
  bool upperByDivision(const Poly &n, const Value *d, Poly &q);
  bool prove(const Poly &p, int depth);
  bool leafNonNegative(const Value *v, int depth);
};

} // namespace tt
