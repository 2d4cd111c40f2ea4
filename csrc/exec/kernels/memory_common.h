// Helpers shared by the memory kernels (memory.cpp: full pointer tiles and atomics;
// compact_ptr.cpp: compact pointer tiles): bounds checks and the out-of-bounds error, mask
// counting, raw element types.
#pragma once

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "exec/compiler/program.h"
#include "exec/runtime/copy.h"
#include "exec/runtime/errors.h"
#include "exec/runtime/mapped_memory.h"

namespace tt::exec::mem {

enum class Access { Load, Store, Atomic };

inline bool inBounds(const LaunchState &L, uint64_t addr, uint64_t bytes);

// Why a checked address is out of bounds: outside every array argument, or (inside another's)
// outside the one its pointer derives from.
inline std::string outsideWhat(const Inst &I, const LaunchState &L, uint64_t addr) {
  if (I.origin < 0)
    return "not inside any array argument";
  std::string arg = "argument #" + std::to_string(I.origin);
  if (!inBounds(L, addr, 1))
    return "not inside any array argument (its pointer derives from " + arg + ")";
  return "outside the array of " + arg + ", which its pointer derives from";
}

[[noreturn]] inline void throwOob(const Inst &I, const Frame &F, Access kind, uint64_t addr,
                                  int64_t lane) {
  const char *k = kind == Access::Load ? "load" : (kind == Access::Store ? "store" : "atomic");
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, addr);
  throw OutOfBoundsError(std::string("out-of-bounds ") + k + " in kernel " + *F.launch->kernelName +
                         " at " + I.site->loc + ": address " + buf + " (lane " +
                         std::to_string(lane + F.laneBase) + ") is " +
                         (!I.checked ? std::string("not memory the process may access (a pointer "
                                                   "loaded from memory or made from an integer)")
                                     : outsideWhat(I, *F.launch, addr)));
}

// True when [addr, addr + bytes) lies inside one array argument.
inline bool inBounds(const LaunchState &L, uint64_t addr, uint64_t bytes) {
  for (const auto &r : L.ranges)
    if (addr >= r.lo && addr <= r.hi && r.hi - addr >= bytes)
      return true;
  return false;
}

// True when [addr, addr + bytes) lies inside the array of the argument the instruction's
// address derives from (origin.h), or inside any array argument when that is not one argument.
inline bool inBounds(const Inst &I, const LaunchState &L, uint64_t addr, uint64_t bytes) {
  if (I.origin < 0 || static_cast<size_t>(I.origin) >= L.argRange.size())
    return inBounds(L, addr, bytes);
  const auto &r = L.argRange[I.origin];
  return addr >= r.lo && addr <= r.hi && r.hi - addr >= bytes;
}

// Whether an instruction may touch [addr, addr + bytes): inside one array argument, or, for a
// pointer of unknown provenance (I.checked false, see emitMemory), inside mapped memory with
// the access's permission (mapped_memory.h).
// `lane`: one lane's range (a miss rereads the mappings), not a span over several lanes.
inline bool accessible(const Inst &I, const LaunchState &L, Access kind, uint64_t addr,
                       uint64_t bytes, bool lane) {
  return I.checked ? inBounds(I, L, addr, bytes)
                   : mappedMemory(addr, bytes, kind != Access::Load, lane);
}

// The fast test before a copy: inBounds, and always false for a pointer of unknown
// provenance (its lanes go through checkLanes / checkRow).
inline bool inBoundsI(const Inst &I, const LaunchState &L, uint64_t addr, uint64_t bytes) {
  return I.checked && inBounds(I, L, addr, bytes);
}

// Checks every active lane; throws at the first bad one.
inline void checkLanes(const Inst &I, const Frame &F, Access kind, const uint64_t *p, bool pb,
                       const uint8_t *m, bool mb, int64_t n, int es) {
  const LaunchState &L = *F.launch;
  // Fast: the span of active lanes fits one array.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool on = !m || m[mb ? 0 : i];
    uint64_t a = p[pb ? 0 : i];
    lo = on && a < lo ? a : lo;
    hi = on && a > hi ? a : hi;
  }
  if (lo == UINT64_MAX && hi == 0)
    return; // no active lane
  if (hi >= lo && accessible(I, L, kind, lo, hi - lo + es, false))
    return;
  for (int64_t i = 0; i < n; ++i) {
    if (m && !m[mb ? 0 : i])
      continue;
    uint64_t a = p[pb ? 0 : i];
    if (!accessible(I, L, kind, a, es, true))
      throwOob(I, F, kind, a, i);
  }
}

inline int64_t countActive(const uint8_t *m, int64_t n) {
  uint32_t s = 0; // tiles hold fewer than 2^31 elements
  for (int64_t i = 0; i < n; ++i)
    s += m[i];
  return s;
}

// Elements are moved as raw bytes of size ES.
template <int ES> struct Elem {
  using T = std::conditional_t<
      ES == 1, uint8_t,
      std::conditional_t<ES == 2, uint16_t, std::conditional_t<ES == 4, uint32_t, uint64_t>>>;
};

inline KernelFn pickBySize(int es, KernelFn k1, KernelFn k2, KernelFn k4, KernelFn k8) {
  switch (es) {
  case 1:
    return k1;
  case 2:
    return k2;
  case 4:
    return k4;
  default:
    return k8;
  }
}

// Stores of whole rows at least this long into arrays at least kStreamArrayBytes large use
// non-temporal stores: such outputs are not read back soon, and skipping the
// read-for-ownership of every destination line saves a third of a streaming kernel's memory
// traffic.
constexpr uint64_t kStreamArrayBytes = uint64_t(16) << 20;
constexpr uint64_t kStreamRowBytes = 1024;

// Non-temporal stores are weakly ordered, so they need a fence before another thread may look
// (the end of the thread's share of the launch, interpreter.cpp) or before an atomic or fence
// of the same program (a flag that publishes them). One fence there instead of one per store:
// a fence waits for the stores to drain, a few hundred ns per strip of a streaming kernel.
inline void streamed(Frame &F) { F.streamsPending = true; }
inline void settleStreams(Frame &F) {
  if (F.streamsPending) {
    fenceStreams();
    F.streamsPending = false;
  }
}

inline bool streamingTarget(const Inst &I, const LaunchState &L, uint64_t addr) {
  if (!I.checked)
    return false;
  for (const auto &r : L.ranges)
    if (addr >= r.lo && addr < r.hi)
      return r.hi - r.lo >= kStreamArrayBytes;
  return false;
}

// Finds the range of active lanes [first, last] of a row; false when none is active.
inline bool activeSpan(const uint8_t *m, int64_t L, int64_t &first, int64_t &last) {
  first = 0;
  last = L - 1;
  if (!m)
    return true;
  while (first < L && !m[first])
    ++first;
  if (first == L)
    return false;
  while (!m[last])
    --last;
  return true;
}

// Whether every lane of [first, last] (activeSpan's) is active in m (null: every lane): the
// row's active lanes are then one interval, read or written as a block of bytes.
inline bool denseSpan(const uint8_t *m, int64_t first, int64_t last) {
  return !m || countActive(m + first, last - first + 1) == last - first + 1;
}

} // namespace tt::exec::mem
