// Constants of the CUDA Tile IR bytecode format: version, section ids, type tags, attribute
// tags and opcodes, as NVIDIA/cuda-tile's Bytecode*Opcodes.td and
// lib/Bytecode/BytecodeEnums.h define them.
#pragma once

#include <cstdint>
#include <string>

#include "tile/enums.h"
#include "tile/op_table.h"

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

// Enum attribute values (§4.4) are tile/enums.h's tables; padding values are tt::Padding's
// (ir/type.h).

/// Opcodes (§6), from the op table (tile/op_table.h).
enum class Op : uint32_t {
#define TT_BYTECODE_OPCODE(id, name, code, major, minor) id = code,
  TT_TILE_OPS(TT_BYTECODE_OPCODE)
#undef TT_BYTECODE_OPCODE
};

} // namespace bytecode
} // namespace tt
