// The Tile IR checker (`TileProgram(module, name, check=True)`, TRITON_TILE_CHECK=1 at the
// runtime): reports accesses that Tile IR's memory model leaves unordered.
//
// Tile IR orders the memory ops of one tile block only through tokens: an op that takes a
// token is ordered after the op that made it (join_tokens waits for all of its operands), and
// program order alone orders nothing. The checker runs the program and tracks, at run time,
// exactly what that ordering is:
//  - each dynamic access (load/store through views or pointer tiles, atomics) is an event; the
//    token it returns stands for the set {itself} U (the set of the token it took), so a token
//    names every access that happened before it through a chain of tokens, across `if`
//    results, loop-carried tokens and iterations alike; make_token is the empty set;
//  - each lane an access touches (masked-off lanes and lanes outside a view touch nothing) is
//    recorded per element address, for the current program only;
//  - two accesses of one program to one address, at least one a write (stores and atomics
//    write), conflict unless the later one's token set contains the earlier one, or both are
//    strong (atomics, or loads/stores with a non-weak ordering), which do not race.
// The first conflict raises UnorderedAccessError (RuntimeError in Python):
//   "unordered accesses in kernel K, program (x, y, z): <op> at <file:line:col> (a write) and
//    <op> at <file:line:col> (a read) both access address 0x..., and no chain of tokens orders
//    them ..."
// Accesses of different programs (tile blocks) are never compared: ordering them is the
// program's atomics' job. Addresses are compared per element start (accesses of different
// element sizes that overlap partially are not detected). Cost: a hash-map operation per lane
// and a token set (a bitset over the program's events) per access: a debugging mode.
#pragma once

#include "exec/tile/tile_view.h"

namespace tt::exec {

// The calling thread's checker state, emptied for a new program (interpreter.cpp).
void *beginCheckedProgram();

// Token ops: make_token (the empty set) and join_tokens (the union); ops that only pass a token
// through (print) pass the set of `in` (or the empty one).
void emitCheckJoin(Compiler &c, const Operation &op, const std::vector<const Value *> &in,
                   const Value *out);

// Accesses; emitted before the access itself. `tokenIn` may be null; `strong`: an atomic or a
// non-weak ordering.
void emitCheckPointerAccess(Compiler &c, const Operation &op, const Value *ptr, const Value *mask,
                            const Value *tokenIn, const Value *tokenOut, int es, bool write,
                            bool strong);
void emitCheckViewAccess(Compiler &c, const Operation &op, const ViewAux *view,
                         const Value *tokenIn, const Value *tokenOut, bool write, bool strong);

} // namespace tt::exec
