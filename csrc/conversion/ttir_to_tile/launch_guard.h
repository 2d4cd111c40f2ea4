// launch-guard: the conditions of versioned loops, decided on the host before a launch.
//
// A loop whose tile-index accesses need run-time conditions is versioned (convert_control.cpp):
// `if (conds) { loop, tile-index form } else { loop, general form }`. On an H200 the presence
// of the second loop alone (a second dot pipeline in one kernel) cost the first one 25%
// whatever the second held: gathers, views made per access, clamped views
// (benchmarks/RESULTS.md, 2026-11-22 04:00). When every condition is a function of the
// kernel's integer arguments, the program ids and the induction variables of loops around the
// loop, the host can decide them for the whole grid instead. This pass collects such loops and
// builds the guard: a TTIR kernel with the same grid that the CPU executor runs before a GPU
// launch, which clears an i32 flag wherever a condition fails. The GPU path then launches the
// kernel compiled with each such loop's other version empty (`if (conds) { loop } else { initial
// values }`, still memory-safe if the host were wrong), or, when the flag is clear, the kernel
// with both versions.
// The same holds for a view access outside the tile-index form whose box may be empty (a
// masked dimension's extent `bound - c` not known positive): the kernel compiled with the
// guard accesses it unbranched (Converter::accessGuard), the other kernel keeps its branch.
// Its conditions are evaluated like a loop's, the access standing for the loop. Unlike a
// loop's, this form relies on the host: an empty box accessed unbranched is undefined in Tile
// IR (its view has extent 0; on sm_90 TMA fills such boxes and bounds-checked loads skip them).
//
// Rules. A condition's leaves may be: integer kernel arguments; the induction variable of an
// scf.for around the loop whose bounds are allowed; results of pure scalar integer ops
// (arith.*, tt.get_program_id, tt.get_num_programs) whose operands are allowed. The guard
// evaluates a loop's conditions for every iteration of the scf.for loops whose induction
// variables they use; an scf.if around the loop whose condition follows the same rules limits
// them to the programs and iterations that take its branch (a persistent loop made a grid of
// items: the programs past the last item, passes/grid_stride_loops.cpp); other ifs and whiles
// are ignored, as if taken: that can only clear the flag more often than needed, which costs
// speed, never correctness. Cost: one run per new (grid, argument values), cached after that; a run
// walks every iteration of those loops in every program (a persistent matmul's tile loop: one step
// per output tile). Known limits: values carried by loops (other than closed forms), loaded
// from memory or produced by while loops keep the loop versioned inside the kernel.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "conversion/ttir_to_tile/index_views.h"
#include "ir/operation.h"

namespace tt {

class LaunchGuard {
public:
  explicit LaunchGuard(const Block &top) : top_(top) {}

  // Whether the host can decide `conds` (checked before `loop`, a loop or an access) for the
  // whole grid.
  bool accepts(const Operation &loop, const std::vector<IndexCond> &conds) const;
  void add(const Operation &loop, const std::vector<IndexCond> &conds);
  bool empty() const { return loops_.empty(); }

  // The guard kernel `name`: the kernel's integer arguments that the conditions use (their
  // indices in the kernel's signature in `args`), then a pointer to the i32 flag.
  std::unique_ptr<Module> build(const std::string &name, std::vector<int> &args) const;

private:
  struct Guarded {
    const Operation *loop;
    std::vector<IndexCond> conds;
  };
  const Block &top_;
  std::vector<Guarded> loops_;
};

} // namespace tt
