// Shape ops: tt.splat, tt.broadcast, tt.expand_dims, tt.reshape, tt.trans, tt.cat, tt.join,
// tt.split, tt.gather, tt.histogram (tt.make_range is a constant, see compiler.cpp).
//
// Rules:
//  - registers are row-major; expand_dims and reshape share their source's register (no
//    instruction) and splats are not materialized (program.h);
//  - broadcast and trans are one strided copy: the output walked in row-major order, the
//    source through per-dimension strides (0 for a broadcast dimension); 2-D transposes go
//    through 32x32 blocks;
//  - tt.gather with an index outside the source dimension is an error (ExecError), not a
//    wild read; tt.histogram ignores values outside [0, bins) and masked-off lanes.
#include <algorithm>
#include <cstring>
#include <string>

#include "exec/kernels/shared_emit.h"
#include "exec/runtime/copy.h"

namespace tt::exec {
namespace {

// Triton's bitonic sort and flip reshape a tile of N elements to log2(N) dimensions of 2, so
// ranks well above 8 are ordinary; 64 covers every tile whose dimensions exceed 1.
constexpr int kMaxRank = 64;

struct StridedAux : Aux {
  std::vector<int64_t> shape;   // output shape
  std::vector<int64_t> strides; // source stride (elements) per output dimension
  int es = 4;
};

template <class T> void stridedCopyK(const Inst &I, Frame &F) {
  const StridedAux &a = *static_cast<const StridedAux *>(I.aux);
  const T *src = F.at<T>(I.in[0].off);
  T *__restrict o = F.at<T>(I.out);
  const int rank = static_cast<int>(a.shape.size());
  if (rank == 0) {
    o[0] = src[0];
    return;
  }
  const int64_t inner = a.shape[rank - 1], is = a.strides[rank - 1];
  // 2-D transpose: blocked so both sides stay in cache.
  if (rank == 2 && is != 0 && is != 1 && a.strides[0] == 1) {
    const int64_t rows = a.shape[0], cols = inner;
    constexpr int64_t B = 32;
    for (int64_t r0 = 0; r0 < rows; r0 += B)
      for (int64_t c0 = 0; c0 < cols; c0 += B) {
        int64_t r1 = std::min(rows, r0 + B), c1 = std::min(cols, c0 + B);
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t c = c0; c < c1; ++c)
            o[r * cols + c] = src[c * is + r];
      }
    return;
  }
  int64_t idx[kMaxRank] = {};
  int64_t outer = I.n / inner;
  int64_t srcOff = 0;
  for (int64_t k = 0; k < outer; ++k) {
    T *orow = o + k * inner;
    const T *srow = src + srcOff;
    if (is == 1)
      copyBytes(orow, srow, static_cast<size_t>(inner) * sizeof(T));
    else if (is == 0)
      for (int64_t c = 0; c < inner; ++c)
        orow[c] = srow[0];
    else
      for (int64_t c = 0; c < inner; ++c)
        orow[c] = srow[c * is];
    for (int d = rank - 2; d >= 0; --d) { // odometer over the outer dimensions
      srcOff += a.strides[d];
      if (++idx[d] < a.shape[d])
        break;
      srcOff -= a.strides[d] * a.shape[d];
      idx[d] = 0;
    }
  }
}

KernelFn stridedCopyKernel(int es) {
  switch (es) {
  case 1:
    return stridedCopyK<uint8_t>;
  case 2:
    return stridedCopyK<uint16_t>;
  case 4:
    return stridedCopyK<uint32_t>;
  default:
    return stridedCopyK<uint64_t>;
  }
}

// ---- make_range in a strip-mined program ----
void iotaK(const Inst &I, Frame &F) {
  int32_t *__restrict o = F.at<int32_t>(I.out);
  const int32_t base = static_cast<int32_t>(I.imm + F.laneBase);
  for (int64_t i = 0, n = I.n; i < n; ++i)
    o[i] = base + static_cast<int32_t>(i);
}

// ---- join / split / cat ----
template <class T> void joinK(const Inst &I, Frame &F) {
  const T *a = F.at<T>(I.in[0].off), *b = F.at<T>(I.in[1].off);
  T *__restrict o = F.at<T>(I.out);
  for (int64_t i = 0, n = I.n; i < n; ++i) {
    o[2 * i] = a[i];
    o[2 * i + 1] = b[i];
  }
}
template <class T> void splitK(const Inst &I, Frame &F) {
  const T *a = F.at<T>(I.in[0].off);
  T *__restrict o0 = F.at<T>(I.out);
  T *__restrict o1 = F.at<T>(static_cast<uint32_t>(I.imm));
  for (int64_t i = 0, n = I.n; i < n; ++i) {
    o0[i] = a[2 * i];
    o1[i] = a[2 * i + 1];
  }
}
// I.n outer slices, each imm bytes of a then imm2 bytes of b.
void catK(const Inst &I, Frame &F) {
  const size_t bytesA = static_cast<size_t>(I.imm), bytesB = static_cast<size_t>(I.imm2);
  const char *a = F.R + I.in[0].off, *b = F.R + I.in[1].off;
  char *o = F.R + I.out;
  for (int64_t k = 0; k < I.n; ++k) {
    copyBytes(o, a + k * bytesA, bytesA);
    copyBytes(o + bytesA, b + k * bytesB, bytesB);
    o += bytesA + bytesB;
  }
}

// The kernel template K instantiated for an element size.
#define TT_BY_SIZE(K, es)                                                                          \
  ((es) == 1 ? K<uint8_t> : (es) == 2 ? K<uint16_t> : (es) == 4 ? K<uint32_t> : K<uint64_t>)

// ---- gather ----
struct GatherAux : Aux {
  std::vector<int64_t> idxShape, srcShape, srcStrides;
  int axis = 0;
  DType idxType = DType::I32;
};

template <class T> void gatherK(const Inst &I, Frame &F) {
  const GatherAux &a = *static_cast<const GatherAux *>(I.aux);
  const T *src = F.at<T>(I.in[0].off);
  const char *idx = F.R + I.in[1].off;
  T *__restrict o = F.at<T>(I.out);
  const int rank = static_cast<int>(a.idxShape.size());
  const auto &sstr = a.srcStrides;
  int64_t pos[kMaxRank] = {};
  const int ib = dtypeSize(a.idxType);
  for (int64_t i = 0, n = I.n; i < n; ++i) {
    int64_t k = readIntSext(idx + i * ib, a.idxType);
    if (k < 0 || k >= a.srcShape[a.axis])
      throw ExecError("tt.gather at " + I.site->loc + ": index " + std::to_string(k) +
                      " is outside [0, " + std::to_string(a.srcShape[a.axis]) + ")");
    int64_t off = 0;
    for (int d = 0; d < rank; ++d)
      off += (d == a.axis ? k : pos[d]) * sstr[d];
    o[i] = src[off];
    for (int d = rank - 1; d >= 0; --d) {
      if (++pos[d] < a.idxShape[d])
        break;
      pos[d] = 0;
    }
  }
}

// ---- histogram ----
void histogramK(const Inst &I, Frame &F) {
  const DType dt = static_cast<DType>(I.imm & 0xff);
  const int es = dtypeSize(dt);
  const int64_t bins = I.imm2;
  const char *x = F.R + I.in[0].off;
  const uint8_t *m = (I.imm >> 8) ? F.at<uint8_t>(I.in[1].off) : nullptr;
  int32_t *o = F.at<int32_t>(I.out);
  for (int64_t b = 0; b < bins; ++b)
    o[b] = 0;
  for (int64_t i = 0, n = I.n; i < n; ++i) {
    if (m && !m[I.in[1].bcast ? 0 : i])
      continue;
    int64_t v = readIntSext(x + i * es, dt);
    if (v >= 0 && v < bins)
      ++o[v];
  }
}

} // namespace

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

