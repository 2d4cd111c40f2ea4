// The Tile IR checker (see tile_check.h for the contract).
#include "exec/tile/tile_check.h"

#include <cinttypes>
#include <cstdio>
#include <unordered_map>

namespace tt::exec {
namespace {

struct CheckState {
  // Token sets: bitsets over the program's events; set 0 is the empty set.
  std::vector<std::vector<uint64_t>> sets;
  struct Event {
    const OpSite *site;
    bool write, strong;
  };
  std::vector<Event> events;
  struct History {
    std::vector<uint32_t> writes; // the last write (plus strong writes unordered with it)
    std::vector<uint32_t> reads;  // reads since, none ordered before another
  };
  std::unordered_map<uint64_t, History> addrs;

  void reset() {
    sets.assign(1, {});
    events.clear();
    addrs.clear();
  }

  bool contains(uint64_t set, uint32_t e) const {
    const auto &s = sets[set];
    return e / 64 < s.size() && ((s[e / 64] >> (e % 64)) & 1);
  }

  uint64_t newSet(std::vector<uint64_t> bits) {
    sets.push_back(std::move(bits));
    return sets.size() - 1;
  }
};

CheckState &state(Frame &F) { return *static_cast<CheckState *>(F.check); }

std::string hex(uint64_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, a);
  return buf;
}

[[noreturn]] void report(const Frame &F, const CheckState &S, uint32_t first, uint32_t second,
                         uint64_t addr) {
  auto what = [&](uint32_t e) {
    const auto &ev = S.events[e];
    return "'" + ev.site->opName + "' at " + ev.site->loc + (ev.write ? " (a write)" : " (a read)");
  };
  throw UnorderedAccessError(
      "unordered accesses in kernel " + *F.launch->kernelName + ", program (" +
      std::to_string(F.pid[0]) + ", " + std::to_string(F.pid[1]) + ", " + std::to_string(F.pid[2]) +
      "): " + what(first) + " and " + what(second) + " both access address " + hex(addr) +
      ", and no chain of tokens orders them; Tile IR's memory model leaves them unordered (a "
      "data race): the second access must take a token that depends on the first");
}

// One lane of access e (token set T) at addr.
void touch(const Frame &F, CheckState &S, uint64_t addr, uint32_t e, uint64_t T) {
  const CheckState::Event &ev = S.events[e];
  CheckState::History &h = S.addrs[addr];
  auto ordered = [&](uint32_t p) {
    return p == e || S.contains(T, p) || (ev.strong && S.events[p].strong);
  };
  for (uint32_t w : h.writes)
    if (!ordered(w))
      report(F, S, w, e, addr);
  if (!ev.write) {
    std::vector<uint32_t> keep;
    for (uint32_t r : h.reads)
      if (r != e && !S.contains(T, r))
        keep.push_back(r);
    keep.push_back(e);
    h.reads.swap(keep);
    return;
  }
  for (uint32_t r : h.reads)
    if (!ordered(r))
      report(F, S, r, e, addr);
  std::vector<uint32_t> writes;
  for (uint32_t w : h.writes) // strong writes that e does not follow stay (they do not race)
    if (w != e && !S.contains(T, w))
      writes.push_back(w);
  writes.push_back(e);
  h.writes.swap(writes);
  h.reads.clear();
}

struct CheckAux : Aux {
  bool view = false, write = false, strong = false;
  int es = 4;
  Ref ptr, mask, tokenIn;
  bool hasMask = false, hasIn = false, hasOut = false;
  uint32_t tokenOut = 0;
  const ViewAux *viewAux = nullptr;
  std::vector<Ref> joins; // join_tokens operands
};

uint64_t tokenOf(const Frame &F, const CheckAux &a) {
  return a.hasIn ? *F.at<uint64_t>(a.tokenIn.off) : 0;
}

void checkAccessK(const Inst &I, Frame &F) {
  const CheckAux &a = *static_cast<const CheckAux *>(I.aux);
  CheckState &S = state(F);
  const uint64_t T = tokenOf(F, a);
  const uint32_t e = static_cast<uint32_t>(S.events.size());
  S.events.push_back({I.site, a.write, a.strong});
  if (a.view) {
    const ViewAux &v = *a.viewAux;
    const ViewBox b = viewBox(v, F);
    const int64_t inner = b.step[v.rank - 1];
    forEachRow(v, b, [&](uint64_t addr, int64_t, int64_t len) {
      for (int64_t j = 0; j < len; ++j)
        touch(F, S, addr + static_cast<uint64_t>(j * inner), e, T);
    });
  } else {
    const uint64_t *p = F.at<uint64_t>(a.ptr.off);
    const uint8_t *m = a.hasMask ? F.at<uint8_t>(a.mask.off) : nullptr;
    for (int64_t i = 0; i < I.n; ++i) {
      if (m && !m[a.mask.bcast ? 0 : i])
        continue;
      touch(F, S, p[a.ptr.bcast ? 0 : i], e, T);
    }
  }
  if (a.hasOut) {
    std::vector<uint64_t> bits = S.sets[T];
    if (bits.size() <= e / 64)
      bits.resize(e / 64 + 1, 0);
    bits[e / 64] |= uint64_t(1) << (e % 64);
    *F.at<uint64_t>(a.tokenOut) = S.newSet(std::move(bits));
  }
}

void checkJoinK(const Inst &I, Frame &F) {
  const CheckAux &a = *static_cast<const CheckAux *>(I.aux);
  CheckState &S = state(F);
  if (a.joins.empty()) {
    *F.at<uint64_t>(a.tokenOut) = 0;
    return;
  }
  if (a.joins.size() == 1) {
    *F.at<uint64_t>(a.tokenOut) = *F.at<uint64_t>(a.joins[0].off);
    return;
  }
  std::vector<uint64_t> bits;
  for (const Ref &r : a.joins) {
    const auto &s = S.sets[*F.at<uint64_t>(r.off)];
    if (bits.size() < s.size())
      bits.resize(s.size(), 0);
    for (size_t w = 0; w < s.size(); ++w)
      bits[w] |= s[w];
  }
  *F.at<uint64_t>(a.tokenOut) = S.newSet(std::move(bits));
}

CheckAux *tokens(Compiler &c, const Value *tokenIn, const Value *tokenOut) {
  auto *a = c.makeAux<CheckAux>();
  a->hasIn = tokenIn != nullptr;
  if (tokenIn)
    a->tokenIn = c.ref(tokenIn);
  a->hasOut = tokenOut != nullptr;
  if (tokenOut)
    a->tokenOut = c.out(tokenOut);
  return a;
}

} // namespace

