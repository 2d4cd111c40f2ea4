// The registry of operation kinds. Every op the IR can hold is registered once with its
// name, its traits, its verifier and (optionally) a custom printer; the builder refuses
// unregistered names so a typo in the frontend fails at once, not in a later stage.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tt {

class Operation;
class Printer;

enum OpTrait : unsigned {
  kPure = 1u << 0,       // no memory effects: CSE and DCE may remove or merge it
  kReadOnly = 1u << 1,   // reads memory only: DCE may remove it, CSE may not merge it
  kTerminator = 1u << 2, // must end its block
  kSymbol = 1u << 3,     // a function: has sym_name, holds one region
};

struct OpInfo {
  std::string name;
  unsigned traits = 0;
  // Returns an empty string when the op is well formed, else the problem (no location).
  std::function<std::string(const Operation &)> verify;
  // Prints the op after `%results = ` (custom assembly); null means the generic form.
  std::function<void(const Operation &, Printer &)> print;

  bool has(OpTrait t) const { return (traits & t) != 0; }
};

void registerOp(OpInfo info);
const OpInfo *lookupOp(const std::string &name); // null when unknown
std::vector<std::string> registeredOps();        // every registered name, sorted

// Defined by the op-set libraries (ttir/, tile/): each registers its ops once.
void registerTTIROps();
void registerTileOps();

} // namespace tt
