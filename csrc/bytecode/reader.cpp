// Tile IR bytecode reader (see reader.h).
#include "bytecode/reader.h"

#include <cstdio>
#include <functional>
#include <initializer_list>
#include <set>
#include <sstream>

namespace tt {
namespace bytecode {

namespace {

class Cursor {
public:
  Cursor(const uint8_t *data, size_t size, size_t base, const char *what)
      : data_(data), size_(size), base_(base), what_(what) {}

  [[noreturn]] void fail(const std::string &msg) const {
    char off[32];
    std::snprintf(off, sizeof off, "0x%zx", base_ + pos_);
    throw BytecodeError(std::string("tile bytecode: ") + what_ + " at file offset " + off + ": " +
                        msg);
  }
  bool atEnd() const { return pos_ >= size_; }
  size_t pos() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  size_t absolute() const { return base_ + pos_; }
  const uint8_t *here() const { return data_ + pos_; }

  uint8_t u8() {
    if (pos_ >= size_)
      fail("unexpected end of data");
    return data_[pos_++];
  }
  uint64_t fixed(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= uint64_t(u8()) << (8 * i);
    return v;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (shift > 63)
        fail("varint longer than 64 bits");
      uint8_t b = u8();
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80))
        return v;
    }
  }
  int64_t svarint() {
    uint64_t z = varint();
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  void skip(size_t n) {
    if (n > remaining())
      fail("unexpected end of data");
    pos_ += n;
  }
  /// Skips padding up to a multiple of `alignment` relative to the cursor's start.
  void align(size_t alignment) {
    while (alignment > 1 && pos_ % alignment)
      u8();
  }
  std::vector<uint8_t> slice(size_t from) const {
    return std::vector<uint8_t>(data_ + from, data_ + pos_);
  }

private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
  size_t base_;
  const char *what_;
};

std::string hex(const std::vector<uint8_t> &b) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02X", b[i]);
    if (i)
      s += ' ';
    s += buf;
  }
  return s;
}

const char *scalarName(TypeTag t) {
  switch (t) {
  case TypeTag::I1:
    return "i1";
  case TypeTag::I8:
    return "i8";
  case TypeTag::I16:
    return "i16";
  case TypeTag::I32:
    return "i32";
  case TypeTag::I64:
    return "i64";
  case TypeTag::F16:
    return "f16";
  case TypeTag::BF16:
    return "bf16";
  case TypeTag::F32:
    return "f32";
  case TypeTag::TF32:
    return "tf32";
  case TypeTag::F64:
    return "f64";
  case TypeTag::F8E4M3FN:
    return "f8E4M3FN";
  case TypeTag::F8E5M2:
    return "f8E5M2";
  case TypeTag::Token:
    return "token";
  case TypeTag::F8E8M0FNU:
    return "f8E8M0FNU";
  case TypeTag::F4E2M1FN:
    return "f4E2M1FN";
  case TypeTag::I4:
    return "i4";
  case TypeTag::F8E5M3FNU:
    return "f8E5M3FNU";
  default:
    return nullptr;
  }
}

bool isNarrowFloat(TypeTag t) {
  return t == TypeTag::F8E4M3FN || t == TypeTag::F8E5M2 || t == TypeTag::F8E8M0FNU ||
         t == TypeTag::F4E2M1FN || t == TypeTag::F8E5M3FNU;
}

struct Parser {
  DecodedModule &m;

  void checkType(Cursor &c, uint64_t t) const {
    if (t >= m.types.size())
      c.fail("type index " + std::to_string(t) + " out of range");
  }
  void checkString(Cursor &c, uint64_t s) const {
    if (s >= m.strings.size())
      c.fail("string index " + std::to_string(s) + " out of range");
  }

