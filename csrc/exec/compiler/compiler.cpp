// Preparation: storage classes, liveness-based register assignment, emission dispatch.
// See compiler.h for the steps and program.h for the execution model.
#include "exec/compiler/compiler.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_set>

#include "exec/kernels/casts.h"
#include "exec/kernels/shared_emit.h"
#include "exec/tileir/tile_ops.h"
#include "ir/printer.h"

namespace tt::exec {

const char *dtypeName(DType d) {
  static const char *names[] = {"i1",   "i8",  "i16", "i32",      "i64",    "f16",
                                "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2", "ptr"};
  return names[static_cast<int>(d)];
}

DType dtypeOf(Type t) {
  if (t.isPtr())
    return DType::Ptr;
  if (t.isInt()) {
    switch (t.intWidth()) {
    case 1:
      return DType::I1;
    case 8:
      return DType::I8;
    case 16:
      return DType::I16;
    case 32:
      return DType::I32;
    case 64:
      return DType::I64;
    }
  }
  if (t.isFloat()) {
    switch (t.floatKind()) {
    case FloatKind::F16:
      return DType::F16;
    case FloatKind::BF16:
      return DType::BF16;
    case FloatKind::F32:
      return DType::F32;
    case FloatKind::F64:
      return DType::F64;
    case FloatKind::TF32: // Tile IR: f32 storage holding values already rounded to tf32
      return DType::F32;
    case FloatKind::F8E4M3FN:
      return DType::F8E4M3;
    case FloatKind::F8E5M2:
      return DType::F8E5M2;
    default:
      break;
    }
  }
  throw std::invalid_argument("the CPU executor cannot hold values of type " + t.str());
}

namespace {

constexpr size_t kAlign = 64;
size_t alignUp(size_t n) { return (n + kAlign - 1) & ~(kAlign - 1); }

// First-fit allocator over the live part of the arena.
class FreeList {
public:
  size_t alloc(size_t bytes) {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second >= bytes) {
        size_t off = it->first;
        size_t rest = it->second - bytes;
        free_.erase(it);
        if (rest)
          free_[off + bytes] = rest;
        return off;
      }
    }
    // Grow the top; a free block touching the top is extended.
    if (!free_.empty()) {
      auto last = std::prev(free_.end());
      if (last->first + last->second == top_) {
        size_t off = last->first;
        free_.erase(last);
        top_ = off + bytes;
        return off;
      }
    }
    size_t off = top_;
    top_ += bytes;
    return off;
  }
  void release(size_t off, size_t bytes) {
    auto it = free_.emplace(off, bytes).first;
    auto next = std::next(it);
    if (next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }
  size_t top() const { return top_; }

private:
  std::map<size_t, size_t> free_;
  size_t top_ = 0;
};

} // namespace

bool isLoopOp(const Operation &op) {
  return op.is("scf.for") || op.is("scf.while") || op.is("cuda_tile.for") ||
         op.is("cuda_tile.loop");
}

void encodeConstant(char *dst, DType dt, bool isFloat, double f, int64_t i) {
  switch (dt) {
  case DType::F16:
    storeAs<uint16_t>(
        dst, static_cast<uint16_t>(encodeFloat(isFloat ? f : double(i), kF16, Rounding::RTNE)));
    break;
  case DType::BF16:
    storeAs<uint16_t>(
        dst, static_cast<uint16_t>(encodeFloat(isFloat ? f : double(i), kBF16, Rounding::RTNE)));
    break;
  case DType::F32:
    storeAs<float>(dst, static_cast<float>(isFloat ? f : double(i)));
    break;
  case DType::F64:
    storeAs<double>(dst, isFloat ? f : double(i));
    break;
  case DType::F8E4M3:
    storeAs<uint8_t>(dst, f64ToFp8e4m3(isFloat ? f : double(i), Rounding::RTNE));
    break;
  case DType::F8E5M2:
    storeAs<uint8_t>(dst, f64ToFp8e5m2(isFloat ? f : double(i), Rounding::RTNE));
    break;
  default:
    writeIntTrunc(dst, dt, isFloat ? static_cast<int64_t>(f) : i);
    break;
  }
}

namespace {

std::atomic<uint64_t> nextProgramUid{1};

} // namespace

const Compiler::ValueInfo &Compiler::info(const Value *v) const {
  auto it = infos_.find(v);
  if (it == infos_.end() || !it->second.assigned)
    throw ExecError(
        "internal error in the CPU executor: a value of type " + v->type.str() +
        " has no register" +
        (v->def ? " (defined by " + v->def->name() + " at " + locationString(v->def->loc()) + ")"
                : std::string(" (a block argument)")));
  return it->second;
}

const Value *Compiler::rootOf(const Value *v) const {
  auto it = root_.find(v);
  while (it != root_.end() && it->second != v) {
    v = it->second;
    it = root_.find(v);
  }
  return v;
}

