#include "ir/printer.h"

#include <algorithm>

#include "ir/op_registry.h"

namespace tt {

namespace {
// MLIR's names for constants: %c16_i32, %true, %cst.
std::string constantHint(const Operation &op) {
  Attribute v = op.attr("value");
  Type t = op.result(0)->type;
  if (v.kind() == Attribute::Kind::Int) {
    if (t.isInt(1))
      return v.getInt() ? "true" : "false";
    std::string n = std::to_string(v.getInt());
    return "c" + n + "_" + t.str();
  }
  return "cst";
}
} // namespace

std::string Printer::name(const Value *v) {
  auto it = names_.find(v);
  if (it != names_.end())
    return it->second;
  // A value printed before its definition (or defined outside what is being printed).
  std::string n = "%<<unknown:" + std::to_string(v->id) + ">>";
  return n;
}

void Printer::assignResultNames(const Operation &op) {
  if (op.numResults() == 0)
    return;
  std::string base;
  if ((op.is("arith.constant") || op.is("cuda_tile.constant")) && op.numResults() == 1) {
    std::string hint = constantHint(op);
    int &count = used_[hint];
    base = "%" + hint + (count ? "_" + std::to_string(count - 1) : "");
    ++count;
    names_[op.result(0)] = base;
    return;
  }
  base = "%" + std::to_string(nextId_++);
  if (op.numResults() == 1) {
    names_[op.result(0)] = base;
    return;
  }
  for (size_t i = 0; i < op.numResults(); ++i)
    names_[op.result(i)] = base + "#" + std::to_string(i);
}

std::string Printer::operandList(const std::vector<Value *> &vals) {
  std::string s;
  for (size_t i = 0; i < vals.size(); ++i)
    s += (i ? ", " : "") + name(vals[i]);
  return s;
}

std::string Printer::typeList(const std::vector<Value *> &vals) {
  std::string s;
  for (size_t i = 0; i < vals.size(); ++i)
    s += (i ? ", " : "") + typeStr(vals[i]->type);
  return s;
}

std::string Printer::attrDict(const Operation &op, const std::vector<std::string> &skip) {
  std::vector<std::pair<std::string, Attribute>> shown;
  for (const auto &kv : op.attrs()) {
    bool skipped = false;
    for (const auto &s : skip)
      skipped |= kv.first == s;
    if (!skipped)
      shown.push_back(kv);
  }
  if (shown.empty())
    return "";
  std::sort(shown.begin(), shown.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  std::string s = " {";
  for (size_t i = 0; i < shown.size(); ++i) {
    s += (i ? ", " : "") + shown[i].first;
    if (shown[i].second.kind() != Attribute::Kind::Unit)
      s += " = " + shown[i].second.str();
  }
  return s + "}";
}

void Printer::nameArgs(const Block &b) {
  for (size_t a = 0; a < b.numArgs(); ++a)
    if (!names_.count(b.arg(a)))
      names_[b.arg(a)] = "%arg" + std::to_string(nextArg_++);
}

void Printer::region(const Region &r, bool printEntryArgs) {
  out_ += "{\n";
  ++depth_;
  bool first = true;
  for (const auto &b : r.blocks) {
    nameArgs(*b);
    if (!first || (printEntryArgs && b->numArgs() > 0)) {
      out_.append(static_cast<size_t>(depth_ - 1) * 2, ' ');
      out_ += "^bb" + std::to_string(first ? 0 : 1) + "(";
      for (size_t a = 0; a < b->numArgs(); ++a)
        out_ += (a ? ", " : "") + name(b->arg(a)) + ": " + typeStr(b->arg(a)->type);
      out_ += "):\n";
    }
    first = false;
    for (const auto &o : b->ops())
      op(*o);
  }
  --depth_;
  indent();
  out_ += "}";
}

void Printer::genericOp(const Operation &op) {
  out_ += "\"" + op.name() + "\"(" + operandList(op.operands) + ")";
  std::string attrs = attrDict(op);
  if (!attrs.empty())
    out_ += " <" + attrs.substr(1) + ">";
  if (op.numRegions()) {
    out_ += " (";
    for (size_t i = 0; i < op.numRegions(); ++i) {
      if (i)
        out_ += ", ";
      region(*op.region(i), true);
    }
    out_ += ")";
  }
  out_ += " : (" + typeList(op.operands) + ") -> ";
  std::vector<Value *> res;
  for (size_t i = 0; i < op.numResults(); ++i)
    res.push_back(op.result(i));
  out_ += res.size() == 1 ? typeStr(res[0]->type) : "(" + typeList(res) + ")";
}

void Printer::op(const Operation &o) {
  indent();
  assignResultNames(o);
  if (o.numResults()) {
    std::string n = name(o.result(0));
    auto hash = n.find('#');
    out_ +=
        (hash == std::string::npos ? n : n.substr(0, hash) + ":" + std::to_string(o.numResults()));
    out_ += " = ";
  }
  if (o.info()->print)
    o.info()->print(o, *this);
  else
    genericOp(o);
  if (withLocs_)
    out_ += " loc(\"" + locationString(o.loc()) + "\")";
  out_ += "\n";
}

void Printer::module(const Module &m) { module(m, "module"); }

void Printer::module(const Module &m, const std::string &header) {
  out_ += header + " {\n";
  ++depth_;
  for (const auto &f : m.body()->ops()) {
    // Each function is isolated from above: numbering restarts, as MLIR does.
    names_.clear();
    used_.clear();
    nextId_ = 0;
    nextArg_ = 0;
    op(*f);
  }
  --depth_;
  out_ += "}\n";
}

std::string printModule(const Module &m, bool withLocs) {
  Printer p(withLocs);
  p.module(m);
  return p.os();
}

std::string printOp(const Operation &op) {
  Printer p;
  p.op(op);
  return p.os();
}

} // namespace tt
