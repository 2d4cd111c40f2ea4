// Static strides and compact pointer tiles (see affine.h for the rules).
#include "exec/compiler/affine.h"

#include <functional>
#include <unordered_set>
#include <vector>

#include "exec/compiler/dtype.h"
#include "exec/tile/tile_control.h"
#include "exec/tileir/tile_ops.h"
#include "tile/tile.h"

namespace tt::exec {
namespace {

// Lattice: kUnseen = not computed yet (optimistic), kUnknown = refuted, else the stride.
constexpr int64_t kUnknown = INT64_MIN;
constexpr int64_t kUnseen = INT64_MIN + 1;
bool isKnown(int64_t s) { return s != kUnknown && s != kUnseen; }

int64_t lastDim(Type t) { return t.isTensor() && t.rank() > 0 ? t.shape().back() : 1; }

bool isCombine(const Operation &op) {
  return op.is("tt.reduce") || op.is("tt.scan") || op.is("cuda_tile.reduce") ||
         op.is("cuda_tile.scan") || op.is("tt.map_elementwise");
}

// The TTIR op whose stride rule a Tile IR op follows (Tile IR splats are reshape + broadcast of
// a one-element tile, which the reshape/broadcast rules already give stride 0); other names
// come back unchanged.
std::string canonicalName(const Operation &op) {
  std::string n = tileOpName(op);
  if (n.empty())
    return op.name();
  static const std::unordered_map<std::string, std::string> t = {
      {"constant", "arith.constant"}, {"iota", "tt.make_range"}, {"broadcast", "tt.broadcast"},
      {"reshape", "tt.reshape"},      {"addi", "arith.addi"},    {"subi", "arith.subi"},
      {"muli", "arith.muli"},         {"shli", "arith.shli"},    {"trunci", "arith.trunci"},
      {"exti", "arith.extsi"},        {"remi", "arith.remsi"},   {"offset", "tt.addptr"},
      {"andi", "arith.andi"},         {"cmpi", "arith.cmpi"},    {"assume", "cuda_tile.assume"}};
  auto it = t.find(n);
  return it == t.end() ? op.name() : it->second;
}

// The TTIR predicate number (2..9: orderings) of a comparison of either op set, else -1.
int64_t cmpiPredicate(const Operation &op) {
  if (op.is("arith.cmpi"))
    return op.intAttr("predicate", -1);
  if (op.is("cuda_tile.cmpi"))
    return tileElementwiseKernel(op).predicate;
  return -1;
}

// The operand index of a Tile IR pointer access's mask, or -1 (operandSegmentSizes: load_ptr_tko
// [ptr, mask, padding, token], store_ptr_tko [ptr, value, mask, token]).
int tileMaskIndex(const Operation &op) {
  const bool load = op.is("cuda_tile.load_ptr_tko");
  if (!load && !op.is("cuda_tile.store_ptr_tko"))
    return -1;
  const Attribute &a = op.attr("operandSegmentSizes");
  if (a.kind() != Attribute::Kind::I32Array || a.getInts().size() != 4)
    return -1;
  const auto &seg = a.getInts();
  const size_t g = load ? 1 : 2;
  if (seg[g] != 1)
    return -1;
  int64_t idx = 0;
  for (size_t k = 0; k < g; ++k)
    idx += seg[k];
  return static_cast<int>(idx);
}

// A plain (weak) Tile IR pointer load/store: compact tiles serve those only (orderings fence).
bool weakTileAccess(const Operation &op) {
  return (op.is("cuda_tile.load_ptr_tko") || op.is("cuda_tile.store_ptr_tko")) &&
         op.intAttr("memory_ordering_semantics", tile::kWeak) == tile::kWeak;
}

// The integer value of a scalar or splat constant.
bool constantInt(const Value *v, int64_t &out) {
  for (const Value *cur = v; cur->def;) {
    const Operation *d = cur->def;
    if (d->is("arith.constant") || d->is("cuda_tile.constant")) {
      const Attribute &a = d->attr("value");
      if (a.kind() == Attribute::Kind::Int || a.kind() == Attribute::Kind::Bool ||
          (a.kind() == Attribute::Kind::Dense && !a.denseIsFloat())) {
        out = a.getInt();
        return true;
      }
      return false;
    }
    if (!d->is("tt.splat") && !d->is("tt.broadcast") && !d->is("tt.expand_dims") &&
        !d->is("cuda_tile.broadcast") && !d->is("cuda_tile.reshape"))
      return false;
    cur = d->operand(0);
  }
  return false;
}

class Analysis {
public:
  explicit Analysis(AffineInfo &out) : out_(out) {}

