// insert-memory-tokens: Tile IR orders memory only through tokens; Triton programs assume
// program order. This pass threads tokens so that every pair of accesses that may alias is
// ordered as the program wrote them.
//
// Rules:
//   - each access has a root: the kernel pointer argument its address derives from (through
//     offset, reshape, broadcast, views and loop arguments whose every value has one root);
//     arguments the launch saw at one address share a class (PassContext::aliasClasses);
//     anything else (pointers loaded from memory, int_to_ptr, selects of roots) has the
//     universal class, which aliases every class;
//   - per class: a read waits for the last write; a write or atomic waits for the last write
//     and every read since (RAW, WAR, WAW); reads do not wait for reads;
//   - except: a store skips the reads of a loop whose values it consumes (covered_reads.h says
//     when; their tokens sit in slots of their own, so that carrying them out of the loop does
//     not keep tileiras from pipelining it), and other writes still wait for them;
//   - an atomic with acquire/release/acq_rel semantics, and gpu.barrier, are full fences;
//   - `if`, `for` and `loop` carry the tokens of the classes accessed inside them as extra
//     results and iteration values, so ordering holds across regions and loop iterations.
// Known limits: stores in different loop iterations to disjoint addresses are still ordered
// (correct, possibly slower); cross-program ordering is Triton's atomics' job, not this pass.
#include <algorithm>
#include <map>
#include <set>

#include "ir/builder.h"
#include "passes/covered_reads.h"
#include "passes/passes.h"
#include "tile/tile.h"

namespace tt {
namespace {

constexpr int kUniversal = -1;
constexpr int kPrints = -2; // device prints: ordered among themselves and by fences

bool isAccess(const Operation &op) {
  return tile::isLoad(op) || tile::isStore(op) || tile::isAtomic(op) ||
         (op.is("cuda_tile.print") && op.numResults() == 1);
}

bool isFence(const Operation &op) {
  if (op.is("cuda_tile.join_tokens") && op.hasAttr("fence"))
    return true;
  if (op.is("cuda_tile.atomic_rmw_tko") || op.is("cuda_tile.atomic_cas_tko")) {
    int64_t o = op.intAttr("memory_ordering_semantics");
    return o == tile::kAcquire || o == tile::kRelease || o == tile::kAcqRel;
  }
  return false;
}

class TokenPass {
public:
  TokenPass(Operation *entry, const std::vector<std::vector<int>> &aliasClasses) : entry_(entry) {
    const Block &b = *entry->region(0)->front();
    for (size_t i = 0; i < b.numArgs(); ++i)
      argClass_[b.arg(i)] = static_cast<int>(i);
    for (const auto &cls : aliasClasses)
      for (int i : cls)
        if (i >= 0 && static_cast<size_t>(i) < b.numArgs())
          argClass_[b.arg(i)] = cls.front();
    for (const auto &kv : argClass_)
      if (kv.first->type.isPtr())
        allClasses_.insert(kv.second);
    allClasses_.insert(kUniversal);
    allClasses_.insert(kPrints);
  }

  void run() {
    // Loop-carried pointers' roots first: the covered reads need every access's class.
    entry_->walk([&](Operation *op) {
      if (op->is("cuda_tile.for") || op->is("cuda_tile.loop"))
        setLoopArgRoots(*op);
    });
    covered_ =
        findCoveredReads(entry_, [&](const Operation &op) { return accessClass(op); }, kUniversal);
    for (const auto &[read, group] : covered_.group)
      groupsOf_[accessClass(*read)].insert(group);
    Block *body = entry_->region(0)->front();
    State s;
    block(*body, s);
  }

private:
  struct State {
    std::map<int, Value *> write;              // last write token per class
    std::map<int, std::vector<Value *>> reads; // read tokens since that write
    // Covered reads since that write, per class and group (covered_reads.h).
    std::map<int, std::map<int, std::vector<Value *>>> covered;
  };

  // ---- roots

  int root(const Value *v, int depth = 0) {
    if (depth > 64)
      return kUniversal;
    if (v->isBlockArg()) {
      auto it = argClass_.find(v);
      if (it != argClass_.end())
        return it->second;
      // A loop argument: its initial value decides, if every yielded value agrees.
      auto li = loopArgRoot_.find(v);
      return li != loopArgRoot_.end() ? li->second : kUniversal;
    }
    const Operation *d = v->def;
    const std::string &n = d->name();
    if (n == "cuda_tile.offset" || n == "cuda_tile.broadcast" || n == "cuda_tile.reshape" ||
        n == "cuda_tile.make_tensor_view" || n == "cuda_tile.make_partition_view" ||
        n == "cuda_tile.permute" || n == "cuda_tile.ptr_to_ptr" || n == "cuda_tile.assume")
      return root(d->operand(0), depth + 1);
    return kUniversal;
  }

  int accessClass(const Operation &op) {
    if (op.is("cuda_tile.print"))
      return kPrints;
    bool store = op.is("cuda_tile.store_view_tko");
    return root(op.operand(store ? 1 : 0));
  }

