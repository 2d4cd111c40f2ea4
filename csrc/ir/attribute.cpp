#include "ir/attribute.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

namespace tt {

Attribute Attribute::integer(int64_t v, Type t) {
  Attribute a;
  a.kind_ = Kind::Int;
  a.i_ = v;
  a.t_ = t;
  return a;
}

Attribute Attribute::floating(double v, Type t) {
  Attribute a;
  a.kind_ = Kind::Float;
  a.f_ = v;
  a.t_ = t;
  return a;
}

Attribute Attribute::boolean(bool b) {
  Attribute a;
  a.kind_ = Kind::Bool;
  a.i_ = b;
  return a;
}

Attribute Attribute::string(std::string s) {
  Attribute a;
  a.kind_ = Kind::String;
  a.s_ = std::move(s);
  return a;
}

Attribute Attribute::type(Type t) {
  Attribute a;
  a.kind_ = Kind::Type;
  a.t_ = t;
  return a;
}

Attribute Attribute::i32Array(std::vector<int64_t> v) {
  Attribute a;
  a.kind_ = Kind::I32Array;
  a.ints_ = std::move(v);
  return a;
}

Attribute Attribute::array(std::vector<Attribute> v) {
  Attribute a;
  a.kind_ = Kind::Array;
  a.elems_ = std::move(v);
  return a;
}

Attribute Attribute::unit() {
  Attribute a;
  a.kind_ = Kind::Unit;
  return a;
}

Attribute Attribute::denseSplat(double fv, int64_t iv, Type tensorType) {
  Attribute a;
  a.kind_ = Kind::Dense;
  a.t_ = tensorType;
  if (tensorType.element().isFloat())
    a.f_ = fv;
  else
    a.i_ = iv;
  return a;
}

Attribute Attribute::dict(std::vector<std::pair<std::string, Attribute>> entries) {
  Attribute a;
  a.kind_ = Kind::Dict;
  a.dict_ = std::move(entries);
  return a;
}

bool Attribute::operator==(const Attribute &o) const {
  if (kind_ != o.kind_ || i_ != o.i_ || t_ != o.t_ || s_ != o.s_ || ints_ != o.ints_)
    return false;
  // Compare floats bitwise so NaN constants compare equal to themselves (CSE relies on it).
  if (std::memcmp(&f_, &o.f_, sizeof f_) != 0)
    return false;
  if (elems_.size() != o.elems_.size() || dict_.size() != o.dict_.size())
    return false;
  for (size_t i = 0; i < elems_.size(); ++i)
    if (elems_[i] != o.elems_[i])
      return false;
  for (size_t i = 0; i < dict_.size(); ++i)
    if (dict_[i].first != o.dict_[i].first || dict_[i].second != o.dict_[i].second)
      return false;
  return true;
}

size_t Attribute::hash() const {
  size_t h = std::hash<int>()(static_cast<int>(kind_));
  auto mix = [&](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(std::hash<int64_t>()(i_));
  int64_t fbits;
  std::memcpy(&fbits, &f_, sizeof fbits);
  mix(std::hash<int64_t>()(fbits));
  mix(std::hash<std::string>()(s_));
  mix(std::hash<Type>()(t_));
  for (int64_t v : ints_)
    mix(std::hash<int64_t>()(v));
  for (const Attribute &e : elems_)
    mix(e.hash());
  for (const auto &kv : dict_) {
    mix(std::hash<std::string>()(kv.first));
    mix(kv.second.hash());
  }
  return h;
}

std::string formatFloat(double v, Type t) {
  char buf[64];
  if (std::isfinite(v)) {
    std::snprintf(buf, sizeof buf, "%.6e", v);
    // MLIR prints the shortest form that round-trips; keep %.6e unless it loses the value.
    if (std::strtod(buf, nullptr) != v)
      std::snprintf(buf, sizeof buf, "%.17e", v);
    return buf;
  }
  // Non-finite values print as their bit pattern in the element type, as MLIR does.
  Type e = t.element();
  if (e.isFloat() && e.floatWidth() == 64) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::snprintf(buf, sizeof buf, "0x%016llX", static_cast<unsigned long long>(bits));
  } else {
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if (e.isFloat() && e.floatWidth() == 16) {
      bool neg = bits >> 31;
      uint16_t h = std::isnan(v) ? 0x7E00 : 0x7C00;
      if (e.floatKind() == FloatKind::BF16)
        h = std::isnan(v) ? 0x7FC0 : 0x7F80;
      h |= neg ? 0x8000 : 0;
      std::snprintf(buf, sizeof buf, "0x%04X", h);
    } else {
      std::snprintf(buf, sizeof buf, "0x%08X", bits);
    }
  }
  return buf;
}

namespace {
std::string formatInt(int64_t v, Type t) {
  if (t.element().isInt(1))
    return v ? "true" : "false";
  return std::to_string(v);
}
} // namespace

std::string Attribute::str() const {
  switch (kind_) {
  case Kind::None:
    return "<<none>>";
  case Kind::Int:
    if (t_.isInt(1))
      return i_ ? "true" : "false";
    return std::to_string(i_) + " : " + t_.str();
  case Kind::Float:
    return formatFloat(f_, t_) + " : " + t_.str();
  case Kind::Bool:
    return i_ ? "true" : "false";
  case Kind::String: {
    std::string out = "\"";
    for (char c : s_) {
      if (c == '"' || c == '\\')
        out += '\\';
      if (c == '\n') {
        out += "\\0A";
        continue;
      }
      out += c;
    }
    return out + "\"";
  }
  case Kind::Type:
    return t_.str();
  case Kind::I32Array: {
    std::string out = "array<i32";
    for (size_t i = 0; i < ints_.size(); ++i)
      out += (i ? ", " : ": ") + std::to_string(ints_[i]);
    return out + ">";
  }
  case Kind::Array: {
    std::string out = "[";
    for (size_t i = 0; i < elems_.size(); ++i)
      out += (i ? ", " : "") + elems_[i].str();
    return out + "]";
  }
  case Kind::Unit:
    return "unit";
  case Kind::Dense:
    return "dense<" + (denseIsFloat() ? formatFloat(f_, t_) : formatInt(i_, t_)) +
           "> : " + t_.str();
  case Kind::Dict: {
    std::string out = "{";
    for (size_t i = 0; i < dict_.size(); ++i)
      out += (i ? ", " : "") + dict_[i].first + " = " + dict_[i].second.str();
    return out + "}";
  }
  }
  return "?";
}

} // namespace tt
