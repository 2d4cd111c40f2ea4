// Constants of the CUDA Tile IR bytecode format: version, section ids, type tags, attribute
// tags, opcodes and enum values, as NVIDIA/cuda-tile's Bytecode*Opcodes.td and
// lib/Bytecode/BytecodeEnums.h define them.
#pragma once

#include <cstdint>
#include <string>

namespace tt {
namespace bytecode {

/// Bytecode version (major.minor). Tile IR has 13.1..13.4; we emit 13.3 by default (the oldest
/// version that tileiras accepts for Hopper sm_90) and 13.4 only for its new features.
struct Version {
  uint8_t major = 13;
  uint8_t minor = 3;
  constexpr Version() = default;
  constexpr Version(uint8_t mj, uint8_t mn) : major(mj), minor(mn) {}
  constexpr int key() const { return major * 100 + minor; }
  constexpr bool operator>=(Version o) const { return key() >= o.key(); }
  constexpr bool operator<(Version o) const { return key() < o.key(); }
  constexpr bool operator==(Version o) const { return key() == o.key(); }
  constexpr bool operator!=(Version o) const { return key() != o.key(); }
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};
constexpr Version kV13_1{13, 1};
constexpr Version kV13_2{13, 2};
constexpr Version kV13_3{13, 3};
constexpr Version kV13_4{13, 4};
constexpr Version kDefaultVersion = kV13_3;
constexpr Version kMinVersion = kV13_1;
constexpr Version kMaxVersion = kV13_4;

constexpr uint8_t kMagic[8] = {0x7F, 'T', 'i', 'l', 'e', 'I', 'R', 0x00};

enum class SectionId : uint8_t {
  End = 0x00,
  String = 0x01,
  Func = 0x02,
  Debug = 0x03,
  Constant = 0x04,
  Type = 0x05,
  Global = 0x06,
  Producer = 0x07, // 13.3+
};
constexpr uint8_t kSectionAlignFlag = 0x80;

/// Function-table flags (§2.4).
enum FuncFlags : uint8_t {
  kFuncPrivate = 0x01,
  kFuncKernel = 0x02,
  kFuncHasHints = 0x04,
};

/// Type tags (§3).
enum class TypeTag : uint32_t {
  I1 = 0,
  I8 = 1,
  I16 = 2,
  I32 = 3,
  I64 = 4,
  F16 = 5,
  BF16 = 6,
  F32 = 7,
  TF32 = 8,
  F64 = 9,
  F8E4M3FN = 10,
  F8E5M2 = 11,
  Ptr = 12,
  Tile = 13,
  TensorView = 14,
  PartitionView = 15,
  Func = 16,
  Token = 17,
  F8E8M0FNU = 18,         // 13.2
  F4E2M1FN = 19,          // 13.3
  GatherScatterView = 20, // 13.3
  StridedView = 21,       // 13.3
  I4 = 22,                // 13.3
  F8E5M3FNU = 130,        // 13.4
};

/// Tagged ("self-contained") attribute tags (§4.2).
enum class AttrTag : uint32_t {
  Integer = 1,
  Float = 2,
  Bool = 3,
  Type = 4,
  String = 5,
  Array = 6,
  DenseElements = 7,
  DivBy = 8,
  SameElements = 9,
  Dictionary = 10,
  OptimizationHints = 11,
  Bounded = 12,
};

/// Dynamic extent marker of tensor_view shapes/strides.
constexpr int64_t kDynamic = INT64_MIN;

// Enum attribute values (§4.4).
enum class Rounding : uint8_t {
  NearestEven = 0,
  Zero = 1,
  NegativeInf = 2,
  PositiveInf = 3,
  Approx = 4,
  Full = 5,
  NearestIntToZero = 6,
  NearestAway = 7, // 13.4
};
enum class Overflow : uint8_t { None = 0, NSW = 1, NUW = 2, NW = 3 };
enum class Signedness : uint8_t { Unsigned = 0, Signed = 1 };
enum class CmpPred : uint8_t { EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5 };
enum class CmpOrdering : uint8_t { Unordered = 0, Ordered = 1 };
enum class MemOrder : uint8_t { Weak = 0, Relaxed = 1, Acquire = 2, Release = 3, AcqRel = 4 };
enum class MemScope : uint8_t { TlBlk = 0, Device = 1, Sys = 2 };
enum class AtomicMode : uint8_t {
  And = 0,
  Or = 1,
  Xor = 2,
  Add = 3,
  AddF = 4,
  Max = 5,
  Min = 6,
  UMax = 7,
  UMin = 8,
  Xchg = 9
};
enum class Padding : uint8_t { Zero = 0, NegZero = 1, NaN = 2, PosInf = 3, NegInf = 4 };

/// Opcodes (§6). 0x76–0x7A are 13.4 ops.
enum class Op : uint32_t {
  AbsF = 0x00,
  AbsI = 0x01,
  AddF = 0x02,
  AddI = 0x03,
  AndI = 0x04,
  Assert = 0x05,
  Assume = 0x06,
  AtomicCasTko = 0x07,
  AtomicRmwTko = 0x08,
  Bitcast = 0x09,
  Break = 0x0A,
  Broadcast = 0x0B,
  Cat = 0x0C,
  Ceil = 0x0D,
  CmpF = 0x0E,
  CmpI = 0x0F,
  Constant = 0x10,
  Continue = 0x11,
  Cos = 0x12,
  CosH = 0x13,
  DivF = 0x14,
  DivI = 0x15,
  Entry = 0x16,
  Exp = 0x17,
  Exp2 = 0x18,
  ExtI = 0x25,
  Extract = 0x26,
  Floor = 0x27,
  Fma = 0x28,
  For = 0x29,
  FToF = 0x2A,
  FToI = 0x2B,
  GetGlobal = 0x2C,
  GetIndexSpaceShape = 0x2D,
  GetNumTileBlocks = 0x2E,
  GetTensorShape = 0x2F,
  GetTileBlockId = 0x30,
  Global = 0x31,
  If = 0x32,
  IntToPtr = 0x33,
  IToF = 0x3B,
  Iota = 0x3A,
  JoinTokens = 0x3C,
  LoadPtrTko = 0x3D,
  LoadViewTko = 0x3E,
  Log = 0x3F,
  Log2 = 0x40,
  Loop = 0x41,
  MakePartitionView = 0x42,
  MakeTensorView = 0x43,
  MakeToken = 0x44,
  MaxF = 0x45,
  MaxI = 0x46,
  MinF = 0x47,
  MinI = 0x48,
  MmaF = 0x49,
  MmaI = 0x4A,
  Module = 0x4B,
  MulF = 0x4C,
  MulhiI = 0x4D,
  MulI = 0x4E,
  NegF = 0x4F,
  NegI = 0x50,
  Offset = 0x51,
  OrI = 0x52,
  Permute = 0x53,
  Pow = 0x54,
  PrintTko = 0x55,
  PtrToInt = 0x56,
  PtrToPtr = 0x57,
  Reduce = 0x58,
  RemF = 0x59,
  RemI = 0x5A,
  Reshape = 0x5B,
  Return = 0x5C,
  Rsqrt = 0x5D,
  Scan = 0x5E,
  Select = 0x5F,
  ShlI = 0x60,
  ShrI = 0x61,
  Sin = 0x62,
  SinH = 0x63,
  Sqrt = 0x64,
  StorePtrTko = 0x65,
  StoreViewTko = 0x66,
  SubF = 0x67,
  SubI = 0x68,
  Tan = 0x69,
  TanH = 0x6A,
  TruncI = 0x6B,
  XorI = 0x6C,
  Yield = 0x6D,
  Atan2 = 0x6E,                  // 13.2
  Pack = 0x6F,                   // 13.3
  Unpack = 0x70,                 // 13.3
  Alloca = 0x71,                 // 13.3
  MmaFScaled = 0x72,             // 13.3
  MakeGatherScatterView = 0x73,  // 13.3
  MakeStridedView = 0x74,        // 13.3
  AtomicRedViewTko = 0x75,       // 13.3
  Insert = 0x76,                 // 13.4
  GdcLaunchDependentsTko = 0x77, // 13.4
  GdcWaitTko = 0x78,             // 13.4
  FPowI = 0x79,                  // 13.4
  MemoryFenceAliasTko = 0x7A,    // 13.4
};

} // namespace bytecode
} // namespace tt
