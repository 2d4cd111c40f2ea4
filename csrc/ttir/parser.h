// Parses TTIR text (as the printer writes it, i.e. as stock Triton prints it) into a module.
#pragma once

#include <memory>
#include <string>

#include "ir/operation.h"

namespace tt {

// Throws IRError with the position of the first problem.
std::unique_ptr<Module> parseTTIR(const std::string &text, const std::string &file = "<text>");

} // namespace tt
