// Tile IR structured control flow (tile_control.cpp): for, loop, if and their terminators.
#pragma once

#include "ir/operation.h"

namespace tt::exec {

// The op a terminator hands its operands to: `yield` -> its parent (if, reduce, scan);
// `continue`/`break` -> the innermost enclosing for/loop (also from inside nested ifs);
// `return` -> the entry. Null when there is none.
const Operation *exitTarget(const Operation &term);

} // namespace tt::exec