bool Compiler::constInt(const Value *v, int64_t &out) const {
  for (const Value *cur = v;;) {
    const Operation *d = cur->def;
    if (!d)
      return false;
    if (d->is("arith.constant") || d->is("cuda_tile.constant")) {
      Attribute a = d->attr("value");
      if (a.kind() == Attribute::Kind::Int || a.kind() == Attribute::Kind::Bool) {
        out = a.getInt();
        return true;
      }
      if (a.kind() == Attribute::Kind::Dense && !a.denseIsFloat()) {
        out = a.getInt();
        return true;
      }
      return false;
    }
    if (d->is("tt.splat") || d->is("tt.broadcast") || d->is("tt.expand_dims") ||
        d->is("tt.reshape") || d->is("cuda_tile.reshape") || d->is("cuda_tile.broadcast") ||
        d->is("cuda_tile.assume")) {
      cur = d->operand(0);
      continue;
    }
    return false;
  }
}

bool Compiler::constantOp(const Operation &op) const {
  return op.is("arith.constant") || op.is("tt.make_range") || op.is("cuda_tile.constant") ||
         op.is("cuda_tile.iota");
}

// Register shape of a value: tokens have no storage (an 8-byte token-set id in the checker),
// a tensor_view is [base, shape..., strides...] in int64 words.
void Compiler::setInfoFor(const Value *v) {
  ValueInfo &vi = infos_[v];
  Type t = v->type;
  if (t.isToken()) {
    vi.dt = DType::I64;
    vi.numel = check_ ? 1 : 0;
    vi.assigned = !check_; // no register at all
    return;
  }
  if (t.isView()) {
    Type tv = t.isPartitionView() ? t.tensorViewOf() : t;
    vi.dt = DType::I64;
    vi.numel = 1 + 2 * static_cast<int64_t>(tv.viewShape().size());
    return;
  }
  vi.dt = dtypeOf(t.element());
  vi.numel = stripLen_ && t.isTensor() ? stripLen_ : t.numel();
}

// ---- step 1: storage classes and constants ----

void Compiler::classify(const Operation &func) {
  const Block &entry = *func.region(0)->front();
  auto setInfo = [&](const Value *v) -> ValueInfo & {
    setInfoFor(v);
    return infos_[v];
  };
  // Arguments live in the constant prefix.
  for (size_t i = 0; i < entry.numArgs(); ++i) {
    const Value *a = entry.arg(i);
    if (!a->type.isScalar())
      throw ExecError("kernel " + pd_.kernelName + ": argument " + std::to_string(i) +
                      " has type " + a->type.str() + "; kernel arguments must be scalars");
    ValueInfo &vi = setInfo(a);
    vi.off = static_cast<uint32_t>(constBytes_);
    vi.assigned = true;
    constBytes_ += alignUp(dtypeSize(vi.dt));
    pd_.args.push_back({vi.off, vi.dt, a->type.isPtr()});
  }

  std::function<void(const Block &, bool)> walkBlock = [&](const Block &b, bool inCombine) {
    for (const auto &opPtr : b.ops()) {
      const Operation &op = *opPtr;
      bool combine = inCombine || isCombineOp(op);
      for (size_t r = 0; r < op.numRegions(); ++r)
        for (const auto &blk : op.region(r)->blocks)
          if (!combine)
            for (size_t i = 0; i < blk->numArgs(); ++i)
              setInfo(blk->arg(i));
      if (constantOp(op)) {
        const Value *v = op.result(0);
        ValueInfo &vi = setInfo(v);
        if (affine_.lazy(v))
          vi.numel = 1; // lane 0 only
        bool iota = op.is("tt.make_range") || op.is("cuda_tile.iota");
        ConstVal cv{v, false, 0, 0, iota};
        if (cv.iota && stripLen_) {
          // A runtime iota (it depends on the strip): a live register, not a constant.
          for (size_t r = 0; r < op.numResults(); ++r)
            setInfo(op.result(r));
          continue;
        }
        if (cv.iota) {
          cv.i = op.intAttr("start");
        } else {
          Attribute a = op.attr("value");
          if (a.kind() == Attribute::Kind::Float ||
              (a.kind() == Attribute::Kind::Dense && a.denseIsFloat())) {
            cv.isFloat = true;
            cv.f = a.getFloat();
          } else if (a.kind() == Attribute::Kind::Int || a.kind() == Attribute::Kind::Bool ||
                     a.kind() == Attribute::Kind::Dense) {
            cv.i = a.getInt();
          } else {
            fail(op, "unsupported constant " + a.str());
          }
          vi.bcast = v->type.isTensor(); // a splat: one element stands for all
        }
        size_t elems = (vi.bcast ? 1 : vi.numel);
        vi.off = static_cast<uint32_t>(constBytes_);
        vi.assigned = true;
        constBytes_ += alignUp(elems * dtypeSize(vi.dt));
        consts_.push_back(cv);
      } else if (!inCombine) {
        for (size_t i = 0; i < op.numResults(); ++i)
          setInfo(op.result(i));
        if (tileIR())
          classifyTileOp(op);
        else
          classifyTTIROp(op);
      }
      for (size_t r = 0; r < op.numRegions(); ++r)
        for (const auto &blk : op.region(r)->blocks)
          walkBlock(*blk, combine);
    }
  };
  walkBlock(entry, false);
  // Compact pointer tiles hold a row address and a lane limit per row (affine.h).
  for (auto &kv : affine_.compact) {
    if (stripLen_) { // one row of one strip
      kv.second.rowLen = stripLen_;
      kv.second.rows = 1;
    }
    ValueInfo &vi = infos_[kv.first];
    vi.dt = DType::Ptr;
    vi.numel = 2 * kv.second.rows + kv.second.rows * kv.second.rowLen; // compact_ptr.cpp
  }
  // Lazy integer tiles hold lane 0; interval masks [lo, hi) then L bytes (compact_ptr.cpp).
  for (const Value *v : affine_.lazyInt)
    infos_[v].numel = 1;
  // Folded broadcasts hold their source; box masks R row bytes then L lane bytes.
  for (const auto &kv : affine_.folded)
    infos_[kv.first].numel = infos_[kv.first->def->operand(0)].numel;
  for (const Value *v : affine_.boxMask) {
    ValueInfo &vi = infos_[v];
    vi.dt = DType::I1;
    vi.numel = v->type.shape()[0] + v->type.shape()[1];
  }
  for (const Value *v : affine_.intervalMask) {
    ValueInfo &vi = infos_[v];
    vi.dt = DType::I1;
    vi.numel = 16 + rowLen(v);
  }
  // Notes: which pointer tiles are compact, which are not and why not.
  std::function<void(const Block &)> note = [&](const Block &b) {
    for (const auto &op : b.ops()) {
      for (size_t i = 0; i < op->numResults(); ++i) {
        const Value *v = op->result(i);
        // Tile IR splats (reshape, broadcast) and control flow results are never compact.
        if (!v->type.isTensor() || !v->type.element().isPtr() || op->is("tt.splat") ||
            (tileIR() && !op->is("cuda_tile.offset")) || affine_.foldOf(v))
          continue;
        const CompactPtr *cp = affine_.compactOf(v);
        std::string what = cp ? "compact (" + std::to_string(cp->rows) + " rows, stride " +
                                    std::to_string(cp->strideBytes) + " B)"
                              : (affine_.ptrStride.count(v) ? "full (a use needs every lane)"
                                                            : "full (stride not proven)");
        pd_.notes += op->name() + " at " + locationString(op->loc()) + ": " + what + "\n";
      }
      if (op->numResults() == 1 && (affine_.lazy(op->result(0)) || affine_.interval(op->result(0))))
        pd_.notes += op->name() + " at " + locationString(op->loc()) + ": " +
                     (affine_.lazy(op->result(0)) ? "lane 0 only" : "interval mask") + "\n";
      if (op->numResults() == 1 && (affine_.foldOf(op->result(0)) || affine_.box(op->result(0))))
        pd_.notes += op->name() + " at " + locationString(op->loc()) + ": " +
                     (affine_.box(op->result(0))           ? "box mask"
                      : affine_.foldOf(op->result(0)) == 1 ? "folded (rows)"
                                                           : "folded (lanes)") +
                     "\n";
      if (!isCombineOp(*op))
        for (size_t r = 0; r < op->numRegions(); ++r)
          for (const auto &blk : op->region(r)->blocks)
            note(*blk);
    }
  };
  note(entry);
}

