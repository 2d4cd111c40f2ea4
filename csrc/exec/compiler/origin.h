// Which kernel argument each pointer (and Tile IR view) derives from, so that an access is
// checked against the extent of that argument's array, not any argument's (issue 12: with
// `x = buf[:1000]` and `y = buf[1000:]` passed together, reading past x's end must not pass
// because it lands in y).
#pragma once

#include <unordered_map>

#include "ir/operation.h"

namespace tt::exec {

// Value -> index of the entry argument it derives from, for every pointer-carrying value
// derived from exactly one argument through pointer arithmetic, splats, broadcasts, reshapes,
// selects, views and loop-carried values (TTIR scf.for/while/if, Tile IR for/loop/if and their
// terminators). Pointers loaded from memory or made from integers, and those that may come from
// two arguments, are absent: their accesses keep the checks they had.
std::unordered_map<const Value *, int> pointerOrigins(const Operation &func);

} // namespace tt::exec