  void run(const Operation &func) {
    tile_ = func.is("cuda_tile.entry");
    collect(*func.region(0)->front());
    if (tile_)
      collectFlows();
    for (int iter = 0; iter < 64; ++iter) {
      changed_ = false;
      for (const Operation *op : ops_)
        visit(*op);
      for (const auto &f : flows_)
        setMeet(f.first, f.second);
      if (!changed_)
        break;
    }
    for (auto &kv : st_) {
      if (kv.second == kUnknown)
        continue;
      (kv.first->type.element().isPtr() ? out_.ptrStride : out_.intStride)[kv.first] = kv.second;
    }
    findAssumed();
    chooseCompact();
    chooseLazy();
    if (!tile_) { // Tile IR: Compiler::analyzeTile (its control flow differs); no folds there
      chooseFolds();
      findForeignPointers();
    }
  }

  // Lazy integer tiles and interval masks (affine.h), rank 1 only.
  void chooseLazy() {
    auto &lazy = out_.lazyInt;
    auto &iv = out_.intervalMask;
    auto rank1 = [](const Value *v) { return v->type.isTensor() && v->type.rank() == 1; };
    // Every lane equal (lazy kernels read lane 0 of such operands).
    std::function<bool(const Value *)> splatLike = [&](const Value *v) {
      const Operation *d = v->def;
      if (!d)
        return false;
      if (d->is("tt.splat") || d->is("arith.constant") || d->is("cuda_tile.constant"))
        return true;
      if (d->is("cuda_tile.broadcast") || d->is("cuda_tile.reshape"))
        return d->operand(0)->type.numel() == 1 || splatLike(d->operand(0));
      return false;
    };
    auto proven = [&](const Value *v) {
      return out_.intStride.count(v) && !out_.intAssumed.count(v);
    };
    static const char *lazyOps[] = {"tt.make_range", "arith.addi",  "arith.subi",  "arith.muli",
                                    "arith.shli",    "arith.extsi", "arith.extui", "arith.trunci"};
    for (const Operation *op : ops_) {
      if (op->numResults() != 1 || !rank1(op->result(0)))
        continue;
      const Value *r = op->result(0);
      const std::string n = canonicalName(*op);
      bool isLazyOp = false;
      for (const char *l : lazyOps)
        isLazyOp |= n == l;
      if (isLazyOp && r->type.element().isInt() && proven(r))
        lazy.insert(r);
      int64_t pred = cmpiPredicate(*op);
      if (pred >= 2 && pred <= 9)
        iv.insert(r);
      if (n == "arith.andi" && r->type.element().isInt(1))
        iv.insert(r);
    }
    Uses uses = allUses();
    for (bool changed = true; changed;) {
      changed = false;
      auto drop = [&](std::unordered_set<const Value *> &set, const Value *v) {
        if (set.erase(v))
          changed = true;
      };
      // Operands: lazy ops and interval compares take lazy or splat operands; andi intervals.
      for (const Value *v : std::vector<const Value *>(lazy.begin(), lazy.end()))
        for (const Value *o : v->def->operands)
          if (o->type.isTensor() && !lazy.count(o) && !splatLike(o))
            drop(lazy, v);
      for (const Value *v : std::vector<const Value *>(iv.begin(), iv.end())) {
        const Operation *d = v->def;
        for (const Value *o : d->operands) {
          bool ok = canonicalName(*d) == "arith.andi"
                        ? iv.count(o) != 0
                        : (!o->type.isTensor() || lazy.count(o) || splatLike(o));
          if (!ok)
            drop(iv, v);
        }
      }
      // Uses.
      for (const Value *v : std::vector<const Value *>(lazy.begin(), lazy.end()))
        for (auto &u : uses[v]) {
          const Operation *op = u.first;
          const std::string n = canonicalName(*op);
          bool ok = (op->numResults() == 1 && (lazy.count(op->result(0)) ||
                                               (n == "arith.cmpi" && iv.count(op->result(0))))) ||
                    (n == "tt.addptr" && u.second == 1 && out_.compact.count(op->result(0)));
          if (!ok) {
            drop(lazy, v);
            break;
          }
        }
      for (const Value *v : std::vector<const Value *>(iv.begin(), iv.end()))
        for (auto &u : uses[v]) {
          const Operation *op = u.first;
          bool ok = (op->is("tt.load") && u.second == 1 && out_.compact.count(op->operand(0))) ||
                    (op->is("tt.store") && u.second == 2 && out_.compact.count(op->operand(0))) ||
                    (weakTileAccess(*op) && static_cast<int>(u.second) == tileMaskIndex(*op) &&
                     out_.compact.count(op->operand(0))) ||
                    (canonicalName(*op) == "arith.andi" && op->numResults() == 1 &&
                     iv.count(op->result(0)));
          if (!ok) {
            drop(iv, v);
            break;
          }
        }
    }
  }