// Values that share another value's register (views of it, splats of a scalar, loop results).
void Compiler::classifyTTIROp(const Operation &op) {
  const Value *res = op.numResults() ? op.result(0) : nullptr;
  if (op.is("tt.splat")) {
    setRoot(res, op.operand(0));
    infos_[res].bcast = true;
  } else if (op.is("tt.broadcast") && infos_[op.operand(0)].bcast) {
    if (affine_.foldOf(res))
      fail(op, "internal error: a folded broadcast of a splat");
    setRoot(res, op.operand(0));
    infos_[res].bcast = true;
  } else if (op.is("tt.broadcast") && affine_.foldOf(res)) {
    setRoot(res, op.operand(0)); // never written: its users read the source (affine.h)
  } else if (op.is("tt.reshape") || op.is("tt.expand_dims") || op.is("tt.bitcast") ||
             op.is("arith.bitcast") || op.is("tt.int_to_ptr") || op.is("tt.ptr_to_int")) {
    setRoot(res, op.operand(0));
    infos_[res].bcast = infos_[op.operand(0)].bcast;
  } else if (op.is("scf.for")) {
    const Block &body = *op.region(0)->front();
    for (size_t i = 0; i < op.numResults(); ++i)
      setRoot(op.result(i), body.arg(i + 1));
  } else if (op.is("scf.while")) {
    const Block &after = *op.region(1)->front();
    for (size_t i = 0; i < op.numResults(); ++i)
      setRoot(op.result(i), after.arg(i));
  }
}

// ---- step 2: liveness and register assignment ----

