// Bindings of the launch path's helpers (bindings only: launch_specializer.h has the rules).
//
//   spec = _core.LaunchSpecializer(plan, callback, specialize_module)
//   key, runtime, dev, shared, check_devices = spec(bound_args_tuple, warmup)
//   watch = _core.EnvWatch(os.environ._data, keys); token = watch()   (env_watch.h)
#include <pybind11/pybind11.h>

#include "python/env_watch.h"
#include "python/launch_specializer.h"

namespace py = pybind11;
using tt::py_runtime::EnvWatch;
using tt::py_runtime::LaunchSpecializer;

void bindRuntime(py::module_ &m) {
  py::class_<LaunchSpecializer>(m, "LaunchSpecializer")
      .def(py::init([](py::tuple plan, py::object callback, py::object state) {
        return new LaunchSpecializer(plan.ptr(), callback.ptr(), state.ptr());
      }))
      .def("__call__", [](const LaunchSpecializer &s, py::tuple bound, bool warmup) {
        PyObject *out = s.specialize(bound.ptr(), warmup);
        if (!out)
          throw py::error_already_set();
        return py::reinterpret_steal<py::tuple>(out);
      });
  py::class_<EnvWatch>(m, "EnvWatch")
      .def(py::init(
          [](py::dict data, py::tuple keys) { return new EnvWatch(data.ptr(), keys.ptr()); }))
      .def("__call__", [](EnvWatch &w) {
        PyObject *out = w.token();
        if (!out)
          throw py::error_already_set();
        return py::reinterpret_steal<py::object>(out);
      });
}
