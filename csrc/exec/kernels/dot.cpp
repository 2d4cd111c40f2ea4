// tt.dot: D = A * B + C, 2-D ([M,K] x [K,N]) or batched 3-D ([B,M,K] x [B,K,N]).
//
// Numerics follow NVIDIA tensor cores:
//  - f32 inputs with inputPrecision tf32 (0) are rounded to tf32 first (cvt.rna.tf32.f32:
//    nearest, ties away from zero, 10 mantissa bits), then multiplied exactly and accumulated
//    in f32; ieee (2) uses the f32 inputs as they are; tf32x3 (1) splits each input into
//    hi = tf32(x) and lo = tf32(x - hi) and accumulates lo*hi, hi*lo, then hi*hi;
//  - f16, bf16 and fp8 inputs are widened to f32 (exact) and accumulated in f32; a f16/bf16
//    accumulator is widened for the product and rounded back once at the end;
//  - f64 accumulates in f64; i8 x i8 accumulates in i32 (wrapping), each operand signed or
//    unsigned (Tile IR's mmai; TTIR's tt.dot is signed).
// Tile IR's mmaf takes tf32 operands already rounded by ftof (f32 storage) and runs as ieee.
// maxNumImpreciseAcc is ignored (accumulation is always full f32). The float products are
// gemm.cpp's; conversions go to scratch registers allocated at prepare time. A deferred dot
// (forward.cpp) runs gemmChain(K) K steps as one GEMM; each element still takes its products in
// order.
#include <algorithm>
#include <cstring>

#include "exec/kernels/dot_store.h"
#include "exec/kernels/gemm.h"
#include "exec/kernels/shared_emit.h"
#include "exec/runtime/copy.h"
#include "exec/runtime/tile_memo.h"

