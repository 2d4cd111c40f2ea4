// Tile IR bytecode reader: decodes the envelope, sections, types and op stream that the writer
// produces (NVIDIA's CUDA Tile IR bytecode format), checks the structural rules tileiras enforces,
// prints a readable listing, and re-encodes through ModuleWriter for round-trip tests.
#pragma once

#include "bytecode/writer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tt {
namespace bytecode {

struct DecodedType {
  TypeTag tag = TypeTag::I1;
  uint32_t elem = 0;               // ptr pointee, tile/tensor_view element
  std::vector<int64_t> shape;      // tile shape / tensor_view shape
  std::vector<int64_t> strides;    // tensor_view strides
  std::vector<int32_t> tile_shape; // partition_view
  std::vector<int32_t> dim_map;    // partition_view
  uint32_t tensor_view = 0;        // partition_view
  bool has_padding = false;
  uint32_t padding = 0;
  std::vector<uint32_t> inputs, results; // function
};

struct DecodedBlock;

struct DecodedOp {
  const OpSpec *spec = nullptr;
  std::vector<uint32_t> result_types;
  uint64_t flags = 0;
  std::vector<AttrArg> attrs;                 // aligned with spec->attrs, as OpArgs wants them
  std::vector<std::vector<ValueId>> operands; // aligned with spec->operands
  std::vector<ValueId> results;
  std::vector<std::vector<DecodedBlock>> regions;
  OpArgs args() const { return {result_types, attrs, operands}; }
};

struct DecodedBlock {
  std::vector<uint32_t> arg_types;
  std::vector<ValueId> args;
  std::vector<DecodedOp> ops;
};

struct DecodedFunction {
  uint32_t name = 0;
  uint32_t signature = 0;
  uint8_t flags = 0;
  uint64_t location = 0;
  std::vector<uint8_t> hints; // tagged OptimizationHints attribute, if flags has bit 2
  size_t num_args = 0;
  std::vector<DecodedOp> body;
  FunctionLocs debug; // its line info from the Debug section (debug_info.h); empty without
};

struct DecodedModule {
  Version version;
  std::vector<uint8_t> section_order; // section ids as they appear
  std::vector<std::string> strings;
  std::vector<std::vector<uint8_t>> type_bytes;
  std::vector<DecodedType> types;
  std::vector<std::vector<uint8_t>> constants;
  std::vector<DecodedFunction> functions;

  std::string typeStr(uint32_t t) const;
  /// A readable listing of the functions, one op per line.
  std::string dump() const;
};

/// Decodes and checks a bytecode file; throws BytecodeError naming the offset on any error.
DecodedModule readModule(const std::vector<uint8_t> &bytes);

/// Rebuilds the module with ModuleWriter (same table order), for byte-exact round trips.
std::vector<uint8_t> reencode(const DecodedModule &m);

} // namespace bytecode
} // namespace tt
