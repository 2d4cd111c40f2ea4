// The `triton_tile._core` module: bindings for the IR core, the passes and the executors.
// Bindings only: every decision lives in the C++ library or in Python.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iterator>

#include "ir/builder.h"
#include "ir/op_registry.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "tt_source_hash.h" // generated: TT_SOURCE_HASH (cmake/source_hash.cmake)
#include "ttir/enums.h"
#include "ttir/parser.h"

namespace py = pybind11;
using namespace tt;

void bindExec(py::module_ &m);     // bind_exec.cpp
void bindTile(py::module_ &m);     // bind_tile.cpp
void bindBytecode(py::module_ &m); // bind_bytecode.cpp
void bindCuda(py::module_ &m);     // bind_cuda.cpp
void bindRuntime(py::module_ &m);  // bind_runtime.cpp

namespace {

py::object attrToPython(const Attribute &a) {
  switch (a.kind()) {
  case Attribute::Kind::None:
    return py::none();
  case Attribute::Kind::Int:
  case Attribute::Kind::Bool:
    return py::int_(a.getInt());
  case Attribute::Kind::Float:
    return py::float_(a.getFloat());
  case Attribute::Kind::String:
    return py::str(a.getString());
  case Attribute::Kind::Type:
    return py::cast(a.getType());
  case Attribute::Kind::I32Array:
    return py::cast(a.getInts());
  case Attribute::Kind::Array: {
    py::list l;
    for (const auto &e : a.getArray())
      l.append(attrToPython(e));
    return std::move(l);
  }
  case Attribute::Kind::Unit:
    return py::bool_(true);
  case Attribute::Kind::Dense:
    return a.denseIsFloat() ? py::object(py::float_(a.getFloat()))
                            : py::object(py::int_(a.getInt()));
  case Attribute::Kind::Dict: {
    py::dict d;
    for (const auto &kv : a.getDict())
      d[py::str(kv.first)] = attrToPython(kv.second);
    return std::move(d);
  }
  }
  return py::none();
}

Attrs attrsFromDict(const py::dict &d) {
  Attrs out;
  for (auto item : d)
    out.emplace_back(item.first.cast<std::string>(), item.second.cast<Attribute>());
  return out;
}

} // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "triton_tile C++ core: IR, passes, executors";
  static py::exception<IRError> irError(m, "IRError");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const IRError &e) {
      py::set_error(irError, e.what());
    }
  });

  py::class_<Type>(m, "Type")
      .def("__eq__", [](Type a, Type b) { return a == b; })
      .def("__hash__", [](Type a) { return std::hash<Type>()(a); })
      .def("__str__", &Type::str)
      .def("__repr__", [](Type t) { return "Type(" + t.str() + ")"; })
      .def_property_readonly("is_int", [](Type t) { return t.isInt(); })
      .def_property_readonly("is_float", [](Type t) { return t.isFloat(); })
      .def_property_readonly("is_ptr", [](Type t) { return t.isPtr(); })
      .def_property_readonly("is_tensor", [](Type t) { return t.isTensor(); })
      .def_property_readonly("is_func", [](Type t) { return t.isFunc(); })
      .def_property_readonly("int_width", [](Type t) { return t.isInt() ? t.intWidth() : 0; })
      .def_property_readonly("float_width", [](Type t) { return t.isFloat() ? t.floatWidth() : 0; })
      .def_property_readonly("name", &Type::str)
      .def_property_readonly("pointee", [](Type t) { return t.isPtr() ? t.pointee() : Type(); })
      .def_property_readonly("shape", [](Type t) { return t.shape(); })
      .def_property_readonly("element_type", &Type::element)
      .def_property_readonly("inputs",
                             [](Type t) { return t.isFunc() ? t.inputs() : std::vector<Type>{}; })
      .def_property_readonly("results",
                             [](Type t) { return t.isFunc() ? t.results() : std::vector<Type>{}; });

  m.def("int_type", &Type::integer, py::arg("bits"));
  m.def("float_type", &Type::floatByName, py::arg("name"));
  m.def("ptr_type", &Type::pointer, py::arg("pointee"), py::arg("addr_space") = 1);
  m.def("tensor_type", &Type::tensor, py::arg("shape"), py::arg("elem"));
  m.def("func_type", &Type::function, py::arg("inputs"), py::arg("results"));
  m.def("token_type", &Type::token);
  m.def("tensordesc_type", &Type::tensorDesc, py::arg("block"));

  py::class_<Attribute>(m, "Attribute")
      .def("__str__", &Attribute::str)
      .def("__repr__", [](const Attribute &a) { return "Attribute(" + a.str() + ")"; });
  m.def("int_attr", &Attribute::integer, py::arg("value"), py::arg("type"));
  m.def("float_attr", &Attribute::floating, py::arg("value"), py::arg("type"));
  m.def("bool_attr", &Attribute::boolean);
  m.def("str_attr", &Attribute::string);
  m.def("type_attr", &Attribute::type);
  m.def("i32_array_attr", &Attribute::i32Array);
  m.def("array_attr", &Attribute::array);
  m.def("unit_attr", &Attribute::unit);
  m.def("dense_attr", [](py::object v, Type t) {
    if (t.element().isFloat())
      return Attribute::denseSplat(v.cast<double>(), 0, t);
    return Attribute::denseSplat(0, v.cast<int64_t>(), t);
  });

  py::class_<Value>(m, "Value")
      .def_property_readonly("type", [](const Value &v) { return v.type; })
      .def_property_readonly(
          "owner", [](const Value &v) { return v.def; }, py::return_value_policy::reference)
      .def_property_readonly("id", [](const Value &v) { return v.id; })
      .def("__hash__", [](const Value &v) { return v.id; })
      .def("__eq__", [](const Value &a, const Value &b) { return &a == &b; });

  py::class_<Region>(m, "Region")
      .def(
          "add_block",
          [](Region &r, const std::vector<Type> &types) {
            Block *b = r.addBlock();
            for (Type t : types)
              b->addArg(t);
            return b;
          },
          py::arg("arg_types") = std::vector<Type>{}, py::return_value_policy::reference)
      .def_property_readonly(
          "blocks",
          [](Region &r) {
            std::vector<Block *> v;
            for (auto &b : r.blocks)
              v.push_back(b.get());
            return v;
          },
          py::return_value_policy::reference);

  py::class_<Block>(m, "Block")
      .def("arg", &Block::arg, py::return_value_policy::reference)
      .def_property_readonly(
          "args",
          [](Block &b) {
            std::vector<Value *> v;
            for (size_t i = 0; i < b.numArgs(); ++i)
              v.push_back(b.arg(i));
            return v;
          },
          py::return_value_policy::reference)
      .def_property_readonly("num_args", &Block::numArgs)
      .def("add_arg", &Block::addArg, py::return_value_policy::reference)
      .def_property_readonly(
          "ops",
          [](Block &b) {
            std::vector<Operation *> v;
            for (auto &o : b.ops())
              v.push_back(o.get());
            return v;
          },
          py::return_value_policy::reference)
      .def_property_readonly("parent_op", &Block::parentOp, py::return_value_policy::reference);

  py::class_<Operation>(m, "Operation")
      .def_property_readonly("name", &Operation::name)
      .def_property_readonly("num_results", &Operation::numResults)
      .def("result", &Operation::result, py::return_value_policy::reference)
      .def_property_readonly(
          "results",
          [](Operation &o) {
            std::vector<Value *> v;
            for (size_t i = 0; i < o.numResults(); ++i)
              v.push_back(o.result(i));
            return v;
          },
          py::return_value_policy::reference)
      .def_property_readonly(
          "operands", [](Operation &o) { return o.operands; }, py::return_value_policy::reference)
      .def_property_readonly("num_regions", &Operation::numRegions)
      .def("region", &Operation::region, py::return_value_policy::reference)
      .def("attr", [](Operation &o, const std::string &n) { return attrToPython(o.attr(n)); })
      .def("set_attr", &Operation::setAttr)
      .def("set_arg_attr",
           [](Operation &o, size_t i, const std::string &n, Attribute a) {
             if (o.argAttrs.size() <= i)
               o.argAttrs.resize(i + 1);
             o.argAttrs[i].emplace_back(n, std::move(a));
           })
      .def_property_readonly("location", [](Operation &o) { return locationString(o.loc()); })
      .def("erase",
           [](Operation &o) {
             if (!o.parentBlock())
               throw std::logic_error("cannot erase a detached operation");
             o.parentBlock()->erase(&o);
           })
      .def("__str__", [](Operation &o) { return printOp(o); });

  py::class_<Module>(m, "Module")
      .def(py::init<>())
      .def("__str__", [](const Module &mod) { return printModule(mod); })
      .def(
          "str", [](const Module &mod, bool locs) { return printModule(mod, locs); },
          py::arg("with_locs") = false)
      .def("verify", [](const Module &mod) { verifyModule(mod); })
      .def("clone", &Module::clone)
      .def("func", &Module::lookupFunc, py::return_value_policy::reference)
      .def_property_readonly("funcs", &Module::funcs, py::return_value_policy::reference)
      .def_property_readonly("body", &Module::body, py::return_value_policy::reference);

  py::class_<Builder::InsertPoint>(m, "InsertPoint");
  py::class_<Builder>(m, "Builder")
      .def(py::init([](Module &mod) { return new Builder(mod); }), py::keep_alive<1, 2>())
      .def("set_loc", py::overload_cast<const std::string &, int, int>(&Builder::setLoc))
      .def(
          "create",
          [](Builder &b, const std::string &name, const std::vector<Value *> &operands,
             const std::vector<Type> &types, const py::dict &attrs, int regions) {
            return b.create(name, operands, types, attrsFromDict(attrs), regions);
          },
          py::arg("name"), py::arg("operands"), py::arg("result_types"),
          py::arg("attrs") = py::dict(), py::arg("num_regions") = 0,
          py::return_value_policy::reference)
      .def("set_insertion_point_to_end", &Builder::setInsertionPointToEnd)
      .def("set_insertion_point_before", &Builder::setInsertionPointBefore)
      .def("set_insertion_point_after", &Builder::setInsertionPointAfter)
      .def_property_readonly("insertion_block", &Builder::insertionBlock,
                             py::return_value_policy::reference)
      .def("save_ip", &Builder::saveInsertionPoint)
      .def("restore_ip", &Builder::restoreInsertionPoint);

  m.def(
      "run_passes",
      [](Module &mod, const std::vector<std::string> &passes) { runPasses(mod, passes); },
      py::arg("module"), py::arg("passes"));
  m.def(
      "flatten_grid_stride_loop",
      [](Module &mod, const std::string &kernel, const std::vector<std::vector<int>> &classes,
         bool nestedOnly) {
        GridStride g = flattenGridStrideLoop(mod, kernel, classes, nestedOnly);
        return py::make_tuple(py::cast(std::move(g.grid)), g.args, g.linear);
      },
      py::arg("module"), py::arg("kernel"), py::arg("alias_classes"),
      py::arg("nested_only") = false);
  m.def("parse_ttir", &parseTTIR, py::arg("text"), py::arg("file") = "<text>");
  // The TTIR enums (ttir/enums.h) as {enum: {spelling: number}}: the frontend's one source.
  m.def("ttir_enums", [] {
    auto table = [](const auto &names) {
      py::dict d;
      for (size_t i = 0; i < std::size(names); ++i)
        if (std::string(names[i]) != "?")
          d[py::str(names[i])] = i;
      return d;
    };
    py::dict out;
    out["cmpi"] = table(ttir_enum::kCmpi);
    out["cmpf"] = table(ttir_enum::kCmpf);
    out["atomic_rmw"] = table(ttir_enum::kAtomicRmw);
    out["mem_semantic"] = table(ttir_enum::kMemSemantic);
    out["mem_sync_scope"] = table(ttir_enum::kMemSyncScope);
    out["program_axis"] = table(ttir_enum::kProgramAxis);
    out["input_precision"] = table(ttir_enum::kInputPrecision);
    return out;
  });
  m.def("registered", [](const std::string &n) { return lookupOp(n) != nullptr; });
  m.def("registered_ops", &registeredOps);

  bindExec(m);
  bindTile(m);
  bindBytecode(m);
  bindCuda(m);
  bindRuntime(m);
  m.attr("source_hash") = TT_SOURCE_HASH; // what cache keys use instead of the binary
}