  // Folded broadcasts and box masks (affine.h), TTIR only.
  void chooseFolds() {
    auto &fold = out_.folded;
    auto &box = out_.boxMask;
    // A source whose register holds one element (the compiler's splat aliases).
    std::function<bool(const Value *)> splatLike = [&](const Value *v) {
      const Operation *d = v->def;
      if (!d)
        return false;
      if (d->is("tt.splat") || d->is("arith.constant"))
        return true;
      if (d->is("tt.broadcast") || d->is("tt.reshape") || d->is("tt.expand_dims") ||
          d->is("tt.bitcast") || d->is("arith.bitcast") || d->is("tt.int_to_ptr") ||
          d->is("tt.ptr_to_int"))
        return splatLike(d->operand(0));
      return false;
    };
    auto outer = [](const Value *v) {
      return v->type.isTensor() && v->type.rank() == 2 && v->type.shape()[0] > 1 &&
             v->type.shape()[1] > 1;
    };
    for (const Operation *op : ops_) {
      if (op->numResults() != 1 || !outer(op->result(0)))
        continue;
      const Value *r = op->result(0);
      if (op->is("tt.broadcast") && !splatLike(op->operand(0))) {
        const auto &src = op->operand(0)->type.shape();
        if (src.size() == 2 && (src[0] == 1) != (src[1] == 1))
          fold[r] = src[1] == 1;
      } else if (op->is("arith.andi") && r->type.element().isInt(1)) {
        box.insert(r);
      }
    }
    auto foldedMask = [&](const Value *v) { return fold.count(v) && v->type.element().isInt(1); };
    auto compactMask = [&](const Operation *op, size_t i) {
      return ((op->is("tt.load") && i == 1) || (op->is("tt.store") && i == 2)) &&
             out_.compact.count(op->operand(0));
    };
    Uses uses = allUses();
    for (bool changed = true; changed;) {
      changed = false;
      for (const Value *v : std::vector<const Value *>(box.begin(), box.end()))
        for (const Value *o : v->def->operands)
          if (!foldedMask(o) && !box.count(o)) {
            box.erase(v);
            changed = true;
            break;
          }
      auto usesOk = [&](const Value *v, bool rows) {
        Type e = v->type.element();
        for (auto &u : uses[v]) {
          const Operation *op = u.first;
          const size_t i = u.second;
          bool ok;
          if (e.isInt(1)) {
            ok = compactMask(op, i) || (op->is("arith.andi") && box.count(op->result(0)));
          } else if (op->is("tt.addptr") && out_.compact.count(op->result(0))) {
            ok = e.isPtr() ? i == 0 && rows
                           : i == 1 && out_.intStride.count(v) && !out_.intAssumed.count(v);
          } else {
            ok = false;
          }
          if (!ok)
            return false;
        }
        return true;
      };
      for (const auto &kv : std::vector<std::pair<const Value *, bool>>(fold.begin(), fold.end()))
        if (!usesOk(kv.first, kv.second)) {
          fold.erase(kv.first);
          changed = true;
        }
      for (const Value *v : std::vector<const Value *>(box.begin(), box.end()))
        if (!usesOk(v, false)) {
          box.erase(v);
          changed = true;
        }
    }
  }

