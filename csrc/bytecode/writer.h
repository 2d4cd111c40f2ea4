// Tile IR bytecode writer: NVIDIA's CUDA Tile IR bytecode format, versions 13.1-13.4 (the
// layout NVIDIA/cuda-tile's lib/Bytecode reader accepts; docs/architecture.md).
//
//   ModuleWriter m(kV13_3);                      // header version; 13.3 is the default
//   uint32_t f32 = m.f32(), pf = m.tileType({}, m.ptrType(f32));
//   FunctionWriter &fn = m.addEntry("k", m.funcType({pf}, {}));
//   ValueId x = fn.arg(0);  ...  fn.ret();  // ops through fn.emit(spec, args) or the helpers
//   std::vector<uint8_t> bytes = m.finish();
//
// emit_module.h walks our Tile IR (cuda_tile ops in the IR core) and calls
// FunctionWriter::emit() op by op, with the OpSpec from findOpSpec(op name); regions go through
// beginRegionOp/beginRegion/beginBlock/endBlock/endRegion/endRegionOp.
#pragma once

#include "bytecode/byte_buffer.h"
#include "bytecode/debug_info.h"
#include "bytecode/format.h"
#include "bytecode/op_specs.h"
#include "ir/type.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tt {
namespace bytecode {

class BytecodeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// An SSA value of a function body, as its bytecode value index (not the IR core's tt::Value).
using ValueId = uint32_t;

/// One inline attribute of an op (aligned with OpSpec::attrs). Scalar kinds (Enum, Int, String,
/// Type, Const, Bool) use `value`; the others carry their pre-encoded `bytes` (use the
/// encoders in `attr::` below). For Unit and optional attributes, `present` sets the flag bit.
struct AttrArg {
  bool present = false;
  uint64_t value = 0;
  std::vector<uint8_t> bytes;
  static AttrArg none() { return {}; }
  static AttrArg of(uint64_t v) { return {true, v, {}}; }
  static AttrArg raw(std::vector<uint8_t> b) { return {true, 0, std::move(b)}; }
  static AttrArg flag(bool on) { return {on, 0, {}}; }
};

/// Everything emit() needs besides the spec. `operands` is aligned with OpSpec::operands
/// (for OperandMode::Total: a single group with all operands); an absent optional operand is an
/// empty group.
struct OpArgs {
  std::vector<uint32_t> result_types;
  std::vector<AttrArg> attrs;
  std::vector<std::vector<ValueId>> operands;
};

class ModuleWriter;

/// Writes the body of one entry function: value numbering, nested regions, terminators.
class FunctionWriter {
public:
  ValueId arg(size_t i) const;
  size_t numArgs() const { return num_args_; }
  ModuleWriter &module() { return *module_; }
  Version version() const;

  /// Writes an op without regions; returns its results.
  std::vector<ValueId> emit(const OpSpec &spec, const OpArgs &args);
  std::vector<ValueId> emit(Op op, const OpArgs &args);

  /// Ops with regions: header first, then each region and block, then the results.
  void beginRegionOp(const OpSpec &spec, const OpArgs &args);
  void beginRegion(uint32_t num_blocks); // 1, or 0 for an absent `else`
  std::vector<ValueId> beginBlock(const std::vector<uint32_t> &arg_types);
  void endBlock();
  void endRegion();
  std::vector<ValueId> endRegionOp();

