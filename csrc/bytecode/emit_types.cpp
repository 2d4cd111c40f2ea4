// IR types -> bytecode types for the walker (emit_context.h), and its error helpers.
#include "bytecode/emit_context.h"

namespace tt {
namespace bytecode {
namespace emit {

void failOp(const Operation &op, const std::string &msg) {
  throw OpError("tile bytecode: op '" + op.name() + "' at " + locationString(op.loc()) + ": " +
                msg);
}

int64_t intOf(const Operation &op, const std::string &name, const Attribute &a) {
  if (a.kind() == Attribute::Kind::Int || a.kind() == Attribute::Kind::Bool)
    return a.getInt();
  failOp(op, "attribute '" + name + "' must be an integer, got " + a.str());
}

std::vector<int32_t> toI32(const std::vector<int64_t> &v) {
  return std::vector<int32_t>(v.begin(), v.end());
}

namespace {
[[noreturn]] void fail(const std::string &msg) { throw BytecodeError("tile bytecode: " + msg); }
} // namespace

uint32_t TypeMap::scalar(Type t) {
  auto it = scalar_.find(t);
  if (it != scalar_.end())
    return it->second;
  uint32_t idx;
  if (t.isInt()) {
    switch (t.intWidth()) {
    case 1:
      idx = w_.i1();
      break;
    case 8:
      idx = w_.i8();
      break;
    case 16:
      idx = w_.i16();
      break;
    case 32:
      idx = w_.i32();
      break;
    case 64:
      idx = w_.i64();
      break;
    default:
      fail("Tile IR has no integer type " + t.str());
    }
  } else if (t.isFloat()) {
    static const TypeTag tags[] = {TypeTag::F8E4M3FN, TypeTag::F8E5M2, TypeTag::F16, TypeTag::BF16,
                                   TypeTag::TF32,     TypeTag::F32,    TypeTag::F64};
    idx = w_.scalarType(tags[static_cast<int>(t.floatKind())]);
  } else if (t.isPtr()) {
    if (t.pointee().isPtr() || t.addrSpace() != 1)
      fail("Tile IR pointers point to global scalars, got " + t.str());
    idx = w_.ptrType(scalar(t.pointee()));
  } else {
    fail("no Tile IR element type for " + t.str());
  }
  scalar_.emplace(t, idx);
  return idx;
}

uint32_t TypeMap::value(Type t) {
  auto it = value_.find(t);
  if (it != value_.end())
    return it->second;
  uint32_t idx;
  switch (t.kind()) {
  case TypeKind::Int:
  case TypeKind::Float:
  case TypeKind::Ptr:
    idx = w_.tileType({}, scalar(t));
    break;
  case TypeKind::Tensor:
    idx = w_.tileType(t.shape(), scalar(t.element()));
    break;
  case TypeKind::Token:
    idx = w_.tokenType();
    break;
  case TypeKind::TensorView:
    idx = w_.tensorViewType(scalar(t.viewElement()), t.viewShape(), t.viewStrides());
    break;
  case TypeKind::PartitionView: {
    std::optional<tt::Padding> pad;
    if (t.padding() != tt::Padding::None)
      pad = static_cast<tt::Padding>(static_cast<int>(t.padding()));
    idx =
        w_.partitionViewType(toI32(t.tileShape()), value(t.tensorViewOf()), toI32(t.dimMap()), pad);
    break;
  }
  default:
    fail("no Tile IR value type for " + t.str());
  }
  value_.emplace(t, idx);
  return idx;
}

} // namespace emit
} // namespace bytecode
} // namespace tt
