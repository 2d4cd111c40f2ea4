// Attribute values for the walker (emit_context.h): hints, constant-pool bytes, identities.
#include "bytecode/emit_context.h"

#include <set>

#include "support/float_format.h"

namespace tt {
namespace bytecode {
namespace emit {
namespace {

FloatFormat formatOf(FloatKind k) {
  switch (k) {
  case FloatKind::F16:
    return kF16;
  case FloatKind::BF16:
    return kBF16;
  case FloatKind::TF32:
    return kTF32;
  case FloatKind::F8E4M3FN:
    return kF8E4M3FN;
  case FloatKind::F8E5M2:
    return kF8E5M2;
  default:
    return {0, 0, 0, false, false};
  }
}

// The bits of `v` as an element of float type `t`, and the element's bit width.
uint64_t floatBitsOf(double v, Type t, int &width) {
  switch (t.floatKind()) {
  case FloatKind::F32:
    width = 32;
    return f32Bits(static_cast<float>(v));
  case FloatKind::F64:
    width = 64;
    return f64Bits(v);
  default: {
    FloatFormat f = formatOf(t.floatKind());
    width = f.width();
    return encodeFloat(v, f);
  }
  }
}

const std::set<std::string> kArchKeys = {"sm_80",  "sm_86",  "sm_87",  "sm_88",
                                         "sm_89",  "sm_90",  "sm_100", "sm_103",
                                         "sm_107", "sm_110", "sm_120", "sm_121"};

} // namespace

// Hints are advisory for tileiras, so a misspelled name would be dropped silently: reject it.
KeyedAttrs hintsOf(const Operation &op, Context &cx, const Attribute &a, bool entry) {
  if (a.kind() != Attribute::Kind::Dict)
    failOp(op, "optimization_hints must be a dictionary keyed by arch, got " + a.str());
  KeyedAttrs out;
  for (const auto &arch : a.getDict()) {
    if (arch.first == "default") {
      if (cx.v < kV13_3)
        failOp(op, "the 'default' hints key needs bytecode 13.3");
    } else if (!kArchKeys.count(arch.first)) {
      failOp(op, "optimization_hints key '" + arch.first + "' is not an arch (sm_90, ...)");
    }
    if (arch.second.kind() != Attribute::Kind::Dict)
      failOp(op, "optimization_hints." + arch.first + " must be a dictionary");
    KeyedAttrs kv;
    for (const auto &h : arch.second.getDict()) {
      const std::string &k = h.first;
      const Attribute &val = h.second;
      bool known =
          entry ? (k == "num_cta_in_cga" || k == "occupancy" || k == "num_worker_warps_per_cta")
                : (k == "latency" || k == "allow_tma");
      if (!known)
        failOp(op, "unknown optimization hint '" + k + "'");
      if (k == "num_worker_warps_per_cta" && cx.v < kV13_3)
        failOp(op, "hint 'num_worker_warps_per_cta' needs bytecode 13.3");
      std::vector<uint8_t> enc;
      if (k == "allow_tma") {
        if (val.kind() != Attribute::Kind::Bool)
          failOp(op, "hint 'allow_tma' must be a bool");
        enc = attr::boolean(val.getBool());
      } else {
        int64_t x = intOf(op, k, val);
        bool ok = k == "occupancy"        ? x >= 1 && x <= 32
                  : k == "latency"        ? x >= 1 && x <= 10
                  : k == "num_cta_in_cga" ? x >= 1 && x <= 16 && (x & (x - 1)) == 0
                                          : x == 4 || x == 8;
        if (!ok)
          failOp(op, "hint '" + k + "' out of range: " + std::to_string(x));
        Type it = val.getType() ? val.getType() : Type::integer(32);
        enc = attr::integer(cx.types.scalar(it), static_cast<uint64_t>(x), it.intWidth());
      }
      kv.emplace_back(cx.w.str(k), std::move(enc));
    }
    out.emplace_back(cx.w.str(arch.first), attr::dictionary(kv));
  }
  return out;
}

// The raw element bytes of a constant op's value, against its result type (§2.3: splats).
std::vector<uint8_t> constantBytes(const Operation &op, const Attribute &a, Type result) {
  const Type e = result.element();
  const Attribute::Kind k = a.kind();
  if (k == Attribute::Kind::Dense && a.getType() != result)
    failOp(op, "dense value type " + a.getType().str() + " differs from the result");
  if (k != Attribute::Kind::Dense && k != Attribute::Kind::Int && k != Attribute::Kind::Float &&
      k != Attribute::Kind::Bool)
    failOp(op, "constant value must be a number or a splat, got " + a.str());
  const bool isFloatValue =
      k == Attribute::Kind::Float || (k == Attribute::Kind::Dense && a.denseIsFloat());
  if (e.isFloat()) {
    int width;
    uint64_t bits = floatBitsOf(isFloatValue ? a.getFloat() : double(a.getInt()), e, width);
    return scalarBytes(bits, (width + 7) / 8);
  }
  if (!e.isInt())
    failOp(op, "Tile IR constants are integers or floats, got " + result.str());
  if (isFloatValue)
    failOp(op, "float value for an integer constant");
  if (e.intWidth() == 1) // MLIR's i1 splat byte: 0xFF or 0x00
    return {uint8_t(a.getInt() & 1 ? 0xFF : 0x00)};
  return scalarBytes(static_cast<uint64_t>(a.getInt()), e.intWidth() / 8);
}

// Tagged Integer/Float attribute of an identity (its type is the scalar element type, §4.2).
std::vector<uint8_t> taggedNumber(const Operation &op, Context &cx, const Attribute &a) {
  Type t = a.getType();
  if (!t || !(t.isInt() || t.isFloat()))
    failOp(op, "identity needs a scalar int or float type, got " + a.str());
  if (t.isFloat()) {
    if (a.kind() != Attribute::Kind::Float && a.kind() != Attribute::Kind::Int)
      failOp(op, "identity must be a number, got " + a.str());
    int width;
    double d = a.kind() == Attribute::Kind::Float ? a.getFloat() : double(a.getInt());
    uint64_t bits = floatBitsOf(d, t, width);
    return attr::floatBits(cx.types.scalar(t), bits, width);
  }
  return attr::integer(cx.types.scalar(t), static_cast<uint64_t>(intOf(op, "identities", a)),
                       t.intWidth());
}

} // namespace emit
} // namespace bytecode
} // namespace tt
