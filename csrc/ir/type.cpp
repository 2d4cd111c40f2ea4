#include "ir/type.h"

#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace tt {
namespace {

// The interning table, keyed by the canonical spelling (which is injective by construction).
struct TypeTable {
  std::mutex mu;
  std::unordered_map<std::string, std::unique_ptr<TypeStorage>> types;

  Type intern(TypeStorage proto) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = types.find(proto.spelling);
    if (it != types.end())
      return Type(it->second.get());
    auto owned = std::make_unique<TypeStorage>(std::move(proto));
    const TypeStorage *raw = owned.get();
    types.emplace(raw->spelling, std::move(owned));
    return Type(raw);
  }
};

TypeTable &table() {
  static TypeTable *t = new TypeTable(); // never destroyed: types outlive every module
  return *t;
}

std::string joinShape(const std::vector<int64_t> &shape) {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s;
}

} // namespace

const char *floatKindName(FloatKind k) {
  switch (k) {
  case FloatKind::F8E4M3FN:
    return "f8E4M3FN";
  case FloatKind::F8E5M2:
    return "f8E5M2";
  case FloatKind::F16:
    return "f16";
  case FloatKind::BF16:
    return "bf16";
  case FloatKind::TF32:
    return "tf32";
  case FloatKind::F32:
    return "f32";
  case FloatKind::F64:
    return "f64";
  }
  return "?";
}

Type Type::integer(int width) {
  if (width != 1 && width != 8 && width != 16 && width != 32 && width != 64)
    throw std::invalid_argument("unsupported integer width " + std::to_string(width));
  TypeStorage s{TypeKind::Int};
  s.width = width;
  s.spelling = "i" + std::to_string(width);
  return table().intern(std::move(s));
}

Type Type::floating(FloatKind kind) {
  TypeStorage s{TypeKind::Float};
  s.floatKind = kind;
  switch (kind) {
  case FloatKind::F8E4M3FN:
  case FloatKind::F8E5M2:
    s.width = 8;
    break;
  case FloatKind::F16:
  case FloatKind::BF16:
    s.width = 16;
    break;
  case FloatKind::TF32:
  case FloatKind::F32:
    s.width = 32;
    break;
  case FloatKind::F64:
    s.width = 64;
    break;
  }
  s.spelling = floatKindName(kind);
  return table().intern(std::move(s));
}

Type Type::floatByName(const std::string &name) {
  for (FloatKind k : {FloatKind::F8E4M3FN, FloatKind::F8E5M2, FloatKind::F16, FloatKind::BF16,
                      FloatKind::TF32, FloatKind::F32, FloatKind::F64})
    if (name == floatKindName(k))
      return floating(k);
  throw std::invalid_argument("unknown float type '" + name + "'");
}

Type Type::pointer(Type pointee, int addrSpace) {
  if (!pointee || pointee.isFunc())
    throw std::invalid_argument("pointer to an invalid type");
  TypeStorage s{TypeKind::Ptr};
  s.elem = pointee;
  s.addrSpace = addrSpace;
  s.width = 64;
  s.spelling =
      "!tt.ptr<" + pointee.str() + (addrSpace == 1 ? "" : ", " + std::to_string(addrSpace)) + ">";
  return table().intern(std::move(s));
}

Type Type::tensor(const std::vector<int64_t> &shape, Type element) {
  if (!element || element.isTensor() || element.isFunc())
    throw std::invalid_argument("tensor of an invalid element type");
  if (shape.empty())
    return element; // a rank-0 tensor is the scalar itself
  for (int64_t d : shape)
    if (d <= 0)
      throw std::invalid_argument("tensor dimensions must be positive");
  TypeStorage s{TypeKind::Tensor};
  s.elem = element;
  s.shape = shape;
  s.spelling = "tensor<" + joinShape(shape) + element.str() + ">";
  return table().intern(std::move(s));
}

Type Type::function(const std::vector<Type> &inputs, const std::vector<Type> &results) {
  TypeStorage s{TypeKind::Func};
  s.inputs = inputs;
  s.results = results;
  std::string sp = "(";
  for (size_t i = 0; i < inputs.size(); ++i)
    sp += (i ? ", " : "") + inputs[i].str();
  sp += ") -> ";
  if (results.size() == 1 && !results[0].isFunc()) {
    sp += results[0].str();
  } else {
    sp += "(";
    for (size_t i = 0; i < results.size(); ++i)
      sp += (i ? ", " : "") + results[i].str();
    sp += ")";
  }
  s.spelling = sp;
  return table().intern(std::move(s));
}

double paddingValue(Padding p) {
  switch (p) {
  case Padding::NegZero:
    return -0.0;
  case Padding::NaN:
    return std::nan("");
  case Padding::PosInf:
    return INFINITY;
  case Padding::NegInf:
    return -INFINITY;
  default:
    return 0.0;
  }
}

const char *paddingName(Padding p) {
  switch (p) {
  case Padding::Zero:
    return "zero";
  case Padding::NegZero:
    return "neg_zero";
  case Padding::NaN:
    return "nan";
  case Padding::PosInf:
    return "pos_inf";
  case Padding::NegInf:
    return "neg_inf";
  case Padding::None:
    break;
  }
  return "none";
}

