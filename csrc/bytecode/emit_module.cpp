// The Tile IR -> bytecode walker (see emit_module.h). Layouts come from op_specs.cpp; this file
// only translates our IR's conventions (tile/tile.h) into each spec's fields.
#include "bytecode/emit_module.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "bytecode/emit_context.h"

namespace tt {
namespace bytecode {
namespace {

using namespace emit;

const std::string kPrefix = "cuda_tile.";

[[noreturn]] void fail(const std::string &msg) { throw BytecodeError("tile bytecode: " + msg); }

// Our IR names every op as NVIDIA does, except print: NVIDIA's print_tko. Its token result
// (13.2+) may be left out of our IR (then nothing orders after the print) or carried, with an
// optional token operand in operandSegmentSizes {args, token}, to order prints.
const OpSpec *specFor(const Operation &op) {
  const std::string &n = op.name();
  if (n.compare(0, kPrefix.size(), kPrefix) != 0)
    return nullptr;
  std::string s = n.substr(kPrefix.size());
  return findOpSpec(s == "print" ? std::string("print_tko") : s);
}

bool isPrint(const OpSpec &s) { return s.opcode == Op::PrintTko; }

// The largest value of each enum attribute (format.h's enums; NVIDIA/cuda-tile's
// lib/Bytecode/BytecodeEnums.h).
int64_t enumMax(const std::string &name) {
  static const std::unordered_map<std::string, int64_t> m = {{"rounding_mode", 7},
                                                             {"rounding", 7},
                                                             {"overflow", 3},
                                                             {"signedness", 1},
                                                             {"signedness_lhs", 1},
                                                             {"signedness_rhs", 1},
                                                             {"memory_scope", 2},
                                                             {"mode", 9},
                                                             {"comparison_predicate", 5},
                                                             {"comparison_ordering", 1},
                                                             {"memory_ordering_semantics", 4}};
  auto it = m.find(name);
  return it == m.end() ? -1 : it->second;
}

// Spec attribute name -> our IR's attribute name (tile/tile.h conventions).
std::string irName(const AttrSpec &a) {
  const std::string n = a.name;
  if (n == "rounding_mode")
    return "rounding";
  if (n == "str")
    return "format";
  return n;
}

// Tile IR's default for a required attribute our IR may leave out (the printers' defaults).
std::optional<uint64_t> defaultFor(const OpSpec &s, const AttrSpec &a) {
  const std::string n = a.name;
  if (n == "overflow")
    return uint64_t(tile::kNoOverflowFlag);
  if (n == "rounding_mode")
    return uint64_t(s.opcode == Op::FToI ? tile::kNearestIntToZero : tile::kNearestEven);
  if (n == "rounding" && s.opcode == Op::DivI)
    return uint64_t(tile::kZero);
  return std::nullopt;
}

// An op's position for the Debug section: where it is written (an inlined op's own line, not
// its call sites: debug_info.h's known limits).
SourceLoc sourceLoc(const Location &loc) {
  if (!loc)
    return {};
  return {loc->file, static_cast<uint32_t>(std::max(loc->line, 0)),
          static_cast<uint32_t>(std::max(loc->col, 0))};
}

// Writes one entry function's body: value numbering and region scopes.
class BodyEmitter {
public:
  BodyEmitter(Context &cx, FunctionWriter &fw) : cx_(cx), fw_(fw) {}

  void entryBody(const Block &b) {
    scopes_.emplace_back();
    for (size_t i = 0; i < b.numArgs(); ++i)
      bind(b.arg(i), fw_.arg(i));
    for (const auto &o : b.ops())
      op(*o);
    scopes_.pop_back();
  }

private:
  void bind(const Value *v, ValueId id) {
    ids_[v] = id;
    scopes_.back().push_back(v);
  }

  ValueId id(const Operation &o, size_t i) {
    auto it = ids_.find(o.operand(i));
    if (it == ids_.end())
      failOp(o, "operand #" + std::to_string(i) + " is not defined in an enclosing scope");
    return it->second;
  }