  // Which classes a region touches (kUniversal expands to all).
  void touched(const Operation &op, std::set<int> &out) {
    if (isAccess(op) || isFence(op)) {
      int c = isFence(op) ? kUniversal : accessClass(op);
      if (c == kUniversal)
        out.insert(allClasses_.begin(), allClasses_.end());
      else
        out.insert(c);
    }
    for (size_t r = 0; r < op.numRegions(); ++r)
      for (const auto &b : op.region(r)->blocks)
        for (const auto &inner : b->ops())
          touched(*inner, out);
  }

  // ---- token plumbing

  Value *join(Builder &b, std::vector<Value *> toks) { return tile::joinTokens(b, toks); }

  std::vector<int> classesFor(int c) {
    if (c == kPrints)
      return {c};
    if (c != kUniversal)
      return {c, kUniversal};
    return std::vector<int>(allClasses_.begin(), allClasses_.end());
  }

  void addTokenOperand(Operation &op, Value *tok) {
    if (tok)
      tile::setTokenOperand(op, tok);
  }

  Value *resultToken(Operation &op) { return op.result(op.numResults() - 1); }

  void access(Operation &op, State &s) {
    Builder b(op.parentBlock());
    b.setInsertionPointBefore(&op);
    b.setLoc(op.loc());
    if (isFence(op)) {
      std::vector<Value *> all;
      for (auto &kv : s.write)
        all.push_back(kv.second);
      for (auto &kv : s.reads)
        all.insert(all.end(), kv.second.begin(), kv.second.end());
      for (auto &kv : s.covered)
        for (auto &g : kv.second)
          all.insert(all.end(), g.second.begin(), g.second.end());
      Value *in = join(b, all);
      Value *out;
      if (op.is("cuda_tile.join_tokens")) {
        // The barrier marker: its operand is a fresh token; make it the join of everything.
        if (in)
          op.operands = {in};
        out = op.result(0);
      } else {
        addTokenOperand(op, in);
        out = resultToken(op);
      }
      for (int c : allClasses_) {
        s.write[c] = out;
        s.reads[c].clear();
        s.covered[c].clear();
      }
      return;
    }
    int c = accessClass(op);
    std::vector<int> cls = classesFor(c);
    std::vector<Value *> deps;
    bool read = tile::isLoad(op);
    for (int k : cls) {
      // A universal access conflicts with every class; a class access with the universal one.
      if (s.write.count(k))
        deps.push_back(s.write[k]);
      if (read)
        continue;
      deps.insert(deps.end(), s.reads[k].begin(), s.reads[k].end());
      for (auto &[group, toks] : s.covered[k])
        if (!covered_.stores[group].count(&op)) // (a store that consumes them does not wait)
          deps.insert(deps.end(), toks.begin(), toks.end());
    }
    addTokenOperand(op, join(b, deps));
    Value *out = resultToken(op);
    auto group = covered_.group.find(&op);
    if (group != covered_.group.end()) {
      s.covered[c][group->second].push_back(out);
    } else if (read) {
      s.reads[c].push_back(out);
    } else {
      for (int k : (c == kUniversal ? cls : std::vector<int>{c})) {
        s.write[k] = out;
        s.reads[k].clear();
        s.covered[k].clear();
      }
    }
  }

  // How many tokens a class's state takes at region boundaries: the last write, the reads
  // since, and the covered reads of each group of the class.
  size_t slots(int c) { return 2 + groupsOf_[c].size(); }

  // Collapses a class's state to slots(c) tokens (write, joined reads, joined covered reads per
  // group) for region boundaries.
  std::vector<Value *> collapse(Builder &b, State &s, int c) {
    auto orFresh = [&](Value *v) { return v ? v : tile::freshToken(b); };
    std::vector<Value *> out{orFresh(s.write.count(c) ? s.write[c] : nullptr),
                             orFresh(join(b, s.reads[c]))};
    for (int g : groupsOf_[c])
      out.push_back(orFresh(join(b, s.covered[c][g])));
    return out;
  }

  // The tokens of each class as new results of an `if` or a loop, which the ops after it wait
  // for.
  void addTokenResults(Operation &op, State &s, const std::vector<int> &classes) {
    for (int c : classes) {
      std::vector<Value *> toks;
      for (size_t i = 0; i < slots(c); ++i)
        toks.push_back(op.addResult(Type::token()));
      restore(s, c, toks);
    }
  }

  void restore(State &s, int c, const std::vector<Value *> &toks) {
    s.write[c] = toks[0];
    s.reads[c] = {toks[1]};
    size_t i = 2;
    for (int g : groupsOf_[c])
      s.covered[c][g] = {toks[i++]};
  }

