// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"): no CUDA headers and no
// link-time dependency, so the core builds and runs on machines without a GPU.
//
//   Driver &d = Driver::get();                 // throws DriverError when no driver is present
//   d.ensureContext();                         // current context, or device 0's primary one
//   Module m(cubin_bytes);                     // cuModuleLoadData
//   launch(m.function("vadd"), {grid, 1, 1}, {1, 1, 1}, stream, {KernelArg::ptr(a), ...});
//
// Tile IR kernels (tileiras cubins) launch with block = (1,1,1) and no dynamic shared memory;
// the driver takes the thread count from the cubin (see docs/gpu_chain.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace tt {
namespace cuda {

using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUdeviceptr = uint64_t;

class DriverError : public std::runtime_error {
public:
  DriverError(const std::string &call, int code, const std::string &name);
  explicit DriverError(const std::string &msg) : std::runtime_error(msg) {}
  int code = 0;        // CUresult (0 when the driver itself is missing)
  std::string errname; // e.g. "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"
};

/// Well-known CUresult codes that mean "this driver cannot load this image": the caller should
/// fall back to the PTX-style path (drivers in some 580.x containers lack the Tile IR library
/// and report 221).
constexpr int kErrNoBinaryForGpu = 209;
constexpr int kErrUnsupportedPtxVersion = 222;
constexpr int kErrJitCompilerNotFound = 221;
constexpr int kErrInvalidImage = 200;
constexpr int kErrInvalidPtx = 218;
bool isImageRejected(int code);

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// One kernel parameter in an 8-byte slot; the driver copies the parameter's declared size.
struct KernelArg {
  uint64_t bits = 0;
  static KernelArg ptr(CUdeviceptr p) { return {p}; }
  static KernelArg ptr(const void *p) { return {reinterpret_cast<uint64_t>(p)}; }
  static KernelArg i32(int32_t v) { return {uint64_t(uint32_t(v))}; }
  static KernelArg i64(int64_t v) { return {uint64_t(v)}; }
  static KernelArg f32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return {u};
  }
  static KernelArg f64(double v) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    return {u};
  }
  /// fp16 / bf16 scalars (only reachable through annotations): round to nearest even.
  static KernelArg f16(float v);
  static KernelArg bf16(float v);
};

class Driver {
public:
  /// The process-wide driver; loads libcuda and calls cuInit(0) once. Throws DriverError.
  static Driver &get();
  /// True when libcuda loads and cuInit succeeds (never throws).
  static bool available();

  int version() const { return version_; } // cuDriverGetVersion, e.g. 13000
  int deviceCount() const;
  std::pair<int, int> computeCapability(int device = 0) const;
  std::string deviceName(int device = 0) const;
  int deviceAttribute(int device, int attr) const; // cuDeviceGetAttribute
  /// Makes sure a context is current on this thread: keeps the current one (e.g. torch's), or
  /// retains and sets device `device`'s primary context.
  void ensureContext(int device = 0);

  /// Throws DriverError("call", code) when code != 0.
  void check(const char *call, CUresult code) const;
  std::string errorName(CUresult code) const;

  // Raw entry points (all resolved at load time).
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int *) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext *) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *) = nullptr;
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;

private:
  Driver();
  void *lib_ = nullptr;
  int version_ = 0;
};

/// A loaded module (cuModuleLoadData); unloads on destruction.
class Module {
public:
  /// Loads a cubin; on failure retries with cuModuleLoadDataEx to collect the JIT error log
  /// into the DriverError message.
  explicit Module(const std::vector<uint8_t> &image);
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  CUfunction function(const std::string &name);
  CUmodule handle() const { return mod_; }

private:
  CUmodule mod_ = nullptr;
  std::map<std::string, CUfunction> functions_;
};

/// Modules by key (e.g. a hash of the cubin plus the context), loaded once, kept for the
/// process lifetime. Thread-safe.
class ModuleCache {
public:
  Module &get(const std::string &key, const std::vector<uint8_t> &image);
  size_t size() const;

private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Module>> modules_;
};

/// The process-wide module cache that Kernel loads through.
ModuleCache &moduleCache();

/// A kernel ready to launch on one device: loaded once per (image, device) through
/// moduleCache() into that device's primary context (the one torch and cupy use), which is
/// made current at launch when another one is.
class Kernel {
public:
  Kernel(const std::vector<uint8_t> &image, const std::string &name, int device);
  /// Tile IR launch: block = (1,1,1), no dynamic shared memory; `slots[i]` holds parameter i.
  void launch(Dim3 grid, CUstream stream, const uint64_t *slots, size_t n) const;
  int attribute(int attr) const; // cuFuncGetAttribute
  int device() const { return device_; }

private:
  CUfunction fn_ = nullptr;
  CUcontext ctx_ = nullptr;
  int device_ = 0;
};

/// cuLaunchKernel with each argument in its own 8-byte slot.
void launch(CUfunction f, Dim3 grid, Dim3 block, CUstream stream,
            const std::vector<KernelArg> &args, unsigned shared_bytes = 0);

} // namespace cuda
} // namespace tt
