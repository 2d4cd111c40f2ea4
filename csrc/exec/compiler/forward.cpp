// Forwarded loads (program.h, Frame::fwdSlot): which loads may leave their tile in memory.
//
// In a memory-bound kernel (vector add) every pass over a tile costs: a load that copies its
// tile into a register only for an elementwise op to read it once more is a third of the time.
// A forwarded load copies nothing on its fast path; its readers read the memory. That is only
// the value the load would have read while nothing can write that memory in between, so:
//  - the load is a contiguous-capable access whose kernel knows the protocol: a compact tt.load
//    or load_ptr_tko (compact_ptr.cpp) or a load_view_tko (tile_view.cpp), of a non-i1 tile,
//    neither volatile nor ordered (its read must happen where it stands);
//  - its storage class (the register it shares with other values) holds only such loads and,
//    on the Tile path, the result of the `if` they are yielded from (the yields' copies set the
//    pointer, copies.h); the class is read only by elementwise.h kernels (Frame::in), in the
//    block that defines the class or in `if` branches in it (the Tile path sinks ops into the
//    branch of their user, tile_sink.h), and by the yields that write it in place;
//  - no op that may write memory (a store, an atomic, a call) sits between a load and a read in
//    program order; reads are never in a later loop iteration than the load;
//  - not under the Tile IR checker, which must see each access when it happens.
// A class may instead be read only as the A operand of 2-D float dots (tt.dot, mmaf; "rows"):
// the GEMM reads A's rows through a row pitch (dot.cpp), so the load also forwards a tile whose
// rows are evenly spaced but not adjacent, such as a block of a matrix's rows. Reading A in
// place saves a copy per K step: 1-5% by form (3% on average) of a 1024^3 fp32 matmul on two
// cores, best of five runs each (benchmarks/matmul_forms.py). B stays a copy: its rows sit one
// matrix row apart and the GEMM reads them in every row block, which in place thrashes L1 sets
// (a standalone model of the K loop ran 25% slower so). A rows class has no if results and
// mixes with no other reader.
// A class read only as the B operand of 2-D float dots ("memo") instead copies its tile into a
// slot of the thread's TileMemo (runtime/tile_memo.h), and a later program on the thread that
// loads the same rows reads that slot: a matmul's programs in one column of C load the same B
// tiles. That spans programs, so the rule is stronger than "no write in between": no op that
// may write memory or orders an access (a volatile load, a Tile IR access with an ordering)
// precedes a load of the class in program order or shares a loop with it. Then within a program
// every load of the class comes before its own writes, and the only writes a slot can miss are
// other programs', which the GPU does not order against this program's loads either. A memo
// class has no if results and mixes with no other reader; its tile is at most kMaxMemoTile bytes.
// A dot of such an A (rows) and such a B (memo), f32 at ieee precision, directly in the body of
// a for loop whose accumulator is the dot's own class ("deferred"), may leave its GEMM for the
// next K steps: the operands stay where they are until then (A in the matrix, B in its memo
// slot, which the memo keeps; the memo rule keeps writes out of the loop), and 4 to 8 steps run
// as one GEMM (dot.cpp; gemmChain, gemm.h), the accumulators in registers across them: 64x64x32
// tiles ran 5-7% faster (4 steps). The class must be read only by the dot (as its accumulator), by
// the loop's yield into a loop result of the same class, and after the loop or as its init: a flush
// after the loop runs the steps left over. (A class read elsewhere in the loop is not the dot's:
// the dot then copies its accumulator.) No continue or break may sit inside an if of the loop: it
// would copy into the accumulator while steps wait.
// A deferred dot whose accumulator is stored after the loop ("fused stores") leaves its last
// steps for that store, which runs them as one GEMM writing C's rows itself (dot_store.h). Rules:
//  - the class's other readers after the loop, in a pass that runs the loop, are yields into if
//    results of the class (which copy nothing) and ops that never run with the store (other
//    branches of an if, such as the Tile path's store of a tile in slices): those run the steps
//    into the accumulator first, so on the TTIR path none is a terminator (its loop's kernel
//    runs it); no op after the loop writes the class except such yields;
//  - the store is a plain (weak) tt.store, store_ptr_tko or store_view_tko of a member, reading
//    no other member;
//  - no op that may write memory runs between the loop and a reader (the steps read A in the
//    matrix), and the loop and the store run at most once a pass of the innermost block holding
//    both (ifs only between): the steps are dropped before the loop's op there, so a pass that
//    skips the loop finds none of an earlier program's;
//  - a full chain runs only when the next step comes, so the last 1 to chain steps wait: B's
//    table holds chain slots (the table must have more).
// A store that cannot take the rows (a partial tile, rows not evenly spaced, a stream, rows that
// meet A's or B's memory: C = C @ W in place) runs the steps into the accumulator and stores it
// as before. Known limit: the TTIR executor copies an `if`'s result out of its branch, so a loop
// under an `if` there keeps the flush after it.
#include <algorithm>
#include <string>
#include <unordered_set>

