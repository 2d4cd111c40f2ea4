// The launch path's argument specializer (runtime/jit.py, JITFunction._specialize): one call
// per launch turns the bound arguments into the specialization key, the runtime values and the
// device bookkeeping. Python's loop (JITFunction._specialize_py) is the reference and a test
// runs both on the same arguments; this one exists because that loop was the largest part of
// a cached launch's host time (docs/gpu_perf_notes.md).
//
// Rules: the common argument types are decided here, exactly as specialize.py decides them:
//  - a Python int in i32 range for a parameter without annotation: a constexpr parameter's key
//    is ("constexpr", ("int", v)); a specialized 1 becomes ("constexpr", ("int", 1)); else
//    ("i32", "D" when specialized for alignment and v % 16 == 0, else None), runtime v;
//  - a str, bool, float or None (those exact types) for a constexpr parameter: the key
//    ("constexpr", (type name, v)), specialize.hashable's;
//  - a Python float for a non-constexpr parameter without annotation: ("fp32", None), v;
//  - a tensor whose type is in the set of tensor types seen holding CUDA memory, is_cuda, and
//    whose dtype the dtype-name cache already names: ("*<name>", "D" | None) and a
//    DeviceBuffer(data_ptr(), get_device(), "torch", data_ptr() - storage_offset() * size).
//  - a numpy.ndarray (that exact type) that owns its memory (base None), for a non-constexpr
//    parameter without annotation, whose dtype the dtype-name cache already names and which
//    exports a buffer: ("*<name>", "D" | None) and a HostBuffer(data, data, data + nbytes).
//    Views go to Python, which bounds them by the array that owns the memory.
//  - a tensor whose type is in the set of tensor types seen holding host memory, is_cpu, and
//    whose dtype the cache names: ("*<name>", "D" | None) and a HostBuffer(data_ptr(),
//    s.data_ptr(), s.data_ptr() + s.nbytes()) of its s = untyped_storage().
// With every buffer a torch CUDA tensor's and none on another device, the call also returns
// the launch addresses: the bound arguments with each tensor replaced by its data_ptr() and
// every other non-constexpr argument by its runtime value (what a launcher that takes device
// addresses is given: the GPU's PTX path); otherwise None.
// Every other argument (numpy views, constexpr objects, descriptors, tuples, annotated
// parameters, other ints) goes to the Python callback of its parameter, callback(i, v, warmup)
// -> (key, runtime), which also raises the errors that name the kernel and the argument. An
// error raised by a tensor's own attributes propagates as it would from Python. The type set
// and the dtype-name cache are the Python module's own objects, read at each call (a type or
// dtype seen later is picked up; tests replace them).
#pragma once

#include <Python.h>

#include <vector>

namespace tt::py_runtime {

class LaunchSpecializer {
public:
  // plan: one (is_constexpr, specialize, align, annotation) tuple per parameter. state: the
  // runtime.specialize module (its CONSTEXPR, HostBuffer, DeviceBuffer, _TORCH_CUDA_TYPES,
  // _TORCH_HOST_TYPES, _DTYPE_NAMES and np).
  LaunchSpecializer(PyObject *plan, PyObject *callback, PyObject *state);
  ~LaunchSpecializer();
  LaunchSpecializer(const LaunchSpecializer &) = delete;
  LaunchSpecializer &operator=(const LaunchSpecializer &) = delete;

  // (key tuple, runtime list, first device buffer or None, shared, check_devices, launch
  // addresses or None): a new reference, or null with a Python error set. check_devices: the
  // caller must run specialize.launch_device (tuples seen, two devices, or host and device
  // memory mixed).
  PyObject *specialize(PyObject *bound, bool warmup) const;

private:
  struct Param {
    bool isConstexpr, specialize, align, annotated;
  };
  enum class Fast { Done, Python, Error }; // decided here, by the callback, or raised
  PyObject *pointerName(PyObject *name) const;
  PyObject *simpleTag(PyObject *v) const;
  Fast pointerArg(PyObject *type, PyObject *fields, PyObject *ptrName, bool aligned, PyObject **key,
                  PyObject **rt) const;
  Fast dtypeNames(PyObject *v, PyObject **name, PyObject **ptrName) const;
  Fast knownTensor(PyObject *v, PyObject *types, PyObject *flag, PyObject **name,
                   PyObject **ptrName) const;
  Fast cudaTensor(PyObject *v, const Param &p, PyObject **key, PyObject **rt) const;
  Fast hostArray(PyObject *v, const Param &p, PyObject **key, PyObject **rt) const;
  Fast hostTensor(PyObject *v, const Param &p, PyObject **key, PyObject **rt) const;
  void release();
  template <class F> void eachString(F f);

  std::vector<Param> params_;
  PyObject *callback_ = nullptr, *state_ = nullptr;
  PyObject *constexprMark_ = nullptr, *deviceBufferType_ = nullptr, *hostBufferType_ = nullptr,
           *elemBytes_ = nullptr,       // specialize._ELEM_BYTES: dtype name -> bytes
               *ndarrayType_ = nullptr; // numpy.ndarray
  PyObject *sTorchTypes_ = nullptr, *sDtypeNames_ = nullptr, *sConstexpr_ = nullptr,
           *sInt_ = nullptr, *sI32_ = nullptr, *sFp32_ = nullptr, *sD_ = nullptr,
           *sTorch_ = nullptr, *sIsCuda_ = nullptr, *sDtype_ = nullptr, *sDataPtr_ = nullptr,
           *sGetDevice_ = nullptr, *sStorageOffset_ = nullptr, *sBase_ = nullptr,
           *sHostTypes_ = nullptr, *sIsCpu_ = nullptr, *sStorage_ = nullptr, *sNbytes_ = nullptr,
           *sStr_ = nullptr, *sBool_ = nullptr, *sFloat_ = nullptr, *sNoneType_ = nullptr;
  // dict: dtype name -> "*" + name; filled by the const specialize() (a cache, under the GIL)
  PyObject *pointerNames_ = nullptr;
};

} // namespace tt::py_runtime