  // Helpers for hand-written kernels and tests (each is one emit()).
  std::vector<ValueId> getTileBlockId(uint32_t i32_tile);
  ValueId constant(uint32_t type, uint32_t const_index);
  ValueId iota(uint32_t type);
  ValueId unary(Op op, uint32_t type, ValueId src); // ops with no attributes/flags (reshape, ...)
  ValueId binary(Op op, uint32_t type, ValueId lhs,
                 ValueId rhs); // no attributes (andi, offset, ...)
  ValueId addf(uint32_t type, ValueId lhs, ValueId rhs, tile::Rounding r = tile::kNearestEven,
               bool ftz = false);
  ValueId addi(uint32_t type, ValueId lhs, ValueId rhs, tile::Overflow o = tile::kNoOverflowFlag);
  ValueId muli(uint32_t type, ValueId lhs, ValueId rhs, tile::Overflow o = tile::kNoOverflowFlag);
  ValueId negi(uint32_t type, ValueId src, tile::Overflow o = tile::kNoOverflowFlag);
  ValueId cmpi(uint32_t i1_type, tile::Predicate p, tile::Signedness s, ValueId lhs, ValueId rhs);
  ValueId assumeDivBy(uint32_t type, ValueId v, uint64_t divisor);
  ValueId makeTensorView(uint32_t type, ValueId base, const std::vector<ValueId> &dyn_shape,
                         const std::vector<ValueId> &dyn_strides);
  ValueId makePartitionView(uint32_t type, ValueId tensor_view);
  /// Returns {tile, token}.
  std::pair<ValueId, ValueId> loadViewTko(uint32_t tile_type, uint32_t token_type, ValueId view,
                                          const std::vector<ValueId> &index,
                                          std::optional<ValueId> token = std::nullopt,
                                          tile::Ordering order = tile::kWeak);
  ValueId storeViewTko(uint32_t token_type, ValueId tile, ValueId view,
                       const std::vector<ValueId> &index,
                       std::optional<ValueId> token = std::nullopt,
                       tile::Ordering order = tile::kWeak);
  std::pair<ValueId, ValueId> loadPtrTko(uint32_t tile_type, uint32_t token_type, ValueId ptrs,
                                         std::optional<ValueId> mask = std::nullopt,
                                         std::optional<ValueId> padding = std::nullopt,
                                         std::optional<ValueId> token = std::nullopt,
                                         tile::Ordering order = tile::kWeak);
  ValueId storePtrTko(uint32_t token_type, ValueId ptrs, ValueId value,
                      std::optional<ValueId> mask = std::nullopt,
                      std::optional<ValueId> token = std::nullopt,
                      tile::Ordering order = tile::kWeak);
  ValueId makeToken(uint32_t token_type);
  ValueId joinTokens(uint32_t token_type, const std::vector<ValueId> &tokens);
  void ret(const std::vector<ValueId> &values = {});

  /// Line info (debug_info.h): the function's own position (its definition) and the position of
  /// the ops written from now on. A function whose own position is unknown gets none.
  void setFunctionLoc(SourceLoc loc) { fn_loc_ = std::move(loc); }
  void setLoc(SourceLoc loc) { cur_loc_ = std::move(loc); }

private:
  friend class ModuleWriter;
  FunctionWriter(ModuleWriter *m, uint32_t name, uint32_t sig, size_t num_args,
                 std::vector<uint8_t> hints);

  struct Block {
    ByteBuffer buf;
    uint32_t num_ops = 0;
    bool terminated = false;
    std::vector<uint32_t> arg_types;
  };
  struct PendingRegionOp {
    const OpSpec *spec;
    std::vector<uint32_t> result_types;
    uint32_t saved_counter;
    uint32_t regions_left;
    uint32_t blocks_left = 0;
    bool in_region = false;
    size_t depth = 0; // blocks_.size() when the op began
  };

  void writeHeader(const OpSpec &spec, const OpArgs &args, ByteBuffer &out);
  std::vector<ValueId> newValues(size_t n);
  void checkOperand(ValueId v) const;
  Block &cur() { return blocks_.back(); }
  std::vector<uint8_t> finishBody() const;

  ModuleWriter *module_;
  uint32_t name_;
  uint32_t sig_;
  size_t num_args_;
  std::vector<uint8_t> hints_; // tagged OptimizationHints attribute, or empty
  uint32_t counter_;
  std::vector<Block> blocks_; // blocks_[0] is the function body
  std::vector<PendingRegionOp> pending_;
  SourceLoc fn_loc_, cur_loc_;
  std::vector<SourceLoc> op_locs_; // each op's position, in the order written (pre-order)
};

/// Builds the tagged attributes of §4.2 and the untagged hints dictionary of §4.1/§4.3.
namespace attr {
std::vector<uint8_t> integer(uint32_t int_type, uint64_t value, int bits);
std::vector<uint8_t> floatBits(uint32_t float_type, uint64_t bits, int width);
std::vector<uint8_t> boolean(bool v);
std::vector<uint8_t> typeRef(uint32_t type);
std::vector<uint8_t> string(uint32_t str);
std::vector<uint8_t> array(const std::vector<std::vector<uint8_t>> &elems);
std::vector<uint8_t> denseElements(uint32_t type, uint32_t const_index);
std::vector<uint8_t> divBy(uint64_t divisor, std::optional<int64_t> every = std::nullopt,
                           std::optional<int64_t> along = std::nullopt);
std::vector<uint8_t> sameElements(const std::vector<int64_t> &values);
std::vector<uint8_t> bounded(std::optional<int64_t> lb, std::optional<int64_t> ub);
/// Tagged Dictionary: (key string index, tagged value) pairs.
std::vector<uint8_t> dictionary(const std::vector<std::pair<uint32_t, std::vector<uint8_t>>> &kv);
/// Untagged hints dictionary: arch key string index -> tagged Dictionary (use dictionary()).
std::vector<uint8_t>
hintsUntagged(const std::vector<std::pair<uint32_t, std::vector<uint8_t>>> &per_arch);
/// Tagged OptimizationHints (tag 11 + untagged dictionary), as the function table wants it.
std::vector<uint8_t>
hintsTagged(const std::vector<std::pair<uint32_t, std::vector<uint8_t>>> &per_arch);
std::vector<uint8_t> i32Array(const std::vector<int32_t> &values);
std::vector<uint8_t> boolArray(const std::vector<bool> &values);
} // namespace attr

class ModuleWriter {
public:
  explicit ModuleWriter(Version v = kDefaultVersion);
  ModuleWriter(const ModuleWriter &) = delete;
  ModuleWriter &operator=(const ModuleWriter &) = delete;

