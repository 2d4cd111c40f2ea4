// The TTIR op set: tt.*, arith.*, math.*, scf.* and the few others Triton's frontend emits.
// Each op is registered with its traits, a verifier for the rules the executors rely on, and
// a printer that reproduces stock Triton's textual form. Rules not checked here: dominance
// and terminators (the generic verifier does those).
#include <string>
#include <vector>

#include "ir/op_registry.h"
#include "ir/operation.h"
#include "ir/printer.h"
#include "ttir/enums.h"

namespace tt {
namespace {

using Verify = std::function<std::string(const Operation &)>;
using Print = std::function<void(const Operation &, Printer &)>;

std::string results(const Operation &op) {
  std::string s;
  for (size_t i = 0; i < op.numResults(); ++i)
    s += (i ? ", " : "") + op.result(i)->type.str();
  return s;
}

std::vector<Value *> resultValues(const Operation &op) {
  std::vector<Value *> v;
  for (size_t i = 0; i < op.numResults(); ++i)
    v.push_back(op.result(i));
  return v;
}

// ---- verifier building blocks ----

Verify counts(size_t minOperands, size_t maxOperands, size_t numResults) {
  return [=](const Operation &op) -> std::string {
    if (op.numOperands() < minOperands || op.numOperands() > maxOperands)
      return "expects " + std::to_string(minOperands) +
             (maxOperands != minOperands ? ".." + std::to_string(maxOperands) : "") +
             " operands, got " + std::to_string(op.numOperands());
    if (op.numResults() != numResults)
      return "expects " + std::to_string(numResults) + " results, got " +
             std::to_string(op.numResults());
    return "";
  };
}

Verify all(std::vector<Verify> checks) {
  return [checks](const Operation &op) -> std::string {
    for (const auto &c : checks) {
      std::string m = c(op);
      if (!m.empty())
        return m;
    }
    return "";
  };
}

enum class Elem { Int, Float, Any };

// Elementwise ops: operands and result share a shape; `sameType` also requires one type.
Verify elementwise(size_t n, Elem elem, bool resultI1 = false) {
  return all({counts(n, n, 1), [=](const Operation &op) -> std::string {
                Type t0 = op.operand(0)->type;
                for (size_t i = 1; i < n; ++i)
                  if (op.operand(i)->type != t0)
                    return "operands must have the same type (" + t0.str() + " vs " +
                           op.operand(i)->type.str() + ")";
                Type e = t0.element();
                if (elem == Elem::Int && !e.isInt())
                  return "expects integer operands, got " + t0.str();
                if (elem == Elem::Float && !e.isFloat())
                  return "expects float operands, got " + t0.str();
                Type want = resultI1 ? t0.withElement(Type::integer(1)) : t0;
                if (op.result(0)->type != want)
                  return "result type " + op.result(0)->type.str() + " should be " + want.str();
                return "";
              }});
}

// Casts: one operand, same shape, the element kinds given.
Verify cast(Elem from, Elem to) {
  return all({counts(1, 1, 1), [=](const Operation &op) -> std::string {
                Type a = op.operand(0)->type, r = op.result(0)->type;
                if (a.shape() != r.shape())
                  return "cast must keep the shape (" + a.str() + " -> " + r.str() + ")";
                if (from == Elem::Int && !a.element().isInt())
                  return "expects an integer operand";
                if (from == Elem::Float && !a.element().isFloat())
                  return "expects a float operand";
                if (to == Elem::Int && !r.element().isInt())
                  return "expects an integer result";
                if (to == Elem::Float && !r.element().isFloat())
                  return "expects a float result";
                return "";
              }});
}

Verify sameShapeResult() {
  return [](const Operation &op) -> std::string {
    if (op.numOperands() && op.result(0)->type.shape() != op.operand(0)->type.shape())
      return "result shape must match the operand's";
    return "";
  };
}

// ---- printer building blocks ----

Print printBinary() {
  return [](const Operation &op, Printer &p) {
    p << op.name() << " " << p.operandList(op.operands) << p.attrDict(op) << " : "
      << op.result(0)->type.str();
  };
}

Print printCast() {
  return [](const Operation &op, Printer &p) {
    p << op.name() << " " << p.operandList(op.operands) << p.attrDict(op) << " : "
      << op.operand(0)->type.str() << " to " << op.result(0)->type.str();
  };
}

// `tt.splat %a : i32 -> tensor<4xi32>`
Print printArrow(std::vector<std::string> inlineAttrs = {}) {
  return [=](const Operation &op, Printer &p) {
    p << op.name() << " " << p.operandList(op.operands) << p.attrDict(op) << " : "
      << op.operand(0)->type.str() << " -> " << op.result(0)->type.str();
  };
}

// ---- registration helpers ----

void reg(const std::string &name, unsigned traits, Verify v, Print p = nullptr) {
  registerOp(OpInfo{name, traits, std::move(v), std::move(p)});
}

void registerArith() {
  for (const char *n :
       {"arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui", "arith.remsi",
        "arith.remui", "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi",
        "arith.shrui", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui"})
    reg(n, kPure, elementwise(2, Elem::Int), printBinary());
  for (const char *n : {"arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.remf",
                        "arith.maxnumf", "arith.minnumf", "arith.maximumf", "arith.minimumf"})
    reg(n, kPure, elementwise(2, Elem::Float), printBinary());
  reg("arith.negf", kPure, elementwise(1, Elem::Float), printBinary());

  reg("arith.cmpi", kPure,
      all({elementwise(2, Elem::Any, true),
           [](const Operation &op) -> std::string {
             Type e = op.operand(0)->type.element();
             if (!e.isInt() && !e.isPtr())
               return "expects integer or pointer operands";
             int64_t p = op.intAttr("predicate", -1);
             return p >= 0 && p <= 9 ? "" : "invalid predicate";
           }}),
      [](const Operation &op, Printer &p) {
        p << "arith.cmpi " << ttir_enum::name(ttir_enum::kCmpi, op.intAttr("predicate")) << ", "
          << p.operandList(op.operands) << " : " << op.operand(0)->type.str();
      });
  reg("arith.cmpf", kPure,
      all({elementwise(2, Elem::Float, true),
           [](const Operation &op) -> std::string {
             int64_t p = op.intAttr("predicate", -1);
             return p >= 0 && p <= 15 ? "" : "invalid predicate";
           }}),
      [](const Operation &op, Printer &p) {
        p << "arith.cmpf " << ttir_enum::name(ttir_enum::kCmpf, op.intAttr("predicate")) << ", "
          << p.operandList(op.operands) << " : " << op.operand(0)->type.str();
      });
  reg("arith.select", kPure,
      all({counts(3, 3, 1),
           [](const Operation &op) -> std::string {
             Type c = op.operand(0)->type, a = op.operand(1)->type;
             if (!c.element().isInt(1))
               return "condition must be i1";
             if (a != op.operand(2)->type || op.result(0)->type != a)
               return "both values and the result must have one type";
             if (c.isTensor() && c.shape() != a.shape())
               return "a tensor condition must have the values' shape";
             return "";
           }}),
      [](const Operation &op, Printer &p) {
        p << "arith.select " << p.operandList(op.operands) << " : ";
        if (op.operand(0)->type.isTensor())
          p << op.operand(0)->type.str() << ", ";
        p << op.result(0)->type.str();
      });

  auto widthCheck = [](bool wider) {
    return [=](const Operation &op) -> std::string {
      int a = op.operand(0)->type.element().bitWidth(), r = op.result(0)->type.element().bitWidth();
      if (wider ? r <= a : r >= a)
        return std::string("result must be ") + (wider ? "wider" : "narrower") +
               " than the operand";
      return "";
    };
  };
  reg("arith.extsi", kPure, all({cast(Elem::Int, Elem::Int), sameShapeResult(), widthCheck(true)}),
      printCast());
  reg("arith.extui", kPure, all({cast(Elem::Int, Elem::Int), sameShapeResult(), widthCheck(true)}),
      printCast());
  reg("arith.trunci", kPure,
      all({cast(Elem::Int, Elem::Int), sameShapeResult(), widthCheck(false)}), printCast());
  reg("arith.extf", kPure, all({cast(Elem::Float, Elem::Float), widthCheck(true)}), printCast());
  reg("arith.truncf", kPure, all({cast(Elem::Float, Elem::Float), widthCheck(false)}), printCast());
  reg("arith.sitofp", kPure, cast(Elem::Int, Elem::Float), printCast());
  reg("arith.uitofp", kPure, cast(Elem::Int, Elem::Float), printCast());
  reg("arith.fptosi", kPure, cast(Elem::Float, Elem::Int), printCast());
  reg("arith.fptoui", kPure, cast(Elem::Float, Elem::Int), printCast());
  reg("arith.bitcast", kPure,
      all({cast(Elem::Any, Elem::Any),
           [](const Operation &op) -> std::string {
             return op.operand(0)->type.element().bitWidth() ==
                            op.result(0)->type.element().bitWidth()
                        ? ""
                        : "bitcast must keep the bit width";
           }}),
      printCast());

  reg("arith.constant", kPure,
      all({counts(0, 0, 1),
           [](const Operation &op) -> std::string {
             Attribute v = op.attr("value");
             Type t = op.result(0)->type;
             if (v.kind() == Attribute::Kind::Dense)
               return v.getType() == t ? "" : "dense value type must match the result";
             if (v.kind() == Attribute::Kind::Int || v.kind() == Attribute::Kind::Float)
               return v.getType() == t ? "" : "value type must match the result";
             return "needs a 'value' attribute";
           }}),
      [](const Operation &op, Printer &p) {
        Attribute v = op.attr("value");
        p << "arith.constant ";
        if (v.kind() == Attribute::Kind::Int && op.result(0)->type.isInt(1))
          p << (v.getInt() ? "true" : "false");
        else
          p << v.str();
      });
}

void registerMath() {
  for (const char *n : {"math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt",
                        "math.sin", "math.cos", "math.tan", "math.tanh", "math.absf", "math.floor",
                        "math.ceil", "math.erf", "tt.precise_sqrt"})
    reg(n, kPure, elementwise(1, Elem::Float), printBinary());
  reg("math.absi", kPure, elementwise(1, Elem::Int), printBinary());
  reg("math.fma", kPure, elementwise(3, Elem::Float), printBinary());
  reg("tt.precise_divf", kPure, elementwise(2, Elem::Float), printBinary());
  reg("tt.mulhiui", kPure, elementwise(2, Elem::Int), printBinary());
  reg("tt.clampf", kPure, elementwise(3, Elem::Float), printBinary());
}

Verify shapeOp(size_t nOperands) { return counts(nOperands, nOperands, 1); }

void registerShapes() {
  reg("tt.get_program_id", kPure, counts(0, 0, 1), [](const Operation &op, Printer &p) {
    p << "tt.get_program_id " << ttir_enum::name(ttir_enum::kProgramAxis, op.intAttr("axis"))
      << " : " << op.result(0)->type.str();
  });
  reg("tt.get_num_programs", kPure, counts(0, 0, 1), [](const Operation &op, Printer &p) {
    p << "tt.get_num_programs " << ttir_enum::name(ttir_enum::kProgramAxis, op.intAttr("axis"))
      << " : " << op.result(0)->type.str();
  });
  reg("tt.make_range", kPure,
      all({counts(0, 0, 1),
           [](const Operation &op) -> std::string {
             Type t = op.result(0)->type;
             int64_t n = op.intAttr("end") - op.intAttr("start");
             if (t.rank() != 1 || !t.element().isInt(32) || t.shape()[0] != n)
               return "result must be tensor<" + std::to_string(n) + "xi32>";
             return "";
           }}),
      [](const Operation &op, Printer &p) {
        p << "tt.make_range" << p.attrDict(op) << " : " << op.result(0)->type.str();
      });
  reg("tt.splat", kPure,
      all({shapeOp(1),
           [](const Operation &op) -> std::string {
             Type a = op.operand(0)->type, r = op.result(0)->type;
             if (a.isTensor() || !r.isTensor() || r.element() != a)
               return "splats a scalar into a tensor of its type";
             return "";
           }}),
      printArrow());
  reg("tt.broadcast", kPure,
      all({shapeOp(1),
           [](const Operation &op) -> std::string {
             Type a = op.operand(0)->type, r = op.result(0)->type;
             if (a.rank() != r.rank() || a.element() != r.element())
               return "broadcast keeps rank and element type";
             for (int i = 0; i < a.rank(); ++i)
               if (a.shape()[i] != r.shape()[i] && a.shape()[i] != 1)
                 return "only size-1 dimensions can be broadcast";
             return "";
           }}),
      printArrow());
  reg("tt.expand_dims", kPure,
      all({shapeOp(1),
           [](const Operation &op) -> std::string {
             Type a = op.operand(0)->type, r = op.result(0)->type;
             int64_t ax = op.intAttr("axis", -1);
             if (ax < 0 || ax > a.rank() || r.rank() != a.rank() + 1 || r.shape()[ax] != 1)
               return "bad axis or result shape";
             return "";
           }}),
      printArrow());
  reg("tt.reshape", kPure,
      all({shapeOp(1),
           [](const Operation &op) -> std::string {
             Type a = op.operand(0)->type, r = op.result(0)->type;
             if (a.numel() != r.numel() || a.element() != r.element())
               return "reshape keeps the element count and type";
             return "";
           }}),
      printArrow());
  reg("tt.trans", kPure,
      all({shapeOp(1),
           [](const Operation &op) -> std::string {
             Type a = op.operand(0)->type, r = op.result(0)->type;
             const auto &order = op.attr("order").getInts();
             if (static_cast<int>(order.size()) != a.rank() || r.rank() != a.rank())
               return "order must list every dimension";
             std::vector<bool> seen(order.size());
             for (size_t i = 0; i < order.size(); ++i) {
               if (order[i] < 0 || order[i] >= a.rank() || seen[order[i]])
                 return "order must be a permutation";
               seen[order[i]] = true;
               if (r.shape()[i] != a.shape()[order[i]])
                 return "result shape does not match the permutation";
             }
             return "";
           }}),
      printArrow());
  reg("tt.cat", kPure, shapeOp(2), printArrow());
  reg("tt.join", kPure,
      all({shapeOp(2),
           [](const Operation &op) -> std::string {
             Type a = op.operand(0)->type, r = op.result(0)->type;
             if (a != op.operand(1)->type)
               return "operands must have one type";
             std::vector<int64_t> s = a.shape();
             s.push_back(2);
             return r.shape() == s ? "" : "result must add a minor dimension of 2";
           }}),
      printArrow());
  reg("tt.split", kPure, counts(1, 1, 2), [](const Operation &op, Printer &p) {
    p << "tt.split " << p.operandList(op.operands) << " : " << op.operand(0)->type.str() << " -> "
      << op.result(0)->type.str();
  });
  reg("tt.bitcast", kPure, counts(1, 1, 1), printArrow());
  reg("tt.int_to_ptr", kPure, counts(1, 1, 1), printArrow());
  reg("tt.ptr_to_int", kPure, counts(1, 1, 1), printArrow());
  reg("tt.fp_to_fp", kPure, cast(Elem::Float, Elem::Float), printArrow());
  reg("tt.histogram", kPure, counts(1, 2, 1), printArrow());
  reg("tt.gather", kPure, counts(2, 2, 1), nullptr);
}

std::string pointerTensorCheck(Type ptr, Type value) {
  if (!ptr.element().isPtr())
    return "expects a pointer or a tensor of pointers, got " + ptr.str();
  if (ptr.shape() != value.shape())
    return "pointer and value shapes differ (" + ptr.str() + " vs " + value.str() + ")";
  if (ptr.element().pointee() != value.element())
    return "value element " + value.element().str() + " does not match the pointee " +
           ptr.element().pointee().str();
  return "";
}

void registerMemory() {
  reg("tt.addptr", kPure,
      all({shapeOp(2),
           [](const Operation &op) -> std::string {
             Type p = op.operand(0)->type, o = op.operand(1)->type;
             if (!p.element().isPtr() || !o.element().isInt())
               return "expects (pointer, integer offset)";
             if (p.shape() != o.shape() || op.result(0)->type != p)
               return "pointer, offset and result shapes must agree";
             return "";
           }}),
      [](const Operation &op, Printer &p) {
        p << "tt.addptr " << p.operandList(op.operands) << " : " << op.operand(0)->type.str()
          << ", " << op.operand(1)->type.str();
      });
  reg("tt.load", kReadOnly,
      all({counts(1, 3, 1),
           [](const Operation &op) -> std::string {
             Type p = op.operand(0)->type;
             if (p.isBlockPtr()) // tt.make_tensor_ptr: the boundaryCheck attr replaces a mask
               return op.numOperands() == 1 && p.pointee() == op.result(0)->type
                          ? ""
                          : "a block-pointer load takes no mask and yields the pointee tensor";
             std::string m = pointerTensorCheck(p, op.result(0)->type);
             if (!m.empty())
               return m;
             if (op.numOperands() > 1 &&
                 op.operand(1)->type != op.operand(0)->type.withElement(Type::integer(1)))
               return "mask must be i1 of the pointer's shape";
             if (op.numOperands() > 2 && op.operand(2)->type != op.result(0)->type)
               return "other must have the result type";
             return "";
           }}),
      [](const Operation &op, Printer &p) {
        p << "tt.load " << p.operandList(op.operands) << p.attrDict(op) << " : "
          << op.operand(0)->type.str();
      });
  reg("tt.store", 0,
      all({counts(2, 3, 0),
           [](const Operation &op) -> std::string {
             Type p = op.operand(0)->type;
             if (p.isBlockPtr())
               return op.numOperands() == 2 && p.pointee() == op.operand(1)->type
                          ? ""
                          : "a block-pointer store takes the pointee tensor and no mask";
             std::string m = pointerTensorCheck(p, op.operand(1)->type);
             if (!m.empty())
               return m;
             if (op.numOperands() > 2 &&
                 op.operand(2)->type != op.operand(0)->type.withElement(Type::integer(1)))
               return "mask must be i1 of the pointer's shape";
             return "";
           }}),
      [](const Operation &op, Printer &p) {
        p << "tt.store " << p.operandList(op.operands) << p.attrDict(op) << " : "
          << op.operand(0)->type.str();
      });
  reg("tt.atomic_rmw", 0,
      all({counts(2, 3, 1),
           [](const Operation &op) -> std::string {
             return pointerTensorCheck(op.operand(0)->type, op.operand(1)->type);
           }}),
      [](const Operation &op, Printer &p) {
        p << "tt.atomic_rmw " << ttir_enum::name(ttir_enum::kAtomicRmw, op.intAttr("atomic_rmw_op"))
          << ", " << ttir_enum::name(ttir_enum::kMemSemantic, op.intAttr("sem")) << ", "
          << ttir_enum::name(ttir_enum::kMemSyncScope, op.intAttr("scope")) << ", "
          << p.operandList(op.operands) << " : (" << p.typeList(op.operands) << ") -> "
          << op.result(0)->type.str();
      });
  reg("tt.atomic_cas", 0,
      all({counts(3, 3, 1),
           [](const Operation &op) -> std::string {
             return pointerTensorCheck(op.operand(0)->type, op.operand(2)->type);
           }}),
      [](const Operation &op, Printer &p) {
        p << "tt.atomic_cas " << ttir_enum::name(ttir_enum::kMemSemantic, op.intAttr("sem")) << ", "
          << ttir_enum::name(ttir_enum::kMemSyncScope, op.intAttr("scope")) << ", "
          << p.operandList(op.operands) << " : (" << p.typeList(op.operands) << ") -> "
          << op.result(0)->type.str();
      });
}

// Tensor descriptors (host TensorDescriptor arguments and tl.make_tensor_descriptor) and
// block pointers (tl.make_block_ptr / tl.advance), in Triton's textual forms.
std::string bracketList(Printer &p, const std::vector<Value *> &vals, size_t from, size_t n) {
  std::vector<Value *> part(vals.begin() + static_cast<long>(from),
                            vals.begin() + static_cast<long>(from + n));
  return "[" + p.operandList(part) + "]";
}

void registerDescriptors() {
  reg(
      "tt.make_tensor_descriptor", kPure,
      [](const Operation &op) -> std::string {
        Type d = op.numResults() == 1 ? op.result(0)->type : Type();
        if (!d.isTensorDesc())
          return "result must be a !tt.tensordesc";
        size_t r = static_cast<size_t>(d.descBlock().rank());
        if (op.numOperands() != 1 + 2 * r)
          return "takes a base pointer, " + std::to_string(r) + " sizes and " + std::to_string(r) +
                 " strides";
        if (!op.operand(0)->type.isPtr() ||
            op.operand(0)->type.pointee() != d.descBlock().element())
          return "base must point to the block's element type";
        return "";
      },
      [](const Operation &op, Printer &p) {
        size_t r = static_cast<size_t>(op.result(0)->type.descBlock().rank());
        Type block = op.result(0)->type.descBlock();
        p << "tt.make_tensor_descriptor " << p.name(op.operand(0)) << ", "
          << bracketList(p, op.operands, 1, r) << ", " << bracketList(p, op.operands, 1 + r, r)
          << p.attrDict(op) << " : <" << block.element().str() << ">, <" << block.str() << ">";
      });
  reg(
      "tt.descriptor_load", kReadOnly,
      [](const Operation &op) -> std::string {
        Type d = op.operand(0)->type;
        if (!d.isTensorDesc() || op.numResults() != 1)
          return "loads a block through a !tt.tensordesc";
        if (op.numOperands() != 1 + static_cast<size_t>(d.descBlock().rank()))
          return "needs one offset per dimension";
        Type r = op.result(0)->type;
        if (r.numel() != d.descBlock().numel() || r.element() != d.descBlock().element())
          return "result must hold the descriptor's block";
        return "";
      },
      [](const Operation &op, Printer &p) {
        p << "tt.descriptor_load " << p.name(op.operand(0))
          << bracketList(p, op.operands, 1, op.numOperands() - 1) << p.attrDict(op) << " : "
          << op.operand(0)->type.str() << " -> " << op.result(0)->type.str();
      });
  reg(
      "tt.descriptor_store", 0,
      [](const Operation &op) -> std::string {
        Type d = op.operand(0)->type;
        if (!d.isTensorDesc() || op.numOperands() != 2 + static_cast<size_t>(d.descBlock().rank()))
          return "stores a block through a !tt.tensordesc at one offset per dimension";
        if (op.operand(1)->type.numel() != d.descBlock().numel())
          return "value must hold the descriptor's block";
        return "";
      },
      [](const Operation &op, Printer &p) {
        p << "tt.descriptor_store " << p.name(op.operand(0))
          << bracketList(p, op.operands, 2, op.numOperands() - 2) << ", " << p.name(op.operand(1))
          << p.attrDict(op) << " : " << op.operand(0)->type.str() << ", "
          << op.operand(1)->type.str();
      });
  reg(
      "tt.make_tensor_ptr", kPure,
      [](const Operation &op) -> std::string {
        Type bp = op.numResults() == 1 ? op.result(0)->type : Type();
        if (!bp.isBlockPtr())
          return "result must be a pointer to a tensor";
        size_t r = static_cast<size_t>(bp.pointee().rank());
        if (op.numOperands() != 1 + 3 * r)
          return "takes base, then " + std::to_string(r) + " sizes, strides and offsets";
        return "";
      },
      [](const Operation &op, Printer &p) {
        size_t r = static_cast<size_t>(op.result(0)->type.pointee().rank());
        p << "tt.make_tensor_ptr " << p.name(op.operand(0)) << ", "
          << bracketList(p, op.operands, 1, r) << ", " << bracketList(p, op.operands, 1 + r, r)
          << ", " << bracketList(p, op.operands, 1 + 2 * r, r) << p.attrDict(op) << " : <"
          << op.result(0)->type.pointee().str() << ">";
      });
  reg(
      "tt.advance", kPure,
      [](const Operation &op) -> std::string {
        Type bp = op.operand(0)->type;
        if (!bp.isBlockPtr() || op.result(0)->type != bp ||
            op.numOperands() != 1 + static_cast<size_t>(bp.pointee().rank()))
          return "advances a block pointer by one offset per dimension";
        return "";
      },
      [](const Operation &op, Printer &p) {
        p << "tt.advance " << p.name(op.operand(0)) << ", "
          << bracketList(p, op.operands, 1, op.numOperands() - 1) << " : <"
          << op.result(0)->type.pointee().str() << ">";
      });
}

void registerCompute() {
  reg("tt.dot", kPure,
      all({counts(3, 3, 1),
           [](const Operation &op) -> std::string {
             Type a = op.operand(0)->type, b = op.operand(1)->type, c = op.operand(2)->type;
             int r = a.rank();
             if ((r != 2 && r != 3) || b.rank() != r || c.rank() != r)
               return "operands must be 2-D or 3-D";
             const auto &sa = a.shape(), &sb = b.shape(), &sc = c.shape();
             if (sa[r - 1] != sb[r - 2] || sc[r - 2] != sa[r - 2] || sc[r - 1] != sb[r - 1])
               return "shapes do not match: " + a.str() + " * " + b.str() + " -> " + c.str();
             if (r == 3 && (sa[0] != sb[0] || sa[0] != sc[0]))
               return "batch dimensions differ";
             if (a.element() != b.element())
               return "operand element types differ";
             if (op.result(0)->type != c)
               return "result must have the accumulator's type";
             return "";
           }}),
      [](const Operation &op, Printer &p) {
        p << "tt.dot " << p.operandList(op.operands) << ", inputPrecision = "
          << ttir_enum::name(ttir_enum::kInputPrecision, op.intAttr("inputPrecision"));
        // (stock Triton's attr-dict: the attribute only where it is not its default, 0)
        if (int64_t acc = op.intAttr("maxNumImpreciseAcc", 0))
          p << " {maxNumImpreciseAcc = " << std::to_string(acc) << " : i32}";
        p << " : " << op.operand(0)->type.str() << " * " << op.operand(1)->type.str() << " -> "
          << op.result(0)->type.str();
      });
  auto combine = [](const char *name) {
    return [name](const Operation &op) -> std::string {
      if (op.numRegions() != 1 || op.region(0)->blocks.size() != 1)
        return std::string(name) + " needs one combine region with one block";
      const Block &b = *op.region(0)->front();
      if (b.numArgs() != 2 * op.numOperands())
        return "combine block must take 2 arguments per operand";
      if (op.numResults() != op.numOperands())
        return "one result per operand";
      return "";
    };
  };
  reg("tt.reduce", kPure, combine("tt.reduce"));
  reg("tt.scan", kPure, combine("tt.scan"));
  auto ret = [](const Operation &op, Printer &p) {
    p << op.name();
    if (op.numOperands())
      p << " " << p.operandList(op.operands) << " : " << p.typeList(op.operands);
  };
  reg("tt.reduce.return", kPure | kTerminator, nullptr, ret);
  reg("tt.scan.return", kPure | kTerminator, nullptr, ret);
  // tl.map_elementwise: the region (a scalar function; control flow allowed) maps `pack`
  // consecutive elements of every operand to `pack` elements of every result.
  reg("tt.map_elementwise", kPure, [](const Operation &op) -> std::string {
    if (op.numRegions() != 1 || op.region(0)->blocks.size() != 1)
      return "tt.map_elementwise needs one region with one block";
    int64_t pack = op.intAttr("pack", 1);
    if (pack < 1)
      return "pack must be at least 1";
    const Block &b = *op.region(0)->front();
    if (b.numArgs() != op.numOperands() * static_cast<size_t>(pack))
      return "the region must take pack arguments per operand";
    if (op.numOperands() == 0 || op.numResults() == 0)
      return "needs operands and results";
    for (size_t i = 0; i < op.numOperands(); ++i)
      if (op.operand(i)->type.shape() != op.operand(0)->type.shape())
        return "operands must have one shape";
    for (size_t i = 0; i < op.numResults(); ++i)
      if (op.result(i)->type.shape() != op.operand(0)->type.shape())
        return "results must have the operands' shape";
    return "";
  });
  reg("tt.map_elementwise.return", kPure | kTerminator, nullptr, ret);
}

void printFuncSignature(const Operation &op, Printer &p) {
  Type ft = op.attr("function_type").getType();
  const Block *entry = op.region(0)->front();
  p << "tt.func " << (op.attr("sym_visibility").getString() == "private" ? "private" : "public")
    << " @" << op.attr("sym_name").getString() << "(";
  if (entry)
    p.nameArgs(*entry);
  for (size_t i = 0; i < ft.inputs().size(); ++i) {
    p << (i ? ", " : "") << (entry ? p.name(entry->arg(i)) : "%arg" + std::to_string(i)) << ": "
      << ft.inputs()[i].str();
    if (i < op.argAttrs.size() && !op.argAttrs[i].empty()) {
      p << " {";
      for (size_t k = 0; k < op.argAttrs[i].size(); ++k)
        p << (k ? ", " : "") << op.argAttrs[i][k].first << " = " << op.argAttrs[i][k].second.str();
      p << "}";
    }
  }
  p << ")";
  if (!ft.results().empty()) {
    p << " -> ";
    if (ft.results().size() == 1)
      p << ft.results()[0].str();
    else {
      p << "(";
      for (size_t i = 0; i < ft.results().size(); ++i)
        p << (i ? ", " : "") << ft.results()[i].str();
      p << ")";
    }
  }
  std::string extra = p.attrDict(op, {"sym_name", "function_type", "sym_visibility"});
  if (!extra.empty())
    p << " attributes" << extra;
  p << " ";
  p.region(*op.region(0), false);
}

void registerFunctions() {
  reg("builtin.module", 0, nullptr);
  reg(
      "tt.func", kSymbol,
      [](const Operation &op) -> std::string {
        Attribute ft = op.attr("function_type");
        if (op.attr("sym_name").kind() != Attribute::Kind::String || !ft.getType().isFunc())
          return "needs sym_name and function_type";
        if (op.numRegions() != 1 || op.region(0)->blocks.size() != 1)
          return "needs a body of one block";
        const Block &b = *op.region(0)->front();
        const auto &ins = ft.getType().inputs();
        if (b.numArgs() != ins.size())
          return "entry block arguments do not match the signature";
        for (size_t i = 0; i < ins.size(); ++i)
          if (b.arg(i)->type != ins[i])
            return "argument " + std::to_string(i) + " type does not match the signature";
        return "";
      },
      printFuncSignature);
  reg(
      "tt.return", kTerminator,
      [](const Operation &op) -> std::string {
        const Operation *f = op.parentOp();
        if (!f || !f->is("tt.func"))
          return "must be directly inside tt.func";
        const auto &res = f->attr("function_type").getType().results();
        if (res.size() != op.numOperands())
          return "returns " + std::to_string(op.numOperands()) + " values, the function " +
                 std::to_string(res.size());
        for (size_t i = 0; i < res.size(); ++i)
          if (op.operand(i)->type != res[i])
            return "return value " + std::to_string(i) + " has the wrong type";
        return "";
      },
      [](const Operation &op, Printer &p) {
        p << "tt.return";
        if (op.numOperands())
          p << " " << p.operandList(op.operands) << " : " << p.typeList(op.operands);
      });
  reg(
      "tt.call", 0,
      [](const Operation &op) -> std::string {
        return op.attr("callee").kind() == Attribute::Kind::String ? "" : "needs a callee";
      },
      [](const Operation &op, Printer &p) {
        p << "tt.call @" << op.attr("callee").getString() << "(" << p.operandList(op.operands)
          << ") : (" << p.typeList(op.operands) << ") -> ";
        std::vector<Value *> r = resultValues(op);
        p << (r.size() == 1 ? r[0]->type.str() : "(" + results(op) + ")");
      });
  reg("tt.assert", 0, counts(1, 1, 0), [](const Operation &op, Printer &p) {
    p << "tt.assert " << p.operandList(op.operands) << ", " << op.attr("message").str() << " : "
      << op.operand(0)->type.str();
  });
  reg("tt.print", 0, nullptr, [](const Operation &op, Printer &p) {
    p << "tt.print " << op.attr("prefix").str() << p.attrDict(op, {"prefix"});
    if (op.numOperands())
      p << " : " << p.operandList(op.operands) << " : " << p.typeList(op.operands);
  });
  reg("llvm.intr.assume", 0, counts(1, 1, 0), [](const Operation &op, Printer &p) {
    p << "llvm.intr.assume " << p.name(op.operand(0)) << " : " << op.operand(0)->type.str();
  });
  reg("gpu.barrier", 0, counts(0, 0, 0), [](const Operation &, Printer &p) { p << "gpu.barrier"; });
}

void registerControlFlow() {
  reg(
      "scf.for", 0,
      [](const Operation &op) -> std::string {
        if (op.numOperands() < 3)
          return "needs lower bound, upper bound and step";
        Type iv = op.operand(0)->type;
        if (!iv.isInt() || op.operand(1)->type != iv || op.operand(2)->type != iv)
          return "bounds and step must be integers of one type";
        size_t n = op.numOperands() - 3;
        if (op.numResults() != n)
          return "one result per iteration argument";
        if (op.numRegions() != 1 || op.region(0)->blocks.size() != 1)
          return "needs one body block";
        const Block &b = *op.region(0)->front();
        if (b.numArgs() != n + 1 || b.arg(0)->type != iv)
          return "body block must take the induction variable and the iteration arguments";
        for (size_t i = 0; i < n; ++i)
          if (b.arg(i + 1)->type != op.operand(i + 3)->type ||
              op.result(i)->type != op.operand(i + 3)->type)
            return "iteration argument " + std::to_string(i) + " changes type";
        return "";
      },
      [](const Operation &op, Printer &p) {
        const Block &b = *op.region(0)->front();
        p.nameArgs(b);
        p << "scf.for " << p.name(b.arg(0)) << " = " << p.name(op.operand(0)) << " to "
          << p.name(op.operand(1)) << " step " << p.name(op.operand(2));
        if (op.numOperands() > 3) {
          p << " iter_args(";
          for (size_t i = 3; i < op.numOperands(); ++i)
            p << (i > 3 ? ", " : "") << p.name(b.arg(i - 2)) << " = " << p.name(op.operand(i));
          p << ") -> (" << results(op) << ")";
        }
        p << " : " << op.operand(0)->type.str() << " ";
        p.region(*op.region(0), false);
      });
  reg(
      "scf.if", 0,
      [](const Operation &op) -> std::string {
        if (op.numOperands() != 1 || !op.operand(0)->type.isInt(1))
          return "condition must be a scalar i1";
        if (op.numRegions() != 2 || op.region(0)->blocks.size() != 1)
          return "needs a then region and an else region";
        if (op.numResults() && op.region(1)->blocks.size() != 1)
          return "an if with results needs an else block";
        return "";
      },
      [](const Operation &op, Printer &p) {
        p << "scf.if " << p.name(op.operand(0));
        if (op.numResults())
          p << " -> (" << results(op) << ")";
        p << " ";
        p.region(*op.region(0), false);
        if (!op.region(1)->empty()) {
          p << " else ";
          p.region(*op.region(1), false);
        }
      });
  reg(
      "scf.while", 0,
      [](const Operation &op) -> std::string {
        if (op.numRegions() != 2 || op.region(0)->blocks.size() != 1 ||
            op.region(1)->blocks.size() != 1)
          return "needs a before and an after region";
        const Block &before = *op.region(0)->front();
        if (before.numArgs() != op.numOperands())
          return "before block must take the initial values";
        return "";
      },
      [](const Operation &op, Printer &p) {
        const Block &before = *op.region(0)->front();
        p.nameArgs(before);
        p << "scf.while (";
        for (size_t i = 0; i < op.numOperands(); ++i)
          p << (i ? ", " : "") << p.name(before.arg(i)) << " = " << p.name(op.operand(i));
        p << ") : (" << p.typeList(op.operands) << ") -> (" << results(op) << ") ";
        p.region(*op.region(0), false);
        p << " do ";
        p.region(*op.region(1), true);
      });
  reg(
      "scf.condition", kTerminator,
      [](const Operation &op) -> std::string {
        if (op.numOperands() < 1 || !op.operand(0)->type.isInt(1))
          return "needs a scalar i1 condition";
        return "";
      },
      [](const Operation &op, Printer &p) {
        p << "scf.condition(" << p.name(op.operand(0)) << ")";
        if (op.numOperands() > 1) {
          std::vector<Value *> rest(op.operands.begin() + 1, op.operands.end());
          p << " " << p.operandList(rest) << " : " << p.typeList(rest);
        }
      });
  reg("scf.yield", kTerminator, nullptr, [](const Operation &op, Printer &p) {
    p << "scf.yield";
    if (op.numOperands())
      p << " " << p.operandList(op.operands) << " : " << p.typeList(op.operands);
  });
}

} // namespace

void registerTTIROps() {
  registerArith();
  registerMath();
  registerShapes();
  registerMemory();
  registerDescriptors();
  registerCompute();
  registerFunctions();
  registerControlFlow();
}

} // namespace tt
