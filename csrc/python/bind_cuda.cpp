// Bindings for the CUDA driver runtime (csrc/cuda): device queries, loading a cubin as a
// kernel, and launching it. libcuda is dlopen'ed on first use, so this module imports (and
// `cuda_available()` answers False) on machines without a GPU.
//
// Launch arguments: one Python value per kernel parameter, typed by the kernel's signature
// string, one character per parameter:
//   'p' pointer  (an int address, or a tuple whose item 0 is one, e.g. a DeviceBuffer)
//   'q' integer  (any Python int: i1..i64, u8..u64; written as its 64-bit two's complement,
//                 whose low bytes are the value at every narrower width)
//   'f' fp32, 'd' fp64, 'h' fp16, 'b' bf16  (a Python float)
//   '-' no parameter: the value is skipped (a constexpr's place in the argument list, so the
//       runtime can pass its list as it is)
// Each parameter gets its own 8-byte slot; the driver copies the declared size from it.
#include <Python.h>

#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cuda/driver.h"

namespace py = pybind11;
using namespace tt::cuda;

namespace {

PyObject *cudaErrorType = nullptr; // triton_tile._core.CudaError(message, code)

// CUdevice_attribute / CUfunction_attribute numbers (cuda.h), for the properties below.
enum : int {
  kWarpSize = 10,
  kMaxRegistersPerBlock = 12,
  kClockRate = 13,
  kMultiprocessorCount = 16,
  kMemoryClockRate = 36,
  kGlobalMemoryBusWidth = 37,
  kL2CacheSize = 38,
  kMaxThreadsPerMultiprocessor = 39,
  kMaxSharedMemoryPerBlockOptin = 97,
  kFuncMaxThreadsPerBlock = 0,
  kFuncSharedSizeBytes = 1,
  kFuncLocalSizeBytes = 3,
  kFuncNumRegs = 4,
};

std::vector<uint8_t> toImage(const py::bytes &b) {
  std::string s = b;
  return std::vector<uint8_t>(s.begin(), s.end());
}

uint64_t slotOf(char kind, PyObject *v) {
  switch (kind) {
  case 'p':
    if (PyTuple_Check(v) && PyTuple_GET_SIZE(v) > 0)
      v = PyTuple_GET_ITEM(v, 0);
    return PyLong_AsUnsignedLongLongMask(v);
  case 'q':
    return PyLong_AsUnsignedLongLongMask(v);
  case 'f':
    return KernelArg::f32(float(PyFloat_AsDouble(v))).bits;
  case 'd':
    return KernelArg::f64(PyFloat_AsDouble(v)).bits;
  case 'h':
    return KernelArg::f16(float(PyFloat_AsDouble(v))).bits;
  case 'b':
    return KernelArg::bf16(float(PyFloat_AsDouble(v))).bits;
  default:
    PyErr_Format(PyExc_ValueError, "kernel signature: unknown parameter kind '%c'", kind);
    return 0;
  }
}

// A loaded kernel plus its parameter signature.
struct PyKernel {
  Kernel kernel;
  std::string signature;
  std::string name;

