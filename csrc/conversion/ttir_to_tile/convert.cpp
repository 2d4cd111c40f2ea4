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
//   - TILEIR_ENABLE_APPROX/FTZ set approx rounding and flush_to_zero on f32 ops;
//   - cache/eviction modifiers and isVolatile are ignored (Tile IR has none); hints
//     (llvm.intr.assume) are dropped; gpu.barrier becomes a token fence (tokens.cpp).
// Known limits: see unsupported() calls: fp8 atomics, 16-bit float atomic max/min, 16-bit CAS,
// tt.histogram and tt.gather over 2^20 compares, math.erf on f64, cmpf ord/uno.
#include "conversion/ttir_to_tile/convert.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "conversion/ttir_to_tile/index_views.h"
#include "conversion/ttir_to_tile/launch_guard.h"
#include "conversion/ttir_to_tile/raise_views.h"
#include "ir/builder.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "tile/tile.h"

namespace tt {
namespace {

Type i1() { return Type::integer(1); }
Type i32() { return Type::integer(32); }
Type i64() { return Type::integer(64); }
Attribute i32Attr(int64_t v) { return Attribute::integer(v, i32()); }

struct Unsupported {
  std::string reason;
};

// Hints go under Tile IR's `default` key (13.3+), so a module keeps them whatever sm_XX it is
// assembled for.
const char *const kHintKey = "default";

class Converter {
public:
  Converter(Module &dst, const TileOptions &opts, TileConversion &report)
      : b_(dst), opts_(opts), report_(report) {}

  const LaunchGuard &guard() const { return *guard_; }

  void convertKernel(const Operation &func) {
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
        index_.argDivisibility[src.arg(i)] = div;
      if (div > 1 && (arg->type.isPtr() || arg->type.isInt()))
        arg = make1("assume", {arg}, arg->type, {{"div_by", Attribute::integer(div, i64())}});
      map_[src.arg(i)] = arg;
    }
    block(src, Term::Return);
  }

private:
  enum class Term { Return, Yield, Continue, ReduceYield, WhileAfter };

  // ---------------------------------------------------------------- helpers

  Value *get(const Value *v) {
    auto it = map_.find(v);
    if (it != map_.end())
      return it->second;
    if (v->type.isTensorDesc() || v->type.isBlockPtr())
      throw Unsupported{"a tensor descriptor or block pointer must be visible at its use (not "
                        "carried through a loop or selected by an if) on the Tile path"};
    throw Unsupported{"internal: value used before it was converted"};
  }
  std::vector<Value *> get(const std::vector<Value *> &vs) {
    std::vector<Value *> out;
    for (const Value *v : vs)
      out.push_back(get(v));
    return out;
  }
  Operation *make(const std::string &n, const std::vector<Value *> &ops,
                  const std::vector<Type> &ts, Attrs attrs = {}, int regions = 0) {
    return b_.create("cuda_tile." + n, ops, ts, std::move(attrs), regions);
  }
  Value *make1(const std::string &n, const std::vector<Value *> &ops, Type t, Attrs attrs = {}) {
    return make(n, ops, {t}, std::move(attrs))->result(0);
  }
  Value *constInt(int64_t v, Type t) {
    Attribute a = t.isTensor() ? Attribute::denseSplat(0, v, t) : Attribute::integer(v, t);
    return make1("constant", {}, t, {{"value", a}});
  }
  Value *constFloat(double v, Type t) {
    Attribute a = t.isTensor() ? Attribute::denseSplat(v, 0, t) : Attribute::floating(v, t);
    return make1("constant", {}, t, {{"value", a}});
  }
  // Scalar -> tile of `t`'s shape (Tile IR has no implicit splat).
  Value *splat(Value *s, Type t) {
    if (!t.isTensor() || s->type == t)
      return s;
    std::vector<int64_t> ones(t.shape().size(), 1);
    Value *r = make1("reshape", {s}, t.withShape(ones));
    return make1("broadcast", {r}, t);
  }
  Value *toI64(Value *v) {
    if (v->type.isInt(64))
      return v;
    return make1("exti", {v}, i64(), {{"signedness", i32Attr(tile::kSigned)}});
  }

  bool f32(Type t) { return t.element().isFloat() && t.element().floatKind() == FloatKind::F32; }

  // Flags the environment asks for, on ops that take them (f32 only, as Tile IR allows).
  Attrs floatMods(Type t, bool rounding, bool approxable) {
    Attrs a;
    if (rounding)
      a.emplace_back(
          "rounding",
          i32Attr(opts_.approx && approxable && f32(t) ? tile::kApprox : tile::kNearestEven));
    if (opts_.ftz && f32(t))
      a.emplace_back("flush_to_zero", Attribute::unit());
    return a;
  }

  // 90 for "sm_90", 100 for "sm_100" (string order would put sm_100 before sm_90).
  int archNumber() const {
    size_t u = opts_.arch.find('_');
    return u == std::string::npos ? 0 : std::atoi(opts_.arch.c_str() + u + 1);
  }

  // Does the kernel profit from num_worker_warps_per_cta? Reductions and dots in nested loops
  // did (attention 1.7x, a persistent matmul 15x); a plain matmul lost 1.4x.
  static bool wantsWorkerWarps(const Operation &op, int loops) {
    if (op.is("tt.reduce") || (op.is("tt.dot") && loops >= 2))
      return true;
    int inner = loops + (op.is("scf.for") || op.is("scf.while"));
    for (size_t r = 0; r < op.numRegions(); ++r)
      for (const auto &b : op.region(r)->blocks)
        for (const auto &o : b->ops())
          if (wantsWorkerWarps(*o, inner))
            return true;
    return false;
  }

  Attribute entryHints(const Operation &func) {
    std::vector<std::pair<std::string, Attribute>> inner;
    if (opts_.numCtas > 1)
      inner.emplace_back("num_cta_in_cga", i32Attr(opts_.numCtas));
    if (opts_.occupancy > 0)
      inner.emplace_back("occupancy", i32Attr(opts_.occupancy));
    if (opts_.workerWarps > 0 && (!opts_.workerWarpsAuto || wantsWorkerWarps(func, 0)))
      inner.emplace_back("num_worker_warps_per_cta", i32Attr(opts_.workerWarps));
    if (inner.empty())
      return Attribute();
    return Attribute::dict({{kHintKey, Attribute::dict(inner)}});
  }

  Attrs memoryAttrs(std::vector<int64_t> segments, int ordering = tile::kWeak, int scope = -1,
                    bool view = false) {
    Attrs a = {{"memory_ordering_semantics", i32Attr(ordering)},
               {"operandSegmentSizes", Attribute::i32Array(std::move(segments))}};
    if (scope >= 0)
      a.emplace_back("memory_scope", i32Attr(scope));
    // The latency hint exists on loads and stores only (Tile IR's atomics take no hints);
    // allow_tma on view accesses only.
    std::vector<std::pair<std::string, Attribute>> hints;
    if (opts_.numStages > 0 && scope < 0)
      hints.emplace_back("latency", i32Attr(std::min(opts_.numStages, 10)));
    if (view && !opts_.allowTma)
      hints.emplace_back("allow_tma", Attribute::boolean(false));
    if (!hints.empty())
      a.emplace_back("optimization_hints", Attribute::dict({{kHintKey, Attribute::dict(hints)}}));
    return a;
  }
  Attrs viewAttrs(std::vector<int64_t> segments) {
    return memoryAttrs(std::move(segments), tile::kWeak, -1, true);
  }

  void bind(const Operation &op, const std::vector<Value *> &vals) {
    for (size_t i = 0; i < op.numResults(); ++i)
      map_[op.result(i)] = vals.at(i);
  }
  void bind(const Operation &op, Value *v) { bind(op, std::vector<Value *>{v}); }

  // ---------------------------------------------------------------- walking

  void block(const Block &src, Term term) {
    for (const auto &o : src.ops()) {
      b_.setLoc(o->loc());
      if (&src == index_.top) {
        // Views of the tile-index form are made here, before this top-level op.
        topBlock_ = b_.saveInsertionPoint().block;
        topAnchor_ = topBlock_->back();
      }
      if (o->info()->has(kTerminator)) {
        terminator(*o, term);
        continue;
      }
      try {
        op(*o);
      } catch (const Unsupported &u) {
        if (reporting_)
          report_.unsupported.push_back({o->name(), locationString(o->loc()), u.reason});
        // Keep walking with placeholders so every unsupported op is reported, not just the first.
        for (size_t i = 0; i < o->numResults(); ++i)
          map_[o->result(i)] = placeholder(o->result(i)->type);
      }
    }
  }

  Value *placeholder(Type t) {
    if (t.element().isFloat())
      return constFloat(0, t);
    if (t.element().isInt())
      return constInt(0, t);
    if (t.element().isPtr())
      return make1("int_to_ptr", {constInt(0, t.withElement(i64()))}, t);
    return make1("make_token", {}, Type::token());
  }

