// Per-op bytecode layouts (NVIDIA's CUDA Tile IR bytecode format) as data. The writer's generic
// emit() and the reader both follow this one table, so an op's layout is written down once.
#pragma once

#include "bytecode/format.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tt {
namespace bytecode {

/// How an attribute is written inline in an op payload (§4.1).
enum class AttrKind : uint8_t {
  Unit,        // no bytes: only a bit in the flags varint
  Enum,        // varint enum value
  Int,         // varint (I32Attr / I64Attr)
  Bool,        // one byte 0/1 (scan's `reverse`)
  String,      // varint string index
  Type,        // varint type index
  Const,       // varint constant-pool index
  I32Array,    // varint n + n x i32 LE
  BoolArray,   // varint n + n bytes
  Tagged,      // one tagged attribute (§4.2)
  TaggedArray, // varint n + n tagged attributes
  Hints,       // untagged optimization-hints dictionary
};

struct AttrSpec {
  const char *name;
  AttrKind kind;
  int flag_bit = -1;          // >= 0: optional, present iff this flag bit is set
  Version since = kV13_1;     // written only when the target version >= since
  uint64_t default_value = 0; // for a required scalar attr that older versions cannot carry
};

enum class OperandKind : uint8_t { Single, Optional, Variadic };

struct OperandSpec {
  const char *name;
  OperandKind kind;
  int flag_bit = -1; // Optional operands of segmented ops: present iff this bit is set
  Version since = kV13_1;
};

enum class OperandMode : uint8_t {
  Plain,     // a fixed list of single operands, no count
  Total,     // varint total count, then all operand indices (one group in OpArgs)
  Segmented, // AttrSizedOperandSegments: per group; Variadic groups carry their own count
};

struct OpSpec {
  Op opcode;
  const char *name =
      ""; // cuda_tile op name without the dialect prefix (from the op table), e.g. "load_view_tko"
  Version since = kV13_1;
  bool counted_results = false;       // write a varint result count first (op "is variadic")
  int num_results = 1;                // fixed result count; -1 = any (counted ops only)
  Version last_result_since = kV13_1; // print_tko: its token result exists only since 13.2
  bool has_flags = false;
  Version flags_since = kV13_1;
  std::vector<AttrSpec> attrs;
  OperandMode operand_mode = OperandMode::Plain;
  std::vector<OperandSpec> operands;
  int num_regions = 0;
  bool terminator = false;
};

/// The table lookup; nullptr when unknown.
const OpSpec *findOpSpec(Op opcode);
const OpSpec *findOpSpec(uint32_t opcode);
/// By name, with or without the "cuda_tile." prefix.
const OpSpec *findOpSpec(const std::string &name);
/// All specs, in opcode order.
const std::vector<OpSpec> &allOpSpecs();

} // namespace bytecode
} // namespace tt
