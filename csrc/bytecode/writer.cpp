// Tile IR bytecode writer: interning tables, type encoders, the generic op encoder, section
// framing. See writer.h.
#include "bytecode/writer.h"

#include <algorithm>

namespace tt {
namespace bytecode {

namespace {

[[noreturn]] void fail(const std::string &msg) { throw BytecodeError("tile bytecode: " + msg); }

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

Version scalarSince(TypeTag tag) {
  switch (tag) {
  case TypeTag::F8E8M0FNU:
    return kV13_2;
  case TypeTag::F4E2M1FN:
  case TypeTag::I4:
    return kV13_3;
  case TypeTag::F8E5M3FNU:
    return kV13_4;
  default:
    return kV13_1;
  }
}

bool isScalarTag(TypeTag tag) {
  switch (tag) {
  case TypeTag::Ptr:
  case TypeTag::Tile:
  case TypeTag::TensorView:
  case TypeTag::PartitionView:
  case TypeTag::Func:
  case TypeTag::GatherScatterView:
  case TypeTag::StridedView:
    return false;
  default:
    return true;
  }
}

void writeAttrPayload(const AttrSpec &a, const AttrArg &arg, ByteBuffer &out) {
  switch (a.kind) {
  case AttrKind::Unit:
    return;
  case AttrKind::Enum:
  case AttrKind::Int:
  case AttrKind::String:
  case AttrKind::Type:
  case AttrKind::Const:
    out.varint(arg.value);
    return;
  case AttrKind::Bool:
    out.u8(arg.value ? 1 : 0);
    return;
  case AttrKind::I32Array:
  case AttrKind::BoolArray:
  case AttrKind::Tagged:
  case AttrKind::TaggedArray:
  case AttrKind::Hints:
    if (arg.bytes.empty())
      fail(std::string("attribute '") + a.name + "' needs its encoded bytes");
    out.bytes(arg.bytes);
    return;
  }
}

} // namespace

std::vector<uint8_t> scalarBytes(uint64_t v, int bytes) {
  std::vector<uint8_t> out;
  appendFixed(out, v, bytes);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Attributes (§4.2).

namespace attr {

std::vector<uint8_t> integer(uint32_t int_type, uint64_t value, int bits) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::Integer));
  appendVarint(out, int_type);
  if (bits < 64)
    value &= (uint64_t(1) << bits) - 1;
  appendVarint(out, value);
  return out;
}

std::vector<uint8_t> floatBits(uint32_t float_type, uint64_t bits, int width) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::Float));
  appendVarint(out, float_type);
  if (width <= 8)
    out.push_back(static_cast<uint8_t>(bits));
  else if (width <= 64)
    appendSVarint(out, static_cast<int64_t>(bits));
  else
    fail("float attributes wider than 64 bits are not supported");
  return out;
}

std::vector<uint8_t> boolean(bool v) { return {uint8_t(AttrTag::Bool), uint8_t(v ? 1 : 0)}; }

std::vector<uint8_t> typeRef(uint32_t type) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::Type));
  appendVarint(out, type);
  return out;
}

std::vector<uint8_t> string(uint32_t str) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::String));
  appendVarint(out, str);
  return out;
}

std::vector<uint8_t> array(const std::vector<std::vector<uint8_t>> &elems) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::Array));
  appendVarint(out, elems.size());
  for (const auto &e : elems)
    out.insert(out.end(), e.begin(), e.end());
  return out;
}

std::vector<uint8_t> denseElements(uint32_t type, uint32_t const_index) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::DenseElements));
  appendVarint(out, type);
  appendVarint(out, const_index);
  return out;
}

std::vector<uint8_t> divBy(uint64_t divisor, std::optional<int64_t> every,
                           std::optional<int64_t> along) {
  if (!isPow2(static_cast<int64_t>(divisor)))
    fail("div_by divisor must be a power of two");
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::DivBy));
  appendVarint(out, divisor);
  out.push_back(uint8_t((every ? 1 : 0) | (along ? 2 : 0)));
  if (every)
    appendSVarint(out, *every);
  if (along)
    appendSVarint(out, *along);
  return out;
}