// A loop-carried value computed once per iteration and yielded back (`acc = dot(a, b, acc)`,
// `ptrs += step`, `acc += x`) shares its iteration argument's register when the argument is
// dead by then, so the yield copies nothing. Only ops that may write their result over an
// operand qualify when the argument is one of their operands: a matmul's accumulator, a pointer
// offset's base, and any operand of an elementwise op (its kernels read lane i before writing
// lane i, and nothing else).
void Compiler::coalesceLoopCarried(const std::vector<const Operation *> &order,
                                   const std::unordered_map<const Operation *, int64_t> &pos) {
  std::unordered_map<const Value *, std::vector<const Operation *>> uses;
  for (const Operation *op : order)
    for (const Value *v : op->operands)
      uses[v].push_back(op);
  std::unordered_map<const Value *, int> aliases; // values sharing each root, besides itself
  for (auto &kv : root_)
    if (kv.first != kv.second)
      ++aliases[rootOf(kv.first)];
  for (const Operation *loop : order) {
    if (!loop->is("scf.for") && !loop->is("cuda_tile.for"))
      continue;
    const Block &body = *loop->region(0)->front();
    const Operation *y = body.terminator();
    if (!y)
      continue;
    for (size_t i = 0; i < y->numOperands(); ++i) {
      const Value *a = body.arg(i + 1), *v = y->operand(i);
      const Operation *d = v->def;
      if (!d || d->parentBlock() != &body || rootOf(v) != v || infos_[v].assigned ||
          infos_[v].bcast || infos_[a].bcast || aliases[a] != 1 || aliases[v] != 0 ||
          v->type != a->type)
        continue;
      bool yieldedTwice = false;
      for (size_t j = 0; j < y->numOperands(); ++j)
        yieldedTwice |= j != i && y->operand(j) == v;
      if (yieldedTwice)
        continue;
      bool ok = true;
      for (const Operation *u : uses[a]) {
        if (u == d) {
          // a may only be the accumulator of a matmul or the base of a pointer offset.
          bool mma = d->is("tt.dot") || d->is("cuda_tile.mmaf") || d->is("cuda_tile.mmai");
          bool offset = d->is("tt.addptr") || d->is("cuda_tile.offset");
          bool lanewise = isElementwiseOp(*d) && !affine_.interval(v) && !affine_.lazy(v) &&
                          !affine_.compactOf(v);
          bool inPlace = mma      ? d->operand(0) != a && d->operand(1) != a
                         : offset ? d->operand(1) != a
                                  : lanewise;
          ok &= inPlace;
        } else {
          ok &= pos.at(u) < pos.at(d);
        }
      }
      if (ok) {
        root_[v] = a;
        ++aliases[a];
      }
    }
  }
}

// Tile IR: a value computed inside a branch of an `if` only to be yielded (a guarded view load,
// Tile IR's form of a masked load) is computed directly in the `if` result's register, so the
// yield copies nothing. The value lives only inside its branch, and the result only from the
// `if` on (or, when loop-carried coalescing gave it a loop argument's register, that argument
// is no longer used inside the `if`), so they never hold live data at once. The same holds for
// a value that already shares a register with others (a loop's accumulator, its iteration
// argument and the loop result: the K loop of a matmul the conversion put under an `if`) when
// every value of that class is defined inside the branch; then the whole class moves into the
// result's register (a 64x64 f32 accumulator's copy was 0.6-1.1% of a 1024^3 matmul on 2 cores).
void Compiler::coalesceIfResults(const std::vector<const Operation *> &order) {
  // Whether every value sharing `cls`'s register is defined inside `branch`.
  auto classWithin = [&](const Value *cls, const Block &branch) {
    for (const auto &kv : infos_) {
      if (rootOf(kv.first) != cls)
        continue;
      const Value *m = kv.first;
      const Operation *d = m->def ? m->def : m->ownerBlock ? m->ownerBlock->parentOp() : nullptr;
      while (d && d->parentBlock() != &branch)
        d = d->parentOp();
      if (!d)
        return false;
    }
    return true;
  };
  for (const Operation *ifOp : order) {
    if (!ifOp->is("cuda_tile.if"))
      continue;
    for (size_t r = 0; r < ifOp->numRegions(); ++r) {
      if (ifOp->region(r)->empty())
        continue;
      const Block &branch = *ifOp->region(r)->front();
      const Operation *y = branch.terminator();
      if (!y || !y->is("cuda_tile.yield"))
        continue;
      for (size_t i = 0; i < y->numOperands() && i < ifOp->numResults(); ++i) {
        const Value *v = y->operand(i), *res = ifOp->result(i), *cls = rootOf(v);
        const Operation *d = v->def;
        if (!d || d->parentBlock() != &branch || infos_[cls].assigned || infos_[cls].bcast ||
            infos_[res].bcast || v->type != res->type || infos_[v].numel == 0 ||
            cls == rootOf(res) || (cls != v && !classWithin(cls, branch)))
          continue;
        bool twice = false;
        for (size_t j = 0; j < y->numOperands(); ++j)
          twice |= j != i && rootOf(y->operand(j)) == cls;
        if (twice)
          continue;
        root_[cls] = res;
      }
    }
  }
}

