// The TTIR -> Tile IR converter's class (convert.h has the stage's entry point and rules):
// one Converter walks one kernel; its methods live by area in convert.cpp (helpers, the walk,
// elementwise op groups, the handler table), convert_memory.cpp (loads, stores, atomics,
// descriptors and block pointers), convert_index.cpp (the tile-index form), convert_compute.cpp
// (dot, reduce, scan, erf, histogram, gather) and convert_control.cpp (for, if, while and loop
// versioning).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "conversion/ttir_to_tile/convert.h"
#include "conversion/ttir_to_tile/index_views.h"
#include "conversion/ttir_to_tile/launch_guard.h"
#include "conversion/ttir_to_tile/raise_views.h"
#include "ir/builder.h"
#include "tile/elementwise_ops.h"
#include "tile/tile.h"

namespace tt::tile_conv {

inline Type i1() { return Type::integer(1); }
inline Type i32() { return Type::integer(32); }
inline Type i64() { return Type::integer(64); }
inline Attribute i32Attr(int64_t v) { return Attribute::integer(v, i32()); }

struct Unsupported {
  std::string reason;
};

// Hints go under Tile IR's `default` key (13.3+), so a module keeps them whatever sm_XX it is
// assembled for.
inline constexpr const char *kHintKey = "default";

class Converter {
public:
  Converter(Module &dst, const TileOptions &opts, TileConversion &report)
      : b_(dst), opts_(opts), report_(report) {}

  const LaunchGuard &guard() const { return *guard_; }

  void convertKernel(const Operation &func);

private:
  enum class Term { Return, Yield, Continue, ReduceYield, WhileAfter };

  // ---------------------------------------------------------------- helpers

  Value *get(const Value *v);
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
  // The i1 tile `a <pred> b` (ordered: false where `a` is NaN), `b` a constant of a's type.
  Value *cmpfConst(int pred, Value *a, double b) {
    return make1("cmpf", {a, constFloat(b, a->type)}, a->type.withElement(i1()),
                 {{"comparison_predicate", i32Attr(pred)}, {"comparison_ordering", i32Attr(1)}});
  }
  // Scalar -> tile of `t`'s shape (Tile IR has no implicit splat).
  Value *splat(Value *s, Type t);
  // `v` reshaped to `unit` (its shape with size-1 dimensions added) and broadcast to `t`.
  Value *expandTo(Value *v, const std::vector<int64_t> &unit, Type t);
  // `v` reduced over `dim` to `out` by the integer op `combine` (addi, ori), identity 0.
  Value *reduceInt(Value *v, int64_t dim, Type out, const char *combine);
  Value *toI64(Value *v) {
    if (v->type.isInt(64))
      return v;
    return make1("exti", {v}, i64(), {{"signedness", i32Attr(tile::kSigned)}});
  }

  bool f32(Type t) { return t.element().isFloat() && t.element().floatKind() == FloatKind::F32; }

  // The rounding and flush_to_zero of a float op by its table entry (tile/elementwise_ops.h):
  // Triton's f32 semantics, and what the environment asks for (f32 only, as Tile IR allows).
  Attrs floatMods(Type t, tile::Mods mods);

  // 90 for "sm_90", 100 for "sm_100" (string order would put sm_100 before sm_90).
  int archNumber() const {
    size_t u = opts_.arch.find('_');
    return u == std::string::npos ? 0 : std::atoi(opts_.arch.c_str() + u + 1);
  }

  // Does the kernel profit from num_worker_warps_per_cta? Reductions, dots in nested loops and
  // loops with several dots did (attention 1.7x, a persistent matmul 15x; attention backward,
  // four dots a loop at 128-key blocks, 80 -> 367 TFLOP/s: its 168 registers a thread spilled
  // without); a plain matmul, one dot a loop, lost 1.4x (H200, benchmarks/RESULTS.md). So does
  // a dot whose accumulator (batches included) is over 128x128 elements when the launch asks
  // for 8 warps: tileiras's own warp count spilled the tutorial's 128x256 matmul tile (44
  // TFLOP/s, fp16 4096^3, H100) and 8 worker warps ran it at 550-635 (2026-11-26).
  static bool wantsWorkerWarps(const Operation &op, int loops, int workerWarps);
  // A tt.dot in op (op included) whose result is at least 256 x 128 (tallDot_).
  static bool hasTallDot(const Operation &op);

