// Tile IR (op, attributes) -> shared kernel names; see tile_ops.h.
#include "exec/tileir/tile_ops.h"

#include <unordered_map>
#include <unordered_set>

#include "tile/elementwise_ops.h"
#include "tile/tile.h"

namespace tt::exec {
namespace {

bool isSigned(const Operation &op) { return op.intAttr("signedness", tile::kSigned) != 0; }

// Ops whose kernel depends on nothing but the name: the one-to-one ops of the conversion's
// table (tile/elementwise_ops.h) read backwards, and the kernels no TTIR op has.
const std::unordered_map<std::string, std::string> &plainKernels() {
  static const std::unordered_map<std::string, std::string> t = [] {
    std::unordered_map<std::string, std::string> m = {
        {"negi", "cuda_tile.negi"}, {"pow", "cuda_tile.pow"},   {"atan2", "cuda_tile.atan2"},
        {"cosh", "cuda_tile.cosh"}, {"sinh", "cuda_tile.sinh"},
    };
    for (const tile::ElementwiseOp &e : tile::kElementwiseOps)
      if (e.mods != tile::Mods::Signed && e.mods != tile::Mods::Unsigned &&
          e.mods != tile::Mods::DivRem && e.mods != tile::Mods::DivRemUnsigned)
        m.emplace(e.tile, e.ttir);
    return m;
  }();
  return t;
}

// Ops whose kernel depends on signedness: (signed, unsigned), from the same table.
const std::unordered_map<std::string, std::pair<const char *, const char *>> &signedKernels() {
  static const std::unordered_map<std::string, std::pair<const char *, const char *>> t = [] {
    std::unordered_map<std::string, std::pair<const char *, const char *>> m;
    for (const tile::ElementwiseOp &e : tile::kElementwiseOps) {
      bool sg = e.mods == tile::Mods::Signed || e.mods == tile::Mods::DivRem;
      bool un = e.mods == tile::Mods::Unsigned || e.mods == tile::Mods::DivRemUnsigned;
      if (sg)
        m[e.tile].first = e.ttir;
      else if (un)
        m[e.tile].second = e.ttir;
    }
    return m;
  }();
  return t;
}

} // namespace

std::string tileOpName(const Operation &op) {
  const std::string &n = op.name();
  return n.compare(0, 10, "cuda_tile.") == 0 ? n.substr(10) : std::string();
}

TileKernel tileElementwiseKernel(const Operation &op) {
  std::string n = tileOpName(op);
  TileKernel k;
  if (n.empty())
    return k;
  if (n == "mulhii") { // unsigned unless it says signed (TTIR's tt.mulhiui)
    k.name = op.intAttr("signedness", tile::kUnsigned) ? "cuda_tile.mulhii.signed" : "tt.mulhiui";
    return k;
  }
  if (n == "divi") {
    int64_t r = op.intAttr("rounding", tile::kZero);
    bool sg = isSigned(op);
    if (r == tile::kPosInf)
      k.name = sg ? "cuda_tile.divi.ceil" : "cuda_tile.divi.ceil.unsigned";
    else if (r == tile::kNegInf && sg)
      k.name = "cuda_tile.divi.floor";
    else
      k.name = sg ? "arith.divsi" : "arith.divui"; // unsigned floor is truncation
    return k;
  }
  auto p = plainKernels().find(n);
  if (p != plainKernels().end()) {
    k.name = p->second;
    return k;
  }
  auto s = signedKernels().find(n);
  if (s != signedKernels().end()) {
    k.name = isSigned(op) ? s->second.first : s->second.second;
    return k;
  }
  if (n == "maxf" || n == "minf") {
    bool nan = op.hasAttr("propagate_nan");
    k.name = n == "maxf" ? (nan ? "arith.maximumf" : "arith.maxnumf")
                         : (nan ? "arith.minimumf" : "arith.minnumf");
    return k;
  }
  if (n == "cmpi") {
    int64_t p = op.intAttr("comparison_predicate");
    k.name = "arith.cmpi";
    if (p == tile::kEq || p == tile::kNe)
      k.predicate = p; // eq 0, ne 1
    else if (p >= tile::kLt && p <= tile::kGe)
      k.predicate = (isSigned(op) ? 2 : 6) + (p - tile::kLt); // slt.. / ult..
    return k;
  }
  if (n == "cmpf") {
    int64_t p = op.intAttr("comparison_predicate");
    bool ordered = op.intAttr("comparison_ordering", 1) != 0;
    // Tile IR eq, ne, lt, le, gt, ge -> MLIR's oeq, one, olt, ole, ogt, oge (+7: unordered)
    static const int ord[] = {1, 6, 4, 5, 2, 3};
    k.name = "arith.cmpf";
    if (p >= 0 && p < 6)
      k.predicate = ord[p] + (ordered ? 0 : 7);
    return k;
  }
  return k;
}

std::string tileCastKernel(const Operation &op) {
  std::string n = tileOpName(op);
  if (n == "exti")
    return isSigned(op) ? "arith.extsi" : "arith.extui";
  if (n == "trunci")
    return "arith.trunci";
  if (n == "itof")
    return isSigned(op) ? "arith.sitofp" : "arith.uitofp";
  if (n == "ftoi")
    return isSigned(op) ? "arith.fptosi" : "arith.fptoui";
  if (n == "ftof")
    return "tt.fp_to_fp";
  return "";
}

bool isTileElementwiseOp(const Operation &op) {
  std::string n = tileOpName(op);
  if (n.empty())
    return false;
  static const std::unordered_set<std::string> other = {
      "select", "constant", "bitcast", "int_to_ptr", "ptr_to_int", "ptr_to_ptr", "offset"};
  return other.count(n) || !tileElementwiseKernel(op).name.empty() || !tileCastKernel(op).empty();
}

} // namespace tt::exec