namespace tt::exec {
namespace {

enum Precision { kTF32 = 0, kTF32x3 = 1, kIEEE = 2 };

struct DotAux : Aux {
  int64_t batch = 1, M = 0, N = 0, K = 0;
  DType aType, bType, cType;
  int precision = kIEEE;
  Ref a, b, c;
  uint32_t d = 0;
  // Scratch (f32 or f64) copies of the operands; 0 when the operand is used in place.
  uint32_t aw = 0, bw = 0, alo = 0, blo = 0, dw = 0;
  uint32_t pending = 0; // a deferred dot's Pending (forward.cpp, "deferred")
  int chain = 0;        // ... and its steps per GEMM
  bool fused = false;   // ... whose last steps a store of the accumulator runs (dot_store.h)
  uint32_t held = 0;    // ... and room for one copied step's A and B (dotDeferK)
};

// A deferred dot's steps that wait for the next ones: their A rows and B tiles stay where they
// are (in the matrix, in memo slots) until the chain's last step (gemmChain(K), gemm.h) runs
// the GEMM over them all, or the flush after the loop takes those left. The memo never evicts
// a slot one of the last chain - 1 fetches of B's table returned (forward.cpp tells it so), so
// the steps that wait keep their B. A fused dot (dot_store.h) runs a full chain only when the
// next step comes, so its last steps always wait for the store: its table holds chain slots.
static_assert(kMaxChain <= TileMemo::kMaxHeld, "a waiting step's memo slot could be evicted");
struct Pending {
  int64_t count;
  GemmStep steps[kMaxChain];
  const DotAux *dot; // whose steps: its tile and accumulator (set by dotResetK)
  bool lastCopied;   // the last step's A or B was copied into its register
};

// ---- integer GEMM: D[M,N] += A[M,K] * B[K,N], row-major (the float ones are gemm.cpp's) ----
template <class TA, class TB>
void gemmAccI8(const TA *A, const TB *B, int32_t *D, int64_t M, int64_t N, int64_t K) {
  for (int64_t i = 0; i < M; ++i) {
    uint32_t *__restrict drow = reinterpret_cast<uint32_t *>(D + i * N);
    for (int64_t k = 0; k < K; ++k) {
      const int32_t aik = A[i * K + k];
      const TB *__restrict brow = B + k * N;
      for (int64_t j = 0; j < N; ++j)
        drow[j] += static_cast<uint32_t>(aik * static_cast<int32_t>(brow[j]));
    }
  }
}

// ---- conversions to the compute type ----
void widenToF32(const char *src, DType dt, float *dst, int64_t n) {
  switch (dt) {
  case DType::F32:
    std::memcpy(dst, src, static_cast<size_t>(n) * 4);
    break;
  case DType::F16:
    f16ToF32Array(reinterpret_cast<const uint16_t *>(src), dst, n);
    break;
  case DType::BF16:
    bf16ToF32Array(reinterpret_cast<const uint16_t *>(src), dst, n);
    break;
  case DType::F8E4M3:
    for (int64_t i = 0; i < n; ++i)
      dst[i] = fp8e4m3ToF32(static_cast<uint8_t>(src[i]));
    break;
  case DType::F8E5M2:
    for (int64_t i = 0; i < n; ++i)
      dst[i] = fp8e5m2ToF32(static_cast<uint8_t>(src[i]));
    break;
  default:
    break;
  }
}
void narrowFromF32(const float *src, DType dt, char *dst, int64_t n) {
  switch (dt) {
  case DType::F16:
    f32ToF16Array(src, reinterpret_cast<uint16_t *>(dst), n);
    break;
  case DType::BF16:
    f32ToBf16Array(src, reinterpret_cast<uint16_t *>(dst), n);
    break;
  default:
    std::memcpy(dst, src, static_cast<size_t>(n) * 4);
    break;
  }
}
void tf32Round(const float *src, float *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = roundTf32(src[i]);
}
void tf32Split(const float *src, float *hi, float *lo, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float h = roundTf32(src[i]);
    hi[i] = h;
    lo[i] = roundTf32(src[i] - h);
  }
}

// Fills dst (n elements of es bytes) from the accumulator operand (maybe a broadcast scalar).
void loadAcc(Frame &F, Ref c, char *dst, int64_t n, int es) {
  if (!c.bcast) {
    if (dst != F.R + c.off) // the accumulator may share the result's register
      copyBytes(dst, F.R + c.off, static_cast<size_t>(n) * es);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * es, F.R + c.off, static_cast<size_t>(es));
}

// Calls f(src, dst, n) over A's M rows of K elements, rowBytes apart in the source and dense in
// the destination; once for all of them when the source is dense too.
template <class Fn>
void eachARow(const char *src, int64_t rowBytes, int es, int64_t M, int64_t K, Fn f) {
  if (rowBytes == K * es)
    return f(src, int64_t(0), M * K);
  for (int64_t r = 0; r < M; ++r)
    f(src + r * rowBytes, r * K, K);
}

void dotFloatK(const Inst &I, Frame &F) {
  const DotAux &x = *static_cast<const DotAux *>(I.aux);
  const int64_t MK = x.M * x.K, KN = x.K * x.N, MN = x.M * x.N;
  const int aes = dtypeSize(x.aType), bes = dtypeSize(x.bType), ces = dtypeSize(x.cType);
  for (int64_t bi = 0; bi < x.batch; ++bi) {
    // A forwarded A (forward.cpp: 2-D, so one batch) may be rows of a matrix in memory.
    const char *aSrc = x.a.ind ? F.fwdSlot(x.a.off) : F.R + x.a.off + bi * MK * aes;
    const int64_t aRowBytes = x.a.ind ? F.fwdRowBytes(x.a.off) : x.K * aes;
    // A forwarded B (2-D) is dense, maybe in the thread's tile memo (forward.cpp, "memo") and
    // then maybe in the GEMM's panels (gemm.h), which the element-wise conversions keep.
    const char *bSrc = x.b.ind ? F.fwdSlot(x.b.off) : F.R + x.b.off + bi * KN * bes;
    const bool bPanels = x.b.ind && F.fwdPanels(x.b.off);
    char *dOut = F.R + x.d + bi * MN * ces;
    // Accumulator in f32.
    float *D = x.dw ? F.at<float>(x.dw) : reinterpret_cast<float *>(dOut);
    if (x.dw) {
      if (x.c.bcast) {
        float v;
        widenToF32(F.R + x.c.off, x.cType, &v, 1);
        for (int64_t i = 0; i < MN; ++i)
          D[i] = v;
      } else {
        widenToF32(F.R + x.c.off + bi * MN * ces, x.cType, D, MN);
      }
    } else {
      loadAcc(F, x.c.bcast ? x.c : Ref{static_cast<uint32_t>(x.c.off + bi * MN * ces), false}, dOut,
              MN, 4);
    }
    // f32 ieee reads A where it is; the other forms convert it into dense scratch.
    const float *A = reinterpret_cast<const float *>(aSrc);
    int64_t lda = aRowBytes / aes;
    const float *B = reinterpret_cast<const float *>(bSrc);
    if (x.aType != DType::F32) {
      float *aw = F.at<float>(x.aw);
      eachARow(aSrc, aRowBytes, aes, x.M, x.K, [&](const char *src, int64_t at, int64_t n) {
        widenToF32(src, x.aType, aw + at, n);
      });
      A = aw;
      lda = x.K;
    }
    if (x.bType != DType::F32) {
      float *bw = F.at<float>(x.bw);
      widenToF32(bSrc, x.bType, bw, KN);
      B = bw;
    }
    if (x.aType == DType::F32 && x.precision == kTF32) {
      float *aw = F.at<float>(x.aw), *bw = F.at<float>(x.bw);
      eachARow(aSrc, aRowBytes, aes, x.M, x.K, [&](const char *src, int64_t at, int64_t n) {
        tf32Round(reinterpret_cast<const float *>(src), aw + at, n);
      });
      tf32Round(B, bw, KN);
      gemmAcc(aw, x.K, bw, bPanels, D, x.M, x.N, x.K);
    } else if (x.aType == DType::F32 && x.precision == kTF32x3) {
      float *ahi = F.at<float>(x.aw), *bhi = F.at<float>(x.bw);
      float *alo = F.at<float>(x.alo), *blo = F.at<float>(x.blo);
      eachARow(aSrc, aRowBytes, aes, x.M, x.K, [&](const char *src, int64_t at, int64_t n) {
        tf32Split(reinterpret_cast<const float *>(src), ahi + at, alo + at, n);
      });
      tf32Split(reinterpret_cast<const float *>(bSrc), bhi, blo, KN);
      gemmAcc(alo, x.K, bhi, bPanels, D, x.M, x.N, x.K);
      gemmAcc(ahi, x.K, blo, bPanels, D, x.M, x.N, x.K);
      gemmAcc(ahi, x.K, bhi, bPanels, D, x.M, x.N, x.K);
    } else {
      gemmAcc(A, lda, B, bPanels, D, x.M, x.N, x.K);
    }
    if (x.dw)
      narrowFromF32(D, x.cType, dOut, MN);
  }
}

// Whether a waiting step reads the dot's held copy (x.held).
bool holding(const Pending &p, const float *held) {
  for (int64_t s = 0; s < p.count; ++s)
    if (p.steps[s].A == held || p.steps[s].B == held + p.dot->M * p.dot->K)
      return true;
  return false;
}

// tt.dot / mmaf deferred (2-D f32, ieee, accumulating in place): runs the GEMM every x.chain K
// steps, as one GEMM over them. A step whose A or B had to be copied into its register (a masked
// edge tile) runs at once, with the steps waiting before it: the next step's load rewrites the
// register. Except in a fused dot, where such a step after one that was not copied (a K loop's
// last, partial step: K not a multiple of BLOCK_K) moves its copies to the dot's own room and
// waits, so that the store still runs the last steps (else the accumulator's 16 KiB go to C by a
// copy). A tile whose every step is copied (an edge program's) holds none after its first.
void dotDeferK(const Inst &I, Frame &F) {
  const DotAux &x = *static_cast<const DotAux *>(I.aux);
  Pending &p = *F.at<Pending>(x.pending);
  const char *a = F.fwdSlot(x.a.off), *b = F.fwdSlot(x.b.off);
  GemmStep cur{reinterpret_cast<const float *>(a), F.fwdRowBytes(x.a.off) / 4,
               reinterpret_cast<const float *>(b), F.fwdPanels(x.b.off) != 0};
  float *D = F.at<float>(x.d);
  if (x.fused && p.count == x.chain) { // a full chain runs once the next step comes
    p.count = 0;
    gemmAccSteps(p.steps, x.chain, D, x.M, x.N, x.K);
  }
  const bool copiedA = a == F.R + x.a.off, copiedB = b == F.R + x.b.off;
  bool runNow = !x.fused && p.count + 1 == x.chain;
  if (copiedA || copiedB) {
    float *held = F.at<float>(x.held);
    if (x.fused && !p.lastCopied && !holding(p, held)) {
      if (copiedA) {
        std::memcpy(held, a, static_cast<size_t>(x.M * x.K) * 4);
        cur.A = held;
        cur.lda = x.K;
      }
      if (copiedB) {
        std::memcpy(held + x.M * x.K, b, static_cast<size_t>(x.K * x.N) * 4);
        cur.B = held + x.M * x.K;
        cur.bPanels = false;
      }
    } else {
      runNow = true;
    }
  }
  p.lastCopied = copiedA || copiedB;
  p.steps[p.count++] = cur;
  if (runNow) {
    const int n = static_cast<int>(p.count); // full, or copied (its register is rewritten)
    p.count = 0;
    gemmAccSteps(p.steps, n, D, x.M, x.N, x.K);
  }
}

void dotResetK(const Inst &I, Frame &F) {
  const DotAux &x = *static_cast<const DotAux *>(I.aux);
  Pending &p = *F.at<Pending>(x.pending);
  p.count = 0;
  p.dot = &x;
  p.lastCopied = false;
}

void dotFlushK(const Inst &I, Frame &F) {
  const DotAux &x = *static_cast<const DotAux *>(I.aux);
  Pending &p = *F.at<Pending>(x.pending);
  if (!p.count)
    return;
  const int n = static_cast<int>(p.count);
  p.count = 0;
  gemmAccSteps(p.steps, n, F.at<float>(x.d), x.M, x.N, x.K);
}

void dotF64K(const Inst &I, Frame &F) {
  const DotAux &x = *static_cast<const DotAux *>(I.aux);
  const int64_t MK = x.M * x.K, KN = x.K * x.N, MN = x.M * x.N;
  for (int64_t bi = 0; bi < x.batch; ++bi) {
    double *D = F.at<double>(x.d) + bi * MN;
    loadAcc(F, x.c.bcast ? x.c : Ref{static_cast<uint32_t>(x.c.off + bi * MN * 8), false},
            reinterpret_cast<char *>(D), MN, 8);
    gemmAcc(F.at<double>(x.a.off) + bi * MK, F.at<double>(x.b.off) + bi * KN, D, x.M, x.N, x.K);
  }
}

template <class TA, class TB> void dotI8K(const Inst &I, Frame &F) {
  const DotAux &x = *static_cast<const DotAux *>(I.aux);
  const int64_t MK = x.M * x.K, KN = x.K * x.N, MN = x.M * x.N;
  for (int64_t bi = 0; bi < x.batch; ++bi) {
    int32_t *D = F.at<int32_t>(x.d) + bi * MN;
    loadAcc(F, x.c.bcast ? x.c : Ref{static_cast<uint32_t>(x.c.off + bi * MN * 4), false},
            reinterpret_cast<char *>(D), MN, 4);
    gemmAccI8(F.at<TA>(x.a.off) + bi * MK, F.at<TB>(x.b.off) + bi * KN, D, x.M, x.N, x.K);
  }
}

bool isSmallFloat(DType d) {
  return d == DType::F16 || d == DType::BF16 || d == DType::F8E4M3 || d == DType::F8E5M2;
}

// The bytes [lo, hi) spanned by `rows` rows of `lanes` floats, `ld` floats apart; false when
// the last row's offset overflows (a pitch whose multiples wrap: treated as meeting anything).
bool span(const float *first, int64_t rows, int64_t lanes, int64_t ld, uintptr_t &lo,
          uintptr_t &hi) {
  int64_t reach;
  if (__builtin_mul_overflow(rows - 1, ld, &reach) || __builtin_mul_overflow(reach, 4, &reach))
    return false;
  const uintptr_t a = reinterpret_cast<uintptr_t>(first);
  const uintptr_t b = a + static_cast<uintptr_t>(reach);
  lo = std::min(a, b);
  hi = std::max(a, b) + static_cast<uintptr_t>(lanes) * 4;
  return true;
}

// Whether the rows a GEMM writes meet the A rows or the B tile a waiting step reads (a store of
// C = C @ W into C's own rows, each program its own: on a GPU every load comes before the
// store; here the GEMM writes a row block while the next ones still read).
bool meetsOperands(const Pending &p, int n, const float *out, int64_t ldo) {
  const DotAux &x = *p.dot;
  uintptr_t olo, ohi, lo, hi;
  if (!span(out, x.M, x.N, ldo, olo, ohi))
    return true;
  for (int s = 0; s < n; ++s) {
    if (!span(p.steps[s].A, x.M, x.K, p.steps[s].lda, lo, hi) || (lo < ohi && olo < hi))
      return true;
    // (B: a dense tile, in a memo slot or in place)
    if (!span(p.steps[s].B, 1, x.K * x.N, 0, lo, hi) || (lo < ohi && olo < hi))
      return true;
  }
  return false;
}

} // namespace

