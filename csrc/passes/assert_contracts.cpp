// assert-contracts (TTIR, CPU targets): the contracts a GPU compile relies on unchecked become
// tt.assert, so that the CPU executors stop where a program breaks one (a DeviceAssertError
// naming the source line) instead of computing what the GPU would not.
//
// Rules:
//   - tt.make_tensor_descriptor: shape_d >= 0 for each shape that is not a constant >= 0,
//     asserted just before the descriptor is made (a TMA map's shape is never negative; the
//     tile-index planner proves views' conditions from it: index_bounds.h);
//   - llvm.intr.assume (tl.assume): its condition, asserted where the assume is; the assume
//     stays (the planner takes its facts).
// Not in GPU kernels: with the descriptor asserts in a grouped GEMM's kernel, tileiras 13.4
// waited for every HGMMA of its K loop (454.8 against 560.1 TFLOP/s on an H200). Known limits:
// divisibility (tl.multiple_of, specializations) is checked by the executors where they read
// the value (emitDivisibilityCheck); an in-kernel descriptor's 16-byte rules by the Tile
// executor through the conversion's `assume div_by` (the TTIR path does not check them), a
// host descriptor's by its helpers on the host.
#include <string>
#include <vector>

#include "ir/builder.h"
#include "passes/passes.h"
#include "ttir/enums.h"

namespace tt {
namespace {

void emitAssert(Builder &b, Value *ok, const std::string &message) {
  b.create("tt.assert", {ok}, {}, {{"message", Attribute::string(message)}});
}

void assertShapesNonNegative(Builder &b, Operation *md) {
  size_t rank = (md->numOperands() - 1) / 2;
  int64_t c;
  for (size_t d = 0; d < rank; ++d) {
    Value *s = md->operand(1 + d);
    if (constantInt(s, c) && c >= 0)
      continue;
    Value *ok =
        b.create("arith.cmpi", {s, b.constInt(0, s->type)}, {Type::integer(1)},
                 {{"predicate", Attribute::integer(ttir_enum::value(ttir_enum::kCmpi, "sge"),
                                                   Type::integer(64))}})
            ->result(0);
    emitAssert(b, ok,
               "tl.make_tensor_descriptor: shape[" + std::to_string(d) +
                   "] is negative (a descriptor's shape is never negative, as a TMA map's)");
  }
}

} // namespace

void assertContracts(Module &m) {
  for (Operation *func : m.funcs()) {
    std::vector<Operation *> ops;
    func->walk([&](Operation *op) {
      if (op->is("tt.make_tensor_descriptor") || op->is("llvm.intr.assume"))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      Builder b(op->parentBlock());
      b.setInsertionPointBefore(op);
      b.setLoc(op->loc());
      if (op->is("tt.make_tensor_descriptor"))
        assertShapesNonNegative(b, op);
      else
        emitAssert(b, op->operand(0),
                   "tl.assume's condition does not hold (a GPU compile relies on it)");
    }
  }
}

} // namespace tt
