// Preparation of a kernel into a flat program (see program.h for the model). One Compiler
// serves both op sets: TTIR (`tt.func`, the PTX-style path) and Tile IR (`cuda_tile.entry`,
// the Tile path); Dialect says which one a kernel is written in. Register assignment,
// liveness and the kernels are shared; each op set has its own emitters (TTIR: the files
// below; Tile IR: tile_*.cpp, which map (op, attributes) to the same kernels).
//
// Strip mining: a kernel whose tensors are all one 1-D shape [N] and whose ops are all
// elementwise (loads, stores and atomics through tensors of pointers included; no reductions,
// shape ops, prints, tensors carried by loops, or stores through scalar pointers, which would
// repeat) runs its body N / S times per program on S-lane strips, so its registers stay in L1
// (S = kStripLen). tt.make_range then adds Frame::laneBase, and lane indices in error messages
// count from the tile's first lane. Not when a store and another access of the program may
// meet through different lanes (the strips would reorder them): on TTIR, accesses through two
// pointer values derived from one argument; Tile IR kernels qualify the same way (view accesses of
// whole N-lane tiles move the strip's lanes, tiles may flow through `if`s, no iota), unless an
// access waits for another through its token: strips would order them strip by strip only.
//
// The Compiler runs in four steps over the kernel's tt.func:
//  0. the stride analysis (affine.h): compact pointer tiles, lazy offsets, interval masks;
//  1. storage classes: which values are views of another value's register (tt.reshape,
//     tt.expand_dims, bitcasts, scf.for/while results), which are splats of a scalar (tt.splat,
//     dense splat constants, broadcasts of splats), which are constants (scalars, make_range);
//  2. liveness over the pre-order walk of the function, where a use inside a loop keeps the
//     value alive to the end of that loop; a loop-carried value recomputed in place (`acc =
//     dot(a, b, acc)`, `ptrs += step`) shares its argument's register; loads only read by
//     elementwise kernels are forwarded (forward.cpp); registers are assigned first fit from a
//     free list;
//  3. emission: each op is handed to the emitters (elementwise.cpp, cast_ops.cpp, memory.cpp
//     with compact_ptr.cpp, shape_ops.cpp, reduce.cpp, dot.cpp, control_flow.cpp,
//     misc_ops.cpp) until one takes it.
// Emitters only see this interface: operand references, result registers, scratch registers
// and instruction creation. They never read values at prepare time except constants.
//
// Tile IR differences (tile_compiler.cpp): the stride analysis runs (affine.h) but only for
// weak pointer gathers outside the checker, and foreign pointers are analyzeTile's; splats are
// `reshape` + `broadcast` of a one-element tile, which stay broadcast scalars; tokens have no
// storage (the checker gives them an 8-byte register naming a token set, tile_check.cpp); a
// tensor_view is a register of int64 words [base, shape..., strides...] and a partition_view shares
// its tensor_view's register; terminators (yield, continue, break, return) are instructions, so
// they may sit inside nested ifs.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exec/compiler/affine.h"
#include "exec/compiler/origin.h"
#include "exec/compiler/program.h"
#include "exec/runtime/errors.h"
#include "ir/op_registry.h"
#include "ir/operation.h"