  void op(const Operation &o) {
    if (cx_.lineInfo)
      fw_.setLoc(sourceLoc(o.loc()));
    try {
      emitOp(o);
    } catch (const OpError &) {
      throw;
    } catch (const BytecodeError &e) {
      std::string msg = e.what();
      const std::string prefix = "tile bytecode: ";
      if (msg.compare(0, prefix.size(), prefix) == 0)
        msg = msg.substr(prefix.size());
      failOp(o, msg);
    }
  }

  void emitOp(const Operation &o) {
    const OpSpec *spec = specFor(o);
    if (!spec)
      failOp(o, "no Tile IR bytecode encoding for this op");
    std::set<std::string> used;
    OpArgs args;
    for (size_t i = 0; i < o.numResults(); ++i)
      args.result_types.push_back(cx_.types.value(o.result(i)->type));
    // print_tko's token (13.2+): implicit when our IR's print has no result of its own.
    if (isPrint(*spec) && cx_.v >= spec->last_result_since && o.numResults() == 0)
      args.result_types.push_back(cx_.w.tokenType());
    for (const AttrSpec &a : spec->attrs)
      args.attrs.push_back(attrArg(o, *spec, a, used));
    args.operands = operandGroups(o, *spec, used);
    for (const auto &kv : o.attrs())
      if (!used.count(kv.first) && !ignorable(o, kv.first))
        failOp(o, "attribute '" + kv.first + "' has no Tile IR bytecode encoding");

    std::vector<ValueId> results;
    if (spec->num_regions) {
      if (o.numRegions() != size_t(spec->num_regions))
        failOp(o, "expects " + std::to_string(spec->num_regions) + " regions");
      fw_.beginRegionOp(*spec, args);
      for (size_t r = 0; r < o.numRegions(); ++r)
        region(o, *o.region(r));
      results = fw_.endRegionOp();
    } else {
      if (o.numRegions())
        failOp(o, "has regions its bytecode form lacks");
      results = fw_.emit(*spec, args);
    }
    for (size_t i = 0; i < o.numResults(); ++i)
      bind(o.result(i), results.at(i));
  }

  // Attributes our IR carries that have no bytecode meaning of their own.
  static bool ignorable(const Operation &o, const std::string &name) {
    // gpu.barrier's marker: the tokens joined by the op already carry the ordering.
    return name == "fence" && o.is("cuda_tile.join_tokens");
  }

  void region(const Operation &o, const Region &r) {
    if (r.blocks.size() > 1)
      failOp(o, "Tile IR regions have one block");
    fw_.beginRegion(static_cast<uint32_t>(r.blocks.size()));
    if (!r.empty()) {
      const Block &b = *r.front();
      std::vector<uint32_t> argTypes;
      for (size_t i = 0; i < b.numArgs(); ++i)
        argTypes.push_back(cx_.types.value(b.arg(i)->type));
      std::vector<ValueId> argIds = fw_.beginBlock(argTypes);
      scopes_.emplace_back();
      for (size_t i = 0; i < b.numArgs(); ++i)
        bind(b.arg(i), argIds[i]);
      for (const auto &inner : b.ops())
        op(*inner);
      for (const Value *v : scopes_.back()) // inner values go out of scope with the block
        ids_.erase(v);
      scopes_.pop_back();
      fw_.endBlock();
    }
    fw_.endRegion();
  }