void emitCopyAs(Compiler &c, const Operation &op, const Value *in, const Value *out) {
  if (c.isBcast(out))
    return;
  Ref r = c.ref(in, true);
  if (!r.bcast && r.off == c.out(out))
    return;
  Inst &I = c.emit(copyKernel(dtypeSize(c.dtype(out))), op);
  I.out = c.out(out);
  I.in[0] = r;
  I.n = c.numel(out);
}

void emitStridedCopyAs(Compiler &c, const Operation &op, const Value *in, const Value *res,
                       const std::vector<int64_t> &strides) {
  auto *a = c.makeAux<StridedAux>();
  a->shape = res->type.shape();
  a->strides = strides;
  a->es = dtypeSize(c.dtype(res));
  if (a->shape.size() > kMaxRank)
    c.fail(op, "rank above 64");
  Ref src = c.ref(in);
  Inst &I = c.emit(stridedCopyKernel(a->es), op);
  I.aux = a;
  I.out = c.out(res);
  I.in[0] = src;
  I.n = c.numel(res);
}

void emitCatAs(Compiler &c, const Operation &op, const Value *av, const Value *bv, const Value *res,
               int dim) {
  const auto &as = av->type.shape(), &bs = bv->type.shape();
  if (dim < 0 || dim >= static_cast<int>(as.size()))
    c.fail(op, "concatenation dimension out of range");
  int64_t outer = 1, innerA = 1, innerB = 1;
  for (int d = 0; d < static_cast<int>(as.size()); ++d) {
    if (d < dim) {
      outer *= as[d];
    } else {
      innerA *= as[d];
      innerB *= bs[d];
    }
  }
  int es = dtypeSize(c.dtype(res));
  Ref a = c.ref(av), b = c.ref(bv);
  Inst &I = c.emit(catK, op);
  I.in[0] = a;
  I.in[1] = b;
  I.out = c.out(res);
  I.n = outer;
  I.imm = innerA * es;
  I.imm2 = innerB * es;
}