  // Integer strides that rest on a remainder, and everything computed from them.
  void findAssumed() {
    auto &as = out_.intAssumed;
    auto known = [&](const Value *v) { return out_.intStride.count(v) != 0; };
    for (bool changed = true; changed;) {
      changed = false;
      auto mark = [&](const Value *v) {
        if (known(v) && as.insert(v).second)
          changed = true;
      };
      for (const auto &f : flows_)
        for (const Value *src : f.second)
          if (as.count(src))
            mark(f.first);
      for (const Operation *op : ops_) {
        if (op->is("scf.for")) {
          const Block &body = *op->region(0)->front();
          const Operation *y = body.terminator();
          for (size_t i = 0; i < op->numResults(); ++i)
            if (as.count(op->operand(i + 3)) || (y && as.count(y->operand(i)))) {
              mark(body.arg(i + 1));
              mark(op->result(i));
            }
          continue;
        }
        if (op->numRegions())
          continue; // scf.if / scf.while results: their strides are already unknown or meet
        const std::string n = canonicalName(*op);
        bool taint = n == "arith.remsi" || n == "arith.remui";
        for (const Value *v : op->operands)
          taint |= as.count(v) != 0;
        if (taint)
          for (size_t i = 0; i < op->numResults(); ++i)
            mark(op->result(i));
      }
    }
  }

  void findForeignPointers() {
    auto &foreign = out_.foreignPtr;
    auto isPtr = [](const Value *v) { return v->type.element().isPtr(); };
    auto mark = [&](const Value *v, bool &changed) {
      if (isPtr(v) && foreign.insert(v).second)
        changed = true;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (const Operation *op : ops_) {
        if (op->is("scf.for")) {
          const Block &body = *op->region(0)->front();
          const Operation *y = body.terminator();
          for (size_t i = 0; i < op->numResults(); ++i)
            if (foreign.count(op->operand(i + 3)) || (y && foreign.count(y->operand(i)))) {
              mark(body.arg(i + 1), changed);
              mark(op->result(i), changed);
            }
          continue;
        }
        if (op->is("scf.while")) {
          const Block &before = *op->region(0)->front(), &after = *op->region(1)->front();
          const Operation *cond = before.terminator(), *y = after.terminator();
          for (size_t i = 0; i < op->numOperands(); ++i)
            if (foreign.count(op->operand(i)) || (y && foreign.count(y->operand(i))))
              mark(before.arg(i), changed);
          for (size_t i = 0; cond && i + 1 < cond->numOperands(); ++i)
            if (foreign.count(cond->operand(i + 1))) {
              mark(after.arg(i), changed);
              mark(op->result(i), changed);
            }
          continue;
        }
        if (op->is("scf.if")) {
          for (size_t r = 0; r < op->numRegions(); ++r) {
            if (op->region(r)->empty() || !op->region(r)->front()->terminator())
              continue;
            const Operation *y = op->region(r)->front()->terminator();
            for (size_t i = 0; i < y->numOperands() && i < op->numResults(); ++i)
              if (foreign.count(y->operand(i)))
                mark(op->result(i), changed);
          }
          continue;
        }
        bool taint = op->is("tt.int_to_ptr") || op->is("tt.load") || op->is("tt.atomic_rmw") ||
                     op->is("tt.atomic_cas");
        if (op->is("tt.addptr"))
          taint |= foreign.count(op->operand(0)) != 0;
        else
          for (const Value *v : op->operands)
            taint |= foreign.count(v) != 0;
        if (taint)
          for (size_t i = 0; i < op->numResults(); ++i)
            mark(op->result(i), changed);
      }
    }
  }

private:
  using Uses = std::unordered_map<const Value *, std::vector<std::pair<const Operation *, size_t>>>;
  // Every (op, operand index) that reads each value.
  Uses allUses() const {
    Uses uses;
    for (const Operation *op : ops_)
      for (size_t i = 0; i < op->numOperands(); ++i)
        uses[op->operand(i)].push_back({op, i});
    return uses;
  }

