#include "ir/builder.h"

#include <stdexcept>

namespace tt {

void Builder::setLoc(const std::string &file, int line, int col) {
  auto d = std::make_shared<LocData>();
  d->file = file;
  d->line = line;
  d->col = col;
  loc_ = d;
}

Operation *Builder::create(const std::string &name, const std::vector<Value *> &operands,
                           const std::vector<Type> &resultTypes, Attrs attrs, int numRegions) {
  return insert(makeOperation(name, operands, resultTypes, std::move(attrs), numRegions, loc_));
}

Operation *Builder::insert(std::unique_ptr<Operation> op) {
  if (!ip_.block)
    throw std::logic_error("builder has no insertion point");
  auto it = ip_.block->insert(ip_.pos, std::move(op));
  return it->get();
}

Value *Builder::constInt(int64_t v, Type t) {
  Attribute a = t.isTensor() ? Attribute::denseSplat(0, v, t) : Attribute::integer(v, t);
  return create("arith.constant", {}, {t}, {{"value", a}})->result(0);
}

Value *Builder::constFloat(double v, Type t) {
  Attribute a = t.isTensor() ? Attribute::denseSplat(v, 0, t) : Attribute::floating(v, t);
  return create("arith.constant", {}, {t}, {{"value", a}})->result(0);
}

Block *createPublicFunction(Builder &b, const std::string &name, const std::vector<Type> &inputs) {
  Operation *f = b.create("tt.func", {}, {},
                          {{"sym_name", Attribute::string(name)},
                           {"function_type", Attribute::type(Type::function(inputs, {}))},
                           {"sym_visibility", Attribute::string("public")}},
                          1);
  Block *body = f->region(0)->addBlock();
  for (Type t : inputs)
    body->addArg(t);
  b.setInsertionPointToEnd(body);
  return body;
}

std::unique_ptr<Operation> cloneOp(const Operation &op,
                                   std::unordered_map<const Value *, Value *> &map,
                                   const Location &callSite) {
  std::vector<Value *> operands;
  for (Value *v : op.operands) {
    auto it = map.find(v);
    operands.push_back(it == map.end() ? v : it->second);
  }
  std::vector<Type> types;
  for (size_t i = 0; i < op.numResults(); ++i)
    types.push_back(op.result(i)->type);
  auto copy = makeOperation(op.name(), operands, types, op.attrs(),
                            static_cast<int>(op.numRegions()), withCaller(op.loc(), callSite));
  copy->argAttrs = op.argAttrs;
  for (size_t i = 0; i < op.numResults(); ++i)
    map[op.result(i)] = copy->result(i);
  for (size_t r = 0; r < op.numRegions(); ++r) {
    for (auto &blk : op.region(r)->blocks) {
      Block *nb = copy->region(r)->addBlock();
      for (size_t a = 0; a < blk->numArgs(); ++a)
        map[blk->arg(a)] = nb->addArg(blk->arg(a)->type);
      for (auto &inner : blk->ops())
        nb->insert(nb->ops().end(), cloneOp(*inner, map, callSite));
    }
  }
  return copy;
}

} // namespace tt
