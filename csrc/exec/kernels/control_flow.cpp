// Structured control flow (scf.for, scf.if, scf.while) and register copies.
//
// Rules:
//  - a region body is a nested instruction list run by its op's kernel;
//  - loop-carried values are copied between registers at the end of each iteration as one
//    parallel copy (through temporaries when a source overlaps another copy's destination,
//    e.g. `scf.yield %b, %a`);
//  - scf.for computes its induction variable in 64 bits and writes it truncated to its type;
//    a zero step is an error (it would never end), a negative step counts down while iv > ub;
//  - scf.while's results share the registers of its "after" block arguments; scf.for's those
//    of its iteration arguments (copies are emitted when they do not).
#include <cstring>

#include "exec/kernels/copies.h"

namespace tt::exec {
namespace {

// ---- fills and copies ----

template <class T> void fillK(const Inst &I, Frame &F) {
  T v = loadAs<T>(F.R + I.in[0].off);
  T *__restrict o = F.at<T>(I.out);
  for (int64_t i = 0, n = I.n; i < n; ++i)
    o[i] = v;
}

template <class T> void copyK(const Inst &I, Frame &F) {
  if (I.in[0].bcast)
    return fillK<T>(I, F);
  if (I.in[0].off != I.out)
    copyBytes(F.R + I.out, F.R + I.in[0].off, static_cast<size_t>(I.n) * sizeof(T));
}

} // namespace

// Builds the copies srcs[i] -> dsts[i]; values without storage (tokens) are skipped.
ParallelCopy makeCopies(Compiler &c, const std::vector<Value *> &srcs,
                        const std::vector<const Value *> &dsts) {
  ParallelCopy pc;
  for (size_t i = 0; i < srcs.size(); ++i) {
    if (!c.hasStorage(dsts[i]))
      continue;
    Ref s = c.ref(srcs[i], true);
    uint32_t d = c.out(dsts[i]);
    if (!s.bcast && s.off == d)
      continue;
    CopyOp op{s, d, c.numel(dsts[i]), dtypeSize(c.dtype(dsts[i]))};
    op.fwd = c.forwarded(dsts[i]);
    if (const CompactPtr *cp = c.compact(dsts[i])) {
      if (!c.compact(srcs[i]))
        throw ExecError("internal error in the CPU executor: compact copy of a full tile");
      op.rows = cp->rows;
      op.rowLen = cp->rowLen;
    }
    pc.copies.push_back(op);
  }
  auto bytes = [](const CopyOp &x, bool src) {
    return static_cast<uint64_t>(src && x.src.bcast ? 1 : x.n) * x.es;
  };
  bool overlap = false;
  for (size_t i = 0; i < pc.copies.size() && !overlap; ++i)
    for (size_t j = 0; j < pc.copies.size() && !overlap; ++j) {
      if (i == j)
        continue;
      uint64_t s0 = pc.copies[i].src.off, s1 = s0 + bytes(pc.copies[i], true);
      uint64_t d0 = pc.copies[j].dst, d1 = d0 + bytes(pc.copies[j], false);
      overlap = s0 < d1 && d0 < s1;
    }
  if (overlap)
    for (const CopyOp &x : pc.copies)
      pc.temps.push_back(c.scratch(bytes(x, false)));
  return pc;
}

namespace {

std::vector<Value *> asOperands(const std::vector<const Value *> &v) {
  std::vector<Value *> r;
  for (const Value *x : v)
    r.push_back(const_cast<Value *>(x));
  return r;
}

// ---- scf.for ----

struct ForAux : Aux {
  Ref lb, ub, step;
  DType ivType;
  uint32_t ivOff;
  ParallelCopy init, yield, toResults;
  InstList body;
};

void forK(const Inst &I, Frame &F) {
  const ForAux &a = *static_cast<const ForAux *>(I.aux);
  int64_t lb = readIntSext(F.R + a.lb.off, a.ivType);
  int64_t ub = readIntSext(F.R + a.ub.off, a.ivType);
  int64_t step = readIntSext(F.R + a.step.off, a.ivType);
  if (step == 0)
    throw ExecError("scf.for at " + I.site->loc + ": the loop step is zero");
  runCopies(a.init, F);
  char *iv = F.R + a.ivOff;
  if (step > 0) {
    for (int64_t i = lb; i < ub; i += step) {
      writeIntTrunc(iv, a.ivType, i);
      runList(a.body, F);
      runCopies(a.yield, F);
      if (i > INT64_MAX - step)
        break;
    }
  } else {
    for (int64_t i = lb; i > ub; i += step) {
      writeIntTrunc(iv, a.ivType, i);
      runList(a.body, F);
      runCopies(a.yield, F);
      if (i < INT64_MIN - step)
        break;
    }
  }
  runCopies(a.toResults, F);
}

void emitFor(Compiler &c, const Operation &op) {
  auto *a = c.makeAux<ForAux>();
  a->lb = c.ref(op.operand(0));
  a->ub = c.ref(op.operand(1));
  a->step = c.ref(op.operand(2));
  const Block &body = *op.region(0)->front();
  a->ivType = c.dtype(body.arg(0));
  a->ivOff = c.out(body.arg(0));
  std::vector<Value *> inits(op.operands.begin() + 3, op.operands.end());
  auto iters = blockArgs(body, 1);
  a->init = makeCopies(c, inits, iters);
  c.compileBlock(body, a->body);
  const Operation *y = body.terminator();
  if (!y || !y->is("scf.yield"))
    c.fail(op, "the body must end in scf.yield");
  a->yield = makeCopies(c, y->operands, iters);
  a->toResults = makeCopies(c, asOperands(iters), resultsOf(op));
  c.emitLoopEntry(op);
  c.emit(forK, op).aux = a;
  c.emitLoopExit(op);
}

// ---- scf.if ----

struct IfAux : Aux {
  Ref cond;
  InstList thenList, elseList;
  ParallelCopy thenYield, elseYield;
};

void ifK(const Inst &I, Frame &F) {
  const IfAux &a = *static_cast<const IfAux *>(I.aux);
  if (*F.at<uint8_t>(a.cond.off) & 1) {
    runList(a.thenList, F);
    runCopies(a.thenYield, F);
  } else {
    runList(a.elseList, F);
    runCopies(a.elseYield, F);
  }
}

void emitIf(Compiler &c, const Operation &op) {
  auto *a = c.makeAux<IfAux>();
  a->cond = c.ref(op.operand(0));
  auto res = resultsOf(op);
  for (int r = 0; r < 2; ++r) {
    if (static_cast<size_t>(r) >= op.numRegions() || op.region(r)->empty()) {
      if (!res.empty())
        c.fail(op, "an scf.if with results needs both branches");
      continue;
    }
    const Block &b = *op.region(r)->front();
    InstList &list = r == 0 ? a->thenList : a->elseList;
    c.compileBlock(b, list);
    const Operation *y = b.terminator();
    std::vector<Value *> vals = y ? y->operands : std::vector<Value *>{};
    if (vals.size() != res.size())
      c.fail(op, "a branch yields the wrong number of values");
    (r == 0 ? a->thenYield : a->elseYield) = makeCopies(c, vals, res);
  }
  c.emit(ifK, op).aux = a;
}

// ---- scf.while ----

struct WhileAux : Aux {
  ParallelCopy init, toAfter, yield, toResults;
  InstList before, after;
  Ref cond;
};

void whileK(const Inst &I, Frame &F) {
  const WhileAux &a = *static_cast<const WhileAux *>(I.aux);
  runCopies(a.init, F);
  for (;;) {
    runList(a.before, F);
    bool go = *F.at<uint8_t>(a.cond.off) & 1;
    runCopies(a.toAfter, F);
    if (!go)
      break;
    runList(a.after, F);
    runCopies(a.yield, F);
  }
  runCopies(a.toResults, F);
}

void emitWhile(Compiler &c, const Operation &op) {
  auto *a = c.makeAux<WhileAux>();
  const Block &before = *op.region(0)->front();
  const Block &after = *op.region(1)->front();
  auto bargs = blockArgs(before, 0), aargs = blockArgs(after, 0);
  a->init = makeCopies(c, op.operands, bargs);
  c.compileBlock(before, a->before);
  const Operation *cond = before.terminator();
  if (!cond || !cond->is("scf.condition"))
    c.fail(op, "the before region must end in scf.condition");
  a->cond = c.ref(cond->operand(0));
  std::vector<Value *> fwd(cond->operands.begin() + 1, cond->operands.end());
  a->toAfter = makeCopies(c, fwd, aargs);
  c.compileBlock(after, a->after);
  const Operation *y = after.terminator();
  if (!y || !y->is("scf.yield"))
    c.fail(op, "the after region must end in scf.yield");
  a->yield = makeCopies(c, y->operands, bargs);
  a->toResults = makeCopies(c, asOperands(aargs), resultsOf(op));
  c.emit(whileK, op).aux = a;
}

} // namespace

KernelFn fillKernel(int es) {
  switch (es) {
  case 1:
    return fillK<uint8_t>;
  case 2:
    return fillK<uint16_t>;
  case 4:
    return fillK<uint32_t>;
  default:
    return fillK<uint64_t>;
  }
}

KernelFn copyKernel(int es) {
  switch (es) {
  case 1:
    return copyK<uint8_t>;
  case 2:
    return copyK<uint16_t>;
  case 4:
    return copyK<uint32_t>;
  default:
    return copyK<uint64_t>;
  }
}

bool emitControlFlow(Compiler &c, const Operation &op) {
  if (op.is("scf.for"))
    emitFor(c, op);
  else if (op.is("scf.if"))
    emitIf(c, op);
  else if (op.is("scf.while"))
    emitWhile(c, op);
  else
    return false;
  return true;
}

} // namespace tt::exec