bool runFusedDotSteps(const std::vector<uint32_t> &pendings, Frame &F, float *out, int64_t ldo,
                      int64_t rows, int64_t lanes) {
  Pending *waiting = nullptr;
  for (uint32_t off : pendings) {
    Pending &p = *F.at<Pending>(off);
    if (!p.count)
      continue;
    if (waiting) { // (two dots of one pass: forward.cpp rules it out; kept correct anyway)
      const DotAux &w = *waiting->dot;
      gemmAccSteps(waiting->steps, static_cast<int>(waiting->count), F.at<float>(w.d), w.M, w.N,
                   w.K);
      waiting->count = 0;
      out = nullptr;
    }
    waiting = &p;
  }
  if (!waiting)
    return false;
  Pending &p = *waiting;
  const DotAux &x = *p.dot;
  const int n = static_cast<int>(p.count);
  p.count = 0;
  float *D = F.at<float>(x.d);
  if (out && x.M == rows && x.N == lanes && !meetsOperands(p, n, out, ldo)) {
    gemmAccStepsTo(p.steps, n, D, out, ldo, x.M, x.N, x.K);
    return true;
  }
  gemmAccSteps(p.steps, n, D, x.M, x.N, x.K);
  return false;
}

bool emitDot(Compiler &c, const Operation &op) {
  if (!op.is("tt.dot"))
    return false;
  emitMatmul(c, op, op.operand(0), op.operand(1), op.operand(2), op.result(0),
             static_cast<int>(op.intAttr("inputPrecision", kIEEE)));
  return true;
}

