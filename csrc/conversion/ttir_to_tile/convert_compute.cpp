// convert-ttir-to-tile, compute: tt.dot (mmaf/mmai with the input precisions), tt.reduce and
// tt.scan with their combiners' identities, and what Tile IR has no op for: math.erf (f32
// polynomials), tt.histogram and tt.gather (one-hot compares and a reduce).

#include <cmath>
#include <cstdlib>

#include "conversion/ttir_to_tile/converter.h"
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

void Converter::reduceLike(const Operation &o, bool scan) {
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

void Converter::erf(const Operation &o) {
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