  Attribute entryHints(const Operation &func);

  Attrs memoryAttrs(std::vector<int64_t> segments, int ordering = tile::kWeak, int scope = -1,
                    bool view = false, bool noTma = false);
  // The attributes of a load from or store to `view` (a partition view): allow_tma=false where
  // the options say so, or through a view made inside a loop (kernelTmaMaps) for a store, and
  // for a load in a kernel with a dot of at least 256x128 (tallDot_).
  Attrs viewAttrs(std::vector<int64_t> segments, const Value *view, bool store) {
    bool noTma = (store || tallDot_) && loopViews_.count(view) > 0 && !opts_.kernelTmaMaps;
    return memoryAttrs(std::move(segments), tile::kWeak, -1, true, noTma);
  }

  void bind(const Operation &op, const std::vector<Value *> &vals) {
    for (size_t i = 0; i < op.numResults(); ++i)
      map_[op.result(i)] = vals.at(i);
  }
  void bind(const Operation &op, Value *v) { bind(op, std::vector<Value *>{v}); }

  // ---------------------------------------------------------------- walking

  void block(const Block &src, Term term);

  Value *placeholder(Type t);

  void terminator(const Operation &t, Term term);

  void op(const Operation &o);
  void scalarHint(const Operation &o); // tl.multiple_of on a scalar: an assume

  using Handler = std::function<void(Converter &, const Operation &)>;
  static const std::unordered_map<std::string, Handler> &handlers();

  // ---------------------------------------------------------------- op groups

  void elementwise(const Operation &o, const std::string &name, Attrs attrs = {}) {
    bind(o, make1(name, get(o.operands), o.result(0)->type, std::move(attrs)));
  }

  void cmpi(const Operation &o);

  // divi/remi with a divisor that cannot be 0 (see the definition for why).
  void intDivRem(const Operation &o, const char *name, int signedness);

  void cmpf(const Operation &o);

  void select(const Operation &o) {
    Value *c = get(o.operand(0));
    Type t = o.result(0)->type;
    bind(o,
         make1("select", {splat(c, t.withElement(i1())), get(o.operand(1)), get(o.operand(2))}, t));
  }

  void constant(const Operation &o) {
    bind(o, make1("constant", {}, o.result(0)->type, {{"value", o.attr("value")}}));
  }

  void makeRange(const Operation &o);

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

  void join(const Operation &o);

  void split(const Operation &o);

  void cat(const Operation &o) {
    bind(o, make1("cat", get(o.operands), o.result(0)->type, {{"dim", i32Attr(0)}}));
  }

  void cast(const Operation &o, const char *name, int signedness = -1, int rounding = -1);

  // k[0] + v * (k[1] + v * (... + v * k[n-1])): Horner's scheme, rounding to nearest, no FMA.
  Value *polynomial(const double *k, int n, Value *v);

  // math.erf on f32 (Tile IR has none; Triton's erf takes f32 and f64):
  //   |x| < 1:       x * P(x^2)
  //   1 <= |x| < 4:  sign(x) * (1 - exp(Q(|x|))), Q a fit of log(erfc) on [1, 4]
  //   |x| >= 4:      sign(x) (erfc(4) = 1.5e-8 is under half an ulp of 1); NaN stays NaN.
  // P (degree 5) and Q (degree 9) are least-squares fits in float64 on Chebyshev nodes: in
  // f32 arithmetic without FMA they are at most 2.3 ulp from float64's erf over [-6, 6]
  // (libdevice's erff: 2 ulp). f64 takes erf64.
  void erf(const Operation &o);

