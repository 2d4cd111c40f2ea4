// CUDA driver API loaded with dlopen (see driver.h).
#include "cuda/driver.h"

#include <cmath>
#include <dlfcn.h>

namespace tt {
namespace cuda {

DriverError::DriverError(const std::string &call, int c, const std::string &name)
    : std::runtime_error(call + " failed: " + name + " (" + std::to_string(c) + ")"), code(c),
      errname(name) {}

bool isImageRejected(int code) {
  return code == kErrNoBinaryForGpu || code == kErrUnsupportedPtxVersion ||
         code == kErrJitCompilerNotFound || code == kErrInvalidImage || code == kErrInvalidPtx;
}

namespace {

// float -> fp16 or bf16 bits, rounded to nearest even (NaN stays NaN, overflow is inf).
uint16_t roundBits(float v, bool bf16) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  if (bf16) {
    if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it a (quiet) NaN
      return uint16_t((u >> 16) | 0x40);
    return uint16_t((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
  }
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u)
    return uint16_t(sign | 0x7e00u);
  if (a >= 0x477ff000u) // rounds to >= 65520: infinity
    return uint16_t(sign | 0x7c00u);
  if (a < 0x38800000u) { // fp16 subnormal or zero: scale into the 10-bit mantissa
    float f;
    std::memcpy(&f, &a, 4);
    float scaled = f * 16777216.0f; // 2^24: one fp16 subnormal ulp becomes 1.0
    uint32_t m = uint32_t(std::nearbyint(scaled));
    return uint16_t(sign | m);
  }
  uint32_t r = a + 0xfffu + ((a >> 13) & 1); // round the 13 dropped bits to nearest even
  return uint16_t(sign | ((r - 0x38000000u) >> 13));
}

template <class F> void resolve(void *lib, F &fn, const char *name) {
  void *p = dlsym(lib, name);
  if (!p)
    throw DriverError(std::string("libcuda.so.1 lacks ") + name);
  fn = reinterpret_cast<F>(p);
}

} // namespace

KernelArg KernelArg::f16(float v) { return {roundBits(v, false)}; }
KernelArg KernelArg::bf16(float v) { return {roundBits(v, true)}; }

Driver::Driver() {
  lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_)
    throw DriverError(std::string("cannot load libcuda.so.1 (no NVIDIA driver?): ") + dlerror());
  resolve(lib_, cuInit, "cuInit");
  resolve(lib_, cuDriverGetVersion, "cuDriverGetVersion");
  resolve(lib_, cuDeviceGetCount, "cuDeviceGetCount");
  resolve(lib_, cuDeviceGet, "cuDeviceGet");
  resolve(lib_, cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(lib_, cuDeviceGetName, "cuDeviceGetName");
  resolve(lib_, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(lib_, cuCtxGetCurrent, "cuCtxGetCurrent");
  resolve(lib_, cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(lib_, cuCtxSynchronize, "cuCtxSynchronize");
  resolve(lib_, cuGetErrorName, "cuGetErrorName");
  resolve(lib_, cuModuleLoadData, "cuModuleLoadData");
  resolve(lib_, cuModuleLoadDataEx, "cuModuleLoadDataEx");
  resolve(lib_, cuModuleUnload, "cuModuleUnload");
  resolve(lib_, cuModuleGetFunction, "cuModuleGetFunction");
  resolve(lib_, cuFuncGetAttribute, "cuFuncGetAttribute");
  resolve(lib_, cuLaunchKernel, "cuLaunchKernel");
  resolve(lib_, cuStreamSynchronize, "cuStreamSynchronize");
  resolve(lib_, cuMemAlloc, "cuMemAlloc_v2");
  resolve(lib_, cuMemFree, "cuMemFree_v2");
  resolve(lib_, cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  resolve(lib_, cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  check("cuInit", cuInit(0));
  check("cuDriverGetVersion", cuDriverGetVersion(&version_));
}

Driver &Driver::get() {
  static std::once_flag once;
  static Driver *driver = nullptr;
  static std::string error;
  std::call_once(once, [] {
    try {
      driver = new Driver(); // intentionally never destroyed (libcuda stays loaded)
    } catch (const std::exception &e) {
      error = e.what();
    }
  });
  if (!driver)
    throw DriverError(error);
  return *driver;
}

bool Driver::available() {
  try {
    get();
    return true;
  } catch (const std::exception &) {
    return false;
  }
}

std::string Driver::errorName(CUresult code) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(code, &name) == 0 && name)
    return name;
  return "CUDA_ERROR_" + std::to_string(code);
}

void Driver::check(const char *call, CUresult code) const {
  if (code != 0)
    throw DriverError(call, code, errorName(code));
}

int Driver::deviceCount() const {
  int n = 0;
  check("cuDeviceGetCount", cuDeviceGetCount(&n));
  return n;
}

std::pair<int, int> Driver::computeCapability(int device) const {
  CUdevice dev = 0;
  check("cuDeviceGet", cuDeviceGet(&dev, device));
  int major = 0, minor = 0;
  check("cuDeviceGetAttribute", cuDeviceGetAttribute(&major, 75, dev)); // CC major
  check("cuDeviceGetAttribute", cuDeviceGetAttribute(&minor, 76, dev)); // CC minor
  return {major, minor};
}

int Driver::deviceAttribute(int device, int attr) const {
  CUdevice dev = 0;
  check("cuDeviceGet", cuDeviceGet(&dev, device));
  int v = 0;
  check("cuDeviceGetAttribute", cuDeviceGetAttribute(&v, attr, dev));
  return v;
}

std::string Driver::deviceName(int device) const {
  CUdevice dev = 0;
  check("cuDeviceGet", cuDeviceGet(&dev, device));
  char name[256] = {0};
  check("cuDeviceGetName", cuDeviceGetName(name, sizeof name - 1, dev));
  return name;
}

void Driver::ensureContext(int device) {
  CUcontext ctx = nullptr;
  check("cuCtxGetCurrent", cuCtxGetCurrent(&ctx));
  if (ctx)
    return;
  CUdevice dev = 0;
  check("cuDeviceGet", cuDeviceGet(&dev, device));
  check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
}

Module::Module(const std::vector<uint8_t> &image) {
  Driver &d = Driver::get();
  CUresult code = d.cuModuleLoadData(&mod_, image.data());
  if (code == 0)
    return;
  // Retry with log buffers so the error says why (JIT compiler missing, PTX too new, ...).
  std::vector<char> info(1 << 14, 0), err(1 << 14, 0);
  int opts[] = {3, 4, 5, 6}; // INFO_LOG_BUFFER, its size, ERROR_LOG_BUFFER, its size
  void *vals[] = {info.data(), reinterpret_cast<void *>(uintptr_t(info.size() - 1)), err.data(),
                  reinterpret_cast<void *>(uintptr_t(err.size() - 1))};
  CUmodule m2 = nullptr;
  CUresult code2 = d.cuModuleLoadDataEx(&m2, image.data(), 4, opts, vals);
  if (code2 == 0) { // loaded on the second try
    mod_ = m2;
    return;
  }
  std::string log = std::string(err.data());
  DriverError e("cuModuleLoadData", code,
                d.errorName(code) + (log.empty() ? "" : "; JIT log: " + log));
  throw e;
}

Module::~Module() {
  if (mod_)
    Driver::get().cuModuleUnload(mod_);
}

CUfunction Module::function(const std::string &name) {
  auto it = functions_.find(name);
  if (it != functions_.end())
    return it->second;
  CUfunction f = nullptr;
  Driver::get().check("cuModuleGetFunction",
                      Driver::get().cuModuleGetFunction(&f, mod_, name.c_str()));
  functions_[name] = f;
  return f;
}

Module &ModuleCache::get(const std::string &key, const std::vector<uint8_t> &image) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = modules_.find(key);
  if (it != modules_.end())
    return *it->second;
  auto m = std::make_unique<Module>(image);
  Module &ref = *m;
  modules_.emplace(key, std::move(m));
  return ref;
}

size_t ModuleCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return modules_.size();
}

ModuleCache &moduleCache() {
  static ModuleCache *cache = new ModuleCache(); // never destroyed: modules outlive exit order
  return *cache;
}

namespace {

// FNV-1a over the image: the module cache key (with the device), computed once per load.
std::string imageKey(const std::vector<uint8_t> &image, int device) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : image)
    h = (h ^ b) * 1099511628211ull;
  return std::to_string(device) + ":" + std::to_string(image.size()) + ":" + std::to_string(h);
}

} // namespace

