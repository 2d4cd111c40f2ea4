// covered-reads: see covered_reads.h for the rules and why they hold.
#include "passes/covered_reads.h"

#include <algorithm>

#include "ir/op_registry.h"
#include "tile/tile.h"

namespace tt {
namespace {

bool isLoop(const Operation *op) {
  return op && (op->is("cuda_tile.for") || op->is("cuda_tile.loop"));
}

using tile::isLoad;
using tile::isStore;

Operation *innermostLoop(const Operation *op) {
  for (Operation *p = op->parentOp(); p; p = p->parentOp())
    if (isLoop(p))
      return p;
  return nullptr;
}

bool inside(const Operation *op, const Operation *ancestor) {
  for (const Operation *p = op->parentOp(); p; p = p->parentOp())
    if (p == ancestor)
      return true;
  return false;
}

// b and its enclosing blocks, innermost first.
std::vector<const Block *> chain(const Block *b) {
  std::vector<const Block *> out;
  for (; b; b = b->parentOp() ? b->parentOp()->parentBlock() : nullptr)
    out.push_back(b);
  return out;
}

// The innermost block enclosing every block of `blocks`.
const Block *commonBlock(const std::vector<const Block *> &blocks) {
  for (const Block *c : chain(blocks.front())) {
    bool all = std::all_of(blocks.begin(), blocks.end(), [&](const Block *b) {
      auto ch = chain(b);
      return std::find(ch.begin(), ch.end(), c) != ch.end();
    });
    if (all)
      return c;
  }
  return nullptr;
}

using Uses = std::map<const Value *, std::vector<std::pair<Operation *, size_t>>>;

// S(R): the values computed from R's value, the edges between them, and who observes them.
struct Slice {
  std::vector<const Value *> values; // breadth-first from R's value
  std::map<const Value *, std::vector<const Value *>> next;
  std::set<const Value *> storedBy; // values a store takes as an operand
  std::set<const Operation *> stores;
  bool unknown = false; // observed by something other than a store
};

// The values `user` makes from its operand i, or the observation it is.
void follow(Operation *user, size_t i, std::vector<const Value *> &out, Slice &s) {
  const std::string &n = user->name();
  auto results = [&](const Operation *op) {
    for (size_t r = 0; r < op->numResults(); ++r)
      out.push_back(op->result(r));
  };
  if (n == "cuda_tile.yield") {
    Operation *p = user->parentBlock()->parentOp();
    if (p && p->is("cuda_tile.if") && i < p->numResults())
      out.push_back(p->result(i));
    else if (p && (p->is("cuda_tile.reduce") || p->is("cuda_tile.scan")))
      results(p);
    else
      s.unknown = true;
  } else if (n == "cuda_tile.continue" || n == "cuda_tile.break") {
    Operation *loop = innermostLoop(user);
    bool isFor = loop && loop->is("cuda_tile.for");
    Block *body = loop ? loop->region(0)->front() : nullptr;
    if (!loop || (n == "cuda_tile.break" && isFor)) {
      s.unknown = true;
    } else if (n == "cuda_tile.break") {
      if (i < loop->numResults())
        out.push_back(loop->result(i));
    } else {
      if (i + isFor < body->numArgs())
        out.push_back(body->arg(i + isFor));
      if (isFor && i < loop->numResults())
        out.push_back(loop->result(i));
    }
  } else if (n == "cuda_tile.for") {
    if (i < 3) {
      s.unknown = true; // a loop bound
    } else {
      out.push_back(user->region(0)->front()->arg(i - 2));
      out.push_back(user->result(i - 3));
    }
  } else if (n == "cuda_tile.loop") {
    out.push_back(user->region(0)->front()->arg(i));
  } else if (isStore(*user)) {
    s.stores.insert(user);
    s.storedBy.insert(user->operand(i));
  } else if (n == "cuda_tile.reduce" || n == "cuda_tile.scan" ||
             (user->numRegions() == 0 && user->info()->has(kPure))) {
    results(user);
  } else {
    s.unknown = true; // a load or an atomic, a condition, an assert or a print
  }
}

// Slices larger than this are not analysed (the read stays plain): the funnel search is
// quadratic in the slice, and a matmul's is a few dozen values.
constexpr size_t kMaxSlice = 1024;

Slice sliceOf(const Value *start, const Uses &uses) {
  Slice s;
  std::set<const Value *> seen{start};
  s.values.push_back(start);
  for (size_t k = 0; k < s.values.size() && !s.unknown; ++k) {
    if (s.values.size() > kMaxSlice) {
      s.unknown = true;
      break;
    }
    const Value *v = s.values[k];
    auto it = uses.find(v);
    if (it == uses.end())
      continue;
    for (const auto &[user, i] : it->second) {
      std::vector<const Value *> out;
      follow(user, i, out, s);
      for (const Value *w : out) {
        s.next[v].push_back(w);
        if (seen.insert(w).second)
          s.values.push_back(w);
      }
    }
  }
  return s;
}

// Whether a store is reachable from `start` without passing through `cut`.
bool reachesStoreAround(const Slice &s, const Value *start, const Value *cut) {
  std::vector<const Value *> work{start};
  std::set<const Value *> seen{start};
  while (!work.empty()) {
    const Value *v = work.back();
    work.pop_back();
    if (v == cut)
      continue;
    if (s.storedBy.count(v))
      return true;
    auto it = s.next.find(v);
    if (it == s.next.end())
      continue;
    for (const Value *w : it->second)
      if (seen.insert(w).second)
        work.push_back(w);
  }
  return false;
}

// Whether V is computed at most once per run of the block enclosing it and `stores`: no loop
// lies between V's block and that block.
bool onceAroundStores(const Value *v, const std::set<const Operation *> &stores) {
  std::vector<const Block *> blocks{blockOf(v)};
  for (const Operation *st : stores)
    blocks.push_back(st->parentBlock());
  const Block *common = commonBlock(blocks);
  for (const Block *b = blockOf(v); b && b != common && b->parentOp();
       b = b->parentOp()->parentBlock())
    if (isLoop(b->parentOp()))
      return false;
  return common != nullptr;
}

bool covered(const Operation &read, const Slice &s, int cls,
             const std::function<int(const Operation &)> &classOf, int universal) {
  Operation *loop = innermostLoop(&read);
  if (s.unknown || s.stores.empty() || !loop)
    return false;
  for (const Operation *st : s.stores) {
    int c = classOf(*st);
    if (inside(st, loop) || (c != cls && c != universal))
      return false;
  }
  for (const Value *v : s.values) {
    const Operation *carrier = v->isBlockArg() ? v->ownerBlock->parentOp() : nullptr;
    if (isLoop(carrier))
      for (const Operation *st : s.stores)
        if (inside(st, carrier))
          return false;
  }
  const Value *start = s.values.front();
  return std::any_of(s.values.begin(), s.values.end(), [&](const Value *v) {
    return onceAroundStores(v, s.stores) && !reachesStoreAround(s, start, v);
  });
}

} // namespace

CoveredReads findCoveredReads(Operation *entry,
                              const std::function<int(const Operation &)> &classOf, int universal) {
  Uses uses;
  std::vector<Operation *> reads;
  entry->walk([&](Operation *op) {
    for (size_t i = 0; i < op->numOperands(); ++i)
      uses[op->operand(i)].push_back({op, i});
    if (isLoad(*op))
      reads.push_back(op);
  });
  CoveredReads out;
  std::map<std::set<const Operation *>, int> groups;
  for (Operation *read : reads) {
    Slice s = sliceOf(read->result(0), uses);
    if (!covered(*read, s, classOf(*read), classOf, universal))
      continue;
    auto it = groups.emplace(s.stores, static_cast<int>(out.stores.size())).first;
    if (it->second == static_cast<int>(out.stores.size()))
      out.stores.push_back(s.stores);
    out.group[read] = it->second;
  }
  return out;
}

} // namespace tt