  Version version() const { return version_; }
  /// Throws BytecodeError when the target version is older than `since`.
  void require(Version since, const char *what) const;

  // Interning tables.
  uint32_t str(const std::string &s);
  uint32_t internType(std::vector<uint8_t> encoded); // already-encoded type, as is
  uint32_t constant(std::vector<uint8_t> raw);       // raw element bytes (splat or dense)
  size_t numStrings() const { return strings_.size(); }
  size_t numTypes() const { return types_.size(); }
  size_t numConstants() const { return constants_.size(); }

  // Types (§3). Dependencies are registered first, so they get smaller indices.
  uint32_t scalarType(TypeTag tag); // i1..f64, fp8s, token, i4...
  uint32_t i1() { return scalarType(TypeTag::I1); }
  uint32_t i8() { return scalarType(TypeTag::I8); }
  uint32_t i16() { return scalarType(TypeTag::I16); }
  uint32_t i32() { return scalarType(TypeTag::I32); }
  uint32_t i64() { return scalarType(TypeTag::I64); }
  uint32_t f16() { return scalarType(TypeTag::F16); }
  uint32_t bf16() { return scalarType(TypeTag::BF16); }
  uint32_t f32() { return scalarType(TypeTag::F32); }
  uint32_t f64() { return scalarType(TypeTag::F64); }
  uint32_t tokenType() { return scalarType(TypeTag::Token); }
  uint32_t ptrType(uint32_t pointee);
  uint32_t tileType(const std::vector<int64_t> &shape, uint32_t elem);
  uint32_t tensorViewType(uint32_t elem, const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &strides); // kDynamic for `?`
  uint32_t partitionViewType(const std::vector<int32_t> &tile_shape, uint32_t tensor_view,
                             const std::vector<int32_t> &dim_map,
                             std::optional<tt::Padding> padding = std::nullopt);
  uint32_t funcType(const std::vector<uint32_t> &inputs, const std::vector<uint32_t> &results);

  /// Adds an entry (kernel) function. `hints` is a tagged OptimizationHints attribute
  /// (attr::hintsTagged) or empty. The returned writer lives as long as the module.
  FunctionWriter &addEntry(const std::string &name, uint32_t signature,
                           std::vector<uint8_t> hints = {});

  /// Serializes: header, Func, Constant (if any), Debug (if a function has line info), Type,
  /// String, End.
  std::vector<uint8_t> finish();

private:
  void checkType(uint32_t t) const;
  size_t funcNumInputs(uint32_t sig) const;

  Version version_;
  std::vector<std::string> strings_;
  std::map<std::string, uint32_t> string_index_;
  std::vector<std::vector<uint8_t>> types_;
  std::map<std::vector<uint8_t>, uint32_t> type_index_;
  std::vector<size_t> func_type_inputs_; // per type: #inputs when a function type, else ~0
  std::vector<std::vector<uint8_t>> constants_;
  std::map<std::vector<uint8_t>, uint32_t> constant_index_;
  std::vector<std::unique_ptr<FunctionWriter>> functions_;
};

/// Encodes `v` as the bytes of one element of the given width (for constants).
std::vector<uint8_t> scalarBytes(uint64_t v, int bytes);

} // namespace bytecode
} // namespace tt