Kernel::Kernel(const std::vector<uint8_t> &image, const std::string &name, int device)
    : device_(device) {
  Driver &d = Driver::get();
  CUdevice dev = 0;
  d.check("cuDeviceGet", d.cuDeviceGet(&dev, device));
  d.check("cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain(&ctx_, dev));
  CUcontext cur = nullptr;
  d.check("cuCtxGetCurrent", d.cuCtxGetCurrent(&cur));
  if (cur != ctx_)
    d.check("cuCtxSetCurrent", d.cuCtxSetCurrent(ctx_));
  fn_ = moduleCache().get(imageKey(image, device), image).function(name);
}

void Kernel::launch(Dim3 grid, CUstream stream, const uint64_t *slots, size_t n) const {
  Driver &d = Driver::get();
  CUcontext cur = nullptr;
  d.check("cuCtxGetCurrent", d.cuCtxGetCurrent(&cur));
  if (cur != ctx_)
    d.check("cuCtxSetCurrent", d.cuCtxSetCurrent(ctx_));
  void *small[32];
  std::vector<void *> big;
  void **ptrs = small;
  if (n > 32) {
    big.resize(n);
    ptrs = big.data();
  }
  for (size_t i = 0; i < n; ++i)
    ptrs[i] = const_cast<uint64_t *>(slots + i);
  d.check("cuLaunchKernel", d.cuLaunchKernel(fn_, grid.x, grid.y, grid.z, 1, 1, 1, 0, stream,
                                             n ? ptrs : nullptr, nullptr));
}

int Kernel::attribute(int attr) const {
  int v = 0;
  Driver::get().check("cuFuncGetAttribute", Driver::get().cuFuncGetAttribute(&v, attr, fn_));
  return v;
}

void launch(CUfunction f, Dim3 grid, Dim3 block, CUstream stream,
            const std::vector<KernelArg> &args, unsigned shared_bytes) {
  std::vector<uint64_t> slots(args.size());
  std::vector<void *> ptrs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    slots[i] = args[i].bits;
    ptrs[i] = &slots[i];
  }
  Driver &d = Driver::get();
  d.check("cuLaunchKernel",
          d.cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes,
                           stream, ptrs.empty() ? nullptr : ptrs.data(), nullptr));
}

} // namespace cuda
} // namespace tt
