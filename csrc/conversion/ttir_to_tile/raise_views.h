// raise-pointers-to-views: proves that a tensor-of-pointer tt.load/tt.store reads a strided
// box of memory, so it can become a tensor_view + partition_view access.
//
// Rules. The pointer must decompose as
//     splat(base) + s + sum_d arange_d * stride_d
// where base is a scalar pointer, s and every stride_d are scalar integer expressions
// (constants, kernel arguments, program ids, loop variables, ...), and arange_d is the
// 0..B_d-1 index along result dimension d (from tt.make_range through expand_dims,
// broadcast, addi, subi, muli by scalars, and integer casts). Every dimension of size > 1
// needs its own non-zero stride (a stride-0 broadcast is a gather). The mask, if any, must be
// a conjunction of bounds tests `c_d + arange_d < bound_d`, at most one per dimension; `other`
// may be anything (a padding value when it is a recognised constant, else a select).
// Then the access is the tile at index 0 of a view whose base is `base + s`, whose strides are
// stride_d, and whose extent along d is `bound_d - c_d` (B_d without a test): the lanes the mask
// keeps are exactly the lanes inside that extent, for any offset, aligned to the tile or not.
//
// An index `(c + arange_d) % m` (Triton's matmul wraps rows this way) is taken as c + arange_d
// under the runtime condition 0 <= c and c + B_d <= m, checked by the conversion. An atomic's
// lower bound `c + arange_d >= lo` (a tensor descriptor's atomics) keeps every lane exactly
// when lo <= c: that is a runtime condition too, and the pointer form runs where it fails.
//
// Known limits: loop-carried tensors of pointers are not traced through loop arguments; a
// load's or store's lower bound (a stencil's, a padded convolution's) is not raised: its
// gather ran faster on an H100 than a view behind a branch (raise_views.cpp); two `<` tests on
// one dimension are not raised; index arithmetic is done in i64 (Triton's i32 offsets that
// overflow would wrap, ours do not).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/operation.h"

namespace tt {

// A scalar integer expression over TTIR values.
struct SExpr {
  enum class Kind { Const, Val, Add, Mul } kind;
  int64_t c = 0;
  const Value *v = nullptr;
  std::shared_ptr<const SExpr> a, b;
};
using SExprPtr = std::shared_ptr<const SExpr>;

SExprPtr sConst(int64_t c);
SExprPtr sVal(const Value *v);
SExprPtr sAdd(SExprPtr a, SExprPtr b);
SExprPtr sMul(SExprPtr a, SExprPtr b);
bool sIsConst(const SExprPtr &e, int64_t &out);
// A scalar integer TTIR value as an expression (constants become Const).
SExprPtr scalarExpr(const Value *v);

struct ViewPlan {
  const Value *base = nullptr;   // scalar TTIR pointer
  SExprPtr offset;               // scalar element offset added to base
  std::vector<SExprPtr> strides; // per dimension, in elements
  std::vector<SExprPtr> extents; // per dimension: bound - c, or null = the tile size
  std::vector<int64_t> tile;     // the access shape
  // Runtime conditions `first <= second` under which the plan is exact (a `%` on an index
  // that must not wrap); the conversion branches to the pointer form when they fail.
  std::vector<std::pair<SExprPtr, SExprPtr>> conditions;
  // Every dynamic stride is a multiple of this many elements (descriptors: 16 bytes).
  int64_t strideAlign = 1;
};

// Returns the plan for a tt.load / tt.store / tt.atomic_rmw, or nullopt with `why` set.
std::optional<ViewPlan> planView(const Operation &access, std::string &why);

} // namespace tt
