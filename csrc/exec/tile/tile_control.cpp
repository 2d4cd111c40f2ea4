// Tile IR control flow: for, loop, if, and yield/continue/break/return as instructions.
//
// Rules:
//  - a region body is a nested instruction list run with runTileList;
//  - terminators are instructions at the end of their list (or inside nested ifs): `yield`
//    copies its operands to the `if` results; `continue` copies them to the loop's iteration
//    arguments and `break` to the loop's results, as one parallel copy each; then they set
//    Frame::exit, which stops every list up to the loop that consumes it; `return` inside an
//    `if` ends the program the same way; the entry's own `return` is the end of its list;
//  - `for` computes its induction variable in 64 bits over [lb, ub) with the bounds' type,
//    compared signed unless `unsignedCmp`; a zero step is an error; a negative step (Tile IR
//    requires a positive one; Triton programs may have one) counts down while iv > ub, as the
//    TTIR executor does;
//  - `for` results share the iteration arguments' registers (tile_compiler.cpp);
//  - a `yield` of a reduce/scan region is read by the combine kernels (reduce.cpp), not run.
#include "exec/tile/tile_control.h"

#include "exec/kernels/copies.h"
#include "exec/tileir/tile_ops.h"

namespace tt::exec {

const Operation *exitTarget(const Operation &term) {
  const Operation *p = term.parentOp();
  if (term.is("cuda_tile.yield"))
    return p;
  if (term.is("cuda_tile.return")) {
    while (p && !p->is("cuda_tile.entry"))
      p = p->parentOp();
    return p;
  }
  while (p && !p->is("cuda_tile.for") && !p->is("cuda_tile.loop"))
    p = p->parentOp();
  return p;
}

namespace {

// Leaves the loop body with `kind` after an iteration's loop kernel; true: stop looping.
inline bool consumeExit(Frame &F) {
  if (F.exit == kExitContinue || F.exit == kNoExit) {
    F.exit = kNoExit;
    return false;
  }
  if (F.exit == kExitBreak)
    F.exit = kNoExit;
  return true; // break, or a return that keeps unwinding
}

// ---- for ----

struct ForAux : Aux {
  Ref lb, ub, step;
  DType ivType;
  bool isUnsigned = false;
  uint32_t ivOff;
  ParallelCopy init;
  InstList body;
};

void forK(const Inst &I, Frame &F) {
  const ForAux &a = *static_cast<const ForAux *>(I.aux);
  const int64_t lb = readIntSext(F.R + a.lb.off, a.ivType, a.isUnsigned);
  const int64_t ub = readIntSext(F.R + a.ub.off, a.ivType, a.isUnsigned);
  const int64_t step = readIntSext(F.R + a.step.off, a.ivType, a.isUnsigned);
  if (step == 0)
    throw ExecError("cuda_tile.for at " + I.site->loc + ": the loop step is zero");
  runCopies(a.init, F);
  char *iv = F.R + a.ivOff;
  if (a.isUnsigned) {
    const uint64_t ulb = static_cast<uint64_t>(lb), uub = static_cast<uint64_t>(ub),
                   ustep = static_cast<uint64_t>(step);
    for (uint64_t i = ulb; i < uub; i += ustep) {
      writeIntTrunc(iv, a.ivType, static_cast<int64_t>(i));
      runTileList(a.body, F);
      if (consumeExit(F) || i > UINT64_MAX - ustep)
        return;
    }
    return;
  }
  if (step > 0) {
    for (int64_t i = lb; i < ub; i += step) {
      writeIntTrunc(iv, a.ivType, i);
      runTileList(a.body, F);
      if (consumeExit(F) || i > INT64_MAX - step)
        return;
    }
  } else {
    for (int64_t i = lb; i > ub; i += step) {
      writeIntTrunc(iv, a.ivType, i);
      runTileList(a.body, F);
      if (consumeExit(F) || i < INT64_MIN - step)
        return;
    }
  }
}

void emitFor(Compiler &c, const Operation &op) {
  auto *a = c.makeAux<ForAux>();
  a->lb = c.ref(op.operand(0));
  a->ub = c.ref(op.operand(1));
  a->step = c.ref(op.operand(2));
  const Block &body = *op.region(0)->front();
  a->ivType = c.dtype(body.arg(0));
  a->isUnsigned = op.hasAttr("unsignedCmp");
  a->ivOff = c.out(body.arg(0));
  std::vector<Value *> inits(op.operands.begin() + 3, op.operands.end());
  a->init = makeCopies(c, inits, blockArgs(body, 1));
  c.compileBlock(body, a->body);
  c.emitLoopEntry(op);
  c.emit(forK, op).aux = a;
  c.emitLoopExit(op);
}

// ---- loop ----

struct LoopAux : Aux {
  ParallelCopy init;
  InstList body;
};

void loopK(const Inst &I, Frame &F) {
  const LoopAux &a = *static_cast<const LoopAux *>(I.aux);
  runCopies(a.init, F);
  for (;;) {
    runTileList(a.body, F); // a body's last `continue` may copy nothing and emit nothing
    if (consumeExit(F))
      return;
  }
}

void emitLoop(Compiler &c, const Operation &op) {
  auto *a = c.makeAux<LoopAux>();
  const Block &body = *op.region(0)->front();
  a->init = makeCopies(c, op.operands, blockArgs(body, 0));
  c.compileBlock(body, a->body);
  c.emit(loopK, op).aux = a;
}

// ---- if ----

struct IfAux : Aux {
  Ref cond;
  InstList thenList, elseList;
};

void ifK(const Inst &I, Frame &F) {
  const IfAux &a = *static_cast<const IfAux *>(I.aux);
  runTileList((*F.at<uint8_t>(a.cond.off) & 1) ? a.thenList : a.elseList, F);
}

void emitIf(Compiler &c, const Operation &op) {
  auto *a = c.makeAux<IfAux>();
  a->cond = c.ref(op.operand(0));
  for (int r = 0; r < 2; ++r) {
    if (static_cast<size_t>(r) >= op.numRegions() || op.region(r)->empty()) {
      if (op.numResults())
        c.fail(op, "an if with results needs both branches");
      continue;
    }
    c.compileBlock(*op.region(r)->front(), r == 0 ? a->thenList : a->elseList);
  }
  c.emit(ifK, op).aux = a;
}

// ---- terminators ----

struct ExitAux : Aux {
  ParallelCopy copies;
  int kind = kNoExit;
};

void exitK(const Inst &I, Frame &F) {
  const ExitAux &a = *static_cast<const ExitAux *>(I.aux);
  runCopies(a.copies, F);
  F.exit = a.kind;
}

void yieldK(const Inst &I, Frame &F) { runCopies(static_cast<const ExitAux *>(I.aux)->copies, F); }

bool emitTerminator(Compiler &c, const Operation &op) {
  const Operation *target = exitTarget(op);
  if (!target)
    c.fail(op, "has no enclosing op to hand its values to");
  auto *a = c.makeAux<ExitAux>();
  if (op.is("cuda_tile.yield")) {
    if (target->is("cuda_tile.reduce") || target->is("cuda_tile.scan"))
      return true; // read by the combine kernels
    if (!target->is("cuda_tile.if"))
      c.fail(op, "yield outside an if, reduce or scan");
    a->copies = makeCopies(c, op.operands, resultsOf(*target));
    if (!a->copies.empty()) // tokens (and coalesced values) copy nothing
      c.emit(yieldK, op).aux = a;
    return true;
  }
  if (op.is("cuda_tile.return")) {
    if (op.parentOp() == target)
      return true; // the end of the entry's list
    a->kind = kExitReturn;
  } else if (op.is("cuda_tile.continue")) {
    const Block &body = *target->region(0)->front();
    a->copies = makeCopies(c, op.operands, blockArgs(body, target->is("cuda_tile.for") ? 1 : 0));
    a->kind = kExitContinue;
    if (op.parentBlock() == &body) { // the end of the body: no need to stop anything
      if (!a->copies.empty())
        c.emit(yieldK, op).aux = a;
      return true;
    }
  } else { // break
    a->copies = makeCopies(c, op.operands, resultsOf(*target));
    a->kind = kExitBreak;
  }
  c.emit(exitK, op).aux = a;
  return true;
}

} // namespace

bool emitTileControl(Compiler &c, const Operation &op) {
  std::string n = tileOpName(op);
  if (n == "for")
    emitFor(c, op);
  else if (n == "loop")
    emitLoop(c, op);
  else if (n == "if")
    emitIf(c, op);
  else if (n == "yield" || n == "continue" || n == "break" || n == "return")
    return emitTerminator(c, op);
  else
    return false;
  return true;
}

} // namespace tt::exec
