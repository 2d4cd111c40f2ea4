// Casts: arith.{extsi,extui,trunci,extf,truncf,sitofp,uitofp,fptosi,fptoui,bitcast},
// tt.fp_to_fp, tt.bitcast, tt.int_to_ptr, tt.ptr_to_int.
//
// Rules:
//  - float -> float rounds once (rtne, or rtz where tt.fp_to_fp asks for it); see casts.h for
//    f16/bf16/fp8 overflow (f16/bf16: inf; fp8: saturate to the largest finite);
//  - int -> float rounds to nearest even;
//  - float -> int truncates toward zero and saturates; NaN gives 0 (like PTX cvt.rzi.sat);
//  - bitcasts reinterpret bits; when the result shares its source's register no instruction is
//    emitted at all.
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "exec/kernels/shared_emit.h"

namespace tt::exec {

float fp8e4m3ToF32(uint8_t b) {
  static const auto table = [] {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i)
      t[i] = decodeFloat(static_cast<uint32_t>(i), kF8E4M3FNSat);
    return t;
  }();
  return table[b];
}

float fp8e5m2ToF32(uint8_t b) {
  static const auto table = [] {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i)
      t[i] = decodeFloat(static_cast<uint32_t>(i), kF8E5M2Sat);
    return t;
  }();
  return table[b];
}

