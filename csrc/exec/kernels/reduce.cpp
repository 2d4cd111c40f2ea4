// tt.reduce and tt.scan along any axis.
//
// The input is viewed as [outer, K, inner] around the axis. Three strategies:
//  - fast: one operand whose combine region is a single recognized op (addf, mulf, maxnumf,
//    minnumf, maximumf, minimumf on f32/f64; addi, muli, maxsi, minsi, maxui, minui, andi, ori,
//    xori on i8..i64): dtype-specialized loops; a reduction along a contiguous row keeps 2 AVX2
//    vectors of partial results and combines them as a tree at the end;
//  - vector: the combine region holds only elementwise ops: it is compiled once per element
//    count and run on whole slices, so every combine step works on outer*inner (scan, or
//    reduction with K not a power of two) or outer*K/2^l*inner (reduction tree level l)
//    elements at once. Reductions pair neighbours (k = 2h with 2h+1), so any associative
//    combine, commutative or not, gets the order Triton allows. Multi-operand (tuple)
//    reductions such as argmax work the same way;
//  - scalar: any other region (control flow inside) runs per element, sequentially along K.
// Scans run sequentially along K: out[k] = combine(out[k-1], x[k]); `reverse` walks from the
// end (combine(acc, x[k]) with acc accumulated from the later elements).
// f16/bf16 reductions take the vector path, which rounds after every combine like the op does.
//
// Both op sets go through emitCombine (shared_emit.h): TTIR's combine region takes (lhs...,
// rhs...) with lhs the running value; Tile IR's takes (element, accumulator) pairs and an
// identity per operand, which the sequential strategies use as the initial accumulator (the
// tree and the fast loops pair elements directly, which an identity does not change).
#include <array>
#include <cstring>

#include "exec/kernels/elementwise.h"
#include "exec/kernels/shared_emit.h"
#include "exec/runtime/copy.h"

namespace tt::exec {
namespace {

struct Geometry {
  int64_t outer = 1, K = 1, inner = 1;
};

Geometry geometry(const std::vector<int64_t> &shape, int axis) {
  Geometry g;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d < axis)
      g.outer *= shape[d];
    else if (d == axis)
      g.K = shape[d];
    else
      g.inner *= shape[d];
  }
  return g;
}

// ---- fast path ----

struct FastAux : Aux {
  Geometry g;
  bool reverse = false;
};

template <class T, class Op> T reduceRow(const T *x, int64_t K) {
  constexpr int L = 64 / sizeof(T);
  if (K < 2 * L) {
    T acc = x[0];
    for (int64_t k = 1; k < K; ++k)
      acc = Op::template f<T>(acc, x[k]);
    return acc;
  }
  T acc[L];
  for (int l = 0; l < L; ++l)
    acc[l] = x[l];
  int64_t k = L;
  for (; k + L <= K; k += L)
    for (int l = 0; l < L; ++l)
      acc[l] = Op::template f<T>(acc[l], x[k + l]);
  for (; k < K; ++k)
    acc[0] = Op::template f<T>(acc[0], x[k]);
  for (int w = L / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l)
      acc[l] = Op::template f<T>(acc[l], acc[l + w]);
  return acc[0];
}

template <class T, class Op> void reduceFastK(const Inst &I, Frame &F) {
  const Geometry &g = static_cast<const FastAux *>(I.aux)->g;
  const T *x = F.at<T>(I.in[0].off);
  T *__restrict o = F.at<T>(I.out);
  if (g.inner == 1) {
    for (int64_t r = 0; r < g.outer; ++r)
      o[r] = reduceRow<T, Op>(x + r * g.K, g.K);
    return;
  }
  for (int64_t r = 0; r < g.outer; ++r) {
    T *__restrict dst = o + r * g.inner;
    const T *src = x + r * g.K * g.inner;
    copyBytes(dst, src, static_cast<size_t>(g.inner) * sizeof(T));
    for (int64_t k = 1; k < g.K; ++k) {
      const T *__restrict row = src + k * g.inner;
      for (int64_t j = 0; j < g.inner; ++j)
        dst[j] = Op::template f<T>(dst[j], row[j]);
    }
  }
}