  // math.erf on f64: fdlibm's s_erf.c scheme, every piece evaluated and the right one selected:
  //   |x| < 0.84375:         x + x * P(x^2)/Q(x^2)
  //   0.84375 <= |x| < 1.25: sign(x) * (erx + P(|x|-1)/Q(|x|-1)), erx = erf(1) to 24 bits
  //   1.25 <= |x| < 6:       sign(x) * (1 - exp(-z^2 - 0.5625) * exp((z-|x|)(z+|x|) + R/S) / |x|)
  //                          with R/S two fits in 1/x^2 (split at 1/0.35), z = |x| truncated
  //                          to its high 32 bits (so z^2 is exact)
  //   |x| >= 6:              sign(x); NaN stays NaN (it takes the third piece).
  // Within 1 ulp of float64's erf in fdlibm; here without FMA and with Tile IR's f64 exp.
  Value *erf64(Value *x);

  // tt.fp_to_fp. Round toward zero (a downcast's `rtz`): Tile IR's ftof rounds to nearest
  // even, so a result that came out larger in magnitude than the source (widened back
  // exactly, compared) steps one unit toward zero on its bits: inf from a finite source
  // becomes the largest finite value; zeros, infinities and NaN stay.
  void fpToFp(const Operation &o);

  void bitcast(const Operation &o) {
    Type from = o.operand(0)->type.element(), to = o.result(0)->type.element();
    cast(o, from.isPtr() && to.isPtr() ? "ptr_to_ptr" : "bitcast");
  }

  void clampf(const Operation &o);

  // ---------------------------------------------------------------- memory

  int64_t constantOf(SExprPtr e, bool &known) {
    int64_t c = 0;
    known = sIsConst(e, c);
    return c;
  }

  Value *emit(const SExprPtr &e);

  // Builds the partition view of a plan; `guard` is set to the i1 "some lane is inside"
  // condition when an extent is dynamic (Tile IR requires index 0 to be inside the view).
  Value *makeView(const ViewPlan &plan, Type elem, Padding padding, Value *&guard);
  Value *accessGuard(const Operation &o, const ViewPlan &plan, Value *guard);

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
                       const std::vector<int64_t> &tile, Padding padding, int64_t strideAlign);

  // Recognises `other` values Tile IR can express as view padding.
  Padding paddingFor(const Value *other, Type elem, bool &needsSelect);

  std::vector<int64_t> zeroIndices(size_t rank) { return std::vector<int64_t>(rank, 0); }

  // The access as a gather/scatter through its pointer tile (the general form); a gather's
  // `ordering` and `scope` as memoryAttrs takes them.
  Value *pointerLoad(const Operation &o, int ordering = tile::kWeak, int scope = -1);

  void pointerStore(const Operation &o) {
    std::vector<int64_t> seg = {1, 1, o.numOperands() > 2 ? 1 : 0, 0};
    make("store_ptr_tko", get(o.operands), {Type::token()}, memoryAttrs(seg));
  }

  // `a <= b` for every condition the plan relies on (e.g. a `%` that cannot wrap).
  Value *planConditions(const ViewPlan &plan);
  // What a view access's note adds when the plan has conditions (the gather runs without).
  static std::string underConditions(const ViewPlan &plan);

  // if (conditions) { then() } else { otherwise() }, yielding `types`; inline when none.
  std::vector<Value *> branchOn(Value *cond, const std::vector<Type> &types,
                                const std::function<std::vector<Value *>()> &then,
                                const std::function<std::vector<Value *>()> &otherwise);

  Value *viewLoad(const Operation &o, const ViewPlan &plan, Padding pad);

  void viewStore(const Operation &o, const ViewPlan &plan);
  // A write of o's value (operand 1) through the plan's view: `emit(view, zero indices)`
  // makes the op, inside the branch that skips an empty box (accessGuard).
  void viewWrite(const Operation &o, const ViewPlan &plan,
                 const std::function<void(Value *, const std::vector<Value *> &)> &emit);

