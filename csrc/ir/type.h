// Types of the IR core. TTIR and Tile IR share them: integers are signless (as in MLIR),
// floats carry their format, pointers their pointee, tensors a static shape.
//
// Types are interned in one process-wide table: two equal types are the same storage, so a
// Type compares and hashes by pointer. Storage is never freed (types are few and small).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tt {

enum class TypeKind : uint8_t {
  Int,
  Float,
  Ptr,
  Tensor,
  Func,
  Token,
  TensorView,
  PartitionView,
  TensorDesc
};

// A dynamic extent or stride of a tensor_view (printed `?`), as in Tile IR's bytecode.
constexpr int64_t kDynamic = INT64_MIN;

// Tile IR's padding values for partition views (bytecode enum order); kNoPadding = none.
enum class Padding : int8_t { None = -1, Zero = 0, NegZero = 1, NaN = 2, PosInf = 3, NegInf = 4 };

// Float formats in the order of their width; F8E4M3FN/F8E5M2 are OCP fp8 (Triton's fp8e4nv and
// fp8e5), TF32 exists only in Tile IR (mma operands).
enum class FloatKind : uint8_t { F8E4M3FN, F8E5M2, F16, BF16, TF32, F32, F64 };

struct TypeStorage;

class Type {
public:
  Type() = default;
  explicit Type(const TypeStorage *s) : s_(s) {}

  static Type integer(int width);
  static Type floating(FloatKind kind);
  static Type floatByName(const std::string &name); // "f16", "bf16", ...; throws on unknown
  static Type pointer(Type pointee, int addrSpace = 1);
  static Type tensor(const std::vector<int64_t> &shape, Type element);
  static Type function(const std::vector<Type> &inputs, const std::vector<Type> &results);
  static Type token();
  // Triton's tensor descriptor: `!tt.tensordesc<tensor<64x64xf16>>` (the block it moves).
  static Type tensorDesc(Type block);
  // Tile IR views. A tensor_view is a global tensor (element, shape, strides; each extent or
  // stride may be kDynamic); a partition_view tiles one with a static tile shape.
  static Type tensorView(Type element, const std::vector<int64_t> &shape,
                         const std::vector<int64_t> &strides);
  static Type partitionView(const std::vector<int64_t> &tileShape, Type tensorView,
                            const std::vector<int64_t> &dimMap, Padding padding);

  explicit operator bool() const { return s_ != nullptr; }
  bool operator==(Type o) const { return s_ == o.s_; }
  bool operator!=(Type o) const { return s_ != o.s_; }
  const TypeStorage *storage() const { return s_; }

  TypeKind kind() const;
  bool isInt() const { return s_ && kind() == TypeKind::Int; }
  bool isInt(int width) const { return isInt() && intWidth() == width; }
  bool isFloat() const { return s_ && kind() == TypeKind::Float; }
  bool isPtr() const { return s_ && kind() == TypeKind::Ptr; }
  bool isTensor() const { return s_ && kind() == TypeKind::Tensor; }
  bool isFunc() const { return s_ && kind() == TypeKind::Func; }
  bool isToken() const { return s_ && kind() == TypeKind::Token; }
  bool isTensorView() const { return s_ && kind() == TypeKind::TensorView; }
  bool isPartitionView() const { return s_ && kind() == TypeKind::PartitionView; }
  bool isTensorDesc() const { return s_ && kind() == TypeKind::TensorDesc; }
  // A block pointer: a pointer whose pointee is a tensor (tt.make_tensor_ptr).
  bool isBlockPtr() const { return isPtr() && pointee().isTensor(); }
  Type descBlock() const; // TensorDesc: the block tensor type
  bool isView() const { return isTensorView() || isPartitionView(); }
  bool isScalar() const {
    return s_ && !isTensor() && !isFunc() && !isView() && !isToken() && !isTensorDesc();
  }

  int intWidth() const;                      // Int only
  FloatKind floatKind() const;               // Float only
  int floatWidth() const;                    // bits of a Float (tf32 counts 32: its storage width)
  int bitWidth() const;                      // Int/Float width, 64 for pointers
  int byteWidth() const;                     // storage bytes of one element (i1 takes one byte)
  Type pointee() const;                      // Ptr only
  int addrSpace() const;                     // Ptr only
  const std::vector<int64_t> &shape() const; // Tensor: its shape; scalars: empty
  int rank() const { return static_cast<int>(shape().size()); }
  int64_t numel() const;                                   // 1 for scalars
  Type element() const;                                    // Tensor: element type; scalars: itself
  Type withShape(const std::vector<int64_t> &shape) const; // same element, new shape (or scalar)
  Type withElement(Type element) const;                    // same shape, new element
  const std::vector<Type> &inputs() const;                 // Func only
  const std::vector<Type> &results() const;                // Func only
  // Views: viewElement (element type), viewShape/viewStrides (tensor_view), tileShape, dimMap,
  // padding and underlying tensor_view (partition_view).
  Type viewElement() const;
  const std::vector<int64_t> &viewShape() const;
  const std::vector<int64_t> &viewStrides() const;
  const std::vector<int64_t> &tileShape() const;
  const std::vector<int64_t> &dimMap() const;
  Padding padding() const;
  Type tensorViewOf() const;

  std::string str() const;        // MLIR spelling: i32, f16, !tt.ptr<f32>, tensor<4x8xf32>
  std::string scalarName() const; // "i32", "f16", "ptr" for scalars

private:
  const TypeStorage *s_ = nullptr;
};

struct TypeStorage {
  TypeKind kind;
  int width = 0;
  FloatKind floatKind = FloatKind::F32;
  Type elem; // pointee / tensor element
  int addrSpace = 1;
  std::vector<int64_t> shape;
  std::vector<Type> inputs, results;
  std::vector<int64_t> strides, dimMap; // views
  Padding padding = Padding::None;
  std::string spelling;
};

const char *floatKindName(FloatKind k);
const char *paddingName(Padding p);
// The float a padding stands for (0 for None and Zero).
double paddingValue(Padding p);

} // namespace tt

template <> struct std::hash<tt::Type> {
  size_t operator()(tt::Type t) const { return std::hash<const void *>()(t.storage()); }
};
