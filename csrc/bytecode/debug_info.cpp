// The Debug section's writer (debug_info.h); reader.cpp decodes it.
#include "bytecode/debug_info.h"

#include <initializer_list>

namespace tt {
namespace bytecode {
namespace {

// An attribute: its tag, then its fields as varints (references, string indices, numbers).
std::vector<uint8_t> record(DebugTag tag, std::initializer_list<uint64_t> fields) {
  std::vector<uint8_t> b;
  appendVarint(b, uint8_t(tag));
  for (uint64_t f : fields)
    appendVarint(b, f);
  return b;
}

std::pair<std::string, std::string> splitPath(const std::string &path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return {path, ""};
  return {path.substr(slash + 1), path.substr(0, slash == 0 ? 1 : slash)};
}

} // namespace

uint32_t DebugInfoBuilder::attr(std::vector<uint8_t> bytes) {
  auto it = attr_index_.find(bytes);
  if (it != attr_index_.end())
    return it->second;
  const uint32_t ref = static_cast<uint32_t>(attrs_.size()) + 1; // 0 is the unknown location
  attr_index_.emplace(bytes, ref);
  attrs_.push_back(std::move(bytes));
  return ref;
}

uint32_t DebugInfoBuilder::file(const std::string &path) {
  const auto [name, dir] = splitPath(path);
  return attr(record(DebugTag::File, {str_(name), str_(dir)}));
}

uint32_t DebugInfoBuilder::loc(uint32_t scope, const SourceLoc &at) {
  return attr(record(DebugTag::Loc, {scope, str_(at.file), at.line, at.col}));
}

uint32_t DebugInfoBuilder::addFunction(const std::string &name, const SourceLoc &fn,
                                       const std::vector<SourceLoc> &ops) {
  if (!fn.known())
    return 0;
  const uint32_t fnFile = file(fn.file);
  const uint32_t unit = attr(record(DebugTag::CompileUnit, {fnFile}));
  // (the linkage name, the second name: tileiras checks it is the function's)
  const uint32_t sub =
      attr(record(DebugTag::Subprogram, {fnFile, fn.line, str_(name), str_(name), unit, fn.line}));

  std::vector<uint64_t> list{loc(sub, fn)};
  for (const SourceLoc &at : ops) {
    if (!at.known()) {
      list.push_back(0);
      continue;
    }
    uint32_t scope = sub;
    if (at.file != fn.file) { // a lexical block of the other file, once per file
      auto key = std::make_pair(sub, at.file);
      auto it = blocks_.find(key);
      if (it == blocks_.end())
        it = blocks_
                 .emplace(key, attr(record(DebugTag::LexicalBlock,
                                           {sub, file(at.file), at.line, at.col})))
                 .first;
      scope = it->second;
    }
    list.push_back(loc(scope, at));
  }
  lists_.push_back(std::move(list));
  return static_cast<uint32_t>(lists_.size());
}

ByteBuffer DebugInfoBuilder::payload() const {
  ByteBuffer p;
  // A count, padding to 4, then where each item starts (in entries or bytes); returns the total.
  auto starts = [&p](const auto &items) {
    p.varint(items.size());
    p.align(4);
    size_t at = 0;
    for (const auto &it : items) {
      p.u32(static_cast<uint32_t>(at));
      at += it.size();
    }
    return at;
  };
  p.varint(starts(lists_));
  p.align(8);
  for (const auto &l : lists_)
    for (uint64_t ref : l)
      p.u64(ref);
  starts(attrs_);
  for (const auto &a : attrs_)
    p.bytes(a);
  return p;
}

} // namespace bytecode
} // namespace tt
