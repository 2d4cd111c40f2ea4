// Emitters shared by the TTIR and Tile IR op sets. Each takes the operands and results
// explicitly (not by reading a particular op's layout), so an op of either set that has the
// same semantics reaches the same kernel; the op itself only names the instructions (errors
// show its name and source location). The TTIR emitters (elementwise.cpp, cast_ops.cpp, ...)
// and the Tile IR ones (tile_*.cpp) both call these.
//
// Kernel names are TTIR's op names ("arith.divsi", "math.exp", ...) plus "cuda_tile.X" for the
// functions TTIR has no op for; tile_ops.h maps a Tile IR (op, attributes) pair to one.
#pragma once

#include <string>
#include <vector>

#include "exec/compiler/compiler.h"
#include "exec/kernels/casts.h"

namespace tt::exec {

// ---- elementwise.cpp ----

// An operand of an op producing n elements: broadcast when it is a splat or a one-element value.
Ref elementOperand(Compiler &c, const Value *v, int64_t n);
// Binary, unary and ternary arithmetic and comparisons by kernel name; `predicate` for
// arith.cmpi/arith.cmpf (TTIR numbering), `imm` for tt.clampf (propagateNan). False when no
// kernel has that name (the op is not elementwise). `refs`: the operands' references when the
// caller prepared them (e.g. flushed copies), else the operands' own registers.
bool emitElementwiseAs(Compiler &c, const Operation &op, const std::string &kernel,
                       int64_t predicate = -1, int64_t imm = 0,
                       const std::vector<Ref> *refs = nullptr);
// res = cond ? a : b.
void emitSelectAs(Compiler &c, const Operation &op, const Value *cond, const Value *a,
                  const Value *b, const Value *res);
// res = ptr + off * sizeof(pointee) (full pointer tiles; offsets sign-extended).
void emitOffsetAs(Compiler &c, const Operation &op, const Value *ptr, const Value *off,
                  const Value *res);

// ---- cast_ops.cpp ----

// A numeric conversion named by its TTIR op (arith.extsi, arith.sitofp, arith.truncf, ...).
void emitCastAs(Compiler &c, const Operation &op, const std::string &kernel, Rounding r);

// ---- shape_ops.cpp ----

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape);
// out = in, as a copy (nothing when they share a register).
void emitCopyAs(Compiler &c, const Operation &op, const Value *in, const Value *out);
// res (row-major) from in read through `strides` (elements per res dimension; 0 broadcasts).
void emitStridedCopyAs(Compiler &c, const Operation &op, const Value *in, const Value *res,
                       const std::vector<int64_t> &strides);
// res = concatenation of a and b along `dim`.
void emitCatAs(Compiler &c, const Operation &op, const Value *a, const Value *b, const Value *res,
               int dim);

// ---- memory.cpp (pointer tiles: gathers, scatters, atomics) ----

// Orderings: TTIR's `sem` numbering (1 relaxed, 2 acquire, 3 release, 4 acq_rel); 0 = a plain
// (weak) access. mask/other/val may be null.
void emitPointerLoad(Compiler &c, const Operation &op, const Value *ptr, const Value *mask,
                     const Value *other, const Value *res, int sem = 0);
void emitPointerStore(Compiler &c, const Operation &op, const Value *ptr, const Value *val,
                      const Value *mask, int sem = 0);
// rmwOp: TTIR's numbering (and 1 .. xchg 10).
void emitAtomicRmwAs(Compiler &c, const Operation &op, const Value *ptr, const Value *val,
                     const Value *mask, const Value *res, int rmwOp, int sem);
// Masked-off lanes (mask may be null) leave memory alone and return `cmp`.
void emitAtomicCasAs(Compiler &c, const Operation &op, const Value *ptr, const Value *cmp,
                     const Value *val, const Value *mask, const Value *res, int sem);
// A memory fence of `sem` (acquire after a load, release before a store).
void emitFence(Compiler &c, const Operation &op, int sem);

// ---- compact_ptr.cpp (compact pointer tiles, affine.h) ----

// A plain load/store through a compact pointer tile; false (nothing emitted) when ptr is not
// compact. mask/other may be null.
bool emitCompactLoad(Compiler &c, const Operation &op, const Value *ptr, const Value *mask,
                     const Value *other, const Value *res);
bool emitCompactStore(Compiler &c, const Operation &op, const Value *ptr, const Value *val,
                      const Value *mask);

// ---- dot.cpp ----

enum DotPrecision { kDotTF32 = 0, kDotTF32x3 = 1, kDotIEEE = 2 };
// d = a x b + acc (2-D or batched 3-D); i8 operands take their signedness.
void emitMatmul(Compiler &c, const Operation &op, const Value *a, const Value *b, const Value *acc,
                const Value *d, int precision, bool aSigned = true, bool bSigned = true);

// ---- reduce.cpp ----

struct CombineSpec {
  std::vector<const Value *> inputs, results;
  int axis = 0;
  bool scan = false, reverse = false;
  const Block *body = nullptr;
  // Region arguments of operand i: the running value (accumulator) and the next element.
  std::vector<size_t> accArg, elemArg;
  // Kernel name of the region's single op when it is one (for the fast loops), else "".
  std::string singleKernel;
  // Initial accumulators (Tile IR identities), one per operand; empty: start from the first
  // element (TTIR).
  std::vector<Attribute> identities;
};
void emitCombine(Compiler &c, const Operation &op, const CombineSpec &spec);
// The single op of a two-argument combine region whose operands are its arguments, or null.
const Operation *singleCombineOp(const Block &b);

// ---- misc_ops.cpp ----

KernelFn programIdKernel();   // out (i32) = pid[imm]
KernelFn numProgramsKernel(); // out (i32) = grid[imm]
void emitAssertAs(Compiler &c, const Operation &op, const Value *cond, const std::string &message);
// Stops the kernel (DeviceAssertError naming op's line) unless the scalar integer or pointer
// `v` is a multiple of the largest power of two dividing `div`: Tile IR's `assume div_by`
// and TTIR's tt.divisibility (tl.multiple_of on a scalar), which a GPU compile relies on.
void emitDivisibilityCheck(Compiler &c, const Operation &op, const Value *v, int64_t div);

} // namespace tt::exec