template <class T, class Op> void scanFastK(const Inst &I, Frame &F) {
  const FastAux &a = *static_cast<const FastAux *>(I.aux);
  const Geometry &g = a.g;
  const T *x = F.at<T>(I.in[0].off);
  T *__restrict o = F.at<T>(I.out);
  const int64_t first = a.reverse ? g.K - 1 : 0, step = a.reverse ? -1 : 1;
  for (int64_t r = 0; r < g.outer; ++r) {
    const T *src = x + r * g.K * g.inner;
    T *dst = o + r * g.K * g.inner;
    if (g.inner == 1) {
      T acc = src[first];
      dst[first] = acc;
      for (int64_t k = first + step, c = 1; c < g.K; k += step, ++c) {
        acc = Op::template f<T>(acc, src[k]);
        dst[k] = acc;
      }
      continue;
    }
    copyBytes(dst + first * g.inner, src + first * g.inner,
              static_cast<size_t>(g.inner) * sizeof(T));
    for (int64_t k = first + step, c = 1; c < g.K; k += step, ++c) {
      const T *__restrict prev = dst + (k - step) * g.inner;
      const T *__restrict row = src + k * g.inner;
      T *__restrict out = dst + k * g.inner;
      for (int64_t j = 0; j < g.inner; ++j)
        out[j] = Op::template f<T>(prev[j], row[j]);
    }
  }
}

template <class T, class Op> KernelFn fastKernel(bool scan) {
  return scan ? scanFastK<T, Op> : reduceFastK<T, Op>;
}

// The kernel for a single-op combine region, or null.
KernelFn pickFast(const std::string &op, DType dt, bool scan) {
  using namespace ew;
  if (dt == DType::F32 || dt == DType::F64) {
    auto pick = [&](auto tag) -> KernelFn {
      using T = decltype(tag);
      if (op == "arith.addf")
        return fastKernel<T, AddF>(scan);
      if (op == "arith.mulf")
        return fastKernel<T, MulF>(scan);
      if (op == "arith.maxnumf")
        return fastKernel<T, MaxNumF>(scan);
      if (op == "arith.minnumf")
        return fastKernel<T, MinNumF>(scan);
      if (op == "arith.maximumf")
        return fastKernel<T, MaximumF>(scan);
      if (op == "arith.minimumf")
        return fastKernel<T, MinimumF>(scan);
      return nullptr;
    };
    return dt == DType::F32 ? pick(float{}) : pick(double{});
  }
  auto pickInt = [&](auto tag, auto bits) -> KernelFn {
    using U = decltype(tag);
    constexpr int B = decltype(bits)::value;
    if (op == "arith.addi")
      return fastKernel<U, AddI<B>>(scan);
    if (op == "arith.muli")
      return fastKernel<U, MulI<B>>(scan);
    if (op == "arith.maxsi")
      return fastKernel<U, MaxSI<B>>(scan);
    if (op == "arith.minsi")
      return fastKernel<U, MinSI<B>>(scan);
    if (op == "arith.maxui")
      return fastKernel<U, MaxUI<B>>(scan);
    if (op == "arith.minui")
      return fastKernel<U, MinUI<B>>(scan);
    if (op == "arith.andi")
      return fastKernel<U, AndI<B>>(scan);
    if (op == "arith.ori")
      return fastKernel<U, OrI<B>>(scan);
    if (op == "arith.xori")
      return fastKernel<U, XorI<B>>(scan);
    return nullptr;
  };
  switch (dt) {
  case DType::I8:
    return pickInt(uint8_t{}, std::integral_constant<int, 8>{});
  case DType::I16:
    return pickInt(uint16_t{}, std::integral_constant<int, 16>{});
  case DType::I32:
    return pickInt(uint32_t{}, std::integral_constant<int, 32>{});
  case DType::I64:
    return pickInt(uint64_t{}, std::integral_constant<int, 64>{});
  default:
    return nullptr;
  }
}

} // namespace