std::vector<uint8_t> sameElements(const std::vector<int64_t> &values) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::SameElements));
  appendVarint(out, values.size());
  for (int64_t v : values)
    appendFixed(out, static_cast<uint64_t>(v), 8);
  return out;
}

std::vector<uint8_t> bounded(std::optional<int64_t> lb, std::optional<int64_t> ub) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::Bounded));
  out.push_back(uint8_t((lb ? 1 : 0) | (ub ? 2 : 0)));
  if (lb)
    appendSVarint(out, *lb);
  if (ub)
    appendSVarint(out, *ub);
  return out;
}

std::vector<uint8_t> dictionary(const std::vector<std::pair<uint32_t, std::vector<uint8_t>>> &kv) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::Dictionary));
  appendVarint(out, kv.size());
  for (const auto &e : kv) {
    appendVarint(out, e.first);
    out.insert(out.end(), e.second.begin(), e.second.end());
  }
  return out;
}

std::vector<uint8_t>
hintsUntagged(const std::vector<std::pair<uint32_t, std::vector<uint8_t>>> &per_arch) {
  std::vector<uint8_t> out;
  appendVarint(out, per_arch.size());
  for (const auto &e : per_arch) {
    appendVarint(out, e.first);
    out.insert(out.end(), e.second.begin(), e.second.end());
  }
  return out;
}

std::vector<uint8_t>
hintsTagged(const std::vector<std::pair<uint32_t, std::vector<uint8_t>>> &per_arch) {
  std::vector<uint8_t> out;
  appendVarint(out, uint64_t(AttrTag::OptimizationHints));
  std::vector<uint8_t> body = hintsUntagged(per_arch);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

std::vector<uint8_t> i32Array(const std::vector<int32_t> &values) {
  std::vector<uint8_t> out;
  appendVarint(out, values.size());
  for (int32_t v : values)
    appendFixed(out, static_cast<uint32_t>(v), 4);
  return out;
}

std::vector<uint8_t> boolArray(const std::vector<bool> &values) {
  std::vector<uint8_t> out;
  appendVarint(out, values.size());
  for (bool v : values)
    out.push_back(v ? 1 : 0);
  return out;
}

} // namespace attr

// ---------------------------------------------------------------------------------------------
// FunctionWriter.

FunctionWriter::FunctionWriter(ModuleWriter *m, uint32_t name, uint32_t sig, size_t num_args,
                               std::vector<uint8_t> hints)
    : module_(m), name_(name), sig_(sig), num_args_(num_args), hints_(std::move(hints)),
      counter_(static_cast<uint32_t>(num_args)) {
  blocks_.emplace_back();
}

Version FunctionWriter::version() const { return module_->version(); }

ValueId FunctionWriter::arg(size_t i) const {
  if (i >= num_args_)
    fail("function argument index out of range");
  return static_cast<ValueId>(i);
}

std::vector<ValueId> FunctionWriter::newValues(size_t n) {
  std::vector<ValueId> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(counter_++);
  return out;
}

void FunctionWriter::checkOperand(ValueId v) const {
  if (v >= counter_)
    fail("operand %" + std::to_string(v) + " is not defined in this scope (next value %" +
         std::to_string(counter_) + ")");
}

