// Internal to the Tile IR -> bytecode walker (emit_module.cpp, emit_types.cpp, emit_values.cpp):
// errors that name the op, the IR type -> bytecode type map, and the encoders of attribute
// values (hints, constants, identities).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bytecode/writer.h"
#include "ir/operation.h"

namespace tt {
namespace bytecode {
namespace emit {

/// An error already naming its op: region ops rethrow their nested ops' errors unchanged.
class OpError : public BytecodeError {
public:
  using BytecodeError::BytecodeError;
};

[[noreturn]] void failOp(const Operation &op, const std::string &msg);

/// An Int (or Bool) attribute's value; anything else is an error naming the op.
int64_t intOf(const Operation &op, const std::string &name, const Attribute &a);

std::vector<int32_t> toI32(const std::vector<int64_t> &v);

/// Bytecode types of IR types, memoized.
class TypeMap {
public:
  explicit TypeMap(ModuleWriter &w) : w_(w) {}
  /// A bare element type: i32, f16, ptr<f32> (tile elements, attribute types).
  uint32_t scalar(Type t);
  /// The type of an SSA value: scalars are rank-0 tiles; tokens and views as they are.
  uint32_t value(Type t);

private:
  ModuleWriter &w_;
  std::unordered_map<Type, uint32_t> scalar_, value_;
};

/// Everything one module's ops share.
struct Context {
  ModuleWriter &w;
  TypeMap types;
  Version v;
  bool lineInfo = true; // the ops' source positions into the Debug section (debug_info.h)
};

using KeyedAttrs = std::vector<std::pair<uint32_t, std::vector<uint8_t>>>;

/// optimization_hints {arch: {name: value}} as (arch string, tagged Dictionary) pairs; `entry`
/// selects the entry hint names (occupancy, ...) over the load/store ones (latency, ...).
KeyedAttrs hintsOf(const Operation &op, Context &cx, const Attribute &a, bool entry);

/// The raw element bytes of a constant op's value against its result type (a splat).
std::vector<uint8_t> constantBytes(const Operation &op, const Attribute &a, Type result);

/// A tagged Integer/Float attribute (reduce/scan identities), typed by its scalar type.
std::vector<uint8_t> taggedNumber(const Operation &op, Context &cx, const Attribute &a);

} // namespace emit
} // namespace bytecode
} // namespace tt