void Compiler::allocate(const Operation &func) {
  std::unordered_map<const Operation *, int64_t> pos, endPos;
  std::unordered_map<const Value *, int64_t> defPos;
  std::vector<const Operation *> order;
  int64_t counter = 0;
  std::function<void(const Block &)> number = [&](const Block &b) {
    for (const auto &opPtr : b.ops()) {
      const Operation *op = opPtr.get();
      pos[op] = counter++;
      order.push_back(op);
      for (size_t i = 0; i < op->numResults(); ++i)
        defPos[op->result(i)] = pos[op];
      if (!isCombineOp(*op))
        for (size_t r = 0; r < op->numRegions(); ++r)
          for (const auto &blk : op->region(r)->blocks) {
            for (size_t i = 0; i < blk->numArgs(); ++i)
              defPos[blk->arg(i)] = pos[op];
            number(*blk);
          }
      endPos[op] = counter - 1;
    }
  };
  number(*func.region(0)->front());

  coalesceLoopCarried(order, pos);
  if (tileIR())
    coalesceIfResults(order);
  chooseForwarded(order, pos);

  // Storage classes that need a live register: roots without one yet.
  struct Interval {
    int64_t start = INT64_MAX, end = -1;
    size_t bytes = 0;
  };
  std::unordered_map<const Value *, Interval> iv;
  for (auto &kv : infos_) {
    const Value *v = kv.first;
    if (kv.second.assigned || !defPos.count(v))
      continue;
    const Value *r = rootOf(v);
    if (infos_[r].assigned)
      continue;
    Interval &in = iv[r];
    in.start = std::min(in.start, defPos[v]);
    in.end = std::max(in.end, defPos[v]);
    size_t elems = kv.second.bcast ? 1 : static_cast<size_t>(kv.second.numel);
    in.bytes = std::max(in.bytes, alignUp(elems * dtypeSize(kv.second.dt)));
  }
  for (auto &kv : iv) // forwarded loads: the pointer in front of the register (program.h)
    if (infos_[kv.first].fwd)
      kv.second.bytes += Frame::kFwdHeader;
  // Loop-carried registers live across their whole loop.
  for (const Operation *op : order) {
    if (!isLoopOp(*op))
      continue;
    for (size_t r = 0; r < op->numRegions(); ++r)
      for (const auto &blk : op->region(r)->blocks)
        for (size_t i = 0; i < blk->numArgs(); ++i) {
          auto it = iv.find(rootOf(blk->arg(i)));
          if (it != iv.end())
            it->second.end = std::max(it->second.end, endPos[op]);
        }
  }
  // Uses; a use inside a loop the storage was not defined in keeps it to the loop's end.
  for (const Operation *op : order) {
    for (const Value *v : op->operands) {
      auto it = iv.find(rootOf(v));
      if (it == iv.end())
        continue;
      int64_t use = pos[op];
      for (const Operation *a = op->parentOp(); a && a != &func; a = a->parentOp())
        if (isLoopOp(*a) && it->second.start < pos[a])
          use = std::max(use, endPos[a]);
      it->second.end = std::max(it->second.end, use);
    }
  }

  std::vector<std::pair<const Value *, Interval>> byStart(iv.begin(), iv.end());
  std::sort(byStart.begin(), byStart.end(), [](const auto &a, const auto &b) {
    return a.second.start != b.second.start ? a.second.start < b.second.start
                                            : a.first->id < b.first->id;
  });
  std::vector<std::pair<const Value *, Interval>> active;
  FreeList fl;
  std::unordered_map<const Value *, size_t> offs;
  for (auto &e : byStart) {
    // Release every storage that died before this one starts.
    for (size_t k = 0; k < active.size();) {
      if (active[k].second.end < e.second.start) {
        fl.release(offs[active[k].first], active[k].second.bytes);
        active[k] = active.back();
        active.pop_back();
      } else {
        ++k;
      }
    }
    offs[e.first] = fl.alloc(e.second.bytes);
    active.push_back(e);
  }
  liveBytes_ = alignUp(fl.top());
  for (auto &kv : infos_) {
    if (kv.second.assigned || !defPos.count(kv.first))
      continue;
    const Value *r = rootOf(kv.first);
    const ValueInfo &ri = infos_[r];
    if (ri.assigned) {
      kv.second.off = ri.off;
    } else {
      kv.second.off =
          static_cast<uint32_t>(constBytes_ + offs.at(r) + (ri.fwd ? Frame::kFwdHeader : 0));
    }
    kv.second.assigned = true;
  }
}

// ---- emission ----

Ref Compiler::ref(const Value *v, bool allowBcast) {
  const ValueInfo &vi = info(v);
  if (!vi.bcast || vi.numel == 1)
    return {vi.off, false, forwarded(v)};
  if (allowBcast)
    return {vi.off, true};
  // Materialize the splat into a scratch register, here, before its user (which must not have
  // emitted an instruction yet: that would put the fill after it).
  if (emitted_)
    throw ExecError("internal error in the CPU executor: an operand of " +
                    (v->def ? v->def->name() : std::string("a block argument")) +
                    " was materialized after its user's instruction");
  int es = dtypeSize(vi.dt);
  uint32_t dst = scratch(static_cast<size_t>(vi.numel) * es);
  Inst inst;
  inst.fn = fillKernel(es);
  inst.out = dst;
  inst.in[0] = {vi.off, true};
  inst.n = vi.numel;
  cur_->push_back(inst);
  return {dst, false};
}

