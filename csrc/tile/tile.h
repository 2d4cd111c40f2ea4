// The CUDA Tile IR op set (cuda_tile.*) on the shared IR core: NVIDIA's op names and
// semantics (NVIDIA's CUDA Tile IR specification), printed in NVIDIA's textual form.
//
// Representation in our IR: a tile is a Tensor type (a rank-0 tile is the scalar type), so
// `tile<128xf32>` is tensor<128xf32> and `tile<ptr<f16>>` is !tt.ptr<f16>; views and tokens
// have their own type kinds. A Tile IR module is a Module whose functions are
// `cuda_tile.entry` ops.
//
// Attributes keep NVIDIA's names where its MLIR dialect has one; enum attributes hold the
// numbers of tile/enums.h's tables (rounding, signedness, comparison_predicate, ...), unit
// attributes flags (flush_to_zero, propagate_nan), and ops with optional operands carry
// operandSegmentSizes (i32 array) as MLIR does. The op set itself is tile/op_table.h.
#pragma once

#include <string>
#include <vector>

#include "ir/operation.h"
#include "tile/enums.h"
#include "tile/op_table.h"

namespace tt {
class Builder;
}

namespace tt::tile {

// `tile<4x8xf32>`, `tile<ptr<f32>>`, `token`, views as spelled.
std::string typeStr(Type t);

// The whole module in NVIDIA's textual form: `cuda_tile.module @kernels { entry @k(...) {...} }`.
std::string printModule(const Module &m);

// Memory ops by kind: loads (through views or pointer tiles), stores, atomics.
inline bool isLoad(const Operation &op) {
  return op.is("cuda_tile.load_view_tko") || op.is("cuda_tile.load_ptr_tko");
}
inline bool isStore(const Operation &op) {
  return op.is("cuda_tile.store_view_tko") || op.is("cuda_tile.store_ptr_tko");
}
inline bool isAtomic(const Operation &op) {
  return op.is("cuda_tile.atomic_rmw_tko") || op.is("cuda_tile.atomic_cas_tko") ||
         op.is("cuda_tile.atomic_red_view_tko");
}

// Tokens (tile/tokens.cpp). One token standing for all of `toks`, null ones dropped: null for
// none, the token itself for one, else join_tokens (nested past its 64 operands).
Value *joinTokens(Builder &b, std::vector<Value *> toks);
Value *freshToken(Builder &b); // make_token: ordered after nothing
// A memory op's token operand is its last segment of operandSegmentSizes.
bool hasTokenOperand(const Operation &op);
void setTokenOperand(Operation &op, Value *tok); // replaces it, or adds it

} // namespace tt::tile