  void terminator(const Operation &t, Term term) {
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

  void op(const Operation &o) {
    const std::string &n = o.name();
    auto it = handlers().find(n);
    if (it == handlers().end())
      throw Unsupported{"no Tile IR lowering for '" + n + "'"};
    it->second(*this, o);
  }

  using Handler = std::function<void(Converter &, const Operation &)>;
  static const std::unordered_map<std::string, Handler> &handlers();

  // ---------------------------------------------------------------- op groups

  void elementwise(const Operation &o, const std::string &name, Attrs attrs = {}) {
    bind(o, make1(name, get(o.operands), o.result(0)->type, std::move(attrs)));
  }

  void cmpi(const Operation &o) {
    static const int pred[] = {tile::kEq, tile::kNe, tile::kLt, tile::kLe, tile::kGt,
                               tile::kGe, tile::kLt, tile::kLe, tile::kGt, tile::kGe};
    int64_t p = o.intAttr("predicate");
    if (o.operand(0)->type.element().isPtr())
      throw Unsupported{"pointer comparison"};
    bool isSigned = p >= 2 && p <= 5;
    elementwise(o, "cmpi",
                {{"comparison_predicate", i32Attr(pred[p])},
                 {"signedness", i32Attr(isSigned || p < 2 ? tile::kSigned : tile::kUnsigned)}});
  }

  void cmpf(const Operation &o) {
    // MLIR predicate -> (Tile IR predicate, ordered?)
    int64_t p = o.intAttr("predicate");
    static const int pred[] = {-1,        tile::kEq, tile::kGt, tile::kGe, tile::kLt, tile::kLe,
                               tile::kNe, -1,        tile::kEq, tile::kGt, tile::kGe, tile::kLt,
                               tile::kLe, tile::kNe, -1,        -1};
    if (p < 0 || p > 15 || pred[p] < 0)
      throw Unsupported{"cmpf predicate has no Tile IR form"};
    elementwise(o, "cmpf",
                {{"comparison_predicate", i32Attr(pred[p])},
                 {"comparison_ordering", i32Attr(p >= 1 && p <= 6 ? 1 : 0)}});
  }

  void select(const Operation &o) {
    Value *c = get(o.operand(0));
    Type t = o.result(0)->type;
    bind(o,
         make1("select", {splat(c, t.withElement(i1())), get(o.operand(1)), get(o.operand(2))}, t));
  }

  void constant(const Operation &o) {
    bind(o, make1("constant", {}, o.result(0)->type, {{"value", o.attr("value")}}));
  }

  void makeRange(const Operation &o) {
    Type t = o.result(0)->type;
    Value *r = make1("iota", {}, t);
    int64_t start = o.intAttr("start");
    if (start != 0)
      r = make1("addi", {r, constInt(start, t)}, t);
    bind(o, r);
  }

  void programId(const Operation &o, const char *name) {
    Operation *ids = make(name, {}, {i32(), i32(), i32()});
    bind(o, ids->result(static_cast<size_t>(o.intAttr("axis"))));
  }

  void reshapeLike(const Operation &o) {
    bind(o, make1("reshape", {get(o.operand(0))}, o.result(0)->type));
  }

  void broadcastOp(const Operation &o) {
    Value *in = get(o.operand(0));
    Type t = o.result(0)->type;
    bind(o, in->type == t ? in : make1("broadcast", {in}, t));
  }

  void trans(const Operation &o) {
    bind(o, make1("permute", {get(o.operand(0))}, o.result(0)->type,
                  {{"permutation", Attribute::i32Array(o.attr("order").getInts())}}));
  }

  void join(const Operation &o) {
    Type t = o.result(0)->type;
    std::vector<int64_t> s = o.operand(0)->type.shape();
    s.push_back(1);
    Type one = t.withShape(s);
    Value *a = make1("reshape", {get(o.operand(0))}, one);
    Value *c = make1("reshape", {get(o.operand(1))}, one);
    bind(o, make1("cat", {a, c}, t, {{"dim", i32Attr(static_cast<int64_t>(s.size()) - 1)}}));
  }

  void split(const Operation &o) {
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

  void cat(const Operation &o) {
    bind(o, make1("cat", get(o.operands), o.result(0)->type, {{"dim", i32Attr(0)}}));
  }

  void cast(const Operation &o, const char *name, int signedness = -1, int rounding = -1) {
    Attrs a;
    if (signedness >= 0)
      a.emplace_back("signedness", i32Attr(signedness));
    if (rounding >= 0)
      a.emplace_back("rounding", i32Attr(rounding));
    bind(o, make1(name, {get(o.operand(0))}, o.result(0)->type, a));
  }

  // math.erf on f32 (Tile IR has none; Triton's erf takes f32 and f64):
  //   |x| < 1:       x * P(x^2)
  //   1 <= |x| < 4:  sign(x) * (1 - exp(Q(|x|))), Q a fit of log(erfc) on [1, 4]
  //   |x| >= 4:      sign(x) (erfc(4) = 1.5e-8 is under half an ulp of 1); NaN stays NaN.
  // P (degree 5) and Q (degree 9) are least-squares fits in float64 on Chebyshev nodes: in
  // f32 arithmetic without FMA they are at most 2.3 ulp from float64's erf over [-6, 6]
  // (libdevice's erff: 2 ulp). f64 would need other fits: unsupported (the PTX path runs it).
  void erf(const Operation &o) {
    static const double kP[] = {1.1283791,   -0.3761232,   0.112801306,
                                -0.02670995, 0.0049160235, -0.0005625396};
    static const double kQ[] = {0.00040050052, -1.1306045,   -0.63108885,   -0.11090742,
                                0.026999498,   -0.005021045, 0.00067333755, -6.0068796e-05,
                                3.0952046e-06, -6.582858e-08};
    Type f = o.result(0)->type;
    if (!f32(f))
      throw Unsupported{"math.erf on f64 (Tile IR has no erf; ours is an f32 polynomial)"};
    Attrs nearest = floatMods(f, true, false);
    auto op = [&](const char *n, Value *a, Value *b) { return make1(n, {a, b}, f, nearest); };
    auto horner = [&](const double *k, int n, Value *v) {
      Value *r = constFloat(k[n - 1], f);
      for (int i = n - 2; i >= 0; --i)
        r = op("addf", op("mulf", r, v), constFloat(k[i], f));
      return r;
    };
    auto cmp = [&](int pred, Value *a, double b) {
      return make1("cmpf", {a, constFloat(b, f)}, f.withElement(Type::integer(1)),
                   {{"comparison_predicate", i32Attr(pred)}, {"comparison_ordering", i32Attr(1)}});
    };
    Value *x = get(o.operand(0));
    Value *a = make1("absf", {x}, f);
    Value *small = op("mulf", x, horner(kP, 6, op("mulf", x, x)));
    Value *large = op("subf", constFloat(1, f), make1("exp", {horner(kQ, 10, a)}, f));
    large = make1("select", {cmp(tile::kGe, a, 4), constFloat(1, f), large}, f);
    large = make1("select", {cmp(tile::kLt, x, 0), make1("negf", {large}, f), large}, f);
    bind(o, make1("select", {cmp(tile::kLt, a, 1), small, large}, f));
  }

  // tt.fp_to_fp. Round toward zero (a downcast's `rtz`): Tile IR's ftof rounds to nearest
  // even, so a result that came out larger in magnitude than the source (widened back
  // exactly, compared) steps one unit toward zero on its bits: inf from a finite source
  // becomes the largest finite value; zeros, infinities and NaN stay.
  void fpToFp(const Operation &o) {
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

  void bitcast(const Operation &o) {
    Type from = o.operand(0)->type.element(), to = o.result(0)->type.element();
    cast(o, from.isPtr() && to.isPtr() ? "ptr_to_ptr" : "bitcast");
  }

  void clampf(const Operation &o) {
    Type t = o.result(0)->type;
    Attrs nan;
    if (o.intAttr("propagateNan"))
      nan.emplace_back("propagate_nan", Attribute::unit());
    Value *lo = make1("maxf", {get(o.operand(0)), get(o.operand(1))}, t, nan);
    bind(o, make1("minf", {lo, get(o.operand(2))}, t, nan));
  }

  // ---------------------------------------------------------------- memory

  int64_t constantOf(SExprPtr e, bool &known) {
    int64_t c = 0;
    known = sIsConst(e, c);
    return c;
  }

  Value *emit(const SExprPtr &e) {
    if (!e)
      return constInt(0, i64());
    switch (e->kind) {
    case SExpr::Kind::Const:
      return constInt(e->c, i64());
    case SExpr::Kind::Val:
      return toI64(get(e->v));
    case SExpr::Kind::Add:
      return make1("addi", {emit(e->a), emit(e->b)}, i64());
    case SExpr::Kind::Mul:
      return make1("muli", {emit(e->a), emit(e->b)}, i64());
    }
    return nullptr;
  }

  // Builds the partition view of a plan; `guard` is set to the i1 "some lane is inside"
  // condition when an extent is dynamic (Tile IR requires index 0 to be inside the view).
  Value *makeView(const ViewPlan &plan, Type elem, Padding padding, Value *&guard) {
    Value *base = make1("offset", {get(plan.base), emit(plan.offset)}, plan.base->type);
    std::vector<ViewDim> dims(plan.tile.size());
    guard = nullptr;
    for (size_t d = 0; d < plan.tile.size(); ++d) {
      bool known;
      int64_t c;
      if (!plan.extents[d]) {
        dims[d].extent = plan.tile[d];
      } else if ((c = constantOf(plan.extents[d], known)), known) {
        // An empty box (an always-false mask) is never accessed; Tile IR still wants a
        // positive static extent in the view's type.
        dims[d].extent = std::max<int64_t>(c, 1);
        if (c <= 0)
          guard = constInt(0, i1());
      } else {
        Value *ext = emit(plan.extents[d]);
        Value *zero = constInt(0, i64());
        Value *pos = make1(
            "cmpi", {ext, zero}, i1(),
            {{"comparison_predicate", i32Attr(tile::kGt)}, {"signedness", i32Attr(tile::kSigned)}});
        guard = guard ? make1("andi", {guard, pos}, i1()) : pos;
        dims[d].dynExtent =
            make1("maxi", {ext, zero}, i64(), {{"signedness", i32Attr(tile::kSigned)}});
      }
      if ((c = constantOf(plan.strides[d], known)), known && c > 0)
        dims[d].stride = c;
      else
        dims[d].dynStride = emit(plan.strides[d]);
    }
    return partitionView(base, dims, elem, plan.tile, padding, plan.strideAlign);
  }

  // One dimension of a view: a static extent/stride, or a dynamic value (kDynamic).
  struct ViewDim {
    int64_t extent = kDynamic, stride = kDynamic;
    Value *dynExtent = nullptr, *dynStride = nullptr;
    bool narrow = false; // pass the stride as i32 widened to i64 (index_views.h says why)
  };

  // make_tensor_view + make_partition_view for a tile whose dimension d is `dims[d]`. The
  // tensor view lists the dimensions in memory order, the unit-stride one last (TMA needs its
  // innermost dimension contiguous: a transposed tile, such as K^T in attention, is loaded
  // through dim_map). Dynamic strides get `assume div_by<strideAlign>` when strideAlign > 1
  // (descriptors: Triton requires 16-byte multiples).
  Value *partitionView(Value *base, const std::vector<ViewDim> &dims, Type elem,
                       const std::vector<int64_t> &tile, Padding padding, int64_t strideAlign) {
    std::vector<size_t> order;
    int unit = -1;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].stride == 1 && tile[d] > 1 && unit < 0)
        unit = static_cast<int>(d);
      else
        order.push_back(d);
    }
    if (unit >= 0)
      order.push_back(static_cast<size_t>(unit));
    std::vector<int64_t> shape, strides, dimMap(dims.size());
    std::vector<Value *> operands = {base}, dynStrides;
    for (size_t k = 0; k < order.size(); ++k) {
      const ViewDim &v = dims[order[k]];
      dimMap[order[k]] = static_cast<int64_t>(k);
      shape.push_back(v.dynExtent ? kDynamic : v.extent);
      if (v.dynExtent)
        operands.push_back(v.dynExtent);
      strides.push_back(v.dynStride ? kDynamic : v.stride);
      if (v.dynStride) {
        Value *s = v.narrow ? make1("trunci", {v.dynStride}, i32()) : v.dynStride;
        if (strideAlign > 1)
          s = make1("assume", {s}, s->type, {{"div_by", Attribute::integer(strideAlign, i64())}});
        if (v.narrow)
          s = make1("exti", {s}, i64(), {{"signedness", i32Attr(tile::kSigned)}});
        dynStrides.push_back(s);
      }
    }
    operands.insert(operands.end(), dynStrides.begin(), dynStrides.end());
    Type tv = Type::tensorView(elem, shape, strides);
    Value *tview = make1("make_tensor_view", operands, tv);
    return make1("make_partition_view", {tview}, Type::partitionView(tile, tv, dimMap, padding));
  }

