// Elementwise kernels: functors for every arith/math op and the loops that apply them.
//
// Rules (Triton's semantics on NVIDIA GPUs, made total):
//  - integers are stored unsigned and wrap; signed ops reinterpret; i1 is one byte 0/1 and is
//    sign-extended (1 == -1) by signed ops;
//  - division by zero gives all ones (-1 / UINT_MAX) for div and the dividend for rem;
//    INT_MIN / -1 gives INT_MIN and INT_MIN % -1 gives 0 (never SIGFPE);
//  - shifts by >= the width (as unsigned) give 0 for shli/shrui and the sign fill for shrsi;
//  - floats are computed in their own type; f16, bf16 and fp8 are computed in f32 and rounded
//    back (to nearest even) after every op;
//  - maxnumf/minnumf return the non-NaN operand, maximumf/minimumf propagate NaN; both order
//    -0.0 below +0.0;
//  - exp/exp2 on f32 use a vectorizable polynomial (about 1 ulp); the other math functions call
//    the C library per element.
// Loops are templates over the storage format and over which operands are broadcast scalars,
// written so the compiler vectorizes them (-march=x86-64-v3). Operands are read through
// Frame::in, so a forwarded load's operand is read straight from memory (program.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "exec/compiler/program.h"
#include "exec/kernels/casts.h"
#include "exec/kernels/vmath.h"

