// Tile IR module (cuda_tile ops on the IR core, as convert-ttir-to-tile builds it) -> bytecode.
//
// Walks every cuda_tile.entry and writes each op through the one layout table (op_specs.h), with
// its source position for the Debug section (line info) unless asked not to:
// IR types map to bytecode types (memoized), attributes follow the conventions of tile/tile.h,
// operandSegmentSizes become the optional-operand flags, regions keep their value scopes.
// Anything it cannot encode exactly (an unknown op, an unknown or out-of-range attribute, a
// type Tile IR lacks) throws BytecodeError naming the op: never a wrong byte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bytecode/format.h"
#include "ir/operation.h"

namespace tt {
namespace bytecode {

/// The version to emit: 13.3 (the oldest that tileiras accepts for Hopper) unless the module
/// uses a 13.4-only op or feature; then 13.4.
Version chooseVersion(const Module &tileModule);

/// Serializes the module at version `v`; throws BytecodeError when `v` cannot express it. With
/// `lineInfo`, the ops' source positions go into a Debug section (debug_info.h).
std::vector<uint8_t> writeModule(const Module &tileModule, Version v, bool lineInfo = true);

/// Serializes the module at chooseVersion(tileModule).
std::vector<uint8_t> writeModule(const Module &tileModule, bool lineInfo = true);

/// "13.3" -> Version; throws BytecodeError for a malformed or unsupported version.
Version parseVersion(const std::string &text);

} // namespace bytecode
} // namespace tt
