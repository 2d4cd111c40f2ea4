// The per-op layout table. Each entry restates one op's layout as NVIDIA/cuda-tile generates it
// from the op's declaration in Ops.td (tools/cuda-tile-tblgen/BytecodeGen.cpp): results (counted or
// fixed), flags, attributes in declaration order, operands (plain, total-counted or per segment),
// regions.
#include "bytecode/op_specs.h"

#include <algorithm>
#include <unordered_map>

namespace tt {
namespace bytecode {
namespace {

using K = AttrKind;
using O = OperandKind;

OperandSpec one(const char *n) { return {n, O::Single}; }
OperandSpec opt(const char *n, int bit) { return {n, O::Optional, bit}; }
OperandSpec many(const char *n) { return {n, O::Variadic}; }
AttrSpec attr(const char *n, K k) { return {n, k}; }
AttrSpec optAttr(const char *n, K k, int bit) { return {n, k, bit}; }
AttrSpec unit(const char *n, int bit) { return {n, K::Unit, bit}; }
AttrSpec since(const char *n, K k, Version v, uint64_t dflt) { return {n, k, -1, v, dflt}; }

// Shorthand constructors for the common shapes.
// (The op's name and version come from the op table, filled in by Tables below.)
OpSpec plain(Op op, std::vector<OperandSpec> operands, int results = 1) {
  OpSpec s;
  s.opcode = op;
  s.num_results = results;
  s.operands = std::move(operands);
  return s;
}
OpSpec withAttrs(OpSpec s, std::vector<AttrSpec> attrs) {
  for (const AttrSpec &a : attrs)
    if (a.kind == K::Unit || a.flag_bit >= 0)
      s.has_flags = true;
  s.attrs = std::move(attrs);
  return s;
}
// Unary float op with a flush-to-zero flag only (exp2, rsqrt).
OpSpec ftzUnary(Op op) { return withAttrs(plain(op, {one("source")}), {unit("flush_to_zero", 0)}); }
// Binary float op: flags{ftz}, rounding (addf, subf, mulf, divf).
OpSpec fbin(Op op) {
  return withAttrs(plain(op, {one("lhs"), one("rhs")}),
                   {attr("rounding_mode", K::Enum), unit("flush_to_zero", 0)});
}
// Variadic-operand op without segments: result count + total operand count.
OpSpec counted(Op op, int results, bool terminator = false) {
  OpSpec s;
  s.opcode = op;
  s.counted_results = true;
  s.num_results = results;
  s.operand_mode = OperandMode::Total;
  s.operands = {many("operands")};
  s.terminator = terminator;
  return s;
}

std::vector<OpSpec> buildTable() {
  std::vector<OpSpec> t;
  auto add = [&](OpSpec s) { t.push_back(std::move(s)); };
  const std::vector<OperandSpec> src = {one("source")};
  const std::vector<OperandSpec> bin = {one("lhs"), one("rhs")};

  // Floating-point element-wise.
  add(plain(Op::AbsF, src));
  add(fbin(Op::AddF));
  add(plain(Op::Ceil, src));
  add(plain(Op::Cos, src));
  add(plain(Op::CosH, src));
  add(fbin(Op::DivF));
  add(withAttrs(plain(Op::Exp, src),
                {since("rounding_mode", K::Enum, kV13_3, uint64_t(tile::kFull))}));
  add(ftzUnary(Op::Exp2));
  add(plain(Op::Floor, src));
  add(withAttrs(plain(Op::Fma, {one("lhs"), one("rhs"), one("acc")}),
                {attr("rounding_mode", K::Enum), unit("flush_to_zero", 0)}));
  add(plain(Op::Log, src));
  add(plain(Op::Log2, src));
  add(withAttrs(plain(Op::MaxF, bin), {unit("propagate_nan", 0), unit("flush_to_zero", 1)}));
  add(withAttrs(plain(Op::MinF, bin), {unit("propagate_nan", 0), unit("flush_to_zero", 1)}));
  add(fbin(Op::MulF));
  add(plain(Op::NegF, src));
  add(plain(Op::Pow, {one("source"), one("exponent")}));
  add(plain(Op::RemF, bin));
  add(ftzUnary(Op::Rsqrt));
  add(plain(Op::Sin, src));
  add(plain(Op::SinH, src));
  add(withAttrs(plain(Op::Sqrt, src), {attr("rounding_mode", K::Enum), unit("flush_to_zero", 0)}));
  add(fbin(Op::SubF));
  add(plain(Op::Tan, src));
  add(withAttrs(plain(Op::TanH, src),
                {since("rounding_mode", K::Enum, kV13_2, uint64_t(tile::kFull))}));
  add(plain(Op::Atan2, {one("x"), one("y")}));
  add(plain(Op::FPowI, {one("source"), one("exponent")}));

  // Integer / bitwise.
  add(plain(Op::AbsI, src));
  add(withAttrs(plain(Op::AddI, bin), {attr("overflow", K::Enum)}));
  add(withAttrs(plain(Op::SubI, bin), {attr("overflow", K::Enum)}));
  add(withAttrs(plain(Op::MulI, bin), {attr("overflow", K::Enum)}));
  add(plain(Op::AndI, bin));
  add(plain(Op::OrI, bin));
  add(plain(Op::XorI, bin));
  add(withAttrs(plain(Op::DivI, bin), {attr("signedness", K::Enum), attr("rounding", K::Enum)}));
  add(withAttrs(plain(Op::MaxI, bin), {attr("signedness", K::Enum)}));
  add(withAttrs(plain(Op::MinI, bin), {attr("signedness", K::Enum)}));
  add(plain(Op::MulhiI, {one("x"), one("y")}));
  add(withAttrs(plain(Op::NegI, src),
                {since("overflow", K::Enum, kV13_2, uint64_t(tile::kNoOverflowFlag))}));
  add(withAttrs(plain(Op::RemI, bin), {attr("signedness", K::Enum)}));
  add(withAttrs(plain(Op::ShlI, bin), {attr("overflow", K::Enum)}));
  add(withAttrs(plain(Op::ShrI, bin), {attr("signedness", K::Enum)}));

  // Compare / select / conversions / shape.
  add(withAttrs(plain(Op::CmpF, bin),
                {attr("comparison_predicate", K::Enum), attr("comparison_ordering", K::Enum)}));
  add(withAttrs(plain(Op::CmpI, bin),
                {attr("comparison_predicate", K::Enum), attr("signedness", K::Enum)}));
  add(plain(Op::Select, {one("cond"), one("val_if_true"), one("val_if_false")}));
  add(plain(Op::Bitcast, src));
  add(withAttrs(plain(Op::ExtI, src), {attr("signedness", K::Enum)}));
  add(withAttrs(plain(Op::TruncI, src), {attr("overflow", K::Enum)}));
  add(withAttrs(plain(Op::FToF, src), {attr("rounding_mode", K::Enum)}));
  {
    OpSpec s = withAttrs(plain(Op::FToI, src), {unit("saturating", 0), attr("signedness", K::Enum),
                                                attr("rounding_mode", K::Enum)});
    s.flags_since = kV13_4;
    add(s);
  }
  add(withAttrs(plain(Op::IToF, src),
                {attr("signedness", K::Enum), attr("rounding_mode", K::Enum)}));
  add(plain(Op::IntToPtr, src));
  add(plain(Op::PtrToInt, src));
  add(plain(Op::PtrToPtr, src));
  add(plain(Op::Pack, src));
  add(plain(Op::Unpack, src));
  add(withAttrs(plain(Op::Constant, {}), {attr("value", K::Const)}));
  add(plain(Op::Iota, {}));
  add(plain(Op::Broadcast, src));
  add(plain(Op::Reshape, src));
  add(withAttrs(plain(Op::Permute, src), {attr("permutation", K::I32Array)}));
  add(withAttrs(plain(Op::Cat, bin), {attr("dim", K::Int)}));
  add(counted(Op::Extract, 1));
  add(counted(Op::Insert, 1));
  add(plain(Op::Offset, {one("ptr"), one("offset")}));

  // Tile-block ids.
  add(plain(Op::GetTileBlockId, {}, 3));
  add(plain(Op::GetNumTileBlocks, {}, 3));

  // Views and memory.
  {
    OpSpec s = plain(Op::MakeTensorView, {});
    s.counted_results = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("base"), many("dynamicShape"), many("dynamicStrides")};
    add(s);
  }
  add(plain(Op::MakePartitionView, {one("tensor_view")}));
  add(plain(Op::MakeStridedView, {one("tensor_view")}));
  add(plain(Op::MakeGatherScatterView, {one("tensor_view")}));
  {
    OpSpec s = plain(Op::GetTensorShape, {one("src")}, -1);
    s.counted_results = true;
    add(s);
    OpSpec s2 = plain(Op::GetIndexSpaceShape, {one("src")}, -1);
    s2.counted_results = true;
    add(s2);
  }
  {
    OpSpec s = withAttrs(
        plain(Op::LoadViewTko, {}, 2),
        {attr("memory_ordering_semantics", K::Enum), optAttr("memory_scope", K::Enum, 0),
         optAttr("optimization_hints", K::Hints, 1), since("inbounds", K::BoolArray, kV13_4, 0)});
    s.counted_results = true;
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("view"), many("index"), opt("token", 2)};
    add(s);
  }
  {
    OpSpec s = withAttrs(
        plain(Op::StoreViewTko, {}, 1),
        {attr("memory_ordering_semantics", K::Enum), optAttr("memory_scope", K::Enum, 0),
         optAttr("optimization_hints", K::Hints, 1), since("inbounds", K::BoolArray, kV13_4, 0)});
    s.counted_results = true;
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("tile"), one("view"), many("index"), opt("token", 2)};
    add(s);
  }
  {
    OpSpec s =
        withAttrs(plain(Op::LoadPtrTko, {}, 2),
                  {attr("memory_ordering_semantics", K::Enum), optAttr("memory_scope", K::Enum, 0),
                   optAttr("optimization_hints", K::Hints, 1)});
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("source"), opt("mask", 2), opt("paddingValue", 3), opt("token", 4)};
    add(s);
  }
  {
    OpSpec s =
        withAttrs(plain(Op::StorePtrTko, {}, 1),
                  {attr("memory_ordering_semantics", K::Enum), optAttr("memory_scope", K::Enum, 0),
                   optAttr("optimization_hints", K::Hints, 1)});
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("destination"), one("value"), opt("mask", 2), opt("token", 3)};
    add(s);
  }
  add(plain(Op::MakeToken, {}));
  add(counted(Op::JoinTokens, 1));
  add(withAttrs(plain(Op::Alloca, {}),
                {unit("global", 0), attr("num_elem", K::Int), attr("alignment", K::Int)}));
  add(withAttrs(plain(Op::GetGlobal, {}), {attr("name", K::String)}));
  add(plain(Op::MemoryFenceAliasTko, {one("token")}));
  {
    OpSpec s = counted(Op::GdcLaunchDependentsTko, 1);
    s.counted_results = false; // optional (not variadic) operand: fixed result, total count
    add(s);
    s.opcode = Op::GdcWaitTko;
    add(s);
  }

  // Atomics.
  {
    OpSpec s =
        withAttrs(plain(Op::AtomicCasTko, {}, 2),
                  {attr("memory_ordering_semantics", K::Enum), attr("memory_scope", K::Enum)});
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("pointers"), one("cmp"), one("val"), opt("mask", 0), opt("token", 1)};
    add(s);
  }
  {
    OpSpec s = withAttrs(plain(Op::AtomicRmwTko, {}, 2),
                         {attr("memory_ordering_semantics", K::Enum), attr("memory_scope", K::Enum),
                          attr("mode", K::Enum)});
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("pointers"), one("arg"), opt("mask", 0), opt("token", 1)};
    add(s);
  }
  {
    OpSpec s = withAttrs(plain(Op::AtomicRedViewTko, {}, 1),
                         {attr("memory_ordering_semantics", K::Enum), attr("memory_scope", K::Enum),
                          attr("mode", K::Enum)});
    s.since = kV13_3;
    s.counted_results = true;
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("view"), many("index"), one("value"), opt("token", 0)};
    add(s);
  }

  // MMA.
  {
    OpSpec s =
        withAttrs(plain(Op::MmaF, {one("lhs"), one("rhs"), one("acc")}), {unit("fast_acc", 0)});
    s.flags_since = kV13_3;
    add(s);
  }
  add(withAttrs(plain(Op::MmaI, {one("lhs"), one("rhs"), one("acc")}),
                {attr("signedness_lhs", K::Enum), attr("signedness_rhs", K::Enum)}));
  add(plain(Op::MmaFScaled,
            {one("lhs"), one("rhs"), one("acc"), one("lhs_scale"), one("rhs_scale")}));

  // Reductions / scans.
  {
    OpSpec s = counted(Op::Reduce, -1);
    s.attrs = {attr("dim", K::Int), attr("identities", K::TaggedArray)};
    s.num_regions = 1;
    add(s);
    OpSpec c = counted(Op::Scan, -1);
    c.attrs = {attr("dim", K::Int), attr("reverse", K::Bool), attr("identities", K::TaggedArray)};
    c.num_regions = 1;
    add(c);
  }

  // Control flow.
  {
    OpSpec s = plain(Op::If, {one("condition")}, -1);
    s.counted_results = true;
    s.num_regions = 2;
    add(s);
    OpSpec f = counted(Op::For, -1);
    f.attrs = {unit("unsignedCmp", 0)};
    f.has_flags = true;
    f.flags_since = kV13_2;
    f.num_regions = 1;
    add(f);
    OpSpec l = counted(Op::Loop, -1);
    l.num_regions = 1;
    add(l);
    add(counted(Op::Yield, 0, true));
    add(counted(Op::Continue, 0, true));
    add(counted(Op::Break, 0, true));
    add(counted(Op::Return, 0, true));
  }

  // Misc.
  add(withAttrs(plain(Op::Assert, {one("condition")}, 0), {attr("message", K::String)}));
  add(withAttrs(plain(Op::Assume, {one("value")}), {attr("predicate", K::Tagged)}));
  {
    OpSpec s = plain(Op::PrintTko, {}, 1);
    s.counted_results = true;
    s.last_result_since = kV13_2;
    s.has_flags = true;
    s.flags_since = kV13_2;
    s.attrs = {attr("str", K::String)};
    s.operand_mode = OperandMode::Segmented;
    s.operands = {many("args"), opt("token", 0)};
    s.operands[1].since = kV13_2;
    add(s);
  }
  return t;
}