  // Recognises `other` values Tile IR can express as view padding.
  Padding paddingFor(const Value *other, Type elem, bool &needsSelect) {
    needsSelect = false;
    if (!other)
      return Padding::Zero;
    const Operation *d = other->def;
    if (d && d->is("arith.constant")) {
      Attribute a = d->attr("value");
      if (a.kind() == Attribute::Kind::Dense || a.kind() == Attribute::Kind::Float ||
          a.kind() == Attribute::Kind::Int) {
        if (elem.isFloat() && (a.kind() != Attribute::Kind::Int)) {
          double v = a.getFloat();
          if (v == 0 && !std::signbit(v))
            return Padding::Zero;
          if (v == 0)
            return Padding::NegZero;
          if (std::isnan(v))
            return Padding::NaN;
          if (std::isinf(v))
            return v > 0 ? Padding::PosInf : Padding::NegInf;
        } else if (!elem.isFloat() && a.getInt() == 0) {
          return Padding::Zero;
        }
      }
    }
    needsSelect = true;
    return Padding::Zero;
  }

  std::vector<int64_t> zeroIndices(size_t rank) { return std::vector<int64_t>(rank, 0); }

  // The access as a gather/scatter through its pointer tile (the general form).
  Value *pointerLoad(const Operation &o) {
    std::vector<Value *> ops = {get(o.operand(0))};
    std::vector<int64_t> seg = {1, 0, 0, 0};
    for (size_t k = 1; k < o.numOperands() && k < 3; ++k) {
      ops.push_back(get(o.operand(k)));
      seg[k] = 1;
    }
    return make("load_ptr_tko", ops, {o.result(0)->type, Type::token()}, memoryAttrs(seg))
        ->result(0);
  }

  void pointerStore(const Operation &o) {
    std::vector<int64_t> seg = {1, 1, o.numOperands() > 2 ? 1 : 0, 0};
    make("store_ptr_tko", get(o.operands), {Type::token()}, memoryAttrs(seg));
  }

  // `a <= b` for every condition the plan relies on (e.g. a `%` that cannot wrap).
  Value *planConditions(const ViewPlan &plan) {
    Value *all = nullptr;
    for (const auto &c : plan.conditions) {
      Value *v = make1(
          "cmpi", {emit(c.first), emit(c.second)}, i1(),
          {{"comparison_predicate", i32Attr(tile::kLe)}, {"signedness", i32Attr(tile::kSigned)}});
      all = all ? make1("andi", {all, v}, i1()) : v;
    }
    return all;
  }

  // if (conditions) { then() } else { otherwise() }, yielding `types`; inline when none.
  std::vector<Value *> branchOn(Value *cond, const std::vector<Type> &types,
                                const std::function<std::vector<Value *>()> &then,
                                const std::function<std::vector<Value *>()> &otherwise) {
    if (!cond)
      return then();
    Operation *ifOp = make("if", {cond}, types, {}, 2);
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(ifOp->region(0)->addBlock());
    make("yield", then(), {});
    b_.setInsertionPointToEnd(ifOp->region(1)->addBlock());
    make("yield", otherwise(), {});
    b_.restoreInsertionPoint(ip);
    std::vector<Value *> res;
    for (size_t i = 0; i < ifOp->numResults(); ++i)
      res.push_back(ifOp->result(i));
    return res;
  }

  Value *viewLoad(const Operation &o, const ViewPlan &plan, Padding pad) {
    Type t = o.result(0)->type;
    Value *guard;
    Value *view = makeView(plan, t.element(), pad, guard);
    return branchOn(
        opts_.guardViews ? guard : nullptr, {t},
        [&]() -> std::vector<Value *> {
          std::vector<Value *> ops = {view};
          for (size_t d = 0; d < plan.tile.size(); ++d)
            ops.push_back(constInt(0, i32()));
          return {make("load_view_tko", ops, {t, Type::token()},
                       viewAttrs({1, static_cast<int64_t>(plan.tile.size()), 0}))
                      ->result(0)};
        },
        [&]() -> std::vector<Value *> { return {paddingTile(t, pad)}; })[0];
  }

  void viewStore(const Operation &o, const ViewPlan &plan) {
    Value *guard;
    Value *view = makeView(plan, o.operand(1)->type.element(), Padding::None, guard);
    branchOn(
        opts_.guardViews ? guard : nullptr, {},
        [&]() -> std::vector<Value *> {
          std::vector<Value *> ops = {get(o.operand(1)), view};
          for (size_t d = 0; d < plan.tile.size(); ++d)
            ops.push_back(constInt(0, i32()));
          make("store_view_tko", ops, {Type::token()},
               viewAttrs({1, 1, static_cast<int64_t>(plan.tile.size()), 0}));
          return {};
        },
        [&]() -> std::vector<Value *> { return {}; });
  }

  void load(const Operation &o) {
    auto it = indexPlans_.find(&o);
    bind(o, it == indexPlans_.end() ? generalLoad(o) : indexedLoad(o, it->second));
  }

  void store(const Operation &o) {
    auto it = indexPlans_.find(&o);
    if (it == indexPlans_.end())
      generalStore(o);
    else
      indexedStore(o, it->second);
  }

  static bool isBoxAccess(const Operation &o) {
    return o.is("tt.descriptor_load") || o.is("tt.descriptor_store") ||
           o.operand(0)->type.isBlockPtr();
  }

  // Whether a pointer access of type `t` may become a view. A tile with one dimension inside a
  // loop stays a gather unless TileOptions::loopVectorViews: on an H200 gathers ran softmax and
  // layer norm 1.1-1.3x faster than views there (docs/gpu_perf_notes.md); elsewhere they tie.
  bool raisable(Type t, bool inLoop, std::string &why) const {
    if (!opts_.raiseViews || !t.isTensor()) {
      why = "view raising disabled";
      return false;
    }
    int dims = 0;
    for (int64_t n : t.shape())
      dims += n > 1;
    if (dims < 2 && inLoop && !opts_.loopVectorViews) {
      why = "a one-dimensional tile inside a loop stays a gather (measured faster)";
      return false;
    }
    return true;
  }

  // The access in its form for any offset (a view at the box's corner or a gather).
  Value *generalLoad(const Operation &o) {
    Type t = o.result(0)->type;
    if (isBoxAccess(o) && gatherOnly_.count(&o)) {
      Value *v = boxGather(boxOf(o));
      return v->type == t ? v : make1("reshape", {v}, t);
    }
    if (isBoxAccess(o))
      return boxLoad(o, boxOf(o));
    std::string why;
    std::optional<ViewPlan> plan;
    if (raisable(t, loopDepth_ > 0, why))
      plan = planView(o, why);
    if (!plan) {
      if (t.isTensor())
        note(o, false, why);
      return pointerLoad(o);
    }
    bool needsSelect;
    const Value *other = o.numOperands() > 2 ? o.operand(2) : nullptr;
    Padding pad = paddingFor(other, t.element(), needsSelect);
    Value *loaded = branchOn(
        opts_.guardViews ? planConditions(*plan) : nullptr, {t},
        [&]() -> std::vector<Value *> {
          Value *v = viewLoad(o, *plan, pad);
          if (needsSelect)
            v = make1("select", {get(o.operand(1)), v, get(other)}, t);
          return {v};
        },
        [&]() -> std::vector<Value *> { return {pointerLoad(o)}; })[0];
    std::string detail = "tensor_view + partition_view, padding " + std::string(paddingName(pad));
    if (!plan->conditions.empty())
      detail += " (when the index cannot wrap; a gather otherwise)";
    note(o, true, detail);
    return loaded;
  }

  Value *paddingTile(Type t, Padding p) {
    if (!t.element().isFloat())
      return constInt(0, t);
    return constFloat(paddingValue(p), t);
  }

