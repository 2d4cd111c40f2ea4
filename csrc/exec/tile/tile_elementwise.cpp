// Tile IR elementwise ops: arithmetic, math, comparisons, select, offset and conversions, run
// by the shared kernels (tile_ops.h names them).
//
// Rules beyond the shared kernels' (elementwise.h, cast_ops.cpp):
//  - rounding: nearest_even, `full` and `approx` compute precisely (approx is an allowance, not
//    a requirement); float arithmetic with another rounding mode is refused at prepare time;
//    divi takes zero (truncation), negative_inf (floor) and positive_inf (ceil);
//  - flush_to_zero (f32 only): f32 denormal inputs are read as zero of their sign (copies
//    into scratch registers) and denormal results are flushed in place;
//  - ftof to tf32 rounds the f32 value to tf32 (cvt.rna: nearest, ties away from zero), which
//    mmaf then multiplies exactly; ftof from tf32 is a copy; other ftof round once (nearest
//    even, or toward zero for rounding<zero>);
//  - bitcast, int_to_ptr, ptr_to_int and ptr_to_ptr share their operand's register.
#include <cstring>

#include "exec/kernels/shared_emit.h"
#include "exec/tileir/tile_ops.h"
#include "tile/tile.h"

namespace tt::exec {
namespace {

inline float flushF32(float x) {
  uint32_t u = f32Bits(x);
  return (u & 0x7f800000u) == 0 ? bitsF32(u & 0x80000000u) : x;
}

// out[i] = flush(in[i or 0]), n elements.
void ftzCopyK(const Inst &I, Frame &F) {
  const float *a = F.at<float>(I.in[0].off);
  float *__restrict o = F.at<float>(I.out);
  for (int64_t i = 0, n = I.n; i < n; ++i)
    o[i] = flushF32(a[I.in[0].bcast ? 0 : i]);
}

void ftzInPlaceK(const Inst &I, Frame &F) {
  float *o = F.at<float>(I.out);
  for (int64_t i = 0, n = I.n; i < n; ++i)
    o[i] = flushF32(o[i]);
}

void tf32K(const Inst &I, Frame &F) {
  const float *a = F.at<float>(I.in[0].off);
  float *__restrict o = F.at<float>(I.out);
  for (int64_t i = 0, n = I.n; i < n; ++i)
    o[i] = roundTf32(a[I.in[0].bcast ? 0 : i]);
}

bool isF32(Type t) {
  Type e = t.element();
  return e.isFloat() && (e.floatKind() == FloatKind::F32 || e.floatKind() == FloatKind::TF32);
}

void checkRounding(Compiler &c, const Operation &op, const std::string &n) {
  if (!op.hasAttr("rounding"))
    return;
  int64_t r = op.intAttr("rounding");
  if (n == "divi" || n == "remi" || n == "maxi" || n == "mini" || n == "shri") {
    if (n == "divi" ? (r == tile::kZero || r == tile::kNegInf || r == tile::kPosInf)
                    : r == tile::kZero)
      return;
  } else if (r == tile::kNearestEven || r == tile::kApprox || r == tile::kFull ||
             (n == "ftoi" && r == tile::kNearestIntToZero) || (n == "ftof" && r == tile::kZero)) {
    return;
  }
  c.fail(op, std::string("rounding mode ") + tile::spelling<tile::Rounding>(r) +
                 " is not supported by the CPU executor");
}

// An f32 op with flush_to_zero: flushed copies of the inputs, the kernel, the output flushed.
bool emitFlushed(Compiler &c, const Operation &op, const TileKernel &k) {
  const Value *res = op.result(0);
  const int64_t n = c.numel(res);
  std::vector<Ref> refs;
  for (const Value *v : op.operands)
    refs.push_back(elementOperand(c, v, n));
  for (size_t i = 0; i < refs.size(); ++i) {
    int64_t m = refs[i].bcast ? 1 : n;
    uint32_t tmp = c.scratch(static_cast<size_t>(m) * 4);
    Inst &I = c.emit(ftzCopyK, op);
    I.in[0] = refs[i];
    I.out = tmp;
    I.n = m;
    refs[i].off = tmp;
  }
  if (!emitElementwiseAs(c, op, k.name, k.predicate, 0, &refs))
    return false;
  if (isF32(res->type)) {
    Inst &I = c.emit(ftzInPlaceK, op);
    I.out = c.out(res);
    I.n = n;
  }
  return true;
}

void emitFtof(Compiler &c, const Operation &op) {
  const Value *src = op.operand(0), *res = op.result(0);
  Type from = src->type.element(), to = res->type.element();
  bool toTf32 = to.floatKind() == FloatKind::TF32, fromTf32 = from.floatKind() == FloatKind::TF32;
  if (toTf32 || fromTf32) {
    if (!(isF32(src->type) && isF32(res->type)))
      c.fail(op, "tf32 converts from and to f32 only");
    if (fromTf32) { // already representable in f32
      emitCopyAs(c, op, src, res);
      return;
    }
    Ref a = elementOperand(c, src, c.numel(res));
    Inst &I = c.emit(tf32K, op);
    I.in[0] = a;
    I.out = c.out(res);
    I.n = c.numel(res);
    return;
  }
  bool rtz = op.intAttr("rounding", tile::kNearestEven) == tile::kZero;
  emitCastAs(c, op, "tt.fp_to_fp", rtz ? Rounding::RTZ : Rounding::RTNE);
}

} // namespace

bool emitTileElementwise(Compiler &c, const Operation &op) {
  std::string n = tileOpName(op);
  if (n.empty() || op.numResults() != 1)
    return false;
  const Value *res = op.result(0);
  if (emitCompact(c, op)) // compact offsets, interval masks (affine.h)
    return true;
  if (n == "select") {
    emitSelectAs(c, op, op.operand(0), op.operand(1), op.operand(2), res);
    return true;
  }
  if (n == "offset") {
    emitOffsetAs(c, op, op.operand(0), op.operand(1), res);
    return true;
  }
  if (n == "bitcast" || n == "int_to_ptr" || n == "ptr_to_int" || n == "ptr_to_ptr") {
    if (dtypeSize(c.dtype(op.operand(0))) != dtypeSize(c.dtype(res)))
      c.fail(op, "bitcast between types of different widths");
    emitCopyAs(c, op, op.operand(0), res);
    return true;
  }
  std::string cast = tileCastKernel(op);
  if (!cast.empty()) {
    checkRounding(c, op, n);
    if (n == "ftof")
      emitFtof(c, op);
    else
      emitCastAs(c, op, cast, Rounding::RTNE);
    return true;
  }
  TileKernel k = tileElementwiseKernel(op);
  if (k.name.empty())
    return false;
  checkRounding(c, op, n);
  if (op.hasAttr("flush_to_zero") && op.numOperands() && isF32(op.operand(0)->type))
    return emitFlushed(c, op, k);
  if (!emitElementwiseAs(c, op, k.name, k.predicate))
    c.fail(op, std::string("no kernel for this op on ") + dtypeName(c.dtype(op.operand(0))));
  return true;
}

} // namespace tt::exec