namespace tt::exec {

// An op whose region is a combine function its kernel runs per element (reduce.cpp), not an
// instruction list of the program.
inline bool isCombineOp(const Operation &op) {
  return op.is("tt.reduce") || op.is("tt.scan") || op.is("cuda_tile.reduce") ||
         op.is("cuda_tile.scan") || op.is("tt.map_elementwise");
}

class Compiler;
using EmitFn = bool (*)(Compiler &, const Operation &);

enum class Dialect { TTIR, Tile };

// The emitters, one per file; each returns false when the op is not one of its own.
bool emitElementwise(Compiler &c, const Operation &op);
bool emitCast(Compiler &c, const Operation &op);
bool emitMemory(Compiler &c, const Operation &op); // calls emitCompact (compact_ptr.cpp) first
bool emitCompact(Compiler &c, const Operation &op);
bool emitShape(Compiler &c, const Operation &op);
bool emitReduce(Compiler &c, const Operation &op);
bool emitDot(Compiler &c, const Operation &op);
bool emitControlFlow(Compiler &c, const Operation &op);
bool emitMisc(Compiler &c, const Operation &op);

// The Tile IR emitters (tile_*.cpp).
bool emitTileElementwise(Compiler &c, const Operation &op);
bool emitTileShape(Compiler &c, const Operation &op);
bool emitTileMemory(Compiler &c, const Operation &op);
bool emitTileCompute(Compiler &c, const Operation &op); // reduce, scan, mma
bool emitTileControl(Compiler &c, const Operation &op);
bool emitTileMisc(Compiler &c, const Operation &op);

// True for ops whose every operand may be a broadcast scalar and whose result is computed
// element by element (used by reduce/scan to run combine regions on whole vectors).
bool isElementwiseOp(const Operation &op);
// True for ops emitted as one of elementwise.h's unary/binary/ternary kernels, which read their
// operands through Frame::in and so may read a forwarded load (forward.cpp).
bool readsOperandsThroughRefs(const Compiler &c, const Operation &op);
// scf.for, scf.while, cuda_tile.for, cuda_tile.loop.
bool isLoopOp(const Operation &op);

class Compiler {
public:
  explicit Compiler(ProgramData &pd, Dialect d = Dialect::TTIR, bool check = false)
      : pd_(pd), dialect_(d), check_(check) {}
  void prepare(const Operation &func);
  Dialect dialect() const { return dialect_; }
  bool tileIR() const { return dialect_ == Dialect::Tile; }
  // Tile IR checker mode (tile_check.cpp): tokens carry token sets, accesses are recorded.
  bool checking() const { return check_; }

  // ---- operands and results ----
  DType dtype(const Value *v) const { return info(v).dt; }
  int64_t numel(const Value *v) const { return info(v).numel; }
  // False for values that occupy no register (Tile IR tokens outside the checker).
  bool hasStorage(const Value *v) const { return info(v).numel > 0; }
  bool isBcast(const Value *v) const { return info(v).bcast && info(v).numel > 1; }
  // A reference to v's register. With allowBcast a splat comes back as its scalar with
  // bcast = true; otherwise a splat is filled into a scratch register first.
  Ref ref(const Value *v, bool allowBcast = false);
  // The register a result is written to.
  uint32_t out(const Value *v) const;
  // A constant's value, when v is a scalar or splat constant (integers sign-extended).
  bool constInt(const Value *v, int64_t &out) const;
  // The lanes of the last dimension one run of the body covers: the type's last dimension,
  // or the strip length of a strip-mined program.
  int64_t rowLen(const Value *v) const {
    if (stripLen_ && v->type.isTensor())
      return stripLen_;
    return v->type.isTensor() ? v->type.shape().back() : 1;
  }
  int64_t stripLen() const { return stripLen_; }
  // Static strides and compact pointer tiles (affine.h).
  const CompactPtr *compact(const Value *v) const { return affine_.compactOf(v); }
  bool intStride(const Value *v, int64_t &s) const { return affine_.intStrideOf(v, s); }
  bool intStrideAssumed(const Value *v) const { return affine_.assumed(v); }
  bool lazyInt(const Value *v) const { return affine_.lazy(v); }
  bool intervalMask(const Value *v) const { return affine_.interval(v); }
  int foldOf(const Value *v) const { return affine_.foldOf(v); } // affine.h: 1 rows, 2 lanes
  bool boxMask(const Value *v) const { return affine_.box(v); }
  // A forwarded load (forward.cpp, Frame::fwdSlot): its kernel sets the pointer in front of v's
  // register, and its readers get Ref::ind.
  bool forwarded(const Value *v) const {
    auto it = infos_.find(rootOf(v));
    return it != infos_.end() && it->second.fwd;
  }
  // A forwarded load whose only readers are float dots taking it as A: its kernel also sets
  // Frame::fwdRowBytes and may point at rows that are not adjacent (forward.cpp).
  bool forwardedRows(const Value *v) const {
    auto it = infos_.find(rootOf(v));
    return it != infos_.end() && it->second.fwd && it->second.fwdRows;
  }
  // A forwarded load whose only readers are float dots taking it as B, in a kernel where no
  // write can precede it: its memo id (tile_memo.h, forward.cpp), else -1.
  int memoOf(const Value *v) const {
    auto it = infos_.find(rootOf(v));
    return it != infos_.end() && it->second.fwd ? it->second.memo : -1;
  }
  // Pointers not derived from a kernel argument (affine.h): their accesses are checked against
  // the process's mapped memory instead of the arguments (mapped_memory.h).
  bool foreignPointer(const Value *v) const { return affine_.foreignPtr.count(v) != 0; }
  // The entry argument pointer v derives from (origin.h), -1 when not exactly one.
  int pointerOrigin(const Value *v) const {
    auto it = origins_.find(v);
    return it == origins_.end() ? -1 : it->second;
  }
  // Tile IR: the ops that use v (any nesting depth).
  const std::vector<const Operation *> &usersOf(const Value *v) const {
    static const std::vector<const Operation *> none;
    auto it = users_.find(v);
    return it == users_.end() ? none : it->second;
  }