void FunctionWriter::writeHeader(const OpSpec &spec, const OpArgs &args, ByteBuffer &out) {
  const Version v = version();
  module_->require(spec.since, spec.name);
  if (!pending_.empty() && pending_.back().depth == blocks_.size())
    fail(std::string("op '") + spec.name + "' emitted between regions of '" +
         pending_.back().spec->name + "'; open a block first");
  if (cur().terminated)
    fail(std::string("op '") + spec.name + "' after the block's terminator");

  // 1. Opcode.
  out.varint(uint32_t(spec.opcode));

  // 2. Result types.
  if (spec.num_results >= 0) {
    size_t expected = size_t(spec.num_results);
    if (expected && v < spec.last_result_since)
      --expected;
    if (args.result_types.size() != expected)
      fail(std::string("op '") + spec.name + "' expects " + std::to_string(expected) +
           " result types at bytecode " + v.str() + ", got " +
           std::to_string(args.result_types.size()));
  }
  if (spec.counted_results)
    out.varint(args.result_types.size());
  for (uint32_t t : args.result_types) {
    if (t >= module_->numTypes())
      fail(std::string("op '") + spec.name + "': unknown result type index");
    out.varint(t);
  }

  // 3. Flags.
  auto attrAt = [&](size_t i) -> const AttrArg & {
    static const AttrArg kNone;
    return i < args.attrs.size() ? args.attrs[i] : kNone;
  };
  auto groupAt = [&](size_t i) -> const std::vector<ValueId> & {
    static const std::vector<ValueId> kEmpty;
    return i < args.operands.size() ? args.operands[i] : kEmpty;
  };
  if (args.attrs.size() > spec.attrs.size())
    fail(std::string("op '") + spec.name + "': too many attributes");
  if (spec.operand_mode != OperandMode::Total && args.operands.size() > spec.operands.size())
    fail(std::string("op '") + spec.name + "': too many operand groups");
  uint64_t flags = 0;
  for (size_t i = 0; i < spec.attrs.size(); ++i) {
    const AttrSpec &a = spec.attrs[i];
    if ((a.kind == AttrKind::Unit || a.flag_bit >= 0) && attrAt(i).present)
      flags |= uint64_t(1) << a.flag_bit;
  }
  if (spec.operand_mode == OperandMode::Segmented)
    for (size_t i = 0; i < spec.operands.size(); ++i) {
      const OperandSpec &o = spec.operands[i];
      if (o.kind == OperandKind::Optional && !groupAt(i).empty())
        flags |= uint64_t(1) << o.flag_bit;
    }
  if (spec.has_flags && v >= spec.flags_since)
    out.varint(flags);
  else if (flags)
    fail(std::string("op '") + spec.name + "': optional attributes/operands need bytecode " +
         spec.flags_since.str());

  // 4. Attributes.
  for (size_t i = 0; i < spec.attrs.size(); ++i) {
    const AttrSpec &a = spec.attrs[i];
    const AttrArg &arg = attrAt(i);
    if (a.kind == AttrKind::Unit)
      continue;
    if (a.flag_bit >= 0) {
      if (arg.present)
        writeAttrPayload(a, arg, out);
      continue;
    }
    if (v < a.since) {
      bool non_default = arg.present && (arg.value != a.default_value ||
                                         std::any_of(arg.bytes.begin(), arg.bytes.end(),
                                                     [](uint8_t b) { return b != 0; }));
      if (a.kind == AttrKind::BoolArray && arg.present && !arg.bytes.empty())
        non_default =
            std::any_of(arg.bytes.begin() + 1, arg.bytes.end(), [](uint8_t b) { return b != 0; });
      if (non_default)
        fail(std::string("op '") + spec.name + "': attribute '" + a.name + "' needs bytecode " +
             a.since.str());
      continue;
    }
    if (arg.present) {
      writeAttrPayload(a, arg, out);
    } else if (a.since != kV13_1) {
      // A required attribute added later: older producers imply its default.
      if (a.kind == AttrKind::BoolArray) {
        // inbounds: one `false` per index operand.
        size_t n = 0;
        for (size_t k = 0; k < spec.operands.size(); ++k)
          if (spec.operands[k].kind == OperandKind::Variadic)
            n = groupAt(k).size();
        out.varint(n);
        for (size_t k = 0; k < n; ++k)
          out.u8(0);
      } else {
        out.varint(a.default_value);
      }
    } else {
      fail(std::string("op '") + spec.name + "': missing attribute '" + a.name + "'");
    }
  }

  // 5. Operands.
  switch (spec.operand_mode) {
  case OperandMode::Plain:
    for (size_t i = 0; i < spec.operands.size(); ++i) {
      const auto &g = groupAt(i);
      if (g.size() != 1)
        fail(std::string("op '") + spec.name + "': operand '" + spec.operands[i].name +
             "' needs exactly one value");
      checkOperand(g[0]);
      out.varint(g[0]);
    }
    break;
  case OperandMode::Total: {
    std::vector<ValueId> all;
    for (const auto &g : args.operands)
      all.insert(all.end(), g.begin(), g.end());
    out.varint(all.size());
    for (ValueId x : all) {
      checkOperand(x);
      out.varint(x);
    }
    break;
  }
  case OperandMode::Segmented:
    for (size_t i = 0; i < spec.operands.size(); ++i) {
      const OperandSpec &o = spec.operands[i];
      const auto &g = groupAt(i);
      switch (o.kind) {
      case OperandKind::Single:
        if (g.size() != 1)
          fail(std::string("op '") + spec.name + "': operand '" + o.name +
               "' needs exactly one value");
        checkOperand(g[0]);
        out.varint(g[0]);
        break;
      case OperandKind::Optional:
        if (g.size() > 1)
          fail(std::string("op '") + spec.name + "': optional operand '" + o.name +
               "' takes at most one value");
        if (!g.empty()) {
          if (v < o.since)
            fail(std::string("op '") + spec.name + "': operand '" + o.name + "' needs bytecode " +
                 o.since.str());
          checkOperand(g[0]);
          out.varint(g[0]);
        }
        break;
      case OperandKind::Variadic:
        out.varint(g.size());
        for (ValueId x : g) {
          checkOperand(x);
          out.varint(x);
        }
        break;
      }
    }
    break;
  }
}