  void generalStore(const Operation &o) {
    Type t = o.operand(1)->type;
    if (isBoxAccess(o) && gatherOnly_.count(&o)) {
      Box a = boxOf(o);
      Value *val = get(o.operand(1));
      return boxScatter(a, val->type == a.block ? val : make1("reshape", {val}, a.block));
    }
    if (isBoxAccess(o))
      return boxStore(o, boxOf(o));
    std::string why;
    std::optional<ViewPlan> plan;
    if (raisable(t, loopDepth_ > 0, why))
      plan = planView(o, why);
    if (!plan) {
      if (t.isTensor())
        note(o, false, why);
      pointerStore(o);
      return;
    }
    branchOn(
        opts_.guardViews ? planConditions(*plan) : nullptr, {},
        [&]() -> std::vector<Value *> {
          viewStore(o, *plan);
          return {};
        },
        [&]() -> std::vector<Value *> {
          pointerStore(o);
          return {};
        });
    note(o, true, "tensor_view + partition_view");
  }

  static int ordering(int64_t sem) {
    switch (sem) {
    case 1:
      return tile::kRelaxed;
    case 2:
      return tile::kAcquire;
    case 3:
      return tile::kRelease;
    default:
      return tile::kAcqRel;
    }
  }
  static int scope(int64_t s) {
    return s == 2 ? tile::kTileBlock : s == 3 ? tile::kSystem : tile::kDevice;
  }

  void atomicRmw(const Operation &o) {
    Type elem = o.operand(1)->type.element();
    int64_t op = o.intAttr("atomic_rmw_op");
    // TTIR's RMWOp (and 1 .. xchg 10) and Tile IR's AtomicRMWMode (and 0 .. xchg 9) list the
    // operations in the same order.
    if (op < 1 || op > 10)
      throw Unsupported{"unknown atomic op"};
    int mode = static_cast<int>(op - 1);
    bool isFloat = elem.isFloat();
    int width = elem.bitWidth();
    if (isFloat && (mode == tile::kMax || mode == tile::kMin) && width >= 32)
      return floatMinMax(o, mode);
    if (isFloat && mode != tile::kAddF && mode != tile::kXchg)
      throw Unsupported{"float atomic max/min on " + elem.str()};
    if (mode == tile::kAddF && elem.floatKind() == FloatKind::BF16 && archNumber() < 90)
      throw Unsupported{"bf16 atomic add needs sm_90"};
    if (!isFloat && width < 32)
      throw Unsupported{"atomics on " + elem.str() + " (Tile IR atomics take 32/64-bit integers)"};
    if (isFloat && (width == 8 || (mode == tile::kXchg && width < 32)))
      throw Unsupported{"atomics on " + elem.str()};
    std::vector<Value *> ops = get(o.operands);
    std::vector<int64_t> seg = {1, 1, o.numOperands() > 2 ? 1 : 0, 0};
    Attrs a = memoryAttrs(seg, ordering(o.intAttr("sem")), scope(o.intAttr("scope")));
    a.emplace_back("mode", i32Attr(mode));
    bind(o, make("atomic_rmw_tko", ops, {o.result(0)->type, Type::token()}, a)->result(0));
  }

  // Float atomic max/min (Tile IR's atomics take integers), as Triton lowers them: on the
  // bits, max is a signed max where val >= 0 and an unsigned min elsewhere (negative floats
  // order backwards as integers); min is a signed min / an unsigned max. The two atomics take
  // disjoint lanes and commute; each lane's old value comes from the one that ran it. NaN
  // values take the unsigned side, as in the CPU executors.
  void floatMinMax(const Operation &o, int mode) {
    Value *ptr = get(o.operand(0)), *val = get(o.operand(1));
    Type vt = val->type;
    Type it = vt.withElement(Type::integer(vt.element().bitWidth()));
    Type bt = vt.withElement(Type::integer(1));
    Value *iptr = make1("ptr_to_ptr", {ptr}, ptr->type.withElement(Type::pointer(it.element())));
    Value *ival = make1("bitcast", {val}, it);
    Value *pos =
        make1("cmpf", {val, constFloat(0, vt)}, bt,
              {{"comparison_predicate", i32Attr(tile::kGe)}, {"comparison_ordering", i32Attr(1)}});
    Value *mask = o.numOperands() > 2 ? get(o.operand(2)) : nullptr;
    auto side = [&](Value *lanes, int m) {
      Value *on = mask ? make1("andi", {mask, lanes}, bt) : lanes;
      Attrs a = memoryAttrs({1, 1, 1, 0}, ordering(o.intAttr("sem")), scope(o.intAttr("scope")));
      a.emplace_back("mode", i32Attr(m));
      return make("atomic_rmw_tko", {iptr, ival, on}, {it, Type::token()}, a)->result(0);
    };
    bool max = mode == tile::kMax;
    Value *neg = make1("xori", {pos, constInt(1, bt)}, bt);
    Value *p = side(pos, max ? tile::kMax : tile::kMin);
    Value *n = side(neg, max ? tile::kUMin : tile::kUMax);
    bind(o, make1("bitcast", {make1("select", {pos, p, n}, it)}, vt));
  }

  // tt.histogram (Tile IR has none): one-hot counts, the N values against the B bins as an
  // N x B compare summed over N. Values outside [0, B) and masked-off lanes count nowhere (the
  // CPU executors' rule). Above 2^20 compares the kernel falls back instead.
  void histogram(const Operation &o) {
    Value *x = get(o.operand(0));
    int64_t n = x->type.shape()[0], bins = o.result(0)->type.shape()[0];
    if (n * bins > (int64_t(1) << 20))
      throw Unsupported{"tt.histogram of " + std::to_string(n) + " values into " +
                        std::to_string(bins) + " bins (over 2^20 compares)"};
    Type ct = x->type.element().intWidth() > 32 ? i64() : i32();
    if (x->type.element() != ct)
      x = make1("exti", {x}, x->type.withElement(ct), {{"signedness", i32Attr(tile::kSigned)}});
    Type grid = Type::tensor({n, bins}, ct), hits = grid.withElement(Type::integer(1));
    auto spread = [&](Value *v, std::vector<int64_t> unit, Type to) {
      return make1("broadcast", {make1("reshape", {v}, v->type.withShape(unit))}, to);
    };
    Value *values = spread(x, {n, 1}, grid);
    Value *ids = spread(make1("iota", {}, Type::tensor({bins}, ct)), {1, bins}, grid);
    Value *hit = make1(
        "cmpi", {values, ids}, hits,
        {{"comparison_predicate", i32Attr(tile::kEq)}, {"signedness", i32Attr(tile::kSigned)}});
    if (o.numOperands() > 1)
      hit = make1("andi", {hit, spread(get(o.operand(1)), {n, 1}, hits)}, hits);
    Type counts = grid.withElement(i32());
    Value *ones = make1("exti", {hit}, counts, {{"signedness", i32Attr(tile::kUnsigned)}});
    Operation *r = make(
        "reduce", {ones}, {o.result(0)->type},
        {{"dim", i32Attr(0)}, {"identities", Attribute::array({Attribute::integer(0, i32())})}}, 1);
    Block *body = r->region(0)->addBlock();
    Value *elem = body->addArg(i32()), *acc = body->addArg(i32());
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(body);
    make("yield", {make1("addi", {acc, elem}, i32())}, {});
    b_.restoreInsertionPoint(ip);
    bind(o, r->result(0));
  }

  // tt.gather (Tile IR has none): one-hot selection. Each output lane compares its index
  // with every position 0..N-1 of the source's axis, in a tile of the index's shape plus a
  // last dimension N where the hit keeps the source element's bits and the others 0; an OR
  // over that dimension leaves the element (bits: exact for every type, -0.0 and NaN too). An
  // index outside [0, N) gathers 0 (Triton leaves it undefined; the CPU executors raise).
  // Above 2^20 compares the kernel falls back instead.
  void gather(const Operation &o) {
    Value *src = get(o.operand(0)), *idx = get(o.operand(1));
    const std::vector<int64_t> &ss = src->type.shape(), &is = idx->type.shape();
    size_t rank = is.size(), axis = static_cast<size_t>(o.intAttr("axis"));
    int64_t n = ss[axis], total = n;
    for (int64_t d : is)
      total *= d;
    Type se = src->type.element();
    if (total > (int64_t(1) << 20))
      throw Unsupported{"tt.gather over " + std::to_string(total) + " compares (over 2^20)"};
    if (!se.isFloat() && !(se.isInt() && se.intWidth() >= 8))
      throw Unsupported{"tt.gather of " + se.str()};
    Type bits = Type::integer(se.bitWidth());
    Value *sb = se.isFloat() ? make1("bitcast", {src}, src->type.withElement(bits)) : src;
    // The source with its axis last, then broadcast over the index's positions on that axis.
    std::vector<int64_t> perm, unit = is, big = is;
    for (size_t d = 0; d < rank; ++d)
      if (d != axis)
        perm.push_back(static_cast<int64_t>(d));
    perm.push_back(static_cast<int64_t>(axis));
    if (axis + 1 != rank) {
      std::vector<int64_t> moved;
      for (int64_t d : perm)
        moved.push_back(ss[d]);
      sb = make1("permute", {sb}, sb->type.withShape(moved),
                 {{"permutation", Attribute::i32Array(perm)}});
    }
    unit[axis] = 1;
    unit.push_back(n);
    big.push_back(n);
    Type grid = Type::tensor(big, bits);
    Value *values = make1("broadcast", {make1("reshape", {sb}, grid.withShape(unit))}, grid);
    Type ct = idx->type.element().intWidth() > 32 ? i64() : i32();
    if (idx->type.element() != ct)
      idx =
          make1("exti", {idx}, idx->type.withElement(ct), {{"signedness", i32Attr(tile::kSigned)}});
    std::vector<int64_t> idxUnit = is, posUnit(rank, 1);
    idxUnit.push_back(1);
    posUnit.push_back(n);
    Type cgrid = grid.withElement(ct);
    Value *want = make1("broadcast", {make1("reshape", {idx}, cgrid.withShape(idxUnit))}, cgrid);
    Value *iota = make1("iota", {}, Type::tensor({n}, ct));
    Value *pos = make1("broadcast", {make1("reshape", {iota}, cgrid.withShape(posUnit))}, cgrid);
    Value *hit = make1(
        "cmpi", {want, pos}, grid.withElement(Type::integer(1)),
        {{"comparison_predicate", i32Attr(tile::kEq)}, {"signedness", i32Attr(tile::kSigned)}});
    Value *picked = make1("select", {hit, values, constInt(0, grid)}, grid);
    Type out = idx->type.withElement(bits);
    Operation *r = make("reduce", {picked}, {out},
                        {{"dim", i32Attr(static_cast<int64_t>(rank))},
                         {"identities", Attribute::array({Attribute::integer(0, bits)})}},
                        1);
    Block *body = r->region(0)->addBlock();
    Value *elem = body->addArg(bits), *acc = body->addArg(bits);
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(body);
    make("yield", {make1("ori", {acc, elem}, bits)}, {});
    b_.restoreInsertionPoint(ip);
    Value *res = r->result(0);
    bind(o, se.isFloat() ? make1("bitcast", {res}, o.result(0)->type) : res);
  }