#include "exec/compiler/compiler.h"
#include "exec/kernels/gemm.h"
#include "tile/tile.h"

namespace tt::exec {
namespace {

// An access another program may be waiting on or answering: a volatile load, or a Tile IR
// access with a memory ordering.
bool ordersAccesses(const Operation &op) {
  return op.intAttr("isVolatile", 0) != 0 ||
         op.intAttr("memory_ordering_semantics", tile::kWeak) != tile::kWeak;
}

bool forwardableLoad(const Operation &op, const Compiler &c, const AffineInfo &affine) {
  if (op.numResults() < 1 || ordersAccesses(op)) // its read happens where it stands
    return false;
  if (!op.is("cuda_tile.load_view_tko") && !op.is("tt.load") && !op.is("cuda_tile.load_ptr_tko"))
    return false;
  if (!op.is("cuda_tile.load_view_tko") && !affine.compactOf(op.operand(0)))
    return false;
  const Value *v = op.result(0);
  return v->type.isTensor() && v->type.numel() > 1 && dtypeOf(v->type.element()) != DType::I1;
}

bool mayWriteMemory(const Operation &op) {
  const std::string &n = op.name();
  return n.find("store") != std::string::npos || n.find("atomic") != std::string::npos ||
         n == "tt.call";
}

bool isIf(const Operation &op) { return op.is("scf.if") || op.is("cuda_tile.if"); }

constexpr int64_t kMaxMemoTile = 64 * 1024; // bytes: a few tiles per TileMemo budget

// `u` is a 2-D float dot reading `m` as its operand `which` (0: A, 1: B) only (dot.cpp's
// dotFloatK).
bool dotReadsOnlyAs(const Operation &u, const Value *m, unsigned which) {
  if (!(u.is("tt.dot") || u.is("cuda_tile.mmaf")) || u.numOperands() != 3 ||
      u.operand(which) != m || m->type.rank() != 2)
    return false;
  for (unsigned i = 0; i < 3; ++i)
    if (i != which && u.operand(i) == m)
      return false;
  const DType dt = dtypeOf(m->type.element());
  return dt == DType::F32 || dt == DType::F16 || dt == DType::BF16 || dt == DType::F8E4M3 ||
         dt == DType::F8E5M2;
}

// True when op is in `b` or in branches of ifs in `b` (runs at most once per run of `b`).
bool withinIfs(const Operation &op, const Block *b) {
  const Operation *cur = &op;
  while (cur && cur->parentBlock() != b) {
    cur = cur->parentOp();
    if (!cur || !isIf(*cur))
      return false;
  }
  return cur != nullptr;
}

// True when a and b sit in different branches of one if: one pass of it runs at most one.
bool exclusive(const Operation *a, const Operation *b) {
  for (const Operation *x = a; x; x = x->parentOp())
    for (const Operation *y = b; y; y = y->parentOp())
      if (y->parentBlock() == x->parentBlock())
        return x == y && x != a && y != b && isIf(*x);
  return false;
}

// The innermost block holding both a and b (neither inside the other), and their ancestors
// there (maybe themselves); null when they are in different branches of one op.
const Block *commonBlock(const Operation *a, const Operation *b, const Operation *&ca,
                         const Operation *&cb) {
  for (const Operation *x = a; x; x = x->parentOp())
    for (const Operation *y = b; y; y = y->parentOp())
      if (y->parentBlock() == x->parentBlock()) {
        if (x == y)
          return nullptr;
        ca = x;
        cb = y;
        return x->parentBlock();
      }
  return nullptr;
}

bool inside(const Operation *op, const Operation *ancestor) {
  for (const Operation *p = op; p; p = p->parentOp())
    if (p == ancestor)
      return true;
  return false;
}

// The value operand of a plain store (tt.store, store_ptr_tko, store_view_tko), else -1.
int storedOperand(const Operation &op) {
  if (ordersAccesses(op))
    return -1;
  if (op.is("tt.store") || op.is("cuda_tile.store_ptr_tko"))
    return 1;
  return op.is("cuda_tile.store_view_tko") ? 0 : -1;
}

} // namespace

bool Compiler::fusedStoreOf(const Operation &dot, const Operation &loop, const UsersMap &users,
                            const std::vector<const Operation *> &order,
                            const std::unordered_map<const Operation *, int64_t> &pos,
                            FusedStore &fs) const {
  const Value *root = rootOf(dot.result(0));
  const int64_t loopPos = pos.at(&loop);
  // Ops that run before the loop, or never in the same pass as it.
  auto apart = [&](const Operation *op) { return pos.at(op) < loopPos || exclusive(op, &loop); };
  std::vector<const Operation *> readers; // after the loop, in the same pass
  for (const auto &kv : infos_) {
    const Value *m = kv.first;
    if (rootOf(m) != root)
      continue;
    // Writers of the class: the dot, the loop, ifs (their yields are checked below), and ops
    // apart from the loop.
    const Operation *def = m->def ? m->def : m->ownerBlock ? m->ownerBlock->parentOp() : nullptr;
    if (!def || !(def == &dot || def == &loop || isIf(*def) || apart(def)))
      return false;
    if (m->def && isIf(*m->def)) // each yield into it hands over a member, or runs apart
      for (size_t r = 0; r < def->numRegions(); ++r)
        for (const auto &blk : def->region(r)->blocks) {
          const Operation *y = blk->back();
          if (y && (y->is("scf.yield") || y->is("cuda_tile.yield")) &&
              m->index < y->numOperands() && rootOf(y->operand(m->index)) != root && !apart(y))
            return false;
        }
    auto it = users.find(m);
    if (it == users.end())
      continue;
    for (const Operation *u : it->second) {
      if (u == &dot || u == &loop || inside(u, &loop) || apart(u))
        continue;
      const Operation *owner = u->parentBlock() ? u->parentBlock()->parentOp() : nullptr;
      if ((u->is("scf.yield") || u->is("cuda_tile.yield")) && owner && isIf(*owner)) {
        for (size_t i = 0; i < u->numOperands(); ++i) // in place: copies nothing
          if (u->operand(i) == m && (i >= owner->numResults() || rootOf(owner->result(i)) != root))
            return false;
        continue;
      }
      // A reader gets the steps run into the accumulator by an instruction right before its
      // own, which a terminator the TTIR executor folds into its loop's kernel never has.
      if (u->info()->has(kTerminator) && !tileIR())
        return false;
      for (const Operation *p = u->parentOp(); p; p = p->parentOp())
        if (isCombineOp(*p)) // (a combine region's ops run inside the reduce kernel)
          return false;
      if (std::find(readers.begin(), readers.end(), u) == readers.end())
        readers.push_back(u);
    }
  }
  // The store: the first plain store of a member (and of nothing else of the class) that every
  // other reader runs apart from.
  const Operation *store = nullptr;
  std::sort(readers.begin(), readers.end(),
            [&](const Operation *a, const Operation *b) { return pos.at(a) < pos.at(b); });
  for (const Operation *u : readers) {
    const int v = storedOperand(*u);
    bool only = v >= 0 && rootOf(u->operand(static_cast<size_t>(v))) == root;
    for (size_t i = 0; only && i < u->numOperands(); ++i)
      only = i == static_cast<size_t>(v) || rootOf(u->operand(i)) != root;
    for (const Operation *x : readers)
      only &= x == u || exclusive(x, u);
    if (only) {
      store = u;
      break;
    }
  }
  if (!store)
    return false;
  // The waiting steps read A in the matrix: no write may come between the loop and a reader
  // (in the reader's pass). The store and the loop run at most once a pass of their common
  // block, the store after the loop.
  for (const Operation *x : readers)
    for (int64_t k = loopPos; k < pos.at(x); ++k)
      if (mayWriteMemory(*order[static_cast<size_t>(k)]) &&
          !exclusive(order[static_cast<size_t>(k)], x))
        return false;
  const Operation *ca = nullptr, *cb = nullptr;
  const Block *common = commonBlock(&loop, store, ca, cb);
  if (!common || !withinIfs(loop, common) || !withinIfs(*store, common))
    return false;
  fs.store = store;
  fs.anchor = ca == &loop ? nullptr : ca;
  fs.others.clear();
  for (const Operation *x : readers)
    if (x != store)
      fs.others.push_back(x);
  return true;
}

void Compiler::chooseForwarded(const std::vector<const Operation *> &order,
                               const std::unordered_map<const Operation *, int64_t> &pos) {
  if (check_)
    return;
  // Writes before each position of the pre-order walk (prefix sums); the loops holding a write
  // or an ordered access, and whether one precedes each position (memo classes).
  std::vector<int64_t> writes(order.size() + 1, 0), syncs(order.size() + 1, 0);
  std::unordered_set<const Operation *> loopsWithSyncs;
  std::unordered_map<const Value *, std::vector<const Operation *>> users;
  std::unordered_map<const Value *, std::vector<const Operation *>> loadsOf; // by class
  for (size_t k = 0; k < order.size(); ++k) {
    const Operation &op = *order[k];
    writes[k + 1] = writes[k] + (mayWriteMemory(op) ? 1 : 0);
    const bool sync = mayWriteMemory(op) || ordersAccesses(op);
    syncs[k + 1] = syncs[k] + (sync ? 1 : 0);
    for (const Operation *p = sync ? op.parentOp() : nullptr; p; p = p->parentOp())
      if (isLoopOp(*p))
        loopsWithSyncs.insert(p);
    for (const Value *v : op.operands)
      users[v].push_back(&op);
    if (forwardableLoad(op, *this, affine_))
      loadsOf[rootOf(op.result(0))].push_back(&op);
  }
  auto writesBetween = [&](const Operation *a, const Operation *b) {
    return writes[pos.at(b)] - writes[pos.at(a) + 1] > 0;
  };
  auto firstAccess = [&](const Operation *load) { // nothing may have written what it reads
    if (syncs[pos.at(load)] > 0)
      return false;
    for (const Operation *p = load->parentOp(); p; p = p->parentOp())
      if (loopsWithSyncs.count(p))
        return false;
    return true;
  };
  std::unordered_map<const Value *, std::vector<const Value *>> members;
  for (const auto &kv : infos_)
    if (loadsOf.count(rootOf(kv.first)))
      members[rootOf(kv.first)].push_back(kv.first);

  size_t forwarded = 0, toDots = 0, memos = 0;
  for (const auto &kv : loadsOf) {
    const Value *root = kv.first;
    const Operation *def = root->def;
    if (!def || infos_[root].bcast || infos_[root].assigned)
      continue;
    bool ok = true, ifs = false, elementwise = false, rows = false, memo = false;
    for (const Value *m : members[root]) {
      const Operation *d = m->def;
      bool isLoad = d && forwardableLoad(*d, *this, affine_) && d->result(0) == m;
      bool isIfResult = m == root && d && isIf(*d);
      ok &= isLoad || isIfResult;
      ifs |= isIfResult;
      for (const Operation *u : users[m]) {
        if (!ok)
          break;
        // A yield writing the class in place: the operand shares the if result's register.
        const Operation *owner = u->parentBlock() ? u->parentBlock()->parentOp() : nullptr;
        if ((u->is("scf.yield") || u->is("cuda_tile.yield")) && owner && isIf(*owner)) {
          for (size_t i = 0; i < u->numOperands(); ++i)
            if (u->operand(i) == m)
              ok &= i < owner->numResults() && rootOf(owner->result(i)) == root;
          ifs = true;
          continue;
        }
        const bool asA = dotReadsOnlyAs(*u, m, 0), asB = dotReadsOnlyAs(*u, m, 1);
        ok &= withinIfs(*u, def->parentBlock()) &&
              (asA || asB || readsOperandsThroughRefs(*this, *u));
        (asA ? rows : asB ? memo : elementwise) = true;
        for (const Operation *load : kv.second)
          ok &= ok && !writesBetween(load, u);
      }
    }
    ok &= rows + memo + elementwise <= 1 && !(ifs && (rows || memo));
    const int64_t bytes = infos_[root].numel * dtypeSize(infos_[root].dt);
    if (memo) {
      ok &= bytes <= kMaxMemoTile;
      for (const Operation *load : kv.second)
        ok &= ok && firstAccess(load);
    }
    if (ok) {
      infos_[root].fwd = true;
      infos_[root].fwdRows = rows;
      if (memo) {
        infos_[root].memo = static_cast<int>(pd_.memoLoads.size());
        pd_.memoLoads.push_back({bytes, 0});
      }
      ++forwarded;
      toDots += rows;
      memos += memo;
    }
  }
  // Deferred dots: see the header.
  size_t deferred = 0, fused = 0;
  for (const Operation *u : order) {
    if (!(u->is("tt.dot") || u->is("cuda_tile.mmaf")) || u->numOperands() != 3)
      continue;
    const Value *a = u->operand(0), *b = u->operand(1), *acc = u->operand(2), *d = u->result(0);
    const Operation *loop = u->parentBlock() ? u->parentBlock()->parentOp() : nullptr;
    if (!loop || !(loop->is("scf.for") || loop->is("cuda_tile.for")) || d->type.rank() != 2 ||
        dtypeOf(d->type.element()) != DType::F32 || dtypeOf(a->type.element()) != DType::F32 ||
        dtypeOf(b->type.element()) != DType::F32 ||
        (u->is("tt.dot") && u->intAttr("inputPrecision", 2) != 2))
      continue;
    const ValueInfo &ai = infos_[rootOf(a)], &bi = infos_[rootOf(b)];
    const Value *root = rootOf(d);
    if (!ai.fwd || !ai.fwdRows || !bi.fwd || bi.memo < 0 || rootOf(acc) != root ||
        infos_[root].bcast)
      continue;
    bool ok = true;
    for (const auto &kv : infos_) {
      if (!ok || rootOf(kv.first) != root)
        continue;
      for (const Operation *user : users[kv.first]) {
        if (user == u) {
          ok &= kv.first != a && kv.first != b;
          continue;
        }
        const Operation *owner = user->parentBlock() ? user->parentBlock()->parentOp() : nullptr;
        if (owner == loop && (user->is("scf.yield") || user->is("cuda_tile.continue"))) {
          for (size_t i = 0; i < user->numOperands(); ++i) // its loop result shares the class
            if (user->operand(i) == kv.first)
              ok &= i < loop->numResults() && rootOf(loop->result(i)) == root;
          continue;
        }
        for (const Operation *p = user; p && ok; p = p->parentOp())
          ok &= p != loop || user == loop; // read after the loop, or as its init
      }
    }
    // A continue or break inside an if of the loop copies its operands into the loop's
    // registers, the accumulator among them, while steps wait (hand-written Tile IR has them).
    for (const Operation *o : order) {
      const Operation *owner = o->parentBlock() ? o->parentBlock()->parentOp() : nullptr;
      if (!ok || !(o->is("cuda_tile.continue") || o->is("cuda_tile.break")) || !owner ||
          !isIf(*owner))
        continue;
      for (const Operation *p = owner; p && ok; p = p->parentOp())
        ok &= p != loop;
    }
    if (ok) {
      // The steps that wait hold their B's memo slots, so the table needs more slots than that
      // (tile_memo.h); where it has too few for the longer chain, kBaseChain steps. A fused
      // dot's steps wait for a whole chain.
      TileMemo::Spec &spec = pd_.memoLoads[static_cast<size_t>(bi.memo)];
      const int slots = TileMemo::slotsFor(spec.tileBytes, pd_.memoLoads.size());
      int chain = gemmChain(a->type.shape()[1]);
      if (slots <= chain - 1)
        chain = kBaseChain;
      FusedStore fs;
      const bool fuse = slots > chain && fusedStoreOf(*u, *loop, users, order, pos, fs);
      deferred_[u] = {loop, chain};
      spec.held = std::max(spec.held, fuse ? chain : chain - 1);
      if (fuse) {
        fusedStores_[u] = fs;
        ++fused;
      }
      ++deferred;
    }
  }
  if (deferred)
    pd_.notes += "deferred dots: " + std::to_string(deferred) + " (" + std::to_string(fused) +
                 " run by the store of their accumulator)\n";
  if (forwarded)
    pd_.notes += "forwarded loads: " + std::to_string(forwarded) + " of " +
                 std::to_string(loadsOf.size()) + " contiguous-capable tiles (" +
                 std::to_string(toDots) + " as a dot's A, " + std::to_string(memos) +
                 " as a dot's B through the tile memo)\n";
}

} // namespace tt::exec
