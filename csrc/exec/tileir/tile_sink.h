// Sinking pure ops into the branch that uses them (tile_sink.cpp), done on the executor's own
// copy of a Tile IR module before preparation.
#pragma once

#include "ir/operation.h"

namespace tt::exec {

// Moves every pure, region-free op whose results are all used inside one region of one
// `cuda_tile.if` that follows it in its block to the start of that region (then again inside
// it), so work that only one branch needs (the pointer tiles and masks of the gather fallback
// next to a raised view, a view's setup next to its guard) runs only when that branch does.
// Ops whose results are unused stay; `extract` (which may raise) stays.
void sinkIntoBranches(Operation &entry);

} // namespace tt::exec