  // ---- instructions ----
  Inst &emit(KernelFn fn, const Operation &op);
  template <class A> A *makeAux() {
    auto p = std::make_unique<A>();
    A *raw = p.get();
    pd_.aux.push_back(std::move(p));
    return raw;
  }
  // A register that lives for the whole program (scratch of one instruction, or state).
  uint32_t scratch(size_t bytes);
  // A dot whose GEMM may wait for the next K step (forward.cpp, "deferred"): the loop it sits
  // in, else null; and how many K steps it gathers into one GEMM (dot.cpp).
  const Operation *deferredLoop(const Operation &dot) const {
    auto it = deferred_.find(&dot);
    return it == deferred_.end() ? nullptr : it->second.first;
  }
  int deferredChain(const Operation &dot) const {
    auto it = deferred_.find(&dot);
    return it == deferred_.end() ? 0 : it->second.second;
  }
  // Instructions that run right before and right after `loop` (a deferred dot's reset and
  // flush); the loop's emitter emits them around its own instruction (emitLoopEntry,
  // emitLoopExit).
  void beforeLoop(const Operation *loop, Inst inst) { loopEntry_[loop].push_back(inst); }
  void afterLoop(const Operation *loop, Inst inst) { loopExit_[loop].push_back(inst); }
  // An instruction that runs right before `op`'s own (emitOp places it once `op` is emitted, so
  // the emitter of an op inside `op`'s regions may ask for it).
  void beforeOp(const Operation *op, Inst inst) { beforeOp_[op].push_back(inst); }
  // A deferred dot whose last GEMM a store of its accumulator runs (forward.cpp, "fused
  // stores"): the store; the op before which the dot's waiting steps are dropped each time
  // (null: the loop's own reset suffices); the accumulator's other readers after the loop, which
  // never run in a pass with the store and run the steps into it first.
  struct FusedStore {
    const Operation *store = nullptr, *anchor = nullptr;
    std::vector<const Operation *> others;
  };
  const FusedStore *fusedStore(const Operation &dot) const {
    auto it = fusedStores_.find(&dot);
    return it == fusedStores_.end() ? nullptr : &it->second;
  }
  // The dot's emitter registers its waiting steps (`pending`) with the store, and `flush`, the
  // instruction that would run them into the accumulator. The store's emitter takes the list
  // (fusedPendings) and runs them itself; a store emitted by a kernel that does not take it
  // gets the flushes right before it (emitOp), so no step is ever dropped.
  void addFusedPending(const Operation &store, uint32_t pending, Inst flush) {
    auto &f = fusedPendings_[&store];
    f.pendings.push_back(pending);
    f.flushes.push_back(flush);
  }
  std::vector<uint32_t> fusedPendings(const Operation &store) {
    auto it = fusedPendings_.find(&store);
    if (it == fusedPendings_.end())
      return {};
    it->second.taken = true;
    return it->second.pendings;
  }
  void emitLoopEntry(const Operation &loop) { emitHooks(loopEntry_, loop); }
  void emitLoopExit(const Operation &loop) { emitHooks(loopExit_, loop); }
  const OpSite *site(const Operation &op);
  [[noreturn]] void fail(const Operation &op, const std::string &msg) const;
  // Emits the ops of a block into `list`: TTIR leaves the terminator to the op that owns the
  // region; Tile IR emits it (its terminators are instructions, see tile_control.cpp).
  void compileBlock(const Block &b, InstList &list);

