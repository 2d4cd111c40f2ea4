// Running a prepared program over a grid (see program.h for the model).
//
// Rules:
//  - each worker thread owns one arena (64-byte aligned, grown on demand, never shrunk) that it
//    reuses for every program of every launch; at the first program of a launch on a thread
//    the constant prefix (constants and argument values) is copied in;
//  - program ids are handed out by the thread pool in small chunks; x varies fastest;
//  - arguments: a pointer argument's array extent becomes one of the launch's bounds ranges;
//    integers are truncated to the argument's width; floats are converted to its type;
//  - the first error of any program cancels the programs not yet started and is rethrown;
//  - a thread fences its programs' non-temporal stores once, when its share of the grid ends;
//  - Tile IR programs run their body (each strip of it, when strip-mined) with runTileList
//    (early exits) and, with the checker, start each program with an empty access history
//    (tile_check.h).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "exec/compiler/compiler.h"
#include "exec/kernels/casts.h"
#include "exec/kernels/memory_common.h"
#include "exec/runtime/thread_pool.h"
#include "exec/runtime/tile_memo.h"
#include "exec/tile/tile_check.h"
#include "exec/tileir/tile_data_order.h"
#include "exec/tileir/tile_sink.h"
#include "ir/operation.h"

namespace tt::exec {
namespace {

struct Arena {
  char *data = nullptr;
  size_t size = 0;
  uint64_t tag = 0; // the launch whose constant prefix the arena holds