  void collect(const Block &b) {
    for (const auto &op : b.ops()) {
      ops_.push_back(op.get());
      if (isCombine(*op))
        continue;
      for (size_t r = 0; r < op->numRegions(); ++r)
        for (const auto &blk : op->region(r)->blocks)
          collect(*blk);
    }
  }

  // Tile IR control flow, as (destination, sources) pairs: a `for`'s iteration argument and
  // result take its init and every `continue` of the loop, a `loop`'s arguments its inits and
  // `continue`s and its results its `break`s, an `if`'s results its `yield`s. Terminators may
  // sit in nested ifs (exitTarget finds their op).
  void collectFlows() {
    std::unordered_map<const Operation *, std::vector<const Operation *>> exits;
    for (const Operation *op : ops_)
      if (op->is("cuda_tile.continue") || op->is("cuda_tile.break") || op->is("cuda_tile.yield"))
        if (const Operation *t = exitTarget(*op))
          exits[t].push_back(op);
    for (const Operation *op : ops_) {
      const bool isFor = op->is("cuda_tile.for");
      if (isFor || op->is("cuda_tile.loop")) {
        const Block &body = *op->region(0)->front();
        const size_t first = isFor ? 3 : 0, argBase = isFor ? 1 : 0;
        for (size_t i = 0; i + first < op->numOperands(); ++i) {
          std::vector<const Value *> srcs{op->operand(i + first)};
          for (const Operation *t : exits[op])
            if (t->is("cuda_tile.continue") && i < t->numOperands())
              srcs.push_back(t->operand(i));
          flows_.push_back({body.arg(argBase + i), srcs});
          if (isFor && i < op->numResults())
            flows_.push_back({op->result(i), srcs});
        }
        if (!isFor)
          for (size_t i = 0; i < op->numResults(); ++i) {
            std::vector<const Value *> srcs;
            for (const Operation *t : exits[op])
              if (t->is("cuda_tile.break") && i < t->numOperands())
                srcs.push_back(t->operand(i));
            flows_.push_back({op->result(i), srcs});
          }
      } else if (op->is("cuda_tile.if")) {
        for (size_t i = 0; i < op->numResults(); ++i) {
          std::vector<const Value *> srcs;
          for (const Operation *t : exits[op])
            if (i < t->numOperands())
              srcs.push_back(t->operand(i));
          flows_.push_back({op->result(i), srcs});
        }
      }
    }
    // A destination with no source at all (a loop that never breaks) is unknown, not unseen.
    for (const auto &f : flows_)
      if (f.second.empty())
        set(f.first, kUnknown);
  }

  // The current stride of v; scalars and last-dimension-1 tensors are 0.
  int64_t get(const Value *v) const {
    if (!v->type.isTensor() || lastDim(v->type) == 1)
      return 0;
    auto it = st_.find(v);
    return it == st_.end() ? kUnseen : it->second;
  }

  void set(const Value *v, int64_t s) {
    if (!v->type.isTensor())
      return;
    Type e = v->type.element();
    if (!e.isInt() && !e.isPtr())
      return;
    if (lastDim(v->type) == 1)
      s = 0;
    auto it = st_.find(v);
    if (it == st_.end()) {
      st_[v] = s;
      changed_ = true;
    } else if (it->second != s && it->second != kUnknown) {
      it->second = kUnknown;
      changed_ = true;
    }
  }
  // Meet of values that must agree (loop-carried); unseen ones are ignored.
  void setMeet(const Value *v, std::initializer_list<const Value *> from) {
    setMeet(v, std::vector<const Value *>(from));
  }
  void setMeet(const Value *v, const std::vector<const Value *> &from) {
    int64_t s = kUnseen;
    for (const Value *f : from) {
      int64_t x = get(f);
      if (x == kUnseen)
        continue;
      if (x == kUnknown || (s != kUnseen && s != x)) {
        s = kUnknown;
        break;
      }
      s = x;
    }
    if (s != kUnseen)
      set(v, s);
  }