void *beginCheckedProgram() {
  thread_local CheckState s;
  s.reset();
  return &s;
}

void emitCheckJoin(Compiler &c, const Operation &op, const std::vector<const Value *> &in,
                   const Value *out) {
  CheckAux *a = tokens(c, nullptr, out);
  for (const Value *v : in)
    a->joins.push_back(c.ref(v));
  c.emit(checkJoinK, op).aux = a;
}

void emitCheckPointerAccess(Compiler &c, const Operation &op, const Value *ptr, const Value *mask,
                            const Value *tokenIn, const Value *tokenOut, int es, bool write,
                            bool strong) {
  CheckAux *a = tokens(c, tokenIn, tokenOut);
  a->write = write;
  a->strong = strong;
  a->es = es;
  a->ptr = c.ref(ptr, true);
  a->hasMask = mask != nullptr;
  if (mask)
    a->mask = c.ref(mask, true);
  Inst &I = c.emit(checkAccessK, op);
  I.aux = a;
  I.n = c.numel(ptr);
}

void emitCheckViewAccess(Compiler &c, const Operation &op, const ViewAux *view,
                         const Value *tokenIn, const Value *tokenOut, bool write, bool strong) {
  CheckAux *a = tokens(c, tokenIn, tokenOut);
  a->view = true;
  a->write = write;
  a->strong = strong;
  a->es = view->es;
  a->viewAux = view;
  c.emit(checkAccessK, op).aux = a;
}

} // namespace tt::exec
