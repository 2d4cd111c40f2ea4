// The CPU executors: TTIR (TTIRProgram, the PTX-style path) and CUDA Tile IR (TileProgram,
// the Tile path) run on host memory, with one execution model:
//
// A kernel specialization is prepared once (compiler.cpp) into a flat program over registers:
//  - every SSA value gets a register of static shape and dtype at a fixed byte offset in a
//    per-thread arena; registers are reused once their value is dead (liveness over the
//    structured control flow); constants and arguments sit in a prefix of the arena that is
//    written once per launch and thread;
//  - each op becomes one or a few `Inst`s whose kernel function was chosen at prepare time by
//    (op, dtype, operand broadcast), so running an instruction is one indirect call and one
//    tight loop; scf ops hold nested instruction lists;
//  - a splat (tt.splat, dense splat constants, broadcasts of those) is not materialized: its
//    users read the scalar with a broadcast flag (Ref::bcast), or fill a scratch register when
//    they need the whole tile;
//  - pointer tiles with a provable stride are kept compact (one address per row, affine.h and
//    compact_ptr.cpp), and the offsets and masks that only feed them are computed at lane 0 or
//    as an interval of active lanes, so vector add moves data instead of addresses;
//  - purely elementwise 1-D kernels are strip-mined (compiler.h) so their registers stay in L1.
// The grid runs on the persistent thread pool; each worker reuses one arena for every program
// it runs. Programs run concurrently and in any order, as on a GPU.
//
// Tile IR (TileProgram) runs the same way: a `cuda_tile.entry` is prepared by the same
// Compiler (Dialect::Tile) into the same kind of instruction lists over the same kernels; its
// terminators may leave a region early (`continue`/`break` in an `if` inside a loop, `return`
// in an `if`), which instructions signal through Frame::exit (runTileList). With the checker
// (tile_check.h) every access also records the addresses it touches and the token set it
// waited for, and pairs that Tile IR's memory model leaves unordered raise an error.
//
// Known limits: a program that waits for another program that has not started yet (global
// barriers, stream-K fix-ups) can hang: only programs currently running make progress (with
// one thread, only the running one). Pointers made from integers or loaded from memory are not
// bounds-checked (memory.cpp). Tensor elements are limited to 2^31 per value, the arena to
// 4 GiB, ranks to 8.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec/compiler/dtype.h"
#include "exec/runtime/tile_memo.h"

namespace tt {
class Module;
} // namespace tt

namespace tt::exec {

// A launch argument: a pointer into an array (the array's whole extent, for bounds checks),
// an integer (two's complement, truncated to the argument's width) or a float (converted to
// the argument's float type).
struct ArgValue {
  enum class Kind : uint8_t { Pointer, Int, Float } kind = Kind::Int;
  uint64_t address = 0; // Pointer: the argument's value (may point inside the array)
  uint64_t base = 0;    // Pointer: the array's first byte
  uint64_t nbytes = 0;  // Pointer: the array's extent from `base`
  int64_t i = 0;
  double f = 0;