  void atomicCas(const Operation &o) {
    Type elem = o.operand(1)->type.element();
    if (elem.bitWidth() < 32)
      throw Unsupported{"compare-and-swap on " + elem.str() + " (Tile IR takes 32/64-bit values)"};
    std::vector<Value *> ops = get(o.operands);
    Attrs a = memoryAttrs({1, 1, 1, 0, 0}, ordering(o.intAttr("sem")), scope(o.intAttr("scope")));
    bind(o, make("atomic_cas_tko", ops, {o.result(0)->type, Type::token()}, a)->result(0));
  }

  // ---------------------------------------------------------------- descriptors, block ptrs

  // A box access: base + sum_d (offset_d + i_d) * stride_d, lanes outside [0, shape_d) on the
  // checked dimensions read padding and are not written (TMA semantics).
  struct Box {
    const Value *base = nullptr;
    std::vector<const Value *> shape, strides, offsets;
    std::vector<bool> checked;
    Type block;
    Padding pad = Padding::Zero;
    int64_t strideAlign = 1; // descriptors: strides are 16-byte multiples (Triton's TMA rule)
  };

  bool box(const Operation &o, Box &a) {
    const Operation *src = o.operand(0)->def;
    if (o.is("tt.load") || o.is("tt.store")) {
      if (!src || !src->is("tt.make_tensor_ptr"))
        return false;
      size_t r = static_cast<size_t>(src->result(0)->type.pointee().rank());
      a.base = src->operand(0);
      for (size_t d = 0; d < r; ++d) {
        a.shape.push_back(src->operand(1 + d));
        a.strides.push_back(src->operand(1 + r + d));
        a.offsets.push_back(src->operand(1 + 2 * r + d));
      }
      a.checked.assign(r, false);
      for (int64_t d : o.attr("boundaryCheck").getInts())
        if (d >= 0 && static_cast<size_t>(d) < r)
          a.checked[d] = true;
      a.block = src->result(0)->type.pointee();
      a.pad = o.intAttr("padding", 1) == 2 ? Padding::NaN : Padding::Zero;
      return true;
    }
    if (!src || !src->is("tt.make_tensor_descriptor"))
      return false;
    a.block = src->result(0)->type.descBlock();
    size_t r = static_cast<size_t>(a.block.rank());
    size_t first = o.is("tt.descriptor_store") ? 2 : 1;
    a.base = src->operand(0);
    for (size_t d = 0; d < r; ++d) {
      a.shape.push_back(src->operand(1 + d));
      a.strides.push_back(src->operand(1 + r + d));
      a.offsets.push_back(o.operand(first + d));
    }
    a.checked.assign(r, true);
    a.pad = src->intAttr("padding", 1) == 2 ? Padding::NaN : Padding::Zero;
    a.strideAlign = std::max(1, 16 / std::max(1, a.block.element().byteWidth()));
    return true;
  }

  Box boxOf(const Operation &o) {
    Box bx;
    if (!box(o, bx))
      throw Unsupported{o.operand(0)->type.isBlockPtr()
                            ? "block pointer not built by a visible tt.make_tensor_ptr"
                            : "descriptor not built by a visible tt.make_tensor_descriptor"};
    return bx;
  }

  Value *cmp64(Value *a, Value *b, int pred) {
    return make1("cmpi", {a, b}, a->type.withElement(i1()),
                 {{"comparison_predicate", i32Attr(pred)}, {"signedness", i32Attr(tile::kSigned)}});
  }

  // Every checked offset inside its dimension: the view form is valid (index 0 in range).
  Value *boxInRange(const Box &a) {
    Value *cond = nullptr;
    for (size_t d = 0; d < a.offsets.size(); ++d) {
      if (!a.checked[d])
        continue;
      Value *o = toI64(get(a.offsets[d]));
      Value *c = make1(
          "andi",
          {cmp64(o, constInt(0, i64()), tile::kGe), cmp64(o, toI64(get(a.shape[d])), tile::kLt)},
          i1());
      cond = cond ? make1("andi", {cond, c}, i1()) : c;
    }
    return cond;
  }

  ViewPlan boxPlan(const Box &a) {
    ViewPlan p;
    p.base = a.base;
    p.tile = a.block.shape();
    p.offset = sConst(0);
    p.strideAlign = a.strideAlign;
    for (size_t d = 0; d < a.offsets.size(); ++d) {
      SExprPtr o = scalarExpr(a.offsets[d]);
      p.offset = sAdd(p.offset, sMul(o, scalarExpr(a.strides[d])));
      p.strides.push_back(scalarExpr(a.strides[d]));
      p.extents.push_back(a.checked[d] ? sAdd(scalarExpr(a.shape[d]), sMul(o, sConst(-1)))
                                       : nullptr);
    }
    return p;
  }

  // The general form, for rows [row0, row0 + rows) of the box (dimension 0): a pointer tile
  // and the bounds mask (null when nothing is checked).
  std::pair<Value *, Value *> boxPointers(const Box &a, Value *row0, int64_t rows) {
    std::vector<int64_t> shape = a.block.shape();
    shape[0] = rows;
    Type full = Type::tensor(shape, i64());
    Value *offs = nullptr, *mask = nullptr;
    // Per dimension on its own vector (index * stride, in range), then broadcast: the full-size
    // work is one add and one and per dimension.
    auto spread = [&](Value *v, size_t d) {
      std::vector<int64_t> s(shape.size(), 1);
      s[d] = shape[d];
      v = make1("reshape", {v}, v->type.withShape(s));
      Type to = v->type.withShape(shape);
      return v->type == to ? v : make1("broadcast", {v}, to);
    };
    for (size_t d = 0; d < shape.size(); ++d) {
      Type vec = Type::tensor({shape[d]}, i64());
      Value *start = toI64(get(a.offsets[d]));
      if (d == 0 && row0)
        start = make1("addi", {start, row0}, i64());
      Value *idx = make1("addi", {make1("iota", {}, vec), splat(start, vec)}, vec);
      Value *term = spread(make1("muli", {idx, splat(toI64(get(a.strides[d])), vec)}, vec), d);
      offs = offs ? make1("addi", {offs, term}, full) : term;
      if (!a.checked[d])
        continue;
      Value *in = make1("andi",
                        {cmp64(idx, constInt(0, vec), tile::kGe),
                         cmp64(idx, splat(toI64(get(a.shape[d])), vec), tile::kLt)},
                        vec.withElement(i1()));
      in = spread(in, d);
      mask = mask ? make1("andi", {mask, in}, in->type) : in;
    }
    Type ptrs = Type::tensor(shape, a.base->type);
    return {make1("offset", {splat(get(a.base), ptrs), offs}, ptrs), mask};
  }

  // Rows per chunk of the pointer form. Its index math is an i64 tile of the box's shape, and
  // tileiras sizes registers for it even when the branch never runs (a descriptor matmul ran
  // 0.69x stock Triton with one 128x128 chunk, 0.96x without the branch): chunks of at most
  // 1024 elements keep that small.
  static int64_t chunkRows(const Type &block) {
    int64_t rows = block.shape()[0], rest = 1;
    for (size_t d = 1; d < block.shape().size(); ++d)
      rest *= block.shape()[d];
    while (rows > 1 && rows * rest > 1024)
      rows /= 2;
    return rows;
  }

  // The box loaded through pointers, chunk by chunk (rows of dimension 0), joined by cat.
  Value *boxGather(const Box &a) {
    Type t = a.block;
    int64_t rows = chunkRows(t), total = t.shape()[0];
    std::vector<int64_t> part = t.shape();
    part[0] = rows;
    std::vector<Value *> chunks;
    for (int64_t r = 0; r < total; r += rows) {
      auto [ptrs, mask] = boxPointers(a, r ? constInt(r, i64()) : nullptr, rows);
      std::vector<Value *> ops = {ptrs, mask, paddingTile(t.withShape(part), a.pad)};
      chunks.push_back(
          make("load_ptr_tko", ops, {t.withShape(part), Type::token()}, memoryAttrs({1, 1, 1, 0}))
              ->result(0));
    }
    while (chunks.size() > 1) { // pairwise, so every cat joins equal halves
      std::vector<Value *> next;
      for (size_t i = 0; i < chunks.size(); i += 2) {
        std::vector<int64_t> s = chunks[i]->type.shape();
        s[0] *= 2;
        next.push_back(
            make1("cat", {chunks[i], chunks[i + 1]}, t.withShape(s), {{"dim", i32Attr(0)}}));
      }
      chunks = next;
    }
    return chunks[0];
  }