std::vector<ValueId> FunctionWriter::emit(const OpSpec &spec, const OpArgs &args) {
  if (spec.num_regions)
    fail(std::string("op '") + spec.name + "' has regions: use beginRegionOp()");
  writeHeader(spec, args, cur().buf);
  cur().num_ops++;
  cur().terminated = spec.terminator;
  op_locs_.push_back(cur_loc_);
  return newValues(args.result_types.size());
}

std::vector<ValueId> FunctionWriter::emit(Op op, const OpArgs &args) {
  const OpSpec *spec = findOpSpec(op);
  if (!spec)
    fail("unknown opcode " + std::to_string(uint32_t(op)));
  return emit(*spec, args);
}

void FunctionWriter::beginRegionOp(const OpSpec &spec, const OpArgs &args) {
  if (!spec.num_regions)
    fail(std::string("op '") + spec.name + "' has no regions: use emit()");
  writeHeader(spec, args, cur().buf);
  cur().buf.varint(spec.num_regions);
  cur().num_ops++;
  op_locs_.push_back(cur_loc_);
  PendingRegionOp p;
  p.spec = &spec;
  p.result_types = args.result_types;
  p.saved_counter = counter_;
  p.regions_left = uint32_t(spec.num_regions);
  p.depth = blocks_.size();
  pending_.push_back(std::move(p));
}

void FunctionWriter::beginRegion(uint32_t num_blocks) {
  if (pending_.empty() || pending_.back().depth != blocks_.size() || pending_.back().in_region ||
      pending_.back().regions_left == 0)
    fail("beginRegion() without a region op expecting a region");
  if (num_blocks > 1)
    fail("Tile IR regions have at most one block");
  PendingRegionOp &p = pending_.back();
  cur().buf.varint(num_blocks);
  p.blocks_left = num_blocks;
  p.in_region = true;
  counter_ = p.saved_counter;
}

std::vector<ValueId> FunctionWriter::beginBlock(const std::vector<uint32_t> &arg_types) {
  if (pending_.empty() || pending_.back().depth != blocks_.size() || !pending_.back().in_region ||
      pending_.back().blocks_left == 0)
    fail("beginBlock() outside a region");
  for (uint32_t t : arg_types)
    if (t >= module_->numTypes())
      fail("block argument: unknown type index");
  blocks_.emplace_back();
  blocks_.back().arg_types = arg_types;
  return newValues(arg_types.size());
}

void FunctionWriter::endBlock() {
  if (blocks_.size() < 2 || pending_.empty() || pending_.back().depth != blocks_.size() - 1)
    fail("endBlock() without an open block");
  Block b = std::move(blocks_.back());
  blocks_.pop_back();
  if (!b.terminated)
    fail(std::string("block in '") + pending_.back().spec->name + "' has no terminator");
  ByteBuffer &out = cur().buf;
  out.varint(b.arg_types.size());
  for (uint32_t t : b.arg_types)
    out.varint(t);
  out.varint(b.num_ops);
  out.bytes(b.buf);
  pending_.back().blocks_left--;
}