  void launch(unsigned gx, unsigned gy, unsigned gz, uintptr_t stream, py::handle args) {
    PyObject *seq = args.ptr();
    if (!PyList_Check(seq) && !PyTuple_Check(seq))
      throw py::type_error("launch: args must be a list or a tuple");
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (size_t(n) != signature.size())
      throw py::type_error(name + ": expected " + std::to_string(signature.size()) +
                           " kernel arguments, got " + std::to_string(n));
    // get_tile_block_id is only correct below 2^24 per dimension (NVIDIA's Tile IR launch rules).
    constexpr unsigned kMaxGrid = (1u << 24) - 1;
    if (gx > kMaxGrid || gy > kMaxGrid || gz > kMaxGrid)
      throw py::value_error(name + ": a Tile IR grid dimension must be below 2^24, got (" +
                            std::to_string(gx) + ", " + std::to_string(gy) + ", " +
                            std::to_string(gz) + ")");
    if (gx == 0 || gy == 0 || gz == 0)
      return;
    uint64_t small[32];
    std::vector<uint64_t> big;
    uint64_t *slots = small;
    if (n > 32) {
      big.resize(size_t(n));
      slots = big.data();
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    size_t params = 0;
    for (Py_ssize_t i = 0; i < n; ++i) {
      char kind = signature[size_t(i)];
      if (kind == '-')
        continue;
      slots[params++] = slotOf(kind, items[i]);
      if (PyErr_Occurred())
        throw py::error_already_set();
    }
    kernel.launch({gx, gy, gz}, reinterpret_cast<CUstream>(stream), slots, params);
  }
};

py::dict deviceProperties(int device) {
  Driver &d = Driver::get();
  auto attr = [&](int a) { return d.deviceAttribute(device, a); };
  auto cc = d.computeCapability(device);
  py::dict p;
  p["name"] = d.deviceName(device);
  p["arch"] = cc.first * 10 + cc.second;
  p["multiprocessor_count"] = attr(kMultiprocessorCount);
  p["max_num_regs"] = attr(kMaxRegistersPerBlock);
  p["max_shared_mem"] = attr(kMaxSharedMemoryPerBlockOptin);
  p["warpSize"] = attr(kWarpSize);
  p["max_threads_per_sm"] = attr(kMaxThreadsPerMultiprocessor);
  p["sm_clock_rate"] = attr(kClockRate);
  p["mem_clock_rate"] = attr(kMemoryClockRate);
  p["mem_bus_width"] = attr(kGlobalMemoryBusWidth);
  p["l2_cache_size"] = attr(kL2CacheSize);
  return p;
}

} // namespace

void bindCuda(py::module_ &m) {
  cudaErrorType = PyErr_NewExceptionWithDoc(
      "triton_tile._core.CudaError",
      "A CUDA driver call failed: args are (message, CUresult code; 0 when the driver itself "
      "is missing).",
      PyExc_RuntimeError, nullptr);
  m.attr("CudaError") = py::handle(cudaErrorType);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const DriverError &e) {
      PyErr_SetObject(cudaErrorType, py::make_tuple(e.what(), e.code).ptr());
    }
  });

  m.def("cuda_available", &Driver::available,
        "True when libcuda loads and cuInit succeeds (never raises).");
  m.def("cuda_driver_version", [] { return Driver::get().version(); });
  m.def("cuda_device_count", [] { return Driver::get().deviceCount(); });
  m.def(
      "cuda_compute_capability", [](int dev) { return Driver::get().computeCapability(dev); },
      py::arg("device") = 0);
  m.def("cuda_device_properties", &deviceProperties, py::arg("device") = 0,
        "Triton's driver.active.utils.get_device_properties dict, plus name and arch.");
  m.def("cuda_image_rejected", &isImageRejected, py::arg("code"),
        "Whether a CUresult from loading a module means this driver cannot run the image.");

  py::class_<PyKernel>(m, "CudaKernel")
      .def(py::init([](const py::bytes &cubin, const std::string &name, int device,
                       const std::string &signature) {
             return new PyKernel{Kernel(toImage(cubin), name, device), signature, name};
           }),
           py::arg("cubin"), py::arg("name"), py::arg("device"), py::arg("signature"),
           "Loads `cubin` (once per image and device, process-wide) and finds `name` in it.")
      .def("launch", &PyKernel::launch, py::arg("gx"), py::arg("gy"), py::arg("gz"),
           py::arg("stream"), py::arg("args"),
           "Launches on `stream` (a CUstream as int; 0 is the default stream) with grid "
           "(gx, gy, gz) tile blocks and one value per signature character in `args`.")
      .def_readonly("signature", &PyKernel::signature)
      .def_readonly("name", &PyKernel::name)
      .def_property_readonly("device", [](const PyKernel &k) { return k.kernel.device(); })
      .def_property_readonly("n_regs",
                             [](const PyKernel &k) { return k.kernel.attribute(kFuncNumRegs); })
      .def_property_readonly(
          "local_bytes", [](const PyKernel &k) { return k.kernel.attribute(kFuncLocalSizeBytes); })
      .def_property_readonly(
          "shared_bytes",
          [](const PyKernel &k) { return k.kernel.attribute(kFuncSharedSizeBytes); })
      .def_property_readonly("max_threads", [](const PyKernel &k) {
        return k.kernel.attribute(kFuncMaxThreadsPerBlock);
      });
  m.def(
      "cuda_launch",
      [](PyKernel &k, std::vector<unsigned> grid, py::handle args, uintptr_t stream) {
        grid.resize(3, 1);
        k.launch(grid[0], grid[1], grid[2], stream, args);
      },
      py::arg("kernel"), py::arg("grid"), py::arg("args"), py::arg("stream") = 0,
      "cuda_launch(kernel, grid, args, stream=0): kernel.launch with a 1-3 element grid.");
}