  // A volatile load may be reading what another program writes: a relaxed gather at system
  // scope, as PTX's ld.volatile is a relaxed system-scope load, and never a view (which may
  // become a TMA copy, and whose loads Tile IR orders weakly only).
  static bool isVolatileLoad(const Operation &o) {
    return o.is("tt.load") && o.intAttr("isVolatile", 0) != 0;
  }

  void load(const Operation &o) {
    if (isVolatileLoad(o)) {
      note(o, false, "volatile: a relaxed system-scope gather");
      if (!isBoxAccess(o)) {
        bind(o, pointerLoad(o, tile::kRelaxed, tile::kSystem));
        return;
      }
      Value *v = boxGather(boxOf(o), tile::kRelaxed, tile::kSystem);
      bind(o, v->type == o.result(0)->type ? v : make1("reshape", {v}, o.result(0)->type));
      return;
    }
    auto it = indexPlans_.find(&o);
    bind(o, it == indexPlans_.end() ? generalLoad(o) : indexedLoad(o, it->second));
  }

  void store(const Operation &o);

  static bool isBoxAccess(const Operation &o) {
    return o.is("tt.descriptor_load") || o.is("tt.descriptor_store") ||
           o.operand(0)->type.isBlockPtr();
  }

  // Whether a pointer access of type `t` may become a view. A tile with one dimension inside a
  // loop stays a gather unless TileOptions::loopVectorViews: on an H200 gathers ran softmax and
  // layer norm 1.1-1.3x faster than views there (docs/gpu_perf_notes.md); elsewhere they tie.
  // For a GPU, a load or store `o` in a kernel without a dot stays one too (gathersWithoutDot).
  bool raisable(const Operation &o, Type t, bool inLoop, std::string &why) const;
  // The view plan of a pointer access of type `t`, or none (then noted, for a tile, with why).
  std::optional<ViewPlan> viewPlanOrNote(const Operation &o, Type t);

  // The access in its form for any offset (a view at the box's corner or a gather).
  Value *generalLoad(const Operation &o);

  Value *paddingTile(Type t, Padding p) {
    if (!t.element().isFloat())
      return constInt(0, t);
    return constFloat(paddingValue(p), t);
  }

  void generalStore(const Operation &o);

  static int ordering(int64_t sem);
  static int scope(int64_t s) {
    return s == 2 ? tile::kTileBlock : s == 3 ? tile::kSystem : tile::kDevice;
  }

  void atomicRmw(const Operation &o);
  // The atomic_rmw_tko of o's pointer tile, with o's ordering and scope: its old values.
  Value *pointerRmw(const Operation &o, int mode);
  // A relaxed read-modify-write of a tile whose old values no op reads, through pointers that
  // raise to a view (planView): a reduction through the view, atomic_red_view_tko (no result;
  // relaxed only, tile-block or device scope, no xchg; 13.3). Where the plan has conditions,
  // the pointer form runs when they fail. False where it does not apply.
  bool viewReduction(const Operation &o, int mode);

  // Float atomic max/min (Tile IR's atomics take integers), as Triton lowers them: on the
  // bits, max is a signed max where val >= 0 and an unsigned min elsewhere (negative floats
  // order backwards as integers); min is a signed min / an unsigned max. The two atomics take
  // disjoint lanes and commute; each lane's old value comes from the one that ran it. NaN
  // values take the unsigned side, as in the CPU executors.
  void floatMinMax(const Operation &o, int mode);

  // tt.histogram (Tile IR has none): one-hot counts, the N values against the B bins as an
  // N x B compare summed over N. Values outside [0, B) and masked-off lanes count nowhere (the
  // CPU executors' rule). Above 2^20 compares the kernel falls back instead.
  void histogram(const Operation &o);

  // tt.gather (Tile IR has none): one-hot selection. Each output lane compares its index
  // with every position 0..N-1 of the source's axis, in a tile of the index's shape plus a
  // last dimension N where the hit keeps the source element's bits and the others 0; an OR
  // over that dimension leaves the element (bits: exact for every type, -0.0 and NaN too). An
  // index outside [0, N) gathers 0 (Triton leaves it undefined; the CPU executors raise).
  // Above 2^20 compares the kernel falls back instead.
  void gather(const Operation &o);

