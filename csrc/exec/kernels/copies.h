// Parallel register copies: the values a structured op hands to its successor registers (loop
// iteration arguments, if/loop results), shared by the TTIR and Tile IR control flow.
//
// Rules:
//  - a copy group runs as one parallel copy: through temporaries when a source overlaps another
//    copy's destination (e.g. `yield %b, %a`);
//  - a broadcast source (a splat) fills its destination;
//  - a compact pointer tile (TTIR, compact_ptr.cpp) copies its row addresses, limits and
//    exception lanes only;
//  - values without storage (Tile IR tokens outside the checker) are not copied;
//  - a copy into a forwarded load's register (an if result, forward.cpp) points its
//    Frame::fwdSlot at the register.
#pragma once

#include <cstring>
#include <vector>

#include "exec/compiler/compiler.h"
#include "exec/runtime/copy.h"

namespace tt::exec {

struct CopyOp {
  Ref src;
  uint32_t dst;
  int64_t n;
  int es;
  int64_t rows = 0, rowLen = 0; // a compact pointer tile (compact_ptr.cpp), else 0
  bool fwd = false;             // dst is a forwarded load's register
};

struct ParallelCopy {
  std::vector<CopyOp> copies;
  std::vector<uint32_t> temps; // empty: copy directly

  bool empty() const { return copies.empty(); }
};

// Builds the copies srcs[i] -> dsts[i] (control_flow.cpp).
ParallelCopy makeCopies(Compiler &c, const std::vector<Value *> &srcs,
                        const std::vector<const Value *> &dsts);

// The usual destinations of those copies: a block's arguments from `from` on, an op's results.
inline std::vector<const Value *> blockArgs(const Block &b, size_t from) {
  std::vector<const Value *> v;
  for (size_t i = from; i < b.numArgs(); ++i)
    v.push_back(b.arg(i));
  return v;
}

inline std::vector<const Value *> resultsOf(const Operation &op) {
  std::vector<const Value *> v;
  for (size_t i = 0; i < op.numResults(); ++i)
    v.push_back(op.result(i));
  return v;
}

// Copies a compact pointer tile: row addresses and limits, then only the exception lanes.
inline void copyCompact(Frame &F, uint32_t src, uint32_t dst, int64_t R, int64_t L) {
  if (src == dst)
    return;
  const uint64_t *s = F.at<uint64_t>(src);
  uint64_t *d = F.at<uint64_t>(dst);
  copyBytes(d, s, static_cast<size_t>(2 * R) * 8);
  const int64_t *lim = reinterpret_cast<const int64_t *>(s + R);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t j = lim[r]; j < L; ++j)
      d[2 * R + r * L + j] = s[2 * R + r * L + j];
}

template <class T> inline void fillTyped(char *dst, const char *src, int64_t n) {
  const T v = loadAs<T>(src);
  T *__restrict o = reinterpret_cast<T *>(dst); // registers are aligned to their element size
  for (int64_t i = 0; i < n; ++i)
    o[i] = v;
}

inline void copyOne(Frame &F, Ref src, uint32_t dst, int64_t n, int es) {
  if (src.bcast) {
    char *o = F.R + dst;
    const char *s = F.R + src.off;
    switch (es) {
    case 1:
      std::memset(o, *s, static_cast<size_t>(n));
      break;
    case 2:
      fillTyped<uint16_t>(o, s, n);
      break;
    case 4:
      fillTyped<uint32_t>(o, s, n);
      break;
    default:
      fillTyped<uint64_t>(o, s, n);
      break;
    }
  } else if (src.off != dst) {
    copyBytes(F.R + dst, F.R + src.off, static_cast<size_t>(n) * es);
  }
}

inline void copyAny(Frame &F, const CopyOp &c, Ref src, uint32_t dst) {
  if (c.rows)
    copyCompact(F, src.off, dst, c.rows, c.rowLen);
  else
    copyOne(F, src, dst, c.n, c.es);
}

inline void copyToDst(Frame &F, const CopyOp &c, Ref src) {
  copyAny(F, c, src, c.dst);
  if (c.fwd)
    F.fwdSlot(c.dst) = F.R + c.dst;
}

inline void runCopies(const ParallelCopy &pc, Frame &F) {
  if (pc.temps.empty()) {
    for (const CopyOp &c : pc.copies)
      copyToDst(F, c, c.src);
    return;
  }
  for (size_t i = 0; i < pc.copies.size(); ++i)
    copyAny(F, pc.copies[i], pc.copies[i].src, pc.temps[i]);
  for (size_t i = 0; i < pc.copies.size(); ++i)
    copyToDst(F, pc.copies[i], Ref{pc.temps[i], false});
}

} // namespace tt::exec
