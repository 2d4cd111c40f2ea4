// The CUDA Tile IR op set, declared once: each op's identifier, its name (our IR's
// `cuda_tile.<name>` and NVIDIA's), its bytecode opcode (NVIDIA/cuda-tile's
// BytecodeOpcodes.td) and the bytecode version that introduced it. The bytecode's opcode enum
// (bytecode/format.h) and layout table (bytecode/op_specs.cpp), the op registry (ops.cpp: an op
// not listed here cannot be registered) and Python (`_core.tile_ops()`) are built from it.
//
// What an op is beyond its name lives with the code that needs it, each keyed by this table:
// its traits, verifier and printed form in ops.cpp, its bytecode layout in op_specs.cpp, its
// Tile executor emitter in exec/tile/. One exception to "our IR's name is NVIDIA's": our IR
// calls print_tko `cuda_tile.print` (its token result is optional there; the bytecode writer
// maps the name, bytecode/emit_module.cpp).
#pragma once

namespace tt::tile {

// X(identifier, name, opcode, since: major, minor)
#define TT_TILE_OPS(X)                                                                             \
  X(AbsF, "absf", 0x00, 13, 1)                                                                     \
  X(AbsI, "absi", 0x01, 13, 1)                                                                     \
  X(AddF, "addf", 0x02, 13, 1)                                                                     \
  X(AddI, "addi", 0x03, 13, 1)                                                                     \
  X(AndI, "andi", 0x04, 13, 1)                                                                     \
  X(Assert, "assert", 0x05, 13, 1)                                                                 \
  X(Assume, "assume", 0x06, 13, 1)                                                                 \
  X(AtomicCasTko, "atomic_cas_tko", 0x07, 13, 1)                                                   \
  X(AtomicRmwTko, "atomic_rmw_tko", 0x08, 13, 1)                                                   \
  X(Bitcast, "bitcast", 0x09, 13, 1)                                                               \
  X(Break, "break", 0x0A, 13, 1)                                                                   \
  X(Broadcast, "broadcast", 0x0B, 13, 1)                                                           \
  X(Cat, "cat", 0x0C, 13, 1)                                                                       \
  X(Ceil, "ceil", 0x0D, 13, 1)                                                                     \
  X(CmpF, "cmpf", 0x0E, 13, 1)                                                                     \
  X(CmpI, "cmpi", 0x0F, 13, 1)                                                                     \
  X(Constant, "constant", 0x10, 13, 1)                                                             \
  X(Continue, "continue", 0x11, 13, 1)                                                             \
  X(Cos, "cos", 0x12, 13, 1)                                                                       \
  X(CosH, "cosh", 0x13, 13, 1)                                                                     \
  X(DivF, "divf", 0x14, 13, 1)                                                                     \
  X(DivI, "divi", 0x15, 13, 1)                                                                     \
  X(Entry, "entry", 0x16, 13, 1)                                                                   \
  X(Exp, "exp", 0x17, 13, 1)                                                                       \
  X(Exp2, "exp2", 0x18, 13, 1)                                                                     \
  X(ExtI, "exti", 0x25, 13, 1)                                                                     \
  X(Extract, "extract", 0x26, 13, 1)                                                               \
  X(Floor, "floor", 0x27, 13, 1)                                                                   \
  X(Fma, "fma", 0x28, 13, 1)                                                                       \
  X(For, "for", 0x29, 13, 1)                                                                       \
  X(FToF, "ftof", 0x2A, 13, 1)                                                                     \
  X(FToI, "ftoi", 0x2B, 13, 1)                                                                     \
  X(GetGlobal, "get_global", 0x2C, 13, 1)                                                          \
  X(GetIndexSpaceShape, "get_index_space_shape", 0x2D, 13, 1)                                      \
  X(GetNumTileBlocks, "get_num_tile_blocks", 0x2E, 13, 1)                                          \
  X(GetTensorShape, "get_tensor_shape", 0x2F, 13, 1)                                               \
  X(GetTileBlockId, "get_tile_block_id", 0x30, 13, 1)                                              \
  X(Global, "global", 0x31, 13, 1)                                                                 \
  X(If, "if", 0x32, 13, 1)                                                                         \
  X(IntToPtr, "int_to_ptr", 0x33, 13, 1)                                                           \
  X(Iota, "iota", 0x3A, 13, 1)                                                                     \
  X(IToF, "itof", 0x3B, 13, 1)                                                                     \
  X(JoinTokens, "join_tokens", 0x3C, 13, 1)                                                        \
  X(LoadPtrTko, "load_ptr_tko", 0x3D, 13, 1)                                                       \
  X(LoadViewTko, "load_view_tko", 0x3E, 13, 1)                                                     \
  X(Log, "log", 0x3F, 13, 1)                                                                       \
  X(Log2, "log2", 0x40, 13, 1)                                                                     \
  X(Loop, "loop", 0x41, 13, 1)                                                                     \
  X(MakePartitionView, "make_partition_view", 0x42, 13, 1)                                         \
  X(MakeTensorView, "make_tensor_view", 0x43, 13, 1)                                               \
  X(MakeToken, "make_token", 0x44, 13, 1)                                                          \
  X(MaxF, "maxf", 0x45, 13, 1)                                                                     \
  X(MaxI, "maxi", 0x46, 13, 1)                                                                     \
  X(MinF, "minf", 0x47, 13, 1)                                                                     \
  X(MinI, "mini", 0x48, 13, 1)                                                                     \
  X(MmaF, "mmaf", 0x49, 13, 1)                                                                     \
  X(MmaI, "mmai", 0x4A, 13, 1)                                                                     \
  X(Module, "module", 0x4B, 13, 1)                                                                 \
  X(MulF, "mulf", 0x4C, 13, 1)                                                                     \
  X(MulhiI, "mulhii", 0x4D, 13, 1)                                                                 \
  X(MulI, "muli", 0x4E, 13, 1)                                                                     \
  X(NegF, "negf", 0x4F, 13, 1)                                                                     \
  X(NegI, "negi", 0x50, 13, 1)                                                                     \
  X(Offset, "offset", 0x51, 13, 1)                                                                 \
  X(OrI, "ori", 0x52, 13, 1)                                                                       \
  X(Permute, "permute", 0x53, 13, 1)                                                               \
  X(Pow, "pow", 0x54, 13, 1)                                                                       \
  X(PrintTko, "print_tko", 0x55, 13, 1)                                                            \
  X(PtrToInt, "ptr_to_int", 0x56, 13, 1)                                                           \
  X(PtrToPtr, "ptr_to_ptr", 0x57, 13, 1)                                                           \
  X(Reduce, "reduce", 0x58, 13, 1)                                                                 \
  X(RemF, "remf", 0x59, 13, 1)                                                                     \
  X(RemI, "remi", 0x5A, 13, 1)                                                                     \
  X(Reshape, "reshape", 0x5B, 13, 1)                                                               \
  X(Return, "return", 0x5C, 13, 1)                                                                 \
  X(Rsqrt, "rsqrt", 0x5D, 13, 1)                                                                   \
  X(Scan, "scan", 0x5E, 13, 1)                                                                     \
  X(Select, "select", 0x5F, 13, 1)                                                                 \
  X(ShlI, "shli", 0x60, 13, 1)                                                                     \
  X(ShrI, "shri", 0x61, 13, 1)                                                                     \
  X(Sin, "sin", 0x62, 13, 1)                                                                       \
  X(SinH, "sinh", 0x63, 13, 1)                                                                     \
  X(Sqrt, "sqrt", 0x64, 13, 1)                                                                     \
  X(StorePtrTko, "store_ptr_tko", 0x65, 13, 1)                                                     \
  X(StoreViewTko, "store_view_tko", 0x66, 13, 1)                                                   \
  X(SubF, "subf", 0x67, 13, 1)                                                                     \
  X(SubI, "subi", 0x68, 13, 1)                                                                     \
  X(Tan, "tan", 0x69, 13, 1)                                                                       \
  X(TanH, "tanh", 0x6A, 13, 1)                                                                     \
  X(TruncI, "trunci", 0x6B, 13, 1)                                                                 \
  X(XorI, "xori", 0x6C, 13, 1)                                                                     \
  X(Yield, "yield", 0x6D, 13, 1)                                                                   \
  X(Atan2, "atan2", 0x6E, 13, 2)                                                                   \
  X(Pack, "pack", 0x6F, 13, 3)                                                                     \
  X(Unpack, "unpack", 0x70, 13, 3)                                                                 \
  X(Alloca, "alloca", 0x71, 13, 3)                                                                 \
  X(MmaFScaled, "mmaf_scaled", 0x72, 13, 3)                                                        \
  X(MakeGatherScatterView, "make_gather_scatter_view", 0x73, 13, 3)                                \
  X(MakeStridedView, "make_strided_view", 0x74, 13, 3)                                             \
  X(AtomicRedViewTko, "atomic_red_view_tko", 0x75, 13, 3)                                          \
  X(Insert, "insert", 0x76, 13, 4)                                                                 \
  X(GdcLaunchDependentsTko, "gdc_launch_dependents_tko", 0x77, 13, 4)                              \
  X(GdcWaitTko, "gdc_wait_tko", 0x78, 13, 4)                                                       \
  X(FPowI, "fpowi", 0x79, 13, 4)                                                                   \
  X(MemoryFenceAliasTko, "memory_fence_alias_tko", 0x7A, 13, 4)

} // namespace tt::tile
