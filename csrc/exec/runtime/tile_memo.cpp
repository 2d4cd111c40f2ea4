// The per-thread tile memo (tile_memo.h).
#include "exec/runtime/tile_memo.h"

#include <algorithm>
#include <string>

#include "exec/runtime/copy.h"
#include "exec/runtime/errors.h"

namespace tt::exec {

namespace {
int64_t slotBytes(int64_t tileBytes) { return (tileBytes + 63) & ~int64_t(63); }
} // namespace

int TileMemo::slotsFor(int64_t tileBytes, size_t loads) {
  const int64_t bytes = slotBytes(tileBytes);
  if (bytes <= 0 || loads == 0)
    return 0;
  return static_cast<int>(
      std::min<int64_t>(kMaxSlots, kBudget / static_cast<int64_t>(loads) / bytes));
}

void TileMemo::reset(uint64_t launch, const std::vector<Spec> &loads) {
  if (launch == launch_)
    return;
  launch_ = launch;
  if (tables_.size() < loads.size()) // a kernel without memo loads keeps the storage
    tables_.resize(loads.size());
  for (size_t id = 0; id < loads.size(); ++id) {
    Table &t = tables_[id];
    const int64_t bytes = slotBytes(loads[id].tileBytes);
    int slots = slotsFor(loads[id].tileBytes, loads.size());
    const int held = loads[id].held;
    if (held < 0 || held > kMaxHeld)
      throw ExecError("internal error: a tile memo table held by " + std::to_string(held) +
                      " steps (at most " + std::to_string(kMaxHeld) + ")");
    if (held && slots <= held) // the held slots are kept: room for one more at least
      slots = 0;
    if (t.bytes != bytes || t.slots != slots) { // storage sized for this program's tiles
      t.bytes = bytes;
      t.slots = slots;
      t.raw.reset(t.slots ? new char[static_cast<size_t>(t.slots * bytes) + 63] : nullptr);
      const uintptr_t p = reinterpret_cast<uintptr_t>(t.raw.get());
      t.data = t.slots ? reinterpret_cast<char *>((p + 63) & ~uintptr_t(63)) : nullptr;
      t.addr.assign(static_cast<size_t>(t.slots), 0);
      t.pitch.assign(static_cast<size_t>(t.slots), 0);
    }
    std::fill(t.addr.begin(), t.addr.end(), 0); // 0: an empty slot (no tile starts at 0)
    t.next = t.hint = t.lastRecent = 0;
    t.held = held;
    std::fill(t.recent, t.recent + kMaxHeld, -1);
  }
}

const char *TileMemo::find(int id, uint64_t addr, int64_t pitch) {
  Table &t = tables_[static_cast<size_t>(id)];
  if (addr == 0) // never a tile's (empty slots hold 0)
    return nullptr;
  // Programs load a column's tiles in the order the last one did: try the slot after the last
  // hit first.
  for (int i = 0, s = t.hint; i < t.slots; ++i, s = s + 1 == t.slots ? 0 : s + 1)
    if (t.addr[static_cast<size_t>(s)] == addr && t.pitch[static_cast<size_t>(s)] == pitch) {
      t.hint = s + 1 == t.slots ? 0 : s + 1;
      return t.data + s * t.bytes;
    }
  return nullptr;
}

char *TileMemo::insert(int id, uint64_t addr, int64_t pitch) {
  Table &t = tables_[static_cast<size_t>(id)];
  if (!t.slots || addr == 0)
    return nullptr;
  int s = t.next; // the oldest slot that none of the last fetches returned
  while (t.slots > t.held && std::find(t.recent, t.recent + t.held, s) != t.recent + t.held)
    s = s + 1 == t.slots ? 0 : s + 1;
  t.next = s + 1 == t.slots ? 0 : s + 1;
  t.hint = t.next;
  t.addr[static_cast<size_t>(s)] = addr;
  t.pitch[static_cast<size_t>(s)] = pitch;
  return t.data + s * t.bytes;
}

const char *TileMemo::fetch(int id, const char *first, int64_t rows, int64_t rowBytes,
                            int64_t pitch, int64_t panelBytes) {
  const uint64_t addr = reinterpret_cast<uint64_t>(first);
  const char *slot = find(id, addr, pitch);
  if (!slot) {
    char *fresh = insert(id, addr, pitch);
    if (!fresh)
      return nullptr;
    if (panelBytes > 0) {
      // Row by row, each row's pieces to their panels: every source line is read once. Panel
      // by panel, rows a power of two apart (a 1024-wide f32 matrix) share L1 sets, so each
      // panel after the first read its lines from L2 again.
      const int64_t panelStride = rows * panelBytes;
      for (int64_t r = 0; r < rows; ++r) {
        const char *src = first + r * pitch;
        if (r + 8 < rows)
          for (int64_t line = 0; line < rowBytes; line += 64)
            __builtin_prefetch(src + 8 * pitch + line);
        char *to = fresh + r * panelBytes;
        for (int64_t p = 0; p < rowBytes; p += panelBytes, to += panelStride)
          copyBytes(to, src + p, static_cast<size_t>(panelBytes));
      }
    } else {
      for (int64_t r = 0; r < rows; ++r)
        copyBytes(fresh + r * rowBytes, first + r * pitch, static_cast<size_t>(rowBytes));
    }
    slot = fresh;
  }
  Table &t = tables_[static_cast<size_t>(id)];
  if (t.held) {
    t.recent[t.lastRecent] = static_cast<int>((slot - t.data) / t.bytes);
    t.lastRecent = t.lastRecent + 1 == t.held ? 0 : t.lastRecent + 1;
  }
  return slot;
}

} // namespace tt::exec
