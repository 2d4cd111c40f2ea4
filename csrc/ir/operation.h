// Values, operations, blocks, regions and modules: the one IR core that TTIR and Tile IR share.
//
// Ownership is a tree: a Module owns its top operation, an Operation owns its results and
// regions, a Region its blocks, a Block its arguments and operations. Operands are plain
// pointers to values defined earlier in an enclosing scope; there are no use lists (passes
// that need uses compute them), which keeps every mutation simple and every pointer stable.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/attribute.h"
#include "ir/type.h"

namespace tt {

class Block;
class Operation;
class Region;
struct OpInfo;

// A source location; `caller` is the call site an op was inlined through (nested @jit calls),
// so errors can show the whole chain.
struct LocData {
  std::string file;
  int line = 0;
  int col = 0;
  std::shared_ptr<const LocData> caller;
};
using Location = std::shared_ptr<const LocData>;
std::string locationString(const Location &loc); // "file:line:col" (+ " (inlined at ...)")
Location withCaller(const Location &loc, const Location &callSite);

class Value {
public:
  Type type;
  Operation *def = nullptr;    // the defining op, or null for a block argument
  Block *ownerBlock = nullptr; // for block arguments
  unsigned index = 0;          // result number or argument number
  uint64_t id = 0;             // unique per process: stable hashing from Python

  Value(Type t, Operation *d, Block *b, unsigned i);
  Value(const Value &) = delete;
  Value &operator=(const Value &) = delete;
  bool isBlockArg() const { return def == nullptr; }
};

using Attrs = std::vector<std::pair<std::string, Attribute>>;

class Operation {
public:
  Operation(const OpInfo *info, Location loc);
  ~Operation();
  Operation(const Operation &) = delete;
  Operation &operator=(const Operation &) = delete;

  const OpInfo *info() const { return info_; }
  const std::string &name() const;
  bool is(const char *n) const { return name() == n; }
  const Location &loc() const { return loc_; }
  void setLoc(Location l) { loc_ = std::move(l); }

  std::vector<Value *> operands;
  Value *operand(size_t i) const { return operands.at(i); }
  size_t numOperands() const { return operands.size(); }

  size_t numResults() const { return results_.size(); }
  Value *result(size_t i) const { return results_.at(i).get(); }
  Value *addResult(Type t);

  const Attrs &attrs() const { return attrs_; }
  // The attribute named n (kind None when absent); the reference lives as long as the op.
  const Attribute &attr(const std::string &n) const;
  bool hasAttr(const std::string &n) const { return static_cast<bool>(attr(n)); }
  void setAttr(const std::string &n, Attribute a);
  void removeAttr(const std::string &n);
  int64_t intAttr(const std::string &n, int64_t dflt = 0) const;

  size_t numRegions() const { return regions_.size(); }
  Region *region(size_t i) const { return regions_.at(i).get(); }
  Region *addRegion();

  Block *parentBlock() const { return parent_; }
  Operation *parentOp() const; // the op whose region holds this op (null at the top)

  // Per-argument attributes of a function op (tt.func): tt.divisibility and friends.
  std::vector<Attrs> argAttrs;

  // Walks this op and every op nested in its regions, pre-order.
  template <typename F> void walk(F &&f);

private:
  friend class Block;
  const OpInfo *info_;
  Location loc_;
  std::vector<std::unique_ptr<Value>> results_;
  Attrs attrs_;
  std::vector<std::unique_ptr<Region>> regions_;
  Block *parent_ = nullptr;
};

class Block {
public:
  using OpList = std::list<std::unique_ptr<Operation>>;
  using iterator = OpList::iterator;

  explicit Block(Region *parent) : parent_(parent) {}
  Block(const Block &) = delete;
  Block &operator=(const Block &) = delete;
  Region *parent() const { return parent_; }
  Operation *parentOp() const;

  Value *addArg(Type t);
  size_t numArgs() const { return args_.size(); }
  Value *arg(size_t i) const { return args_.at(i).get(); }
  // Removes argument i; the caller has already rewired its uses.
  void eraseArg(size_t i);

  OpList &ops() { return ops_; }
  const OpList &ops() const { return ops_; }
  bool empty() const { return ops_.empty(); }
  Operation *back() const { return ops_.empty() ? nullptr : ops_.back().get(); }
  Operation *terminator() const; // the last op if it is a terminator

  iterator insert(iterator pos, std::unique_ptr<Operation> op);
  iterator find(Operation *op);
  std::unique_ptr<Operation> remove(Operation *op); // detaches without destroying
  void erase(Operation *op);

private:
  Region *parent_;
  std::vector<std::unique_ptr<Value>> args_;
  OpList ops_;
};

class Region {
public:
  explicit Region(Operation *parent) : parent_(parent) {}
  Region(const Region &) = delete;
  Region &operator=(const Region &) = delete;
  Operation *parent() const { return parent_; }
  std::vector<std::unique_ptr<Block>> blocks;
  Block *addBlock();
  Block *front() const { return blocks.empty() ? nullptr : blocks.front().get(); }
  bool empty() const { return blocks.empty(); }

private:
  Operation *parent_;
};

// A module: one `builtin.module` op whose single block holds the functions.
class Module {
public:
  Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  Operation *op() const { return top_.get(); }
  Block *body() const;
  Operation *lookupFunc(const std::string &name) const; // by sym_name; null when absent
  std::vector<Operation *> funcs() const;
  // A deep copy (new values, same types and attributes).
  std::unique_ptr<Module> clone() const;

private:
  std::unique_ptr<Operation> top_;
};

// Creates a detached operation of a registered kind; throws std::invalid_argument for an
// unknown name.
std::unique_ptr<Operation> makeOperation(const std::string &name,
                                         const std::vector<Value *> &operands,
                                         const std::vector<Type> &resultTypes, Attrs attrs,
                                         int numRegions, Location loc);

template <typename F> void Operation::walk(F &&f) {
  f(this);
  for (auto &r : regions_)
    for (auto &b : r->blocks)
      for (auto it = b->ops().begin(); it != b->ops().end();) {
        Operation *op = (it++)->get(); // f may not erase `op`, but the iterator stays valid
        op->walk(f);
      }
}

// The block that defines `v`: its defining op's, or the block it is an argument of.
inline const Block *blockOf(const Value *v) {
  return v->def ? v->def->parentBlock() : v->ownerBlock;
}

// Replaces every operand use of a value in `from` by the value it maps to, in `root` and all
// ops nested in it.
void replaceUses(Operation *root, const std::vector<std::pair<Value *, Value *>> &mapping);

} // namespace tt