  static ArgValue pointer(uint64_t address, uint64_t nbytes) {
    return pointerIn(address, address, nbytes);
  }
  static ArgValue pointerIn(uint64_t address, uint64_t base, uint64_t nbytes) {
    ArgValue a;
    a.kind = Kind::Pointer;
    a.address = address;
    a.base = base;
    a.nbytes = nbytes;
    return a;
  }
  static ArgValue integer(int64_t v) {
    ArgValue a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
  }
  static ArgValue floating(double v) {
    ArgValue a;
    a.kind = Kind::Float;
    a.f = v;
    return a;
  }
};

// An operand: a register's arena offset; `bcast` means one element stands for all of them;
// `ind` means the register is a forwarded load's (see Frame::fwdSlot): the elements are where
// the pointer in front of it says.
struct Ref {
  uint32_t off = 0;
  bool bcast = false;
  bool ind = false;
};

struct Inst;
struct Frame;
using KernelFn = void (*)(const Inst &, Frame &);

// Where an op came from, kept for error messages (the module may die after preparation).
struct OpSite {
  std::string opName;
  std::string loc; // file:line:col (+ inlined-at chain)
};

// Op-specific data an instruction needs beyond its fixed fields; owned by the program.
struct Aux {
  virtual ~Aux() = default;
};

struct Inst {
  KernelFn fn = nullptr;
  uint32_t out = 0; // result register offset
  Ref in[4];        // operands
  int64_t n = 0;    // elements of the result (or of the op's iteration space)
  int64_t imm = 0;  // a small op parameter (predicate, element size, ...)
  int64_t imm2 = 0;
  const Aux *aux = nullptr;
  const OpSite *site = nullptr;
  bool checked = true; // memory ops: bounds-check the addresses (see memory.cpp)
  // Checked memory ops: the argument the address derives from (origin.h), whose array alone
  // bounds it; -1 when not one argument (then any argument's array does).
  int32_t origin = -1;
};
using InstList = std::vector<Inst>;

// The launch-wide state every program of a grid shares.
struct LaunchState {
  struct Range {
    uint64_t lo, hi; // [lo, hi)
  };
  std::vector<Range> ranges;   // the array arguments
  std::vector<Range> argRange; // by argument index: a pointer argument's array, else empty
  const std::string *kernelName = nullptr;
  int32_t grid[3] = {1, 1, 1};
};

// The per-program execution state.
struct Frame {
  char *R = nullptr; // the arena
  int32_t pid[3] = {0, 0, 0};
  const LaunchState *launch = nullptr;
  int64_t laneBase = 0; // strip-mined programs: the first lane of the strip being run
  int casFailures = 0;
  // Non-temporal stores (memory_common.h) issued and not yet fenced: the fence waits for the
  // end of the thread's run of programs or the program's next atomic or fence.
  bool streamsPending = false;
  int exit = 0;             // Tile IR: a region is being left early (ExitKind)
  void *check = nullptr;    // Tile IR checker state of this program (tile_check.cpp)
  TileMemo *memo = nullptr; // this thread's tiles of the launch (tile_memo.h, forward.cpp)

