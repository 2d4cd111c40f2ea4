// Program ids, debugging ops and hints: tt.get_program_id, tt.get_num_programs, tt.print,
// tt.assert, llvm.intr.assume, gpu.barrier, arith.constant.
//
// Rules:
//  - tt.print writes one line per element to the process's stdout, as Triton does:
//    `pid (x, y, z) idx (i, j)<prefix>[(operand k) ]<value>`, indices padded to the width of
//    their dimension; the lines of one print op are written under a lock and flushed;
//  - tt.assert throws DeviceAssertError at the first false element (lane index and program id
//    in the message);
//  - llvm.intr.assume (tl.assume) has no effect here: the assert-contracts pass put a tt.assert
//    of its condition before it (a GPU compile relies on it);
//  - gpu.barrier has no effect (one CPU program runs its tile as a whole, so a barrier within a
//    program is already satisfied); constants live in the arena's constant prefix
//    (compiler.cpp).
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "exec/kernels/shared_emit.h"

namespace tt::exec {
namespace {

void programIdK(const Inst &I, Frame &F) { *F.at<int32_t>(I.out) = F.pid[I.imm]; }
void numProgramsK(const Inst &I, Frame &F) { *F.at<int32_t>(I.out) = F.launch->grid[I.imm]; }

struct PrintAux : Aux {
  std::string prefix;
  bool hex = false;
  struct Arg {
    Ref ref;
    DType dt;
    bool isSigned;
    std::vector<int64_t> shape;
    int64_t numel;
  };
  std::vector<Arg> args;
};

std::string formatValue(const char *p, DType dt, bool isSigned, bool hex) {
  char buf[64];
  int es = dtypeSize(dt);
  if (hex) {
    uint64_t bits = 0;
    std::memcpy(&bits, p, static_cast<size_t>(es));
    std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, es * 2, bits);
    return buf;
  }
  switch (dt) {
  case DType::Ptr:
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, loadAs<uint64_t>(p));
    break;
  case DType::F16:
    std::snprintf(buf, sizeof buf, "%f", double(f16ToF32(loadAs<uint16_t>(p))));
    break;
  case DType::BF16:
    std::snprintf(buf, sizeof buf, "%f", double(bf16ToF32(loadAs<uint16_t>(p))));
    break;
  case DType::F32:
    std::snprintf(buf, sizeof buf, "%f", double(loadAs<float>(p)));
    break;
  case DType::F64:
    std::snprintf(buf, sizeof buf, "%f", loadAs<double>(p));
    break;
  case DType::F8E4M3:
    std::snprintf(buf, sizeof buf, "%f", double(fp8e4m3ToF32(loadAs<uint8_t>(p))));
    break;
  case DType::F8E5M2:
    std::snprintf(buf, sizeof buf, "%f", double(fp8e5m2ToF32(loadAs<uint8_t>(p))));
    break;
  default:
    if (isSigned)
      std::snprintf(buf, sizeof buf, "%" PRId64, readIntSext(p, dt, false));
    else
      std::snprintf(buf, sizeof buf, "%" PRIu64, static_cast<uint64_t>(readIntSext(p, dt, true)));
    break;
  }
  return buf;
}

int digits(int64_t dim) {
  int w = 0;
  for (int64_t v = dim - 1; v > 0; v /= 10)
    ++w;
  return w;
}

std::mutex &printMutex() {
  static std::mutex m;
  return m;
}

void printK(const Inst &I, Frame &F) {
  const PrintAux &a = *static_cast<const PrintAux *>(I.aux);
  std::string out;
  char head[96];
  std::snprintf(head, sizeof head, "pid (%d, %d, %d)", F.pid[0], F.pid[1], F.pid[2]);
  if (a.args.empty()) {
    out = std::string(head) + a.prefix + "\n";
  } else {
    for (size_t k = 0; k < a.args.size(); ++k) {
      const PrintAux::Arg &arg = a.args[k];
      int es = dtypeSize(arg.dt);
      std::vector<int64_t> idx(arg.shape.size(), 0);
      for (int64_t i = 0; i < arg.numel; ++i) {
        out += head;
        out += " idx (";
        for (size_t d = 0; d < idx.size(); ++d) {
          char b[32];
          std::snprintf(b, sizeof b, "%*" PRId64, digits(arg.shape[d]), idx[d]);
          out += (d ? ", " : "") + std::string(b);
        }
        out += ")" + a.prefix;
        if (a.args.size() > 1)
          out += "(operand " + std::to_string(k) + ") ";
        const char *p = F.R + arg.ref.off + (arg.ref.bcast ? 0 : i * es);
        out += formatValue(p, arg.dt, arg.isSigned, a.hex) + "\n";
        for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
          if (++idx[d] < arg.shape[d])
            break;
          idx[d] = 0;
        }
      }
    }
  }
  std::lock_guard<std::mutex> lk(printMutex());
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// "program (x, y, z)": where a failed check ran, for its message.
std::string programText(const Frame &F) {
  return "program (" + std::to_string(F.pid[0]) + ", " + std::to_string(F.pid[1]) + ", " +
         std::to_string(F.pid[2]) + ")";
}