void FunctionWriter::endRegion() {
  if (pending_.empty() || pending_.back().depth != blocks_.size() || !pending_.back().in_region ||
      pending_.back().blocks_left != 0)
    fail("endRegion() with an unfinished block");
  PendingRegionOp &p = pending_.back();
  p.in_region = false;
  p.regions_left--;
  counter_ = p.saved_counter;
}

std::vector<ValueId> FunctionWriter::endRegionOp() {
  if (pending_.empty() || pending_.back().depth != blocks_.size() || pending_.back().in_region ||
      pending_.back().regions_left != 0)
    fail("endRegionOp() with regions missing");
  PendingRegionOp p = std::move(pending_.back());
  pending_.pop_back();
  counter_ = p.saved_counter;
  cur().terminated = p.spec->terminator;
  return newValues(p.result_types.size());
}

std::vector<uint8_t> FunctionWriter::finishBody() const {
  if (!pending_.empty() || blocks_.size() != 1)
    fail("function body has an unfinished region op");
  if (!blocks_[0].terminated)
    fail("function body must end with return");
  return blocks_[0].buf.data();
}

// Helpers.

std::vector<ValueId> FunctionWriter::getTileBlockId(uint32_t i32_tile) {
  return emit(Op::GetTileBlockId, {{i32_tile, i32_tile, i32_tile}, {}, {}});
}

ValueId FunctionWriter::constant(uint32_t type, uint32_t const_index) {
  return emit(Op::Constant, {{type}, {AttrArg::of(const_index)}, {}})[0];
}

ValueId FunctionWriter::iota(uint32_t type) { return emit(Op::Iota, {{type}, {}, {}})[0]; }

ValueId FunctionWriter::unary(Op op, uint32_t type, ValueId src) {
  return emit(op, {{type}, {}, {{src}}})[0];
}

ValueId FunctionWriter::binary(Op op, uint32_t type, ValueId lhs, ValueId rhs) {
  return emit(op, {{type}, {}, {{lhs}, {rhs}}})[0];
}

ValueId FunctionWriter::addf(uint32_t type, ValueId lhs, ValueId rhs, tile::Rounding r, bool ftz) {
  return emit(Op::AddF,
              {{type}, {AttrArg::of(uint64_t(r)), AttrArg::flag(ftz)}, {{lhs}, {rhs}}})[0];
}

ValueId FunctionWriter::addi(uint32_t type, ValueId lhs, ValueId rhs, tile::Overflow o) {
  return emit(Op::AddI, {{type}, {AttrArg::of(uint64_t(o))}, {{lhs}, {rhs}}})[0];
}

ValueId FunctionWriter::muli(uint32_t type, ValueId lhs, ValueId rhs, tile::Overflow o) {
  return emit(Op::MulI, {{type}, {AttrArg::of(uint64_t(o))}, {{lhs}, {rhs}}})[0];
}

ValueId FunctionWriter::negi(uint32_t type, ValueId src, tile::Overflow o) {
  return emit(Op::NegI, {{type}, {AttrArg::of(uint64_t(o))}, {{src}}})[0];
}

ValueId FunctionWriter::cmpi(uint32_t i1_type, tile::Predicate p, tile::Signedness s, ValueId lhs,
                             ValueId rhs) {
  return emit(Op::CmpI,
              {{i1_type}, {AttrArg::of(uint64_t(p)), AttrArg::of(uint64_t(s))}, {{lhs}, {rhs}}})[0];
}

ValueId FunctionWriter::assumeDivBy(uint32_t type, ValueId v, uint64_t divisor) {
  return emit(Op::Assume, {{type}, {AttrArg::raw(attr::divBy(divisor))}, {{v}}})[0];
}

ValueId FunctionWriter::makeTensorView(uint32_t type, ValueId base,
                                       const std::vector<ValueId> &dyn_shape,
                                       const std::vector<ValueId> &dyn_strides) {
  return emit(Op::MakeTensorView, {{type}, {}, {{base}, dyn_shape, dyn_strides}})[0];
}

ValueId FunctionWriter::makePartitionView(uint32_t type, ValueId tensor_view) {
  return emit(Op::MakePartitionView, {{type}, {}, {{tensor_view}}})[0];
}

