// convert-ttir-to-tile: one walk over the inlined TTIR kernel that builds the cuda_tile entry.
//
// Rules:
//   - every TTIR op maps to cuda_tile ops, or is recorded as unsupported (name, location,
//     reason) and the conversion fails as a whole: the runtime then falls back loudly;
//   - scalars are rank-0 tiles; splat is reshape + broadcast; make_range is iota (+ start);
//   - integer division/remainder keep C semantics (signed, rounding toward zero) with no
//     assumption about the dividend's sign (NVIDIA's converter assumes it non-negative);
//   - tt.dot: f32 with tf32 converts the operands to tf32, tf32x3 emulates with three mmas,
//     ieee is a plain f32 mma; f16/bf16/fp8 mma accumulate in the accumulator's type; i8 mmai;
//   - reductions and scans get the identity of their combiner (never a dummy 0): a combine
//     region whose identity is unknown is unsupported;
//   - f32 math is what stock Triton's PTX makes of the op (tile/elementwise_ops.h: divf full,
//     sqrt approx+ftz, rsqrt and exp2 ftz, exp approx); TILEIR_ENABLE_APPROX/FTZ set approx
//     rounding and flush_to_zero on every f32 op that has them;
//   - for a GPU, loads and stores through pointers in a kernel without a dot stay gathers
//     (Converter::raisable, TileOptions::gathersWithoutDot);
//   - cache/eviction modifiers are ignored (Tile IR has none); a volatile load (pointers or a
//     block pointer) is a relaxed gather at system scope, as PTX's ld.volatile is (NVIDIA's
//     converter drops isVolatile); hints (llvm.intr.assume) are dropped; gpu.barrier becomes a
//     token fence (passes/insert_memory_tokens.cpp);
//   - cmpf ord/uno become two self-compares (x == x is false for NaN only) joined by and/or;
//     false/true are i1 constants; pointer compares (cmpi) compare the i64 addresses;
//   - 8/16-bit atomics Tile IR lacks are compare-and-swap loops on 32-bit words
//     (convert_memory.cpp).
// Known limits: see unsupported() calls: fp8 atomics, 16-bit float atomic max/min, i1 atomics,
// tt.histogram and tt.gather over 2^20 compares, tensors of rank above 7 (Converter::op).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "conversion/ttir_to_tile/converter.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "tile/elementwise_ops.h"

