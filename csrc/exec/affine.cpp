// Static strides and compact pointer tiles (see affine.h for the rules).
#include "exec/affine.h"

#include <functional>
#include <unordered_set>
#include <vector>

#include "exec/dtype.h"

namespace tt::exec {
namespace {

// Lattice: kUnseen = not computed yet (optimistic), kUnknown = refuted, else the stride.
constexpr int64_t kUnknown = INT64_MIN;
constexpr int64_t kUnseen = INT64_MIN + 1;
bool isKnown(int64_t s) { return s != kUnknown && s != kUnseen; }

int64_t lastDim(Type t) { return t.isTensor() && t.rank() > 0 ? t.shape().back() : 1; }

bool isCombine(const Operation &op) { return op.is("tt.reduce") || op.is("tt.scan"); }

// The integer value of a scalar or splat constant.
bool constantInt(const Value *v, int64_t &out) {
  for (const Value *cur = v; cur->def;) {
    const Operation *d = cur->def;
    if (d->is("arith.constant")) {
      const Attribute &a = d->attr("value");
      if (a.kind() == Attribute::Kind::Int || a.kind() == Attribute::Kind::Bool ||
          (a.kind() == Attribute::Kind::Dense && !a.denseIsFloat())) {
        out = a.getInt();
        return true;
      }
      return false;
    }
    if (!d->is("tt.splat") && !d->is("tt.broadcast") && !d->is("tt.expand_dims"))
      return false;
    cur = d->operand(0);
  }
  return false;
}

class Analysis {
public:
  explicit Analysis(AffineInfo &out) : out_(out) {}

  void run(const Operation &func) {
    collect(*func.region(0)->front());
    for (int iter = 0; iter < 64; ++iter) {
      changed_ = false;
      for (const Operation *op : ops_)
        visit(*op);
      if (!changed_)
        break;
    }
    for (auto &kv : st_) {
      if (kv.second == kUnknown)
        continue;
      (kv.first->type.element().isPtr() ? out_.ptrStride : out_.intStride)[kv.first] = kv.second;
    }
    chooseCompact();
  }

private:
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
    const std::string &n = op.name();
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
    if (n == "arith.trunci")
      return isKnown(in(0)) ? in(0) : kUnknown;
    if (n == "arith.extsi" || n == "arith.extui") {
      if (in(0) == 0)
        return 0;
      const Operation *d = op.operand(0)->def;
      if (d && d->is("tt.make_range"))
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
      if (op->is("tt.addptr") && op->result(0)->type.isTensor() &&
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
          if ((op->is("tt.load") || op->is("tt.store")) && i == 0)
            accept = true;
          else if (op->is("tt.addptr") && i == 0)
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
