// convert-ttir-to-tile, memory: loads, stores and atomics (raised to views, tile-index views
// or gathers/scatters), descriptors and block pointers (box accesses). Scalar atomics Tile IR
// has no width for (8/16-bit integer read-modify-writes, 16-bit float xchg, 16-bit
// compare-and-swap) become compare-and-swap loops on the aligned 32-bit word that holds the
// element. Known limit: the same loop over a tile hung on an H200 (tileiras 13.4; one program,
// no shared words; benchmarks/RESULTS.md, 2026-11-22), so tile-shaped ones are unsupported
// (the kernel falls back).

#include <cmath>
#include <cstdlib>

#include "conversion/ttir_to_tile/converter.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "passes/passes.h"

namespace tt::tile_conv {

Value *Converter::emit(const SExprPtr &e) {
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

Value *Converter::makeView(const ViewPlan &plan, Type elem, Padding padding, Value *&guard) {
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

// The branch around a view access whose box may be empty (makeView's guard), or null for
// none. Where the host can decide for the whole grid that no box is empty (every dynamic
// extent positive: a program's rows `N - pid * B` of a grid of cdiv(N, B) programs), the
// launch guard checks it (launch_guard.h) and the access runs unbranched. A tile yielded
// from an `if` cost an H200's attention backward 40%: its K and V blocks, loaded so at the
// top and used by both loops, made tileiras keep two copies of the loops and spill (206
// TFLOP/s against 339 without the branches).
Value *Converter::accessGuard(const Operation &o, const ViewPlan &plan, Value *guard) {
  if (!opts_.guardViews || !guard)
    return nullptr;
  if (!opts_.launchGuards)
    return guard;
  std::vector<IndexCond> conds;
  for (size_t d = 0; d < plan.tile.size(); ++d) {
    bool known;
    int64_t c;
    if (!plan.extents[d])
      continue;
    if ((c = constantOf(plan.extents[d], known)), known) {
      if (c <= 0)
        return guard; // never accessed: the branch's constant false says so
      continue;
    }
    conds.push_back({polyConst(1), polyOf(plan.extents[d]), 0});
  }
  if (conds.empty() || !guard_->accepts(o, conds))
    return guard;
  guard_->add(o, conds);
  return nullptr;
}

Value *Converter::partitionView(Value *base, const std::vector<ViewDim> &dims, Type elem,
                                const std::vector<int64_t> &tile, Padding padding,
                                int64_t strideAlign) {
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
  Value *pview =
      make1("make_partition_view", {tview}, Type::partitionView(tile, tv, dimMap, padding));
  // Stores through a view made inside a loop take no TMA (TileOptions::kernelTmaMaps says why).
  bool inLoop = false; // where the view is made (a tile-index view goes above its loop)
  for (const Operation *p = pview->def->parentOp(); p && !inLoop; p = p->parentOp())
    inLoop = p->is("cuda_tile.for") || p->is("cuda_tile.loop");
  if (inLoop)
    loopViews_.insert(pview);
  return pview;
}

Padding Converter::paddingFor(const Value *other, Type elem, bool &needsSelect) {
  needsSelect = false;
  if (!other)
    return Padding::Zero;
  const Operation *d = other->def;
  // A float constant converted to the element type (Triton builds an fp8 `other=0.0` as
  // tt.fp_to_fp of an f32 constant): a zero stays a zero of the same sign in every format;
  // other values may round or saturate, so they keep the select.
  if (d && (d->is("tt.fp_to_fp") || d->is("arith.truncf") || d->is("arith.extf")) &&
      d->numOperands() == 1 && elem.isFloat()) {
    const Value *src = d->operand(0);
    bool srcSelect = false;
    Padding p = src->type.element().isFloat() ? paddingFor(src, src->type.element(), srcSelect)
                                              : Padding::None;
    if (!srcSelect && (p == Padding::Zero || p == Padding::NegZero))
      return p;
    needsSelect = true;
    return Padding::Zero;
  }
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

Value *Converter::pointerLoad(const Operation &o, int ordering, int scope) {
  std::vector<Value *> ops = {get(o.operand(0))};
  std::vector<int64_t> seg = {1, 0, 0, 0};
  for (size_t k = 1; k < o.numOperands() && k < 3; ++k) {
    ops.push_back(get(o.operand(k)));
    seg[k] = 1;
  }
  return make("load_ptr_tko", ops, {o.result(0)->type, Type::token()},
              memoryAttrs(seg, ordering, scope))
      ->result(0);
}

std::string Converter::underConditions(const ViewPlan &plan) {
  return plan.conditions.empty() ? ""
                                 : " (where its runtime conditions hold: no index wraps, no "
                                   "lane below its lower bound; a gather otherwise)";
}

Value *Converter::planConditions(const ViewPlan &plan) {
  Value *all = nullptr;
  for (const auto &c : plan.conditions) {
    Value *v = make1(
        "cmpi", {emit(c.first), emit(c.second)}, i1(),
        {{"comparison_predicate", i32Attr(tile::kLe)}, {"signedness", i32Attr(tile::kSigned)}});
    all = all ? make1("andi", {all, v}, i1()) : v;
  }
  return all;
}

std::vector<Value *> Converter::branchOn(Value *cond, const std::vector<Type> &types,
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

Value *Converter::viewLoad(const Operation &o, const ViewPlan &plan, Padding pad) {
  Type t = o.result(0)->type;
  Value *guard;
  Value *view = makeView(plan, t.element(), pad, guard);
  return branchOn(
      accessGuard(o, plan, guard), {t},
      [&]() -> std::vector<Value *> {
        std::vector<Value *> ops = {view};
        for (size_t d = 0; d < plan.tile.size(); ++d)
          ops.push_back(constInt(0, i32()));
        return {make("load_view_tko", ops, {t, Type::token()},
                     viewAttrs({1, static_cast<int64_t>(plan.tile.size()), 0}, view, false))
                    ->result(0)};
      },
      [&]() -> std::vector<Value *> { return {paddingTile(t, pad)}; })[0];
}

void Converter::viewWrite(const Operation &o, const ViewPlan &plan,
                          const std::function<void(Value *, const std::vector<Value *> &)> &emit) {
  Value *guard;
  Value *view = makeView(plan, o.operand(1)->type.element(), Padding::None, guard);
  branchOn(
      accessGuard(o, plan, guard), {},
      [&]() -> std::vector<Value *> {
        emit(view, std::vector<Value *>(plan.tile.size(), constInt(0, i32())));
        return {};
      },
      [&]() -> std::vector<Value *> { return {}; });
}

void Converter::viewStore(const Operation &o, const ViewPlan &plan) {
  viewWrite(o, plan, [&](Value *view, const std::vector<Value *> &zeros) {
    std::vector<Value *> ops = {get(o.operand(1)), view};
    ops.insert(ops.end(), zeros.begin(), zeros.end());
    make("store_view_tko", ops, {Type::token()},
         viewAttrs({1, 1, static_cast<int64_t>(zeros.size()), 0}, view, true));
  });
}

void Converter::store(const Operation &o) {
  auto it = indexPlans_.find(&o);
  if (it == indexPlans_.end())
    generalStore(o);
  else
    indexedStore(o, it->second);
}

bool Converter::raisable(const Operation &o, Type t, bool inLoop, std::string &why) const {
  if (!opts_.raiseViews || !t.isTensor()) {
    why = "view raising disabled";
    return false;
  }
  if (!hasDot_ && opts_.gathersWithoutDot && (o.is("tt.load") || o.is("tt.store"))) {
    why = "a load or store in a kernel without a dot stays a gather (measured faster)";
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

std::optional<ViewPlan> Converter::viewPlanOrNote(const Operation &o, Type t) {
  std::string why;
  std::optional<ViewPlan> plan;
  if (raisable(o, t, loopDepth_ > 0, why))
    plan = planView(o, why);
  if (!plan && t.isTensor())
    note(o, false, why);
  return plan;
}

Value *Converter::generalLoad(const Operation &o) {
  Type t = o.result(0)->type;
  if (isBoxAccess(o) && gatherOnly_.count(&o)) {
    Value *v = boxGather(boxOf(o));
    return v->type == t ? v : make1("reshape", {v}, t);
  }
  if (isBoxAccess(o))
    return boxLoad(o, boxOf(o));
  std::optional<ViewPlan> plan = viewPlanOrNote(o, t);
  if (!plan)
    return pointerLoad(o);
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
  note(o, true,
       "tensor_view + partition_view, padding " + std::string(paddingName(pad)) +
           underConditions(*plan));
  return loaded;
}

void Converter::generalStore(const Operation &o) {
  Type t = o.operand(1)->type;
  if (isBoxAccess(o) && gatherOnly_.count(&o)) {
    Box a = boxOf(o);
    Value *val = get(o.operand(1));
    return boxScatter(a, val->type == a.block ? val : make1("reshape", {val}, a.block));
  }
  if (isBoxAccess(o))
    return boxStore(o, boxOf(o));
  std::optional<ViewPlan> plan = viewPlanOrNote(o, t);
  if (!plan)
    return pointerStore(o);
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
  note(o, true, "tensor_view + partition_view" + underConditions(*plan));
}

int Converter::ordering(int64_t sem) {
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

void Converter::atomicRmw(const Operation &o) {
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
  if ((!isFloat && (width == 8 || width == 16)) || (isFloat && width == 16 && mode == tile::kXchg))
    return narrowRmw(o, mode);
  if (!isFloat && width < 32)
    throw Unsupported{"atomics on " + elem.str() + " (Tile IR atomics take 32/64-bit integers)"};
  if (isFloat && width == 8)
    throw Unsupported{"atomics on " + elem.str()};
  if (!viewReduction(o, mode))
    bind(o, pointerRmw(o, mode));
}

Value *Converter::pointerRmw(const Operation &o, int mode) {
  std::vector<int64_t> seg = {1, 1, o.numOperands() > 2 ? 1 : 0, 0};
  Attrs a = memoryAttrs(seg, ordering(o.intAttr("sem")), scope(o.intAttr("scope")));
  a.emplace_back("mode", i32Attr(mode));
  return make("atomic_rmw_tko", get(o.operands), {o.result(0)->type, Type::token()}, a)->result(0);
}

bool Converter::viewReduction(const Operation &o, int mode) {
  Type t = o.operand(1)->type;
  if (!opts_.viewReductions || mode == tile::kXchg || read_.count(o.result(0)) ||
      ordering(o.intAttr("sem")) != tile::kRelaxed || scope(o.intAttr("scope")) == tile::kSystem ||
      !t.isTensor())
    return false;
  std::optional<ViewPlan> plan = viewPlanOrNote(o, t);
  if (!plan)
    return false;
  branchOn(
      opts_.guardViews ? planConditions(*plan) : nullptr, {},
      [&]() -> std::vector<Value *> {
        viewWrite(o, *plan, [&](Value *view, const std::vector<Value *> &zeros) {
          std::vector<Value *> ops = {view};
          ops.insert(ops.end(), zeros.begin(), zeros.end());
          ops.push_back(get(o.operand(1)));
          Attrs a = memoryAttrs({1, static_cast<int64_t>(zeros.size()), 1, 0}, tile::kRelaxed,
                                scope(o.intAttr("scope")));
          a.emplace_back("mode", i32Attr(mode));
          make("atomic_red_view_tko", ops, {Type::token()}, a);
        });
        return {};
      },
      [&]() -> std::vector<Value *> {
        pointerRmw(o, mode);
        return {};
      });
  note(o, true, "a reduction through tensor_view + partition_view" + underConditions(*plan));
  return true;
}

void Converter::floatMinMax(const Operation &o, int mode) {
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

Value *Converter::narrowAtomic(const Operation &o, Value *ptr, Value *mask,
                               const std::function<Value *(Value *)> &update) {
  Type pt = ptr->type;
  if (pt.isTensor()) // measured: every tile form hung on an H200 (benchmarks/RESULTS.md)
    throw Unsupported{"8/16-bit atomics on a tile (Tile IR atomics take 32/64-bit values; "
                      "their compare-and-swap emulation runs for scalars only: over a tile it "
                      "hung on an H200)"};
  int width = pt.element().pointee().bitWidth();
  Type it = pt.withElement(Type::integer(width)), wt = pt.withElement(i32());
  Type at = pt.withElement(i64()), bt = pt.withElement(i1());
  // The aligned word and the element's place in it (little-endian: byte k is bits 8k..8k+7).
  Value *addr = make1("ptr_to_int", {ptr}, at);
  Value *word = make1("int_to_ptr", {make1("andi", {addr, constInt(~int64_t(3), at)}, at)},
                      pt.withElement(Type::pointer(i32())));
  Value *low = make1("trunci", {make1("andi", {addr, constInt(3, at)}, at)}, wt);
  Value *shift = make1("muli", {low, constInt(8, wt)}, wt);
  Value *keep = make1(
      "xori",
      {make1("shli", {constInt((int64_t(1) << width) - 1, wt), shift}, wt), constInt(-1, wt)}, wt);
  // loop (active lanes, word guessed, old elements): the first guess is 0; a failed compare
  // returns the word's value, the next guess.
  Value *active = mask ? mask : constInt(1, bt);
  Operation *loop = make("loop", {active, constInt(0, wt), constInt(0, it)}, {bt, wt, it}, {}, 1);
  Block *body = loop->region(0)->addBlock();
  Value *on = body->addArg(bt), *guess = body->addArg(wt), *olds = body->addArg(it);
  auto ip = b_.saveInsertionPoint();
  b_.setInsertionPointToEnd(body);
  Value *old =
      make1("trunci",
            {make1("shri", {guess, shift}, wt, {{"signedness", i32Attr(tile::kUnsigned)}})}, it);
  Value *put = make1("exti", {update(old)}, wt, {{"signedness", i32Attr(tile::kUnsigned)}});
  Value *next =
      make1("ori", {make1("andi", {guess, keep}, wt), make1("shli", {put, shift}, wt)}, wt);
  Attrs a = memoryAttrs({1, 1, 1, 1, 0}, ordering(o.intAttr("sem")), scope(o.intAttr("scope")));
  Value *seen = make("atomic_cas_tko", {word, guess, next, on}, {wt, Type::token()}, a)->result(0);
  Value *won = make1("andi",
                     {on, make1("cmpi", {seen, guess}, bt,
                                {{"comparison_predicate", i32Attr(tile::kEq)},
                                 {"signedness", i32Attr(tile::kSigned)}})},
                     bt);
  std::vector<Value *> carried = {make1("xori", {on, won}, bt), seen,
                                  make1("select", {won, old, olds}, it)};
  // Another round while the compare lost (another program changed the word).
  Value *left = carried[0];
  Operation *again = make("if", {left}, {}, {}, 2);
  b_.setInsertionPointToEnd(again->region(0)->addBlock());
  make("continue", carried, {});
  b_.setInsertionPointToEnd(body);
  make("break", carried, {});
  b_.restoreInsertionPoint(ip);
  return loop->result(2);
}

void Converter::narrowRmw(const Operation &o, int mode) {
  Value *val = get(o.operand(1));
  Type vt = val->type, it = vt.withElement(Type::integer(vt.element().bitWidth()));
  bool isFloat = vt.element().isFloat();
  Value *bits = isFloat ? make1("bitcast", {val}, it) : val;
  auto update = [&](Value *old) -> Value * {
    auto signedOp = [&](const char *n, int s) {
      return make1(n, {old, bits}, it, {{"signedness", i32Attr(s)}});
    };
    switch (mode) {
    case tile::kAnd:
      return make1("andi", {old, bits}, it);
    case tile::kOr:
      return make1("ori", {old, bits}, it);
    case tile::kXor:
      return make1("xori", {old, bits}, it);
    case tile::kAdd:
      return make1("addi", {old, bits}, it);
    case tile::kMax:
      return signedOp("maxi", tile::kSigned);
    case tile::kMin:
      return signedOp("mini", tile::kSigned);
    case tile::kUMax:
      return signedOp("maxi", tile::kUnsigned);
    case tile::kUMin:
      return signedOp("mini", tile::kUnsigned);
    case tile::kXchg:
      return bits;
    }
    throw Unsupported{"atomic mode " + std::to_string(mode) + " on " + vt.element().str()};
  };
  Value *mask = o.numOperands() > 2 ? get(o.operand(2)) : nullptr;
  Value *old = narrowAtomic(o, get(o.operand(0)), mask, update);
  bind(o, isFloat ? make1("bitcast", {old}, vt) : old);
}

void Converter::atomicCas(const Operation &o) {
  Type elem = o.operand(1)->type.element();
  if (elem.bitWidth() == 16) {
    // Bitwise, as Tile IR's and the CPU executors' compare-and-swap: the element becomes val
    // where it equals cmp; else the word is swapped for itself, which confirms the old value.
    Type vt = o.result(0)->type, it = vt.withElement(Type::integer(16));
    auto bits = [&](Value *v) { return elem.isFloat() ? make1("bitcast", {v}, it) : v; };
    Value *cmp = bits(get(o.operand(1))), *val = bits(get(o.operand(2)));
    Value *old = narrowAtomic(o, get(o.operand(0)), nullptr, [&](Value *cur) {
      Value *hit = make1(
          "cmpi", {cur, cmp}, it.withElement(i1()),
          {{"comparison_predicate", i32Attr(tile::kEq)}, {"signedness", i32Attr(tile::kSigned)}});
      return make1("select", {hit, val, cur}, it);
    });
    return bind(o, elem.isFloat() ? make1("bitcast", {old}, vt) : old);
  }
  if (elem.bitWidth() < 32)
    throw Unsupported{"compare-and-swap on " + elem.str() + " (Tile IR takes 16/32/64-bit values)"};
  std::vector<Value *> ops = get(o.operands);
  Attrs a = memoryAttrs({1, 1, 1, 0, 0}, ordering(o.intAttr("sem")), scope(o.intAttr("scope")));
  bind(o, make("atomic_cas_tko", ops, {o.result(0)->type, Type::token()}, a)->result(0));
}

bool Converter::box(const Operation &o, Box &a) {
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

Converter::Box Converter::boxOf(const Operation &o) {
  Box bx;
  if (!box(o, bx))
    throw Unsupported{o.operand(0)->type.isBlockPtr()
                          ? "block pointer not built by a visible tt.make_tensor_ptr"
                          : "descriptor not built by a visible tt.make_tensor_descriptor"};
  return bx;
}

Value *Converter::boxInRange(const Box &a) {
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

ViewPlan Converter::boxPlan(const Box &a) {
  ViewPlan p;
  p.base = a.base;
  p.tile = a.block.shape();
  p.offset = sConst(0);
  p.strideAlign = a.strideAlign;
  for (size_t d = 0; d < a.offsets.size(); ++d) {
    SExprPtr o = scalarExpr(a.offsets[d]);
    p.offset = sAdd(p.offset, sMul(o, scalarExpr(a.strides[d])));
    p.strides.push_back(scalarExpr(a.strides[d]));
    p.extents.push_back(a.checked[d] ? sAdd(scalarExpr(a.shape[d]), sMul(o, sConst(-1))) : nullptr);
  }
  // (A box corner is not assumed 16-byte aligned even where a descriptor's contract and the
  // offset would make it so: with TMA through such views, made in the loops of an H100's grouped
  // GEMM, tileiras 13.4 gave wrong results at 128x128x32 and failed to compile 128x256x64.
  // Converter::indexView assumes the descriptor's own base aligned.)
  return p;
}

std::pair<Value *, Value *> Converter::boxPointers(const Box &a, Value *row0, int64_t rows) {
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

int64_t Converter::chunkRows(const Type &block) {
  int64_t rows = block.shape()[0], rest = 1;
  for (size_t d = 1; d < block.shape().size(); ++d)
    rest *= block.shape()[d];
  while (rows > 1 && rows * rest > 1024)
    rows /= 2;
  return rows;
}

Value *Converter::boxGather(const Box &a, int ordering, int scope) {
  Type t = a.block;
  int64_t rows = chunkRows(t), total = t.shape()[0];
  std::vector<int64_t> part = t.shape();
  part[0] = rows;
  std::vector<Value *> chunks;
  for (int64_t r = 0; r < total; r += rows) {
    auto [ptrs, mask] = boxPointers(a, r ? constInt(r, i64()) : nullptr, rows);
    std::vector<Value *> ops = {ptrs, mask, paddingTile(t.withShape(part), a.pad)};
    chunks.push_back(make("load_ptr_tko", ops, {t.withShape(part), Type::token()},
                          memoryAttrs({1, 1, 1, 0}, ordering, scope))
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

void Converter::boxScatter(const Box &a, Value *val) {
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

Value *Converter::boxLoad(const Operation &o, const Box &a) {
  Type t = a.block;
  auto viaView = [&]() -> std::vector<Value *> {
    Value *guard;
    Value *view = makeView(boxPlan(a), t.element(), a.pad, guard);
    std::vector<Value *> ops = {view};
    for (size_t d = 0; d < a.offsets.size(); ++d)
      ops.push_back(constInt(0, i32()));
    return {make("load_view_tko", ops, {t, Type::token()},
                 viewAttrs({1, static_cast<int64_t>(a.offsets.size()), 0}, view, false))
                ->result(0)};
  };
  auto viaPointers = [&]() -> std::vector<Value *> { return {boxGather(a)}; };
  Value *v = branchOn(boxGuard(a), {t}, viaView, viaPointers)[0];
  Type want = o.result(0)->type;
  if (want != t)
    v = make1("reshape", {v}, want);
  note(o, true, "box view (any offset; masked pointers when out of range)");
  return v;
}

void Converter::boxStore(const Operation &o, const Box &a) {
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
         viewAttrs({1, 1, static_cast<int64_t>(a.offsets.size()), 0}, view, true));
    return {};
  };
  auto viaPointers = [&]() -> std::vector<Value *> {
    boxScatter(a, val);
    return {};
  };
  branchOn(boxGuard(a), {}, viaView, viaPointers);
  note(o, true, "box view (any offset; masked pointers when out of range)");
}

} // namespace tt::tile_conv
