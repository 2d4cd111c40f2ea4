#include "ir/operation.h"

#include <atomic>
#include <stdexcept>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/op_registry.h"

namespace tt {

namespace {
std::atomic<uint64_t> nextValueId{1};
} // namespace

std::string locationString(const Location &loc) {
  if (!loc)
    return "<unknown>";
  std::string s = loc->file + ":" + std::to_string(loc->line) + ":" + std::to_string(loc->col);
  for (auto c = loc->caller; c; c = c->caller)
    s += " (inlined at " + c->file + ":" + std::to_string(c->line) + ":" + std::to_string(c->col) +
         ")";
  return s;
}

Location withCaller(const Location &loc, const Location &callSite) {
  if (!callSite)
    return loc;
  auto d = std::make_shared<LocData>(loc ? *loc : LocData{});
  // Append the call site at the end of the existing chain: the innermost frame stays first.
  if (!d->caller) {
    d->caller = callSite;
  } else {
    d->caller = withCaller(d->caller, callSite);
  }
  return d;
}

Value::Value(Type t, Operation *d, Block *b, unsigned i)
    : type(t), def(d), ownerBlock(b), index(i), id(nextValueId++) {}

Operation::Operation(const OpInfo *info, Location loc) : info_(info), loc_(std::move(loc)) {}
Operation::~Operation() = default;

const std::string &Operation::name() const { return info_->name; }

Value *Operation::addResult(Type t) {
  results_.push_back(std::make_unique<Value>(t, this, nullptr, results_.size()));
  return results_.back().get();
}

const Attribute &Operation::attr(const std::string &n) const {
  static const Attribute none;
  for (const auto &kv : attrs_)
    if (kv.first == n)
      return kv.second;
  return none;
}

void Operation::setAttr(const std::string &n, Attribute a) {
  for (auto &kv : attrs_)
    if (kv.first == n) {
      kv.second = std::move(a);
      return;
    }
  attrs_.emplace_back(n, std::move(a));
}

void Operation::removeAttr(const std::string &n) {
  for (auto it = attrs_.begin(); it != attrs_.end(); ++it)
    if (it->first == n) {
      attrs_.erase(it);
      return;
    }
}

int64_t Operation::intAttr(const std::string &n, int64_t dflt) const {
  Attribute a = attr(n);
  if (a.kind() == Attribute::Kind::Int || a.kind() == Attribute::Kind::Bool)
    return a.getInt();
  return dflt;
}

Region *Operation::addRegion() {
  regions_.push_back(std::make_unique<Region>(this));
  return regions_.back().get();
}

Operation *Operation::parentOp() const { return parent_ ? parent_->parentOp() : nullptr; }

Operation *Block::parentOp() const { return parent_ ? parent_->parent() : nullptr; }

Value *Block::addArg(Type t) {
  args_.push_back(std::make_unique<Value>(t, nullptr, this, args_.size()));
  return args_.back().get();
}

void Block::eraseArg(size_t i) {
  args_.erase(args_.begin() + static_cast<long>(i));
  for (size_t k = i; k < args_.size(); ++k)
    args_[k]->index = static_cast<unsigned>(k);
}

Operation *Block::terminator() const {
  Operation *last = back();
  return last && last->info()->has(kTerminator) ? last : nullptr;
}

Block::iterator Block::insert(iterator pos, std::unique_ptr<Operation> op) {
  op->parent_ = this;
  return ops_.insert(pos, std::move(op));
}

Block::iterator Block::find(Operation *op) {
  for (auto it = ops_.begin(); it != ops_.end(); ++it)
    if (it->get() == op)
      return it;
  return ops_.end();
}

std::unique_ptr<Operation> Block::remove(Operation *op) {
  auto it = find(op);
  if (it == ops_.end())
    throw std::logic_error("operation is not in this block");
  std::unique_ptr<Operation> owned = std::move(*it);
  ops_.erase(it);
  owned->parent_ = nullptr;
  return owned;
}

void Block::erase(Operation *op) { remove(op).reset(); }

Block *Region::addBlock() {
  blocks.push_back(std::make_unique<Block>(this));
  return blocks.back().get();
}

Module::Module() {
  top_ = makeOperation("builtin.module", {}, {}, {}, 1, nullptr);
  top_->region(0)->addBlock();
}

Block *Module::body() const { return top_->region(0)->front(); }

Operation *Module::lookupFunc(const std::string &name) const {
  for (auto &op : body()->ops())
    if (op->info()->has(kSymbol) && op->attr("sym_name").getString() == name)
      return op.get();
  return nullptr;
}

std::unique_ptr<Module> Module::clone() const {
  auto copy = std::make_unique<Module>();
  std::unordered_map<const Value *, Value *> map;
  for (auto &op : body()->ops())
    copy->body()->insert(copy->body()->ops().end(), cloneOp(*op, map));
  return copy;
}

std::vector<Operation *> Module::funcs() const {
  std::vector<Operation *> out;
  for (auto &op : body()->ops())
    if (op->info()->has(kSymbol))
      out.push_back(op.get());
  return out;
}

std::unique_ptr<Operation> makeOperation(const std::string &name,
                                         const std::vector<Value *> &operands,
                                         const std::vector<Type> &resultTypes, Attrs attrs,
                                         int numRegions, Location loc) {
  const OpInfo *info = lookupOp(name);
  if (!info)
    throw std::invalid_argument("unknown operation '" + name + "'");
  auto op = std::make_unique<Operation>(info, std::move(loc));
  for (Value *v : operands) {
    if (!v)
      throw std::invalid_argument("null operand to '" + name + "'");
    op->operands.push_back(v);
  }
  for (Type t : resultTypes) {
    if (!t)
      throw std::invalid_argument("null result type for '" + name + "'");
    op->addResult(t);
  }
  for (auto &kv : attrs)
    op->setAttr(kv.first, std::move(kv.second));
  for (int i = 0; i < numRegions; ++i)
    op->addRegion();
  return op;
}

void replaceUses(Operation *root, const std::vector<std::pair<Value *, Value *>> &mapping) {
  if (mapping.empty())
    return;
  std::unordered_map<Value *, Value *> map(mapping.begin(), mapping.end());
  root->walk([&](Operation *op) {
    for (Value *&v : op->operands) {
      auto it = map.find(v);
      if (it != map.end())
        v = it->second;
    }
  });
}

} // namespace tt