  // ---- types ----
  DecodedType parseType(Cursor &c, uint32_t self) {
    DecodedType t;
    uint64_t tag = c.varint();
    t.tag = TypeTag(tag);
    auto ref = [&]() {
      uint64_t r = c.varint();
      if (r >= self)
        c.fail("type refers to type " + std::to_string(r) + ", not defined before type " +
               std::to_string(self));
      return uint32_t(r);
    };
    auto i64s = [&](std::vector<int64_t> &out) {
      uint64_t n = c.varint();
      for (uint64_t i = 0; i < n; ++i)
        out.push_back(int64_t(c.fixed(8)));
    };
    auto i32s = [&](std::vector<int32_t> &out) {
      uint64_t n = c.varint();
      for (uint64_t i = 0; i < n; ++i)
        out.push_back(int32_t(c.fixed(4)));
    };
    const bool v134 = m.version >= kV13_4;
    switch (t.tag) {
    case TypeTag::Ptr: {
      uint64_t flags = v134 ? c.varint() : 0;
      t.elem = ref();
      if (flags & 1)
        c.varint(); // ptrAttr
      break;
    }
    case TypeTag::Tile:
      t.elem = ref();
      i64s(t.shape);
      break;
    case TypeTag::TensorView: {
      uint64_t flags = v134 ? c.varint() : 0;
      t.elem = ref();
      i64s(t.shape);
      i64s(t.strides);
      if (flags & 1)
        c.varint();
      break;
    }
    case TypeTag::PartitionView:
      if (m.version >= kV13_3) {
        uint64_t flags = c.varint();
        i32s(t.tile_shape);
        t.tensor_view = ref();
        i32s(t.dim_map);
        t.has_padding = flags & 1;
      } else {
        i32s(t.tile_shape);
        t.tensor_view = ref();
        i32s(t.dim_map);
        t.has_padding = c.u8() != 0;
      }
      if (t.has_padding)
        t.padding = uint32_t(c.varint());
      if (m.types.size() > t.tensor_view && m.types[t.tensor_view].tag != TypeTag::TensorView)
        c.fail("partition_view over a non-tensor_view type");
      break;
    case TypeTag::Func: {
      uint64_t n = c.varint();
      for (uint64_t i = 0; i < n; ++i)
        t.inputs.push_back(ref());
      n = c.varint();
      for (uint64_t i = 0; i < n; ++i)
        t.results.push_back(ref());
      break;
    }
    case TypeTag::GatherScatterView:
    case TypeTag::StridedView:
      c.fail("gather_scatter_view / strided_view types are not decoded yet");
    default:
      if (!scalarName(t.tag))
        c.fail("unknown type tag " + std::to_string(tag));
    }
    return t;
  }

  // ---- attributes ----
  void skipTagged(Cursor &c) {
    uint64_t tag = c.varint();
    switch (AttrTag(tag)) {
    case AttrTag::Integer:
      checkType(c, c.varint());
      c.varint();
      break;
    case AttrTag::Float: {
      uint64_t t = c.varint();
      checkType(c, t);
      if (isNarrowFloat(m.types[t].tag))
        c.u8();
      else
        c.varint();
      break;
    }
    case AttrTag::Bool:
      c.u8();
      break;
    case AttrTag::Type:
      checkType(c, c.varint());
      break;
    case AttrTag::String:
      checkString(c, c.varint());
      break;
    case AttrTag::Array: {
      uint64_t n = c.varint();
      for (uint64_t i = 0; i < n; ++i)
        skipTagged(c);
      break;
    }
    case AttrTag::DenseElements:
      checkType(c, c.varint());
      if (c.varint() >= m.constants.size())
        c.fail("constant index out of range");
      break;
    case AttrTag::DivBy: {
      c.varint();
      uint8_t f = c.u8();
      if (f & 1)
        c.svarint();
      if (f & 2)
        c.svarint();
      break;
    }
    case AttrTag::SameElements:
      c.skip(8 * c.varint());
      break;
    case AttrTag::Dictionary: {
      uint64_t n = c.varint();
      for (uint64_t i = 0; i < n; ++i) {
        checkString(c, c.varint());
        skipTagged(c);
      }
      break;
    }
    case AttrTag::OptimizationHints:
      skipHints(c);
      break;
    case AttrTag::Bounded: {
      uint8_t f = c.u8();
      if (f & 1)
        c.svarint();
      if (f & 2)
        c.svarint();
      break;
    }
    default:
      c.fail("unknown attribute tag " + std::to_string(tag));
    }
  }
  void skipHints(Cursor &c) {
    uint64_t n = c.varint();
    for (uint64_t i = 0; i < n; ++i) {
      checkString(c, c.varint());
      skipTagged(c);
    }
  }

