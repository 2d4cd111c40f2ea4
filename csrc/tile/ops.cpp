// Registration of the cuda_tile op set: traits, the Tile IR rules each op enforces, and the
// printers that reproduce NVIDIA's textual form. Module-wide rules (power-of-two tiles, no
// views carried through control flow, entry arguments are rank-0 tiles) are checked here
// per op so a violation names the op that introduced it.
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/op_registry.h"
#include "ir/printer.h"
#include "tile/tile.h"

namespace tt {
namespace tile {

std::string typeStr(Type t) {
  if (!t)
    return "<<null>>";
  if (t.isToken())
    return "token";
  if (t.isView())
    return t.str();
  auto elem = [](Type e) { return e.isPtr() ? "ptr<" + e.pointee().str() + ">" : e.str(); };
  std::string s = "tile<";
  for (int64_t d : t.shape())
    s += std::to_string(d) + "x";
  return s + elem(t.element()) + ">";
}

} // namespace tile

namespace {

using tile::typeStr;
using Verify = std::function<std::string(const Operation &)>;
using Print = std::function<void(const Operation &, Printer &)>;

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Tile IR's rule for every tile value: each dimension a power of two, at most 2^24 elements.
std::string tileRule(Type t) {
  if (!t.isTensor())
    return "";
  for (int64_t d : t.shape())
    if (!isPow2(d))
      return "tile dimensions must be powers of two, got " + typeStr(t);
  if (t.numel() > (int64_t(1) << 24))
    return "tiles hold at most 2^24 elements, got " + typeStr(t);
  return "";
}

Verify base(size_t minOps, size_t maxOps, size_t nResults, Verify extra = nullptr) {
  return [=](const Operation &op) -> std::string {
    if (op.numOperands() < minOps || op.numOperands() > maxOps)
      return "expects " + std::to_string(minOps) + ".." + std::to_string(maxOps) +
             " operands, got " + std::to_string(op.numOperands());
    if (nResults != size_t(-1) && op.numResults() != nResults)
      return "expects " + std::to_string(nResults) + " results";
    for (size_t i = 0; i < op.numResults(); ++i) {
      std::string m = tileRule(op.result(i)->type);
      if (!m.empty())
        return m;
    }
    return extra ? extra(op) : "";
  };
}

Verify sameTypes(size_t n) {
  return [=](const Operation &op) -> std::string {
    for (size_t i = 1; i < n && i < op.numOperands(); ++i)
      if (op.operand(i)->type != op.operand(0)->type)
        return "operands must have one type (no implicit broadcasting in Tile IR)";
    return "";
  };
}

// Whether `name` is in the op table (tile/op_table.h); our IR's "print" is its print_tko.
bool inOpTable(const std::string &name) {
#define TT_TILE_OP_NAME(id, text, code, major, minor) text,
  static const char *const names[] = {TT_TILE_OPS(TT_TILE_OP_NAME)};
#undef TT_TILE_OP_NAME
  const std::string n = name == "print" ? "print_tko" : name;
  for (const char *t : names)
    if (n == t)
      return true;
  return false;
}

void reg(const std::string &name, unsigned traits, Verify v, Print p) {
  if (!inOpTable(name)) // a programming error: every op is declared in the table first
    throw std::logic_error("cuda_tile." + name + " is registered but not in tile/op_table.h");
  registerOp(OpInfo{"cuda_tile." + name, traits, std::move(v), std::move(p)});
}

std::string shortName(const Operation &op) { return op.name().substr(10); } // drop "cuda_tile."

// The modifiers NVIDIA prints after the operands, in its order.
std::string modifiers(const Operation &op, int defaultRounding) {
  std::string s;
  Attribute ov = op.attr("overflow");
  if (ov && ov.getInt() != tile::kNoOverflowFlag)
    s += std::string(" overflow<") + tile::spelling<tile::Overflow>(ov.getInt()) + ">";
  Attribute sg = op.attr("signedness");
  if (sg)
    s += std::string(" ") + tile::spelling<tile::Signedness>(sg.getInt());
  Attribute rd = op.attr("rounding");
  if (rd && rd.getInt() != defaultRounding)
    s += std::string(" rounding<") + tile::spelling<tile::Rounding>(static_cast<int>(rd.getInt())) +
         ">";
  if (op.hasAttr("flush_to_zero"))
    s += " flush_to_zero";
  if (op.hasAttr("propagate_nan"))
    s += " propagate_nan";
  return s;
}

Print elementwisePrinter(int defaultRounding = tile::kNearestEven) {
  return [=](const Operation &op, Printer &p) {
    p << shortName(op) << " " << p.operandList(op.operands) << modifiers(op, defaultRounding)
      << " : " << typeStr(op.result(0)->type);
  };
}

Print castPrinter() {
  return [](const Operation &op, Printer &p) {
    p << shortName(op) << " " << p.operandList(op.operands) << modifiers(op, tile::kNearestEven)
      << " : " << typeStr(op.operand(0)->type) << " -> " << typeStr(op.result(0)->type);
  };
}

std::string typesOf(const std::vector<Value *> &vals) {
  std::string s;
  for (size_t i = 0; i < vals.size(); ++i)
    s += (i ? ", " : "") + typeStr(vals[i]->type);
  return s;
}

std::string resultTypes(const Operation &op) {
  std::string s;
  for (size_t i = 0; i < op.numResults(); ++i)
    s += (i ? ", " : "") + typeStr(op.result(i)->type);
  return s;
}

// operandSegmentSizes: which optional operands an op carries, in declaration order.
std::vector<int64_t> segments(const Operation &op) {
  return op.attr("operandSegmentSizes").getInts();
}

// Splits operands by operandSegmentSizes.
std::vector<std::vector<Value *>> segmented(const Operation &op) {
  std::vector<std::vector<Value *>> out;
  size_t k = 0;
  for (int64_t n : segments(op)) {
    std::vector<Value *> group;
    for (int64_t i = 0; i < n && k < op.numOperands(); ++i)
      group.push_back(op.operand(k++));
    out.push_back(group);
  }
  return out;
}

Verify segmentsMatch(size_t groups) {
  return [=](const Operation &op) -> std::string {
    auto seg = segments(op);
    if (seg.size() != groups)
      return "needs operandSegmentSizes with " + std::to_string(groups) + " entries";
    int64_t total = 0;
    for (int64_t n : seg)
      total += n;
    return total == static_cast<int64_t>(op.numOperands()) ? ""
                                                           : "operandSegmentSizes do not add up";
  };
}

std::string memoryPrefix(const Operation &op) {
  std::string s = std::string(" ") + tile::spelling<tile::Ordering>(
                                         static_cast<int>(op.intAttr("memory_ordering_semantics")));
  if (op.hasAttr("memory_scope"))
    s += std::string(" ") +
         tile::spelling<tile::Scope>(static_cast<int>(op.intAttr("memory_scope")));
  return s;
}

std::string tokenSuffix(const std::vector<Value *> &tok, Printer &p) {
  return tok.empty() ? "" : " token=" + p.name(tok[0]);
}

std::string hintSuffix(const Operation &op) {
  Attribute h = op.attr("optimization_hints");
  return h ? " optimization_hints=<" + h.str().substr(1, h.str().size() - 2) + ">" : "";
}

void registerArithmetic() {
  for (const char *n : {"addi", "subi", "muli", "andi", "ori", "xori", "shli", "mulhii"})
    reg(n, kPure, base(2, 2, 1, sameTypes(2)), elementwisePrinter());
  for (const char *n : {"divi", "remi", "maxi", "mini", "shri"})
    reg(n, kPure, base(2, 2, 1, sameTypes(2)), elementwisePrinter(tile::kZero));
  for (const char *n : {"addf", "subf", "mulf", "remf", "maxf", "minf", "pow", "atan2"})
    reg(n, kPure, base(2, 2, 1, sameTypes(2)), elementwisePrinter());
  reg("divf", kPure, base(2, 2, 1, sameTypes(2)), elementwisePrinter());
  for (const char *n : {"absf", "absi", "negf", "negi", "ceil", "floor", "cos", "cosh", "sin",
                        "sinh", "tan", "tanh", "exp", "exp2", "log", "log2", "rsqrt", "sqrt"})
    reg(n, kPure, base(1, 1, 1),
        elementwisePrinter(n == std::string("exp") || n == std::string("tanh")
                               ? tile::kFull
                               : tile::kNearestEven));
  reg("fma", kPure, base(3, 3, 1, sameTypes(3)), elementwisePrinter());
  reg("cmpi", kPure, base(2, 2, 1, sameTypes(2)), [](const Operation &op, Printer &p) {
    p << "cmpi "
      << tile::spelling<tile::Predicate>(static_cast<int>(op.intAttr("comparison_predicate")))
      << " " << p.operandList(op.operands) << ", "
      << tile::spelling<tile::Signedness>(op.intAttr("signedness")) << " : "
      << typeStr(op.operand(0)->type) << " -> " << typeStr(op.result(0)->type);
  });
  reg("cmpf", kPure, base(2, 2, 1, sameTypes(2)), [](const Operation &op, Printer &p) {
    p << "cmpf "
      << tile::spelling<tile::Predicate>(static_cast<int>(op.intAttr("comparison_predicate")))
      << " " << tile::spelling<tile::ComparisonOrdering>(op.intAttr("comparison_ordering")) << " "
      << p.operandList(op.operands) << " : " << typeStr(op.operand(0)->type) << " -> "
      << typeStr(op.result(0)->type);
  });
  reg("select", kPure,
      base(3, 3, 1,
           [](const Operation &op) -> std::string {
             if (op.operand(1)->type != op.operand(2)->type)
               return "both values must have one type";
             if (op.operand(0)->type != op.operand(1)->type.withElement(Type::integer(1)))
               return "the condition must be an i1 tile of the values' shape";
             return "";
           }),
      [](const Operation &op, Printer &p) {
        p << "select " << p.operandList(op.operands) << " : " << typeStr(op.operand(0)->type)
          << ", " << typeStr(op.result(0)->type);
      });
  for (const char *n : {"exti", "trunci", "ftof", "itof", "ftoi", "bitcast", "int_to_ptr",
                        "ptr_to_int", "ptr_to_ptr", "broadcast", "reshape"})
    reg(n, kPure, base(1, 1, 1), castPrinter());
  reg("constant", kPure, base(0, 0, 1), [](const Operation &op, Printer &p) {
    Attribute v = op.attr("value");
    Type t = op.result(0)->type;
    std::string val;
    if (v.kind() == Attribute::Kind::Dense)
      val = v.denseIsFloat() ? formatFloat(v.getFloat(), t)
                             : (t.element().isInt(1) ? (v.getInt() ? "true" : "false")
                                                     : std::to_string(v.getInt()));
    else if (v.kind() == Attribute::Kind::Float)
      val = formatFloat(v.getFloat(), t);
    else
      val = t.element().isInt(1) ? (v.getInt() ? "true" : "false") : std::to_string(v.getInt());
    p << "constant <" << t.element().str() << ": " << val << "> : " << typeStr(t);
  });
  reg("iota", kPure, base(0, 0, 1),
      [](const Operation &op, Printer &p) { p << "iota : " << typeStr(op.result(0)->type); });
  for (const char *n : {"get_tile_block_id", "get_num_tile_blocks"})
    reg(n, kPure, base(0, 0, 3), [](const Operation &op, Printer &p) {
      p << shortName(op) << " : " << typeStr(op.result(0)->type);
    });
  reg("permute", kPure, base(1, 1, 1), [](const Operation &op, Printer &p) {
    p << "permute " << p.name(op.operand(0)) << " [";
    const auto &perm = op.attr("permutation").getInts();
    for (size_t i = 0; i < perm.size(); ++i)
      p << (i ? ", " : "") << std::to_string(perm[i]);
    p << "] : " << typeStr(op.operand(0)->type) << " -> " << typeStr(op.result(0)->type);
  });
  reg("cat", kPure, base(2, 2, 1), [](const Operation &op, Printer &p) {
    p << "cat " << p.operandList(op.operands) << " dim = " << std::to_string(op.intAttr("dim"))
      << " : " << typesOf(op.operands) << " -> " << typeStr(op.result(0)->type);
  });
  reg("extract", kPure, base(2, 8, 1), [](const Operation &op, Printer &p) {
    std::vector<Value *> idx(op.operands.begin() + 1, op.operands.end());
    p << "extract " << p.name(op.operand(0)) << "[" << p.operandList(idx)
      << "] : " << typeStr(op.operand(0)->type) << " -> " << typeStr(op.result(0)->type);
  });
  reg("offset", kPure, base(2, 2, 1), [](const Operation &op, Printer &p) {
    p << "offset " << p.operandList(op.operands) << " : " << typesOf(op.operands) << " -> "
      << typeStr(op.result(0)->type);
  });
  reg("mmaf", kPure, base(3, 3, 1), [](const Operation &op, Printer &p) {
    p << "mmaf " << p.operandList(op.operands) << (op.hasAttr("fast_acc") ? " fast_acc" : "")
      << " : " << typesOf(op.operands);
  });
  reg("mmai", kPure, base(3, 3, 1), [](const Operation &op, Printer &p) {
    p << "mmai " << p.operandList(op.operands) << " "
      << tile::spelling<tile::Signedness>(op.intAttr("signedness_lhs")) << " "
      << tile::spelling<tile::Signedness>(op.intAttr("signedness_rhs")) << " : "
      << typesOf(op.operands);
  });
  reg("assume", kPure, base(1, 1, 1), [](const Operation &op, Printer &p) {
    p << "assume ";
    if (op.hasAttr("div_by")) {
      p << "div_by<" << std::to_string(op.intAttr("div_by"));
      if (op.hasAttr("every"))
        p << ", every " << std::to_string(op.intAttr("every")) << " along "
          << std::to_string(op.intAttr("along"));
      p << ">";
    } else if (op.hasAttr("bounded")) {
      const auto &b = op.attr("bounded").getInts();
      auto bound = [](int64_t v) { return v == kDynamic ? std::string("?") : std::to_string(v); };
      p << "bounded<" << bound(b.at(0)) << ", " << bound(b.at(1)) << ">";
    } else {
      p << "same_elements<" << op.attr("same_elements").str().substr(9);
    }
    p << ", " << p.name(op.operand(0)) << " : " << typeStr(op.result(0)->type);
  });
}

Print reducePrinter(bool scan) {
  return [scan](const Operation &op, Printer &p) {
    p << (scan ? "scan " : "reduce ") << p.operandList(op.operands)
      << " dim=" << std::to_string(op.intAttr("dim"));
    if (scan)
      p << " reverse=" << (op.intAttr("reverse") ? "true" : "false");
    p << " identities=[";
    const auto &ids = op.attr("identities").getArray();
    for (size_t i = 0; i < ids.size(); ++i) {
      Type t = ids[i].getType();
      p << (i ? ", " : "")
        << (ids[i].kind() == Attribute::Kind::Float ? formatFloat(ids[i].getFloat(), t)
                                                    : std::to_string(ids[i].getInt()))
        << " : " << t.str();
    }
    p << "] : " << typesOf(op.operands) << " -> " << resultTypes(op) << "\n";
    const Block &b = *op.region(0)->front();
    p.nameArgs(b);
    p << "(";
    for (size_t i = 0; i < b.numArgs(); ++i)
      p << (i ? ", " : "") << p.name(b.arg(i)) << ": " << typeStr(b.arg(i)->type);
    p << ") ";
    p.region(*op.region(0), false);
  };
}

void registerMemory() {
  reg("make_token", kPure, base(0, 0, 1),
      [](const Operation &, Printer &p) { p << "make_token : token"; });
  reg("join_tokens", kPure, base(1, 64, 1), [](const Operation &op, Printer &p) {
    p << "join_tokens " << p.operandList(op.operands) << " : token";
  });
  reg("make_tensor_view", kPure,
      base(1, 17, 1,
           [](const Operation &op) -> std::string {
             Type tv = op.result(0)->type;
             if (!tv.isTensorView())
               return "result must be a tensor_view";
             size_t dyn = 0;
             for (int64_t d : tv.viewShape())
               dyn += d == kDynamic;
             for (int64_t s : tv.viewStrides())
               dyn += s == kDynamic;
             if (op.numOperands() != 1 + dyn)
               return "needs one operand per dynamic extent and stride";
             if (!op.operand(0)->type.isPtr() || op.operand(0)->type.pointee() != tv.viewElement())
               return "base must be a pointer to the view's element type";
             return "";
           }),
      [](const Operation &op, Printer &p) {
        Type tv = op.result(0)->type;
        size_t k = 1;
        auto list = [&](const std::vector<int64_t> &v) {
          std::string s = "[";
          for (size_t i = 0; i < v.size(); ++i)
            s += (i ? ", " : "") +
                 (v[i] == kDynamic ? p.name(op.operand(k++)) : std::to_string(v[i]));
          return s + "]";
        };
        p << "make_tensor_view " << p.name(op.operand(0)) << ", shape = " << list(tv.viewShape())
          << ", strides = " << list(tv.viewStrides()) << " : ";
        if (op.numOperands() > 1)
          p << typeStr(op.operand(1)->type) << " -> ";
        p << tv.str();
      });
  reg("make_partition_view", kPure,
      base(1, 1, 1,
           [](const Operation &op) -> std::string {
             Type pv = op.result(0)->type;
             if (!pv.isPartitionView() || pv.tensorViewOf() != op.operand(0)->type)
               return "makes a partition_view of its tensor_view operand";
             for (int64_t d : pv.tileShape())
               if (!isPow2(d))
                 return "partition tile dimensions must be powers of two";
             return "";
           }),
      [](const Operation &op, Printer &p) {
        p << "make_partition_view " << p.name(op.operand(0)) << " : " << op.result(0)->type.str();
      });
  auto viewTileCheck = [](Type view, Type tileT) -> std::string {
    if (!view.isPartitionView())
      return "expects a partition_view";
    if (tileT.shape() != view.tileShape() || tileT.element() != view.viewElement())
      return "tile type " + typeStr(tileT) + " does not match the view's tile";
    return "";
  };
  reg("load_view_tko", kReadOnly,
      base(1, 10, 2,
           [=](const Operation &op) -> std::string {
             std::string m = segmentsMatch(3)(op);
             return m.empty() ? viewTileCheck(op.operand(0)->type, op.result(0)->type) : m;
           }),
      [](const Operation &op, Printer &p) {
        auto g = segmented(op);
        p << "load_view_tko" << memoryPrefix(op) << " " << p.name(g[0][0]) << "["
          << p.operandList(g[1]) << "]" << tokenSuffix(g[2], p) << hintSuffix(op) << " : "
          << g[0][0]->type.str();
        if (!g[1].empty())
          p << ", " << typeStr(g[1][0]->type);
        p << " -> " << resultTypes(op);
      });
  reg("store_view_tko", 0,
      base(2, 11, 1,
           [=](const Operation &op) -> std::string {
             std::string m = segmentsMatch(4)(op);
             return m.empty() ? viewTileCheck(op.operand(1)->type, op.operand(0)->type) : m;
           }),
      [](const Operation &op, Printer &p) {
        auto g = segmented(op);
        p << "store_view_tko" << memoryPrefix(op) << " " << p.name(g[0][0]) << ", "
          << p.name(g[1][0]) << "[" << p.operandList(g[2]) << "]" << tokenSuffix(g[3], p)
          << hintSuffix(op) << " : " << typeStr(g[0][0]->type) << ", " << g[1][0]->type.str();
        if (!g[2].empty())
          p << ", " << typeStr(g[2][0]->type);
        p << " -> token";
      });
  reg("load_ptr_tko", kReadOnly, base(1, 4, 2, segmentsMatch(4)),
      [](const Operation &op, Printer &p) {
        auto g = segmented(op);
        std::vector<Value *> main;
        for (int i = 0; i < 3; ++i)
          main.insert(main.end(), g[i].begin(), g[i].end());
        p << "load_ptr_tko" << memoryPrefix(op) << " " << p.operandList(main)
          << tokenSuffix(g[3], p) << hintSuffix(op) << " : " << typesOf(main) << " -> "
          << resultTypes(op);
      });
  reg("store_ptr_tko", 0, base(2, 4, 1, segmentsMatch(4)), [](const Operation &op, Printer &p) {
    auto g = segmented(op);
    std::vector<Value *> main;
    for (int i = 0; i < 3; ++i)
      main.insert(main.end(), g[i].begin(), g[i].end());
    p << "store_ptr_tko" << memoryPrefix(op) << " " << p.operandList(main) << tokenSuffix(g[3], p)
      << hintSuffix(op) << " : " << typesOf(main) << " -> token";
  });
  reg("atomic_rmw_tko", 0, base(2, 4, 2, segmentsMatch(4)), [](const Operation &op, Printer &p) {
    auto g = segmented(op);
    p << "atomic_rmw_tko" << memoryPrefix(op) << " " << p.name(g[0][0]) << ", "
      << tile::spelling<tile::RmwMode>(static_cast<int>(op.intAttr("mode"))) << ", "
      << p.name(g[1][0]);
    std::vector<Value *> main = {g[0][0], g[1][0]};
    if (!g[2].empty()) {
      p << ", " << p.name(g[2][0]);
      main.push_back(g[2][0]);
    }
    p << tokenSuffix(g[3], p) << " : " << typesOf(main) << " -> " << resultTypes(op);
  });
  // operands: view, indices, value, token?
  reg("atomic_red_view_tko", 0,
      base(2, 11, 1,
           [=](const Operation &op) -> std::string {
             std::string m = segmentsMatch(4)(op);
             if (!m.empty())
               return m;
             auto g = segmented(op);
             return viewTileCheck(g[0][0]->type, g[2][0]->type);
           }),
      [](const Operation &op, Printer &p) {
        auto g = segmented(op);
        p << "atomic_red_view_tko" << memoryPrefix(op) << " " << p.name(g[0][0]) << "["
          << p.operandList(g[1]) << "], "
          << tile::spelling<tile::RmwMode>(static_cast<int>(op.intAttr("mode"))) << ", "
          << p.name(g[2][0]) << tokenSuffix(g[3], p) << " : " << g[0][0]->type.str();
        if (!g[1].empty())
          p << ", " << typeStr(g[1][0]->type);
        p << ", " << typeStr(g[2][0]->type) << " -> token";
      });
  reg("atomic_cas_tko", 0, base(3, 5, 2, segmentsMatch(5)), [](const Operation &op, Printer &p) {
    auto g = segmented(op);
    std::vector<Value *> main;
    for (int i = 0; i < 4; ++i)
      main.insert(main.end(), g[i].begin(), g[i].end());
    p << "atomic_cas_tko" << memoryPrefix(op) << " " << p.operandList(main) << tokenSuffix(g[4], p)
      << " : " << typesOf(main) << " -> " << resultTypes(op);
  });
  reg("print", 0, base(0, 64, size_t(-1)), [](const Operation &op, Printer &p) {
    p << "print " << op.attr("format").str();
    if (op.numOperands())
      p << ", " << p.operandList(op.operands) << " : " << typesOf(op.operands);
  });
  reg("assert", 0, base(1, 1, 0), [](const Operation &op, Printer &p) {
    p << "assert " << p.name(op.operand(0)) << ", " << op.attr("message").str() << " : "
      << typeStr(op.operand(0)->type);
  });
  reg("reduce", kPure, base(1, 8, size_t(-1)), reducePrinter(false));
  reg("scan", kPure, base(1, 8, size_t(-1)), reducePrinter(true));
}

// Views may not flow through control flow (Tile IR forbids loop-carried or yielded views).
std::string noViewResults(const Operation &op) {
  for (size_t i = 0; i < op.numResults(); ++i)
    if (op.result(i)->type.isView())
      return "views cannot be loop-carried or yielded; create them inside the region";
  return "";
}

Print terminatorPrinter() {
  return [](const Operation &op, Printer &p) {
    p << shortName(op);
    if (op.numOperands())
      p << " " << p.operandList(op.operands) << " : " << typesOf(op.operands);
  };
}

void registerControlFlow() {
  reg(
      "for", 0,
      [](const Operation &op) -> std::string {
        if (op.numOperands() < 3 || op.numRegions() != 1)
          return "needs bounds, a step and a body";
        return noViewResults(op);
      },
      [](const Operation &op, Printer &p) {
        const Block &b = *op.region(0)->front();
        p.nameArgs(b);
        p << "for " << p.name(b.arg(0)) << " in (" << p.name(op.operand(0)) << " to "
          << p.name(op.operand(1)) << ", step " << p.name(op.operand(2))
          << ") : " << typeStr(op.operand(0)->type);
        if (op.numOperands() > 3) {
          p << " iter_values(";
          for (size_t i = 3; i < op.numOperands(); ++i)
            p << (i > 3 ? ", " : "") << p.name(b.arg(i - 2)) << " = " << p.name(op.operand(i));
          p << ") -> (" << resultTypes(op) << ")";
        }
        p << " ";
        p.region(*op.region(0), false);
      });
  reg(
      "loop", 0,
      [](const Operation &op) -> std::string {
        return op.numRegions() == 1 ? noViewResults(op) : "needs a body";
      },
      [](const Operation &op, Printer &p) {
        const Block &b = *op.region(0)->front();
        p.nameArgs(b);
        p << "loop";
        if (op.numOperands()) {
          p << " iter_values(";
          for (size_t i = 0; i < op.numOperands(); ++i)
            p << (i ? ", " : "") << p.name(b.arg(i)) << " = " << p.name(op.operand(i));
          p << ") : " << typesOf(op.operands);
        }
        if (op.numResults())
          p << (op.numOperands() ? " -> " : " : ") << resultTypes(op);
        p << " ";
        p.region(*op.region(0), false);
      });
  reg(
      "if", 0,
      [](const Operation &op) -> std::string {
        if (op.numOperands() != 1 || !op.operand(0)->type.isInt(1))
          return "condition must be tile<i1>";
        if (op.numRegions() != 2)
          return "needs then and else regions";
        if (op.numResults() && op.region(1)->empty())
          return "an if with results needs an else block";
        return noViewResults(op);
      },
      [](const Operation &op, Printer &p) {
        p << "if " << p.name(op.operand(0));
        if (op.numResults())
          p << " -> (" << resultTypes(op) << ")";
        p << " ";
        p.region(*op.region(0), false);
        if (!op.region(1)->empty()) {
          p << " else ";
          p.region(*op.region(1), false);
        }
      });
  for (const char *n : {"yield", "continue", "break", "return"})
    reg(n, kTerminator, nullptr, terminatorPrinter());
  reg(
      "entry", kSymbol,
      [](const Operation &op) -> std::string {
        Type ft = op.attr("function_type").getType();
        if (!ft.isFunc() || op.numRegions() != 1)
          return "needs a function_type and a body";
        for (Type t : ft.inputs())
          if (t.isTensor() || t.isView() || t.isToken())
            return "entry arguments must be rank-0 tiles (scalars or pointers)";
        if (!ft.results().empty())
          return "entries return nothing";
        return "";
      },
      [](const Operation &op, Printer &p) {
        const Block &b = *op.region(0)->front();
        p.nameArgs(b);
        p << "entry @" << op.attr("sym_name").getString() << "(";
        for (size_t i = 0; i < b.numArgs(); ++i)
          p << (i ? ", " : "") << p.name(b.arg(i)) << ": " << typeStr(b.arg(i)->type);
        p << ")" << hintSuffix(op) << " ";
        p.region(*op.region(0), false);
      });
}

} // namespace

void registerTileOps() {
  registerArithmetic();
  registerMemory();
  registerControlFlow();
}

namespace tile {

std::string printModule(const Module &m) {
  Printer p;
  p.typeStr = typeStr;
  p.module(m, "cuda_tile.module @kernels");
  return p.os();
}

} // namespace tile
} // namespace tt