  // `val` stored through pointers, chunk by chunk (extract per rows of dimension 0), in a loop
  // so that the rarely taken path stays small.
  void boxScatter(const Box &a, Value *val) {
    int64_t rows = chunkRows(a.block), total = a.block.shape()[0];
    std::vector<int64_t> part = a.block.shape();
    part[0] = rows;
    if (rows == total) {
      auto [ptrs, mask] = boxPointers(a, nullptr, rows);
      make("store_ptr_tko", {ptrs, val, mask}, {Type::token()}, memoryAttrs({1, 1, 1, 0}));
      return;
    }
    Operation *loop = make(
        "for", {constInt(0, i32()), constInt(total / rows, i32()), constInt(1, i32())}, {}, {}, 1);
    Block *body = loop->region(0)->addBlock();
    Value *k = body->addArg(i32());
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(body);
    Value *row0 = make1("muli", {toI64(k), constInt(rows, i64())}, i64());
    auto [ptrs, mask] = boxPointers(a, row0, rows);
    std::vector<Value *> ops = {val, k};
    for (size_t d = 1; d < part.size(); ++d)
      ops.push_back(constInt(0, i32()));
    Value *chunk = make1("extract", ops, val->type.withShape(part));
    make("store_ptr_tko", {ptrs, chunk, mask}, {Type::token()}, memoryAttrs({1, 1, 1, 0}));
    make("continue", {}, {});
    b_.restoreInsertionPoint(ip);
  }

  // if (in range) { view access } else { masked pointer access }, yielding `results`.
  Operation *boxBranch(const Box &a, const std::vector<Type> &results,
                       const std::function<std::vector<Value *>()> &viaView,
                       const std::function<std::vector<Value *>()> &viaPointers) {
    Value *cond = opts_.guardViews ? boxInRange(a) : nullptr;
    if (!cond) {
      auto vals = viaView();
      (void)vals;
      return nullptr;
    }
    Operation *ifOp = make("if", {cond}, results, {}, 2);
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(ifOp->region(0)->addBlock());
    make("yield", viaView(), {});
    b_.setInsertionPointToEnd(ifOp->region(1)->addBlock());
    make("yield", viaPointers(), {});
    b_.restoreInsertionPoint(ip);
    return ifOp;
  }

  Value *boxLoad(const Operation &o, const Box &a) {
    Type t = a.block;
    Value *loaded = nullptr;
    auto viaView = [&]() -> std::vector<Value *> {
      Value *guard;
      Value *view = makeView(boxPlan(a), t.element(), a.pad, guard);
      std::vector<Value *> ops = {view};
      for (size_t d = 0; d < a.offsets.size(); ++d)
        ops.push_back(constInt(0, i32()));
      loaded = make("load_view_tko", ops, {t, Type::token()},
                    viewAttrs({1, static_cast<int64_t>(a.offsets.size()), 0}))
                   ->result(0);
      return {loaded};
    };
    auto viaPointers = [&]() -> std::vector<Value *> { return {boxGather(a)}; };
    Operation *branch = boxBranch(a, {t}, viaView, viaPointers);
    Value *v = branch ? branch->result(0) : loaded;
    Type want = o.result(0)->type;
    if (want != t)
      v = make1("reshape", {v}, want);
    note(o, true, "box view (any offset; masked pointers when out of range)");
    return v;
  }

  void boxStore(const Operation &o, const Box &a) {
    Value *val = get(o.operand(1));
    if (val->type != a.block)
      val = make1("reshape", {val}, a.block);
    auto viaView = [&]() -> std::vector<Value *> {
      Value *guard;
      Value *view = makeView(boxPlan(a), a.block.element(), Padding::None, guard);
      std::vector<Value *> ops = {val, view};
      for (size_t d = 0; d < a.offsets.size(); ++d)
        ops.push_back(constInt(0, i32()));
      make("store_view_tko", ops, {Type::token()},
           viewAttrs({1, 1, static_cast<int64_t>(a.offsets.size()), 0}));
      return {};
    };
    auto viaPointers = [&]() -> std::vector<Value *> {
      boxScatter(a, val);
      return {};
    };
    boxBranch(a, {}, viaView, viaPointers);
    note(o, true, "box view (any offset; masked pointers when out of range)");
  }

  // ---------------------------------------------------------------- tile-index form

  void note(const Operation &o, bool raised, const std::string &detail) {
    if (reporting_)
      report_.accesses.push_back({o.name(), locationString(o.loc()), raised, detail});
  }

  Value *emitPoly(const Poly &p) {
    Value *sum = nullptr;
    for (const auto &t : p.terms) {
      Value *term = nullptr;
      for (const Value *v : t.first) {
        Value *x = toI64(get(v));
        term = term ? make1("muli", {term, x}, i64()) : x;
      }
      if (!term)
        term = constInt(t.second, i64());
      else if (t.second != 1)
        term = make1("muli", {term, constInt(t.second, i64())}, i64());
      sum = sum ? make1("addi", {sum, term}, i64()) : term;
    }
    return sum ? sum : constInt(0, i64());
  }

  // The conjunction of `conds` (null when there are none).
  Value *emitIndexConds(const std::vector<IndexCond> &conds) {
    Value *all = nullptr;
    for (const IndexCond &c : conds) {
      Value *v;
      if (c.div) {
        Value *low = make1("andi", {emitPoly(c.lhs), constInt(c.div - 1, i64())}, i64());
        v = cmp64(low, constInt(0, i64()), tile::kEq);
      } else {
        v = cmp64(emitPoly(c.lhs), emitPoly(c.rhs), tile::kLe);
      }
      all = all ? make1("andi", {all, v}, i1()) : v;
    }
    return all;
  }

  // The plan's view, made once at the kernel's top level.
  Value *indexView(const IndexPlan &p, Type elem, Padding pad) {
    std::string key = p.key + "|" + elem.str() + "|" + std::to_string(static_cast<int>(pad));
    auto it = indexViews_.find(key);
    if (it != indexViews_.end())
      return it->second;
    auto ip = b_.saveInsertionPoint();
    if (topAnchor_)
      b_.setInsertionPointAfter(topAnchor_);
    else
      b_.restoreInsertionPoint({topBlock_, topBlock_->ops().begin()});
    std::vector<ViewDim> dims(p.tile.size());
    int64_t c;
    for (size_t d = 0; d < p.tile.size(); ++d) {
      if (p.extents[d].isConst(c) && c > 0)
        dims[d].extent = c;
      else // only used once the conditions hold (extent > coordinate >= 0); kept positive so
           // the view is well formed in the other version too
        dims[d].dynExtent = make1("maxi", {emitPoly(p.extents[d]), constInt(1, i64())}, i64(),
                                  {{"signedness", i32Attr(tile::kSigned)}});
      if (p.strides[d].isConst(c) && c > 0)
        dims[d].stride = c;
      else
        dims[d].dynStride = emitPoly(p.strides[d]);
      dims[d].narrow = strideIsNarrowed(p.strides[d]);
    }
    Value *view = partitionView(get(p.base), dims, elem, p.tile, pad, p.strideAlign);
    b_.restoreInsertionPoint(ip);
    indexViews_[key] = view;
    return view;
  }

  // coord_d / B_d per dimension, as i32 (coordinates are non-negative multiples of B_d).
  std::vector<Value *> tileIndices(const IndexPlan &p) {
    std::vector<Value *> idx;
    int64_t c;
    for (size_t d = 0; d < p.tile.size(); ++d) {
      if (p.coords[d].isConst(c)) {
        idx.push_back(constInt(c / p.tile[d], i32()));
        continue;
      }
      Value *v = emitPoly(p.coords[d]);
      int shift = 0;
      while ((int64_t(1) << shift) < p.tile[d])
        ++shift;
      if (shift)
        v = make1("shri", {v, constInt(shift, i64())}, i64(),
                  {{"signedness", i32Attr(tile::kUnsigned)}});
      idx.push_back(make1("trunci", {v}, i32()));
    }
    return idx;
  }

  // Plans the tile-index form for the accesses whose innermost loop is `loop`; returns the
  // conditions to check before it.
  std::vector<IndexCond> planLoopAccesses(const Operation &loop, const Block &b,
                                          std::vector<const Operation *> &planned) {
    std::vector<IndexCond> conds;
    for (const auto &op : b.ops()) {
      if (op->is("scf.for") || op->is("scf.while"))
        continue; // their accesses are planned when they are converted
      for (size_t r = 0; r < op->numRegions(); ++r)
        for (const auto &blk : op->region(r)->blocks) {
          auto inner = planLoopAccesses(loop, *blk, planned);
          conds.insert(conds.end(), inner.begin(), inner.end());
        }
      std::optional<IndexPlan> plan = planIndex(*op, loop);
      if (!plan)
        continue;
      if (plan->hoisted) {
        conds.insert(conds.end(), plan->conds.begin(), plan->conds.end());
        plan->conds.clear();
      }
      indexPlans_[op.get()] = *plan;
      planned.push_back(op.get());
    }
    return conds;
  }

  std::optional<IndexPlan> planIndex(const Operation &o, const Operation &loop) {
    bool isLoad = o.is("tt.load") || o.is("tt.descriptor_load");
    if (!isLoad && !o.is("tt.store") && !o.is("tt.descriptor_store"))
      return std::nullopt;
    std::string why;
    if (isBoxAccess(o)) {
      Box a;
      if (!box(o, a))
        return std::nullopt;
      std::vector<const Value *> extents;
      for (size_t d = 0; d < a.shape.size(); ++d)
        extents.push_back(a.checked[d] ? a.shape[d] : nullptr);
      auto plan = planIndexFromBox(a.base, a.offsets, extents, a.strides, a.block.shape(), loop,
                                   index_, why);
      if (plan)
        plan->strideAlign = a.strideAlign;
      return plan;
    }
    if (!raisable(o.operand(0)->type, true, why))
      return std::nullopt;
    std::optional<ViewPlan> view = planView(o, why);
    if (!view)
      return std::nullopt;
    return planIndexFromView(*view, loop, index_, why);
  }