  AttrArg parseAttr(Cursor &c, const AttrSpec &a) {
    size_t start = c.pos();
    switch (a.kind) {
    case AttrKind::Unit:
      return AttrArg::none();
    case AttrKind::Enum:
    case AttrKind::Int:
      return AttrArg::of(c.varint());
    case AttrKind::String: {
      uint64_t s = c.varint();
      checkString(c, s);
      return AttrArg::of(s);
    }
    case AttrKind::Type: {
      uint64_t t = c.varint();
      checkType(c, t);
      return AttrArg::of(t);
    }
    case AttrKind::Const: {
      uint64_t k = c.varint();
      if (k >= m.constants.size())
        c.fail("constant index out of range");
      return AttrArg::of(k);
    }
    case AttrKind::Bool:
      return AttrArg::of(c.u8());
    case AttrKind::I32Array:
      c.skip(4 * c.varint());
      break;
    case AttrKind::BoolArray:
      c.skip(c.varint());
      break;
    case AttrKind::Tagged:
      skipTagged(c);
      break;
    case AttrKind::TaggedArray: {
      uint64_t n = c.varint();
      for (uint64_t i = 0; i < n; ++i)
        skipTagged(c);
      break;
    }
    case AttrKind::Hints:
      skipHints(c);
      break;
    }
    return AttrArg::raw(c.slice(start));
  }

  // ---- ops ----
  uint32_t counter = 0;

  ValueId operand(Cursor &c) {
    uint64_t v = c.varint();
    if (v >= counter)
      c.fail("operand %" + std::to_string(v) + " used before definition (next value %" +
             std::to_string(counter) + ")");
    return ValueId(v);
  }

  DecodedOp parseOp(Cursor &c) {
    DecodedOp op;
    uint64_t code = c.varint();
    const OpSpec *spec = findOpSpec(uint32_t(code));
    if (!spec)
      c.fail("unknown opcode 0x" + std::to_string(code));
    if (m.version < spec->since)
      c.fail(std::string("op '") + spec->name + "' is newer than the file's version");
    op.spec = spec;
    const Version v = m.version;

    size_t nres = 0;
    if (spec->counted_results) {
      nres = c.varint();
    } else {
      nres = size_t(spec->num_results);
      if (nres && v < spec->last_result_since)
        --nres;
    }
    if (spec->counted_results && spec->num_results >= 0) {
      size_t expected = size_t(spec->num_results);
      if (expected && v < spec->last_result_since)
        --expected;
      if (nres != expected)
        c.fail(std::string("op '") + spec->name + "' has " + std::to_string(nres) +
               " results, expected " + std::to_string(expected));
    }
    for (size_t i = 0; i < nres; ++i) {
      uint64_t t = c.varint();
      checkType(c, t);
      op.result_types.push_back(uint32_t(t));
    }

    if (spec->has_flags && v >= spec->flags_since)
      op.flags = c.varint();
    auto bit = [&](int b) { return b >= 0 && ((op.flags >> b) & 1); };

    for (const AttrSpec &a : spec->attrs) {
      if (a.kind == AttrKind::Unit) {
        op.attrs.push_back(AttrArg::flag(bit(a.flag_bit)));
      } else if (a.flag_bit >= 0) {
        op.attrs.push_back(bit(a.flag_bit) ? parseAttr(c, a) : AttrArg::none());
      } else if (v < a.since) {
        op.attrs.push_back(AttrArg::none());
      } else {
        op.attrs.push_back(parseAttr(c, a));
      }
    }

    switch (spec->operand_mode) {
    case OperandMode::Plain:
      for (size_t i = 0; i < spec->operands.size(); ++i)
        op.operands.push_back({operand(c)});
      break;
    case OperandMode::Total: {
      uint64_t n = c.varint();
      std::vector<ValueId> all;
      for (uint64_t i = 0; i < n; ++i)
        all.push_back(operand(c));
      op.operands.push_back(all);
      break;
    }
    case OperandMode::Segmented:
      for (const OperandSpec &o : spec->operands) {
        std::vector<ValueId> g;
        if (o.kind == OperandKind::Single) {
          g.push_back(operand(c));
        } else if (o.kind == OperandKind::Optional) {
          if (bit(o.flag_bit) && v >= o.since)
            g.push_back(operand(c));
        } else {
          uint64_t n = c.varint();
          for (uint64_t i = 0; i < n; ++i)
            g.push_back(operand(c));
        }
        op.operands.push_back(g);
      }
      break;
    }

    if (spec->num_regions) {
      uint64_t nregions = c.varint();
      if (nregions != uint64_t(spec->num_regions))
        c.fail(std::string("op '") + spec->name + "' has a wrong region count");
      uint32_t saved = counter;
      for (uint64_t r = 0; r < nregions; ++r) {
        counter = saved;
        std::vector<DecodedBlock> blocks;
        uint64_t nblocks = c.varint();
        if (nblocks > 1)
          c.fail("region with more than one block");
        for (uint64_t b = 0; b < nblocks; ++b) {
          DecodedBlock blk;
          uint64_t nargs = c.varint();
          for (uint64_t i = 0; i < nargs; ++i) {
            uint64_t t = c.varint();
            checkType(c, t);
            blk.arg_types.push_back(uint32_t(t));
            blk.args.push_back(counter++);
          }
          uint64_t nops = c.varint();
          for (uint64_t i = 0; i < nops; ++i)
            blk.ops.push_back(parseOp(c));
          if (blk.ops.empty() || !blk.ops.back().spec->terminator)
            c.fail(std::string("block in '") + spec->name + "' does not end with a terminator");
          blocks.push_back(std::move(blk));
        }
        op.regions.push_back(std::move(blocks));
      }
      counter = saved;
    }
    for (size_t i = 0; i < op.result_types.size(); ++i)
      op.results.push_back(counter++);
    return op;
  }
};

