// The verifier: structural rules every module obeys (operands defined before use in an
// enclosing scope, blocks ending in terminators, functions isolated from above) plus each
// op kind's own rules from the registry. Errors carry the op's source location.
#pragma once

#include <stdexcept>
#include <string>

#include "ir/operation.h"

namespace tt {

class IRError : public std::runtime_error {
public:
  IRError(const std::string &msg, Location loc)
      : std::runtime_error(locationString(loc) + ": " + msg), loc(std::move(loc)) {}
  Location loc;
};

void verifyModule(const Module &m); // throws IRError
void verifyOp(const Operation &op); // one op and everything nested in it

} // namespace tt
