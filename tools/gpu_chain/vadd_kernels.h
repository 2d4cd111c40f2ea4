// Hand-built Tile IR vector-add kernels for the GPU-chain proof (docs/gpu_chain.md).
//
//   entry @vadd(a: tile<ptr<f32>>, b: tile<ptr<f32>>, c: tile<ptr<f32>>, n: tile<i32>)
//
// Tile block `pid` adds elements [pid*T, pid*T + T) with T = `tile` (1024 by default), two ways:
//   view: tensor_view<?xf32, strides=[1]> (dynamic shape n) + partition_view (tile T, padding
//         zero); load_view_tko x2, addf, store_view_tko. Out-of-bounds lanes are masked by the
//         view itself.
//   ptr:  iota + pid*T -> offsets; mask = offsets < n; offset() on broadcast base pointers;
//         load_ptr_tko x2 (masked), addf, store_ptr_tko (masked).
// Loads of a and b and the store to c touch different arrays, so no token chains them.
#pragma once

#include "bytecode/writer.h"

#include <cstdint>
#include <vector>

namespace tt {
namespace bytecode {
namespace gpu_chain {

inline std::vector<uint8_t> buildVaddView(Version v = kDefaultVersion, int64_t tile = 1024,
                                          bool assume_aligned = true) {
  ModuleWriter m(v);
  const uint32_t f32 = m.f32();
  const uint32_t ptr_f32 = m.tileType({}, m.ptrType(f32));
  const uint32_t i32 = m.tileType({}, m.i32());
  const uint32_t sig = m.funcType({ptr_f32, ptr_f32, ptr_f32, i32}, {});
  const uint32_t tv = m.tensorViewType(f32, {kDynamic}, {1});
  const uint32_t pv = m.partitionViewType({int32_t(tile)}, tv, {0}, tt::Padding::Zero);
  const uint32_t tile_f32 = m.tileType({tile}, f32);
  const uint32_t token = m.tokenType();

  FunctionWriter &fn = m.addEntry("vadd", sig);
  ValueId a = fn.arg(0), b = fn.arg(1), c = fn.arg(2), n = fn.arg(3);
  if (assume_aligned) { // torch/cupy allocations are 256-byte aligned; 16 enables vector access
    a = fn.assumeDivBy(ptr_f32, a, 16);
    b = fn.assumeDivBy(ptr_f32, b, 16);
    c = fn.assumeDivBy(ptr_f32, c, 16);
  }
  const ValueId pid = fn.getTileBlockId(i32)[0];
  const ValueId va = fn.makePartitionView(pv, fn.makeTensorView(tv, a, {n}, {}));
  const ValueId vb = fn.makePartitionView(pv, fn.makeTensorView(tv, b, {n}, {}));
  const ValueId vc = fn.makePartitionView(pv, fn.makeTensorView(tv, c, {n}, {}));
  const ValueId x = fn.loadViewTko(tile_f32, token, va, {pid}).first;
  const ValueId y = fn.loadViewTko(tile_f32, token, vb, {pid}).first;
  const ValueId z = fn.addf(tile_f32, x, y);
  fn.storeViewTko(token, z, vc, {pid});
  fn.ret();
  return m.finish();
}

inline std::vector<uint8_t> buildVaddPtr(Version v = kDefaultVersion, int64_t tile = 1024,
                                         bool assume_aligned = true) {
  ModuleWriter m(v);
  const uint32_t f32 = m.f32();
  const uint32_t pf32 = m.ptrType(f32);
  const uint32_t ptr_f32 = m.tileType({}, pf32);
  const uint32_t i32s = m.i32();
  const uint32_t i32 = m.tileType({}, i32s);
  const uint32_t sig = m.funcType({ptr_f32, ptr_f32, ptr_f32, i32}, {});
  const uint32_t one_i32 = m.tileType({1}, i32s);
  const uint32_t vec_i32 = m.tileType({tile}, i32s);
  const uint32_t vec_i1 = m.tileType({tile}, m.i1());
  const uint32_t one_ptr = m.tileType({1}, pf32);
  const uint32_t vec_ptr = m.tileType({tile}, pf32);
  const uint32_t tile_f32 = m.tileType({tile}, f32);
  const uint32_t token = m.tokenType();
  const uint32_t k_tile = m.constant(scalarBytes(uint64_t(tile), 4));

  FunctionWriter &fn = m.addEntry("vadd", sig);
  ValueId a = fn.arg(0), b = fn.arg(1), c = fn.arg(2), n = fn.arg(3);
  if (assume_aligned) {
    a = fn.assumeDivBy(ptr_f32, a, 16);
    b = fn.assumeDivBy(ptr_f32, b, 16);
    c = fn.assumeDivBy(ptr_f32, c, 16);
  }
  const ValueId pid = fn.getTileBlockId(i32)[0];
  const ValueId start = fn.muli(i32, pid, fn.constant(i32, k_tile));
  auto splat = [&](ValueId s, uint32_t one_t, uint32_t vec_t) {
    return fn.unary(Op::Broadcast, vec_t, fn.unary(Op::Reshape, one_t, s));
  };
  const ValueId offs = fn.addi(vec_i32, fn.iota(vec_i32), splat(start, one_i32, vec_i32));
  const ValueId mask =
      fn.cmpi(vec_i1, tt::tile::kLt, tt::tile::kSigned, offs, splat(n, one_i32, vec_i32));
  auto ptrs = [&](ValueId base) {
    return fn.binary(Op::Offset, vec_ptr, splat(base, one_ptr, vec_ptr), offs);
  };
  const ValueId x = fn.loadPtrTko(tile_f32, token, ptrs(a), mask).first;
  const ValueId y = fn.loadPtrTko(tile_f32, token, ptrs(b), mask).first;
  const ValueId z = fn.addf(tile_f32, x, y);
  fn.storePtrTko(token, ptrs(c), z, mask);
  fn.ret();
  return m.finish();
}

} // namespace gpu_chain
} // namespace bytecode
} // namespace tt
