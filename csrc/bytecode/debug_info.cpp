// The Debug section, written and read (debug_info.h).
#include "bytecode/debug_info.h"

#include "bytecode/writer.h"

namespace tt {
namespace bytecode {
namespace {

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
  std::vector<uint8_t> b;
  appendVarint(b, uint8_t(DebugTag::File));
  appendVarint(b, str_(name));
  appendVarint(b, str_(dir));
  return attr(std::move(b));
}

uint32_t DebugInfoBuilder::loc(uint32_t scope, const SourceLoc &at) {
  std::vector<uint8_t> b;
  appendVarint(b, uint8_t(DebugTag::Loc));
  appendVarint(b, scope);
  appendVarint(b, str_(at.file));
  appendVarint(b, at.line);
  appendVarint(b, at.col);
  return attr(std::move(b));
}

uint32_t DebugInfoBuilder::addFunction(const std::string &name, const SourceLoc &fn,
                                       const std::vector<SourceLoc> &ops) {
  if (!fn.known())
    return 0;
  const uint32_t fnFile = file(fn.file);
  std::vector<uint8_t> b;
  appendVarint(b, uint8_t(DebugTag::CompileUnit));
  appendVarint(b, fnFile);
  const uint32_t unit = attr(std::move(b));
  b.clear();
  appendVarint(b, uint8_t(DebugTag::Subprogram));
  appendVarint(b, fnFile);
  appendVarint(b, fn.line);
  appendVarint(b, str_(name));
  appendVarint(b, str_(name)); // the linkage name: tileiras checks it is the function's
  appendVarint(b, unit);
  appendVarint(b, fn.line);
  const uint32_t sub = attr(std::move(b));

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
      if (it == blocks_.end()) {
        std::vector<uint8_t> blk;
        appendVarint(blk, uint8_t(DebugTag::LexicalBlock));
        appendVarint(blk, sub);
        appendVarint(blk, file(at.file));
        appendVarint(blk, at.line);
        appendVarint(blk, at.col);
        it = blocks_.emplace(key, attr(std::move(blk))).first;
      }
      scope = it->second;
    }
    list.push_back(loc(scope, at));
  }
  lists_.push_back(std::move(list));
  return static_cast<uint32_t>(lists_.size());
}

ByteBuffer DebugInfoBuilder::payload() const {
  ByteBuffer p;
  p.varint(lists_.size());
  p.align(4);
  size_t start = 0;
  for (const auto &l : lists_) {
    p.u32(static_cast<uint32_t>(start));
    start += l.size();
  }
  p.varint(start);
  p.align(8);
  for (const auto &l : lists_)
    for (uint64_t ref : l)
      p.u64(ref);
  p.varint(attrs_.size());
  p.align(4);
  size_t offset = 0;
  for (const auto &a : attrs_) {
    p.u32(static_cast<uint32_t>(offset));
    offset += a.size();
  }
  for (const auto &a : attrs_)
    p.bytes(a);
  return p;
}

namespace {

// A bounds-checked reader of the section's payload.
class Reader {
public:
  Reader(const uint8_t *data, size_t size, size_t base) : d_(data), n_(size), base_(base) {}
  [[noreturn]] void fail(const std::string &msg) const {
    throw BytecodeError("tile bytecode: debug section at file offset " +
                        std::to_string(base_ + pos_) + ": " + msg);
  }
  uint8_t u8() {
    if (pos_ >= n_)
      fail("unexpected end of data");
    return d_[pos_++];
  }
  uint64_t fixed(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v |= uint64_t(u8()) << (8 * i);
    return v;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (shift > 63)
        fail("varint longer than 64 bits");
      const uint8_t b = u8();
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80))
        return v;
    }
  }
  void align(size_t a) {
    while (pos_ % a)
      u8();
  }
  size_t pos() const { return pos_; }
  size_t size() const { return n_; }

private:
  const uint8_t *d_;
  size_t n_, base_, pos_ = 0;
};

} // namespace

std::vector<FunctionLocs> decodeDebugSection(const uint8_t *data, size_t size, size_t base,
                                             const std::vector<std::string> &strings) {
  Reader r(data, size, base);
  const uint64_t lists = r.varint();
  r.align(4);
  std::vector<uint64_t> starts;
  for (uint64_t i = 0; i < lists; ++i)
    starts.push_back(r.fixed(4));
  const uint64_t count = r.varint();
  r.align(8);
  std::vector<uint64_t> refs;
  for (uint64_t i = 0; i < count; ++i)
    refs.push_back(r.fixed(8));
  const uint64_t nattrs = r.varint();
  r.align(4);
  std::vector<uint64_t> offsets;
  for (uint64_t i = 0; i < nattrs; ++i)
    offsets.push_back(r.fixed(4));
  const size_t dataStart = r.pos();

  auto string = [&](uint64_t i) -> const std::string & {
    if (i >= strings.size())
      r.fail("string index " + std::to_string(i) + " out of range");
    return strings[i];
  };
  // The position a reference names: a DILoc's file name, line and column (0: unknown).
  auto position = [&](uint64_t ref) {
    if (ref == 0)
      return SourceLoc{};
    if (ref > nattrs)
      r.fail("attribute reference " + std::to_string(ref) + " out of range");
    const size_t at = dataStart + offsets[ref - 1];
    if (at >= size)
      r.fail("attribute offset out of range");
    Reader a(data + at, size - at, base + at);
    if (a.varint() != uint64_t(DebugTag::Loc))
      r.fail("an op's location must be a DILoc");
    a.varint(); // scope
    SourceLoc loc;
    loc.file = string(a.varint());
    loc.line = static_cast<uint32_t>(a.varint());
    loc.col = static_cast<uint32_t>(a.varint());
    return loc;
  };
  std::vector<FunctionLocs> out;
  for (uint64_t i = 0; i < lists; ++i) {
    const uint64_t end = i + 1 < lists ? starts[i + 1] : count;
    if (starts[i] >= end || end > count)
      r.fail("function list " + std::to_string(i) + " is empty or out of range");
    FunctionLocs f;
    f.fn = position(refs[starts[i]]);
    for (uint64_t k = starts[i] + 1; k < end; ++k)
      f.ops.push_back(position(refs[k]));
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace bytecode
} // namespace tt