bool emitShape(Compiler &c, const Operation &op) {
  const std::string &name = op.name();
  if (name == "tt.make_range") {
    if (!c.stripLen())
      return true;               // a constant (compiler.cpp)
    Inst &I = c.emit(iotaK, op); // strip-mined: start + laneBase + i
    I.out = c.out(op.result(0));
    I.n = c.numel(op.result(0));
    I.imm = op.intAttr("start");
    return true;
  }
  if (name == "tt.splat" || name == "tt.expand_dims" || name == "tt.reshape") {
    emitCopyAs(c, op, op.operand(0), op.result(0));
    return true;
  }
  if (name == "tt.broadcast" || name == "tt.trans") {
    const Value *in = op.operand(0), *res = op.result(0);
    if (c.isBcast(res))
      return true;
    const auto &inShape = in->type.shape(), &outShape = res->type.shape();
    auto inStrides = rowMajorStrides(inShape);
    std::vector<int64_t> strides;
    if (name == "tt.broadcast") {
      if (inShape.size() != outShape.size())
        c.fail(op, "broadcast must keep the rank");
      for (size_t d = 0; d < inShape.size(); ++d)
        strides.push_back(inShape[d] == 1 && outShape[d] != 1 ? 0 : inStrides[d]);
    } else {
      Attribute ord = op.attr("order");
      const auto &order = ord.getInts();
      if (order.size() != inShape.size())
        c.fail(op, "order must list every dimension");
      for (int64_t d : order)
        strides.push_back(inStrides.at(static_cast<size_t>(d)));
    }
    emitStridedCopyAs(c, op, in, res, strides);
    return true;
  }
  if (name == "tt.cat") {
    emitCatAs(c, op, op.operand(0), op.operand(1), op.result(0), 0);
    return true;
  }
  if (name == "tt.join") {
    const Value *res = op.result(0);
    Ref a = c.ref(op.operand(0)), b = c.ref(op.operand(1));
    Inst &I = c.emit(TT_BY_SIZE(joinK, dtypeSize(c.dtype(res))), op);
    I.in[0] = a;
    I.in[1] = b;
    I.out = c.out(res);
    I.n = c.numel(op.operand(0));
    return true;
  }
  if (name == "tt.split") {
    const Value *in = op.operand(0);
    Ref a = c.ref(in);
    Inst &I = c.emit(TT_BY_SIZE(splitK, dtypeSize(c.dtype(in))), op);
    I.in[0] = a;
    I.out = c.out(op.result(0));
    I.imm = c.out(op.result(1));
    I.n = c.numel(op.result(0));
    return true;
  }
  if (name == "tt.gather") {
    const Value *src = op.operand(0), *idx = op.operand(1), *res = op.result(0);
    auto *a = c.makeAux<GatherAux>();
    a->idxShape = idx->type.shape();
    a->srcShape = src->type.shape();
    a->axis = static_cast<int>(op.intAttr("axis"));
    a->srcStrides = rowMajorStrides(a->srcShape);
    a->idxType = c.dtype(idx);
    if (a->idxShape.size() > kMaxRank)
      c.fail(op, "rank above 64");
    if (a->axis < 0 || a->axis >= static_cast<int>(a->srcShape.size()))
      c.fail(op, "axis out of range");
    Ref s = c.ref(src), ix = c.ref(idx);
    Inst &I = c.emit(TT_BY_SIZE(gatherK, dtypeSize(c.dtype(res))), op);
    I.aux = a;
    I.in[0] = s;
    I.in[1] = ix;
    I.out = c.out(res);
    I.n = c.numel(res);
    return true;
  }
  if (name == "tt.histogram") {
    const Value *x = op.operand(0), *res = op.result(0);
    Ref xr = c.ref(x);
    Ref mr = op.numOperands() > 1 ? c.ref(op.operand(1), true) : Ref{};
    Inst &I = c.emit(histogramK, op);
    I.in[0] = xr;
    I.in[1] = mr;
    I.out = c.out(res);
    I.n = c.numel(x);
    I.imm = static_cast<int64_t>(c.dtype(x)) | (op.numOperands() > 1 ? 0x100 : 0);
    I.imm2 = c.numel(res);
    return true;
  }
  return false;
}

} // namespace tt::exec