uint32_t Compiler::out(const Value *v) const {
  const ValueInfo &vi = info(v);
  return vi.off;
}

Inst &Compiler::emit(KernelFn fn, const Operation &op) {
  Inst inst;
  inst.fn = fn;
  inst.site = site(op);
  cur_->push_back(inst);
  emitted_ = true;
  return cur_->back();
}

uint32_t Compiler::scratch(size_t bytes) {
  size_t off = constBytes_ + liveBytes_ + scratchBytes_;
  scratchBytes_ += alignUp(std::max<size_t>(bytes, 1));
  if (constBytes_ + liveBytes_ + scratchBytes_ > UINT32_MAX)
    throw ExecError("kernel " + pd_.kernelName + " needs more than 4 GiB of registers");
  return static_cast<uint32_t>(off);
}

const OpSite *Compiler::site(const Operation &op) {
  auto it = sites_.find(&op);
  if (it != sites_.end())
    return it->second;
  auto s = std::make_unique<OpSite>();
  s->opName = op.name();
  s->loc = locationString(op.loc());
  const OpSite *raw = s.get();
  pd_.sites.push_back(std::move(s));
  sites_[&op] = raw;
  return raw;
}

void Compiler::fail(const Operation &op, const std::string &msg) const {
  throw ExecError(op.name() + " at " + locationString(op.loc()) + ": " + msg);
}

void Compiler::assignRegion(const Block &b, int64_t numel) {
  auto give = [&](const Value *v) {
    ValueInfo &vi = infos_[v];
    if (vi.assigned)
      return; // constants
    vi.dt = dtypeOf(v->type.element());
    vi.numel = numel * v->type.numel();
    vi.off = scratch(static_cast<size_t>(vi.numel) * dtypeSize(vi.dt));
    vi.assigned = true;
  };
  for (size_t i = 0; i < b.numArgs(); ++i)
    give(b.arg(i));
  for (const auto &op : b.ops()) {
    for (size_t i = 0; i < op->numResults(); ++i)
      give(op->result(i));
    for (size_t r = 0; r < op->numRegions(); ++r)
      for (const auto &blk : op->region(r)->blocks)
        assignRegion(*blk, numel);
  }
}

void Compiler::setRegionNumel(const Block &b, int64_t numel) {
  auto set = [&](const Value *v) {
    ValueInfo &vi = infos_[v];
    vi.numel = numel * v->type.numel();
  };
  for (size_t i = 0; i < b.numArgs(); ++i)
    set(b.arg(i));
  for (const auto &op : b.ops()) {
    for (size_t i = 0; i < op->numResults(); ++i)
      set(op->result(i));
    for (size_t r = 0; r < op->numRegions(); ++r)
      for (const auto &blk : op->region(r)->blocks)
        setRegionNumel(*blk, numel);
  }
}

void Compiler::compileBlock(const Block &b, InstList &list) {
  InstList *saved = cur_;
  bool savedEmitted = emitted_;
  cur_ = &list;
  for (const auto &op : b.ops()) {
    if (op->info()->has(kTerminator) && !tileIR())
      continue;
    emitOp(*op);
  }
  cur_ = saved;
  emitted_ = savedEmitted;
}

void Compiler::emitOp(const Operation &op) {
  const size_t at = cur_->size();
  emitOpOnly(op);
  std::vector<Inst> before;
  auto hooks = beforeOp_.find(&op);
  if (hooks != beforeOp_.end())
    before = hooks->second;
  auto fused = fusedPendings_.find(&op);
  if (fused != fusedPendings_.end() && !fused->second.taken)
    before.insert(before.end(), fused->second.flushes.begin(), fused->second.flushes.end());
  cur_->insert(cur_->begin() + static_cast<std::ptrdiff_t>(at), before.begin(), before.end());
}

void Compiler::emitOpOnly(const Operation &op) {
  if (!tileIR() && op.is("tt.broadcast") && affine_.foldOf(op.result(0)))
    return; // folded: its users read the source (affine.h)
  static const EmitFn ttirEmitters[] = {emitElementwise, emitCast, emitMemory,      emitShape,
                                        emitReduce,      emitDot,  emitControlFlow, emitMisc};
  static const EmitFn tileEmitters[] = {emitTileElementwise, emitTileShape,   emitTileMemory,
                                        emitTileCompute,     emitTileControl, emitTileMisc};
  auto tryAll = [&](const auto &emitters) {
    for (EmitFn e : emitters) {
      emitted_ = false;
      if (e(*this, op)) {
        emitted_ = false;
        return true;
      }
    }
    return false;
  };
  if (tileIR() ? tryAll(tileEmitters) : tryAll(ttirEmitters)) {
    // tl.multiple_of on a scalar (its defining op's tt.divisibility), checked as the Tile
    // path checks its assume (tile_shape.cpp)
    const Attribute &div = op.attr("tt.divisibility");
    if (!tileIR() && div && op.numResults() == 1 &&
        (div.kind() == Attribute::Kind::Int || div.kind() == Attribute::Kind::Dense))
      emitDivisibilityCheck(*this, op, op.result(0), div.getInt());
    return;
  }
  if (op.is("tt.call"))
    fail(op, "calls must be inlined before the executor runs (run the `inline` pass)");
  fail(op, "the CPU executor does not support this op");
}