static std::vector<ValueId> optGroup(std::optional<ValueId> v) {
  return v ? std::vector<ValueId>{*v} : std::vector<ValueId>{};
}

std::pair<ValueId, ValueId> FunctionWriter::loadViewTko(uint32_t tile_type, uint32_t token_type,
                                                        ValueId view,
                                                        const std::vector<ValueId> &index,
                                                        std::optional<ValueId> token,
                                                        tile::Ordering order) {
  auto r = emit(
      Op::LoadViewTko,
      {{tile_type, token_type}, {AttrArg::of(uint64_t(order))}, {{view}, index, optGroup(token)}});
  return {r[0], r[1]};
}

ValueId FunctionWriter::storeViewTko(uint32_t token_type, ValueId tile, ValueId view,
                                     const std::vector<ValueId> &index,
                                     std::optional<ValueId> token, tile::Ordering order) {
  return emit(
      Op::StoreViewTko,
      {{token_type}, {AttrArg::of(uint64_t(order))}, {{tile}, {view}, index, optGroup(token)}})[0];
}

std::pair<ValueId, ValueId> FunctionWriter::loadPtrTko(uint32_t tile_type, uint32_t token_type,
                                                       ValueId ptrs, std::optional<ValueId> mask,
                                                       std::optional<ValueId> padding,
                                                       std::optional<ValueId> token,
                                                       tile::Ordering order) {
  auto r = emit(Op::LoadPtrTko, {{tile_type, token_type},
                                 {AttrArg::of(uint64_t(order))},
                                 {{ptrs}, optGroup(mask), optGroup(padding), optGroup(token)}});
  return {r[0], r[1]};
}

ValueId FunctionWriter::storePtrTko(uint32_t token_type, ValueId ptrs, ValueId value,
                                    std::optional<ValueId> mask, std::optional<ValueId> token,
                                    tile::Ordering order) {
  return emit(Op::StorePtrTko, {{token_type},
                                {AttrArg::of(uint64_t(order))},
                                {{ptrs}, {value}, optGroup(mask), optGroup(token)}})[0];
}

ValueId FunctionWriter::makeToken(uint32_t token_type) {
  return emit(Op::MakeToken, {{token_type}, {}, {}})[0];
}

ValueId FunctionWriter::joinTokens(uint32_t token_type, const std::vector<ValueId> &tokens) {
  return emit(Op::JoinTokens, {{token_type}, {}, {tokens}})[0];
}

void FunctionWriter::ret(const std::vector<ValueId> &values) {
  emit(Op::Return, {{}, {}, {values}});
}

// ---------------------------------------------------------------------------------------------
// ModuleWriter.

ModuleWriter::ModuleWriter(Version v) : version_(v) {
  if (v < kMinVersion || kMaxVersion < v)
    fail("unsupported bytecode version " + v.str());
}

void ModuleWriter::require(Version since, const char *what) const {
  if (version_ < since)
    fail(std::string(what) + " needs bytecode " + since.str() + " (target " + version_.str() + ")");
}

uint32_t ModuleWriter::str(const std::string &s) {
  auto it = string_index_.find(s);
  if (it != string_index_.end())
    return it->second;
  uint32_t idx = static_cast<uint32_t>(strings_.size());
  strings_.push_back(s);
  string_index_.emplace(s, idx);
  return idx;
}

uint32_t ModuleWriter::internType(std::vector<uint8_t> encoded) {
  auto it = type_index_.find(encoded);
  if (it != type_index_.end())
    return it->second;
  uint32_t idx = static_cast<uint32_t>(types_.size());
  // Remember #inputs of function types (addEntry needs it to number the arguments).
  size_t inputs = ~size_t(0);
  if (!encoded.empty() && encoded[0] == uint8_t(TypeTag::Func)) {
    size_t n = 0, shift = 0, pos = 1;
    while (pos < encoded.size()) {
      uint8_t b = encoded[pos++];
      n |= size_t(b & 0x7F) << shift;
      shift += 7;
      if (!(b & 0x80))
        break;
    }
    inputs = n;
  }
  types_.push_back(encoded);
  func_type_inputs_.push_back(inputs);
  type_index_.emplace(std::move(encoded), idx);
  return idx;
}