// The single op of a region `^bb(%a, %b): %r = OP %a, %b; return %r`, or null.
const Operation *singleCombineOp(const Block &b) {
  if (b.numArgs() != 2 || b.ops().size() != 2)
    return nullptr;
  const Operation *op = b.ops().front().get();
  const Operation *ret = b.back();
  if (op->numOperands() != 2 || op->numResults() != 1 || ret->numOperands() != 1 ||
      ret->operand(0) != op->result(0))
    return nullptr;
  bool direct = op->operand(0) == b.arg(0) && op->operand(1) == b.arg(1);
  bool swapped = op->operand(0) == b.arg(1) && op->operand(1) == b.arg(0);
  return (direct || swapped) ? op : nullptr;
}

namespace {

// ---- general path ----

struct GeneralAux : Aux {
  Geometry g;
  bool scan = false, reverse = false, tree = false, scalar = false;
  bool hasIdentity = false;                  // start from identities (else the first element)
  std::vector<std::array<char, 8>> identity; // per operand, in its element type
  std::vector<Ref> inputs;
  std::vector<uint32_t> outs, lhs, rhs, work;
  std::vector<Ref> rets;
  std::vector<int> es;
  std::vector<InstList> programs; // tree: one per level; otherwise one
};

// dst[o, :, :] = src[o, k, :] for a [outer, K, inner] source (inner elements per row).
inline void takeSlice(char *dst, const char *src, const Geometry &g, int64_t k, int es) {
  const size_t row = static_cast<size_t>(g.inner) * es;
  for (int64_t o = 0; o < g.outer; ++o)
    copyBytes(dst + o * row, src + ((o * g.K + k) * g.inner) * es, row);
}
inline void putSlice(char *dst, const char *src, const Geometry &g, int64_t k, int es) {
  const size_t row = static_cast<size_t>(g.inner) * es;
  for (int64_t o = 0; o < g.outer; ++o)
    copyBytes(dst + ((o * g.K + k) * g.inner) * es, src + o * row, row);
}
// Copies a combine result (possibly a broadcast constant) into n elements at dst.
inline void takeResult(Frame &F, char *dst, Ref r, int64_t n, int es) {
  if (!r.bcast) {
    if (F.R + r.off != dst)
      copyBytes(dst, F.R + r.off, static_cast<size_t>(n) * es);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * es, F.R + r.off, static_cast<size_t>(es));
}

void reduceTreeK(const GeneralAux &a, Frame &F) {
  const Geometry &g = a.g;
  const size_t N = a.inputs.size();
  int64_t Kc = g.K;
  int level = 0;
  bool fromInput = true;
  while (Kc > 1) {
    const int64_t half = Kc / 2;
    const Geometry cur{g.outer, Kc, g.inner};
    for (size_t j = 0; j < N; ++j) {
      const char *src = F.R + (fromInput ? a.inputs[j].off : a.work[j]);
      char *l = F.R + a.lhs[j], *r = F.R + a.rhs[j];
      const int es = a.es[j];
      const size_t row = static_cast<size_t>(g.inner) * es;
      for (int64_t o = 0; o < g.outer; ++o)
        for (int64_t h = 0; h < half; ++h) {
          const int64_t d = (o * half + h) * g.inner * es;
          copyBytes(l + d, src + ((o * Kc + 2 * h) * g.inner) * es, row);
          copyBytes(r + d, src + ((o * Kc + 2 * h + 1) * g.inner) * es, row);
        }
    }
    (void)cur;
    runList(a.programs[level], F);
    const int64_t n = g.outer * half * g.inner;
    for (size_t j = 0; j < N; ++j)
      takeResult(F, F.R + a.work[j], a.rets[j], n, a.es[j]);
    fromInput = false;
    Kc = half;
    ++level;
  }
  const int64_t n = g.outer * g.inner;
  for (size_t j = 0; j < N; ++j) {
    const char *src = F.R + (fromInput ? a.inputs[j].off : a.work[j]);
    copyBytes(F.R + a.outs[j], src, static_cast<size_t>(n) * a.es[j]);
  }
}

// n copies of an identity element.
inline void fillIdentity(char *dst, const std::array<char, 8> &id, int64_t n, int es) {
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * es, id.data(), static_cast<size_t>(es));
}