void Compiler::buildConstImage() {
  pd_.constImage.assign(constBytes_, 0);
  for (const ConstVal &cv : consts_) {
    const ValueInfo &vi = infos_.at(cv.v);
    int es = dtypeSize(vi.dt);
    char *dst = pd_.constImage.data() + vi.off;
    if (cv.iota) {
      for (int64_t k = 0; k < vi.numel; ++k)
        encodeConstant(dst + k * es, vi.dt, false, 0, cv.i + k);
    } else {
      encodeConstant(dst, vi.dt, cv.isFloat, cv.f, cv.i);
    }
  }
}

namespace {

// Tile IR ops a strip-mined program may hold beyond the elementwise ones (isElementwiseOp):
// every one is per lane, or scalar, or a view access of the whole tile (which then moves the
// strip's lanes, tile_view.cpp).
bool stripableTileOp(const Operation &op) {
  static const std::unordered_set<std::string> names = {"load_view_tko",
                                                        "store_view_tko",
                                                        "load_ptr_tko",
                                                        "store_ptr_tko",
                                                        "atomic_rmw_tko",
                                                        "atomic_cas_tko",
                                                        "make_tensor_view",
                                                        "make_partition_view",
                                                        "make_token",
                                                        "join_tokens",
                                                        "assume",
                                                        "get_tile_block_id",
                                                        "get_num_tile_blocks",
                                                        "yield",
                                                        "return",
                                                        "continue",
                                                        "break"};
  std::string n = tileOpName(op);
  if (names.count(n))
    return true;
  // reshape/broadcast of a one-element tile: a splat, kept as a broadcast scalar.
  return (n == "reshape" || n == "broadcast") && op.operand(0)->type.numel() == 1;
}

// Tile IR: whether an access waits (through its token operand, join_tokens included) for
// another access. Strips run the whole body once per strip, so such an order, which holds
// between whole tiles, would only hold strip by strip.
bool tokenOrdered(const Operation &func) {
  std::function<bool(const Value *)> fromAccess = [&](const Value *t) {
    const Operation *d = t->def;
    if (!d || d->is("cuda_tile.make_token"))
      return d == nullptr; // a block argument: a token carried by a loop
    if (d->is("cuda_tile.join_tokens")) {
      for (const Value *v : d->operands)
        if (fromAccess(v))
          return true;
      return false;
    }
    return true;
  };
  std::function<bool(const Block &)> any = [&](const Block &b) {
    for (const auto &op : b.ops()) {
      if (!op->is("cuda_tile.join_tokens") && !op->is("cuda_tile.yield"))
        for (const Value *v : op->operands)
          if (v->type.isToken() && fromAccess(v))
            return true;
      for (size_t r = 0; r < op->numRegions(); ++r)
        for (const auto &blk : op->region(r)->blocks)
          if (any(*blk))
            return true;
    }
    return false;
  };
  return any(*func.region(0)->front());
}

// TTIR: the kernel argument a pointer is computed from (through addptr, splat and the shape
// ops), or null when it cannot tell (a loop-carried or loaded pointer).
const Value *pointerArg(const Value *p, const Block *entry) {
  while (p->def) {
    const Operation &d = *p->def;
    if (!d.is("tt.addptr") && !d.is("tt.splat") && !d.is("tt.broadcast") &&
        !d.is("tt.expand_dims") && !d.is("tt.reshape") && !d.is("tt.bitcast"))
      return nullptr;
    p = d.operand(0);
  }
  return p->ownerBlock == entry ? p : nullptr;
}

// TTIR: whether a write and another access of one program may touch the same memory through
// different lanes. Strips run them strip by strip, so lanes of a later strip would see (or
// miss) a write that the whole tile orders differently. Accesses through one pointer value
// touch a lane's own address only; accesses based on different arguments are taken not to
// overlap (arrays passed twice with a shift are a known limit; the Tile path orders them with
// tokens); two pointer values from one argument may.
bool lanesMayOverlap(const Operation &func) {
  std::vector<std::pair<const Value *, bool>> accesses; // (pointer, writes)
  std::function<void(const Block &)> collect = [&](const Block &b) {
    for (const auto &op : b.ops()) {
      if (op->is("tt.load") || op->is("tt.store") || op->is("tt.atomic_rmw") ||
          op->is("tt.atomic_cas"))
        accesses.push_back({op->operand(0), !op->is("tt.load")});
      for (size_t r = 0; r < op->numRegions(); ++r)
        for (const auto &blk : op->region(r)->blocks)
          collect(*blk);
    }
  };
  collect(*func.region(0)->front());
  for (const auto &w : accesses)
    for (const auto &o : accesses) {
      if (!w.second || w.first == o.first)
        continue;
      const Block *entry = func.region(0)->front();
      const Value *a = pointerArg(w.first, entry), *b = pointerArg(o.first, entry);
      if (!a || !b || a == b)
        return true;
    }
  return false;
}

} // namespace