namespace tt::exec::ew {

// ---- storage formats ----

// Direct formats compute in their storage type.
template <class T> struct Direct {
  using S = T;
  using C = T;
  static constexpr bool kDirect = true;
};
template <class U, int Bits> struct IntFmt : Direct<U> {
  static constexpr int kBits = Bits;
};
struct F16Fmt {
  using S = uint16_t;
  using C = float;
  static constexpr bool kDirect = false;
  static void toC(const S *in, C *out, int64_t n) { f16ToF32Array(in, out, n); }
  static void fromC(const C *in, S *out, int64_t n) { f32ToF16Array(in, out, n); }
};
struct BF16Fmt {
  using S = uint16_t;
  using C = float;
  static constexpr bool kDirect = false;
  static void toC(const S *in, C *out, int64_t n) { bf16ToF32Array(in, out, n); }
  static void fromC(const C *in, S *out, int64_t n) { f32ToBf16Array(in, out, n); }
};
struct F8E4Fmt {
  using S = uint8_t;
  using C = float;
  static constexpr bool kDirect = false;
  static void toC(const S *in, C *out, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = fp8e4m3ToF32(in[i]);
  }
  static void fromC(const C *in, S *out, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = f64ToFp8e4m3(in[i], Rounding::RTNE);
  }
};
struct F8E5Fmt {
  using S = uint8_t;
  using C = float;
  static constexpr bool kDirect = false;
  static void toC(const S *in, C *out, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = fp8e5m2ToF32(in[i]);
  }
  static void fromC(const C *in, S *out, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = f64ToFp8e5m2(in[i], Rounding::RTNE);
  }
};

constexpr int64_t kChunk = 256;

struct ExpF;
struct Exp2F;

// ---- loops ----

// out[i] = Op(in[i]) on arrays of the compute type (exp/exp2 on f32: 8 lanes at a time).
template <class Op, class C>
inline void unaryArray(const C *__restrict in, C *__restrict out, int64_t n) {
  if constexpr (std::is_same_v<C, float> &&
                (std::is_same_v<Op, ExpF> || std::is_same_v<Op, Exp2F>)) {
    vm::expArray<std::is_same_v<Op, Exp2F>>(in, out, n,
                                            [](float x) { return Op::template f<float>(x); });
  } else {
    for (int64_t i = 0; i < n; ++i)
      out[i] = Op::template f<C>(in[i]);
  }
}

// out[i] = Op(a[i]) (same format in and out).
template <class Fmt, class Op, bool BA> void unaryK(const Inst &I, Frame &F) {
  using S = typename Fmt::S;
  using C = typename Fmt::C;
  const S *__restrict a = F.in<S>(I.in[0]);
  S *__restrict o = F.at<S>(I.out);
  const int64_t n = I.n;
  if constexpr (Fmt::kDirect) {
    if constexpr (BA) {
      const S v = Op::template f<C>(a[0]);
      for (int64_t i = 0; i < n; ++i)
        o[i] = v;
    } else {
      unaryArray<Op, C>(a, o, n);
    }
  } else {
    alignas(64) C ca[kChunk], co[kChunk];
    for (int64_t base = 0; base < n; base += kChunk) {
      int64_t m = n - base < kChunk ? n - base : kChunk;
      Fmt::toC(a + (BA ? 0 : base), ca, BA ? 1 : m);
      if (BA)
        for (int64_t i = 1; i < m; ++i)
          ca[i] = ca[0];
      unaryArray<Op, C>(ca, co, m);
      Fmt::fromC(co, o + base, m);
    }
  }
}

// out[i] = Op(a[i], b[i]); Op::kBool ops write i1 (one byte) results.
template <class Fmt, class Op, bool BA, bool BB> void binaryK(const Inst &I, Frame &F) {
  using S = typename Fmt::S;
  using C = typename Fmt::C;
  using O = std::conditional_t<Op::kBool, uint8_t, S>;
  const S *__restrict a = F.in<S>(I.in[0]);
  const S *__restrict b = F.in<S>(I.in[1]);
  O *__restrict o = F.at<O>(I.out);
  const int64_t n = I.n;
  if constexpr (Fmt::kDirect) {
    if constexpr (BA && !BB) {
      const C av = a[0];
      for (int64_t i = 0; i < n; ++i)
        o[i] = Op::template f<C>(av, b[i]);
    } else if constexpr (!BA && BB) {
      const C bv = b[0];
      for (int64_t i = 0; i < n; ++i)
        o[i] = Op::template f<C>(a[i], bv);
    } else {
      for (int64_t i = 0; i < n; ++i)
        o[i] = Op::template f<C>(a[BA ? 0 : i], b[BB ? 0 : i]);
    }
  } else {
    alignas(64) C ca[kChunk], cb[kChunk];
    alignas(64) std::conditional_t<Op::kBool, uint8_t, C> co[kChunk];
    for (int64_t base = 0; base < n; base += kChunk) {
      int64_t m = n - base < kChunk ? n - base : kChunk;
      Fmt::toC(a + (BA ? 0 : base), ca, BA ? 1 : m);
      Fmt::toC(b + (BB ? 0 : base), cb, BB ? 1 : m);
      for (int64_t i = 0; i < m; ++i)
        co[i] = Op::template f<C>(ca[BA ? 0 : i], cb[BB ? 0 : i]);
      if constexpr (Op::kBool) {
        for (int64_t i = 0; i < m; ++i)
          o[base + i] = co[i];
      } else {
        Fmt::fromC(co, o + base, m);
      }
    }
  }
}

// out[i] = Op(a[i], b[i], c[i]) (math.fma, tt.clampf).
template <class Fmt, class Op, bool BA, bool BB, bool BC> void ternaryK(const Inst &I, Frame &F) {
  using S = typename Fmt::S;
  using C = typename Fmt::C;
  const S *__restrict a = F.in<S>(I.in[0]);
  const S *__restrict b = F.in<S>(I.in[1]);
  const S *__restrict c = F.in<S>(I.in[2]);
  S *__restrict o = F.at<S>(I.out);
  const int64_t n = I.n;
  const int64_t mode = I.imm;
  if constexpr (Fmt::kDirect) {
    for (int64_t i = 0; i < n; ++i)
      o[i] = Op::template f<C>(a[BA ? 0 : i], b[BB ? 0 : i], c[BC ? 0 : i], mode);
  } else {
    alignas(64) C ca[kChunk], cb[kChunk], cc[kChunk], co[kChunk];
    for (int64_t base = 0; base < n; base += kChunk) {
      int64_t m = n - base < kChunk ? n - base : kChunk;
      Fmt::toC(a + (BA ? 0 : base), ca, BA ? 1 : m);
      Fmt::toC(b + (BB ? 0 : base), cb, BB ? 1 : m);
      Fmt::toC(c + (BC ? 0 : base), cc, BC ? 1 : m);
      for (int64_t i = 0; i < m; ++i)
        co[i] = Op::template f<C>(ca[BA ? 0 : i], cb[BB ? 0 : i], cc[BC ? 0 : i], mode);
      Fmt::fromC(co, o + base, m);
    }
  }
}

template <class Fmt, class Op> KernelFn pickUnary(bool ba) {
  return ba ? unaryK<Fmt, Op, true> : unaryK<Fmt, Op, false>;
}
template <class Fmt, class Op> KernelFn pickBinary(bool ba, bool bb) {
  if (ba)
    return bb ? binaryK<Fmt, Op, true, true> : binaryK<Fmt, Op, true, false>;
  return bb ? binaryK<Fmt, Op, false, true> : binaryK<Fmt, Op, false, false>;
}
template <class Fmt, class Op> KernelFn pickTernary(bool ba, bool bb, bool bc) {
  if (ba) {
    if (bb)
      return bc ? ternaryK<Fmt, Op, 1, 1, 1> : ternaryK<Fmt, Op, 1, 1, 0>;
    return bc ? ternaryK<Fmt, Op, 1, 0, 1> : ternaryK<Fmt, Op, 1, 0, 0>;
  }
  if (bb)
    return bc ? ternaryK<Fmt, Op, 0, 1, 1> : ternaryK<Fmt, Op, 0, 1, 0>;
  return bc ? ternaryK<Fmt, Op, 0, 0, 1> : ternaryK<Fmt, Op, 0, 0, 0>;
}

// ---- float functors ----

template <class C> inline C maxNum(C a, C b) {
  C m = a > b ? a : b;
  if constexpr (std::is_same_v<C, float>) {
    if (a == b) // +0 vs -0: +0 wins
      m = bitsF32(f32Bits(a) & f32Bits(b));
  } else {
    if (a == b)
      m = bitsF64(f64Bits(a) & f64Bits(b));
  }
  m = a != a ? b : m;
  m = b != b ? a : m;
  return m;
}
template <class C> inline C minNum(C a, C b) {
  C m = a < b ? a : b;
  if constexpr (std::is_same_v<C, float>) {
    if (a == b)
      m = bitsF32(f32Bits(a) | f32Bits(b));
  } else {
    if (a == b)
      m = bitsF64(f64Bits(a) | f64Bits(b));
  }
  m = a != a ? b : m;
  m = b != b ? a : m;
  return m;
}
template <class C> inline C maxImum(C a, C b) {
  C m = maxNum(a, b);
  return (a != a || b != b) ? a + b : m;
}
template <class C> inline C minImum(C a, C b) {
  C m = minNum(a, b);
  return (a != a || b != b) ? a + b : m;
}

#define TT_FBIN(Name, expr)                                                                        \
  struct Name {                                                                                    \
    static constexpr bool kBool = false;                                                           \
    template <class C> static C f(C a, C b) { return expr; }                                       \
  };
TT_FBIN(AddF, a + b)
TT_FBIN(SubF, a - b)
TT_FBIN(MulF, a *b)
TT_FBIN(DivF, a / b)
TT_FBIN(RemF, std::fmod(a, b))
TT_FBIN(MaxNumF, maxNum(a, b))
TT_FBIN(MinNumF, minNum(a, b))
TT_FBIN(MaximumF, maxImum(a, b))
TT_FBIN(MinimumF, minImum(a, b))
TT_FBIN(PowF, std::pow(a, b))
TT_FBIN(Atan2F, std::atan2(a, b))
#undef TT_FBIN

// Vectorizable exp/exp2 for f32 (about 1 ulp; overflow to inf, underflow through subnormals to
// 0, NaN kept). Coefficients: minimax polynomials on [-ln2/2, ln2/2] and [-1/2, 1/2].
inline float scaleByPow2(float p, float n) {
  int32_t ni = static_cast<int32_t>(n);
  int32_t n1 = ni >> 1, n2 = ni - n1;
  float s1 = bitsF32(static_cast<uint32_t>(n1 + 127) << 23);
  float s2 = bitsF32(static_cast<uint32_t>(n2 + 127) << 23);
  return p * s1 * s2;
}
inline float fastExpF(float x) {
  float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
  float n = std::floor(xc * 1.44269504088896341f + 0.5f);
  float s = std::fma(n, -0.693145751953125f, xc);
  s = std::fma(n, -1.428606765330187045e-06f, s);
  float u = 0.000198527617612853646278381f;
  u = std::fma(u, s, 0.00139304355252534151077271f);
  u = std::fma(u, s, 0.00833336077630519866943359f);
  u = std::fma(u, s, 0.0416664853692054748535156f);
  u = std::fma(u, s, 0.166666671633720397949219f);
  u = std::fma(u, s, 0.5f);
  u = 1.0f + std::fma(s * s, u, s);
  float r = scaleByPow2(u, n);
  return x != x ? x : r;
}
inline float fastExp2F(float x) {
  float xc = x < -150.0f ? -150.0f : (x > 129.0f ? 129.0f : x);
  float n = std::floor(xc + 0.5f);
  float s = xc - n;
  float u = 0.1535920892e-3f;
  u = std::fma(u, s, 0.1339262701e-2f);
  u = std::fma(u, s, 0.9618384764e-2f);
  u = std::fma(u, s, 0.5550347269e-1f);
  u = std::fma(u, s, 0.2402264476e+0f);
  u = std::fma(u, s, 0.6931471825e+0f);
  u = std::fma(u, s, 1.0f);
  float r = scaleByPow2(u, n);
  return x != x ? x : r;
}

#define TT_FUN(Name, expr)                                                                         \
  struct Name {                                                                                    \
    template <class C> static C f(C x) { return expr; }                                            \
  };
TT_FUN(NegF, -x)
TT_FUN(AbsF, std::fabs(x))
TT_FUN(SqrtF, std::sqrt(x))
TT_FUN(RsqrtF, C(1) / std::sqrt(x))
TT_FUN(LogF, std::log(x))
TT_FUN(Log2F, std::log2(x))
TT_FUN(SinF, std::sin(x))
TT_FUN(CosF, std::cos(x))
TT_FUN(TanF, std::tan(x))
TT_FUN(TanhF, std::tanh(x))
TT_FUN(FloorF, std::floor(x))
TT_FUN(CeilF, std::ceil(x))
TT_FUN(ErfF, std::erf(x))
TT_FUN(CoshF, std::cosh(x))
TT_FUN(SinhF, std::sinh(x))
#undef TT_FUN
struct ExpF {
  template <class C> static C f(C x) {
    if constexpr (std::is_same_v<C, float>)
      return fastExpF(x);
    else
      return std::exp(x);
  }
};
struct Exp2F {
  template <class C> static C f(C x) {
    if constexpr (std::is_same_v<C, float>)
      return fastExp2F(x);
    else
      return std::exp2(x);
  }
};

struct FmaF {
  template <class C> static C f(C a, C b, C c, int64_t) { return std::fma(a, b, c); }
};
// tt.clampf: mode 0 (propagateNan none) ignores a NaN x (gives lo), else NaN propagates.
struct ClampF {
  template <class C> static C f(C x, C lo, C hi, int64_t mode) {
    C r = minNum(maxNum(x, lo), hi);
    return (mode != 0 && x != x) ? x : r;
  }
};

// ---- integer functors (U: unsigned storage, Bits: logical width) ----

template <class U> using Wide = std::conditional_t<(sizeof(U) < 4), uint32_t, U>;
template <class U> using SignedOf = std::make_signed_t<U>;

template <class U, int Bits> inline U normI(U v) {
  if constexpr (Bits < 8 * int(sizeof(U)))
    return static_cast<U>(v & ((U(1) << Bits) - 1));
  else
    return v;
}
template <class U, int Bits> inline SignedOf<U> sextI(U v) {
  if constexpr (Bits < 8 * int(sizeof(U))) {
    constexpr int sh = 8 * int(sizeof(U)) - Bits;
    return static_cast<SignedOf<U>>(static_cast<SignedOf<U>>(static_cast<U>(v << sh)) >> sh);
  } else {
    return static_cast<SignedOf<U>>(v);
  }
}
template <class U, int Bits> constexpr SignedOf<U> minSigned() {
  return static_cast<SignedOf<U>>(-(static_cast<Wide<U>>(1) << (Bits - 1)));
}

#define TT_IBIN(Name, ...)                                                                         \
  template <int Bits> struct Name {                                                                \
    static constexpr bool kBool = false;                                                           \
    template <class U> static U f(U a, U b) {                                                      \
      using W = Wide<U>;                                                                           \
      using I = SignedOf<U>;                                                                       \
      (void)sizeof(W);                                                                             \
      (void)sizeof(I);                                                                             \
      __VA_ARGS__                                                                                  \
    }                                                                                              \
  };
TT_IBIN(AddI, return normI<U, Bits>(static_cast<U>(W(a) + W(b)));)
TT_IBIN(SubI, return normI<U, Bits>(static_cast<U>(W(a) - W(b)));)
TT_IBIN(MulI, return normI<U, Bits>(static_cast<U>(W(a) * W(b)));)
TT_IBIN(AndI, return static_cast<U>(a & b);)
TT_IBIN(OrI, return static_cast<U>(a | b);)
TT_IBIN(XorI, return static_cast<U>(a ^ b);)
TT_IBIN(DivUI, U r = static_cast<U>(a / (b == 0 ? U(1) : b));
        return b == 0 ? normI<U, Bits>(static_cast<U>(~U(0))) : r;)
TT_IBIN(RemUI, U r = static_cast<U>(a % (b == 0 ? U(1) : b)); return b == 0 ? a : r;)
TT_IBIN(DivSI, I x = sextI<U, Bits>(a); I y = sextI<U, Bits>(b);
        bool ovf = x == minSigned<U, Bits>() && y == -1;
        I q = static_cast<I>(x / ((y == 0 || ovf) ? I(1) : y)); q = ovf ? x : q;
        q = y == 0 ? I(-1) : q; return normI<U, Bits>(static_cast<U>(q));)
TT_IBIN(RemSI, I x = sextI<U, Bits>(a); I y = sextI<U, Bits>(b);
        bool ovf = x == minSigned<U, Bits>() && y == -1;
        I r = static_cast<I>(x % ((y == 0 || ovf) ? I(1) : y)); r = ovf ? I(0) : r;
        r = y == 0 ? x : r; return normI<U, Bits>(static_cast<U>(r));)
TT_IBIN(ShlI, return b >= U(Bits) ? U(0) : normI<U, Bits>(static_cast<U>(W(a) << b));)
TT_IBIN(ShrUI, return b >= U(Bits) ? U(0) : static_cast<U>(a >> b);)
TT_IBIN(ShrSI, I x = sextI<U, Bits>(a); I r = static_cast<I>(x >> (b >= U(Bits) ? U(Bits - 1) : b));
        return normI<U, Bits>(static_cast<U>(r));)
TT_IBIN(MaxSI, return sextI<U, Bits>(a) > sextI<U, Bits>(b) ? a : b;)
TT_IBIN(MinSI, return sextI<U, Bits>(a) < sextI<U, Bits>(b) ? a : b;)
TT_IBIN(MaxUI, return a > b ? a : b;)
TT_IBIN(MinUI, return a < b ? a : b;)
TT_IBIN(
    MulHiUI,
    if constexpr (sizeof(U) == 8) {
      return static_cast<U>((static_cast<unsigned __int128>(a) * b) >> 64);
    } else if constexpr (Bits == 32) {
      return static_cast<U>((static_cast<uint64_t>(a) * b) >> 32);
    } else { return static_cast<U>((static_cast<uint64_t>(a) * b) >> Bits); })
// Tile IR: signed high half; floor and ceil divisions (divi rounding negative_inf/positive_inf),
// with the same total conventions as DivSI/DivUI (x / 0 = -1, MIN / -1 = MIN).
TT_IBIN(
    MulHiSI, I x = sextI<U, Bits>(a); I y = sextI<U, Bits>(b); if constexpr (sizeof(U) == 8) {
      return static_cast<U>(static_cast<uint64_t>((static_cast<__int128>(x) * y) >> 64));
    } else {
      return normI<U, Bits>(static_cast<U>(static_cast<uint64_t>((int64_t(x) * y) >> Bits)));
    })
TT_IBIN(DivFloorSI, I x = sextI<U, Bits>(a); I y = sextI<U, Bits>(b);
        bool ovf = x == minSigned<U, Bits>() && y == -1; I d = (y == 0 || ovf) ? I(1) : y;
        I q = static_cast<I>(x / d); I r = static_cast<I>(x % d);
        q = static_cast<I>(q - ((r != 0 && ((r < 0) != (d < 0))) ? 1 : 0)); q = ovf ? x : q;
        q = y == 0 ? I(-1) : q; return normI<U, Bits>(static_cast<U>(q));)
TT_IBIN(DivCeilSI, I x = sextI<U, Bits>(a); I y = sextI<U, Bits>(b);
        bool ovf = x == minSigned<U, Bits>() && y == -1; I d = (y == 0 || ovf) ? I(1) : y;
        I q = static_cast<I>(x / d); I r = static_cast<I>(x % d);
        q = static_cast<I>(q + ((r != 0 && ((r < 0) == (d < 0))) ? 1 : 0)); q = ovf ? x : q;
        q = y == 0 ? I(-1) : q; return normI<U, Bits>(static_cast<U>(q));)
TT_IBIN(DivCeilUI, U d = b == 0 ? U(1) : b; U q = static_cast<U>(a / d);
        q = static_cast<U>(q + (a % d != 0 ? 1 : 0));
        return b == 0 ? normI<U, Bits>(static_cast<U>(~U(0))) : q;)
#undef TT_IBIN

template <int Bits> struct AbsI {
  template <class U> static U f(U a) {
    auto x = sextI<U, Bits>(a);
    return normI<U, Bits>(x < 0 ? static_cast<U>(U(0) - a) : a);
  }
};
template <int Bits> struct NegI {
  template <class U> static U f(U a) {
    return normI<U, Bits>(static_cast<U>(Wide<U>(0) - Wide<U>(a)));
  }
};

// ---- comparisons (result i1) ----

#define TT_CMP(Name, ...)                                                                          \
  template <int Bits> struct Name {                                                                \
    static constexpr bool kBool = true;                                                            \
    template <class U> static uint8_t f(U a, U b) {                                                \
      auto sa = sextI<U, Bits>(a);                                                                 \
      auto sb = sextI<U, Bits>(b);                                                                 \
      (void)sa;                                                                                    \
      (void)sb;                                                                                    \
      return (__VA_ARGS__) ? 1 : 0;                                                                \
    }                                                                                              \
  };
TT_CMP(CmpEq, a == b)
TT_CMP(CmpNe, a != b)
TT_CMP(CmpSlt, sa < sb)
TT_CMP(CmpSle, sa <= sb)
TT_CMP(CmpSgt, sa > sb)
TT_CMP(CmpSge, sa >= sb)
TT_CMP(CmpUlt, a < b)
TT_CMP(CmpUle, a <= b)
TT_CMP(CmpUgt, a > b)
TT_CMP(CmpUge, a >= b)
#undef TT_CMP

#define TT_FCMP(Name, expr)                                                                        \
  struct Name {                                                                                    \
    static constexpr bool kBool = true;                                                            \
    template <class C> static uint8_t f(C a, C b) {                                                \
      bool uno = a != a || b != b;                                                                 \
      (void)uno;                                                                                   \
      return (expr) ? 1 : 0;                                                                       \
    }                                                                                              \
  };
TT_FCMP(FFalse, false)
TT_FCMP(FOeq, a == b)
TT_FCMP(FOgt, a > b)
TT_FCMP(FOge, a >= b)
TT_FCMP(FOlt, a < b)
TT_FCMP(FOle, a <= b)
TT_FCMP(FOne, !uno && a != b)
TT_FCMP(FOrd, !uno)
TT_FCMP(FUeq, uno || a == b)
TT_FCMP(FUgt, uno || a > b)
TT_FCMP(FUge, uno || a >= b)
TT_FCMP(FUlt, uno || a < b)
TT_FCMP(FUle, uno || a <= b)
TT_FCMP(FUne, a != b)
TT_FCMP(FUno, uno)
TT_FCMP(FTrue, true)
#undef TT_FCMP

// Pickers implemented in ew_int.cpp / ew_float.cpp / ew_cmp.cpp; null when (op, dtype) has
// no kernel.
KernelFn pickIntBinary(const std::string &name, DType dt, bool ba, bool bb);
KernelFn pickIntUnary(const std::string &name, DType dt, bool ba);
KernelFn pickFloatBinary(const std::string &name, DType dt, bool ba, bool bb);
KernelFn pickFloatUnary(const std::string &name, DType dt, bool ba);
KernelFn pickFloatTernary(const std::string &name, DType dt, bool ba, bool bb, bool bc);
KernelFn pickCmpI(int64_t predicate, DType dt, bool ba, bool bb);
KernelFn pickCmpF(int64_t predicate, DType dt, bool ba, bool bb);

} // namespace tt::exec::ew