  AttrArg attrArg(const Operation &o, const OpSpec &s, const AttrSpec &a,
                  std::set<std::string> &used) {
    const std::string name = irName(a);
    const bool optional = a.flag_bit >= 0 || a.since != kV13_1;
    switch (a.kind) {
    case AttrKind::Unit: {
      const Attribute &x = o.attr(name);
      if (!x)
        return AttrArg::none();
      used.insert(name);
      if (x.kind() != Attribute::Kind::Unit && x.kind() != Attribute::Kind::Bool)
        failOp(o, "attribute '" + name + "' must be a unit attribute");
      return AttrArg::flag(x.kind() == Attribute::Kind::Unit || x.getBool());
    }
    case AttrKind::Enum:
    case AttrKind::Int: {
      const Attribute &x = o.attr(name);
      if (!x) {
        if (optional)
          return AttrArg::none();
        if (auto d = defaultFor(s, a))
          return AttrArg::of(*d);
        failOp(o, "missing attribute '" + name + "'");
      }
      used.insert(name);
      int64_t v = intOf(o, name, x);
      int64_t max = a.kind == AttrKind::Enum ? enumMax(a.name) : INT64_MAX;
      if (v < 0 || v > max)
        failOp(o, "attribute '" + name + "' out of range: " + std::to_string(v));
      return AttrArg::of(static_cast<uint64_t>(v));
    }
    case AttrKind::Bool: {
      const Attribute &x = o.attr(name);
      if (!x)
        failOp(o, "missing attribute '" + name + "'");
      used.insert(name);
      return AttrArg::of(intOf(o, name, x) ? 1 : 0);
    }
    case AttrKind::String: {
      const Attribute &x = o.attr(name);
      if (x.kind() != Attribute::Kind::String)
        failOp(o, "attribute '" + name + "' must be a string");
      used.insert(name);
      return AttrArg::of(cx_.w.str(x.getString()));
    }
    case AttrKind::Const: {
      const Attribute &x = o.attr(name);
      if (!x || o.numResults() != 1)
        failOp(o, "a constant needs a value and one result");
      used.insert(name);
      return AttrArg::of(cx_.w.constant(constantBytes(o, x, o.result(0)->type)));
    }
    case AttrKind::I32Array: {
      const Attribute &x = o.attr(name);
      if (x.kind() != Attribute::Kind::I32Array)
        failOp(o, "attribute '" + name + "' must be an i32 array");
      used.insert(name);
      return AttrArg::raw(attr::i32Array(toI32(x.getInts())));
    }
    case AttrKind::BoolArray:
      return boolArray(o, name, used);
    case AttrKind::Tagged:
      return AttrArg::raw(assumePredicate(o, used));
    case AttrKind::TaggedArray:
      return AttrArg::raw(identities(o, used));
    case AttrKind::Hints: {
      const Attribute &x = o.attr(name);
      if (!x)
        return AttrArg::none();
      used.insert(name);
      return AttrArg::raw(attr::hintsUntagged(hintsOf(o, cx_, x, false)));
    }
    case AttrKind::Type:
      break;
    }
    failOp(o, std::string("attribute kind of '") + a.name + "' is not supported");
  }

  // View ops' `inbounds` (13.4): one flag per index; absent means all false.
  AttrArg boolArray(const Operation &o, const std::string &name, std::set<std::string> &used) {
    const Attribute &x = o.attr(name);
    if (!x)
      return AttrArg::none();
    used.insert(name);
    std::vector<bool> flags;
    if (x.kind() == Attribute::Kind::I32Array) {
      for (int64_t b : x.getInts())
        flags.push_back(b != 0);
    } else if (x.kind() == Attribute::Kind::Array) {
      for (const Attribute &b : x.getArray())
        flags.push_back(intOf(o, name, b) != 0);
    } else {
      failOp(o, "attribute '" + name + "' must be an array of bools");
    }
    return AttrArg::raw(attr::boolArray(flags));
  }

  std::vector<uint8_t> assumePredicate(const Operation &o, std::set<std::string> &used) {
    if (o.hasAttr("div_by")) {
      used.insert("div_by");
      int64_t d = intOf(o, "div_by", o.attr("div_by"));
      std::optional<int64_t> every, along;
      if (o.hasAttr("every")) {
        used.insert("every");
        every = intOf(o, "every", o.attr("every"));
      }
      if (o.hasAttr("along")) {
        used.insert("along");
        along = intOf(o, "along", o.attr("along"));
      }
      if (d <= 0 || (d & (d - 1)))
        failOp(o, "div_by needs a power of two, got " + std::to_string(d));
      return attr::divBy(static_cast<uint64_t>(d), every, along);
    }
    if (o.hasAttr("bounded")) {
      used.insert("bounded");
      const auto &b = o.attr("bounded").getInts();
      if (b.size() != 2)
        failOp(o, "bounded needs [lb, ub]");
      auto bound = [](int64_t v) {
        return v == kDynamic ? std::nullopt : std::optional<int64_t>(v);
      };
      return attr::bounded(bound(b[0]), bound(b[1]));
    }
    if (o.hasAttr("same_elements")) {
      used.insert("same_elements");
      return attr::sameElements(o.attr("same_elements").getInts());
    }
    failOp(o, "assume needs div_by, bounded or same_elements");
  }

