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
OpSpec plain(Op op, const char *name, std::vector<OperandSpec> operands, int results = 1) {
  OpSpec s;
  s.opcode = op;
  s.name = name;
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
OpSpec sinceV(OpSpec s, Version v) {
  s.since = v;
  return s;
}
// Unary float op with a flush-to-zero flag only (exp2, rsqrt).
OpSpec ftzUnary(Op op, const char *name) {
  return withAttrs(plain(op, name, {one("source")}), {unit("flush_to_zero", 0)});
}
// Binary float op: flags{ftz}, rounding (addf, subf, mulf, divf).
OpSpec fbin(Op op, const char *name) {
  return withAttrs(plain(op, name, {one("lhs"), one("rhs")}),
                   {attr("rounding_mode", K::Enum), unit("flush_to_zero", 0)});
}
// Variadic-operand op without segments: result count + total operand count.
OpSpec counted(Op op, const char *name, int results, bool terminator = false) {
  OpSpec s;
  s.opcode = op;
  s.name = name;
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
  add(plain(Op::AbsF, "absf", src));
  add(fbin(Op::AddF, "addf"));
  add(plain(Op::Ceil, "ceil", src));
  add(plain(Op::Cos, "cos", src));
  add(plain(Op::CosH, "cosh", src));
  add(fbin(Op::DivF, "divf"));
  add(withAttrs(plain(Op::Exp, "exp", src),
                {since("rounding_mode", K::Enum, kV13_3, uint64_t(Rounding::Full))}));
  add(ftzUnary(Op::Exp2, "exp2"));
  add(plain(Op::Floor, "floor", src));
  add(withAttrs(plain(Op::Fma, "fma", {one("lhs"), one("rhs"), one("acc")}),
                {attr("rounding_mode", K::Enum), unit("flush_to_zero", 0)}));
  add(plain(Op::Log, "log", src));
  add(plain(Op::Log2, "log2", src));
  add(withAttrs(plain(Op::MaxF, "maxf", bin),
                {unit("propagate_nan", 0), unit("flush_to_zero", 1)}));
  add(withAttrs(plain(Op::MinF, "minf", bin),
                {unit("propagate_nan", 0), unit("flush_to_zero", 1)}));
  add(fbin(Op::MulF, "mulf"));
  add(plain(Op::NegF, "negf", src));
  add(plain(Op::Pow, "pow", {one("source"), one("exponent")}));
  add(plain(Op::RemF, "remf", bin));
  add(ftzUnary(Op::Rsqrt, "rsqrt"));
  add(plain(Op::Sin, "sin", src));
  add(plain(Op::SinH, "sinh", src));
  add(withAttrs(plain(Op::Sqrt, "sqrt", src),
                {attr("rounding_mode", K::Enum), unit("flush_to_zero", 0)}));
  add(fbin(Op::SubF, "subf"));
  add(plain(Op::Tan, "tan", src));
  add(withAttrs(plain(Op::TanH, "tanh", src),
                {since("rounding_mode", K::Enum, kV13_2, uint64_t(Rounding::Full))}));
  add(sinceV(plain(Op::Atan2, "atan2", {one("x"), one("y")}), kV13_2));
  add(sinceV(plain(Op::FPowI, "fpowi", {one("source"), one("exponent")}), kV13_4));

  // Integer / bitwise.
  add(plain(Op::AbsI, "absi", src));
  add(withAttrs(plain(Op::AddI, "addi", bin), {attr("overflow", K::Enum)}));
  add(withAttrs(plain(Op::SubI, "subi", bin), {attr("overflow", K::Enum)}));
  add(withAttrs(plain(Op::MulI, "muli", bin), {attr("overflow", K::Enum)}));
  add(plain(Op::AndI, "andi", bin));
  add(plain(Op::OrI, "ori", bin));
  add(plain(Op::XorI, "xori", bin));
  add(withAttrs(plain(Op::DivI, "divi", bin),
                {attr("signedness", K::Enum), attr("rounding", K::Enum)}));
  add(withAttrs(plain(Op::MaxI, "maxi", bin), {attr("signedness", K::Enum)}));
  add(withAttrs(plain(Op::MinI, "mini", bin), {attr("signedness", K::Enum)}));
  add(plain(Op::MulhiI, "mulhii", {one("x"), one("y")}));
  add(withAttrs(plain(Op::NegI, "negi", src),
                {since("overflow", K::Enum, kV13_2, uint64_t(Overflow::None))}));
  add(withAttrs(plain(Op::RemI, "remi", bin), {attr("signedness", K::Enum)}));
  add(withAttrs(plain(Op::ShlI, "shli", bin), {attr("overflow", K::Enum)}));
  add(withAttrs(plain(Op::ShrI, "shri", bin), {attr("signedness", K::Enum)}));

  // Compare / select / conversions / shape.
  add(withAttrs(plain(Op::CmpF, "cmpf", bin),
                {attr("comparison_predicate", K::Enum), attr("comparison_ordering", K::Enum)}));
  add(withAttrs(plain(Op::CmpI, "cmpi", bin),
                {attr("comparison_predicate", K::Enum), attr("signedness", K::Enum)}));
  add(plain(Op::Select, "select", {one("cond"), one("val_if_true"), one("val_if_false")}));
  add(plain(Op::Bitcast, "bitcast", src));
  add(withAttrs(plain(Op::ExtI, "exti", src), {attr("signedness", K::Enum)}));
  add(withAttrs(plain(Op::TruncI, "trunci", src), {attr("overflow", K::Enum)}));
  add(withAttrs(plain(Op::FToF, "ftof", src), {attr("rounding_mode", K::Enum)}));
  {
    OpSpec s =
        withAttrs(plain(Op::FToI, "ftoi", src), {unit("saturating", 0), attr("signedness", K::Enum),
                                                 attr("rounding_mode", K::Enum)});
    s.flags_since = kV13_4;
    add(s);
  }
  add(withAttrs(plain(Op::IToF, "itof", src),
                {attr("signedness", K::Enum), attr("rounding_mode", K::Enum)}));
  add(plain(Op::IntToPtr, "int_to_ptr", src));
  add(plain(Op::PtrToInt, "ptr_to_int", src));
  add(plain(Op::PtrToPtr, "ptr_to_ptr", src));
  add(sinceV(plain(Op::Pack, "pack", src), kV13_3));
  add(sinceV(plain(Op::Unpack, "unpack", src), kV13_3));
  add(withAttrs(plain(Op::Constant, "constant", {}), {attr("value", K::Const)}));
  add(plain(Op::Iota, "iota", {}));
  add(plain(Op::Broadcast, "broadcast", src));
  add(plain(Op::Reshape, "reshape", src));
  add(withAttrs(plain(Op::Permute, "permute", src), {attr("permutation", K::I32Array)}));
  add(withAttrs(plain(Op::Cat, "cat", bin), {attr("dim", K::Int)}));
  add(counted(Op::Extract, "extract", 1));
  add(sinceV(counted(Op::Insert, "insert", 1), kV13_4));
  add(plain(Op::Offset, "offset", {one("ptr"), one("offset")}));

  // Tile-block ids.
  add(plain(Op::GetTileBlockId, "get_tile_block_id", {}, 3));
  add(plain(Op::GetNumTileBlocks, "get_num_tile_blocks", {}, 3));

  // Views and memory.
  {
    OpSpec s = plain(Op::MakeTensorView, "make_tensor_view", {});
    s.counted_results = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("base"), many("dynamicShape"), many("dynamicStrides")};
    add(s);
  }
  add(plain(Op::MakePartitionView, "make_partition_view", {one("tensor_view")}));
  add(sinceV(plain(Op::MakeStridedView, "make_strided_view", {one("tensor_view")}), kV13_3));
  add(sinceV(plain(Op::MakeGatherScatterView, "make_gather_scatter_view", {one("tensor_view")}),
             kV13_3));
  {
    OpSpec s = plain(Op::GetTensorShape, "get_tensor_shape", {one("src")}, -1);
    s.counted_results = true;
    add(s);
    OpSpec s2 = plain(Op::GetIndexSpaceShape, "get_index_space_shape", {one("src")}, -1);
    s2.counted_results = true;
    add(s2);
  }
  {
    OpSpec s = withAttrs(
        plain(Op::LoadViewTko, "load_view_tko", {}, 2),
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
        plain(Op::StoreViewTko, "store_view_tko", {}, 1),
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
        withAttrs(plain(Op::LoadPtrTko, "load_ptr_tko", {}, 2),
                  {attr("memory_ordering_semantics", K::Enum), optAttr("memory_scope", K::Enum, 0),
                   optAttr("optimization_hints", K::Hints, 1)});
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("source"), opt("mask", 2), opt("paddingValue", 3), opt("token", 4)};
    add(s);
  }
  {
    OpSpec s =
        withAttrs(plain(Op::StorePtrTko, "store_ptr_tko", {}, 1),
                  {attr("memory_ordering_semantics", K::Enum), optAttr("memory_scope", K::Enum, 0),
                   optAttr("optimization_hints", K::Hints, 1)});
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("destination"), one("value"), opt("mask", 2), opt("token", 3)};
    add(s);
  }
  add(plain(Op::MakeToken, "make_token", {}));
  add(counted(Op::JoinTokens, "join_tokens", 1));
  add(sinceV(withAttrs(plain(Op::Alloca, "alloca", {}),
                       {unit("global", 0), attr("num_elem", K::Int), attr("alignment", K::Int)}),
             kV13_3));
  add(withAttrs(plain(Op::GetGlobal, "get_global", {}), {attr("name", K::String)}));
  add(sinceV(plain(Op::MemoryFenceAliasTko, "memory_fence_alias_tko", {one("token")}), kV13_4));
  {
    OpSpec s = counted(Op::GdcLaunchDependentsTko, "gdc_launch_dependents_tko", 1);
    s.counted_results = false; // optional (not variadic) operand: fixed result, total count
    s.since = kV13_4;
    add(s);
    s.opcode = Op::GdcWaitTko;
    s.name = "gdc_wait_tko";
    add(s);
  }

  // Atomics.
  {
    OpSpec s =
        withAttrs(plain(Op::AtomicCasTko, "atomic_cas_tko", {}, 2),
                  {attr("memory_ordering_semantics", K::Enum), attr("memory_scope", K::Enum)});
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("pointers"), one("cmp"), one("val"), opt("mask", 0), opt("token", 1)};
    add(s);
  }
  {
    OpSpec s = withAttrs(plain(Op::AtomicRmwTko, "atomic_rmw_tko", {}, 2),
                         {attr("memory_ordering_semantics", K::Enum), attr("memory_scope", K::Enum),
                          attr("mode", K::Enum)});
    s.has_flags = true;
    s.operand_mode = OperandMode::Segmented;
    s.operands = {one("pointers"), one("arg"), opt("mask", 0), opt("token", 1)};
    add(s);
  }
  {
    OpSpec s = withAttrs(plain(Op::AtomicRedViewTko, "atomic_red_view_tko", {}, 1),
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
    OpSpec s = withAttrs(plain(Op::MmaF, "mmaf", {one("lhs"), one("rhs"), one("acc")}),
                         {unit("fast_acc", 0)});
    s.flags_since = kV13_3;
    add(s);
  }
  add(withAttrs(plain(Op::MmaI, "mmai", {one("lhs"), one("rhs"), one("acc")}),
                {attr("signedness_lhs", K::Enum), attr("signedness_rhs", K::Enum)}));
  add(sinceV(plain(Op::MmaFScaled, "mmaf_scaled",
                   {one("lhs"), one("rhs"), one("acc"), one("lhs_scale"), one("rhs_scale")}),
             kV13_3));

  // Reductions / scans.
  {
    OpSpec s = counted(Op::Reduce, "reduce", -1);
    s.attrs = {attr("dim", K::Int), attr("identities", K::TaggedArray)};
    s.num_regions = 1;
    add(s);
    OpSpec c = counted(Op::Scan, "scan", -1);
    c.attrs = {attr("dim", K::Int), attr("reverse", K::Bool), attr("identities", K::TaggedArray)};
    c.num_regions = 1;
    add(c);
  }

  // Control flow.
  {
    OpSpec s = plain(Op::If, "if", {one("condition")}, -1);
    s.counted_results = true;
    s.num_regions = 2;
    add(s);
    OpSpec f = counted(Op::For, "for", -1);
    f.attrs = {unit("unsignedCmp", 0)};
    f.has_flags = true;
    f.flags_since = kV13_2;
    f.num_regions = 1;
    add(f);
    OpSpec l = counted(Op::Loop, "loop", -1);
    l.num_regions = 1;
    add(l);
    add(counted(Op::Yield, "yield", 0, true));
    add(counted(Op::Continue, "continue", 0, true));
    add(counted(Op::Break, "break", 0, true));
    add(counted(Op::Return, "return", 0, true));
  }

  // Misc.
  add(withAttrs(plain(Op::Assert, "assert", {one("condition")}, 0), {attr("message", K::String)}));
  add(withAttrs(plain(Op::Assume, "assume", {one("value")}), {attr("predicate", K::Tagged)}));
  {
    OpSpec s = plain(Op::PrintTko, "print_tko", {}, 1);
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

struct Tables {
  std::vector<OpSpec> specs;
  std::unordered_map<uint32_t, size_t> by_code;
  std::unordered_map<std::string, size_t> by_name;
  Tables() : specs(buildTable()) {
    std::sort(specs.begin(), specs.end(), [](const OpSpec &a, const OpSpec &b) {
      return uint32_t(a.opcode) < uint32_t(b.opcode);
    });
    for (size_t i = 0; i < specs.size(); ++i) {
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