int64_t Compiler::chooseStripLen(const Operation &func) const {
  constexpr int64_t kStripLen = 1024;
  if (tileIR() ? check_ || tokenOrdered(func) : lanesMayOverlap(func))
    return 0;
  int64_t N = 0;
  bool ok = true;
  auto tensorOk = [&](const Value *v) {
    if (!v->type.isTensor())
      return true;
    if (v->type.rank() != 1)
      return false;
    if (N == 0)
      N = v->type.shape()[0];
    return v->type.shape()[0] == N;
  };
  auto viewOk = [&](const Value *v) { // a rank-1 partition view of whole N-lane tiles
    if (!v->type.isPartitionView())
      return true;
    const auto &tile = v->type.tileShape();
    return tile.size() == 1 && N != 0 && tile[0] == N;
  };
  std::function<void(const Block &, bool)> walk = [&](const Block &b, bool inLoop) {
    for (const auto &opPtr : b.ops()) {
      const Operation &op = *opPtr;
      const std::string &n = op.name();
      for (const Value *v : op.operands)
        ok &= tensorOk(v);
      for (size_t i = 0; i < op.numResults(); ++i)
        ok &= tensorOk(op.result(i));
      for (const Value *v : op.operands)
        ok &= viewOk(v);
      bool scalarPtrWrite = (n == "tt.store" || n == "tt.atomic_rmw" || n == "tt.atomic_cas" ||
                             n == "cuda_tile.store_ptr_tko" || n == "cuda_tile.atomic_rmw_tko" ||
                             n == "cuda_tile.atomic_cas_tko") &&
                            !op.operand(0)->type.isTensor();
      if (scalarPtrWrite || n == "tt.print")
        ok = false;
      else if (op.numRegions()) {
        // Tensors may flow through an if (each strip takes the same branch); loops carry
        // scalars only.
        bool tileIf = n == "cuda_tile.if";
        if (n != "scf.for" && n != "scf.if" && n != "scf.while" && !tileIf &&
            n != "cuda_tile.for" && n != "cuda_tile.loop")
          ok = false;
        for (const Value *v : op.operands)
          ok &= !v->type.isTensor();
        for (size_t i = 0; i < op.numResults(); ++i)
          ok &= tileIf || !op.result(i)->type.isTensor();
        for (size_t r = 0; r < op.numRegions(); ++r)
          for (const auto &blk : op.region(r)->blocks) {
            for (size_t i = 0; i < blk->numArgs(); ++i)
              ok &= !blk->arg(i)->type.isTensor();
            walk(*blk, true);
          }
      } else if (tileIR()) {
        ok &= isElementwiseOp(op) || stripableTileOp(op);
      } else if (!isElementwiseOp(op) && n != "tt.load" && n != "tt.store" && n != "tt.splat" &&
                 n != "tt.make_range" && n != "tt.atomic_rmw" && n != "tt.atomic_cas" &&
                 n != "tt.get_program_id" && n != "tt.get_num_programs" && n != "tt.assert" &&
                 n != "llvm.intr.assume" && n != "tt.return" && n != "scf.yield" &&
                 n != "scf.condition") {
        ok = false;
      }
      if (!ok)
        return;
    }
  };
  walk(*func.region(0)->front(), false);
  if (!ok || N < 2 * kStripLen || N % kStripLen != 0)
    return 0;
  return kStripLen;
}

void Compiler::prepare(const Operation &func) {
  const char *kind = tileIR() ? "cuda_tile.entry" : "tt.func";
  if (!func.is(kind) || func.numRegions() != 1 || func.region(0)->blocks.size() != 1)
    throw ExecError("kernel " + pd_.kernelName + " is not a " + kind + " with one block");
  try {
    if (tileIR()) {
      stripLen_ = chooseStripLen(func);
      if (!check_) // the checker records every lane of a pointer tile
        affine_ = analyzeAffine(func);
      analyzeTile(func);
    } else {
      stripLen_ = chooseStripLen(func);
      affine_ = analyzeAffine(func);
    }
    origins_ = pointerOrigins(func);
    classify(func);
  } catch (const std::invalid_argument &e) {
    throw ExecError("kernel " + pd_.kernelName + ": " + e.what());
  }
  allocate(func);
  compileBlock(*func.region(0)->front(), pd_.body);
  buildConstImage();
  pd_.arenaBytes = constBytes_ + liveBytes_ + scratchBytes_;
  if (stripLen_) {
    pd_.stripLen = stripLen_;
    for (const auto &op : func.region(0)->front()->ops())
      for (size_t i = 0; i < op->numResults(); ++i)
        if (op->result(i)->type.isTensor())
          pd_.strips = op->result(i)->type.numel() / stripLen_;
    pd_.notes += "strip-mined: " + std::to_string(pd_.strips) + " strips of " +
                 std::to_string(stripLen_) + " lanes\n";
  }
  pd_.uid = nextProgramUid.fetch_add(1);
  pd_.numInsts = pd_.body.size();
}

} // namespace tt::exec