namespace {
std::string dims(const std::vector<int64_t> &v, const char *sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? sep : "") + (v[i] == kDynamic ? std::string("?") : std::to_string(v[i]));
  return s;
}
} // namespace

// Spelled as NVIDIA's textual Tile IR: tensor_view<?x32xf32, strides=[?,1]>.
Type Type::tensorView(Type element, const std::vector<int64_t> &shape,
                      const std::vector<int64_t> &strides) {
  if (!element || !element.isScalar() || element.isPtr())
    throw std::invalid_argument("tensor_view of an invalid element type");
  if (shape.size() != strides.size())
    throw std::invalid_argument("tensor_view needs one stride per dimension");
  TypeStorage s{TypeKind::TensorView};
  s.elem = element;
  s.shape = shape;
  s.strides = strides;
  s.spelling = "tensor_view<" + dims(shape, "x") + (shape.empty() ? "" : "x") + element.str();
  if (!shape.empty())
    s.spelling += ", strides=[" + dims(strides, ",") + "]";
  s.spelling += ">";
  return table().intern(std::move(s));
}

Type Type::partitionView(const std::vector<int64_t> &tileShape, Type tensorView,
                         const std::vector<int64_t> &dimMap, Padding padding) {
  if (!tensorView.isTensorView())
    throw std::invalid_argument("partition_view needs a tensor_view");
  if (tileShape.size() != tensorView.viewShape().size())
    throw std::invalid_argument("partition_view tile rank must match the tensor_view");
  TypeStorage s{TypeKind::PartitionView};
  s.elem = tensorView;
  s.shape = tileShape;
  s.dimMap = dimMap;
  s.padding = padding;
  bool identity = true;
  for (size_t i = 0; i < dimMap.size(); ++i)
    identity &= dimMap[i] == static_cast<int64_t>(i);
  s.spelling = "partition_view<tile=(" + dims(tileShape, "x") + "), " + tensorView.str();
  if (!identity)
    s.spelling += ", dim_map=[" + dims(dimMap, ", ") + "]";
  if (padding != Padding::None)
    s.spelling += std::string(", padding_value = ") + paddingName(padding);
  s.spelling += ">";
  return table().intern(std::move(s));
}

Type Type::tensorDesc(Type block) {
  if (!block.isTensor())
    throw std::invalid_argument("a tensor descriptor describes a tensor block");
  TypeStorage s{TypeKind::TensorDesc};
  s.elem = block;
  s.spelling = "!tt.tensordesc<" + block.str() + ">";
  return table().intern(std::move(s));
}

Type Type::descBlock() const { return s_->elem; }

Type Type::token() {
  TypeStorage s{TypeKind::Token};
  s.spelling = "!cuda_tile.token";
  return table().intern(std::move(s));
}

TypeKind Type::kind() const { return s_->kind; }
int Type::intWidth() const { return s_->width; }
FloatKind Type::floatKind() const { return s_->floatKind; }
int Type::floatWidth() const { return s_->width; }
int Type::bitWidth() const {
  const TypeStorage *e = element().s_;
  return e->kind == TypeKind::Ptr ? 64 : e->width;
}
int Type::byteWidth() const {
  int bits = bitWidth();
  return bits <= 8 ? 1 : bits / 8;
}
Type Type::pointee() const { return s_->elem; }
int Type::addrSpace() const { return s_->addrSpace; }
const std::vector<int64_t> &Type::shape() const {
  static const std::vector<int64_t> empty;
  return isTensor() ? s_->shape : empty;
}
int64_t Type::numel() const {
  int64_t n = 1;
  for (int64_t d : shape())
    n *= d;
  return n;
}
Type Type::element() const { return isTensor() ? s_->elem : *this; }
Type Type::withShape(const std::vector<int64_t> &shape) const { return tensor(shape, element()); }
Type Type::withElement(Type element) const {
  return isTensor() ? tensor(shape(), element) : element;
}
const std::vector<Type> &Type::inputs() const { return s_->inputs; }
const std::vector<Type> &Type::results() const { return s_->results; }
Type Type::viewElement() const { return isPartitionView() ? s_->elem.viewElement() : s_->elem; }
const std::vector<int64_t> &Type::viewShape() const {
  return isPartitionView() ? s_->elem.viewShape() : s_->shape;
}
const std::vector<int64_t> &Type::viewStrides() const {
  return isPartitionView() ? s_->elem.viewStrides() : s_->strides;
}
const std::vector<int64_t> &Type::tileShape() const { return s_->shape; }
const std::vector<int64_t> &Type::dimMap() const { return s_->dimMap; }
Padding Type::padding() const { return s_->padding; }
Type Type::tensorViewOf() const { return s_->elem; }
std::string Type::str() const { return s_ ? s_->spelling : "<<null type>>"; }
std::string Type::scalarName() const {
  Type e = element();
  return e.isPtr() ? "ptr" : e.str();
}

} // namespace tt
