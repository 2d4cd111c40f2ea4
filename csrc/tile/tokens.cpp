// Token plumbing shared by the passes that thread Tile IR tokens (insert-memory-tokens) and the
// race checker's data tokens (exec/tileir/tile_data_order): see tile/tile.h.
#include <algorithm>

#include "ir/builder.h"
#include "tile/tile.h"

namespace tt::tile {

Value *joinTokens(Builder &b, std::vector<Value *> toks) {
  toks.erase(std::remove(toks.begin(), toks.end(), nullptr), toks.end());
  while (toks.size() > 1) { // (join_tokens takes at most 64 operands)
    std::vector<Value *> next;
    for (size_t i = 0; i < toks.size(); i += 64) {
      std::vector<Value *> part(toks.begin() + i, toks.begin() + std::min(toks.size(), i + 64));
      next.push_back(part.size() == 1
                         ? part[0]
                         : b.create("cuda_tile.join_tokens", part, {Type::token()})->result(0));
    }
    toks.swap(next);
  }
  return toks.empty() ? nullptr : toks[0];
}

Value *freshToken(Builder &b) {
  return b.create("cuda_tile.make_token", {}, {Type::token()})->result(0);
}

bool hasTokenOperand(const Operation &op) {
  const Attribute &seg = op.attr("operandSegmentSizes");
  return seg && !seg.getInts().empty() && seg.getInts().back() == 1;
}

void setTokenOperand(Operation &op, Value *tok) {
  if (hasTokenOperand(op)) {
    op.operands.back() = tok;
    return;
  }
  op.operands.push_back(tok);
  std::vector<int64_t> seg = op.attr("operandSegmentSizes").getInts();
  seg.back() = 1;
  op.setAttr("operandSegmentSizes", Attribute::i32Array(seg));
}

} // namespace tt::tile
