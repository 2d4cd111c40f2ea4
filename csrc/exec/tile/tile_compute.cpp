// Tile IR reduce, scan, mmaf and mmai on the shared kernels (reduce.cpp, dot.cpp).
//
// Rules:
//  - reduce/scan regions take (element, accumulator) argument pairs per operand and yield the
//    new accumulators; `identities` (one per operand) start the sequential strategies; a region
//    of one op on its two arguments (after the tile_ops.h mapping, and without flush_to_zero)
//    runs on the fast dtype-specialized loops;
//  - mmaf: f16/bf16/fp8 operands are widened exactly and accumulated in f32 (an f16
//    accumulator is rounded once at the end); tf32 operands (f32 storage, already rounded by
//    ftof) and f32 operands are multiplied exactly; f64 in f64;
//  - mmai: i8 x i8 -> i32 with each operand's signedness.
#include "exec/kernels/shared_emit.h"
#include "exec/tileir/tile_ops.h"
#include "tile/tile.h"

namespace tt::exec {
namespace {

void emitReduceScan(Compiler &c, const Operation &op, bool scan) {
  CombineSpec spec;
  const size_t N = op.numOperands();
  for (size_t j = 0; j < N; ++j)
    spec.inputs.push_back(op.operand(j));
  for (size_t j = 0; j < op.numResults(); ++j)
    spec.results.push_back(op.result(j));
  spec.axis = static_cast<int>(op.intAttr("dim"));
  spec.scan = scan;
  spec.reverse = scan && op.intAttr("reverse") != 0;
  if (op.numRegions() != 1 || op.region(0)->empty())
    c.fail(op, "needs a combine region");
  spec.body = op.region(0)->front();
  for (size_t j = 0; j < N; ++j) {
    spec.elemArg.push_back(2 * j);
    spec.accArg.push_back(2 * j + 1);
  }
  if (const Operation *single = singleCombineOp(*spec.body))
    if (!single->hasAttr("flush_to_zero"))
      spec.singleKernel = tileElementwiseKernel(*single).name;
  const Attribute &ids = op.attr("identities");
  if (ids.kind() != Attribute::Kind::Array || ids.getArray().size() != N)
    c.fail(op, "needs one identity per operand");
  spec.identities = ids.getArray();
  emitCombine(c, op, spec);
}

} // namespace

bool emitTileCompute(Compiler &c, const Operation &op) {
  std::string n = tileOpName(op);
  if (n == "reduce" || n == "scan") {
    emitReduceScan(c, op, n == "scan");
    return true;
  }
  if (n == "mmaf") {
    emitMatmul(c, op, op.operand(0), op.operand(1), op.operand(2), op.result(0), kDotIEEE);
    return true;
  }
  if (n == "mmai") {
    emitMatmul(c, op, op.operand(0), op.operand(1), op.operand(2), op.result(0), kDotIEEE,
               op.intAttr("signedness_lhs", tile::kSigned) != 0,
               op.intAttr("signedness_rhs", tile::kSigned) != 0);
    return true;
  }
  return false;
}

} // namespace tt::exec