void emitMatmul(Compiler &c, const Operation &op, const Value *av, const Value *bv, const Value *cv,
                const Value *dv, int precision, bool aSigned, bool bSigned) {
  const auto &as = av->type.shape(), &bs = bv->type.shape(), &ds = dv->type.shape();
  auto *x = c.makeAux<DotAux>();
  if (as.size() == 3 && bs.size() == 3 && ds.size() == 3 && as[0] == bs[0] && as[0] == ds[0]) {
    x->batch = as[0];
    x->M = as[1];
    x->K = as[2];
    x->N = bs[2];
  } else if (as.size() == 2 && bs.size() == 2 && ds.size() == 2) {
    x->M = as[0];
    x->K = as[1];
    x->N = bs[1];
  } else {
    c.fail(op, "operands must be 2-D or batched 3-D");
  }
  if (bs[bs.size() - 2] != x->K || ds[ds.size() - 2] != x->M || ds.back() != x->N)
    c.fail(op, "operand shapes do not agree");
  x->aType = c.dtype(av);
  x->bType = c.dtype(bv);
  x->cType = c.dtype(dv);
  x->precision = precision;
  x->a = c.ref(av);
  x->b = c.ref(bv);
  x->c = c.ref(cv, true);
  x->d = c.out(dv);
  if (c.dtype(cv) != x->cType)
    c.fail(op, "the accumulator must have the result type");
  const int64_t MK = x->M * x->K, KN = x->K * x->N, MN = x->M * x->N;
  KernelFn fn = nullptr;
  bool floatIn = (x->aType == DType::F32 || isSmallFloat(x->aType)) &&
                 (x->bType == DType::F32 || isSmallFloat(x->bType));
  if (floatIn && (x->cType == DType::F32 || x->cType == DType::F16 || x->cType == DType::BF16)) {
    bool f32In = x->aType == DType::F32 && x->bType == DType::F32;
    if (!f32In && (x->aType == DType::F32 || x->bType == DType::F32))
      c.fail(op, "mixed f32 and narrow float operands");
    if (!f32In || x->precision != kIEEE) {
      x->aw = c.scratch(static_cast<size_t>(MK) * 4);
      x->bw = c.scratch(static_cast<size_t>(KN) * 4);
    }
    if (f32In && x->precision == kTF32x3) {
      x->alo = c.scratch(static_cast<size_t>(MK) * 4);
      x->blo = c.scratch(static_cast<size_t>(KN) * 4);
    }
    if (f32In && x->precision != kTF32 && x->precision != kTF32x3 && x->precision != kIEEE)
      c.fail(op, "unknown inputPrecision " + std::to_string(x->precision));
    if (x->cType != DType::F32)
      x->dw = c.scratch(static_cast<size_t>(MN) * 4);
    fn = dotFloatK;
    const Operation *loop = c.deferredLoop(op);
    if (loop && f32In && x->precision == kIEEE && x->cType == DType::F32 && x->batch == 1 &&
        x->a.ind && x->b.ind && !x->c.bcast && x->c.off == x->d) {
      x->pending = c.scratch(sizeof(Pending));
      x->chain = c.deferredChain(op); // (gemmChain's, or 4 where B's memo has few slots)
      fn = dotDeferK;
      Inst reset, flush;
      reset.fn = dotResetK;
      flush.fn = dotFlushK;
      reset.aux = flush.aux = x;
      reset.site = flush.site = c.site(op);
      c.beforeLoop(loop, reset);
      if (const Compiler::FusedStore *fs = c.fusedStore(op)) {
        x->fused = true;
        x->held = c.scratch(static_cast<size_t>(MK + KN) * 4);
        c.addFusedPending(*fs->store, x->pending, flush);
        for (const Operation *other : fs->others) // (they run the flush right before them)
          c.addFusedPending(*other, x->pending, flush);
        if (fs->anchor) // a pass that skips the loop must not find the last pass's steps
          c.beforeOp(fs->anchor, reset);
      } else {
        c.afterLoop(loop, flush);
      }
    }
  } else if (x->aType == DType::F64 && x->bType == DType::F64 && x->cType == DType::F64) {
    fn = dotF64K;
  } else if (x->aType == DType::I8 && x->bType == DType::I8 && x->cType == DType::I32) {
    fn = aSigned ? (bSigned ? dotI8K<int8_t, int8_t> : dotI8K<int8_t, uint8_t>)
                 : (bSigned ? dotI8K<uint8_t, int8_t> : dotI8K<uint8_t, uint8_t>);
  } else {
    c.fail(op, std::string("unsupported operand types ") + dtypeName(x->aType) + " x " +
                   dtypeName(x->bType) + " -> " + dtypeName(x->cType));
  }
  Inst &I = c.emit(fn, op);
  I.aux = x;
  I.out = x->d;
  I.n = x->batch * MN;
}

} // namespace tt::exec