  std::vector<uint8_t> identities(const Operation &o, std::set<std::string> &used) {
    const Attribute &x = o.attr("identities");
    if (x.kind() != Attribute::Kind::Array || x.getArray().size() != o.numOperands())
      failOp(o, "needs one identity per operand");
    used.insert("identities");
    std::vector<uint8_t> out;
    appendVarint(out, x.getArray().size());
    for (size_t i = 0; i < o.numOperands(); ++i) {
      const Attribute &id = x.getArray()[i];
      if (id.getType() != o.operand(i)->type.element())
        failOp(o, "identity #" + std::to_string(i) + " must have the operand's element type");
      std::vector<uint8_t> enc = taggedNumber(o, cx_, id);
      out.insert(out.end(), enc.begin(), enc.end());
    }
    return out;
  }

  std::vector<std::vector<ValueId>> operandGroups(const Operation &o, const OpSpec &s,
                                                  std::set<std::string> &used) {
    std::vector<ValueId> all;
    for (size_t i = 0; i < o.numOperands(); ++i)
      all.push_back(id(o, i));
    if (s.operand_mode == OperandMode::Total)
      return {all};
    if (s.operand_mode == OperandMode::Plain) {
      if (all.size() != s.operands.size())
        failOp(o, "expects " + std::to_string(s.operands.size()) + " operands");
      std::vector<std::vector<ValueId>> out;
      for (ValueId v : all)
        out.push_back({v});
      return out;
    }
    std::vector<int64_t> seg;
    if (o.hasAttr("operandSegmentSizes")) {
      used.insert("operandSegmentSizes");
      seg = o.attr("operandSegmentSizes").getInts();
    } else if (s.opcode == Op::MakeTensorView) {
      // Our IR leaves these segments implicit: one operand per `?` in the view type.
      Type tv = o.result(0)->type;
      int64_t shape = 0, strides = 0;
      for (int64_t d : tv.viewShape())
        shape += d == kDynamic;
      for (int64_t d : tv.viewStrides())
        strides += d == kDynamic;
      seg = {1, shape, strides};
    } else if (isPrint(s)) {
      seg = {static_cast<int64_t>(all.size()), 0}; // args; the token operand stays absent
    } else {
      failOp(o, "needs operandSegmentSizes");
    }
    if (seg.size() != s.operands.size())
      failOp(o, "operandSegmentSizes needs " + std::to_string(s.operands.size()) + " entries");
    std::vector<std::vector<ValueId>> out;
    size_t k = 0;
    for (size_t g = 0; g < seg.size(); ++g) {
      const OperandSpec &os = s.operands[g];
      bool ok = seg[g] >= 0 && (os.kind == OperandKind::Variadic ||
                                (os.kind == OperandKind::Single ? seg[g] == 1 : seg[g] <= 1));
      if (!ok || k + size_t(seg[g]) > all.size())
        failOp(o, std::string("bad operand segment for '") + os.name + "'");
      out.emplace_back(all.begin() + k, all.begin() + k + seg[g]);
      k += seg[g];
    }
    if (k != all.size())
      failOp(o, "operandSegmentSizes do not cover the operands");
    return out;
  }