  void block(Block &blk, State &s) {
    std::vector<Operation *> ops;
    for (auto &o : blk.ops())
      ops.push_back(o.get());
    for (Operation *op : ops) {
      if (isAccess(*op) || isFence(*op)) {
        access(*op, s);
      } else if (op->is("cuda_tile.if")) {
        ifOp(*op, s);
      } else if (op->is("cuda_tile.for") || op->is("cuda_tile.loop")) {
        loopOp(*op, s);
      } else if (op->numRegions() && !op->is("cuda_tile.reduce") && !op->is("cuda_tile.scan")) {
        // Other region ops hold no memory accesses (reduce/scan bodies are pure).
      }
    }
  }

  // Appends the state of `classes` to a terminator's operands.
  void extendTerminator(Operation &term, State &s, const std::vector<int> &classes) {
    Builder b(term.parentBlock());
    b.setInsertionPointBefore(&term);
    for (int c : classes)
      for (Value *t : collapse(b, s, c))
        term.operands.push_back(t);
  }

  void ifOp(Operation &op, State &s) {
    std::set<int> cls;
    touched(op, cls);
    if (cls.empty())
      return;
    std::vector<int> classes(cls.begin(), cls.end());
    Builder b(op.parentBlock());
    b.setInsertionPointBefore(&op);
    // Both branches start from the same state; make it explicit tokens first.
    std::map<int, std::vector<Value *>> in;
    for (int c : classes)
      in[c] = collapse(b, s, c);
    if (op.region(1)->empty()) {
      Block *e = op.region(1)->addBlock();
      Builder eb(e);
      eb.create("cuda_tile.yield", {}, {});
    }
    for (int r = 0; r < 2; ++r) {
      State inner;
      for (int c : classes)
        restore(inner, c, in[c]);
      Block *blk = op.region(r)->front();
      block(*blk, inner);
      Operation *term = blk->terminator();
      if (term && term->is("cuda_tile.yield"))
        extendTerminator(*term, inner, classes);
    }
    addTokenResults(op, s, classes);
  }

  void loopOp(Operation &op, State &s) {
    std::set<int> cls;
    touched(op, cls);
    if (cls.empty())
      return;
    std::vector<int> classes(cls.begin(), cls.end());
    Builder b(op.parentBlock());
    b.setInsertionPointBefore(&op);
    Block *body = op.region(0)->front();
    State inner;
    for (int c : classes) {
      std::vector<Value *> args;
      for (Value *t : collapse(b, s, c)) {
        op.operands.push_back(t);
        args.push_back(body->addArg(Type::token()));
      }
      restore(inner, c, args);
    }
    blockWithExits(*body, inner, classes);
    addTokenResults(op, s, classes);
  }

  // A loop body: `continue` and `break` anywhere inside (also in nested ifs) carry the state.
  void blockWithExits(Block &blk, State &s, const std::vector<int> &classes) {
    std::vector<Operation *> ops;
    for (auto &o : blk.ops())
      ops.push_back(o.get());
    for (Operation *op : ops) {
      if (op->is("cuda_tile.continue") || op->is("cuda_tile.break")) {
        extendTerminator(*op, s, classes);
      } else if (op->is("cuda_tile.if") && containsExit(*op)) {
        // Exits inside an if leave the loop from there: thread the state into both branches.
        for (int r = 0; r < 2; ++r) {
          if (op->region(r)->empty())
            continue;
          State branch = s;
          blockWithExits(*op->region(r)->front(), branch, classes);
        }
      } else if (isAccess(*op) || isFence(*op)) {
        access(*op, s);
      } else if (op->is("cuda_tile.if")) {
        ifOp(*op, s);
      } else if (op->is("cuda_tile.for") || op->is("cuda_tile.loop")) {
        loopOp(*op, s);
      }
    }
  }

  // Loop-carried pointer tiles keep their root when their initial value has one.
  void setLoopArgRoots(const Operation &op) {
    Block *body = op.region(0)->front();
    bool isFor = op.is("cuda_tile.for");
    for (size_t i = isFor ? 3 : 0; i < op.numOperands(); ++i) {
      Value *arg = body->arg(isFor ? i - 2 : i);
      if (arg->type.element().isPtr())
        loopArgRoot_[arg] = root(op.operand(i));
    }
  }

  bool containsExit(const Operation &op) {
    for (size_t r = 0; r < op.numRegions(); ++r)
      for (const auto &b : op.region(r)->blocks)
        for (const auto &inner : b->ops()) {
          if (inner->is("cuda_tile.continue") || inner->is("cuda_tile.break"))
            return true;
          if (inner->is("cuda_tile.if") && containsExit(*inner))
            return true;
        }
    return false;
  }

  Operation *entry_;
  std::map<const Value *, int> argClass_;
  std::map<const Value *, int> loopArgRoot_;
  std::set<int> allClasses_;
  CoveredReads covered_;
  std::map<int, std::set<int>> groupsOf_; // class -> groups of its covered reads
};

} // namespace

void insertMemoryTokens(Module &tile, const std::vector<std::vector<int>> &aliasClasses) {
  for (Operation *entry : tile.funcs())
    TokenPass(entry, aliasClasses).run();
}

} // namespace tt
