// The TTIR pass pipeline. Each pass is a plain function over a module, in its own file; the
// pipeline is a list of their names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/operation.h"

namespace tt {

void inlineCalls(Module &m);  // inline.cpp: every tt.call, then drop private functions
void canonicalize(Module &m); // canonicalize.cpp: local folds and simplifications
void eliminateCommonSubexpressions(Module &m); // cse.cpp
void eliminateDeadCode(Module &m);             // dce.cpp
void scalarizeLoopPointers(Module &m);         // loop_pointers.cpp (Tile pipeline)
void expandBlockPointerLoops(Module &m);       // block_pointer_loops.cpp
void lowerBlockPointers(Module &m);            // lower_block_pointers.cpp (TTIR path)
void hoistLoopInvariants(Module &m);           // licm.cpp (TTIR path)
// assert_contracts.cpp (CPU targets): the contracts a GPU compile relies on, as tt.assert.
void assertContracts(Module &m);
// insert_memory_tokens.cpp (Tile IR): thread tokens so that accesses that may alias stay in
// program order.
void insertMemoryTokens(Module &m, const std::vector<std::vector<int>> &aliasClasses = {});
void fuseMultiplyAdd(Module &m); // fuse_fma.cpp (Tile IR): mulf feeding addf/subf -> fma

// grid_stride_loops.cpp (Tile pipeline): a persistent kernel's loop over work items made a grid
// of items; `grid` (null where the kernel is left as it is) is the host's function of the
// kernel's integer arguments `args` that gives the launch's extent (the file's header).
struct GridStride {
  std::unique_ptr<Module> grid;
  std::vector<int> args;
  bool linear = false; // axis 0's id and count feed only the loop's bounds
};
// nestedOnly: only a loop that holds another loop (TRITON_TILE_GRID_STRIDE=auto).
GridStride flattenGridStrideLoop(Module &m, const std::string &kernel,
                                 const std::vector<std::vector<int>> &aliasClasses,
                                 bool nestedOnly = false);

// What a pass may need beyond the module: the launch's facts (Tile IR passes).
struct PassContext {
  // Kernel arguments seen at one address at the launch (indices into the entry's arguments).
  std::vector<std::vector<int>> aliasClasses;
};

// Runs the named passes in order ("inline", "canonicalize", "cse", "dce",
// "scalarize-loop-pointers", "expand-block-pointer-loops", "lower-block-pointers",
// "assert-contracts", "licm", "insert-memory-tokens", "fuse-fma"), verifying the module after each;
// throws std::invalid_argument for an unknown name.
void runPasses(Module &m, const std::vector<std::string> &names, const PassContext &ctx = {});

// Helpers shared by passes.
bool isConstant(const Value *v);
bool constantInt(const Value *v, int64_t &out); // scalar or splat integer constant
std::vector<std::pair<Value *, Value *>> mapResults(Operation *from,
                                                    const std::vector<Value *> &to);

} // namespace tt
