// The CUDA Tile IR op set (cuda_tile.*) on the shared IR core: NVIDIA's op names and
// semantics (NVIDIA's CUDA Tile IR specification), printed in NVIDIA's textual form.
//
// Representation in our IR: a tile is a Tensor type (a rank-0 tile is the scalar type), so
// `tile<128xf32>` is tensor<128xf32> and `tile<ptr<f16>>` is !tt.ptr<f16>; views and tokens
// have their own type kinds. A Tile IR module is a Module whose functions are
// `cuda_tile.entry` ops.
//
// Attribute conventions (names as NVIDIA's MLIR dialect where it has one):
//   overflow (i32: 0 none, 1 nsw, 2 nuw, 3 nw), rounding (i32, RoundingMode below),
//   flush_to_zero / propagate_nan (unit), signedness (i32: 0 unsigned, 1 signed),
//   comparison_predicate (i32: 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge),
//   comparison_ordering (i32: 0 unordered, 1 ordered),
//   memory_ordering_semantics (i32: 0 weak, 1 relaxed, 2 acquire, 3 release, 4 acq_rel),
//   memory_scope (i32: 0 tl_blk, 1 device, 2 sys), mode (atomic_rmw: 0 and .. 9 xchg),
//   operandSegmentSizes (i32 array) on ops with optional operands (as MLIR does).
#pragma once

#include <string>

#include "ir/operation.h"

namespace tt::tile {

enum Rounding : int {
  kNearestEven = 0,
  kZero = 1,
  kNegInf = 2,
  kPosInf = 3,
  kApprox = 4,
  kFull = 5,
  kNearestIntToZero = 6
};
enum Signedness : int { kUnsigned = 0, kSigned = 1 };
enum Predicate : int { kEq = 0, kNe = 1, kLt = 2, kLe = 3, kGt = 4, kGe = 5 };
enum Ordering : int { kWeak = 0, kRelaxed = 1, kAcquire = 2, kRelease = 3, kAcqRel = 4 };
enum Scope : int { kTileBlock = 0, kDevice = 1, kSystem = 2 };
enum RmwMode : int {
  kAnd = 0,
  kOr = 1,
  kXor = 2,
  kAdd = 3,
  kAddF = 4,
  kMax = 5,
  kMin = 6,
  kUMax = 7,
  kUMin = 8,
  kXchg = 9
};

// `tile<4x8xf32>`, `tile<ptr<f32>>`, `token`, views as spelled.
std::string typeStr(Type t);

// The whole module in NVIDIA's textual form: `cuda_tile.module @kernels { entry @k(...) {...} }`.
std::string printModule(const Module &m);

const char *roundingName(int r);
const char *predicateName(int p);
const char *orderingName(int o);
const char *scopeName(int s);
const char *rmwModeName(int m);

} // namespace tt::tile