namespace {

// ---- readers: element i of a register as an int64/uint64/float/double ----
template <class S, int Bits, bool Signed> struct IntR {
  using S_ = S;
  using V = std::conditional_t<Signed, int64_t, uint64_t>;
  static V get(const S *p, int64_t i) {
    S v = p[i];
    if constexpr (Bits == 1)
      return Signed ? V(-int64_t(v & 1)) : V(v & 1);
    else if constexpr (Signed)
      return static_cast<V>(static_cast<std::make_signed_t<S>>(v));
    else
      return static_cast<V>(v);
  }
};
template <DType D> struct FloatR;
template <> struct FloatR<DType::F32> {
  using S_ = float;
  static float get(const float *p, int64_t i) { return p[i]; }
};
template <> struct FloatR<DType::F64> {
  using S_ = double;
  static double get(const double *p, int64_t i) { return p[i]; }
};
template <> struct FloatR<DType::F16> {
  using S_ = uint16_t;
  static float get(const uint16_t *p, int64_t i) { return f16ToF32(p[i]); }
};
template <> struct FloatR<DType::BF16> {
  using S_ = uint16_t;
  static float get(const uint16_t *p, int64_t i) { return bf16ToF32(p[i]); }
};
template <> struct FloatR<DType::F8E4M3> {
  using S_ = uint8_t;
  static float get(const uint8_t *p, int64_t i) { return fp8e4m3ToF32(p[i]); }
};
template <> struct FloatR<DType::F8E5M2> {
  using S_ = uint8_t;
  static float get(const uint8_t *p, int64_t i) { return fp8e5m2ToF32(p[i]); }
};

// ---- writers ----
template <class D, int Bits, bool Signed> struct IntW {
  using D_ = D;
  template <class V> static void put(D *p, int64_t i, V v) {
    if constexpr (std::is_floating_point_v<V>) {
      // Saturating truncation; NaN -> 0.
      int64_t r;
      if constexpr (Signed) {
        const V hi = std::ldexp(V(1), Bits - 1), lo = -hi;
        int64_t maxv = Bits == 64 ? INT64_MAX : (int64_t(1) << (Bits - 1)) - 1;
        int64_t minv = Bits == 64 ? INT64_MIN : -(int64_t(1) << (Bits - 1));
        r = v != v ? 0 : (v >= hi ? maxv : (v < lo ? minv : static_cast<int64_t>(v)));
      } else {
        const V hi = std::ldexp(V(1), Bits);
        uint64_t maxv = Bits == 64 ? UINT64_MAX : (uint64_t(1) << Bits) - 1;
        uint64_t u = v != v ? 0 : (v >= hi ? maxv : (v <= V(-1) ? 0 : static_cast<uint64_t>(v)));
        r = static_cast<int64_t>(u);
      }
      p[i] = static_cast<D>(Bits == 1 ? (r & 1) : r);
    } else {
      p[i] = static_cast<D>(Bits == 1 ? (static_cast<uint64_t>(v) & 1) : static_cast<uint64_t>(v));
    }
  }
};
template <DType D, Rounding R> struct FloatW;
template <Rounding R> struct FloatW<DType::F32, R> {
  using D_ = float;
  template <class V> static void put(float *p, int64_t i, V v) {
    float f = static_cast<float>(v);
    if constexpr (R == Rounding::RTZ && std::is_same_v<V, double>) {
      if (std::fabs(double(f)) > std::fabs(v) && std::isfinite(v))
        f = std::nextafter(f, 0.0f);
    }
    p[i] = f;
  }
};
template <Rounding R> struct FloatW<DType::F64, R> {
  using D_ = double;
  template <class V> static void put(double *p, int64_t i, V v) { p[i] = static_cast<double>(v); }
};
template <Rounding R> struct FloatW<DType::F16, R> {
  using D_ = uint16_t;
  template <class V> static void put(uint16_t *p, int64_t i, V v) {
    if constexpr (std::is_same_v<V, float>)
      p[i] = R == Rounding::RTNE ? f32ToF16(v) : f32ToF16Rtz(v);
    else
      p[i] = static_cast<uint16_t>(encodeFloat(static_cast<double>(v), kF16, R));
  }
};
template <Rounding R> struct FloatW<DType::BF16, R> {
  using D_ = uint16_t;
  template <class V> static void put(uint16_t *p, int64_t i, V v) {
    if constexpr (std::is_same_v<V, float>)
      p[i] = R == Rounding::RTNE ? f32ToBf16(v) : f32ToBf16Rtz(v);
    else
      p[i] = static_cast<uint16_t>(encodeFloat(static_cast<double>(v), kBF16, R));
  }
};
template <Rounding R> struct FloatW<DType::F8E4M3, R> {
  using D_ = uint8_t;
  template <class V> static void put(uint8_t *p, int64_t i, V v) {
    p[i] = f64ToFp8e4m3(static_cast<double>(v), R);
  }
};
template <Rounding R> struct FloatW<DType::F8E5M2, R> {
  using D_ = uint8_t;
  template <class V> static void put(uint8_t *p, int64_t i, V v) {
    p[i] = f64ToFp8e5m2(static_cast<double>(v), R);
  }
};

template <class Rd, class Wr, bool BA> void castK(const Inst &I, Frame &F) {
  using S = typename Rd::S_;
  using D = typename Wr::D_;
  const S *__restrict a = F.at<S>(I.in[0].off);
  D *__restrict o = F.at<D>(I.out);
  for (int64_t i = 0, n = I.n; i < n; ++i)
    Wr::put(o, i, Rd::get(a, BA ? 0 : i));
}

// Array fast paths.
void f16ToF32K(const Inst &I, Frame &F) {
  f16ToF32Array(F.at<uint16_t>(I.in[0].off), F.at<float>(I.out), I.n);
}
void f32ToF16K(const Inst &I, Frame &F) {
  f32ToF16Array(F.at<float>(I.in[0].off), F.at<uint16_t>(I.out), I.n);
}
void bf16ToF32K(const Inst &I, Frame &F) {
  bf16ToF32Array(F.at<uint16_t>(I.in[0].off), F.at<float>(I.out), I.n);
}
void f32ToBf16K(const Inst &I, Frame &F) {
  f32ToBf16Array(F.at<float>(I.in[0].off), F.at<uint16_t>(I.out), I.n);
}

template <class Rd, class Wr> KernelFn pick(bool ba) {
  return ba ? castK<Rd, Wr, true> : castK<Rd, Wr, false>;
}

// Writer choice for a destination, given the reader.
template <class Rd> KernelFn toFloat(DType dst, Rounding r, bool ba) {
#define TT_W(D)                                                                                    \
  case D:                                                                                          \
    return r == Rounding::RTNE ? pick<Rd, FloatW<D, Rounding::RTNE>>(ba)                           \
                               : pick<Rd, FloatW<D, Rounding::RTZ>>(ba);
  switch (dst) {
    TT_W(DType::F16)
    TT_W(DType::BF16)
    TT_W(DType::F32)
    TT_W(DType::F64)
    TT_W(DType::F8E4M3)
    TT_W(DType::F8E5M2)
  default:
    return nullptr;
  }
#undef TT_W
}

template <class Rd> KernelFn toInt(DType dst, bool sat_signed, bool ba) {
#define TT_W(D, T, B)                                                                              \
  case D:                                                                                          \
    return sat_signed ? pick<Rd, IntW<T, B, true>>(ba) : pick<Rd, IntW<T, B, false>>(ba);
  switch (dst) {
    TT_W(DType::I1, uint8_t, 1)
    TT_W(DType::I8, uint8_t, 8)
    TT_W(DType::I16, uint16_t, 16)
    TT_W(DType::I32, uint32_t, 32)
    TT_W(DType::I64, uint64_t, 64)
  default:
    return nullptr;
  }
#undef TT_W
}

// Reader choice for a source; `then` is applied with the reader type.
template <class Then> KernelFn withIntReader(DType src, bool isSigned, Then then) {
#define TT_R(D, T, B)                                                                              \
  case D:                                                                                          \
    return isSigned ? then(IntR<T, B, true>{}) : then(IntR<T, B, false>{});
  switch (src) {
    TT_R(DType::I1, uint8_t, 1)
    TT_R(DType::I8, uint8_t, 8)
    TT_R(DType::I16, uint16_t, 16)
    TT_R(DType::I32, uint32_t, 32)
    TT_R(DType::I64, uint64_t, 64)
  default:
    return nullptr;
  }
#undef TT_R
}

template <class Then> KernelFn withFloatReader(DType src, Then then) {
  switch (src) {
  case DType::F16:
    return then(FloatR<DType::F16>{});
  case DType::BF16:
    return then(FloatR<DType::BF16>{});
  case DType::F32:
    return then(FloatR<DType::F32>{});
  case DType::F64:
    return then(FloatR<DType::F64>{});
  case DType::F8E4M3:
    return then(FloatR<DType::F8E4M3>{});
  case DType::F8E5M2:
    return then(FloatR<DType::F8E5M2>{});
  default:
    return nullptr;
  }
}

KernelFn pickCast(const std::string &name, DType src, DType dst, Rounding r, bool ba) {
  if (name == "arith.extsi" || name == "arith.extui" || name == "arith.trunci") {
    bool sgn = name == "arith.extsi";
    return withIntReader(src, sgn, [&](auto rd) { return toInt<decltype(rd)>(dst, sgn, ba); });
  }
  if (name == "arith.sitofp" || name == "arith.uitofp") {
    bool sgn = name == "arith.sitofp";
    return withIntReader(src, sgn,
                         [&](auto rd) { return toFloat<decltype(rd)>(dst, Rounding::RTNE, ba); });
  }
  if (name == "arith.fptosi" || name == "arith.fptoui") {
    bool sgn = name == "arith.fptosi";
    return withFloatReader(src, [&](auto rd) { return toInt<decltype(rd)>(dst, sgn, ba); });
  }
  if (name == "arith.extf" || name == "arith.truncf" || name == "tt.fp_to_fp") {
    if (!ba && r == Rounding::RTNE) {
      if (src == DType::F16 && dst == DType::F32)
        return f16ToF32K;
      if (src == DType::F32 && dst == DType::F16)
        return f32ToF16K;
      if (src == DType::BF16 && dst == DType::F32)
        return bf16ToF32K;
      if (src == DType::F32 && dst == DType::BF16)
        return f32ToBf16K;
    }
    return withFloatReader(src, [&](auto rd) { return toFloat<decltype(rd)>(dst, r, ba); });
  }
  return nullptr;
}

} // namespace