// Sequential along K for whole slices (vector) or one column at a time (scalar).
void sequentialK(const GeneralAux &a, Frame &F) {
  const Geometry &g = a.g;
  const size_t N = a.inputs.size();
  const int64_t first = a.reverse ? g.K - 1 : 0, step = a.reverse ? -1 : 1;
  const int64_t c0 = a.hasIdentity ? 0 : 1; // the first combined element
  if (!a.scalar) {
    const int64_t n = g.outer * g.inner;
    for (size_t j = 0; j < N; ++j) {
      if (a.hasIdentity) {
        fillIdentity(F.R + a.lhs[j], a.identity[j], n, a.es[j]);
        continue;
      }
      takeSlice(F.R + a.lhs[j], F.R + a.inputs[j].off, g, first, a.es[j]);
      if (a.scan)
        putSlice(F.R + a.outs[j], F.R + a.lhs[j], g, first, a.es[j]);
    }
    for (int64_t k = first + c0 * step, c = c0; c < g.K; k += step, ++c) {
      for (size_t j = 0; j < N; ++j)
        takeSlice(F.R + a.rhs[j], F.R + a.inputs[j].off, g, k, a.es[j]);
      runList(a.programs[0], F);
      for (size_t j = 0; j < N; ++j) {
        takeResult(F, F.R + a.lhs[j], a.rets[j], n, a.es[j]);
        if (a.scan)
          putSlice(F.R + a.outs[j], F.R + a.lhs[j], g, k, a.es[j]);
      }
    }
    if (!a.scan)
      for (size_t j = 0; j < N; ++j)
        copyBytes(F.R + a.outs[j], F.R + a.lhs[j], static_cast<size_t>(n) * a.es[j]);
    return;
  }
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t i = 0; i < g.inner; ++i) {
      auto at = [&](int64_t k) { return (o * g.K + k) * g.inner + i; };
      for (size_t j = 0; j < N; ++j) {
        if (a.hasIdentity) {
          fillIdentity(F.R + a.lhs[j], a.identity[j], 1, a.es[j]);
          continue;
        }
        std::memcpy(F.R + a.lhs[j], F.R + a.inputs[j].off + at(first) * a.es[j], a.es[j]);
        if (a.scan)
          std::memcpy(F.R + a.outs[j] + at(first) * a.es[j], F.R + a.lhs[j], a.es[j]);
      }
      for (int64_t k = first + c0 * step, c = c0; c < g.K; k += step, ++c) {
        for (size_t j = 0; j < N; ++j)
          std::memcpy(F.R + a.rhs[j], F.R + a.inputs[j].off + at(k) * a.es[j], a.es[j]);
        runList(a.programs[0], F);
        for (size_t j = 0; j < N; ++j) {
          takeResult(F, F.R + a.lhs[j], a.rets[j], 1, a.es[j]);
          if (a.scan)
            std::memcpy(F.R + a.outs[j] + at(k) * a.es[j], F.R + a.lhs[j], a.es[j]);
        }
      }
      if (!a.scan)
        for (size_t j = 0; j < N; ++j)
          std::memcpy(F.R + a.outs[j] + (o * g.inner + i) * a.es[j], F.R + a.lhs[j], a.es[j]);
    }
}

void generalK(const Inst &I, Frame &F) {
  const GeneralAux &a = *static_cast<const GeneralAux *>(I.aux);
  if (a.tree)
    reduceTreeK(a, F);
  else
    sequentialK(a, F);
}

bool regionIsElementwise(const Block &b) {
  for (const auto &op : b.ops()) {
    if (op->info()->has(kTerminator))
      continue;
    if (op->numRegions() || !isElementwiseOp(*op))
      return false;
  }
  return true;
}

