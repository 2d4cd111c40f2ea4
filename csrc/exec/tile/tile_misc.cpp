// Tile IR block ids, debugging ops and tokens: get_tile_block_id, get_num_tile_blocks, print,
// assert, make_token, join_tokens.
//
// Rules:
//  - get_tile_block_id / get_num_tile_blocks have three i32 results (x, y, z);
//  - print formats its printf-style `format` with its operands, on stdout, under a lock: when
//    an operand is a tile, the format is applied once per element (row-major), each tile
//    operand giving that element and scalars repeating; conversions d/i (signed), u/o/x/X
//    (unsigned, the operand's width), c, f/F/e/E/g/G/a/A (as double) and p take flags, width
//    and precision, length modifiers are ignored (the operand's type decides); `%%` is a %;
//  - assert raises AssertionError at the first false element (AssertionError in Python);
//  - tokens carry nothing on the CPU (program order already orders one program's accesses);
//    with the checker they carry token sets (tile_check.h).
#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <mutex>

#include "exec/kernels/shared_emit.h"
#include "exec/tile/tile_check.h"
#include "exec/tileir/tile_ops.h"

namespace tt::exec {
namespace {

struct PrintAux : Aux {
  struct Piece {
    std::string text; // literal text, or a conversion spec without length modifier
    char conv = 0;    // 0: literal
    int arg = -1;     // the operand it formats
  };
  std::vector<Piece> pieces;
  struct Arg {
    Ref ref;
    DType dt;
    int64_t numel;
  };
  std::vector<Arg> args;
  int64_t rows = 1; // how many times the format is applied
};

std::mutex &printLock() {
  static std::mutex m;
  return m;
}

double asDouble(const char *src, DType dt) {
  switch (dt) {
  case DType::F64:
    return loadAs<double>(src);
  case DType::F32:
    return loadAs<float>(src);
  case DType::F16:
    return f16ToF32(loadAs<uint16_t>(src));
  case DType::BF16:
    return bf16ToF32(loadAs<uint16_t>(src));
  case DType::F8E4M3:
    return fp8e4m3ToF32(loadAs<uint8_t>(src));
  case DType::F8E5M2:
    return fp8e5m2ToF32(loadAs<uint8_t>(src));
  default:
    return static_cast<double>(readIntSext(src, dt, dt == DType::I1));
  }
}

void formatOne(std::string &out, const PrintAux::Piece &p, const PrintAux::Arg &a, int64_t i,
               const Frame &F) {
  const int es = dtypeSize(a.dt);
  const char *src = F.R + a.ref.off + (a.ref.bcast || a.numel == 1 ? 0 : i * es);
  const std::string base = p.text.substr(0, p.text.size() - 1); // flags, width, precision
  char buf[160];
  switch (p.conv) {
  case 'd':
  case 'i':
  case 'c': {
    int64_t v = isFloatDType(a.dt) ? static_cast<int64_t>(asDouble(src, a.dt))
                                   : readIntSext(src, a.dt, a.dt == DType::I1);
    if (p.conv == 'c')
      std::snprintf(buf, sizeof buf, p.text.c_str(), static_cast<int>(v));
    else
      std::snprintf(buf, sizeof buf, (base + PRId64).c_str(), v);
    break;
  }
  case 'u':
  case 'o':
  case 'x':
  case 'X':
  case 'p': {
    uint64_t v = isFloatDType(a.dt) ? static_cast<uint64_t>(asDouble(src, a.dt))
                                    : static_cast<uint64_t>(readIntSext(src, a.dt, true));
    const char *len = p.conv == 'u'   ? PRIu64
                      : p.conv == 'o' ? PRIo64
                      : p.conv == 'X' ? PRIX64
                                      : PRIx64;
    std::snprintf(buf, sizeof buf, ((p.conv == 'p' ? "0x" : "") + base + len).c_str(), v);
    break;
  }
  default: // floats
    std::snprintf(buf, sizeof buf, p.text.c_str(), asDouble(src, a.dt));
  }
  out += buf;
}

void printK(const Inst &I, Frame &F) {
  const PrintAux &a = *static_cast<const PrintAux *>(I.aux);
  std::string out;
  for (int64_t i = 0; i < a.rows; ++i)
    for (const PrintAux::Piece &p : a.pieces) {
      if (!p.conv)
        out += p.text;
      else if (p.arg < 0)
        out += p.text; // a conversion without an operand prints as written
      else
        formatOne(out, p, a.args[p.arg], i, F);
    }
  std::lock_guard<std::mutex> lk(printLock());
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// Splits a printf format into literal text and conversion specs.
void parseFormat(PrintAux &a, const std::string &fmt) {
  std::string lit;
  int next = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      lit += fmt[i];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      lit += '%';
      ++i;
      continue;
    }
    size_t j = i + 1;
    std::string spec = "%";
    while (j < fmt.size() && std::string("-+ #0").find(fmt[j]) != std::string::npos)
      spec += fmt[j++];
    while (j < fmt.size() && (std::isdigit(static_cast<unsigned char>(fmt[j])) || fmt[j] == '.'))
      spec += fmt[j++];
    while (j < fmt.size() && std::string("hljztL").find(fmt[j]) != std::string::npos)
      ++j; // the operand's type decides the length
    if (j >= fmt.size() || std::string("diucoxXpfFeEgGaA").find(fmt[j]) == std::string::npos) {
      lit += fmt.substr(i, j - i + (j < fmt.size() ? 1 : 0));
      i = j;
      continue;
    }
    if (!lit.empty())
      a.pieces.push_back({lit, 0, -1});
    lit.clear();
    spec += fmt[j];
    int arg = next < static_cast<int>(a.args.size()) ? next : -1;
    ++next;
    a.pieces.push_back({spec, fmt[j], arg});
    i = j;
  }
  if (!lit.empty())
    a.pieces.push_back({lit, 0, -1});
}

void emitPrint(Compiler &c, const Operation &op) {
  auto *a = c.makeAux<PrintAux>();
  size_t nargs = op.numOperands();
  const Attribute &seg = op.attr("operandSegmentSizes");
  if (seg.kind() == Attribute::Kind::I32Array && !seg.getInts().empty())
    nargs = static_cast<size_t>(seg.getInts()[0]);
  for (size_t k = 0; k < nargs; ++k) {
    const Value *v = op.operand(k);
    a->args.push_back({c.ref(v, true), c.dtype(v), c.numel(v)});
    a->rows = std::max(a->rows, c.numel(v));
  }
  const Attribute &f = op.attr("format");
  parseFormat(*a, f.kind() == Attribute::Kind::String ? f.getString() : "");
  if (c.checking() && op.numResults() == 1 && op.result(0)->type.isToken()) {
    std::vector<const Value *> in;
    for (size_t k = nargs; k < op.numOperands(); ++k)
      in.push_back(op.operand(k));
    emitCheckJoin(c, op, in, op.result(0));
  }
  c.emit(printK, op).aux = a;
}

} // namespace

bool emitTileMisc(Compiler &c, const Operation &op) {
  std::string n = tileOpName(op);
  if (n == "get_tile_block_id" || n == "get_num_tile_blocks") {
    for (size_t axis = 0; axis < op.numResults() && axis < 3; ++axis) {
      if (c.usersOf(op.result(axis)).empty())
        continue;
      Inst &I = c.emit(n == "get_tile_block_id" ? programIdKernel() : numProgramsKernel(), op);
      I.out = c.out(op.result(axis));
      I.imm = static_cast<int64_t>(axis);
      I.n = 1;
    }
    return true;
  }
  if (n == "print") {
    emitPrint(c, op);
    return true;
  }
  if (n == "assert") {
    const Attribute &m = op.attr("message");
    emitAssertAs(c, op, op.operand(0), m.kind() == Attribute::Kind::String ? m.getString() : "");
    return true;
  }
  if (n == "make_token" || n == "join_tokens") {
    if (c.checking()) {
      std::vector<const Value *> in(op.operands.begin(), op.operands.end());
      emitCheckJoin(c, op, in, op.result(0));
    }
    return true;
  }
  return false;
}

} // namespace tt::exec