  void visit(const Operation &op) {
    const std::string &n = op.name();
    if (n == "cuda_tile.for" || n == "cuda_tile.loop" || n == "cuda_tile.if")
      return; // flows_
    if (n == "scf.for") {
      const Block &body = *op.region(0)->front();
      const Operation *y = body.terminator();
      for (size_t i = 0; i + 3 < op.numOperands(); ++i) {
        const Value *init = op.operand(i + 3);
        const Value *yv = y && i < y->numOperands() ? y->operand(i) : init;
        setMeet(body.arg(i + 1), {init, yv});
        setMeet(op.result(i), {init, yv});
      }
      return;
    }
    if (n == "scf.while") {
      const Block &before = *op.region(0)->front(), &after = *op.region(1)->front();
      const Operation *cond = before.terminator(), *y = after.terminator();
      for (size_t i = 0; i < op.numOperands(); ++i)
        setMeet(before.arg(i), {op.operand(i), y ? y->operand(i) : op.operand(i)});
      for (size_t i = 0; i < after.numArgs(); ++i) {
        setMeet(after.arg(i), {cond->operand(i + 1)});
        setMeet(op.result(i), {cond->operand(i + 1)});
      }
      return;
    }
    if (n == "scf.if") {
      for (size_t i = 0; i < op.numResults(); ++i) {
        std::vector<const Value *> ys;
        for (size_t r = 0; r < op.numRegions(); ++r)
          if (!op.region(r)->empty() && op.region(r)->front()->terminator())
            ys.push_back(op.region(r)->front()->terminator()->operand(i));
        if (ys.size() == 2)
          setMeet(op.result(i), {ys[0], ys[1]});
        else
          set(op.result(i), kUnknown);
      }
      return;
    }
    for (size_t i = 0; i < op.numResults(); ++i)
      set(op.result(i), rule(op, i));
  }

  int64_t rule(const Operation &op, size_t resultIndex) {
    const std::string n = canonicalName(op);
    if (resultIndex != 0)
      return kUnknown;
    auto in = [&](size_t i) { return get(op.operand(i)); };
    if (n == "arith.constant" || n == "tt.splat")
      return 0;
    if (n == "tt.make_range")
      return 1;
    if (n == "tt.broadcast") {
      if (lastDim(op.operand(0)->type) == 1)
        return 0;
      return isKnown(in(0)) ? in(0) : kUnknown;
    }
    if (n == "tt.expand_dims") {
      int64_t axis = op.intAttr("axis");
      if (axis >= op.operand(0)->type.rank())
        return 0;
      return isKnown(in(0)) ? in(0) : kUnknown;
    }
    if (n == "tt.reshape") {
      if (lastDim(op.operand(0)->type) != lastDim(op.result(0)->type))
        return kUnknown;
      return isKnown(in(0)) ? in(0) : kUnknown;
    }
    if (n == "arith.addi" || n == "arith.subi") {
      if (!isKnown(in(0)) || !isKnown(in(1)))
        return kUnknown;
      return n == "arith.addi" ? in(0) + in(1) : in(0) - in(1);
    }
    if (n == "arith.muli" || n == "arith.shli") {
      if (!isKnown(in(0)) || !isKnown(in(1)))
        return kUnknown;
      int64_t c;
      if (in(1) == 0 && constantInt(op.operand(1), c)) {
        if (n == "arith.shli")
          return c >= 0 && c < 32 ? in(0) * (int64_t(1) << c) : kUnknown;
        return in(0) * c;
      }
      if (n == "arith.muli" && in(0) == 0 && constantInt(op.operand(0), c))
        return in(1) * c;
      if (in(0) == 0 && in(1) == 0)
        return 0;
      return kUnknown;
    }
    if (n == "arith.trunci" || n == "cuda_tile.assume")
      return isKnown(in(0)) ? in(0) : kUnknown;
    if ((n == "arith.remsi" || n == "arith.remui") && isKnown(in(0)) && in(1) == 0)
      return in(0); // assumed: see findAssumed

    if (n == "arith.extsi" || n == "arith.extui") {
      if (in(0) == 0)
        return 0;
      const Operation *d = op.operand(0)->def;
      if (d && (d->is("tt.make_range") || d->is("cuda_tile.iota")))
        return 1;
      return kUnknown;
    }
    if (n == "tt.addptr") {
      if (!isKnown(in(0)) || !isKnown(in(1)))
        return kUnknown;
      Type pointee = op.result(0)->type.element().pointee();
      int64_t es = pointee.isPtr() ? 8 : dtypeSize(dtypeOf(pointee));
      return in(0) + in(1) * es;
    }
    return kUnknown;
  }