  // 16-bit tt.atomic_cas (Tile IR's takes 32/64-bit values): narrowAtomic with "val where the
  // element equals cmp (bitwise), else the element".
  void atomicCas(const Operation &o);

  // An atomic read-modify-write of the 8/16-bit element at scalar `ptr` (if `mask`, when not
  // null) as a compare-and-swap loop on the aligned 32-bit word that holds it: each round
  // computes `update(old element)` into the word guessed, and cas_tko swaps it in where the
  // word still holds the guess; a lost compare takes the word's value as its next guess (other
  // programs only cost rounds). Returns the old element. Tiles are Unsupported: the loop over a
  // tile hung on an H200 in every shape tried (2026-11-22). The word may reach up to 3 bytes past
  // the buffer: GPU allocations are 256-byte aligned, and the CAS writes back what it read.
  Value *narrowAtomic(const Operation &o, Value *ptr, Value *mask,
                      const std::function<Value *(Value *)> &update);

  // 8/16-bit integer atomic_rmw (every mode) and 16-bit float xchg, through narrowAtomic.
  void narrowRmw(const Operation &o, int mode);

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

  bool box(const Operation &o, Box &a);

  Box boxOf(const Operation &o);

  Value *cmp64(Value *a, Value *b, int pred) {
    return make1("cmpi", {a, b}, a->type.withElement(i1()),
                 {{"comparison_predicate", i32Attr(pred)}, {"signedness", i32Attr(tile::kSigned)}});
  }

  // Every checked offset inside its dimension: the view form is valid (index 0 in range).
  Value *boxInRange(const Box &a);

  ViewPlan boxPlan(const Box &a);

  // The general form, for rows [row0, row0 + rows) of the box (dimension 0): a pointer tile
  // and the bounds mask (null when nothing is checked).
  std::pair<Value *, Value *> boxPointers(const Box &a, Value *row0, int64_t rows);

  // Rows per chunk of the pointer form. Its index math is an i64 tile of the box's shape, and
  // tileiras sizes registers for it even when the branch never runs (a descriptor matmul ran
  // 0.69x stock Triton with one 128x128 chunk, 0.96x without the branch): chunks of at most
  // 1024 elements keep that small.
  static int64_t chunkRows(const Type &block);

  // The box loaded through pointers, chunk by chunk (rows of dimension 0), joined by cat.
  Value *boxGather(const Box &a, int ordering = tile::kWeak, int scope = -1);

  // `val` stored through pointers, chunk by chunk (extract per rows of dimension 0), in a loop
  // so that the rarely taken path stays small.
  void boxScatter(const Box &a, Value *val);

  // The condition box accesses branch on: the box in range (null when views are unguarded).
  Value *boxGuard(const Box &a) { return opts_.guardViews ? boxInRange(a) : nullptr; }

  Value *boxLoad(const Operation &o, const Box &a);

  void boxStore(const Operation &o, const Box &a);

  // ---------------------------------------------------------------- tile-index form

  void note(const Operation &o, bool raised, const std::string &detail) {
    if (reporting_)
      report_.accesses.push_back({o.name(), locationString(o.loc()), raised, detail});
  }

  Value *emitPoly(const Poly &p);

  // The conjunction of `conds` (null when there are none).
  Value *emitIndexConds(const std::vector<IndexCond> &conds);

  // The plan's view, made once at the kernel's top level.
  Value *indexView(const IndexPlan &p, Type elem, Padding pad);

  // coord_d / B_d per dimension, as i32 (coordinates are non-negative multiples of B_d).
  std::vector<Value *> tileIndices(const IndexPlan &p);

  // Plans the tile-index form for the accesses whose innermost loop is `loop`; returns the
  // conditions to check before it.
  std::vector<IndexCond> planLoopAccesses(const Operation &loop, const Block &b,
                                          std::vector<const Operation *> &planned);