std::vector<Ref> regionResults(Compiler &c, const Block &b, int64_t n) {
  std::vector<Ref> r;
  const Operation *ret = b.terminator();
  for (const Value *v : ret->operands) {
    Ref x = c.ref(v, true);
    if (!x.bcast && c.numel(v) == 1 && n > 1)
      x.bcast = true;
    r.push_back(x);
  }
  return r;
}

} // namespace

namespace {

// tt.map_elementwise: the region runs once per `pack` elements, on scalars, so any control
// flow inside is fine (the scalar mode of a combine region).
struct MapAux : Aux {
  std::vector<Ref> inputs;
  std::vector<uint32_t> outs, args;
  std::vector<Ref> rets;
  std::vector<int> esIn, esOut;
  int64_t pack = 1, n = 0;
  InstList program;
};

void mapK(const Inst &I, Frame &F) {
  const MapAux &a = *static_cast<const MapAux *>(I.aux);
  const size_t numInputs = a.inputs.size();
  for (int64_t e = 0; e < a.n; e += a.pack) {
    for (size_t j = 0; j < numInputs; ++j)
      for (int64_t p = 0; p < a.pack; ++p)
        std::memcpy(F.R + a.args[j * a.pack + p], F.R + a.inputs[j].off + (e + p) * a.esIn[j],
                    static_cast<size_t>(a.esIn[j]));
    runList(a.program, F);
    for (size_t r = 0; r < a.rets.size(); ++r) {
      const size_t out = r / a.pack;
      const int64_t p = static_cast<int64_t>(r % a.pack);
      std::memcpy(F.R + a.outs[out] + (e + p) * a.esOut[out], F.R + a.rets[r].off,
                  static_cast<size_t>(a.esOut[out]));
    }
  }
}

bool emitMapElementwise(Compiler &c, const Operation &op) {
  auto *a = c.makeAux<MapAux>();
  a->pack = op.intAttr("pack", 1);
  a->n = c.numel(op.operand(0));
  const Block &body = *op.region(0)->front();
  const Operation *term = body.terminator();
  if (a->pack < 1 || a->n % a->pack != 0)
    c.fail(op, "pack must divide the number of elements");
  if (!term || term->numOperands() != op.numResults() * static_cast<size_t>(a->pack))
    c.fail(op, "the region must return pack values per result");
  for (size_t j = 0; j < op.numOperands(); ++j) {
    a->inputs.push_back(c.ref(op.operand(j)));
    a->esIn.push_back(dtypeSize(c.dtype(op.operand(j))));
  }
  for (size_t j = 0; j < op.numResults(); ++j) {
    a->outs.push_back(c.out(op.result(j)));
    a->esOut.push_back(dtypeSize(c.dtype(op.result(j))));
  }
  c.assignRegion(body, 1);
  for (size_t i = 0; i < body.numArgs(); ++i)
    a->args.push_back(c.out(body.arg(i)));
  c.compileBlock(body, a->program);
  a->rets = regionResults(c, body, 1);
  Inst &I = c.emit(mapK, op);
  I.aux = a;
  return true;
}

} // namespace

bool emitReduce(Compiler &c, const Operation &op) {
  if (op.is("tt.map_elementwise"))
    return emitMapElementwise(c, op);
  bool scan = op.is("tt.scan");
  if (!scan && !op.is("tt.reduce"))
    return false;
  CombineSpec spec;
  const size_t N = op.numOperands();
  for (size_t j = 0; j < N; ++j)
    spec.inputs.push_back(op.operand(j));
  for (size_t j = 0; j < op.numResults(); ++j)
    spec.results.push_back(op.result(j));
  spec.axis = static_cast<int>(op.intAttr("axis", 0));
  spec.scan = scan;
  spec.reverse = scan && op.intAttr("reverse", 0) != 0;
  if (op.numRegions() != 1 || op.region(0)->empty())
    c.fail(op, "needs a combine region");
  spec.body = op.region(0)->front();
  for (size_t j = 0; j < N; ++j) {
    spec.accArg.push_back(j);
    spec.elemArg.push_back(N + j);
  }
  if (const Operation *single = singleCombineOp(*spec.body))
    spec.singleKernel = single->name();
  emitCombine(c, op, spec);
  return true;
}