uint32_t ModuleWriter::constant(std::vector<uint8_t> raw) {
  auto it = constant_index_.find(raw);
  if (it != constant_index_.end())
    return it->second;
  uint32_t idx = static_cast<uint32_t>(constants_.size());
  constants_.push_back(raw);
  constant_index_.emplace(std::move(raw), idx);
  return idx;
}

void ModuleWriter::checkType(uint32_t t) const {
  if (t >= types_.size())
    fail("unknown type index " + std::to_string(t));
}

uint32_t ModuleWriter::scalarType(TypeTag tag) {
  if (!isScalarTag(tag))
    fail("scalarType() called with a composite type tag");
  require(scalarSince(tag), "this element type");
  std::vector<uint8_t> e;
  appendVarint(e, uint32_t(tag));
  return internType(std::move(e));
}

uint32_t ModuleWriter::ptrType(uint32_t pointee) {
  checkType(pointee);
  std::vector<uint8_t> e;
  appendVarint(e, uint32_t(TypeTag::Ptr));
  if (version_ >= kV13_4)
    appendVarint(e, 0); // optional-flags: no ptrAttr
  appendVarint(e, pointee);
  return internType(std::move(e));
}

uint32_t ModuleWriter::tileType(const std::vector<int64_t> &shape, uint32_t elem) {
  checkType(elem);
  int64_t total = 1;
  for (int64_t d : shape) {
    if (!isPow2(d))
      fail("tile dimensions must be powers of two, got " + std::to_string(d));
    total *= d;
  }
  if (total > (int64_t(1) << 24))
    fail("tile has more than 2^24 elements");
  std::vector<uint8_t> e;
  appendVarint(e, uint32_t(TypeTag::Tile));
  appendVarint(e, elem);
  appendVarint(e, shape.size());
  for (int64_t d : shape)
    appendFixed(e, static_cast<uint64_t>(d), 8);
  return internType(std::move(e));
}

uint32_t ModuleWriter::tensorViewType(uint32_t elem, const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &strides) {
  checkType(elem);
  if (shape.size() != strides.size())
    fail("tensor_view shape and strides differ in rank");
  for (int64_t d : shape)
    if (d != kDynamic && d <= 0)
      fail("static tensor_view extents must be > 0");
  std::vector<uint8_t> e;
  appendVarint(e, uint32_t(TypeTag::TensorView));
  if (version_ >= kV13_4)
    appendVarint(e, 0); // optional-flags: no ptrAttr
  appendVarint(e, elem);
  appendVarint(e, shape.size());
  for (int64_t d : shape)
    appendFixed(e, static_cast<uint64_t>(d), 8);
  appendVarint(e, strides.size());
  for (int64_t s : strides)
    appendFixed(e, static_cast<uint64_t>(s), 8);
  return internType(std::move(e));
}

uint32_t ModuleWriter::partitionViewType(const std::vector<int32_t> &tile_shape,
                                         uint32_t tensor_view, const std::vector<int32_t> &dim_map,
                                         std::optional<tt::Padding> padding) {
  checkType(tensor_view);
  if (types_[tensor_view].empty() || types_[tensor_view][0] != uint8_t(TypeTag::TensorView))
    fail("partition_view needs a tensor_view type");
  for (int32_t d : tile_shape)
    if (!isPow2(d))
      fail("partition tile dimensions must be powers of two");
  if (dim_map.size() != tile_shape.size())
    fail("partition_view dim_map must have one entry per tile dimension");
  std::vector<uint8_t> e;
  appendVarint(e, uint32_t(TypeTag::PartitionView));
  const bool unified = version_ >= kV13_3; // 13.3 "unified bitfield"
  if (unified)
    appendVarint(e, padding ? 1 : 0);
  appendVarint(e, tile_shape.size());
  for (int32_t d : tile_shape)
    appendFixed(e, static_cast<uint32_t>(d), 4);
  appendVarint(e, tensor_view);
  appendVarint(e, dim_map.size());
  for (int32_t d : dim_map)
    appendFixed(e, static_cast<uint32_t>(d), 4);
  if (!unified)
    e.push_back(padding ? 1 : 0);
  if (padding)
    appendVarint(e, uint32_t(*padding));
  return internType(std::move(e));
}