  void ensure(size_t bytes) {
    if (bytes <= size)
      return;
    std::free(data);
    size_t want = (bytes + 4095) & ~size_t(4095);
    data = static_cast<char *>(std::aligned_alloc(64, want));
    if (!data)
      throw ExecError("cannot allocate " + std::to_string(want) + " bytes of registers");
    size = want;
    tag = 0;
  }
  ~Arena() { std::free(data); }
};

Arena &threadArena() {
  thread_local Arena arena;
  return arena;
}

std::atomic<uint64_t> nextLaunchTag{1};

void writeArg(char *dst, DType dt, const ArgValue &v, size_t index, const std::string &kernel) {
  auto bad = [&](const char *what) {
    throw ExecError("kernel " + kernel + ": argument " + std::to_string(index) + " expects " +
                    what);
  };
  switch (dt) {
  case DType::Ptr:
    if (v.kind != ArgValue::Kind::Pointer)
      bad("a pointer (address, nbytes)");
    storeAs<uint64_t>(dst, v.address);
    return;
  case DType::F16:
  case DType::BF16:
  case DType::F32:
  case DType::F64:
  case DType::F8E4M3:
  case DType::F8E5M2: {
    if (v.kind == ArgValue::Kind::Pointer)
      bad("a float");
    double f = v.kind == ArgValue::Kind::Float ? v.f : static_cast<double>(v.i);
    if (dt == DType::F32)
      storeAs<float>(dst, static_cast<float>(f));
    else if (dt == DType::F64)
      storeAs<double>(dst, f);
    else if (dt == DType::F16)
      storeAs<uint16_t>(dst, static_cast<uint16_t>(encodeFloat(f, kF16, Rounding::RTNE)));
    else if (dt == DType::BF16)
      storeAs<uint16_t>(dst, static_cast<uint16_t>(encodeFloat(f, kBF16, Rounding::RTNE)));
    else if (dt == DType::F8E4M3)
      storeAs<uint8_t>(dst, f64ToFp8e4m3(f, Rounding::RTNE));
    else
      storeAs<uint8_t>(dst, f64ToFp8e5m2(f, Rounding::RTNE));
    return;
  }
  default:
    if (v.kind != ArgValue::Kind::Int)
      bad("an integer");
    writeIntTrunc(dst, dt, v.i);
    return;
  }
}

} // namespace

TTIRProgram::TTIRProgram(const Module &m, const std::string &kernelName)
    : data_(std::make_unique<ProgramData>()) {
  data_->kernelName = kernelName;
  Operation *func = m.lookupFunc(kernelName);
  if (!func)
    throw ExecError("the module has no function named " + kernelName);
  Compiler c(*data_);
  c.prepare(*func);
}

TTIRProgram::~TTIRProgram() = default;

void TTIRProgram::run(std::array<int64_t, 3> grid, const std::vector<ArgValue> &args,
                      int numThreads) const {
  runProgram(*data_, grid, args, numThreads);
}

TileProgram::TileProgram(const Module &m, const std::string &kernelName, bool check)
    : data_(std::make_unique<ProgramData>()) {
  data_->kernelName = kernelName;
  data_->tile = true;
  data_->check = check;
  if (!m.lookupFunc(kernelName))
    throw ExecError("the module has no entry named " + kernelName);
  // The executor's own copy: sinking ops into branches (tile_sink.h) must not touch the
  // caller's module.
  std::unique_ptr<Module> copy = m.clone();
  Operation *func = copy->lookupFunc(kernelName);
  sinkIntoBranches(*func);
  if (check) // the checker follows tokens: give it the orderings data dependences make
    orderByData(*func);
  Compiler c(*data_, Dialect::Tile, check);
  c.prepare(*func);
}

TileProgram::~TileProgram() = default;

void TileProgram::run(std::array<int64_t, 3> grid, const std::vector<ArgValue> &args,
                      int numThreads) const {
  runProgram(*data_, grid, args, numThreads);
}

void runProgram(const ProgramData &pd, std::array<int64_t, 3> grid,
                const std::vector<ArgValue> &args, int numThreads) {
  if (args.size() != pd.args.size())
    throw ExecError("kernel " + pd.kernelName + " takes " + std::to_string(pd.args.size()) +
                    " arguments, got " + std::to_string(args.size()));
  for (int d = 0; d < 3; ++d)
    if (grid[d] < 0 || grid[d] > std::numeric_limits<int32_t>::max())
      throw ExecError("kernel " + pd.kernelName + ": grid dimension " + std::to_string(d) + " is " +
                      std::to_string(grid[d]) + ", outside [0, 2^31)");
  const int64_t total = grid[0] * grid[1] * grid[2];
  if (total == 0)
    return;

  LaunchState L;
  L.kernelName = &pd.kernelName;
  for (int d = 0; d < 3; ++d)
    L.grid[d] = static_cast<int32_t>(grid[d]);
  std::vector<char> image(pd.constImage);
  for (size_t i = 0; i < args.size(); ++i) {
    const auto &slot = pd.args[i];
    writeArg(image.data() + slot.off, slot.dtype, args[i], i, pd.kernelName);
    if (slot.isPtr && args[i].nbytes > 0)
      L.ranges.push_back({args[i].base, args[i].base + args[i].nbytes});
    L.argRange.push_back(slot.isPtr
                             ? LaunchState::Range{args[i].base, args[i].base + args[i].nbytes}
                             : LaunchState::Range{0, 0});
  }

  const uint64_t tag = nextLaunchTag.fetch_add(1);
  const int64_t g0 = grid[0], g01 = grid[0] * grid[1];
  parallelFor(total, numThreads, 0, [&](int, int64_t begin, int64_t end) {
    Arena &ar = threadArena();
    ar.ensure(pd.arenaBytes);
    if (ar.tag != tag) {
      std::memcpy(ar.data, image.data(), image.size());
      ar.tag = tag;
    }
    thread_local TileMemo memo;
    memo.reset(tag, pd.memoLoads);
    Frame F;
    F.R = ar.data;
    F.launch = &L;
    F.memo = &memo;
    // The programs' non-temporal stores are fenced before this thread reports its share done,
    // also when a program throws (memory_common.h).
    struct Settle {
      Frame &F;
      ~Settle() { mem::settleStreams(F); }
    } settle{F};
    for (int64_t id = begin; id < end; ++id) {
      F.pid[0] = static_cast<int32_t>(id % g0);
      F.pid[1] = static_cast<int32_t>((id / g0) % grid[1]);
      F.pid[2] = static_cast<int32_t>(id / g01);
      if (pd.tile) {
        if (pd.check)
          F.check = beginCheckedProgram();
        // Every strip takes the same scalar control flow, so an early `return` ends each strip
        // at the same point.
        for (int64_t strip = 0; strip < pd.strips; ++strip) {
          F.laneBase = strip * pd.stripLen;
          F.exit = kNoExit;
          runTileList(pd.body, F);
        }
        continue;
      }
      for (int64_t strip = 0; strip < pd.strips; ++strip) {
        F.laneBase = strip * pd.stripLen;
        runList(pd.body, F);
      }
    }
  });
}

} // namespace tt::exec
