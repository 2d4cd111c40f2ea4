// Emission of elementwise ops: arith/math binary, unary and ternary ops, comparisons,
// arith.select and tt.addptr. Kernels are picked by (op, dtype, which operands are broadcast
// scalars); see elementwise.h for the numeric rules.
#include <string>
#include <unordered_set>

#include "exec/kernels/elementwise.h"
#include "exec/kernels/shared_emit.h"
#include "exec/tileir/tile_ops.h"

namespace tt::exec {
namespace {

// An operand of an op producing n elements: broadcast when it is a splat or a scalar.
Ref operand(Compiler &c, const Value *v, int64_t n) {
  Ref r = c.ref(v, true);
  if (!r.bcast && c.numel(v) == 1 && n > 1)
    r.bcast = true;
  return r;
}

// ---- arith.select ----
// Branch-free (both sides are registers, always readable), so the loop vectorizes.
template <class T, bool BC, bool BA, bool BB> void selectK(const Inst &I, Frame &F) {
  const uint8_t *__restrict c = F.at<uint8_t>(I.in[0].off);
  const T *__restrict a = F.at<T>(I.in[1].off);
  const T *__restrict b = F.at<T>(I.in[2].off);
  T *__restrict o = F.at<T>(I.out);
  for (int64_t i = 0, n = I.n; i < n; ++i) {
    const T m = static_cast<T>(T(0) - T(c[BC ? 0 : i] != 0));
    o[i] = static_cast<T>((a[BA ? 0 : i] & m) | (b[BB ? 0 : i] & static_cast<T>(~m)));
  }
}

template <class T> KernelFn pickSelectT(bool bc, bool ba, bool bb) {
  if (bc) {
    if (ba)
      return bb ? selectK<T, 1, 1, 1> : selectK<T, 1, 1, 0>;
    return bb ? selectK<T, 1, 0, 1> : selectK<T, 1, 0, 0>;
  }
  if (ba)
    return bb ? selectK<T, 0, 1, 1> : selectK<T, 0, 1, 0>;
  return bb ? selectK<T, 0, 0, 1> : selectK<T, 0, 0, 0>;
}

KernelFn pickSelect(int es, bool bc, bool ba, bool bb) {
  switch (es) {
  case 1:
    return pickSelectT<uint8_t>(bc, ba, bb);
  case 2:
    return pickSelectT<uint16_t>(bc, ba, bb);
  case 4:
    return pickSelectT<uint32_t>(bc, ba, bb);
  default:
    return pickSelectT<uint64_t>(bc, ba, bb);
  }
}

// ---- tt.addptr: ptr + offset * sizeof(pointee), offsets sign-extended; imm = log2(size) ----
template <class Off, bool BP, bool BO> void addptrK(const Inst &I, Frame &F) {
  const uint64_t *p = F.at<uint64_t>(I.in[0].off); // may be the result's register
  const Off *__restrict off = F.at<Off>(I.in[1].off);
  uint64_t *__restrict o = F.at<uint64_t>(I.out);
  const int sh = static_cast<int>(I.imm);
  const int64_t n = I.n;
  if constexpr (BP && !BO) {
    const uint64_t base = p[0];
    for (int64_t i = 0; i < n; ++i)
      o[i] = base + (static_cast<uint64_t>(static_cast<int64_t>(off[i])) << sh);
  } else {
    for (int64_t i = 0; i < n; ++i)
      o[i] = p[BP ? 0 : i] + (static_cast<uint64_t>(static_cast<int64_t>(off[BO ? 0 : i])) << sh);
  }
}

template <class Off> KernelFn pickAddptrT(bool bp, bool bo) {
  if (bp)
    return bo ? addptrK<Off, 1, 1> : addptrK<Off, 1, 0>;
  return bo ? addptrK<Off, 0, 1> : addptrK<Off, 0, 0>;
}

KernelFn pickAddptr(DType off, bool bp, bool bo) {
  switch (off) {
  case DType::I8:
    return pickAddptrT<int8_t>(bp, bo);
  case DType::I16:
    return pickAddptrT<int16_t>(bp, bo);
  case DType::I32:
    return pickAddptrT<int32_t>(bp, bo);
  case DType::I64:
    return pickAddptrT<int64_t>(bp, bo);
  default:
    return nullptr;
  }
}

int pointeeBytes(Type ptrType) {
  Type pointee = ptrType.element().pointee();
  return pointee.isPtr() ? 8 : dtypeSize(dtypeOf(pointee));
}

} // namespace

bool isElementwiseOp(const Operation &op) {
  static const std::unordered_set<std::string> names = {
      "arith.addi",     "arith.subi",     "arith.muli",      "arith.divsi",     "arith.divui",
      "arith.remsi",    "arith.remui",    "arith.andi",      "arith.ori",       "arith.xori",
      "arith.shli",     "arith.shrsi",    "arith.shrui",     "arith.maxsi",     "arith.minsi",
      "arith.maxui",    "arith.minui",    "tt.mulhiui",      "arith.addf",      "arith.subf",
      "arith.mulf",     "arith.divf",     "arith.remf",      "arith.maxnumf",   "arith.minnumf",
      "arith.maximumf", "arith.minimumf", "arith.negf",      "tt.precise_divf", "math.absf",
      "math.absi",      "math.sqrt",      "tt.precise_sqrt", "math.rsqrt",      "math.exp",
      "math.exp2",      "math.log",       "math.log2",       "math.sin",        "math.cos",
      "math.tan",       "math.tanh",      "math.floor",      "math.ceil",       "math.erf",
      "math.fma",       "tt.clampf",      "arith.cmpi",      "arith.cmpf",      "arith.select",
      "arith.extsi",    "arith.extui",    "arith.trunci",    "arith.extf",      "arith.truncf",
      "arith.sitofp",   "arith.uitofp",   "arith.fptosi",    "arith.fptoui",    "arith.bitcast",
      "tt.bitcast",     "tt.fp_to_fp",    "tt.int_to_ptr",   "tt.ptr_to_int",   "tt.addptr",
      "arith.constant"};
  return names.count(op.name()) != 0 || isTileElementwiseOp(op);
}

Ref elementOperand(Compiler &c, const Value *v, int64_t n) { return operand(c, v, n); }

void emitSelectAs(Compiler &c, const Operation &op, const Value *condV, const Value *av,
                  const Value *bv, const Value *res) {
  int64_t n = c.numel(res);
  Ref cond = operand(c, condV, n), a = operand(c, av, n), b = operand(c, bv, n);
  Inst &I = c.emit(pickSelect(dtypeSize(c.dtype(res)), cond.bcast, a.bcast, b.bcast), op);
  I.out = c.out(res);
  I.in[0] = cond;
  I.in[1] = a;
  I.in[2] = b;
  I.n = n;
}

void emitOffsetAs(Compiler &c, const Operation &op, const Value *ptr, const Value *off,
                  const Value *res) {
  int64_t n = c.numel(res);
  Ref p = operand(c, ptr, n), o = operand(c, off, n);
  KernelFn fn = pickAddptr(c.dtype(off), p.bcast, o.bcast);
  if (!fn)
    c.fail(op, "unsupported offset type " + off->type.str());
  Inst &I = c.emit(fn, op);
  I.out = c.out(res);
  I.in[0] = p;
  I.in[1] = o;
  I.n = n;
  I.imm = __builtin_ctz(static_cast<unsigned>(pointeeBytes(ptr->type)));
}

// The kernel of `name` on operands of type dt (k of them; ba, bb, bc: broadcast), or null.
KernelFn pickElementwise(const std::string &name, int64_t pred, DType dt, size_t k, bool ba,
                         bool bb, bool bc) {
  if (name == "arith.cmpi")
    return ew::pickCmpI(pred, dt, ba, bb);
  if (name == "arith.cmpf")
    return ew::pickCmpF(pred, dt, ba, bb);
  if (k == 2) {
    KernelFn fn = ew::pickIntBinary(name, dt, ba, bb);
    return fn ? fn : ew::pickFloatBinary(name, dt, ba, bb);
  }
  if (k == 1) {
    KernelFn fn = ew::pickIntUnary(name, dt, ba);
    return fn ? fn : ew::pickFloatUnary(name, dt, ba);
  }
  if (k == 3 && (name == "math.fma" || name == "tt.clampf"))
    return ew::pickFloatTernary(name, dt, ba, bb, bc);
  return nullptr;
}

bool readsOperandsThroughRefs(const Compiler &c, const Operation &op) {
  if (op.numResults() != 1 || op.numOperands() == 0 || op.numOperands() > 3 ||
      c.intervalMask(op.result(0)) || c.boxMask(op.result(0)))
    return false;
  std::string name = op.name();
  int64_t pred = op.intAttr("predicate", -1);
  if (c.tileIR()) {
    if (op.hasAttr("flush_to_zero")) // emitFlushed copies the operands first
      return false;
    TileKernel k = tileElementwiseKernel(op);
    name = k.name;
    pred = k.predicate;
  }
  DType dt = dtypeOf(op.operand(0)->type.element());
  return pickElementwise(name, pred, dt, op.numOperands(), false, false, false) != nullptr;
}

bool emitElementwiseAs(Compiler &c, const Operation &op, const std::string &name, int64_t pred,
                       int64_t imm, const std::vector<Ref> *given) {
  const Value *res = op.result(0);
  const int64_t n = c.numel(res);
  const size_t k = op.numOperands();
  DType dt = k ? c.dtype(op.operand(0)) : DType::I32;
  if (!pickElementwise(name, pred, dt, k, false, false, false)) { // no kernel by that name
    if (name == "arith.cmpi" || name == "arith.cmpf")
      c.fail(op, "unsupported predicate " + std::to_string(pred) + " on " + dtypeName(dt));
    if (k == 3 && (name == "math.fma" || name == "tt.clampf"))
      c.fail(op, std::string("unsupported element type ") + dtypeName(dt));
    return false;
  }
  std::vector<Ref> refs;
  for (size_t i = 0; i < k; ++i)
    refs.push_back(given ? (*given)[i] : operand(c, op.operand(i), n));
  KernelFn fn = pickElementwise(name, pred, dt, k, refs[0].bcast, k > 1 && refs[1].bcast,
                                k > 2 && refs[2].bcast);
  Inst &I = c.emit(fn, op);
  I.out = c.out(res);
  for (size_t i = 0; i < k; ++i)
    I.in[i] = refs[i];
  I.n = n;
  I.imm = imm;
  return true;
}

bool emitElementwise(Compiler &c, const Operation &op) {
  const std::string &name = op.name();
  if (op.numResults() != 1)
    return false;
  const Value *res = op.result(0);
  if (c.intervalMask(res) || c.boxMask(res))
    return false; // compact_ptr.cpp
  if (name == "arith.select") {
    emitSelectAs(c, op, op.operand(0), op.operand(1), op.operand(2), res);
    return true;
  }
  if (name == "tt.addptr" && !c.compact(res)) {
    emitOffsetAs(c, op, op.operand(0), op.operand(1), res);
    return true;
  }
  return emitElementwiseAs(c, op, name, op.intAttr("predicate", -1),
                           name == "tt.clampf" ? op.intAttr("propagateNan", 0) : 0);
}

} // namespace tt::exec
