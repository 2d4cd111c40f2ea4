// lower-block-pointers: block-pointer and tensor-descriptor accesses become tensor-of-pointer
// accesses with masks, for the PTX-style path (the TTIR executor runs pointer tiles; the Tile
// path lowers the same accesses to views instead, in the conversion).
//
// Rules (after expand-block-pointer-loops, every access sees its tt.make_tensor_ptr or
// tt.make_tensor_descriptor):
//   - lane (i_0..i_{r-1}) addresses base + sum_d (offset_d + i_d) * stride_d, in i64, added one
//     dimension at a time in its thin shape (lower() says why);
//   - a block-pointer access checks the dimensions in `boundaryCheck`, a descriptor access
//     every dimension: 0 <= offset_d + i_d < shape_d; lanes outside read the padding (zero, or
//     NaN for padding = 2) and are not written;
//   - a descriptor load whose result drops unit dimensions of the block is reshaped (a
//     negative shape is assert-contracts' to stop, before this pass).
// Known limits: an access whose pointer or descriptor comes from anything else (a loop
// argument the expansion could not rewrite, an scf.if result) is left alone and the executor
// reports it unsupported.
#include <cmath>

#include "ir/builder.h"
#include "passes/passes.h"

namespace tt {
namespace {

struct Access {
  Value *base;
  std::vector<Value *> shape, strides, offsets; // any int widths; widened to i64 here
  std::vector<bool> checked;
  Type block;
  int64_t padding; // 1 zero, 2 nan
};

Value *i64(Builder &b, Value *v) {
  if (v->type.isInt(64))
    return v;
  return b.create("arith.extsi", {v}, {v->type.withElement(Type::integer(64))})->result(0);
}

// Index of dimension d, as i64 (offset + arange along d), in the thin shape: shape[d] at d,
// 1 elsewhere.
Value *laneIndex(Builder &b, Value *offset, const std::vector<int64_t> &shape, size_t d) {
  Type i32 = Type::integer(32), ty64 = Type::integer(64);
  Value *r =
      b.create("tt.make_range", {}, {Type::tensor({shape[d]}, i32)},
               {{"start", Attribute::integer(0, i32)}, {"end", Attribute::integer(shape[d], i32)}})
          ->result(0);
  r = i64(b, r);
  Value *o = b.create("tt.splat", {i64(b, offset)}, {Type::tensor({shape[d]}, ty64)})->result(0);
  r = b.create("arith.addi", {r, o}, {r->type})->result(0);
  // Build the rank-r shape with shape[d] at d and 1 elsewhere by expand_dims in order.
  std::vector<int64_t> s = {shape[d]};
  for (size_t k = 0; k < d; ++k) {
    s.insert(s.begin(), 1);
    r = b.create("tt.expand_dims", {r}, {Type::tensor(s, ty64)},
                 {{"axis", Attribute::integer(0, i32)}})
            ->result(0);
  }
  for (size_t k = d + 1; k < shape.size(); ++k) {
    s.push_back(1);
    r = b.create("tt.expand_dims", {r}, {Type::tensor(s, ty64)},
                 {{"axis", Attribute::integer(static_cast<int64_t>(s.size() - 1), i32)}})
            ->result(0);
  }
  return r;
}

Value *broadcastTo(Builder &b, Value *v, Type t) {
  return v->type == t ? v : b.create("tt.broadcast", {v}, {t})->result(0);
}

// The pointer tile and mask of an access. Each dimension's offset and bounds check is computed
// in its thin shape and broadcast only where it meets the others, as a kernel written with
// `base + rows[:, None] * stride + cols[None, :]` does: the pointer grows one dimension at a
// time (splat of the base over dimension 0, then broadcast and addptr per dimension), so the
// TTIR executor sees one address per row plus a lane offset (compact pointers), and a loop
// that advances one dimension recomputes only that dimension's thin terms (licm hoists the
// others).
std::pair<Value *, Value *> lower(Builder &b, const Access &a) {
  const std::vector<int64_t> &shape = a.block.shape();
  Type ty64 = Type::integer(64), i1 = Type::integer(1);
  Value *ptr = nullptr, *mask = nullptr;
  std::vector<int64_t> grown(shape.size(), 1); // the pointer's shape so far
  for (size_t d = 0; d < shape.size(); ++d) {
    Value *idx = laneIndex(b, a.offsets[d], shape, d);
    Type thin = idx->type;
    Value *st = b.create("tt.splat", {i64(b, a.strides[d])}, {thin})->result(0);
    Value *term = b.create("arith.muli", {idx, st}, {thin})->result(0);
    grown[d] = shape[d];
    Type ptrs = Type::tensor(grown, a.base->type);
    ptr = ptr ? broadcastTo(b, ptr, ptrs) : b.create("tt.splat", {a.base}, {ptrs})->result(0);
    ptr = b.create("tt.addptr", {ptr, broadcastTo(b, term, Type::tensor(grown, ty64))}, {ptrs})
              ->result(0);
    if (!a.checked[d])
      continue;
    Value *zero = b.constInt(0, thin);
    Value *sh = b.create("tt.splat", {i64(b, a.shape[d])}, {thin})->result(0);
    Type mt = thin.withElement(i1);
    Attribute sge = Attribute::integer(5, ty64), slt = Attribute::integer(2, ty64);
    Value *lo = b.create("arith.cmpi", {idx, zero}, {mt}, {{"predicate", sge}})->result(0);
    Value *hi = b.create("arith.cmpi", {idx, sh}, {mt}, {{"predicate", slt}})->result(0);
    Value *in = b.create("arith.andi", {lo, hi}, {mt})->result(0);
    Type fullMask = Type::tensor(shape, i1);
    in = broadcastTo(b, in, fullMask);
    mask = mask ? b.create("arith.andi", {mask, in}, {fullMask})->result(0) : in;
  }
  return {ptr, mask};
}

Value *paddingValue(Builder &b, Type t, int64_t padding) {
  if (t.element().isFloat())
    return b.constFloat(padding == 2 ? std::nan("") : 0.0, t);
  return b.constInt(0, t);
}

bool describe(const Operation &op, Access &a) {
  if (op.is("tt.load") || op.is("tt.store")) {
    const Operation *mtp = op.operand(0)->def;
    if (!op.operand(0)->type.isBlockPtr() || !mtp || !mtp->is("tt.make_tensor_ptr"))
      return false;
    size_t r = static_cast<size_t>(mtp->result(0)->type.pointee().rank());
    a.base = mtp->operand(0);
    for (size_t d = 0; d < r; ++d) {
      a.shape.push_back(mtp->operand(1 + d));
      a.strides.push_back(mtp->operand(1 + r + d));
      a.offsets.push_back(mtp->operand(1 + 2 * r + d));
    }
    a.checked.assign(r, false);
    for (int64_t d : op.attr("boundaryCheck").getInts())
      if (d >= 0 && static_cast<size_t>(d) < r)
        a.checked[d] = true;
    a.block = mtp->result(0)->type.pointee();
    a.padding = op.intAttr("padding", 1);
    return true;
  }
  if (op.is("tt.descriptor_load") || op.is("tt.descriptor_store")) {
    const Operation *md = op.operand(0)->def;
    if (!md || !md->is("tt.make_tensor_descriptor"))
      return false;
    Type block = md->result(0)->type.descBlock();
    size_t r = static_cast<size_t>(block.rank());
    size_t first = op.is("tt.descriptor_store") ? 2 : 1;
    a.base = md->operand(0);
    for (size_t d = 0; d < r; ++d) {
      a.shape.push_back(md->operand(1 + d));
      a.strides.push_back(md->operand(1 + r + d));
      a.offsets.push_back(op.operand(first + d));
    }
    a.checked.assign(r, true);
    a.block = block;
    a.padding = md->intAttr("padding", 1);
    return true;
  }
  return false;
}

} // namespace

void lowerBlockPointers(Module &m) {
  for (Operation *func : m.funcs()) {
    std::vector<Operation *> accesses;
    func->walk([&](Operation *op) {
      if (op->is("tt.load") || op->is("tt.store") || op->is("tt.descriptor_load") ||
          op->is("tt.descriptor_store"))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      Access a;
      if (!describe(*op, a))
        continue;
      Builder b(op->parentBlock());
      b.setInsertionPointBefore(op);
      b.setLoc(op->loc());
      auto [ptr, mask] = lower(b, a);
      bool load = op->is("tt.load") || op->is("tt.descriptor_load");
      if (load) {
        std::vector<Value *> ops = {ptr};
        if (mask) {
          ops.push_back(mask);
          ops.push_back(paddingValue(b, a.block, a.padding));
        }
        Value *v = b.create("tt.load", ops, {a.block})->result(0);
        Type want = op->result(0)->type;
        if (want != a.block)
          v = b.create("tt.reshape", {v}, {want})->result(0);
        replaceUses(func, {{op->result(0), v}});
      } else {
        Value *val = op->operand(op->is("tt.store") ? 1 : 1);
        if (val->type != a.block)
          val = b.create("tt.reshape", {val}, {a.block})->result(0);
        std::vector<Value *> ops = {ptr, val};
        if (mask)
          ops.push_back(mask);
        b.create("tt.store", ops, {});
      }
      op->parentBlock()->erase(op);
    }
  }
}

} // namespace tt
