// Tile IR shape ops: reshape, broadcast, permute, cat, extract, assume, constant and iota.
//
// Rules:
//  - reshape (row-major) and assume share their operand's register; an `assume div_by<N>` of a
//    scalar integer or pointer is also checked at run time: a GPU compile relies on it (vector
//    and TMA accesses), so a `tl.multiple_of` that does not hold, or an in-kernel descriptor
//    whose base or strides break its 16-byte rule, stops the kernel here (DeviceAssertError,
//    naming the line) instead of running correctly on the CPU only; broadcast of a one-element
//    tile stays a broadcast scalar (tile_compiler.cpp); other broadcasts and permutes are one
//    strided copy (shape_ops.cpp);
//  - cat concatenates along `dim`;
//  - extract takes the slice whose start along dimension d is index_d * result_shape[d]
//    (indices count slices, as in Tile IR); an index whose slice is not inside the source is
//    an error (ExecError), never a wild read;
//  - constants and iota live in the arena's constant prefix (compiler.cpp).
#include <algorithm>

#include "exec/kernels/shared_emit.h"
#include "exec/runtime/copy.h"
#include "exec/tileir/tile_ops.h"

namespace tt::exec {
namespace {

// Triton's bitonic sort and flip reshape a tile of N elements to log2(N) dimensions of 2, so
// ranks well above 8 are ordinary; 64 covers every tile whose dimensions exceed 1.
constexpr int kMaxRank = 64;

void emitAssumeCheck(Compiler &c, const Operation &op) {
  const Attribute &div = op.attr("div_by");
  if (div && div.kind() == Attribute::Kind::Int)
    emitDivisibilityCheck(c, op, op.operand(0), div.getInt());
}

struct ExtractAux : Aux {
  std::vector<int64_t> srcShape, resShape, srcStrides;
  std::vector<Ref> idx;
  std::vector<DType> idxType;
  int es = 4;
};

void extractK(const Inst &I, Frame &F) {
  const ExtractAux &a = *static_cast<const ExtractAux *>(I.aux);
  const int rank = static_cast<int>(a.resShape.size());
  int64_t base = 0;
  for (int d = 0; d < rank; ++d) {
    int64_t k = readIntSext(F.R + a.idx[d].off, a.idxType[d], true);
    int64_t start = k * a.resShape[d];
    if (k < 0 || start + a.resShape[d] > a.srcShape[d])
      throw ExecError("cuda_tile.extract at " + I.site->loc + ": index " + std::to_string(k) +
                      " of dimension " + std::to_string(d) + " selects a slice outside the " +
                      std::to_string(a.srcShape[d]) + " elements of the source");
    base += start * a.srcStrides[d];
  }
  const char *src = F.R + I.in[0].off + base * a.es;
  char *o = F.R + I.out;
  const int64_t inner = rank ? a.resShape[rank - 1] : 1;
  const size_t rowBytes = static_cast<size_t>(inner) * a.es;
  int64_t pos[kMaxRank] = {};
  int64_t off = 0;
  for (int64_t k = 0, rows = I.n / inner; k < rows; ++k) {
    copyBytes(o + k * rowBytes, src + off * a.es, rowBytes);
    for (int d = rank - 2; d >= 0; --d) {
      off += a.srcStrides[d];
      if (++pos[d] < a.resShape[d])
        break;
      off -= a.srcStrides[d] * a.resShape[d];
      pos[d] = 0;
    }
  }
}

void emitExtract(Compiler &c, const Operation &op) {
  const Value *src = op.operand(0), *res = op.result(0);
  auto *a = c.makeAux<ExtractAux>();
  a->srcShape = src->type.shape();
  a->resShape = res->type.shape();
  if (a->srcShape.size() != a->resShape.size() || op.numOperands() != 1 + a->srcShape.size())
    c.fail(op, "needs one index per dimension and a result of the source's rank");
  if (a->resShape.size() > kMaxRank)
    c.fail(op, "rank above 64");
  a->srcStrides = rowMajorStrides(a->srcShape);
  a->es = dtypeSize(c.dtype(res));
  for (size_t d = 1; d < op.numOperands(); ++d) {
    a->idx.push_back(c.ref(op.operand(d)));
    a->idxType.push_back(c.dtype(op.operand(d)));
  }
  Ref s = c.ref(src);
  Inst &I = c.emit(extractK, op);
  I.aux = a;
  I.in[0] = s;
  I.out = c.out(res);
  I.n = c.numel(res);
}

} // namespace

bool emitTileShape(Compiler &c, const Operation &op) {
  std::string n = tileOpName(op);
  if (n == "constant" || n == "iota")
    return true; // the constant prefix
  if (n == "reshape" || n == "assume") {
    if (n == "assume")
      emitAssumeCheck(c, op);
    emitCopyAs(c, op, op.operand(0), op.result(0));
    return true;
  }
  if (n == "broadcast" || n == "permute") {
    const Value *in = op.operand(0), *res = op.result(0);
    if (c.isBcast(res))
      return true;
    const auto &inShape = in->type.shape(), &outShape = res->type.shape();
    if (inShape.size() != outShape.size())
      c.fail(op, "must keep the rank");
    auto inStrides = rowMajorStrides(inShape);
    std::vector<int64_t> strides;
    if (n == "broadcast") {
      if (in->type == res->type) {
        emitCopyAs(c, op, in, res);
        return true;
      }
      for (size_t d = 0; d < inShape.size(); ++d)
        strides.push_back(inShape[d] == 1 && outShape[d] != 1 ? 0 : inStrides[d]);
    } else {
      const auto &perm = op.attr("permutation").getInts();
      if (perm.size() != inShape.size())
        c.fail(op, "the permutation must list every dimension");
      for (int64_t d : perm)
        strides.push_back(inStrides.at(static_cast<size_t>(d)));
    }
    emitStridedCopyAs(c, op, in, res, strides);
    return true;
  }
  if (n == "cat") {
    emitCatAs(c, op, op.operand(0), op.operand(1), op.result(0),
              static_cast<int>(op.intAttr("dim")));
    return true;
  }
  if (n == "extract") {
    emitExtract(c, op);
    return true;
  }
  return false;
}

} // namespace tt::exec
