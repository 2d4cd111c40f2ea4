// convert-ttir-to-tile: TTIR (after inlining) to CUDA Tile IR.
//
// The pipeline of this stage, in order:
//   1. convertTTIRToTile: every TTIR op maps to cuda_tile ops or is reported unsupported
//      with its name and location (nothing is dropped quietly); tensor-of-pointer loads and
//      stores are raised to tensor_view/partition_view accesses where raise-pointers-to-views
//      proves it (raise_views.cpp), else become pointer-tile gathers/scatters;
//   2. the Tile IR passes TileOptions::passes names, by default cse and dce (raised accesses
//      leave their pointer arithmetic dead; shared index math repeats) and
//      insert-memory-tokens (passes/insert_memory_tokens.cpp: Tile IR orders memory only
//      through tokens).
// The result carries a report of unsupported ops and of every memory access (raised or not,
// and why), which drives fallback and the compiled kernel's metadata.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/operation.h"

namespace tt {

struct TileOptions {
  bool approx = false; // TILEIR_ENABLE_APPROX: approximate div/sqrt/exp on f32
  bool ftz = false;    // TILEIR_ENABLE_FTZ: flush f32 denormals
  int occupancy = 0;   // 0: no hint; else 1..32
  int numCtas = 1;     // num_cta_in_cga hint when > 1
  int numStages = 0;   // latency hint on memory ops when > 0 (clamped to 1..10)
  std::string arch = "sm_90";
  bool raiseViews = true;
  // Accesses in loops index one view made at the top level (index_views.h); off: a view per
  // access (TRITON_TILE_INDEX_VIEWS=0, for comparisons).
  bool indexViews = true;
  // Tensors whose base, strides or shape are defined inside the kernel's control flow get
  // their tile-index view where those are defined (index_views.h, IndexContext::anchorInner):
  // 2 (default) for descriptors and pointers, 1 for descriptors only, 0 never (a view per
  // access); TRITON_TILE_ANCHORED_VIEWS. On an H100 (tileiras 13.4) the grouped GEMM's
  // descriptors, made once per problem, ran 6.5x faster so (21.8 -> 142.0 TFLOP/s at
  // 128x128x64); its pointer form, with the tile's row folded into the view's base, 2.9x (H200:
  // 189.4 -> 547.8 at 128x128x64; benchmarks/anchored_probe.py, RESULTS.md 2026-11-29).
  int anchoredViews = 2;
  // One-dimensional tiles inside loops become views too (off: gathers, measured faster there;
  // TRITON_TILE_RAISE_VIEWS=all).
  bool loopVectorViews = false;
  // GPU targets (TRITON_TILE_RAISE_VIEWS=auto): in a kernel without a dot, loads and stores
  // through pointers stay gathers, as in NVIDIA's backend. As views, tileiras 13.4 branched
  // around each 16-byte chunk's bounds test and waited for one chunk's load before issuing the
  // next, or moved rows through TMA, and ran one-pass softmax and layer norm at 0.73-1.00x of
  // the gathers' speed without TMA, 0.21-0.76x with it (H200, benchmarks/row_probe.py). Atomic
  // reductions through views (viewReductions) and descriptors keep their views; the CPU
  // executors keep views.
  bool gathersWithoutDot = false;
  bool allowTma = true; // false (TRITON_TILE_ALLOW_TMA=0): view accesses say allow_tma=false
  // TMA for stores through views made inside loops (TRITON_TILE_TMA_KERNEL_MAPS=1). tileiras
  // builds the tensor map of a view whose base, shape and strides come from the kernel's
  // arguments and constants in the launch's host callback (`.nv.host` in the cubin) and passes
  // it as a hidden parameter; any other view's map it builds mid-kernel, into a per-SM,
  // per-warp slot of a global workspace (ATOMG.E.EXCH, UTMACCTL.IV). On driver 580.159 with
  // tileiras 13.4 (H100) a persistent matmul whose output store gets such a map inside its
  // tile loop hung (grid 1 or 3, with or without partial tiles) and ran with TMA off for that
  // store alone; loads through such maps in loops (the tutorial matmul, attention) and maps
  // made once at the top run, and keep TMA (off for them cost the matmul 2-12%). Loads through
  // views made inside a loop hung too in kernels with a dot of at least 256x128 (a grouped
  // GEMM's tiles, Converter::tallDot_), and take no TMA there either; in the others they keep
  // it (off, the grouped GEMM ran 5x slower).
  bool kernelTmaMaps = false;
  // A relaxed atomic read-modify-write whose old values are never read, through pointers that
  // raise to a view, becomes a reduction through the view (atomic_red_view_tko: no result,
  // 13.3). Off (TRITON_TILE_VIEW_REDUCTIONS=0): an atomic_rmw_tko over the pointer tile.
  bool viewReductions = true;
  int workerWarps = 0; // num_worker_warps_per_cta entry hint when > 0 (4 or 8)
  // Only for kernels with reductions, a dot inside a loop inside a loop (persistent matmuls), a
  // loop of several dots, or (at 8) a dot accumulating more than 128x128 (Converter::
  // wantsWorkerWarps); measured on an H200 and an H100, see docs/gpu_perf_notes.md.
  bool workerWarpsAuto = false;
  // Measurement only (TRITON_TILE_VIEW_GUARDS=0): no branch around view accesses whose box may
  // be empty, out of range or wrap (Tile IR leaves those undefined): wrong answers when they do.
  bool guardViews = true;
  // Measurement only (TRITON_TILE_VERSION_LOOPS=0): loops are not versioned; the conditions
  // of their tile-index accesses are assumed (wrong answers when they fail).
  bool versionLoops = true;
  // GPU targets: a versioned loop whose conditions the host can decide before launching gets
  // an empty other version, and the conversion returns the guard (launch_guard.h); the caller
  // also converts without it for launches where the guard fails.
  bool launchGuards = false;
  // Pointer arguments known at launch to alias (same address); each inner vector is one class
  // of argument indices. Accesses through one class are ordered as one buffer.
  std::vector<std::vector<int>> aliasClasses;
  // The Tile IR passes after the conversion, in order (opt: --tile-option passes=a,b; without
  // insert-memory-tokens the module orders no memory, so only for reading the IR before it).
  std::vector<std::string> passes = {"cse", "dce", "insert-memory-tokens"};
};

struct UnsupportedOp {
  std::string op;
  std::string location;
  std::string reason;
};

struct AccessReport {
  std::string op; // tt.load / tt.store
  std::string location;
  bool raised = false; // became a view access
  std::string detail;  // why not, or which view
};

struct TileConversion {
  std::unique_ptr<Module> module; // null when unsupported ops were found
  std::vector<UnsupportedOp> unsupported;
  std::vector<AccessReport> accesses;
  // With TileOptions::launchGuards, when some loop's other version was left empty: the TTIR
  // kernel the host runs over the grid first, and the kernel's argument indices it takes.
  std::unique_ptr<Module> guard;
  std::vector<int> guardArgs;
  // Views made where their tensor is made, inside the kernel's control flow
  // (TileOptions::anchoredViews): the caller converts again without them where tileiras
  // rejects the kernel.
  int anchoredViews = 0;
};

TileConversion convertTTIRToTile(const Module &ttir, const std::string &kernel,
                                 const TileOptions &options);

} // namespace tt