// Each op's name and version, from the op table.
struct TableRow {
  Op opcode;
  const char *name;
  Version since;
};
#define TT_BYTECODE_ROW(id, name, code, major, minor) {Op::id, name, Version(major, minor)},
constexpr TableRow kOpTable[] = {TT_TILE_OPS(TT_BYTECODE_ROW)};
#undef TT_BYTECODE_ROW

struct Tables {
  std::vector<OpSpec> specs;
  std::unordered_map<uint32_t, size_t> by_code;
  std::unordered_map<std::string, size_t> by_name;
  Tables() : specs(buildTable()) {
    std::sort(specs.begin(), specs.end(), [](const OpSpec &a, const OpSpec &b) {
      return uint32_t(a.opcode) < uint32_t(b.opcode);
    });
    for (size_t i = 0; i < specs.size(); ++i) {
      for (const TableRow &row : kOpTable)
        if (row.opcode == specs[i].opcode) {
          specs[i].name = row.name;
          specs[i].since = row.since;
        }
      by_code[uint32_t(specs[i].opcode)] = i;
      by_name[specs[i].name] = i;
    }
  }
};

const Tables &tables() {
  static const Tables t;
  return t;
}

} // namespace

const std::vector<OpSpec> &allOpSpecs() { return tables().specs; }

const OpSpec *findOpSpec(uint32_t opcode) {
  const Tables &t = tables();
  auto it = t.by_code.find(opcode);
  return it == t.by_code.end() ? nullptr : &t.specs[it->second];
}

const OpSpec *findOpSpec(Op opcode) { return findOpSpec(uint32_t(opcode)); }

const OpSpec *findOpSpec(const std::string &name) {
  std::string n = name;
  const std::string prefix = "cuda_tile.";
  if (n.compare(0, prefix.size(), prefix) == 0)
    n = n.substr(prefix.size());
  const Tables &t = tables();
  auto it = t.by_name.find(n);
  return it == t.by_name.end() ? nullptr : &t.specs[it->second];
}

} // namespace bytecode
} // namespace tt