  // ---- combine regions (tt.reduce, tt.scan) ----
  // Gives every value of `b` (args and op results) a scratch register of `numel` elements;
  // constants become broadcast scalars. Call once, then compileBlock per element count after
  // setRegionNumel.
  void assignRegion(const Block &b, int64_t numel);
  void setRegionNumel(const Block &b, int64_t numel);

private:
  struct ValueInfo {
    uint32_t off = 0;
    int64_t numel = 1;
    DType dt = DType::I32;
    bool bcast = false; // the register holds one element standing for all numel
    bool assigned = false;
    bool fwd = false;     // a forwarded load's storage class (forward.cpp)
    bool fwdRows = false; // ... read only as a float dot's A operand: rows may be strided
    int memo = -1;        // ... read only as a float dot's B operand: its memo id
  };
  const ValueInfo &info(const Value *v) const;

  // Step 1.
  void classify(const Operation &func);
  void setInfoFor(const Value *v);
  void classifyTTIROp(const Operation &op);
  void classifyTileOp(const Operation &op); // tile_compiler.cpp
  void analyzeTile(const Operation &entry); // tile_compiler.cpp: foreign pointers
  bool constantOp(const Operation &op) const;
  // Step 2.
  void allocate(const Operation &func);
  void coalesceLoopCarried(const std::vector<const Operation *> &order,
                           const std::unordered_map<const Operation *, int64_t> &pos);
  void coalesceIfResults(const std::vector<const Operation *> &order);
  void chooseForwarded(const std::vector<const Operation *> &order,
                       const std::unordered_map<const Operation *, int64_t> &pos); // forward.cpp
  using UsersMap = std::unordered_map<const Value *, std::vector<const Operation *>>;
  bool fusedStoreOf(const Operation &dot, const Operation &loop, const UsersMap &users,
                    const std::vector<const Operation *> &order,
                    const std::unordered_map<const Operation *, int64_t> &pos,
                    FusedStore &fs) const; // forward.cpp
  void emitOp(const Operation &op);
  void buildConstImage();

  ProgramData &pd_;
  Dialect dialect_;
  bool check_;
  AffineInfo affine_;
  std::unordered_map<const Value *, int> origins_; // pointerOrigin
  InstList *cur_ = nullptr;
  bool emitted_ = false; // the op being emitted has emitted an instruction
  int64_t stripLen_ = 0; // strip mining: lanes per run of the body (0: off)
  int64_t chooseStripLen(const Operation &func) const;
  std::unordered_map<const Value *, ValueInfo> infos_;
  // dot -> its loop and chain (deferredLoop, deferredChain)
  std::unordered_map<const Operation *, std::pair<const Operation *, int>> deferred_;
  std::unordered_map<const Operation *, std::vector<Inst>> loopEntry_, loopExit_, beforeOp_;
  std::unordered_map<const Operation *, FusedStore> fusedStores_; // by dot
  struct StorePendings {
    std::vector<uint32_t> pendings;
    std::vector<Inst> flushes;
    bool taken = false;
  };
  std::unordered_map<const Operation *, StorePendings> fusedPendings_; // by store
  void emitOpOnly(const Operation &op);
  void emitHooks(const std::unordered_map<const Operation *, std::vector<Inst>> &hooks,
                 const Operation &loop) {
    auto it = hooks.find(&loop);
    if (it != hooks.end())
      for (const Inst &inst : it->second)
        cur_->push_back(inst);
  }
  std::unordered_map<const Value *, std::vector<const Operation *>> users_; // Tile IR
  // Storage classes: value -> the value whose register it shares (itself when it owns one).
  std::unordered_map<const Value *, const Value *> root_;
  struct ConstVal {
    const Value *v;
    bool isFloat;
    double f;
    int64_t i;
    bool iota; // make_range: start + index
  };
  std::vector<ConstVal> consts_;
  std::unordered_map<const Operation *, const OpSite *> sites_;
  size_t constBytes_ = 0, liveBytes_ = 0, scratchBytes_ = 0;
  const Value *rootOf(const Value *v) const;
  void setRoot(const Value *v, const Value *r) { root_[v] = rootOf(r); }
  friend struct CompilerAccess;
};

// Writes one element of type dt holding f (isFloat) or i, converted as a constant is.
void encodeConstant(char *dst, DType dt, bool isFloat, double f, int64_t i);

// Kernels every emitter may use (control_flow.cpp): fill a register from a broadcast scalar
// (in[0]) and copy a register (in[0], possibly broadcast) to `out`; n elements.
KernelFn fillKernel(int elemBytes);
KernelFn copyKernel(int elemBytes);

} // namespace tt::exec
