// convert-ttir-to-tile, the tile-index form (index_views.h): one view per tensor made at the
// kernel's top level (or where its tensor is defined, IndexPlan::anchor), accessed at
// coordinate / block.

#include <cmath>
#include <cstdlib>
#include <tuple>

#include "conversion/ttir_to_tile/converter.h"
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "passes/passes.h"

namespace tt::tile_conv {

Value *Converter::emitPoly(const Poly &p) {
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

Value *Converter::emitIndexConds(const std::vector<IndexCond> &conds) {
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

Value *Converter::indexView(const IndexPlan &p, Type elem, Padding pad) {
  // (the alignment facts are part of the view: a pointer plan over the same tensor does not
  // share a descriptor's assumed base)
  std::string key = p.key + "|" + elem.str() + "|" + std::to_string(static_cast<int>(pad)) + "|" +
                    std::to_string(p.strideAlign) + "|" + std::to_string(p.baseAlign);
  Block *block = topBlock_;
  Operation *anchor = topAnchor_;
  if (p.anchor) {
    auto at = opAnchors_.find(p.anchor);
    if (at == opAnchors_.end())
      throw Unsupported{"internal: an anchored view outside its anchor's conversion"};
    std::tie(block, anchor) = at->second;
    // One view per Tile IR block: the anchors of one block's accesses are ops of the block
    // defining the tensor, so the first made dominates the others; a block converted twice (a
    // versioned loop's body) gets a view per copy.
    key += "@" + std::to_string(reinterpret_cast<uintptr_t>(block));
  }
  auto it = indexViews_.find(key);
  if (it != indexViews_.end())
    return it->second;
  auto ip = b_.saveInsertionPoint();
  if (anchor)
    b_.setInsertionPointAfter(anchor);
  else
    b_.restoreInsertionPoint({block, block->ops().begin()});
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
  Value *base = get(p.base);
  if (!p.baseOffset.isConst(c) || c != 0) // (pointer plans only: baseAlign stays 1 for them)
    base = make1("offset", {base, emitPoly(p.baseOffset)}, base->type);
  if (p.baseAlign > 1) // (a descriptor made from a loaded address has no other alignment fact)
    base =
        make1("assume", {base}, base->type, {{"div_by", Attribute::integer(p.baseAlign, i64())}});
  Value *view = partitionView(base, dims, elem, p.tile, pad, p.strideAlign);
  b_.restoreInsertionPoint(ip);
  if (p.anchor)
    ++report_.anchoredViews;
  indexViews_[key] = view;
  return view;
}

std::vector<Value *> Converter::tileIndices(const IndexPlan &p) {
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

std::vector<IndexCond> Converter::planLoopAccesses(const Operation &loop, const Block &b,
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

std::optional<IndexPlan> Converter::planIndex(const Operation &o, const Operation &loop) {
  bool isLoad = o.is("tt.load") || o.is("tt.descriptor_load");
  if ((!isLoad && !o.is("tt.store") && !o.is("tt.descriptor_store")) || isVolatileLoad(o))
    return std::nullopt; // a volatile load is a gather (Converter::load)
  std::string why;
  if (isBoxAccess(o)) {
    Box a;
    if (!box(o, a))
      return std::nullopt;
    std::vector<const Value *> extents;
    for (size_t d = 0; d < a.shape.size(); ++d)
      extents.push_back(a.checked[d] ? a.shape[d] : nullptr);
    // (a descriptor's contract makes its base and strides 16-byte multiples, a.strideAlign)
    index_.anchorInner = opts_.anchoredViews >= (a.strideAlign > 1 ? 1 : 2);
    auto plan =
        planIndexFromBox(a.base, a.offsets, extents, a.strides, a.block.shape(), loop, index_, why);
    if (plan && a.strideAlign > 1) {     // a descriptor: its base and outer strides are 16-byte
      plan->strideAlign = a.strideAlign; // multiples (tl.make_tensor_descriptor's contract)
      plan->baseAlign = 16;
    }
    return plan;
  }
  if (!raisable(o, o.operand(0)->type, true, why))
    return std::nullopt;
  std::optional<ViewPlan> view = planView(o, why);
  if (!view)
    return std::nullopt;
  index_.anchorInner = opts_.anchoredViews >= 2;
  return planIndexFromView(*view, loop, index_, why);
}

Value *Converter::indexedLoad(const Operation &o, const IndexPlan &p) {
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
  note(o, true,
       std::string(p.anchor ? "tile-index view (made where its tensor is made)"
                            : "tile-index view (made once)") +
           ", padding " + paddingName(pad));
  auto viaIndex = [&]() -> std::vector<Value *> {
    std::vector<Value *> ops = {indexView(p, t.element(), pad)};
    for (Value *i : tileIndices(p))
      ops.push_back(i);
    Value *v = make("load_view_tko", ops, {t, Type::token()},
                    viewAttrs({1, static_cast<int64_t>(p.tile.size()), 0}, ops[0], false))
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

void Converter::indexedStore(const Operation &o, const IndexPlan &p) {
  note(o, true,
       p.anchor ? "tile-index view (made where its tensor is made)"
                : "tile-index view (made once)");
  auto viaIndex = [&]() -> std::vector<Value *> {
    Value *val = get(o.operand(1));
    Type t = Type::tensor(p.tile, val->type.element());
    if (val->type != t)
      val = make1("reshape", {val}, t);
    std::vector<Value *> ops = {val, indexView(p, t.element(), Padding::None)};
    for (Value *i : tileIndices(p))
      ops.push_back(i);
    make("store_view_tko", ops, {Type::token()},
         viewAttrs({1, 1, static_cast<int64_t>(p.tile.size()), 0}, ops[1], true));
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

} // namespace tt::tile_conv