std::vector<std::vector<uint8_t>> parseTable(Cursor &c, size_t alignment, int offset_width,
                                             bool length_prefixed) {
  std::vector<std::vector<uint8_t>> items;
  uint64_t n = c.varint();
  if (n == 0)
    return items;
  c.align(alignment);
  std::vector<uint64_t> offsets;
  for (uint64_t i = 0; i < n; ++i)
    offsets.push_back(c.fixed(offset_width));
  const uint8_t *blob = c.here();
  size_t blob_size = c.remaining();
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t start = offsets[i];
    uint64_t end = i + 1 < n ? offsets[i + 1] : blob_size;
    if (start > end || end > blob_size)
      c.fail("bad table offsets");
    if (length_prefixed) {
      Cursor e(blob + start, end - start, c.absolute() + start, "constant");
      uint64_t len = e.varint();
      if (len > e.remaining())
        e.fail("constant longer than its slot");
      items.emplace_back(e.here(), e.here() + len);
    } else {
      items.emplace_back(blob + start, blob + end);
    }
  }
  c.skip(blob_size);
  return items;
}

// The Debug section (debug_info.h): each function's list of positions by row (the Func
// section's location field less one), each read from its DILoc.
std::vector<FunctionLocs> decodeDebugSection(Cursor &c, const std::vector<std::string> &strings) {
  const uint64_t lists = c.varint();
  c.align(4);
  std::vector<uint64_t> starts;
  for (uint64_t i = 0; i < lists; ++i)
    starts.push_back(c.fixed(4));
  const uint64_t count = c.varint();
  c.align(8);
  std::vector<uint64_t> refs;
  for (uint64_t i = 0; i < count; ++i)
    refs.push_back(c.fixed(8));
  const uint64_t nattrs = c.varint();
  c.align(4);
  std::vector<uint64_t> offsets;
  for (uint64_t i = 0; i < nattrs; ++i)
    offsets.push_back(c.fixed(4));
  // The attributes run from here to the section's end, each from its offset to the next one's.
  // Each is checked whole: its tag, its fields' kinds (attribute references in range and of a
  // kind that fits, string indices in range) and that it ends where the next begins.
  const uint8_t *section = c.here() - c.pos();
  const size_t total = c.pos() + c.remaining(), base = c.absolute() - c.pos(), data = c.pos();
  std::vector<uint64_t> tags(nattrs);
  std::vector<std::vector<uint64_t>> fields(nattrs);
  for (uint64_t i = 0; i < nattrs; ++i) {
    const size_t at = data + offsets[i];
    const size_t end = i + 1 < nattrs ? data + offsets[i + 1] : total;
    if (at > end || end > total)
      c.fail("debug attribute " + std::to_string(i + 1) + " has a bad extent");
    Cursor a(section + at, end - at, base + at, "debug attribute");
    tags[i] = a.varint();
    static const int kFields[] = {0, 1, 2, 4, 4, 6, 2}; // by DebugTag
    if (tags[i] > uint64_t(DebugTag::CallSite))
      a.fail("unknown debug attribute tag " + std::to_string(tags[i]));
    for (int f = 0; f < kFields[tags[i]]; ++f)
      fields[i].push_back(a.varint());
    if (!a.atEnd())
      a.fail("debug attribute " + std::to_string(i + 1) + " has trailing bytes");
  }
  auto tagOf = [&](uint64_t ref) { return ref && ref <= nattrs ? tags[ref - 1] : ~uint64_t(0); };
  auto stringAt = [&](uint64_t i) -> const std::string & {
    if (i >= strings.size())
      c.fail("debug string index " + std::to_string(i) + " out of range");
    return strings[i];
  };
  for (uint64_t i = 0; i < nattrs; ++i) {
    const auto &f = fields[i];
    auto want = [&](uint64_t ref, std::initializer_list<DebugTag> kinds, const char *what) {
      for (DebugTag k : kinds)
        if (tagOf(ref) == uint64_t(k))
          return;
      c.fail("debug attribute " + std::to_string(i + 1) + ": its " + what + " is not one");
    };
    switch (DebugTag(tags[i])) {
    case DebugTag::CompileUnit:
      want(f[0], {DebugTag::File}, "file");
      break;
    case DebugTag::File:
      stringAt(f[0]), stringAt(f[1]);
      break;
    case DebugTag::LexicalBlock:
      want(f[0], {DebugTag::Subprogram, DebugTag::LexicalBlock}, "scope");
      want(f[1], {DebugTag::File}, "file");
      break;
    case DebugTag::Loc:
      want(f[0], {DebugTag::Subprogram, DebugTag::LexicalBlock}, "scope");
      stringAt(f[1]);
      break;
    case DebugTag::Subprogram:
      want(f[0], {DebugTag::File}, "file");
      stringAt(f[2]), stringAt(f[3]);
      want(f[4], {DebugTag::CompileUnit}, "compile unit");
      break;
    default:
      break;
    }
  }
  // An op's position: its DILoc's file name, line and column (0: unknown).
  auto position = [&](uint64_t ref) {
    if (ref == 0)
      return SourceLoc{};
    if (tagOf(ref) != uint64_t(DebugTag::Loc))
      c.fail("debug reference " + std::to_string(ref) + " is not a DILoc");
    const auto &f = fields[ref - 1];
    return SourceLoc{stringAt(f[1]), static_cast<uint32_t>(f[2]), static_cast<uint32_t>(f[3])};
  };
  std::vector<FunctionLocs> out;
  for (uint64_t i = 0; i < lists; ++i) {
    const uint64_t end = i + 1 < lists ? starts[i + 1] : count;
    if (starts[i] >= end || end > count)
      c.fail("debug list " + std::to_string(i) + " is empty or out of range");
    FunctionLocs f;
    f.fn = position(refs[starts[i]]);
    for (uint64_t k = starts[i] + 1; k < end; ++k)
      f.ops.push_back(position(refs[k]));
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace

DecodedModule readModule(const std::vector<uint8_t> &bytes) {
  DecodedModule m;
  Cursor c(bytes.data(), bytes.size(), 0, "header");
  for (uint8_t b : kMagic)
    if (c.u8() != b)
      c.fail("bad magic");
  m.version.major = c.u8();
  m.version.minor = c.u8();
  c.fixed(2); // tag
  if (m.version < kMinVersion || kMaxVersion < m.version)
    c.fail("unsupported version " + m.version.str());

  struct Section {
    size_t offset;
    const uint8_t *data;
    size_t size;
  };
  std::map<uint8_t, Section> sections;
  bool ended = false;
  while (!c.atEnd()) {
    uint8_t id_byte = c.u8();
    uint8_t id = id_byte & 0x7F;
    if (id == uint8_t(SectionId::End)) {
      if (id_byte != 0)
        c.fail("end marker with the alignment flag");
      if (!c.atEnd())
        c.fail("bytes after the end marker");
      ended = true;
      break;
    }
    if (id > uint8_t(SectionId::Producer))
      c.fail("unknown section id " + std::to_string(id));
    if (sections.count(id))
      c.fail("duplicate section " + std::to_string(id));
    uint64_t len = c.varint();
    uint64_t alignment = 1;
    if (id_byte & kSectionAlignFlag) {
      alignment = c.varint();
      if (alignment == 0 || (alignment & (alignment - 1)))
        c.fail("section alignment is not a power of two");
      while (c.absolute() % alignment)
        c.u8();
    }
    size_t need = (id == uint8_t(SectionId::String) || id == uint8_t(SectionId::Type)) ? 4
                  : (id == uint8_t(SectionId::Constant) || id == uint8_t(SectionId::Debug) ||
                     id == uint8_t(SectionId::Func))
                      ? 8
                      : 1;
    if (need > 1 && (!(id_byte & kSectionAlignFlag) || alignment % need))
      c.fail("section " + std::to_string(id) + " needs alignment " + std::to_string(need));
    if (len > c.remaining())
      c.fail("section longer than the file");
    sections[id] = {c.absolute(), c.here(), size_t(len)};
    m.section_order.push_back(id);
    c.skip(len);
  }
  if (!ended)
    c.fail("missing end marker");
  if (!sections.count(uint8_t(SectionId::String)) || !sections.count(uint8_t(SectionId::Func)))
    c.fail("String and Func sections are mandatory");

  auto cursorFor = [&](SectionId id, const char *what) {
    const Section &s = sections.at(uint8_t(id));
    return Cursor(s.data, s.size, s.offset, what);
  };

  {
    Cursor s = cursorFor(SectionId::String, "string section");
    for (auto &b : parseTable(s, 4, 4, false))
      m.strings.emplace_back(b.begin(), b.end());
  }
  if (sections.count(uint8_t(SectionId::Constant))) {
    Cursor s = cursorFor(SectionId::Constant, "constant section");
    m.constants = parseTable(s, 8, 8, true);
  }
  Parser p{m};
  if (sections.count(uint8_t(SectionId::Type))) {
    Cursor s = cursorFor(SectionId::Type, "type section");
    m.type_bytes = parseTable(s, 4, 4, false);
    for (size_t i = 0; i < m.type_bytes.size(); ++i) {
      const Section &sec = sections.at(uint8_t(SectionId::Type));
      Cursor t(m.type_bytes[i].data(), m.type_bytes[i].size(), sec.offset, "type");
      DecodedType dt = p.parseType(t, uint32_t(i));
      if (!t.atEnd())
        t.fail("type " + std::to_string(i) + " has trailing bytes");
      m.types.push_back(std::move(dt));
    }
  }
  if (sections.count(uint8_t(SectionId::Global)))
    throw BytecodeError("tile bytecode: Global section is not decoded yet");

  Cursor f = cursorFor(SectionId::Func, "function section");
  uint64_t nfuncs = f.varint();
  for (uint64_t i = 0; i < nfuncs; ++i) {
    DecodedFunction fn;
    fn.name = uint32_t(f.varint());
    p.checkString(f, fn.name);
    fn.signature = uint32_t(f.varint());
    p.checkType(f, fn.signature);
    if (m.types[fn.signature].tag != TypeTag::Func)
      f.fail("function signature is not a function type");
    fn.flags = f.u8();
    if (!(fn.flags & kFuncKernel))
      f.fail("non-entry function (tileiras accepts only entries)");
    fn.location = f.varint();
    if ((fn.flags & kFuncHasHints)) {
      size_t start = f.pos();
      if (f.varint() != uint64_t(AttrTag::OptimizationHints))
        f.fail("entry hints must be a tagged OptimizationHints attribute");
      p.skipHints(f);
      fn.hints = f.slice(start);
    }
    uint64_t body_len = f.varint();
    if (body_len > f.remaining())
      f.fail("function body longer than the section");
    const auto &sig = m.types[fn.signature];
    fn.num_args = sig.inputs.size();
    for (uint32_t t : sig.inputs)
      if (m.types[t].tag != TypeTag::Tile || !m.types[t].shape.empty())
        f.fail("entry arguments must be rank-0 tiles");
    if (!sig.results.empty())
      f.fail("entry functions return nothing");
    Cursor body(f.here(), body_len, f.absolute(), "function body");
    p.counter = uint32_t(fn.num_args);
    while (!body.atEnd())
      fn.body.push_back(p.parseOp(body));
    if (fn.body.empty() || fn.body.back().spec->opcode != Op::Return)
      body.fail("function body must end with return");
    f.skip(body_len);
    m.functions.push_back(std::move(fn));
  }
  // The rest of the Func payload is padding.
  std::vector<FunctionLocs> lines;
  if (sections.count(uint8_t(SectionId::Debug))) {
    Cursor d = cursorFor(SectionId::Debug, "debug section");
    lines = decodeDebugSection(d, m.strings);
  }
  for (DecodedFunction &fn : m.functions) {
    if (fn.location == 0)
      continue;
    if (fn.location > lines.size())
      f.fail("function location " + std::to_string(fn.location) + " past the Debug section's " +
             std::to_string(lines.size()) + " lists");
    fn.debug = lines[fn.location - 1];
    size_t ops = 0;
    std::function<void(const DecodedOp &)> count = [&](const DecodedOp &op) {
      ++ops;
      for (const auto &region : op.regions)
        for (const auto &blk : region)
          for (const auto &inner : blk.ops)
            count(inner);
    };
    for (const DecodedOp &op : fn.body)
      count(op);
    if (fn.debug.ops.size() != ops)
      f.fail("the Debug section lists " + std::to_string(fn.debug.ops.size()) +
             " op locations for a function of " + std::to_string(ops) + " ops");
  }
  return m;
}

std::string DecodedModule::typeStr(uint32_t idx) const {
  if (idx >= types.size())
    return "<type#" + std::to_string(idx) + ">";
  const DecodedType &t = types[idx];
  auto dims = [](const std::vector<int64_t> &v) {
    std::string s;
    for (int64_t d : v)
      s += (d == kDynamic ? std::string("?") : std::to_string(d)) + "x";
    return s;
  };
  auto list = [](const auto &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? "," : "") + (int64_t(v[i]) == kDynamic ? std::string("?") : std::to_string(v[i]));
    return s + "]";
  };
  static const char *pads[] = {"zero", "neg_zero", "nan", "pos_inf", "neg_inf"};
  switch (t.tag) {
  case TypeTag::Ptr:
    return "ptr<" + typeStr(t.elem) + ">";
  case TypeTag::Tile:
    return "tile<" + dims(t.shape) + typeStr(t.elem) + ">";
  case TypeTag::TensorView:
    return "tensor_view<" + dims(t.shape) + typeStr(t.elem) + ", strides=" + list(t.strides) + ">";
  case TypeTag::PartitionView:
    return "partition_view<tile=" + list(t.tile_shape) + ", " + typeStr(t.tensor_view) +
           ", dim_map=" + list(t.dim_map) +
           (t.has_padding ? std::string(", padding=") + (t.padding < 5 ? pads[t.padding] : "?")
                          : "") +
           ">";
  case TypeTag::Func: {
    std::string s = "(";
    for (size_t i = 0; i < t.inputs.size(); ++i)
      s += (i ? ", " : "") + typeStr(t.inputs[i]);
    s += ") -> (";
    for (size_t i = 0; i < t.results.size(); ++i)
      s += (i ? ", " : "") + typeStr(t.results[i]);
    return s + ")";
  }
  default:
    return scalarName(t.tag) ? scalarName(t.tag) : "?";
  }
}

std::string DecodedModule::dump() const {
  std::ostringstream os;
  os << "cuda_tile bytecode " << version.str() << "\n";
  std::function<void(const DecodedOp &, int)> op_line = [&](const DecodedOp &op, int indent) {
    std::string pad(indent * 2, ' ');
    os << pad;
    for (size_t i = 0; i < op.results.size(); ++i)
      os << (i ? ", " : "") << "%" << op.results[i];
    if (!op.results.empty())
      os << " = ";
    os << op.spec->name;
    std::string attrs;
    for (size_t i = 0; i < op.spec->attrs.size(); ++i) {
      const AttrSpec &a = op.spec->attrs[i];
      const AttrArg &v = op.attrs[i];
      if (!v.present)
        continue;
      attrs += attrs.empty() ? "" : ", ";
      attrs += a.name;
      if (a.kind == AttrKind::Unit)
        continue;
      attrs += "=";
      if (a.kind == AttrKind::String && v.value < strings.size())
        attrs += "\"" + strings[v.value] + "\"";
      else if (!v.bytes.empty())
        attrs += "<" + hex(v.bytes) + ">";
      else
        attrs += std::to_string(v.value);
    }
    if (!attrs.empty())
      os << " {" << attrs << "}";
    for (size_t g = 0; g < op.operands.size(); ++g) {
      const auto &grp = op.operands[g];
      const bool listy =
          op.spec->operand_mode == OperandMode::Total ||
          (g < op.spec->operands.size() && op.spec->operands[g].kind == OperandKind::Variadic);
      const bool optional =
          g < op.spec->operands.size() && op.spec->operands[g].kind == OperandKind::Optional;
      if (optional && grp.empty())
        continue;
      os << (g ? ", " : " ");
      if (optional)
        os << op.spec->operands[g].name << "=";
      if (listy)
        os << "[";
      for (size_t i = 0; i < grp.size(); ++i)
        os << (i ? ", " : "") << "%" << grp[i];
      if (listy)
        os << "]";
    }
    if (!op.result_types.empty()) {
      os << " :";
      for (size_t i = 0; i < op.result_types.size(); ++i)
        os << (i ? ", " : " ") << typeStr(op.result_types[i]);
    }
    os << "\n";
    for (const auto &region : op.regions) {
      os << pad << "  {\n";
      for (const auto &blk : region) {
        os << pad << "  ^(";
        for (size_t i = 0; i < blk.args.size(); ++i)
          os << (i ? ", " : "") << "%" << blk.args[i] << ": " << typeStr(blk.arg_types[i]);
        os << "):\n";
        for (const auto &inner : blk.ops)
          op_line(inner, indent + 2);
      }
      os << pad << "  }\n";
    }
  };
  for (const DecodedFunction &fn : functions) {
    const DecodedType &sig = types[fn.signature];
    os << "entry @" << strings[fn.name] << "(";
    for (size_t i = 0; i < sig.inputs.size(); ++i)
      os << (i ? ", " : "") << "%" << i << ": " << typeStr(sig.inputs[i]);
    os << ")";
    if (!fn.hints.empty())
      os << " hints=<" << hex(fn.hints) << ">";
    os << "\n";
    for (const DecodedOp &op : fn.body)
      op_line(op, 1);
  }
  return os.str();
}

std::vector<uint8_t> reencode(const DecodedModule &m) {
  ModuleWriter w(m.version);
  for (const std::string &s : m.strings)
    w.str(s);
  for (const auto &t : m.type_bytes)
    w.internType(t);
  for (const auto &k : m.constants)
    w.constant(k);
  if (w.numStrings() != m.strings.size() || w.numTypes() != m.type_bytes.size() ||
      w.numConstants() != m.constants.size())
    throw BytecodeError("tile bytecode: duplicate table entries; cannot re-encode identically");
  const std::vector<SourceLoc> *locs = nullptr; // the function's op positions, in pre-order
  size_t next = 0;
  std::function<void(FunctionWriter &, const DecodedOp &)> replay = [&](FunctionWriter &fw,
                                                                        const DecodedOp &op) {
    if (locs && next < locs->size())
      fw.setLoc((*locs)[next++]);
    if (op.spec->num_regions == 0) {
      fw.emit(*op.spec, op.args());
      return;
    }
    fw.beginRegionOp(*op.spec, op.args());
    for (const auto &region : op.regions) {
      fw.beginRegion(uint32_t(region.size()));
      for (const auto &blk : region) {
        fw.beginBlock(blk.arg_types);
        for (const auto &inner : blk.ops)
          replay(fw, inner);
        fw.endBlock();
      }
      fw.endRegion();
    }
    fw.endRegionOp();
  };
  for (const DecodedFunction &fn : m.functions) {
    FunctionWriter &fw = w.addEntry(m.strings[fn.name], fn.signature, fn.hints);
    fw.setFunctionLoc(fn.debug.fn);
    locs = &fn.debug.ops;
    next = 0;
    for (const DecodedOp &op : fn.body)
      replay(fw, op);
  }
  return w.finish();
}

} // namespace bytecode
} // namespace tt
