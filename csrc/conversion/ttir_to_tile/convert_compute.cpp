// convert-ttir-to-tile, compute: tt.dot (mmaf/mmai with the input precisions), tt.reduce and
// tt.scan with their combiners' identities (a reduce whose identity cannot be inferred becomes
// halvings of the axis instead), and what Tile IR has no op for: math.erf (f32 polynomials;
// f64 fdlibm's rational approximations and exp), tt.histogram and tt.gather (one-hot compares
// and a reduce). An identity inferred from the ops that touch each argument pair is used only
// if it holds when the combiner is evaluated on a few values (identitiesHold): a combiner that
// mixes pairs (a 2x2 matrix product) or post-processes ((a + b) * 2) misleads the inference.
// Known limit: a scan without an identity that holds is unsupported (no halvings for scans).

#include <cmath>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "conversion/ttir_to_tile/converter.h"
#include "ir/builder.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "passes/passes.h"

namespace tt::tile_conv {

void Converter::dot(const Operation &o) {
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
    // fp8 with maxNumImpreciseAcc > 0 (stock Triton's Hopper default, 2^30): accumulate in the
    // MMA's accumulator (fast_acc), as stock Triton's wgmma does; without it tileiras promotes
    // into a second f32 accumulator every K step (QGMMA into zero, then FADDs): twice the
    // accumulator registers, spills, and a wait after each MMA (benchmarks/RESULTS.md, fp8).
    const bool fp8 = ae.floatKind() == FloatKind::F8E4M3FN || ae.floatKind() == FloatKind::F8E5M2;
    Attrs attrs;
    if (fp8 && o.intAttr("maxNumImpreciseAcc", 0) > 0)
      attrs.push_back({"fast_acc", Attribute::unit()});
    bind(o, make1("mmaf", {a, bm, c}, ct, attrs));
    return;
  }
  int64_t prec = o.intAttr("inputPrecision", 0);
  if (prec == 2) { // ieee
    bind(o, make1("mmaf", {a, bm, c}, ct));
    return;
  }
  Type tf = Type::floating(FloatKind::TF32);
  auto toTf = [&](Value *v) {
    return make1("ftof", {v}, v->type.withElement(tf), {{"rounding", i32Attr(tile::kNearestEven)}});
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

Attribute Converter::identityFor(const Block &body, size_t i, size_t n, Type elem) {
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

namespace {

// One scalar of the combiner check below: a float, or an integer kept at its width.
struct Scalar {
  bool isFloat = false;
  double f = 0;
  int64_t i = 0;
};

int64_t atWidth(int64_t v, Type t) { // two's complement wrap to the type's width
  int w = t.isInt() ? t.intWidth() : 64;
  if (w >= 64)
    return v;
  uint64_t m = (uint64_t(1) << w) - 1, u = uint64_t(v) & m;
  return w > 1 && (u >> (w - 1)) ? int64_t(u | ~m) : int64_t(u);
}

uint64_t asUnsigned(int64_t v, Type t) {
  int w = t.isInt() ? t.intWidth() : 64;
  return w >= 64 ? uint64_t(v) : uint64_t(v) & ((uint64_t(1) << w) - 1);
}

bool comparePred(int64_t p, double a, double b, bool isCmpf) {
  if (isCmpf) {
    bool uno = std::isnan(a) || std::isnan(b);
    switch (p) {
    case 1:
    case 8:
      return a == b || (p == 8 && uno);
    case 2:
    case 9:
      return a > b || (p == 9 && uno);
    case 3:
    case 10:
      return a >= b || (p == 10 && uno);
    case 4:
    case 11:
      return a < b || (p == 11 && uno);
    case 5:
    case 12:
      return a <= b || (p == 12 && uno);
    case 6:
    case 13:
      return (a != b && !uno) || (p == 13 && uno);
    default:
      return false;
    }
  }
  return false;
}

// The combiner evaluated on scalars, for the ops a reduce's combiner usually has; nullopt at
// any other op (the caller then cannot check an identity with it).
std::optional<std::vector<Scalar>> evalCombiner(const Block &body,
                                                const std::vector<Scalar> &args) {
  std::unordered_map<const Value *, Scalar> v;
  for (size_t k = 0; k < body.numArgs(); ++k)
    v[body.arg(k)] = args[k];
  for (const auto &op : body.ops()) {
    const std::string &n = op->name();
    if (n == "tt.reduce.return" || n == "tt.scan.return") {
      std::vector<Scalar> out;
      for (const Value *x : op->operands)
        out.push_back(v.at(x));
      return out;
    }
    if (op->numResults() != 1 || op->numRegions() > 0)
      return std::nullopt;
    for (const Value *x : op->operands)
      if (!v.count(x))
        return std::nullopt; // a value from outside the combiner
    Type t = op->result(0)->type;
    Scalar r;
    r.isFloat = t.isFloat();
    auto a = [&](size_t k) { return v.at(op->operand(k)); };
    auto f2 = [&](double (*fn)(double, double)) { r.f = fn(a(0).f, a(1).f); };
    if (n == "arith.constant") {
      const Attribute &val = op->attr("value");
      if (r.isFloat)
        r.f = val.getFloat();
      else
        r.i = atWidth(val.getInt(), t);
    } else if (n == "arith.addf")
      r.f = a(0).f + a(1).f;
    else if (n == "arith.subf")
      r.f = a(0).f - a(1).f;
    else if (n == "arith.mulf")
      r.f = a(0).f * a(1).f;
    else if (n == "arith.divf")
      r.f = a(0).f / a(1).f;
    else if (n == "arith.negf")
      r.f = -a(0).f;
    else if (n == "arith.maxnumf" || n == "arith.maximumf")
      f2([](double x, double y) { return std::fmax(x, y); });
    else if (n == "arith.minnumf" || n == "arith.minimumf")
      f2([](double x, double y) { return std::fmin(x, y); });
    else if (n == "arith.addi")
      r.i = atWidth(int64_t(uint64_t(a(0).i) + uint64_t(a(1).i)), t);
    else if (n == "arith.subi")
      r.i = atWidth(int64_t(uint64_t(a(0).i) - uint64_t(a(1).i)), t);
    else if (n == "arith.muli")
      r.i = atWidth(int64_t(uint64_t(a(0).i) * uint64_t(a(1).i)), t);
    else if (n == "arith.andi")
      r.i = atWidth(a(0).i & a(1).i, t);
    else if (n == "arith.ori")
      r.i = atWidth(a(0).i | a(1).i, t);
    else if (n == "arith.xori")
      r.i = atWidth(a(0).i ^ a(1).i, t);
    else if (n == "arith.maxsi" || n == "arith.minsi")
      r.i = (a(0).i > a(1).i) == (n == "arith.maxsi") ? a(0).i : a(1).i;
    else if (n == "arith.maxui" || n == "arith.minui")
      r.i =
          (asUnsigned(a(0).i, t) > asUnsigned(a(1).i, t)) == (n == "arith.maxui") ? a(0).i : a(1).i;
    else if (n == "arith.cmpf")
      r.i = comparePred(op->intAttr("predicate"), a(0).f, a(1).f, true);
    else if (n == "arith.cmpi") {
      Type ot = op->operand(0)->type;
      int64_t p = op->intAttr("predicate"), x = a(0).i, y = a(1).i;
      uint64_t ux = asUnsigned(x, ot), uy = asUnsigned(y, ot);
      static const int kinds[] = {0, 1, 2, 3, 4, 5, 2, 3, 4, 5}; // eq ne lt le gt ge
      bool u = p >= 6, lt = u ? ux < uy : x < y, eq = x == y;
      int k = p >= 0 && p < 10 ? kinds[p] : -1;
      r.i = k == 0   ? eq
            : k == 1 ? !eq
            : k == 2 ? lt
            : k == 3 ? lt || eq
            : k == 4 ? !lt && !eq
            : k == 5 ? !lt
                     : 0;
    } else if (n == "arith.select")
      r = a(0).i ? a(1) : a(2);
    else
      return std::nullopt;
    v[op->result(0)] = r;
  }
  return std::nullopt;
}

bool sameScalar(const Scalar &a, const Scalar &b) {
  return a.isFloat ? (a.f == b.f || (std::isnan(a.f) && std::isnan(b.f))) : a.i == b.i;
}

} // namespace

// Whether `ids` act as the identity of the combiner, left and right, on a few values per
// operand: an inference from the ops that touch each argument pair can be misled (a combiner
// mixing pairs, (a + b) * 2, a select picking the other branch). An identity the check cannot
// evaluate (an op it does not know) is not trusted either.
bool Converter::identitiesHold(const Block &body, const std::vector<Attribute> &ids,
                               const std::vector<Type> &elems) {
  static const double kF[] = {0.0, 1.0, -1.0, 2.5, -3.75, 1000.0};
  static const int64_t kI[] = {0, 1, -1, 7, -9, 100};
  size_t n = ids.size();
  for (int k = 0; k < 6; ++k) {
    std::vector<Scalar> x(n), id(n);
    for (size_t i = 0; i < n; ++i) {
      bool fl = elems[i].isFloat();
      x[i].isFloat = id[i].isFloat = fl;
      x[i].f = kF[(k + i) % 6];
      x[i].i = atWidth(kI[(k + i) % 6], elems[i]);
      if (elems[i].isInt(1))
        x[i].i = (k + i) % 2;
      id[i].f = fl ? ids[i].getFloat() : 0;
      id[i].i = fl ? 0 : atWidth(ids[i].getInt(), elems[i]);
    }
    for (int side = 0; side < 2; ++side) {
      std::vector<Scalar> args = side ? id : x, rest = side ? x : id;
      args.insert(args.end(), rest.begin(), rest.end());
      auto out = evalCombiner(body, args);
      if (!out || out->size() != n)
        return false;
      for (size_t i = 0; i < n; ++i)
        if (!sameScalar((*out)[i], x[i]))
          return false;
    }
  }
  return true;
}

void Converter::reduceLike(const Operation &o, bool scan) {
  const Block &body = *o.region(0)->front();
  size_t n = o.numOperands();
  std::vector<Attribute> ids;
  std::vector<Type> elems;
  for (size_t i = 0; i < n; ++i)
    elems.push_back(o.operand(i)->type.element());
  try {
    for (size_t i = 0; i < n; ++i)
      ids.push_back(identityFor(body, i, n, elems[i]));
    if (!identitiesHold(body, ids, elems))
      throw Unsupported{"the identity inferred for this combine function does not hold"};
  } catch (const Unsupported &) {
    if (scan)
      throw;
    return treeReduce(o);
  }
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

void Converter::treeReduce(const Operation &o) {
  const Block &body = *o.region(0)->front();
  size_t n = o.numOperands();
  Type t0 = o.operand(0)->type;
  int64_t axis = o.intAttr("axis");
  std::vector<int64_t> shape = t0.shape();
  if (!t0.isTensor() || shape[axis] & (shape[axis] - 1))
    throw Unsupported{"a reduce without an identity over an axis of " +
                      std::to_string(shape[axis]) + " (halvings need a power of two)"};
  std::vector<Value *> cur = get(o.operands);
  while (shape[axis] > 1) {
    // Neighbours pair up, (x0, x1), (x2, x3), ...: the axis reshaped to (n/2, 2) and the two
    // columns extracted, so a combiner that is associative but not commutative keeps its order.
    std::vector<int64_t> half = shape, pairs = shape, column;
    half[axis] /= 2;
    pairs[axis] /= 2;
    pairs.insert(pairs.begin() + axis + 1, 2);
    column = pairs;
    column[axis + 1] = 1;
    std::vector<Value *> lo, hi;
    for (Value *v : cur) {
      Value *p = make1("reshape", {v}, v->type.withShape(pairs));
      for (int k = 0; k < 2; ++k) {
        std::vector<Value *> operands = {p};
        for (size_t d = 0; d < pairs.size(); ++d)
          operands.push_back(constInt(static_cast<int64_t>(d) == axis + 1 ? k : 0, i32()));
        Value *e = make1("extract", operands, v->type.withShape(column));
        (k ? hi : lo).push_back(make1("reshape", {e}, v->type.withShape(half)));
      }
    }
    cur = combineTiles(body, lo, hi, half);
    shape = half;
  }
  std::vector<Value *> res;
  for (size_t i = 0; i < n; ++i)
    res.push_back(make1("reshape", {cur[i]}, o.result(i)->type));
  bind(o, res);
}

std::vector<Value *> Converter::combineTiles(const Block &body, const std::vector<Value *> &lhs,
                                             const std::vector<Value *> &rhs,
                                             const std::vector<int64_t> &shape) {
  Module scratch;
  Builder tb(scratch);
  // (a tt.reduce with no operands holds the block: any registered op with a region would do)
  Block *blk = tb.create("tt.reduce", {}, {}, {}, 1)->region(0)->addBlock();
  std::unordered_map<const Value *, Value *> clone;
  for (size_t i = 0; i < body.numArgs(); ++i)
    clone[body.arg(i)] = blk->addArg(Type::tensor(shape, body.arg(i)->type));
  tb.setInsertionPointToEnd(blk);
  // A value from outside the combiner (a constant CSE hoisted, say) is splat to the shape.
  auto operand = [&](Value *v) {
    auto it = clone.find(v);
    if (it != clone.end())
      return it->second;
    if (v->type.isTensor())
      throw Unsupported{"a reduce without an identity whose combiner reads a tensor"};
    return clone[v] = tb.create("tt.splat", {v}, {Type::tensor(shape, v->type)})->result(0);
  };
  std::vector<Value *> yields;
  for (const auto &op : body.ops()) {
    std::vector<Value *> operands;
    for (Value *v : op->operands)
      operands.push_back(operand(v));
    if (op->is("tt.reduce.return")) {
      yields = operands;
      break;
    }
    if (op->numRegions() > 0)
      throw Unsupported{"a reduce without an identity whose combiner has '" + op->name() + "'"};
    std::vector<Type> types;
    for (size_t i = 0; i < op->numResults(); ++i) {
      Type t = op->result(i)->type;
      if (t.isTensor())
        throw Unsupported{"a reduce without an identity whose combiner makes tensors"};
      types.push_back(Type::tensor(shape, t));
    }
    Attrs attrs = op->attrs();
    for (auto &kv : attrs) // a scalar constant becomes a splat of the tile's shape
      if (op->is("arith.constant") && kv.first == "value")
        kv.second = Attribute::denseSplat(kv.second.getFloat(), kv.second.getInt(), types[0]);
    Operation *c = tb.create(op->name(), operands, types, std::move(attrs));
    for (size_t i = 0; i < op->numResults(); ++i)
      clone[op->result(i)] = c->result(i);
  }
  // Convert the clone with the halves bound to its arguments; forget the scratch values after.
  for (size_t i = 0; i < lhs.size(); ++i) {
    map_[blk->arg(i)] = lhs[i];
    map_[blk->arg(lhs.size() + i)] = rhs[i];
  }
  for (const auto &op : blk->ops())
    this->op(*op);
  std::vector<Value *> out = get(yields);
  for (size_t i = 0; i < blk->numArgs(); ++i)
    map_.erase(blk->arg(i));
  for (const auto &op : blk->ops())
    for (size_t i = 0; i < op->numResults(); ++i)
      map_.erase(op->result(i));
  return out;
}

Value *Converter::polynomial(const double *k, int n, Value *v) {
  Type t = v->type;
  Attrs nearest = floatMods(t, tile::Mods::Rounding);
  Value *r = constFloat(k[n - 1], t);
  for (int i = n - 2; i >= 0; --i)
    r = make1("addf", {make1("mulf", {r, v}, t, nearest), constFloat(k[i], t)}, t, nearest);
  return r;
}

void Converter::erf(const Operation &o) {
  static const double kP[] = {1.1283791,   -0.3761232,   0.112801306,
                              -0.02670995, 0.0049160235, -0.0005625396};
  static const double kQ[] = {0.00040050052, -1.1306045,   -0.63108885,   -0.11090742,
                              0.026999498,   -0.005021045, 0.00067333755, -6.0068796e-05,
                              3.0952046e-06, -6.582858e-08};
  Type f = o.result(0)->type;
  if (!f32(f))
    return bind(o, erf64(get(o.operand(0))));
  Attrs nearest = floatMods(f, tile::Mods::Rounding);
  auto op = [&](const char *n, Value *a, Value *b) { return make1(n, {a, b}, f, nearest); };
  Value *x = get(o.operand(0));
  Value *a = make1("absf", {x}, f);
  Value *small = op("mulf", x, polynomial(kP, 6, op("mulf", x, x)));
  Value *large = op("subf", constFloat(1, f), make1("exp", {polynomial(kQ, 10, a)}, f));
  large = make1("select", {cmpfConst(tile::kGe, a, 4), constFloat(1, f), large}, f);
  large = make1("select", {cmpfConst(tile::kLt, x, 0), make1("negf", {large}, f), large}, f);
  bind(o, make1("select", {cmpfConst(tile::kLt, a, 1), small, large}, f));
}

Value *Converter::erf64(Value *x) {
  // fdlibm's s_erf.c coefficients (Sun Microsystems, 1993), rational approximations:
  // kPP/kQQ erf on [0, 0.84375]; kPA/kQA erf - erx on [0.84375, 1.25]; kRA/kSA and kRB/kSB
  // log(x * erfc(x)) + x^2 + 0.5625 on [1.25, 1/0.35] and [1/0.35, 6]. Denominators lead with 1.
  static const double kPP[] = {1.28379167095512558561e-01, -3.25042107247001499370e-01,
                               -2.84817495755985104766e-02, -5.77027029648944159157e-03,
                               -2.37630166566501626084e-05};
  static const double kQQ[] = {1.0,
                               3.97917223959155352819e-01,
                               6.50222499887672944485e-02,
                               5.08130628187576562776e-03,
                               1.32494738004321644526e-04,
                               -3.96022827877536812320e-06};
  static const double kPA[] = {-2.36211856075265944077e-03, 4.14856118683748331666e-01,
                               -3.72207876035701323847e-01, 3.18346619901161753674e-01,
                               -1.10894694282396677476e-01, 3.54783043256182359371e-02,
                               -2.16637559486879084300e-03};
  static const double kQA[] = {1.0,
                               1.06420880400844228286e-01,
                               5.40397917702171048937e-01,
                               7.18286544141962662868e-02,
                               1.26171219808761642112e-01,
                               1.36370839120290507362e-02,
                               1.19844998467991074170e-02};
  static const double kRA[] = {-9.86494403484714822705e-03, -6.93858572707181764372e-01,
                               -1.05586262253232909814e+01, -6.23753324503260060396e+01,
                               -1.62396669462573470355e+02, -1.84605092906711035994e+02,
                               -8.12874355063065934246e+01, -9.81432934416914548592e+00};
  static const double kSA[] = {1.0,
                               1.96512716674392571292e+01,
                               1.37657754143519042600e+02,
                               4.34565877475229228821e+02,
                               6.45387271733267880336e+02,
                               4.29008140027567833386e+02,
                               1.08635005541779435134e+02,
                               6.57024977031928170135e+00,
                               -6.04244152148580987438e-02};
  static const double kRB[] = {-9.86494292470009928597e-03, -7.99283237680523006574e-01,
                               -1.77579549177547519889e+01, -1.60636384855821916062e+02,
                               -6.37566443368389627722e+02, -1.02509513161107724954e+03,
                               -4.83519191608651397019e+02};
  static const double kSB[] = {1.0,
                               3.03380607434824582924e+01,
                               3.25792512996573918826e+02,
                               1.53672958608443695994e+03,
                               3.19985821950859553908e+03,
                               2.55305040643316442583e+03,
                               4.74528541206955367215e+02,
                               -2.24409524465858183362e+01};
  const double erx = 8.45062911510467529297e-01; // erf(1) rounded to 24 bits
  Type f = x->type;
  Attrs nearest = floatMods(f, tile::Mods::Rounding);
  auto op = [&](const char *n, Value *l, Value *r) { return make1(n, {l, r}, f, nearest); };
  auto c = [&](double v) { return constFloat(v, f); };
  auto ratio = [&](const double *p, int np, const double *q, int nq, Value *v) {
    return op("divf", polynomial(p, np, v), polynomial(q, nq, v));
  };
  auto below = [&](Value *l, double r) { return cmpfConst(tile::kLt, l, r); };
  Value *a = make1("absf", {x}, f);
  // |x| < 0.84375: x + x * PP/QQ (odd, so -0 stays -0; for tiny x, x*x underflows harmlessly).
  Value *small = op("addf", x, op("mulf", x, ratio(kPP, 5, kQQ, 6, op("mulf", x, x))));
  // 0.84375 <= |x| < 1.25: erx + PA/QA(|x| - 1).
  Value *mid = op("addf", c(erx), ratio(kPA, 7, kQA, 7, op("subf", a, c(1))));
  // 1.25 <= |x| < 6: 1 - exp(-z*z - 0.5625) * exp((z - |x|)(z + |x|) + R/S) / |x| with
  // s = 1/x^2 and z = |x| with its low 32 bits cleared, so z*z is exact and the large part of
  // the exponent carries no rounding error.
  Value *s = op("divf", c(1), op("mulf", a, a));
  Value *rs =
      make1("select", {below(a, 1 / 0.35), ratio(kRA, 8, kSA, 9, s), ratio(kRB, 7, kSB, 8, s)}, f);
  Type bits = f.withElement(i64());
  Value *z = make1(
      "bitcast",
      {make1("andi", {make1("bitcast", {a}, bits), constInt(~int64_t(0xffffffff), bits)}, bits)},
      f);
  Value *e1 = make1("exp", {op("subf", make1("negf", {op("mulf", z, z)}, f), c(0.5625))}, f);
  Value *e2 = make1("exp", {op("addf", op("mulf", op("subf", z, a), op("addf", z, a)), rs)}, f);
  Value *tail = op("subf", c(1), op("divf", op("mulf", e1, e2), a));
  // Beyond 6, erfc(|x|) < 2e-17 is under half an ulp of 1. NaN fails every ordered compare
  // and so takes the tail, which keeps it NaN.
  Value *far = cmpfConst(tile::kGe, a, 6);
  Value *pos = make1("select", {below(a, 1.25), mid, make1("select", {far, c(1), tail}, f)}, f);
  Value *signed_ = make1("select", {below(x, 0), make1("negf", {pos}, f), pos}, f);
  return make1("select", {below(a, 0.84375), small, signed_}, f);
}

void Converter::histogram(const Operation &o) {
  Value *x = get(o.operand(0));
  int64_t n = x->type.shape()[0], bins = o.result(0)->type.shape()[0];
  if (n * bins > (int64_t(1) << 20))
    throw Unsupported{"tt.histogram of " + std::to_string(n) + " values into " +
                      std::to_string(bins) + " bins (over 2^20 compares)"};
  Type ct = x->type.element().intWidth() > 32 ? i64() : i32();
  if (x->type.element() != ct)
    x = make1("exti", {x}, x->type.withElement(ct), {{"signedness", i32Attr(tile::kSigned)}});
  Type grid = Type::tensor({n, bins}, ct), hits = grid.withElement(Type::integer(1));
  Value *values = expandTo(x, {n, 1}, grid);
  Value *ids = expandTo(make1("iota", {}, Type::tensor({bins}, ct)), {1, bins}, grid);
  Value *hit =
      make1("cmpi", {values, ids}, hits,
            {{"comparison_predicate", i32Attr(tile::kEq)}, {"signedness", i32Attr(tile::kSigned)}});
  if (o.numOperands() > 1)
    hit = make1("andi", {hit, expandTo(get(o.operand(1)), {n, 1}, hits)}, hits);
  Type counts = grid.withElement(i32());
  Value *ones = make1("exti", {hit}, counts, {{"signedness", i32Attr(tile::kUnsigned)}});
  bind(o, reduceInt(ones, 0, o.result(0)->type, "addi"));
}

void Converter::gather(const Operation &o) {
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
  Value *values = expandTo(sb, unit, grid);
  Type ct = idx->type.element().intWidth() > 32 ? i64() : i32();
  if (idx->type.element() != ct)
    idx = make1("exti", {idx}, idx->type.withElement(ct), {{"signedness", i32Attr(tile::kSigned)}});
  std::vector<int64_t> idxUnit = is, posUnit(rank, 1);
  idxUnit.push_back(1);
  posUnit.push_back(n);
  Type cgrid = grid.withElement(ct);
  Value *want = expandTo(idx, idxUnit, cgrid);
  Value *pos = expandTo(make1("iota", {}, Type::tensor({n}, ct)), posUnit, cgrid);
  Value *hit =
      make1("cmpi", {want, pos}, grid.withElement(Type::integer(1)),
            {{"comparison_predicate", i32Attr(tile::kEq)}, {"signedness", i32Attr(tile::kSigned)}});
  Value *picked = make1("select", {hit, values, constInt(0, grid)}, grid);
  Value *res = reduceInt(picked, static_cast<int64_t>(rank), idx->type.withElement(bits), "ori");
  bind(o, se.isFloat() ? make1("bitcast", {res}, o.result(0)->type) : res);
}

} // namespace tt::tile_conv