  void chooseCompact() {
    std::unordered_set<const Value *> cand;
    // Candidates: pointer tensors from tt.addptr or loops, with a proven stride.
    for (const Operation *op : ops_) {
      if ((op->is("tt.addptr") || op->is("cuda_tile.offset")) && op->result(0)->type.isTensor() &&
          out_.ptrStride.count(op->result(0)))
        cand.insert(op->result(0));
      if (op->is("scf.for")) {
        const Block &body = *op->region(0)->front();
        for (size_t i = 0; i < op->numResults(); ++i)
          if (op->result(i)->type.isTensor() && op->result(i)->type.element().isPtr() &&
              out_.ptrStride.count(op->result(i)) && out_.ptrStride.count(body.arg(i + 1))) {
            cand.insert(op->result(i));
            cand.insert(body.arg(i + 1));
          }
      }
    }
    // Uses of every candidate.
    std::unordered_map<const Value *, std::vector<std::pair<const Operation *, size_t>>> uses;
    for (const Operation *op : ops_)
      for (size_t i = 0; i < op->numOperands(); ++i)
        if (cand.count(op->operand(i)))
          uses[op->operand(i)].push_back({op, i});
    for (bool changed = true; changed;) {
      changed = false;
      auto drop = [&](const Value *v) {
        if (cand.erase(v))
          changed = true;
      };
      for (const Value *v : std::vector<const Value *>(cand.begin(), cand.end())) {
        for (auto &u : uses[v]) {
          const Operation *op = u.first;
          size_t i = u.second;
          bool accept = false;
          // Tile IR: pointer tiles do not cross control flow (no compact copies there).
          if ((op->is("tt.load") || op->is("tt.store") || weakTileAccess(*op)) && i == 0)
            accept = true;
          else if ((op->is("tt.addptr") || op->is("cuda_tile.offset")) && i == 0)
            accept = cand.count(op->result(0)) != 0;
          else if (op->is("scf.for") && i >= 3)
            accept = cand.count(op->region(0)->front()->arg(i - 2)) != 0;
          else if (op->is("scf.yield") && op->parentOp() && op->parentOp()->is("scf.for"))
            accept = cand.count(op->parentOp()->region(0)->front()->arg(i + 1)) != 0;
          if (!accept) {
            drop(v);
            break;
          }
        }
      }
      // Loop-carried groups are compact together, with one stride.
      for (const Operation *op : ops_) {
        if (!op->is("scf.for"))
          continue;
        const Block &body = *op->region(0)->front();
        const Operation *y = body.terminator();
        for (size_t i = 0; i < op->numResults(); ++i) {
          const Value *group[] = {op->operand(i + 3), body.arg(i + 1), y->operand(i),
                                  op->result(i)};
          bool any = false, all = true;
          for (const Value *g : group) {
            bool in = cand.count(g) != 0;
            any |= in;
            all &= in;
          }
          if (any && !all)
            for (const Value *g : group)
              drop(g);
        }
      }
    }
    for (const Value *v : cand) {
      CompactPtr c;
      c.rowLen = lastDim(v->type);
      c.rows = v->type.numel() / c.rowLen;
      c.strideBytes = out_.ptrStride.at(v);
      out_.compact[v] = c;
    }
  }

  AffineInfo &out_;
  bool tile_ = false;                                                       // a cuda_tile.entry
  std::vector<std::pair<const Value *, std::vector<const Value *>>> flows_; // Tile IR
  std::vector<const Operation *> ops_;
  std::unordered_map<const Value *, int64_t> st_;
  bool changed_ = false;
};

} // namespace

AffineInfo analyzeAffine(const Operation &func) {
  AffineInfo info;
  Analysis(info).run(func);
  return info;
}

} // namespace tt::exec