uint32_t ModuleWriter::funcType(const std::vector<uint32_t> &inputs,
                                const std::vector<uint32_t> &results) {
  std::vector<uint8_t> e;
  appendVarint(e, uint32_t(TypeTag::Func));
  appendVarint(e, inputs.size());
  for (uint32_t t : inputs) {
    checkType(t);
    appendVarint(e, t);
  }
  appendVarint(e, results.size());
  for (uint32_t t : results) {
    checkType(t);
    appendVarint(e, t);
  }
  return internType(std::move(e));
}

size_t ModuleWriter::funcNumInputs(uint32_t sig) const {
  checkType(sig);
  if (func_type_inputs_[sig] == ~size_t(0))
    fail("entry signature must be a function type");
  return func_type_inputs_[sig];
}

FunctionWriter &ModuleWriter::addEntry(const std::string &name, uint32_t signature,
                                       std::vector<uint8_t> hints) {
  if (name.empty())
    fail("entry name must not be empty");
  size_t n = funcNumInputs(signature);
  uint32_t name_idx = str(name);
  functions_.emplace_back(new FunctionWriter(this, name_idx, signature, n, std::move(hints)));
  return *functions_.back();
}

std::vector<uint8_t> ModuleWriter::finish() {
  ByteBuffer file;
  for (uint8_t b : kMagic) // byte by byte: GCC 12 misreports a range insert into an empty vector
    file.u8(b);
  file.u8(version_.major);
  file.u8(version_.minor);
  file.u16(0);

  auto section = [&](SectionId id, const ByteBuffer &payload, size_t alignment) {
    file.u8(uint8_t(id) | (alignment > 1 ? kSectionAlignFlag : 0));
    file.varint(payload.size());
    if (alignment > 1) {
      file.varint(alignment);
      file.align(alignment); // against the absolute file offset
    }
    file.bytes(payload);
  };
  // A table: count, padding, offsets (of `offset_width` bytes) into the blob, the blob.
  auto table = [](const std::vector<std::vector<uint8_t>> &items, size_t alignment,
                  int offset_width, bool length_prefixed) {
    ByteBuffer p;
    p.varint(items.size());
    if (items.empty())
      return p;
    p.align(alignment);
    std::vector<uint8_t> blob;
    for (const auto &it : items) {
      if (offset_width == 4)
        p.u32(static_cast<uint32_t>(blob.size()));
      else
        p.u64(blob.size());
      if (length_prefixed)
        appendVarint(blob, it.size());
      blob.insert(blob.end(), it.begin(), it.end());
    }
    p.bytes(blob);
    return p;
  };

  // Func section, and the Debug section's lists beside it.
  DebugInfoBuilder debug([this](const std::string &s) { return str(s); });
  ByteBuffer func;
  func.varint(functions_.size());
  for (const auto &f : functions_) {
    std::vector<uint8_t> body = f->finishBody();
    func.varint(f->name_);
    func.varint(f->sig_);
    func.u8(kFuncKernel | (f->hints_.empty() ? 0 : kFuncHasHints));
    const std::string name = strings_[f->name_]; // (a copy: the builder adds strings)
    func.varint(debug.addFunction(name, f->fn_loc_, f->op_locs_));
    func.bytes(f->hints_);
    func.varint(body.size());
    func.bytes(body);
  }
  func.align(8); // the reference writer pads the payload end to 8
  section(SectionId::Func, func, 8);

  if (!constants_.empty())
    section(SectionId::Constant, table(constants_, 8, 8, true), 8);

  if (!debug.empty())
    section(SectionId::Debug, debug.payload(), 8);

  if (!types_.empty())
    section(SectionId::Type, table(types_, 4, 4, false), 4);

  std::vector<std::vector<uint8_t>> strs;
  for (const std::string &s : strings_)
    strs.emplace_back(s.begin(), s.end());
  section(SectionId::String, table(strs, 4, 4, false), 4);

  file.u8(uint8_t(SectionId::End));
  return file.take();
}

} // namespace bytecode
} // namespace tt