  Context &cx_;
  FunctionWriter &fw_;
  std::unordered_map<const Value *, ValueId> ids_;
  std::vector<std::vector<const Value *>> scopes_;
};

void emitEntry(Context &cx, const Operation &f) {
  for (const auto &kv : f.attrs())
    if (kv.first != "sym_name" && kv.first != "function_type" && kv.first != "optimization_hints")
      failOp(f, "attribute '" + kv.first + "' has no Tile IR bytecode encoding");
  const std::string &name = f.attr("sym_name").getString();
  Type ft = f.attr("function_type").getType();
  if (name.empty() || !ft || !ft.isFunc() || !ft.results().empty())
    failOp(f, "an entry needs a name and a function type without results");
  std::vector<uint32_t> inputs;
  for (Type t : ft.inputs()) {
    if (t.isTensor() || t.isView() || t.isToken())
      failOp(f, "entry arguments must be rank-0 tiles, got " + t.str());
    inputs.push_back(cx.types.value(t));
  }
  std::vector<uint8_t> hints;
  if (f.hasAttr("optimization_hints"))
    hints = attr::hintsTagged(hintsOf(f, cx, f.attr("optimization_hints"), true));
  if (f.numRegions() != 1 || f.region(0)->blocks.size() != 1)
    failOp(f, "an entry has one body block");
  const Block &body = *f.region(0)->front();
  if (body.numArgs() != inputs.size())
    failOp(f, "body arguments differ from the function type");
  for (size_t i = 0; i < body.numArgs(); ++i)
    if (body.arg(i)->type != ft.inputs()[i])
      failOp(f, "body argument #" + std::to_string(i) + " differs from the function type");
  FunctionWriter &fw = cx.w.addEntry(name, cx.w.funcType(inputs, {}), std::move(hints));
  if (cx.lineInfo)
    fw.setFunctionLoc(sourceLoc(f.loc()));
  BodyEmitter(cx, fw).entryBody(body);
}

// Does this op need bytecode 13.4 (a 13.4 op, or a 13.4 value of an older op)?
bool needs13_4(const Operation &op) {
  const OpSpec *s = specFor(op);
  if (s && s->since >= kV13_4)
    return true;
  if (op.intAttr("rounding") == int64_t(tile::kNearestAway))
    return true;
  if (s && s->opcode == Op::FToI && op.hasAttr("saturating"))
    return true;
  const Attribute &in = op.attr("inbounds");
  if (in.kind() == Attribute::Kind::I32Array)
    for (int64_t b : in.getInts())
      if (b)
        return true;
  if (in.kind() == Attribute::Kind::Array)
    for (const Attribute &b : in.getArray())
      if (b.getInt())
        return true;
  return false;
}

} // namespace

Version chooseVersion(const Module &tileModule) {
  bool v134 = false;
  for (Operation *f : tileModule.funcs())
    f->walk([&](Operation *op) { v134 = v134 || needs13_4(*op); });
  return v134 ? kV13_4 : kDefaultVersion;
}

std::vector<uint8_t> writeModule(const Module &tileModule, Version v, bool lineInfo) {
  ModuleWriter w(v);
  Context cx{w, TypeMap(w), v, lineInfo};
  size_t entries = 0;
  for (const auto &op : tileModule.body()->ops()) {
    if (!op->is("cuda_tile.entry"))
      failOp(*op, "a Tile IR module holds only cuda_tile.entry functions");
    emitEntry(cx, *op);
    ++entries;
  }
  if (!entries)
    fail("the module has no cuda_tile.entry");
  return w.finish();
}

std::vector<uint8_t> writeModule(const Module &tileModule, bool lineInfo) {
  return writeModule(tileModule, chooseVersion(tileModule), lineInfo);
}

Version parseVersion(const std::string &text) {
  size_t dot = text.find('.');
  if (text.size() > 7 || dot == std::string::npos || dot == 0 || dot + 1 >= text.size() ||
      text.find_first_not_of("0123456789.") != std::string::npos ||
      text.find('.', dot + 1) != std::string::npos)
    fail("malformed bytecode version '" + text + "' (expected e.g. 13.3)");
  int major = std::stoi(text.substr(0, dot)), minor = std::stoi(text.substr(dot + 1));
  Version v(static_cast<uint8_t>(major), static_cast<uint8_t>(minor));
  if (major > 255 || minor > 255 || v < kMinVersion || kMaxVersion < v)
    fail("unsupported bytecode version " + text + " (supported: " + kMinVersion.str() + ".." +
         kMaxVersion.str() + ")");
  return v;
}

} // namespace bytecode
} // namespace tt
