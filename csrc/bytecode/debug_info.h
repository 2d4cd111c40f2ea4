// Line info: the Debug section of Tile IR bytecode (id 3), which `tileiras --lineinfo` turns into
// the cubin's line table (ncu's source view, cuda-gdb, compute-sanitizer's reports).
//
// Layout, as NVIDIA/cuda-tile's reader takes it (tileiras 13.4; checked against tileirdisasm -g):
//
//   varint D; pad to 4; u32 x D      the start of each function's list in the index array
//   varint K; pad to 8; u64 x K      the index array: attribute references (0: unknown)
//   varint A; pad to 4; u32 x A      each attribute's offset in the data
//   bytes                            the attributes: a varint tag, then its fields
//
// Padding is relative to the payload, which the section header aligns to 8 in the file. A
// function refers to its list by the varint after its flags in the Func section: 1 + the list's
// row (0: no line info). References to attributes are 1-based (0 is the unknown location);
// string fields are 0-based indices into the String section.
//
// Rules (what tileiras's verifier requires, and what we write):
//  - a function's list is its own location, then one entry per op in pre-order (an op before
//    the ops of its regions; terminators included, block arguments not);
//  - the function's location is a DILoc in its DISubprogram, whose linkage name is the
//    function's name;
//  - every op's location must lead back to that subprogram: an op written in the function's
//    file is a DILoc in the subprogram; one written in another file (a @jit helper of another
//    module, inlined) is a DILoc in a DILexicalBlock of that file under the subprogram, since
//    the line table takes a position's file from its scope, not from the DILoc's file name;
//  - attributes are deduplicated by their bytes;
//  - no function with a known location: no section (one without attributes fails the reader).
// Known limits: an inlined op has the position where it is written, not the call sites it was
// inlined through (no CallSite attributes); columns are the frontend's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "bytecode/byte_buffer.h"

namespace tt {
namespace bytecode {

/// A source position: a file path, 1-based line and column. An empty file or line 0 is unknown.
struct SourceLoc {
  std::string file;
  uint32_t line = 0, col = 0;
  bool known() const { return !file.empty() && line > 0; }
  bool operator<(const SourceLoc &o) const {
    return std::tie(file, line, col) < std::tie(o.file, o.line, o.col);
  }
  bool operator==(const SourceLoc &o) const {
    return file == o.file && line == o.line && col == o.col;
  }
};

/// The attribute tags (NVIDIA/cuda-tile's lib/Bytecode/BytecodeEnums.h, DebugTag).
enum class DebugTag : uint8_t {
  Unknown = 0,
  CompileUnit = 1,  // file
  File = 2,         // name (string), directory (string)
  LexicalBlock = 3, // scope, file, line, column
  Loc = 4,          // scope, file name (string), line, column
  Subprogram = 5,   // file, line, name (string), linkage name (string), compile unit, scope line
  CallSite = 6,     // callee, caller
};

/// Builds the section from each function's positions; `str` interns a string in the module's
/// String section and returns its index.
class DebugInfoBuilder {
public:
  explicit DebugInfoBuilder(std::function<uint32_t(const std::string &)> str)
      : str_(std::move(str)) {}

  /// Adds a function's list: its own position, then each op's in pre-order. Returns the value
  /// for the function's location field (1 + the list's row), or 0 where `fn` is unknown.
  uint32_t addFunction(const std::string &name, const SourceLoc &fn,
                       const std::vector<SourceLoc> &ops);
  bool empty() const { return lists_.empty(); }
  ByteBuffer payload() const;

private:
  uint32_t attr(std::vector<uint8_t> bytes);
  uint32_t file(const std::string &path);
  uint32_t loc(uint32_t scope, const SourceLoc &at);

  std::function<uint32_t(const std::string &)> str_;
  std::vector<std::vector<uint8_t>> attrs_;
  std::map<std::vector<uint8_t>, uint32_t> attr_index_;
  std::map<std::pair<uint32_t, std::string>, uint32_t> blocks_; // (subprogram, file) -> block
  std::vector<std::vector<uint64_t>> lists_;
};

/// The positions a Debug section gives one function: its own and its ops' in pre-order, each
/// read from its DILoc (the file name it names). reader.cpp decodes them.
struct FunctionLocs {
  SourceLoc fn;
  std::vector<SourceLoc> ops;
};

} // namespace bytecode
} // namespace tt