namespace tt::tile_conv {

// The tt.dot ops in `op`'s regions, loops inside it included.
static int dotsIn(const Operation &op) {
  int n = 0;
  for (size_t r = 0; r < op.numRegions(); ++r)
    for (const auto &b : op.region(r)->blocks)
      for (const auto &o : b->ops())
        n += (o->is("tt.dot") ? 1 : 0) + dotsIn(*o);
  return n;
}

void Converter::convertKernel(const Operation &func) {
  Type ft = func.attr("function_type").getType();
  Attrs attrs = {{"sym_name", func.attr("sym_name")},
                 {"function_type", Attribute::type(Type::function(ft.inputs(), {}))}};
  Attribute hints = entryHints(func);
  if (hints)
    attrs.emplace_back("optimization_hints", hints);
  b_.setLoc(func.loc());
  Operation *entry = b_.create("cuda_tile.entry", {}, {}, attrs, 1);
  const Block &src = *func.region(0)->front();
  index_.top = &src;
  tallDot_ = hasTallDot(func);
  hasDot_ = dotsIn(func) > 0;
  const_cast<Operation &>(func).walk([&](Operation *op) {
    for (const Value *v : op->operands)
      read_.insert(v);
  });
  guard_ = std::make_unique<LaunchGuard>(src);
  Block *dst = entry->region(0)->addBlock();
  b_.setInsertionPointToEnd(dst);
  for (size_t i = 0; i < src.numArgs(); ++i) {
    Value *arg = dst->addArg(src.arg(i)->type);
    // The specialization's divisibility (16-byte aligned pointers, ints divisible by 16)
    // becomes an assume: what tileiras needs for vector and TMA paths.
    int64_t div = 0;
    if (i < func.argAttrs.size())
      for (const auto &kv : func.argAttrs[i])
        if (kv.first == "tt.divisibility")
          div = kv.second.getInt();
    if (div > 1 && arg->type.isInt())
      index_.intDivisibility[src.arg(i)] = div;
    if (div > 1 && (arg->type.isPtr() || arg->type.isInt()))
      arg = make1("assume", {arg}, arg->type, {{"div_by", Attribute::integer(div, i64())}});
    map_[src.arg(i)] = arg;
  }
  block(src, Term::Return);
}

Value *Converter::get(const Value *v) {
  auto it = map_.find(v);
  if (it != map_.end())
    return it->second;
  if (v->type.isTensorDesc() || v->type.isBlockPtr())
    throw Unsupported{"a tensor descriptor or block pointer must be visible at its use (not "
                      "carried through a loop or selected by an if) on the Tile path"};
  throw Unsupported{"internal: value used before it was converted"};
}

Value *Converter::splat(Value *s, Type t) {
  if (!t.isTensor() || s->type == t)
    return s;
  return expandTo(s, std::vector<int64_t>(t.shape().size(), 1), t);
}

Value *Converter::expandTo(Value *v, const std::vector<int64_t> &unit, Type t) {
  return make1("broadcast", {make1("reshape", {v}, v->type.withShape(unit))}, t);
}

Value *Converter::reduceInt(Value *v, int64_t dim, Type out, const char *combine) {
  Type e = out.element();
  Operation *r = make(
      "reduce", {v}, {out},
      {{"dim", i32Attr(dim)}, {"identities", Attribute::array({Attribute::integer(0, e)})}}, 1);
  Block *body = r->region(0)->addBlock();
  Value *elem = body->addArg(e), *acc = body->addArg(e);
  auto ip = b_.saveInsertionPoint();
  b_.setInsertionPointToEnd(body);
  make("yield", {make1(combine, {acc, elem}, e)}, {});
  b_.restoreInsertionPoint(ip);
  return r->result(0);
}

Attrs Converter::floatMods(Type t, tile::Mods mods) {
  using tile::Mods;
  const bool f = f32(t);
  Attrs a;
  if (mods == Mods::FastExp) {
    if (f)
      a.emplace_back("rounding", i32Attr(tile::kApprox));
    return a;
  }
  if (mods != Mods::FastFtz) {
    int rounding = tile::kNearestEven;
    if (f && mods == Mods::DivF)
      rounding = opts_.approx ? tile::kApprox : tile::kFull;
    else if (f && mods == Mods::FastSqrt)
      rounding = tile::kApprox;
    a.emplace_back("rounding", i32Attr(rounding));
  }
  if (f && (opts_.ftz || mods == Mods::FastFtz || mods == Mods::FastSqrt))
    a.emplace_back("flush_to_zero", Attribute::unit());
  return a;
}

bool Converter::hasTallDot(const Operation &op) {
  if (op.is("tt.dot")) {
    const std::vector<int64_t> &shape = op.result(0)->type.shape();
    if (shape.size() >= 2 && shape[shape.size() - 2] >= 256 && shape.back() >= 128)
      return true;
  }
  for (size_t r = 0; r < op.numRegions(); ++r)
    for (const auto &b : op.region(r)->blocks)
      for (const auto &o : b->ops())
        if (hasTallDot(*o))
          return true;
  return false;
}

bool Converter::wantsWorkerWarps(const Operation &op, int loops, int workerWarps) {
  const bool loop = op.is("scf.for") || op.is("scf.while");
  if (op.is("tt.reduce") || (op.is("tt.dot") && loops >= 2) || (loop && dotsIn(op) >= 2))
    return true;
  if (op.is("tt.dot") && workerWarps >= 8 && op.result(0)->type.numel() > 128 * 128)
    return true;
  int inner = loops + loop;
  for (size_t r = 0; r < op.numRegions(); ++r)
    for (const auto &b : op.region(r)->blocks)
      for (const auto &o : b->ops())
        if (wantsWorkerWarps(*o, inner, workerWarps))
          return true;
  return false;
}

Attribute Converter::entryHints(const Operation &func) {
  std::vector<std::pair<std::string, Attribute>> inner;
  if (opts_.numCtas > 1)
    inner.emplace_back("num_cta_in_cga", i32Attr(opts_.numCtas));
  if (opts_.occupancy > 0)
    inner.emplace_back("occupancy", i32Attr(opts_.occupancy));
  if (opts_.workerWarps > 0 &&
      (!opts_.workerWarpsAuto || wantsWorkerWarps(func, 0, opts_.workerWarps)))
    inner.emplace_back("num_worker_warps_per_cta", i32Attr(opts_.workerWarps));
  if (inner.empty())
    return Attribute();
  return Attribute::dict({{kHintKey, Attribute::dict(inner)}});
}

Attrs Converter::memoryAttrs(std::vector<int64_t> segments, int ordering, int scope, bool view,
                             bool noTma) {
  Attrs a = {{"memory_ordering_semantics", i32Attr(ordering)},
             {"operandSegmentSizes", Attribute::i32Array(std::move(segments))}};
  if (scope >= 0)
    a.emplace_back("memory_scope", i32Attr(scope));
  // The latency hint exists on loads and stores only (Tile IR's atomics take no hints);
  // allow_tma on view accesses only.
  std::vector<std::pair<std::string, Attribute>> hints;
  if (opts_.numStages > 0 && scope < 0)
    hints.emplace_back("latency", i32Attr(std::min(opts_.numStages, 10)));
  if (view && (!opts_.allowTma || noTma))
    hints.emplace_back("allow_tma", Attribute::boolean(false));
  if (!hints.empty())
    a.emplace_back("optimization_hints", Attribute::dict({{kHintKey, Attribute::dict(hints)}}));
  return a;
}

void Converter::block(const Block &src, Term term) {
  for (const auto &o : src.ops()) {
    b_.setLoc(o->loc());
    if (&src == index_.top) {
      // Views of the tile-index form are made here, before this top-level op.
      topBlock_ = b_.saveInsertionPoint().block;
      topAnchor_ = topBlock_->back();
    } else if (o->numRegions() > 0) {
      // Or before this op, when their tensor is defined in this block (IndexPlan::anchor).
      Block *at = b_.saveInsertionPoint().block;
      opAnchors_[o.get()] = {at, at->back()};
    }
    if (o->info()->has(kTerminator)) {
      terminator(*o, term);
      continue;
    }
    std::string reason;
    try {
      op(*o);
      continue;
    } catch (const Unsupported &u) {
      reason = u.reason;
    } catch (const std::invalid_argument &e) {
      // A Tile IR type the op would need does not exist (a view of pointers, say): the same
      // loud fallback, not an exception out of the compiler.
      reason = std::string("no Tile IR type for it: ") + e.what();
    }
    if (reporting_)
      report_.unsupported.push_back({o->name(), locationString(o->loc()), reason});
    // Keep walking with placeholders so every unsupported op is reported, not just the first.
    for (size_t i = 0; i < o->numResults(); ++i)
      map_[o->result(i)] = placeholder(o->result(i)->type);
  }
}

Value *Converter::placeholder(Type t) {
  if (t.element().isFloat())
    return constFloat(0, t);
  if (t.element().isInt())
    return constInt(0, t);
  if (t.element().isPtr())
    return make1("int_to_ptr", {constInt(0, t.withElement(i64()))}, t);
  return make1("make_token", {}, Type::token());
}

void Converter::terminator(const Operation &t, Term term) {
  std::vector<Value *> vals = get(t.operands);
  switch (term) {
  case Term::Return:
    make("return", vals, {});
    return;
  case Term::Yield:
  case Term::ReduceYield:
    make("yield", vals, {});
    return;
  case Term::Continue:
    make("continue", vals, {});
    return;
  case Term::WhileAfter:
    make("continue", vals, {});
    return;
  }
}

// Tile IR ops here are registered for tiles of rank 7 at most (cuda_tile.extract: the source
// and one index per dimension in 8 operands). Triton's sort, topk and flip view a tile of N
// elements as log2(N) dimensions of 2, so a kernel can pass that: it falls back, loudly.
constexpr size_t kMaxTileRank = 7;

void Converter::op(const Operation &o) {
  const std::string &n = o.name();
  auto it = handlers().find(n);
  if (it == handlers().end())
    throw Unsupported{"no Tile IR lowering for '" + n + "'"};
  size_t rank = 0;
  auto widen = [&rank](const Value *v) {
    if (v->type.isTensor())
      rank = std::max(rank, v->type.shape().size());
  };
  for (size_t i = 0; i < o.numOperands(); ++i)
    widen(o.operand(i));
  for (size_t i = 0; i < o.numResults(); ++i)
    widen(o.result(i));
  if (rank > kMaxTileRank)
    throw Unsupported{"a tensor of rank " + std::to_string(rank) + " (sort, topk or flip of " +
                      "a large tile views it as one dimension of 2 per bit); Tile IR tiles " +
                      "here have rank 7 at most"};
  it->second(*this, o);
  scalarHint(o);
}

// `tl.multiple_of` on a scalar puts tt.divisibility on the op that defines it (as stock Triton
// does): a pointer or a stride read from memory, say. It becomes an assume, as an argument's
// specialization does, so tileiras sees the alignment of a view's base and strides (a grouped
// GEMM whose addresses come from a table ran at 3% of stock Triton on an H200 without it), and
// an int's divisibility reaches the view planner. Tile IR's div_by takes a power of two: the
// hint's largest power-of-two factor. Hints on tensors are not used (their per-dimension
// contiguity semantics are not modelled here).
void Converter::scalarHint(const Operation &o) {
  Attribute hint = o.attr("tt.divisibility");
  if (!hint || o.numResults() != 1 || o.result(0)->type.isTensor())
    return;
  int64_t div = 0;
  if (hint.kind() == Attribute::Kind::Int || hint.kind() == Attribute::Kind::Dense)
    div = hint.getInt();
  div &= -div; // the largest power of two dividing it (0 stays 0)
  const Value *res = o.result(0);
  if (div <= 1 || !(res->type.isPtr() || res->type.isInt()))
    return;
  Value *&v = map_[res];
  v = make1("assume", {v}, v->type, {{"div_by", Attribute::integer(div, i64())}});
  if (res->type.isInt())
    index_.intDivisibility[res] = div;
}

void Converter::cmpi(const Operation &o) {
  static const int pred[] = {tile::kEq, tile::kNe, tile::kLt, tile::kLe, tile::kGt,
                             tile::kGe, tile::kLt, tile::kLe, tile::kGt, tile::kGe};
  int64_t p = o.intAttr("predicate");
  bool isSigned = p >= 2 && p <= 5;
  Attrs attrs = {{"comparison_predicate", i32Attr(pred[p])},
                 {"signedness", i32Attr(isSigned || p < 2 ? tile::kSigned : tile::kUnsigned)}};
  if (!o.operand(0)->type.element().isPtr())
    return elementwise(o, "cmpi", std::move(attrs));
  // Tile IR's cmpi takes integers only: pointers compare as their i64 addresses (the frontend
  // asks for unsigned order; eq/ne do not care).
  std::vector<Value *> addr;
  for (Value *v : get(o.operands))
    addr.push_back(make1("ptr_to_int", {v}, v->type.withElement(i64())));
  bind(o, make1("cmpi", addr, o.result(0)->type, std::move(attrs)));
}

void Converter::cmpf(const Operation &o) {
  // MLIR predicate -> (Tile IR predicate, ordered?): 1-6 are ordered, 8-13 unordered.
  int64_t p = o.intAttr("predicate");
  static const int pred[] = {-1,        tile::kEq, tile::kGt, tile::kGe, tile::kLt, tile::kLe,
                             tile::kNe, -1,        tile::kEq, tile::kGt, tile::kGe, tile::kLt,
                             tile::kLe, tile::kNe, -1,        -1};
  if (p < 0 || p > 15)
    throw Unsupported{"cmpf predicate " + std::to_string(p)};
  Type t = o.result(0)->type;
  if (p == 0 || p == 15) // false, true: whatever the operands are
    return bind(o, constInt(p == 15, t));
  auto one = [&](int tp, bool ordered, Value *a, Value *b) {
    return make1(
        "cmpf", {a, b}, t,
        {{"comparison_predicate", i32Attr(tp)}, {"comparison_ordering", i32Attr(ordered)}});
  };
  Value *x = get(o.operand(0)), *y = get(o.operand(1));
  if (p == 7) // ord: neither is NaN (x oeq x holds for every non-NaN x, infinities too)
    return bind(o, make1("andi", {one(tile::kEq, true, x, x), one(tile::kEq, true, y, y)}, t));
  if (p == 14) // uno: either is NaN (x une x holds for NaN only)
    return bind(o, make1("ori", {one(tile::kNe, false, x, x), one(tile::kNe, false, y, y)}, t));
  bind(o, one(pred[p], p <= 6, x, y));
}

void Converter::makeRange(const Operation &o) {
  Type t = o.result(0)->type;
  Value *r = make1("iota", {}, t);
  int64_t start = o.intAttr("start");
  if (start != 0)
    r = make1("addi", {r, constInt(start, t)}, t);
  bind(o, r);
}

void Converter::join(const Operation &o) {
  Type t = o.result(0)->type;
  std::vector<int64_t> s = o.operand(0)->type.shape();
  s.push_back(1);
  Type one = t.withShape(s);
  Value *a = make1("reshape", {get(o.operand(0))}, one);
  Value *c = make1("reshape", {get(o.operand(1))}, one);
  bind(o, make1("cat", {a, c}, t, {{"dim", i32Attr(static_cast<int64_t>(s.size()) - 1)}}));
}

void Converter::split(const Operation &o) {
  Value *in = get(o.operand(0));
  std::vector<int64_t> s = in->type.shape();
  s.back() = 1;
  Type half = in->type.withShape(s);
  std::vector<Value *> outs;
  for (int k = 0; k < 2; ++k) {
    std::vector<Value *> operands = {in};
    for (size_t d = 0; d < s.size(); ++d)
      operands.push_back(constInt(d + 1 == s.size() ? k : 0, i32()));
    Value *e = make1("extract", operands, half);
    outs.push_back(make1("reshape", {e}, o.result(k)->type));
  }
  bind(o, outs);
}

void Converter::cast(const Operation &o, const char *name, int signedness, int rounding) {
  Attrs a;
  if (signedness >= 0)
    a.emplace_back("signedness", i32Attr(signedness));
  if (rounding >= 0)
    a.emplace_back("rounding", i32Attr(rounding));
  bind(o, make1(name, {get(o.operand(0))}, o.result(0)->type, a));
}

void Converter::fpToFp(const Operation &o) {
  Type to = o.result(0)->type;
  Value *x = get(o.operand(0));
  Value *r = make1("ftof", {x}, to, {{"rounding", i32Attr(tile::kNearestEven)}});
  if (!o.hasAttr("rounding") || o.intAttr("rounding") != 0 ||
      to.element().bitWidth() >= x->type.element().bitWidth())
    return bind(o, r);
  Type from = x->type, bits = to.withElement(Type::integer(to.element().bitWidth()));
  Value *back = make1("ftof", {r}, from, {{"rounding", i32Attr(tile::kNearestEven)}});
  Value *away =
      make1("cmpf", {make1("absf", {back}, from), make1("absf", {x}, from)},
            from.withElement(Type::integer(1)),
            {{"comparison_predicate", i32Attr(tile::kGt)}, {"comparison_ordering", i32Attr(1)}});
  Value *rb = make1("bitcast", {r}, bits);
  Value *down = make1("subi", {rb, constInt(1, bits)}, bits);
  bind(o, make1("bitcast", {make1("select", {away, down, rb}, bits)}, to));
}

void Converter::clampf(const Operation &o) {
  Type t = o.result(0)->type;
  Attrs nan;
  if (o.intAttr("propagateNan"))
    nan.emplace_back("propagate_nan", Attribute::unit());
  Value *lo = make1("maxf", {get(o.operand(0)), get(o.operand(1))}, t, nan);
  bind(o, make1("minf", {lo, get(o.operand(2))}, t, nan));
}

// Integer division by zero is undefined behaviour in Tile IR, and tileiras uses it: a lane whose
// divisor may be 0 is assumed not to exist. A masked load pads its off lanes with 0, so from
// `x // tl.load(Y + offs, mask=m)` tileiras concluded that every lane is in bounds, dropped the
// masks of the loads and stores around it and wrote past the end of the output (H100: the 64
// elements after a 300-element int64 array were overwritten). In Triton a masked-off lane's
// quotient is junk that nothing reads, never a licence to drop masks, so the divisor is made
// nonzero first: `y == 0 ? 1 : y`. A lane that did divide by 0 then gets what the GPU's
// division gives and the TTIR executor returns (elementwise.h): all ones for a quotient, the
// dividend for a remainder. A constant divisor that is not 0 needs no guard.
void Converter::intDivRem(const Operation &o, const char *name, int signedness) {
  Value *x = get(o.operand(0)), *y = get(o.operand(1));
  int64_t divisor = 0;
  Type t = o.result(0)->type;
  if (constantInt(o.operand(1), divisor) && divisor != 0) {
    bind(o, make1(name, {x, y}, t, {{"signedness", i32Attr(signedness)}}));
    return;
  }
  Value *zero =
      make1("cmpi", {y, constInt(0, y->type)}, y->type.withElement(i1()),
            {{"comparison_predicate", i32Attr(tile::kEq)}, {"signedness", i32Attr(tile::kSigned)}});
  y = make1("select", {zero, constInt(1, y->type), y}, y->type);
  Value *r = make1(name, {x, y}, t, {{"signedness", i32Attr(signedness)}});
  const bool quotient = std::string(name) == "divi";
  bind(o, make1("select", {zero, quotient ? constInt(-1, t) : x, r}, t));
}

const std::unordered_map<std::string, Converter::Handler> &Converter::handlers() {
  using C = Converter;
  using O = const Operation &;
  static const std::unordered_map<std::string, Handler> table = [] {
    std::unordered_map<std::string, Handler> t;
    // The one-to-one element-wise ops, declared once (tile/elementwise_ops.h).
    using tile::Mods;
    for (const tile::ElementwiseOp &e : tile::kElementwiseOps) {
      const char *to = e.tile;
      switch (e.mods) {
      case Mods::None:
        t[e.ttir] = [to](C &c, O o) { c.elementwise(o, to); };
        break;
      case Mods::Signed:
      case Mods::Unsigned: {
        int s = e.mods == Mods::Signed ? tile::kSigned : tile::kUnsigned;
        t[e.ttir] = [to, s](C &c, O o) { c.elementwise(o, to, {{"signedness", i32Attr(s)}}); };
        break;
      }
      case Mods::DivRem:
      case Mods::DivRemUnsigned: {
        int s = e.mods == Mods::DivRem ? tile::kSigned : tile::kUnsigned;
        t[e.ttir] = [to, s](C &c, O o) { c.intDivRem(o, to, s); };
        break;
      }
      case Mods::Rounding:
      case Mods::DivF:
      case Mods::FastFtz:
      case Mods::FastSqrt:
      case Mods::FastExp: {
        Mods m = e.mods;
        t[e.ttir] = [to, m](C &c, O o) { c.elementwise(o, to, c.floatMods(o.result(0)->type, m)); };
        break;
      }
      }
    }
    t["tt.precise_sqrt"] = [](C &c, O o) {
      c.elementwise(o, "sqrt", {{"rounding", i32Attr(tile::kNearestEven)}});
    };
    t["tt.precise_divf"] = [](C &c, O o) {
      c.elementwise(o, "divf", {{"rounding", i32Attr(tile::kNearestEven)}});
    };
    t["arith.maxnumf"] = [](C &c, O o) { c.elementwise(o, "maxf"); };
    t["arith.minnumf"] = [](C &c, O o) { c.elementwise(o, "minf"); };
    t["arith.maximumf"] = [](C &c, O o) {
      c.elementwise(o, "maxf", {{"propagate_nan", Attribute::unit()}});
    };
    t["arith.minimumf"] = [](C &c, O o) {
      c.elementwise(o, "minf", {{"propagate_nan", Attribute::unit()}});
    };
    t["arith.cmpi"] = [](C &c, O o) { c.cmpi(o); };
    t["arith.cmpf"] = [](C &c, O o) { c.cmpf(o); };
    t["arith.select"] = [](C &c, O o) { c.select(o); };
    t["arith.constant"] = [](C &c, O o) { c.constant(o); };
    t["arith.extsi"] = [](C &c, O o) { c.cast(o, "exti", tile::kSigned); };
    t["arith.extui"] = [](C &c, O o) { c.cast(o, "exti", tile::kUnsigned); };
    t["arith.trunci"] = [](C &c, O o) { c.cast(o, "trunci"); };
    t["arith.extf"] = [](C &c, O o) { c.cast(o, "ftof", -1, tile::kNearestEven); };
    t["arith.truncf"] = [](C &c, O o) { c.cast(o, "ftof", -1, tile::kNearestEven); };
    t["arith.sitofp"] = [](C &c, O o) { c.cast(o, "itof", tile::kSigned, tile::kNearestEven); };
    t["arith.uitofp"] = [](C &c, O o) { c.cast(o, "itof", tile::kUnsigned, tile::kNearestEven); };
    t["arith.fptosi"] = [](C &c, O o) {
      c.cast(o, "ftoi", tile::kSigned, tile::kNearestIntToZero);
    };
    t["arith.fptoui"] = [](C &c, O o) {
      c.cast(o, "ftoi", tile::kUnsigned, tile::kNearestIntToZero);
    };
    t["arith.bitcast"] = [](C &c, O o) { c.bitcast(o); };
    t["tt.bitcast"] = [](C &c, O o) { c.bitcast(o); };
    t["tt.fp_to_fp"] = [](C &c, O o) { c.fpToFp(o); };
    t["math.erf"] = [](C &c, O o) { c.erf(o); };
    t["tt.histogram"] = [](C &c, O o) { c.histogram(o); };
    t["tt.gather"] = [](C &c, O o) { c.gather(o); };
    t["tt.int_to_ptr"] = [](C &c, O o) { c.cast(o, "int_to_ptr"); };
    t["tt.ptr_to_int"] = [](C &c, O o) { c.cast(o, "ptr_to_int"); };
    t["tt.clampf"] = [](C &c, O o) { c.clampf(o); };
    t["tt.get_program_id"] = [](C &c, O o) { c.programId(o, "get_tile_block_id"); };
    t["tt.get_num_programs"] = [](C &c, O o) { c.programId(o, "get_num_tile_blocks"); };
    t["tt.make_range"] = [](C &c, O o) { c.makeRange(o); };
    t["tt.splat"] = [](C &c, O o) { c.bind(o, c.splat(c.get(o.operand(0)), o.result(0)->type)); };
    t["tt.broadcast"] = [](C &c, O o) { c.broadcastOp(o); };
    t["tt.expand_dims"] = [](C &c, O o) { c.reshapeLike(o); };
    t["tt.reshape"] = [](C &c, O o) { c.reshapeLike(o); };
    t["tt.trans"] = [](C &c, O o) { c.trans(o); };
    t["tt.join"] = [](C &c, O o) { c.join(o); };
    t["tt.split"] = [](C &c, O o) { c.split(o); };
    t["tt.cat"] = [](C &c, O o) { c.cat(o); };
    t["tt.addptr"] = [](C &c, O o) { c.elementwise(o, "offset"); };
    t["tt.load"] = [](C &c, O o) { c.load(o); };
    t["tt.store"] = [](C &c, O o) { c.store(o); };
    t["tt.atomic_rmw"] = [](C &c, O o) { c.atomicRmw(o); };
    t["tt.atomic_cas"] = [](C &c, O o) { c.atomicCas(o); };
    t["tt.dot"] = [](C &c, O o) { c.dot(o); };
    // Block pointers and descriptors emit nothing themselves: each access reads them (a
    // descriptor's shape >= 0 is a contract: asserted by assert-contracts for CPU targets).
    t["tt.make_tensor_ptr"] = [](C &, O) {};
    t["tt.make_tensor_descriptor"] = [](C &, O) {};
    t["tt.advance"] = [](C &, O) {
      throw Unsupported{"tt.advance must be folded by expand-block-pointer-loops first"};
    };
    t["tt.descriptor_load"] = [](C &c, O o) { c.load(o); };
    t["tt.descriptor_store"] = [](C &c, O o) { c.store(o); };
    t["tt.reduce"] = [](C &c, O o) { c.reduceLike(o, false); };
    t["tt.scan"] = [](C &c, O o) { c.reduceLike(o, true); };
    t["scf.for"] = [](C &c, O o) { c.forOp(o); };
    t["scf.if"] = [](C &c, O o) { c.ifOp(o); };
    t["scf.while"] = [](C &c, O o) { c.whileOp(o); };
    t["tt.print"] = [](C &c, O o) { c.print(o); };
    t["tt.assert"] = [](C &c, O o) {
      c.make("assert", {c.get(o.operand(0))}, {}, {{"message", o.attr("message")}});
    };
    // tl.assume: a hint to the GPU (index_bounds.h takes its facts; Tile IR's assume takes other
    // forms; assert-contracts checks it for CPU targets).
    t["llvm.intr.assume"] = [](C &, O) {};
    t["gpu.barrier"] = [](C &c, O) {
      c.make("join_tokens", {c.make1("make_token", {}, Type::token())}, {Type::token()},
             {{"fence", Attribute::unit()}});
    };
    return t;
  }();
  return table;
}

} // namespace tt::tile_conv

namespace tt {

using tile_conv::Converter;

TileConversion convertTTIRToTile(const Module &ttir, const std::string &kernel,
                                 const TileOptions &options) {
  TileConversion result;
  const Operation *func = ttir.lookupFunc(kernel);
  if (!func) {
    result.unsupported.push_back({"tt.func", "<unknown>", "no kernel named " + kernel});
    return result;
  }
  for (const Operation *f : ttir.funcs())
    if (f != func)
      result.unsupported.push_back({"tt.func", locationString(f->loc()),
                                    "functions other than the kernel must be inlined first"});
  auto m = std::make_unique<Module>();
  Converter conv(*m, options, result);
  conv.convertKernel(*func);
  if (!result.unsupported.empty())
    return result;
  verifyModule(*m);
  runPasses(*m, options.passes, PassContext{options.aliasClasses});
  result.module = std::move(m);
  if (!conv.guard().empty())
    result.guard = conv.guard().build(kernel + "_launch_guard", result.guardArgs);
  return result;
}

} // namespace tt
