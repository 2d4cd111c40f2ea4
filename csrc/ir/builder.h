// The builder: creates operations at an insertion point with the current location.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/operation.h"

namespace tt {

class Builder {
public:
  explicit Builder(Module &m) { setInsertionPointToEnd(m.body()); }
  Builder(Block *b) { setInsertionPointToEnd(b); }

  struct InsertPoint {
    Block *block = nullptr;
    Block::iterator pos;
  };

  void setInsertionPointToEnd(Block *b) {
    ip_.block = b;
    ip_.pos = b->ops().end();
  }
  void setInsertionPointBefore(Operation *op) {
    ip_.block = op->parentBlock();
    ip_.pos = ip_.block->find(op);
  }
  void setInsertionPointAfter(Operation *op) {
    ip_.block = op->parentBlock();
    ip_.pos = std::next(ip_.block->find(op));
  }
  Block *insertionBlock() const { return ip_.block; }
  InsertPoint saveInsertionPoint() const { return ip_; }
  void restoreInsertionPoint(const InsertPoint &ip) { ip_ = ip; }

  void setLoc(Location loc) { loc_ = std::move(loc); }
  void setLoc(const std::string &file, int line, int col);
  const Location &loc() const { return loc_; }

  Operation *create(const std::string &name, const std::vector<Value *> &operands,
                    const std::vector<Type> &resultTypes, Attrs attrs = {}, int numRegions = 0);
  // Inserts an already built (detached) operation at the insertion point.
  Operation *insert(std::unique_ptr<Operation> op);

  // Convenience for passes.
  Value *constInt(int64_t v, Type t);
  Value *constFloat(double v, Type t);

private:
  InsertPoint ip_;
  Location loc_;
};

// A public tt.func `name` taking `inputs` and returning nothing, at the builder's insertion
// point; its body block holds one argument per input, and the builder is left at its end.
Block *createPublicFunction(Builder &b, const std::string &name, const std::vector<Type> &inputs);

// Deep-copies `op` (and its regions) with operands remapped through `map`; values defined in
// the copy are added to `map`. Locations get `callSite` appended (used by inlining).
std::unique_ptr<Operation> cloneOp(const Operation &op,
                                   std::unordered_map<const Value *, Value *> &map,
                                   const Location &callSite = nullptr);

} // namespace tt
