// The race checker's model of Tile IR's data dependences (tile_data_order.cpp), done on the
// executor's own copy of a module before preparation, with the checker only.
#pragma once

#include "ir/operation.h"

namespace tt::exec {

// Tile IR orders an op after the ops whose values it consumes, token or not: a store of a sum of
// loaded tiles runs after those loads (insert-memory-tokens relies on it: covered_reads.h). The
// checker (tile_check.h) follows tokens only, so this makes those orderings tokens: every value
// computed from a load (or an atomic's old value) gets a shadow token that stands for the
// accesses it was computed from, carried as the value is (pure ops join their operands'
// shadows; `if` results, loop-carried values and loop results get token results, iteration
// values and block arguments of their own), and each write's token joins the shadows of its
// operands. A condition's or a loop bound's shadow joins what depends on it: the values an `if`
// yields or a loop carries, and the writes inside. Reads keep their tokens: a load's address
// computed from a load does not order the second load after anything but that load's value.
void orderByData(Operation &entry);

} // namespace tt::exec
