// index-views: the tile-index form of a raised access inside an scf.for.
//
// raise_views.h proves that an access reads a strided box; its form (a view whose base is the
// box's corner, index 0) makes a new view every iteration and needs a branch when the box may
// be empty. Inside loops that is slow on the GPU (tileiras cannot hoist the view, and a load
// under a branch is not pipelined). The tile-index form makes one view of the whole tensor,
// once, at the kernel's top level, and accesses the tile at index coord_d / B_d:
//
//     view  = base, strides stride_d, extents E_d         (values of the kernel's top level)
//     tile  = view[coord_0 / B_0, ..., coord_r / B_r]      (coord_d at the access)
//
// Rules. The access's element offset must split into sum_d coord_d * stride_d, with every
// symbolic stride a single monomial and at most one constant stride; loop-carried scalar
// offsets are replaced by their closed form init + (iv - lb) / step * inc. Per dimension:
//   - masked (`c + arange < bound`): E = bound - c + coord must be loop-independent: the mask
//     keeps exactly the lanes inside the view, so the view's padding equals `other`;
//   - wrapped (`(c + arange) % m`): E = m, under raise_views' condition that it cannot wrap;
//   - unmasked: E = coord + B when coord is a top-level value, a * (ub - 1) + r + B when
//     coord = a * iv + r: every coordinate the loop reaches (the program reads the whole tile);
//     in a view made inside the kernel (IndexPlan::anchor, below) a coordinate invariant in the
//     loop is folded into the base instead (IndexPlan::baseOffset): the program reads rows
//     [coord, coord + B), so the view starting at coord with extent B reads the same memory at
//     index 0, and needs no 0 <= coord (a grouped GEMM's tile row comes from sizes loaded from
//     memory, about which nothing is known). That also keeps the extent static: tileiras 13.4
//     reads an in-kernel view whose extents are all computed i64 values (neither constant nor
//     i32 values) with plain loads, no TMA (sm_90 SASS of the grouped GEMM: 137 LDG and no
//     UTMALDG; with one extent static, 3 UTMALDG and 14 LDG). A folded dimension of size 1 (a
//     row offset's, below) is dropped. A top-level view is not folded: its map is built on the
//     host from kernel arguments, a per-program base would move it into the kernel. Pointer
//     accesses only: a block pointer's or descriptor's dimension without a bounds check and
//     with a varying offset has no plan;
//   - offset terms no dimension takes (`row * stride` in a 1-D access) become leading
//     dimensions of size 1 whose stride is the term's kernel arguments, with that reach.
// The form is exact when, for every dimension, 0 <= coord, coord < E (Tile IR leaves a tile
// wholly outside the view undefined) and B divides coord. Those conditions are proven
// statically where the algebra allows (divisibility here; inequalities by index_bounds.h, from
// the control flow around the loop: loop ranges, if and while conditions, `//`, `%` and
// descriptors' shapes), else checked at run time: once before the loop when
// coord = a * iv + r with a constant and r, lb, ub, step invariant in the loop (the loop is
// versioned: the other version uses the general form), else at the access itself.
// With IndexContext::anchorInner, base, strides and extents may also be defined inside the
// kernel's control flow around the loop: the view is then made just before the access's
// ancestor in the innermost block defining one of them (IndexPlan::anchor), once per run of
// that block. An access whose innermost loop is a while loop (`loop` is the scf.while) has no
// closed forms and no hoisting: its conditions are checked at the access, and a dimension that
// is neither bounds-checked nor invariant in the loop has no plan. Known limits: offsets that
// do not split by the strides (two constant strides, a stride that is a sum) keep the general
// form.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "conversion/ttir_to_tile/index_poly.h"
#include "conversion/ttir_to_tile/raise_views.h"
#include "ir/operation.h"

namespace tt {

// `lhs <= rhs`, or `lhs % div == 0` (div a power of two).
struct IndexCond {
  Poly lhs, rhs;
  int64_t div = 0;
};

struct IndexPlan {
  // base, baseOffset, strides and extents: values of the top level, or of the blocks around
  // the loop where the view is made (anchor)
  const Value *base = nullptr; // scalar pointer
  Poly baseOffset;             // elements added to base where the view is made (folded coords)
  std::vector<Poly> strides;
  std::vector<Poly> extents;
  std::vector<Poly> coords; // element coordinates, at the access
  std::vector<int64_t> tile;
  std::vector<IndexCond> conds; // runtime conditions still needed
  bool hoisted = false;         // conds are invariant in the loop: check them before it
  int64_t strideAlign = 1;      // dynamic strides are multiples of this (descriptors)
  int64_t baseAlign = 1;        // the base is a multiple of this many bytes (descriptors: 16)
  // Where the view is made: the kernel's top level (null), or just before this op, the
  // access's ancestor in the innermost block that defines a value of base, strides or extents
  // (IndexContext::anchorInner).
  const Operation *anchor = nullptr;
  std::string key; // equal keys share one view
};

// The TTIR facts the analysis needs: the kernel's top-level block (values that may be used by
// a hoisted view) and the divisibility of integers: what the specialization proved for the
// arguments and what `tl.multiple_of` states of other scalars (Converter::scalarHint).
struct IndexContext {
  const Block *top = nullptr;
  std::map<const Value *, int64_t> intDivisibility;
  // Views whose base, strides or extents are defined inside the kernel's control flow (a
  // descriptor made per problem of a grouped GEMM) are made where those values exist, once per
  // run of the block that defines them; off: such accesses keep the general form, a view per
  // access. Set per access by the caller (TileOptions::anchoredViews).
  bool anchorInner = false;
};

// A dynamic stride that is not an i32 value (a descriptor's i64 stride, a product) reaches the
// view narrowed to i32 and widened back, as Triton's i32 stride arguments do: tileiras uses TMA
// only for strides it can bound (on an H200, descriptor views with i64 strides ran 15x slower).
// The plan then also requires 0 <= stride <= INT32_MAX.
bool strideIsNarrowed(const Poly &stride);

// The tile-index plan of a raised pointer access (`plan` from planView) inside `loop` (an scf.for
// or an scf.while).
std::optional<IndexPlan> planIndexFromView(const ViewPlan &plan, const Operation &loop,
                                           const IndexContext &ctx, std::string &why);

// The same for a box access (descriptor or block pointer): per dimension the coordinate, the
// extent (null when the dimension is not bounds-checked) and the stride, all TTIR scalars.
std::optional<IndexPlan> planIndexFromBox(const Value *base,
                                          const std::vector<const Value *> &coords,
                                          const std::vector<const Value *> &extents,
                                          const std::vector<const Value *> &strides,
                                          const std::vector<int64_t> &tile, const Operation &loop,
                                          const IndexContext &ctx, std::string &why);

} // namespace tt