  template <class T> T *at(uint32_t off) const { return reinterpret_cast<T *>(R + off); }
  // Forwarded loads (compiler.cpp): a load whose tile is only read by elementwise kernels gets
  // kFwdHeader bytes in front of its register; the last 8 hold where its elements are. On its
  // fast path (the whole tile contiguous, in bounds and active) the load points them at the
  // memory and copies nothing; otherwise it fills the register and points them at it. Every
  // writer of the register (the load, an if's result copy) sets the pointer.
  // A load forwarded to a dot's A operand (forward.cpp, "rows") may leave rows that are not
  // adjacent: the 8 bytes before the pointer hold the bytes from one row to the next. A load
  // forwarded to a dot's B operand ("memo") may point at a TileMemo slot, whose tile may be in
  // the GEMM's column panels (kernels/gemm.h): the 8 bytes before the pointer say whether.
  static constexpr uint32_t kFwdHeader = 64;
  const char *&fwdSlot(uint32_t off) const {
    return *reinterpret_cast<const char **>(R + off - sizeof(char *));
  }
  // One word, two readers: a forwarded load is read as a dot's A or as its B, never both
  // (forward.cpp: rows + memo + elementwise <= 1).
  int64_t &fwdRowBytes(uint32_t off) const { return fwdWord(off); }
  int64_t &fwdPanels(uint32_t off) const { return fwdWord(off); }
  int64_t &fwdWord(uint32_t off) const {
    return *reinterpret_cast<int64_t *>(R + off - sizeof(char *) - sizeof(int64_t));
  }
  // The elements an operand refers to.
  template <class T> const T *in(const Ref &r) const {
    return r.ind ? reinterpret_cast<const T *>(fwdSlot(r.off)) : at<T>(r.off);
  }
};

inline void runList(const InstList &list, Frame &f) {
  for (const Inst &inst : list)
    inst.fn(inst, f);
}

// Tile IR: an instruction that leaves its region sets Frame::exit; the lists it is nested in
// stop, up to the loop (continue, break) or the entry (return) that consumes it.
enum ExitKind : int { kNoExit = 0, kExitContinue = 1, kExitBreak = 2, kExitReturn = 3 };
inline void runTileList(const InstList &list, Frame &f) {
  for (const Inst &inst : list) {
    inst.fn(inst, f);
    if (f.exit)
      return;
  }
}

// A prepared kernel.
struct ProgramData {
  std::string kernelName;
  InstList body;
  size_t arenaBytes = 0;
  std::vector<char> constImage; // arena bytes [0, constImage.size()) at every launch
  struct ArgSlot {
    uint32_t off;
    DType dtype;
    bool isPtr;
  };
  std::vector<ArgSlot> args;
  // Strip mining (compiler.h): the body covers `stripLen` lanes of every tile and runs
  // `strips` times per program with Frame::laneBase = strip * stripLen.
  int64_t strips = 1, stripLen = 0;
  std::vector<std::unique_ptr<Aux>> aux;
  std::vector<std::unique_ptr<OpSite>> sites;
  uint64_t uid = 0;   // unique per prepared program (arena reuse tag)
  bool tile = false;  // a Tile IR program (runTileList, Frame::exit)
  bool check = false; // the Tile IR checker is on
  size_t numInsts = 0;
  std::string notes; // preparation decisions worth knowing when tuning (compact pointer tiles)
  std::vector<TileMemo::Spec> memoLoads; // by memo id: the memo loads' tables (forward.cpp)
};

class TTIRProgram {
public:
  // Prepares `kernelName` (a tt.func of `m`, already inlined). Throws ExecError for ops the
  // executor cannot run. The module may be destroyed afterwards.
  TTIRProgram(const Module &m, const std::string &kernelName);
  ~TTIRProgram();

  // Runs the grid. `numThreads` <= 0 uses every hardware thread. Throws OutOfBoundsError,
  // DeviceAssertError or ExecError; the first error of any program stops the launch.
  void run(std::array<int64_t, 3> grid, const std::vector<ArgValue> &args, int numThreads) const;

  const std::string &kernelName() const { return data_->kernelName; }
  size_t arenaBytes() const { return data_->arenaBytes; }
  size_t numInstructions() const { return data_->numInsts; }
  const std::string &notes() const { return data_->notes; }

private:
  std::unique_ptr<ProgramData> data_;
};

// Runs a prepared program over the grid (interpreter.cpp); shared by both executors.
void runProgram(const ProgramData &pd, std::array<int64_t, 3> grid,
                const std::vector<ArgValue> &args, int numThreads);

class TileProgram {
public:
  // Prepares `kernelName` (a cuda_tile.entry of `m`). With `check`, the program runs the
  // checker (tile_check.h): accesses of one program to one address, at least one a write,
  // that no chain of tokens orders raise UnorderedAccessError. Throws ExecError for ops the
  // executor cannot run. The module may be destroyed afterwards.
  TileProgram(const Module &m, const std::string &kernelName, bool check = false);
  ~TileProgram();

  // As TTIRProgram::run.
  void run(std::array<int64_t, 3> grid, const std::vector<ArgValue> &args, int numThreads) const;

  const std::string &kernelName() const { return data_->kernelName; }
  size_t arenaBytes() const { return data_->arenaBytes; }
  size_t numInstructions() const { return data_->numInsts; }
  const std::string &notes() const { return data_->notes; }
  bool checking() const { return data_->check; }

private:
  std::unique_ptr<ProgramData> data_;
};

} // namespace tt::exec
