// The CUDA Tile IR enums, declared once: each value's name here, its number (the integer our IR
// stores in the attribute and the bytecode writes, as NVIDIA's BytecodeEnums.h numbers it) and
// its spelling in NVIDIA's textual form. The printer (ops.cpp), the conversion, the executors,
// the bytecode writer and reader, and Python (`_core.tile_enums()`) all read these tables.
//
// Each table is an X-macro list `X(enumerator, number, "spelling")`; TT_TILE_ENUMS lists the
// tables as `E(type, attribute, table)`, the attribute being where our IR keeps the value.
#pragma once

#include <cstdint>

namespace tt::tile {

#define TT_TILE_ROUNDING(X)                                                                        \
  X(kNearestEven, 0, "nearest_even")                                                               \
  X(kZero, 1, "zero")                                                                              \
  X(kNegInf, 2, "negative_inf")                                                                    \
  X(kPosInf, 3, "positive_inf")                                                                    \
  X(kApprox, 4, "approx")                                                                          \
  X(kFull, 5, "full")                                                                              \
  X(kNearestIntToZero, 6, "nearest_int_to_zero")                                                   \
  X(kNearestAway, 7, "nearest_away") /* 13.4 */

#define TT_TILE_OVERFLOW(X)                                                                        \
  X(kNoOverflowFlag, 0, "none")                                                                    \
  X(kNoSignedWrap, 1, "no_signed_wrap")                                                            \
  X(kNoUnsignedWrap, 2, "no_unsigned_wrap")                                                        \
  X(kNoWrap, 3, "no_wrap")

#define TT_TILE_SIGNEDNESS(X)                                                                      \
  X(kUnsigned, 0, "unsigned")                                                                      \
  X(kSigned, 1, "signed")

#define TT_TILE_PREDICATE(X)                                                                       \
  X(kEq, 0, "equal")                                                                               \
  X(kNe, 1, "not_equal")                                                                           \
  X(kLt, 2, "less_than")                                                                           \
  X(kLe, 3, "less_than_or_equal")                                                                  \
  X(kGt, 4, "greater_than")                                                                        \
  X(kGe, 5, "greater_than_or_equal")

#define TT_TILE_COMPARISON_ORDERING(X)                                                             \
  X(kUnordered, 0, "unordered")                                                                    \
  X(kOrdered, 1, "ordered")

#define TT_TILE_ORDERING(X)                                                                        \
  X(kWeak, 0, "weak")                                                                              \
  X(kRelaxed, 1, "relaxed")                                                                        \
  X(kAcquire, 2, "acquire")                                                                        \
  X(kRelease, 3, "release")                                                                        \
  X(kAcqRel, 4, "acq_rel")

#define TT_TILE_SCOPE(X)                                                                           \
  X(kTileBlock, 0, "tl_blk")                                                                       \
  X(kDevice, 1, "device")                                                                          \
  X(kSystem, 2, "sys")

#define TT_TILE_RMW_MODE(X)                                                                        \
  X(kAnd, 0, "and")                                                                                \
  X(kOr, 1, "or")                                                                                  \
  X(kXor, 2, "xor")                                                                                \
  X(kAdd, 3, "add")                                                                                \
  X(kAddF, 4, "addf")                                                                              \
  X(kMax, 5, "max")                                                                                \
  X(kMin, 6, "min")                                                                                \
  X(kUMax, 7, "umax")                                                                              \
  X(kUMin, 8, "umin")                                                                              \
  X(kXchg, 9, "xchg")

#define TT_TILE_ENUMS(E)                                                                           \
  E(Rounding, "rounding", TT_TILE_ROUNDING)                                                        \
  E(Overflow, "overflow", TT_TILE_OVERFLOW)                                                        \
  E(Signedness, "signedness", TT_TILE_SIGNEDNESS)                                                  \
  E(Predicate, "comparison_predicate", TT_TILE_PREDICATE)                                          \
  E(ComparisonOrdering, "comparison_ordering", TT_TILE_COMPARISON_ORDERING)                        \
  E(Ordering, "memory_ordering_semantics", TT_TILE_ORDERING)                                       \
  E(Scope, "memory_scope", TT_TILE_SCOPE)                                                          \
  E(RmwMode, "mode", TT_TILE_RMW_MODE)

#define TT_TILE_ENUMERATOR(name, number, spelling) name = number,
#define TT_TILE_DECLARE_ENUM(type, attr, table) enum type : int { table(TT_TILE_ENUMERATOR) };
TT_TILE_ENUMS(TT_TILE_DECLARE_ENUM)
#undef TT_TILE_DECLARE_ENUM
#undef TT_TILE_ENUMERATOR

// The spelling of value `v` of table `type` (e.g. spelling<Rounding>(0) == "nearest_even"),
// or "?" for a number the table lacks.
template <typename T> const char *spelling(int64_t v);

#define TT_TILE_SPELL_CASE(name, number, text)                                                     \
  case number:                                                                                     \
    return text;
#define TT_TILE_DEFINE_SPELLING(type, attr, table)                                                 \
  template <> inline const char *spelling<type>(int64_t v) {                                       \
    switch (v) { table(TT_TILE_SPELL_CASE) }                                                       \
    return "?";                                                                                    \
  }
TT_TILE_ENUMS(TT_TILE_DEFINE_SPELLING)
#undef TT_TILE_DEFINE_SPELLING
#undef TT_TILE_SPELL_CASE

} // namespace tt::tile
