// Bindings of the CPU executors (bindings only: argument marshalling and error translation).
//
//   prog = _core.TTIRProgram(module, kernel_name)          # a TTIR tt.func
//   prog = _core.TileProgram(tile_module, kernel_name, check=False)  # a cuda_tile.entry
//   prog.run(grid=(g0, g1, g2), args=[...], num_threads=n)
// args: (address, nbytes) or (address, base, nbytes) tuples for pointers, int, float or bool.
// OutOfBoundsError -> IndexError, DeviceAssertError -> AssertionError, ExecError (and the
// checker's UnorderedAccessError) -> RuntimeError. The GIL is released while the grid runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "exec/compiler/program.h"
#include "exec/runtime/errors.h"
#include "exec/runtime/thread_pool.h"
#include "ir/operation.h"

namespace py = pybind11;
using tt::exec::ArgValue;
using tt::exec::TileProgram;
using tt::exec::TTIRProgram;

namespace {

ArgValue toArgOrThrow(const py::handle &h, size_t i);

ArgValue toArg(const py::handle &h, size_t i) {
  try {
    return toArgOrThrow(h, i);
  } catch (const py::cast_error &) {
    throw py::type_error("argument " + std::to_string(i) +
                         ": expected (address, nbytes), (address, base, nbytes), int or float, "
                         "got " +
                         std::string(py::str(h)));
  }
}

ArgValue toArgOrThrow(const py::handle &h, size_t i) {
  if (py::isinstance<py::tuple>(h)) {
    auto t = h.cast<py::tuple>();
    if (t.size() == 2)
      return ArgValue::pointer(t[0].cast<uint64_t>(), t[1].cast<uint64_t>());
    if (t.size() == 3)
      return ArgValue::pointerIn(t[0].cast<uint64_t>(), t[1].cast<uint64_t>(),
                                 t[2].cast<uint64_t>());
  } else if (py::isinstance<py::bool_>(h)) {
    return ArgValue::integer(h.cast<bool>() ? 1 : 0);
  } else if (py::isinstance<py::int_>(h)) {
    // Two's complement of any Python int that fits 64 bits, signed or unsigned.
    py::int_ v = h.cast<py::int_>();
    if (v < py::int_(0))
      return ArgValue::integer(v.cast<int64_t>());
    return ArgValue::integer(static_cast<int64_t>(v.cast<uint64_t>()));
  } else if (py::isinstance<py::float_>(h)) {
    return ArgValue::floating(h.cast<double>());
  }
  throw py::type_error("argument " + std::to_string(i) +
                       ": expected (address, nbytes), int or float, got " +
                       std::string(py::str(py::type::of(h))));
}

template <class Program>
void runBound(const Program &prog, const py::sequence &grid, const py::sequence &args,
              int numThreads) {
  std::array<int64_t, 3> g{1, 1, 1};
  if (grid.size() > 3)
    throw py::value_error("grid has more than 3 dimensions");
  for (size_t d = 0; d < grid.size(); ++d)
    g[d] = grid[d].cast<int64_t>();
  std::vector<ArgValue> values;
  values.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    values.push_back(toArg(args[i], i));
  py::gil_scoped_release release;
  prog.run(g, values, numThreads);
}

} // namespace

void bindExec(py::module_ &m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const tt::exec::OutOfBoundsError &e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const tt::exec::DeviceAssertError &e) {
      PyErr_SetString(PyExc_AssertionError, e.what());
    } catch (const tt::exec::ExecError &e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  py::class_<TTIRProgram>(m, "TTIRProgram")
      .def(py::init<const tt::Module &, const std::string &>(), py::arg("module"), py::arg("name"))
      .def("run", &runBound<TTIRProgram>, py::arg("grid"), py::arg("args"),
           py::arg("num_threads") = 0)
      .def_property_readonly("name", &TTIRProgram::kernelName)
      .def_property_readonly("arena_bytes", &TTIRProgram::arenaBytes)
      .def_property_readonly("num_instructions", &TTIRProgram::numInstructions)
      .def_property_readonly("notes", &TTIRProgram::notes);

  py::class_<TileProgram>(m, "TileProgram")
      .def(py::init<const tt::Module &, const std::string &, bool>(), py::arg("module"),
           py::arg("name"), py::arg("check") = false)
      .def("run", &runBound<TileProgram>, py::arg("grid"), py::arg("args"),
           py::arg("num_threads") = 0)
      .def_property_readonly("name", &TileProgram::kernelName)
      .def_property_readonly("arena_bytes", &TileProgram::arenaBytes)
      .def_property_readonly("num_instructions", &TileProgram::numInstructions)
      .def_property_readonly("notes", &TileProgram::notes)
      .def_property_readonly("check", &TileProgram::checking);

  m.def("hardware_threads", &tt::exec::hardwareThreads);
}
