// The Tile IR side of the kernel table: which shared kernel (shared_emit.h) runs a cuda_tile
// op, given its attributes. Signedness, rounding, NaN propagation and comparison orderings are
// attributes in Tile IR and op names in TTIR, so this is where they become kernel choices:
//
//   divi/remi/maxi/mini/shri + signedness      -> arith.{divsi,divui,remsi,...}
//   divi rounding negative_inf / positive_inf  -> floor / ceil division kernels
//   maxf/minf (+ propagate_nan)                -> arith.{maxnumf,minnumf} (arith.{maximumf,...})
//   cmpi predicate + signedness                -> arith.cmpi with TTIR's predicate number
//   cmpf predicate + ordered/unordered         -> arith.cmpf with TTIR's predicate number
//   exti/itof/ftoi + signedness, ftof          -> arith.{extsi,extui,sitofp,...}, tt.fp_to_fp
//
// `approx` rounding computes as precise; `flush_to_zero` is applied by the emitter around the
// kernel (tile_elementwise.cpp).
#pragma once

#include <string>

#include "ir/operation.h"

namespace tt::exec {

struct TileKernel {
  std::string name;       // shared kernel name; empty: not an elementwise op
  int64_t predicate = -1; // arith.cmpi / arith.cmpf predicate (TTIR numbering)
};

// The kernel of an elementwise arithmetic, math or comparison op (not casts, select, offset).
TileKernel tileElementwiseKernel(const Operation &op);
// The cast kernel of exti, trunci, itof, ftoi, ftof (not bitcasts); empty for other ops.
std::string tileCastKernel(const Operation &op);
// Elementwise in the sense of isElementwiseOp (compiler.h): arithmetic, math, comparisons,
// select, casts, bitcasts and constants.
bool isTileElementwiseOp(const Operation &op);
// The op name without "cuda_tile." (empty for other op sets).
std::string tileOpName(const Operation &op);

} // namespace tt::exec
