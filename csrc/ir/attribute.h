// Attributes: the compile-time data an operation carries (predicates, axes, constants,
// callee names, per-argument hints). One small tagged value type, printed in MLIR syntax.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/type.h"

namespace tt {

class Attribute {
public:
  enum class Kind : uint8_t {
    None,
    Int,
    Float,
    Bool,
    String,
    Type,
    I32Array,
    Array,
    Unit,
    Dense,
    Dict
  };

  Attribute() = default;
  static Attribute integer(int64_t v, Type t);
  static Attribute floating(double v, Type t);
  static Attribute boolean(bool b);
  static Attribute string(std::string s);
  static Attribute type(Type t);
  static Attribute i32Array(std::vector<int64_t> v);
  static Attribute array(std::vector<Attribute> v);
  static Attribute unit();
  // A splat constant: every element of `tensorType` equals `v` (integer or float by the
  // element type; i1 uses 0/1).
  static Attribute denseSplat(double fv, int64_t iv, Type tensorType);
  static Attribute dict(std::vector<std::pair<std::string, Attribute>> entries);

  Kind kind() const { return kind_; }
  explicit operator bool() const { return kind_ != Kind::None; }
  int64_t getInt() const { return i_; }
  double getFloat() const { return f_; }
  bool getBool() const { return i_ != 0; }
  const std::string &getString() const { return s_; }
  Type getType() const { return t_; }
  const std::vector<int64_t> &getInts() const { return ints_; }
  const std::vector<Attribute> &getArray() const { return elems_; }
  const std::vector<std::pair<std::string, Attribute>> &getDict() const { return dict_; }
  // Dense splat: its scalar value as a double (float elements) or an integer.
  bool denseIsFloat() const { return t_.element().isFloat(); }

  bool operator==(const Attribute &o) const;
  bool operator!=(const Attribute &o) const { return !(*this == o); }
  size_t hash() const;
  std::string str() const; // MLIR syntax: `16 : i32`, `dense<0.0> : tensor<4xf32>`, `"msg"`

private:
  Kind kind_ = Kind::None;
  int64_t i_ = 0;
  double f_ = 0;
  std::string s_;
  Type t_;
  std::vector<int64_t> ints_;
  std::vector<Attribute> elems_;
  std::vector<std::pair<std::string, Attribute>> dict_;
};

// Formats a float as MLIR prints it (`1.000000e+00`, `0x7FC00000` for NaN/inf).
std::string formatFloat(double v, Type t);

} // namespace tt
