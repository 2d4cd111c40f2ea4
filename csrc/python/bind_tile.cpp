// Bindings for the Tile IR stage: the conversion, its report, and Tile IR printing.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "conversion/ttir_to_tile/convert.h"
#include "tile/tile.h"

namespace py = pybind11;
using namespace tt;

void bindTile(py::module_ &m) {
  // The Tile IR enums (tile/enums.h) as {attribute: {spelling: number}}.
  m.def("tile_enums", [] {
    py::dict out;
#define TT_PY_ENUM_ROW(name, number, text) d[py::str(text)] = number;
#define TT_PY_ENUM(type, attr, table)                                                              \
  {                                                                                                \
    py::dict d;                                                                                    \
    table(TT_PY_ENUM_ROW) out[attr] = d;                                                           \
  }
    TT_TILE_ENUMS(TT_PY_ENUM)
#undef TT_PY_ENUM
#undef TT_PY_ENUM_ROW
    return out;
  });
  // The op table (tile/op_table.h) as [(name, opcode, "major.minor")].
  m.def("tile_ops", [] {
    py::list out;
#define TT_PY_OP(id, name, code, major, minor)                                                     \
  out.append(py::make_tuple(name, code, std::to_string(major) + "." + std::to_string(minor)));
    TT_TILE_OPS(TT_PY_OP)
#undef TT_PY_OP
    return out;
  });

  py::class_<TileOptions>(m, "TileOptions")
      .def(py::init<>())
      .def_readwrite("approx", &TileOptions::approx)
      .def_readwrite("ftz", &TileOptions::ftz)
      .def_readwrite("occupancy", &TileOptions::occupancy)
      .def_readwrite("num_ctas", &TileOptions::numCtas)
      .def_readwrite("num_stages", &TileOptions::numStages)
      .def_readwrite("arch", &TileOptions::arch)
      .def_readwrite("raise_views", &TileOptions::raiseViews)
      .def_readwrite("index_views", &TileOptions::indexViews)
      .def_readwrite("anchored_views", &TileOptions::anchoredViews)
      .def_readwrite("loop_vector_views", &TileOptions::loopVectorViews)
      .def_readwrite("allow_tma", &TileOptions::allowTma)
      .def_readwrite("gathers_without_dot", &TileOptions::gathersWithoutDot)
      .def_readwrite("kernel_tma_maps", &TileOptions::kernelTmaMaps)
      .def_readwrite("view_reductions", &TileOptions::viewReductions)
      .def_readwrite("worker_warps", &TileOptions::workerWarps)
      .def_readwrite("worker_warps_auto", &TileOptions::workerWarpsAuto)
      .def_readwrite("guard_views", &TileOptions::guardViews)
      .def_readwrite("version_loops", &TileOptions::versionLoops)
      .def_readwrite("launch_guards", &TileOptions::launchGuards)
      .def_readwrite("alias_classes", &TileOptions::aliasClasses)
      .def_readwrite("passes", &TileOptions::passes);

  py::class_<TileConversion>(m, "TileConversion")
      .def_property_readonly(
          "module", [](TileConversion &c) { return c.module.get(); },
          py::return_value_policy::reference_internal)
      .def("take_module", [](TileConversion &c) { return std::move(c.module); })
      .def("take_guard", [](TileConversion &c) { return std::move(c.guard); })
      .def_readonly("guard_args", &TileConversion::guardArgs)
      .def_readonly("anchored_views", &TileConversion::anchoredViews)
      .def_property_readonly("unsupported",
                             [](const TileConversion &c) {
                               py::list l;
                               for (const auto &u : c.unsupported)
                                 l.append(py::make_tuple(u.op, u.location, u.reason));
                               return l;
                             })
      .def_property_readonly("accesses", [](const TileConversion &c) {
        py::list l;
        for (const auto &a : c.accesses)
          l.append(py::make_tuple(a.op, a.location, a.raised, a.detail));
        return l;
      });

  m.def("convert_to_tile", &convertTTIRToTile, py::arg("module"), py::arg("kernel"),
        py::arg("options"));
  m.def("print_tile", &tile::printModule, py::arg("module"));
}
