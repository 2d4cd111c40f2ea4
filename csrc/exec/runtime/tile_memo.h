// Tiles a launch loads again and again, kept per thread: a dot's B operand (forward.cpp, "memo").
//
// In a matmul every program in a column of C loads the same K/BK tiles of B, in the same order,
// and the thread pool hands a thread neighbouring programs (thread_pool.h: chunks of consecutive
// ids). B's tile is BK rows of BN elements, each a matrix row apart, so its copy reads many
// pages a few lines at a time: on a 2-core Zen 4 that copy was 10-15% of a 1024^3 fp32 matmul.
// A memo load copies the tile once into a slot here, keyed by where its rows are, and every
// later program on the thread that loads the same rows gets the slot: the GEMM reads it in place
// (Frame::fwdSlot), dense and hot in L2.
//
// A slot is only the value a load would read while nothing writes that memory. forward.cpp
// allows a memo only where no write (store, atomic, call) or ordered access can precede the
// load in its program or share a loop with it, so the only writes a slot can miss are other
// programs' writes, which a GPU does not order against this program's loads either. Slots
// live for one launch: the interpreter resets the memo when a thread starts a new launch.
//
// Each memo load gets a FIFO of slots within kBudget bytes (an L2's share); a program that
// loads more tiles than its FIFO holds finds none again and pays one lookup per load.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace tt::exec {

class TileMemo {
public:
  static constexpr int64_t kBudget = 512 * 1024; // bytes per thread, over all memo loads
  static constexpr int kMaxSlots = 64;
  // A deferred dot (dot.cpp) reads the B of its waiting steps at its next GEMM, so the slots
  // the last `held` fetches of its table returned are never evicted; at most kMaxHeld.
  static constexpr int kMaxHeld = 8;

  // A memo load's table: the bytes of its tile, and how many of its slots a deferred dot holds
  // (0 to kMaxHeld; such a table gets more slots than that or none).
  struct Spec {
    int64_t tileBytes;
    int held;
  };
  // The slots a table of `tileBytes` tiles gets when `loads` memo loads share the budget (fewer
  // than that, none, where a deferred dot holds as many or more).
  static int slotsFor(int64_t tileBytes, size_t loads);
  // Empties the memo for `launch` with one table per memo load (by memo id); a second call for
  // the same launch keeps the slots.
  void reset(uint64_t launch, const std::vector<Spec> &loads);
  // The tile of `rows` rows of `rowBytes` bytes whose first row is at `first`, each `pitch`
  // bytes after the one before, as `rows * rowBytes` dense bytes: a slot filled by an earlier
  // load of the same rows, else one filled now (evicting the oldest slot that none of the last
  // `held` fetches returned). Null when memo load `id` has no slots (its tiles are too large
  // for the budget). With `panelBytes` (a divisor of rowBytes, else 0) the slot holds the tile
  // in column panels of that width, the layout the GEMM reads B in (kernels/gemm.h): panel p's
  // rows one after another, then panel p + 1's. A memo load passes the same width every time.
  const char *fetch(int id, const char *first, int64_t rows, int64_t rowBytes, int64_t pitch,
                    int64_t panelBytes);

private:
  const char *find(int id, uint64_t addr, int64_t pitch);
  char *insert(int id, uint64_t addr, int64_t pitch);

  struct Table {
    int64_t bytes = 0; // per slot
    int slots = 0, next = 0, hint = 0;
    int held = 0, recent[kMaxHeld] = {}, lastRecent = 0; // the slots the last fetches returned
    std::vector<uint64_t> addr;
    std::vector<int64_t> pitch;
    std::unique_ptr<char[]> raw; // slot storage, 64-byte aligned within
    char *data = nullptr;
  };
  uint64_t launch_ = 0;
  std::vector<Table> tables_;
};

} // namespace tt::exec