  std::optional<IndexPlan> planIndex(const Operation &o, const Operation &loop);

  Value *indexedLoad(const Operation &o, const IndexPlan &p);

  void indexedStore(const Operation &o, const IndexPlan &p);

  // ---------------------------------------------------------------- dot

  void dot(const Operation &o);

  // ---------------------------------------------------------------- reduce / scan

  // The identity of a combiner: what its ops do to (lhs, rhs) pairs.
  Attribute identityFor(const Block &body, size_t i, size_t n, Type elem);

  void reduceLike(const Operation &o, bool scan);

  // Whether `ids` are the combiner's identity, left and right, on a few values per operand
  // (evaluated on scalars; false at an op the check cannot evaluate).
  bool identitiesHold(const Block &body, const std::vector<Attribute> &ids,
                      const std::vector<Type> &elems);

  // A tt.reduce whose combiner has no identity to give Tile IR's reduce: halvings along the
  // axis (neighbours (x0, x1), (x2, x3), ... combined elementwise) until it is 1 long. Exact
  // for any associative combiner, commutative or not; the axis must be a power of two, the
  // combiner elementwise ops without regions.
  void treeReduce(const Operation &o);

  // The combiner `body` applied lane by lane to tiles of `shape`: its ops cloned with tile
  // types into a scratch module, then converted as usual.
  std::vector<Value *> combineTiles(const Block &body, const std::vector<Value *> &lhs,
                                    const std::vector<Value *> &rhs,
                                    const std::vector<int64_t> &shape);

  // ---------------------------------------------------------------- control flow

  // A loop whose accesses take the tile-index form under conditions checked before it is
  // versioned: if (conditions) { loop, tile-index accesses } else { loop, general form }. When
  // the host can decide the conditions for the whole grid (launch_guard.h), the other version
  // is empty instead: the GPU path launches this kernel only where they hold. The branch stays
  // then too: it keeps the kernel memory-safe were the host wrong, and the loop measured as fast
  // under it as without it (H200).
  void forOp(const Operation &o);

  std::vector<Value *> loop(const Operation &o);

  void ifOp(const Operation &o);

  // scf.while (before: args -> condition(c, vals); after: vals -> yield next) becomes
  //   loop iter_values(args) { before; if c { after; continue next } ; break vals }
  void whileOp(const Operation &o);

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

  void print(const Operation &o);

  Builder b_;
  const TileOptions &opts_;
  TileConversion &report_;
  std::unordered_map<const Value *, Value *> map_;
  bool reporting_ = true; // off while a loop's second version is converted
  int loopDepth_ = 0;     // loops around the op being converted
  // Views made inside a loop (partitionView), whose stores say allow_tma=false.
  std::unordered_set<const Value *> loopViews_;
  // The kernel has a dot of at least 256 x 128 (M x N). Loads through maps tileiras builds
  // inside a loop then hung on an H100 (driver 580.159, tileiras 13.4): the grouped GEMM at
  // 256x128 and 256x256 tiles, whatever the warps, stages, occupancy, BLOCK_K or grid, while
  // 256x64, 128x256 and 128x128 ran (benchmarks/tma_hang_probe.py, 2026-11-26).
  bool tallDot_ = false;
  // The kernel has a tt.dot; without one its loads and stores through pointers stay gathers
  // (raisable, TileOptions::gathersWithoutDot).
  bool hasDot_ = false;
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
  std::unordered_set<const Value *> read_; // every TTIR value some op reads (convertKernel)
  std::unique_ptr<LaunchGuard> guard_;     // loops whose conditions the host decides
  Block *topBlock_ = nullptr;
  Operation *topAnchor_ = nullptr;
  // Per TTIR op with regions below the top level, as its conversion began: the Tile IR block
  // and the op before it (null: the block's start), where views anchored at it go.
  std::unordered_map<const Operation *, std::pair<Block *, Operation *>> opAnchors_;
};

} // namespace tt::tile_conv