  Value *indexedLoad(const Operation &o, const IndexPlan &p) {
    Type want = o.result(0)->type;
    Type t = Type::tensor(p.tile, want.element());
    bool needsSelect = false;
    const Value *other = nullptr;
    Padding pad;
    if (isBoxAccess(o)) {
      pad = boxOf(o).pad;
    } else {
      other = o.numOperands() > 2 ? o.operand(2) : nullptr;
      pad = paddingFor(other, t.element(), needsSelect);
    }
    note(o, true, "tile-index view (made once), padding " + std::string(paddingName(pad)));
    auto viaIndex = [&]() -> std::vector<Value *> {
      std::vector<Value *> ops = {indexView(p, t.element(), pad)};
      for (Value *i : tileIndices(p))
        ops.push_back(i);
      Value *v = make("load_view_tko", ops, {t, Type::token()},
                      viewAttrs({1, static_cast<int64_t>(p.tile.size()), 0}))
                     ->result(0);
      if (v->type != want)
        v = make1("reshape", {v}, want);
      if (needsSelect)
        v = make1("select", {get(o.operand(1)), v, get(other)}, want);
      return {v};
    };
    if (!opts_.guardViews || p.conds.empty())
      return viaIndex()[0];
    bool was = reporting_;
    reporting_ = false;
    Value *v = branchOn(emitIndexConds(p.conds), {want}, viaIndex,
                        [&]() -> std::vector<Value *> { return {generalLoad(o)}; })[0];
    reporting_ = was;
    return v;
  }

  void indexedStore(const Operation &o, const IndexPlan &p) {
    note(o, true, "tile-index view (made once)");
    auto viaIndex = [&]() -> std::vector<Value *> {
      Value *val = get(o.operand(1));
      Type t = Type::tensor(p.tile, val->type.element());
      if (val->type != t)
        val = make1("reshape", {val}, t);
      std::vector<Value *> ops = {val, indexView(p, t.element(), Padding::None)};
      for (Value *i : tileIndices(p))
        ops.push_back(i);
      make("store_view_tko", ops, {Type::token()},
           viewAttrs({1, 1, static_cast<int64_t>(p.tile.size()), 0}));
      return {};
    };
    if (!opts_.guardViews || p.conds.empty()) {
      viaIndex();
      return;
    }
    bool was = reporting_;
    reporting_ = false;
    branchOn(emitIndexConds(p.conds), {}, viaIndex, [&]() -> std::vector<Value *> {
      generalStore(o);
      return {};
    });
    reporting_ = was;
  }

  // ---------------------------------------------------------------- dot

  void dot(const Operation &o) {
    Value *a = get(o.operand(0)), *bm = get(o.operand(1)), *c = get(o.operand(2));
    Type at = a->type, ct = o.result(0)->type;
    Type ae = at.element();
    if (ae.isInt()) {
      if (!ae.isInt(8))
        throw Unsupported{"integer dot on " + ae.str()};
      bind(o, make1("mmai", {a, bm, c}, ct,
                    {{"signedness_lhs", i32Attr(1)}, {"signedness_rhs", i32Attr(1)}}));
      return;
    }
    if (!(ae.isFloat() && ae.floatKind() == FloatKind::F32)) {
      bind(o, make1("mmaf", {a, bm, c}, ct));
      return;
    }
    int64_t prec = o.intAttr("inputPrecision", 0);
    if (prec == 2) { // ieee
      bind(o, make1("mmaf", {a, bm, c}, ct));
      return;
    }
    Type tf = Type::floating(FloatKind::TF32);
    auto toTf = [&](Value *v) {
      return make1("ftof", {v}, v->type.withElement(tf),
                   {{"rounding", i32Attr(tile::kNearestEven)}});
    };
    if (prec == 0) { // tf32
      bind(o, make1("mmaf", {toTf(a), toTf(bm), c}, ct));
      return;
    }
    if (prec != 1)
      throw Unsupported{"dot input precision " + std::to_string(prec)};
    // tf32x3: a*b ~ ah*bh + ah*bl + al*bh with x = xh + xl, xh = tf32(x).
    auto split = [&](Value *v, Value *&hi, Value *&lo) {
      hi = toTf(v);
      Value *back = make1("ftof", {hi}, v->type, {{"rounding", i32Attr(tile::kNearestEven)}});
      lo = toTf(make1("subf", {v, back}, v->type, {{"rounding", i32Attr(tile::kNearestEven)}}));
    };
    Value *ah, *al, *bh, *bl;
    split(a, ah, al);
    split(bm, bh, bl);
    Value *acc = make1("mmaf", {al, bh, c}, ct);
    acc = make1("mmaf", {ah, bl, acc}, ct);
    bind(o, make1("mmaf", {ah, bh, acc}, ct));
  }

  // ---------------------------------------------------------------- reduce / scan

  // The identity of a combiner: what its ops do to (lhs, rhs) pairs.
  Attribute identityFor(const Block &body, size_t i, size_t n, Type elem) {
    const Value *lhs = body.arg(i), *rhs = body.arg(i + n);
    std::vector<Attribute> found;
    for (const auto &op : body.ops()) {
      bool usesPair = false;
      for (const Value *v : op->operands)
        usesPair |= v == lhs || v == rhs;
      if (!usesPair)
        continue;
      const std::string &nm = op->name();
      auto fl = [&](double v) { return Attribute::floating(v, elem); };
      auto in = [&](int64_t v) { return Attribute::integer(v, elem); };
      int w = elem.isInt() ? elem.intWidth() : 0;
      int64_t smax = w >= 64 ? INT64_MAX : (w ? (int64_t(1) << (w - 1)) - 1 : 0);
      int64_t smin = -smax - 1;
      if (nm == "arith.addf")
        found.push_back(fl(0.0));
      else if (nm == "arith.mulf")
        found.push_back(fl(1.0));
      else if (nm == "arith.addi" || nm == "arith.ori" || nm == "arith.xori" || nm == "arith.maxui")
        found.push_back(in(0));
      else if (nm == "arith.muli")
        found.push_back(in(1));
      else if (nm == "arith.andi" || nm == "arith.minui")
        found.push_back(in(-1));
      else if (nm == "arith.maxnumf" || nm == "arith.maximumf")
        found.push_back(fl(-INFINITY));
      else if (nm == "arith.minnumf" || nm == "arith.minimumf")
        found.push_back(fl(INFINITY));
      else if (nm == "arith.maxsi")
        found.push_back(in(smin));
      else if (nm == "arith.minsi")
        found.push_back(in(smax));
      else if (nm == "arith.cmpf") {
        int64_t p = op->intAttr("predicate");
        bool gt = p == 2 || p == 3 || p == 9 || p == 10;
        bool lt = p == 4 || p == 5 || p == 11 || p == 12;
        if (gt || lt)
          found.push_back(fl(gt ? -INFINITY : INFINITY));
      } else if (nm == "arith.cmpi") {
        int64_t p = op->intAttr("predicate");
        if (p == 4 || p == 5)
          found.push_back(in(smin));
        else if (p == 2 || p == 3)
          found.push_back(in(smax));
        else if (p == 8 || p == 9)
          found.push_back(in(0));
        else if (p == 6 || p == 7)
          found.push_back(in(-1));
      }
    }
    if (found.empty())
      throw Unsupported{"cannot infer the identity of this combine function"};
    for (const auto &f : found)
      if (f != found[0])
        throw Unsupported{"the combine function's ops disagree on its identity"};
    return found[0];
  }

  void reduceLike(const Operation &o, bool scan) {
    const Block &body = *o.region(0)->front();
    size_t n = o.numOperands();
    std::vector<Attribute> ids;
    for (size_t i = 0; i < n; ++i)
      ids.push_back(identityFor(body, i, n, o.operand(i)->type.element()));
    std::vector<Type> types = resultTypesOf(o);
    Attrs attrs = {{"dim", i32Attr(o.intAttr("axis"))}, {"identities", Attribute::array(ids)}};
    if (scan)
      attrs.emplace_back("reverse", Attribute::boolean(o.intAttr("reverse") != 0));
    Operation *r = make(scan ? "scan" : "reduce", get(o.operands), types, attrs, 1);
    Block *dst = r->region(0)->addBlock();
    // Tile IR pairs (element, accumulator) per operand; Triton passes (lhs..., rhs...) with
    // lhs the running value: accumulator = lhs, element = rhs.
    std::vector<Value *> elemArgs(n), accArgs(n);
    for (size_t i = 0; i < n; ++i) {
      elemArgs[i] = dst->addArg(body.arg(n + i)->type);
      accArgs[i] = dst->addArg(body.arg(i)->type);
    }
    for (size_t i = 0; i < n; ++i) {
      map_[body.arg(i)] = accArgs[i];
      map_[body.arg(n + i)] = elemArgs[i];
    }
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(dst);
    block(body, Term::ReduceYield);
    b_.restoreInsertionPoint(ip);
    std::vector<Value *> res;
    for (size_t i = 0; i < r->numResults(); ++i)
      res.push_back(r->result(i));
    bind(o, res);
  }

  // ---------------------------------------------------------------- control flow

  // A loop whose accesses take the tile-index form under conditions checked before it is
  // versioned: if (conditions) { loop, tile-index accesses } else { loop, general form }.
  void forOp(const Operation &o) {
    std::vector<const Operation *> planned;
    std::vector<IndexCond> conds;
    if (opts_.raiseViews && opts_.indexViews)
      conds = planLoopAccesses(o, *o.region(0)->front(), planned);
    if (conds.empty() || !opts_.guardViews || !opts_.versionLoops) {
      loop(o);
    } else if (opts_.launchGuards && guard_->accepts(o, conds)) {
      // The host decides the conditions for the whole grid (launch_guard.h): the other
      // version is empty. The branch stays: it keeps the kernel memory-safe were the host
      // wrong, and the loop measured as fast under it as without it (H200).
      guard_->add(o, conds);
      std::vector<Type> types = resultTypesOf(o);
      Operation *ifOp = make("if", {emitIndexConds(conds)}, types, {}, 2);
      auto ip = b_.saveInsertionPoint();
      b_.setInsertionPointToEnd(ifOp->region(0)->addBlock());
      make("yield", loop(o), {});
      b_.setInsertionPointToEnd(ifOp->region(1)->addBlock());
      std::vector<Value *> inits;
      for (size_t i = 3; i < o.numOperands(); ++i)
        inits.push_back(get(o.operand(i)));
      make("yield", inits, {});
      b_.restoreInsertionPoint(ip);
      bindResults(o, ifOp);
    } else {
      std::vector<Type> types = resultTypesOf(o);
      Operation *ifOp = make("if", {emitIndexConds(conds)}, types, {}, 2);
      auto ip = b_.saveInsertionPoint();
      b_.setInsertionPointToEnd(ifOp->region(0)->addBlock());
      make("yield", loop(o), {});
      // The other version: descriptor accesses as plain gathers/scatters. It runs only for
      // edge tiles, and a view made per iteration there cost the fast version 25% (H200).
      for (const Operation *a : planned) {
        indexPlans_.erase(a);
        if (isBoxAccess(*a))
          gatherOnly_.insert(a);
      }
      bool was = reporting_;
      reporting_ = false;
      b_.setInsertionPointToEnd(ifOp->region(1)->addBlock());
      make("yield", loop(o), {});
      reporting_ = was;
      b_.restoreInsertionPoint(ip);
      bindResults(o, ifOp);
    }
    for (const Operation *a : planned) {
      indexPlans_.erase(a);
      gatherOnly_.erase(a);
    }
  }