struct AssertAux : Aux {
  std::string message;
};

void assertK(const Inst &I, Frame &F) {
  const uint8_t *c = F.at<uint8_t>(I.in[0].off);
  int64_t n = I.in[0].bcast ? 1 : I.n;
  for (int64_t i = 0; i < n; ++i) {
    if (c[i])
      continue;
    const AssertAux &a = *static_cast<const AssertAux *>(I.aux);
    throw DeviceAssertError(I.site->loc + ": device assertion failed: " + a.message + " (lane " +
                            std::to_string(i + F.laneBase) + ", " + programText(F) + ")");
  }
}

struct DivisibilityAux : Aux {
  int64_t div = 1;
  DType type = DType::I64;
};

void divisibilityK(const Inst &I, Frame &F) {
  const DivisibilityAux &a = *static_cast<const DivisibilityAux *>(I.aux);
  const int64_t v = readIntSext(F.R + I.in[0].off, a.type);
  if (v % a.div == 0)
    return;
  const bool ptr = a.type == DType::Ptr;
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(v));
  throw DeviceAssertError(
      I.site->loc + ": the kernel assumes " + (ptr ? "this address" : "this integer") +
      " is a multiple of " + std::to_string(a.div) + (ptr ? " bytes" : "") + ", but it is " +
      (ptr ? std::string(hex) : std::to_string(v)) +
      " (tl.multiple_of states it, or a tensor descriptor's rule that its base and strides are "
      "16-byte multiples); a GPU compile relies on it (" +
      programText(F) + ")");
}

} // namespace

void emitDivisibilityCheck(Compiler &c, const Operation &op, const Value *v, int64_t div) {
  div &= -div; // what a GPU compile uses: the largest power of two dividing it
  const DType t = c.dtype(v);
  if (div <= 1 || c.numel(v) != 1 || !(isIntDType(t) || t == DType::Ptr) || t == DType::I1)
    return;
  auto *a = c.makeAux<DivisibilityAux>();
  a->div = div;
  a->type = t;
  Inst &I = c.emit(divisibilityK, op);
  I.aux = a;
  I.in[0] = c.ref(v, true);
  I.n = 1;
}

KernelFn programIdKernel() { return programIdK; }
KernelFn numProgramsKernel() { return numProgramsK; }

void emitAssertAs(Compiler &c, const Operation &op, const Value *cond, const std::string &message) {
  auto *a = c.makeAux<AssertAux>();
  a->message = message;
  Ref r = c.ref(cond, true);
  Inst &I = c.emit(assertK, op);
  I.aux = a;
  I.in[0] = r;
  I.n = c.numel(cond);
}

bool emitMisc(Compiler &c, const Operation &op) {
  const std::string &name = op.name();
  if (name == "arith.constant" || name == "gpu.barrier" || name == "llvm.intr.assume")
    return true;
  if (name == "tt.get_program_id" || name == "tt.get_num_programs") {
    int64_t axis = op.intAttr("axis", 0);
    if (axis < 0 || axis > 2)
      c.fail(op, "axis must be 0, 1 or 2");
    Inst &I = c.emit(name == "tt.get_program_id" ? programIdK : numProgramsK, op);
    I.out = c.out(op.result(0));
    I.imm = axis;
    I.n = 1;
    return true;
  }
  if (name == "tt.print") {
    auto *a = c.makeAux<PrintAux>();
    Attribute pre = op.attr("prefix");
    a->prefix = pre.kind() == Attribute::Kind::String ? pre.getString() : "";
    a->hex = op.intAttr("hex", 0) != 0;
    Attribute sg = op.attr("isSigned");
    for (size_t k = 0; k < op.numOperands(); ++k) {
      const Value *v = op.operand(k);
      bool isSigned = true;
      if (sg.kind() == Attribute::Kind::I32Array && k < sg.getInts().size())
        isSigned = sg.getInts()[k] != 0;
      a->args.push_back({c.ref(v, true), c.dtype(v), isSigned, v->type.shape(), c.numel(v)});
    }
    Inst &I = c.emit(printK, op);
    I.aux = a;
    return true;
  }
  if (name == "tt.assert") {
    Attribute msg = op.attr("message");
    emitAssertAs(c, op, op.operand(0),
                 msg.kind() == Attribute::Kind::String ? msg.getString() : "");
    return true;
  }
  return false;
}

} // namespace tt::exec