void emitCastAs(Compiler &c, const Operation &op, const std::string &name, Rounding r) {
  const Value *src = op.operand(0), *res = op.result(0);
  int64_t n = c.numel(res);
  Ref a = c.ref(src, true);
  if (!a.bcast && c.numel(src) == 1 && n > 1)
    a.bcast = true;
  KernelFn fn = pickCast(name, c.dtype(src), c.dtype(res), r, a.bcast);
  if (!fn)
    c.fail(op, std::string("unsupported cast from ") + dtypeName(c.dtype(src)) + " to " +
                   dtypeName(c.dtype(res)));
  Inst &I = c.emit(fn, op);
  I.out = c.out(res);
  I.in[0] = a;
  I.n = n;
}

bool emitCast(Compiler &c, const Operation &op) {
  const std::string &name = op.name();
  bool isBitcast = name == "arith.bitcast" || name == "tt.bitcast" || name == "tt.int_to_ptr" ||
                   name == "tt.ptr_to_int";
  bool isConvert = name == "arith.extsi" || name == "arith.extui" || name == "arith.trunci" ||
                   name == "arith.sitofp" || name == "arith.uitofp" || name == "arith.fptosi" ||
                   name == "arith.fptoui" || name == "arith.extf" || name == "arith.truncf" ||
                   name == "tt.fp_to_fp";
  if (!isBitcast && !isConvert)
    return false;
  const Value *src = op.operand(0), *res = op.result(0);
  if (c.isBcast(res))
    return true; // a bitcast of a splat shares the splat's scalar register
  int64_t n = c.numel(res);
  Ref a = c.ref(src, true);
  if (!a.bcast && c.numel(src) == 1 && n > 1)
    a.bcast = true;
  if (isBitcast) {
    if (dtypeSize(c.dtype(src)) != dtypeSize(c.dtype(res)))
      c.fail(op, "bitcast between types of different widths");
    if (!a.bcast && a.off == c.out(res))
      return true; // shares the register
    Inst &I = c.emit(copyKernel(dtypeSize(c.dtype(res))), op);
    I.out = c.out(res);
    I.in[0] = a;
    I.n = n;
    return true;
  }
  Rounding r = Rounding::RTNE;
  if (name == "tt.fp_to_fp" && op.hasAttr("rounding") && op.intAttr("rounding") == 0)
    r = Rounding::RTZ;
  emitCastAs(c, op, name, r);
  return true;
}

} // namespace tt::exec
