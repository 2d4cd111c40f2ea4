// MLIR-style printing. Ops print in their custom assembly when their OpInfo has a printer
// (so TTIR reads like stock Triton's), otherwise in MLIR's generic form.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/operation.h"

namespace tt {

class Printer {
public:
  explicit Printer(bool withLocs = false) : withLocs_(withLocs) {}

  // How types are spelled: MLIR's TTIR spelling by default; Tile IR modules print `tile<...>`.
  std::function<std::string(Type)> typeStr = [](Type t) { return t.str(); };

  std::string &os() { return out_; }
  Printer &operator<<(const std::string &s) {
    out_ += s;
    return *this;
  }

  std::string name(const Value *v);                          // %0, %arg3, %c16_i32, %5#1
  std::string operandList(const std::vector<Value *> &vals); // "%a, %b"
  std::string typeList(const std::vector<Value *> &vals);    // "i32, f32"
  // ` {a = 1 : i32, ...}` for the op's attributes other than `skip` (empty when none).
  std::string attrDict(const Operation &op, const std::vector<std::string> &skip = {});
  // Prints a region body; `printEntryArgs` prints `^bb0(%arg: T):` for its first block.
  void region(const Region &r, bool printEntryArgs);

  void op(const Operation &op);
  // Names a block's arguments %argN (function signatures print them before the body).
  void nameArgs(const Block &b);
  void module(const Module &m);
  // Prints each function of `m` (after `header`), wrapped in `header { ... }`.
  void module(const Module &m, const std::string &header);
  void genericOp(const Operation &op); // the part after `%res = `

private:
  void assignResultNames(const Operation &op);
  void indent() { out_.append(static_cast<size_t>(depth_) * 2, ' '); }

  std::string out_;
  int depth_ = 0;
  bool withLocs_;
  std::unordered_map<const Value *, std::string> names_;
  std::unordered_map<std::string, int> used_;
  int nextId_ = 0;
  int nextArg_ = 0;
};

std::string printModule(const Module &m, bool withLocs = false);
std::string printOp(const Operation &op);

} // namespace tt