  std::vector<Value *> loop(const Operation &o) {
    LoopScope scope(loopDepth_);
    std::vector<Type> types = resultTypesOf(o);
    Operation *f = make("for", get(o.operands), types, {}, 1);
    const Block &body = *o.region(0)->front();
    Block *dst = f->region(0)->addBlock();
    for (size_t i = 0; i < body.numArgs(); ++i)
      map_[body.arg(i)] = dst->addArg(body.arg(i)->type);
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(dst);
    block(body, Term::Continue);
    b_.restoreInsertionPoint(ip);
    bindResults(o, f);
    std::vector<Value *> res;
    for (size_t i = 0; i < f->numResults(); ++i)
      res.push_back(f->result(i));
    return res;
  }

  void ifOp(const Operation &o) {
    std::vector<Type> types = resultTypesOf(o);
    Operation *f = make("if", {get(o.operand(0))}, types, {}, 2);
    for (int r = 0; r < 2; ++r) {
      if (o.region(r)->empty())
        continue;
      Block *dst = f->region(r)->addBlock();
      auto ip = b_.saveInsertionPoint();
      b_.setInsertionPointToEnd(dst);
      block(*o.region(r)->front(), Term::Yield);
      b_.restoreInsertionPoint(ip);
    }
    bindResults(o, f);
  }

  // scf.while (before: args -> condition(c, vals); after: vals -> yield next) becomes
  //   loop iter_values(args) { before; if c { after; continue next } ; break vals }
  void whileOp(const Operation &o) {
    LoopScope scope(loopDepth_);
    std::vector<Type> types = resultTypesOf(o);
    Operation *loop = make("loop", get(o.operands), types, {}, 1);
    const Block &before = *o.region(0)->front();
    const Block &after = *o.region(1)->front();
    Block *dst = loop->region(0)->addBlock();
    for (size_t i = 0; i < before.numArgs(); ++i)
      map_[before.arg(i)] = dst->addArg(before.arg(i)->type);
    auto ip = b_.saveInsertionPoint();
    b_.setInsertionPointToEnd(dst);
    const Operation *cond = nullptr;
    for (const auto &op2 : before.ops()) {
      if (op2->is("scf.condition")) {
        cond = op2.get();
        break;
      }
      b_.setLoc(op2->loc());
      op(*op2);
    }
    if (!cond)
      throw Unsupported{"scf.while without scf.condition"};
    std::vector<Value *> passed;
    for (size_t i = 1; i < cond->numOperands(); ++i)
      passed.push_back(get(cond->operand(i)));
    Operation *branch = make("if", {get(cond->operand(0))}, {}, {}, 2);
    b_.setInsertionPointToEnd(branch->region(0)->addBlock());
    for (size_t i = 0; i < after.numArgs(); ++i)
      map_[after.arg(i)] = passed.at(i);
    block(after, Term::WhileAfter);
    b_.setInsertionPointToEnd(dst);
    make("break", passed, {});
    b_.restoreInsertionPoint(ip);
    bindResults(o, loop);
  }

  static std::vector<Type> resultTypesOf(const Operation &o) {
    std::vector<Type> types;
    for (size_t i = 0; i < o.numResults(); ++i)
      types.push_back(o.result(i)->type);
    return types;
  }

  void bindResults(const Operation &o, Operation *n) {
    std::vector<Value *> res;
    for (size_t i = 0; i < n->numResults(); ++i)
      res.push_back(n->result(i));
    bind(o, res);
  }

  void print(const Operation &o) {
    std::string fmt = o.attr("prefix").getString();
    for (const Value *v : o.operands)
      fmt += v->type.element().isFloat() ? " %f" : " %d";
    fmt += "\n";
    // Prints carry a token so insert-memory-tokens keeps them in program order.
    make(
        "print", get(o.operands), {Type::token()},
        {{"format", Attribute::string(fmt)},
         {"operandSegmentSizes", Attribute::i32Array({static_cast<int64_t>(o.numOperands()), 0})}});
  }

  Builder b_;
  const TileOptions &opts_;
  TileConversion &report_;
  std::unordered_map<const Value *, Value *> map_;
  bool reporting_ = true; // off while a loop's second version is converted
  int loopDepth_ = 0;     // loops around the op being converted
  struct LoopScope {
    int &depth;
    explicit LoopScope(int &d) : depth(++d) {}
    ~LoopScope() { --depth; }
  };
  // The tile-index form (index_views.h): plans of the accesses of the loops being converted,
  // the views made so far (by plan key, element type and padding), and where they go.
  IndexContext index_;
  std::unordered_map<const Operation *, IndexPlan> indexPlans_;
  std::unordered_map<std::string, Value *> indexViews_;
  std::unordered_set<const Operation *> gatherOnly_; // box accesses of a loop's other version
  std::unique_ptr<LaunchGuard> guard_;               // loops whose conditions the host decides
  Block *topBlock_ = nullptr;
  Operation *topAnchor_ = nullptr;
};

const std::unordered_map<std::string, Converter::Handler> &Converter::handlers() {
  using C = Converter;
  using O = const Operation &;
  static const std::unordered_map<std::string, Handler> table = [] {
    std::unordered_map<std::string, Handler> t;
    auto same = [&](const char *from, const char *to) {
      t[from] = [to](C &c, O o) { c.elementwise(o, to); };
    };
    auto signedOp = [&](const char *from, const char *to, int s) {
      t[from] = [to, s](C &c, O o) { c.elementwise(o, to, {{"signedness", i32Attr(s)}}); };
    };
    auto fop = [&](const char *from, const char *to, bool rounding, bool approxable) {
      t[from] = [to, rounding, approxable](C &c, O o) {
        c.elementwise(o, to, c.floatMods(o.result(0)->type, rounding, approxable));
      };
    };
    for (auto p : {std::pair{"arith.addi", "addi"},
                   {"arith.subi", "subi"},
                   {"arith.muli", "muli"},
                   {"arith.andi", "andi"},
                   {"arith.ori", "ori"},
                   {"arith.xori", "xori"},
                   {"arith.shli", "shli"},
                   {"tt.mulhiui", "mulhii"},
                   {"math.absi", "absi"},
                   {"math.floor", "floor"},
                   {"math.ceil", "ceil"},
                   {"math.sin", "sin"},
                   {"math.cos", "cos"},
                   {"math.tan", "tan"},
                   {"math.tanh", "tanh"},
                   {"math.log", "log"},
                   {"math.log2", "log2"},
                   {"math.absf", "absf"},
                   {"arith.negf", "negf"},
                   {"arith.remf", "remf"}})
      same(p.first, p.second);
    signedOp("arith.divsi", "divi", tile::kSigned);
    signedOp("arith.divui", "divi", tile::kUnsigned);
    signedOp("arith.remsi", "remi", tile::kSigned);
    signedOp("arith.remui", "remi", tile::kUnsigned);
    signedOp("arith.maxsi", "maxi", tile::kSigned);
    signedOp("arith.minsi", "mini", tile::kSigned);
    signedOp("arith.maxui", "maxi", tile::kUnsigned);
    signedOp("arith.minui", "mini", tile::kUnsigned);
    signedOp("arith.shrsi", "shri", tile::kSigned);
    signedOp("arith.shrui", "shri", tile::kUnsigned);
    fop("arith.addf", "addf", true, false);
    fop("arith.subf", "subf", true, false);
    fop("arith.mulf", "mulf", true, false);
    fop("arith.divf", "divf", true, true);
    fop("math.sqrt", "sqrt", true, true);
    fop("math.fma", "fma", true, false);
    fop("math.exp2", "exp2", false, false);
    fop("math.rsqrt", "rsqrt", false, false);
    t["math.exp"] = [](C &c, O o) {
      Attrs a;
      if (c.opts_.approx && c.f32(o.result(0)->type))
        a.emplace_back("rounding", i32Attr(tile::kApprox));
      c.elementwise(o, "exp", a);
    };
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
    // Descriptors and block pointers emit nothing themselves: each access reads them.
    for (const char *n : {"tt.make_tensor_descriptor", "tt.make_tensor_ptr"})
      t[n] = [](C &, O) {};
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
    t["llvm.intr.assume"] = [](C &, O) {}; // a hint; Tile IR's assume takes other forms
    t["gpu.barrier"] = [](C &c, O) {
      c.make("join_tokens", {c.make1("make_token", {}, Type::token())}, {Type::token()},
             {{"fence", Attribute::unit()}});
    };
    return t;
  }();
  return table;
}

} // namespace

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
  // Raised accesses leave their pointer arithmetic dead; shared index math repeats.
  eliminateCommonSubexpressions(*m);
  eliminateDeadCode(*m);
  insertMemoryTokens(*m, options);
  verifyModule(*m);
  result.module = std::move(m);
  if (!conv.guard().empty())
    result.guard = conv.guard().build(kernel + "_launch_guard", result.guardArgs);
  return result;
}

} // namespace tt