void emitCombine(Compiler &c, const Operation &op, const CombineSpec &spec) {
  const size_t N = spec.inputs.size();
  if (N == 0 || spec.results.size() != N)
    c.fail(op, "needs as many results as operands");
  const auto &shape = spec.inputs[0]->type.shape();
  int axis = spec.axis;
  if (shape.empty() || axis < 0 || axis >= static_cast<int>(shape.size()))
    c.fail(op, "axis " + std::to_string(axis) + " out of range");
  const Geometry g = geometry(shape, axis);
  const bool scan = spec.scan, reverse = spec.reverse;
  const Block &body = *spec.body;
  const Operation *term = body.terminator();
  if (body.numArgs() != 2 * N || !term || term->numOperands() != N)
    c.fail(op, "the combine region needs 2N arguments and returns N values");

  if (N == 1 && !spec.singleKernel.empty()) {
    if (KernelFn fn = pickFast(spec.singleKernel, c.dtype(spec.inputs[0]), scan)) {
      auto *a = c.makeAux<FastAux>();
      a->g = g;
      a->reverse = reverse;
      Ref in = c.ref(spec.inputs[0]);
      Inst &I = c.emit(fn, op);
      I.aux = a;
      I.in[0] = in;
      I.out = c.out(spec.results[0]);
      I.n = c.numel(spec.inputs[0]);
      return;
    }
  }

  auto *a = c.makeAux<GeneralAux>();
  a->g = g;
  a->scan = scan;
  a->reverse = reverse;
  a->scalar = !regionIsElementwise(body);
  a->tree = !scan && !a->scalar && g.K > 1 && (g.K & (g.K - 1)) == 0;
  a->hasIdentity = !spec.identities.empty() && !a->tree;
  for (size_t j = 0; j < N; ++j) {
    a->inputs.push_back(c.ref(spec.inputs[j]));
    a->outs.push_back(c.out(spec.results[j]));
    a->es.push_back(dtypeSize(c.dtype(spec.inputs[j])));
    if (a->hasIdentity) {
      const Attribute &id = spec.identities.at(j);
      std::array<char, 8> bytes{};
      bool isFloat = id.kind() == Attribute::Kind::Float;
      encodeConstant(bytes.data(), c.dtype(spec.inputs[j]), isFloat, isFloat ? id.getFloat() : 0,
                     isFloat ? 0 : id.getInt());
      a->identity.push_back(bytes);
    }
  }
  int64_t n = a->scalar ? 1 : (a->tree ? g.outer * (g.K / 2) * g.inner : g.outer * g.inner);
  c.assignRegion(body, n);
  for (size_t j = 0; j < N; ++j) {
    a->lhs.push_back(c.out(body.arg(spec.accArg[j])));
    a->rhs.push_back(c.out(body.arg(spec.elemArg[j])));
    if (a->tree)
      a->work.push_back(c.scratch(static_cast<size_t>(n) * a->es[j]));
  }
  if (a->tree) {
    for (int64_t half = g.K / 2; half >= 1; half /= 2) {
      int64_t nl = g.outer * half * g.inner;
      c.setRegionNumel(body, nl);
      a->programs.emplace_back();
      c.compileBlock(body, a->programs.back());
      if (half == g.K / 2)
        a->rets = regionResults(c, body, nl);
    }
    // The result refs may be broadcast only by being scalar constants: same for all levels.
  } else {
    a->programs.emplace_back();
    c.compileBlock(body, a->programs.back());
    a->rets = regionResults(c, body, n);
  }
  Inst &I = c.emit(generalK, op);
  I.aux = a;
}

} // namespace tt::exec
