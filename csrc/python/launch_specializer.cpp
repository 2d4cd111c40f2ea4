// The launch path's argument specializer: rules in launch_specializer.h.
#include "python/launch_specializer.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tt::py_runtime {
namespace {

// A new reference to obj.name, for the attributes read once at construction.
PyObject *attrOrThrow(PyObject *obj, const char *name) {
  PyObject *v = PyObject_GetAttrString(obj, name);
  if (!v) {
    PyErr_Clear();
    throw std::runtime_error(std::string("launch specializer: missing ") + name);
  }
  return v;
}

PyObject *intern(const char *s) {
  PyObject *v = PyUnicode_InternFromString(s);
  if (!v) {
    PyErr_Clear();
    throw std::runtime_error("launch specializer: out of memory");
  }
  return v;
}

bool truthOrThrow(PyObject *v) {
  int t = PyObject_IsTrue(v);
  if (t < 0) {
    PyErr_Clear();
    throw std::runtime_error("launch specializer: a plan flag has no truth value");
  }
  return t == 1;
}

// Python's `v % 16 == 0` for an int that fits int64 (C++'s % agrees on zero remainders).
bool divisible16(long long v) { return v % 16 == 0; }

// Owns one reference for the scope of a call.
struct Ref {
  PyObject *p;
  explicit Ref(PyObject *q) : p(q) {}
  ~Ref() { Py_XDECREF(p); }
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
  PyObject *release() {
    PyObject *q = p;
    p = nullptr;
    return q;
  }
};

// The name the dtype-name cache gives a dtype (borrowed), or null (no Python error set) where
// Python's rules decide: a dtype not seen yet, an unhashable one, one Triton has no name for.
PyObject *dtypeName(PyObject *names, PyObject *dtype) {
  if (!PyDict_Check(names))
    return nullptr;
  PyObject *name = PyDict_GetItemWithError(names, dtype); // borrowed
  if (!name) {
    PyErr_Clear(); // canonical_dtype catches an unhashable dtype too
    return nullptr;
  }
  return PyUnicode_Check(name) ? name : nullptr;
}

// A data_ptr() result as an address: false (no Python error set) where it is not an int of 64
// bits, negative or wider, whose arithmetic Python's rules take.
bool addressOf(PyObject *ptr, unsigned long long &address) {
  if (!PyLong_Check(ptr))
    return false;
  address = PyLong_AsUnsignedLongLong(ptr);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

} // namespace

// Every interned string the rules use, with its text: one list for making and releasing them.
template <class F> void LaunchSpecializer::eachString(F f) {
  f(sTorchTypes_, "_TORCH_CUDA_TYPES");
  f(sDtypeNames_, "_DTYPE_NAMES");
  f(sConstexpr_, "constexpr");
  f(sInt_, "int");
  f(sI32_, "i32");
  f(sFp32_, "fp32");
  f(sD_, "D");
  f(sTorch_, "torch");
  f(sIsCuda_, "is_cuda");
  f(sDtype_, "dtype");
  f(sDataPtr_, "data_ptr");
  f(sGetDevice_, "get_device");
  f(sStorageOffset_, "storage_offset");
  f(sBase_, "base");
  f(sHostTypes_, "_TORCH_HOST_TYPES");
  f(sStr_, "str");
  f(sBool_, "bool");
  f(sFloat_, "float");
  f(sNoneType_, "NoneType");
  f(sIsCpu_, "is_cpu");
  f(sStorage_, "untyped_storage");
  f(sNbytes_, "nbytes");
}

LaunchSpecializer::LaunchSpecializer(PyObject *plan, PyObject *callback, PyObject *state) {
  Py_ssize_t n = PyTuple_Size(plan);
  if (n < 0) {
    PyErr_Clear();
    throw std::runtime_error("launch specializer: the plan must be a tuple");
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *p = PyTuple_GET_ITEM(plan, i);
    if (!PyTuple_Check(p) || PyTuple_Size(p) < 4)
      throw std::runtime_error("launch specializer: each plan entry is a 4-tuple");
    params_.push_back({truthOrThrow(PyTuple_GET_ITEM(p, 0)), truthOrThrow(PyTuple_GET_ITEM(p, 1)),
                       truthOrThrow(PyTuple_GET_ITEM(p, 2)), truthOrThrow(PyTuple_GET_ITEM(p, 3))});
  }
  try {
    Py_INCREF(callback);
    callback_ = callback;
    // state: the specialize module. The torch type set and the dtype-name cache are looked up
    // on it at every call (tests replace them); the marker and buffer classes are fixed.
    Py_INCREF(state);
    state_ = state;
    constexprMark_ = attrOrThrow(state, "CONSTEXPR");
    deviceBufferType_ = attrOrThrow(state, "DeviceBuffer");
    hostBufferType_ = attrOrThrow(state, "HostBuffer");
    elemBytes_ = attrOrThrow(state, "_ELEM_BYTES");
    Ref np(attrOrThrow(state, "np"));
    ndarrayType_ = attrOrThrow(np.p, "ndarray");
    eachString([](PyObject *&slot, const char *text) { slot = intern(text); });
    pointerNames_ = PyDict_New();
    if (!pointerNames_) {
      PyErr_Clear();
      throw std::runtime_error("launch specializer: out of memory");
    }
  } catch (...) {
    release();
    throw;
  }
}

LaunchSpecializer::~LaunchSpecializer() { release(); }

void LaunchSpecializer::release() {
  auto drop = [](PyObject *&slot, const char * = nullptr) {
    Py_XDECREF(slot);
    slot = nullptr;
  };
  eachString(drop);
  for (PyObject **o : {&callback_, &state_, &constexprMark_, &deviceBufferType_, &hostBufferType_,
                       &elemBytes_, &ndarrayType_, &pointerNames_})
    drop(*o);
}

// ("*" + name) for a dtype name, cached.
PyObject *LaunchSpecializer::pointerName(PyObject *name) const {
  PyObject *hit = PyDict_GetItemWithError(pointerNames_, name); // borrowed
  if (hit || PyErr_Occurred())
    return hit;
  Ref s(PyUnicode_FromFormat("*%U", name));
  if (!s.p || PyDict_SetItem(pointerNames_, name, s.p) < 0)
    return nullptr;
  return s.p; // borrowed from the dict from here on
}

// specialize.hashable's tag of a constexpr value of an exact str, bool, float or None (the
// header's rule for them; ints have their own), else null.
PyObject *LaunchSpecializer::simpleTag(PyObject *v) const {
  if (PyUnicode_CheckExact(v))
    return sStr_;
  if (PyBool_Check(v))
    return sBool_;
  if (PyFloat_CheckExact(v))
    return sFloat_;
  return v == Py_None ? sNoneType_ : nullptr;
}

// A pointer argument's key, (ptrName, "D" | None), and its runtime value: the buffer
// namedtuple `type` made of `fields` (null: an error is set) by tuple.__new__(type, fields),
// what the namedtuple's own __new__ does, without running it as Python code.
LaunchSpecializer::Fast LaunchSpecializer::pointerArg(PyObject *type, PyObject *fields,
                                                      PyObject *ptrName, bool aligned,
                                                      PyObject **key, PyObject **rt) const {
  Ref args(fields ? PyTuple_Pack(1, fields) : nullptr);
  if (!args.p)
    return Fast::Error;
  Ref buffer(PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject *>(type), args.p, nullptr));
  if (!buffer.p)
    return Fast::Error;
  *key = PyTuple_Pack(2, ptrName, aligned ? sD_ : Py_None);
  if (!*key)
    return Fast::Error;
  *rt = buffer.release();
  return Fast::Done;
}

// The name the dtype-name cache gives v's dtype (a new reference: the tensor's own methods,
// called after, may replace the cache) and its pointer type "*" + name (borrowed from this
// object's cache); Python where the cache does not name it.
LaunchSpecializer::Fast LaunchSpecializer::dtypeNames(PyObject *v, PyObject **name,
                                                      PyObject **ptrName) const {
  Ref dtype(PyObject_GetAttr(v, sDtype_));
  Ref names(PyObject_GetAttr(state_, sDtypeNames_));
  if (!dtype.p || !names.p)
    return Fast::Error;
  PyObject *found = dtypeName(names.p, dtype.p);
  if (!found)
    return Fast::Python;
  *ptrName = pointerName(found);
  if (!*ptrName)
    return Fast::Error;
  Py_INCREF(found);
  *name = found;
  return Fast::Done;
}

// Done for a tensor whose type is in the set named `types` on the module and whose attribute
// `flag` (is_cuda, is_cpu) is true, with dtypeNames' names; Python for any other argument.
LaunchSpecializer::Fast LaunchSpecializer::knownTensor(PyObject *v, PyObject *types, PyObject *flag,
                                                       PyObject **name, PyObject **ptrName) const {
  Ref set(PyObject_GetAttr(state_, types));
  if (!set.p)
    return Fast::Error;
  if (!PySet_Check(set.p))
    return Fast::Python;
  int known = PySet_Contains(set.p, reinterpret_cast<PyObject *>(Py_TYPE(v)));
  if (known <= 0)
    return known < 0 ? Fast::Error : Fast::Python;
  Ref on(PyObject_GetAttr(v, flag));
  int yes = on.p ? PyObject_IsTrue(on.p) : -1;
  if (yes <= 0)
    return yes < 0 ? Fast::Error : Fast::Python;
  return dtypeNames(v, name, ptrName);
}

// The key and runtime of one CUDA tensor (the header's rule for CUDA tensors). An error raised by
// the tensor's own attributes propagates, as it does from specialize_arg; where Python's rules
// would go on to other cases (an unnamed dtype, an odd data_ptr) the callback decides.
LaunchSpecializer::Fast LaunchSpecializer::cudaTensor(PyObject *v, const Param &p, PyObject **key,
                                                      PyObject **rt) const {
  PyObject *name = nullptr, *ptrName; // name: owned below
  const Fast known = knownTensor(v, sTorchTypes_, sIsCuda_, &name, &ptrName);
  Ref nameRef(name);
  if (known != Fast::Done)
    return known;
  Ref ptr(PyObject_CallMethodNoArgs(v, sDataPtr_));
  if (!ptr.p)
    return Fast::Error;
  unsigned long long address;
  if (!addressOf(ptr.p, address))
    return Fast::Python;
  bool aligned = p.specialize && p.align && address % 16 == 0;
  Ref device(PyObject_CallMethodNoArgs(v, sGetDevice_));
  if (!device.p)
    return Fast::Error;
  // The storage's first byte: data_ptr - storage_offset * element size (alias_classes).
  Ref offset(PyObject_CallMethodNoArgs(v, sStorageOffset_));
  if (!offset.p)
    return Fast::Error;
  PyObject *elemBytes = PyDict_GetItemWithError(elemBytes_, name); // borrowed
  long long off = PyLong_Check(offset.p) ? PyLong_AsLongLong(offset.p) : -1;
  long long bytes = elemBytes ? PyLong_AsLongLong(elemBytes) : -1;
  if (PyErr_Occurred() || off < 0 || bytes <= 0 ||
      static_cast<unsigned long long>(off) > address / static_cast<unsigned long long>(bytes)) {
    PyErr_Clear(); // an odd offset: Python's arithmetic decides
    return Fast::Python;
  }
  Ref lo(PyLong_FromUnsignedLongLong(address - static_cast<unsigned long long>(off) *
                                                   static_cast<unsigned long long>(bytes)));
  Ref fields(lo.p ? PyTuple_Pack(4, ptr.p, device.p, sTorch_, lo.p) : nullptr);
  return pointerArg(deviceBufferType_, fields.p, ptrName, aligned, key, rt);
}

// The key and runtime of one numpy array that owns its memory (the header's rule for numpy arrays):
// its data pointer and size through the buffer protocol, where Python reads
// __array_interface__ (a dict built at each call). An array that exports no buffer (a dtype
// without a buffer format) goes to Python, as do views.
LaunchSpecializer::Fast LaunchSpecializer::hostArray(PyObject *v, const Param &p, PyObject **key,
                                                     PyObject **rt) const {
  Ref base(PyObject_GetAttr(v, sBase_));
  if (!base.p)
    return Fast::Error;
  if (base.p != Py_None)
    return Fast::Python;
  PyObject *name = nullptr, *ptrName; // name: owned below
  const Fast named = dtypeNames(v, &name, &ptrName);
  Ref nameRef(name);
  if (named != Fast::Done)
    return named;
  Py_buffer view;
  if (PyObject_GetBuffer(v, &view, PyBUF_RECORDS_RO) < 0) {
    PyErr_Clear();
    return Fast::Python;
  }
  const auto address = reinterpret_cast<uintptr_t>(view.buf);
  const auto bytes = static_cast<uintptr_t>(view.len);
  PyBuffer_Release(&view);
  Ref ptr(PyLong_FromUnsignedLongLong(address));
  Ref hi(PyLong_FromUnsignedLongLong(address + bytes));
  Ref fields(ptr.p && hi.p ? PyTuple_Pack(3, ptr.p, ptr.p, hi.p) : nullptr);
  return pointerArg(hostBufferType_, fields.p, ptrName,
                    p.specialize && p.align && address % 16 == 0, key, rt);
}

// The key and runtime of one CPU tensor (the header's rule for CPU tensors), as cudaTensor reads a
// CUDA one: an error raised by the tensor's own attributes propagates.
LaunchSpecializer::Fast LaunchSpecializer::hostTensor(PyObject *v, const Param &p, PyObject **key,
                                                      PyObject **rt) const {
  PyObject *name = nullptr, *ptrName; // name: owned below
  const Fast known = knownTensor(v, sHostTypes_, sIsCpu_, &name, &ptrName);
  Ref nameRef(name);
  if (known != Fast::Done)
    return known;
  Ref ptr(PyObject_CallMethodNoArgs(v, sDataPtr_));
  Ref storage(ptr.p ? PyObject_CallMethodNoArgs(v, sStorage_) : nullptr);
  Ref lo(storage.p ? PyObject_CallMethodNoArgs(storage.p, sDataPtr_) : nullptr);
  Ref bytes(lo.p ? PyObject_CallMethodNoArgs(storage.p, sNbytes_) : nullptr);
  if (!bytes.p)
    return Fast::Error;
  unsigned long long address;
  if (!PyLong_Check(lo.p) || !PyLong_Check(bytes.p) || !addressOf(ptr.p, address))
    return Fast::Python;
  Ref hi(PyNumber_Add(lo.p, bytes.p));
  Ref fields(hi.p ? PyTuple_Pack(3, ptr.p, lo.p, hi.p) : nullptr);
  return pointerArg(hostBufferType_, fields.p, ptrName,
                    p.specialize && p.align && address % 16 == 0, key, rt);
}

PyObject *LaunchSpecializer::specialize(PyObject *bound, bool warmup) const {
  Py_ssize_t n = PyTuple_Size(bound);
  if (n < 0)
    return nullptr;
  if (static_cast<size_t>(n) != params_.size()) {
    PyErr_SetString(PyExc_TypeError, "launch specializer: wrong number of arguments");
    return nullptr;
  }
  Ref keys(PyTuple_New(n));
  Ref runtime(PyList_New(n));
  if (!keys.p || !runtime.p)
    return nullptr;
  PyObject *dev = Py_None; // borrowed: the first DeviceBuffer (owned by `runtime`)
  bool host = false, check = false, shared = false;
  bool direct = true; // every DeviceBuffer torch's (the launch addresses of the header)
  // Allocations seen (HostBuffer.lo, DeviceBuffer.ptr; borrowed from `runtime`), compared as
  // Python compares the members of its set.
  std::vector<PyObject *> seen;
  auto markSeen = [&](PyObject *addr) {
    for (PyObject *s : seen) {
      int eq = PyObject_RichCompareBool(s, addr, Py_EQ);
      if (eq < 0)
        return false;
      shared = shared || eq;
    }
    seen.push_back(addr);
    return true;
  };
  for (Py_ssize_t i = 0; i < n; ++i) {
    const Param &p = params_[i];
    PyObject *v = PyTuple_GET_ITEM(bound, i);
    PyObject *key = nullptr, *rt = nullptr;
    if (PyLong_CheckExact(v) && !p.annotated) {
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
      if (!overflow && x >= INT32_MIN && x <= INT32_MAX) {
        if (p.isConstexpr || (p.specialize && x == 1)) {
          Ref inner(PyTuple_Pack(2, sInt_, v));
          key = inner.p ? PyTuple_Pack(2, sConstexpr_, inner.p) : nullptr;
          rt = constexprMark_;
          Py_INCREF(rt);
        } else {
          key = PyTuple_Pack(2, sI32_, p.specialize && p.align && divisible16(x) ? sD_ : Py_None);
          rt = v;
          Py_INCREF(rt);
        }
        if (!key) {
          Py_XDECREF(rt);
          return nullptr;
        }
      }
    } else if (PyObject *tag = p.isConstexpr ? simpleTag(v) : nullptr) {
      Ref inner(PyTuple_Pack(2, tag, v));
      key = inner.p ? PyTuple_Pack(2, sConstexpr_, inner.p) : nullptr;
      if (!key)
        return nullptr;
      rt = constexprMark_;
      Py_INCREF(rt);
    } else if (PyFloat_CheckExact(v) && !p.annotated && !p.isConstexpr) {
      key = PyTuple_Pack(2, sFp32_, Py_None);
      if (!key)
        return nullptr;
      rt = v;
      Py_INCREF(rt);
    } else if (!p.annotated && !p.isConstexpr) {
      Fast f = Py_TYPE(v) == reinterpret_cast<PyTypeObject *>(ndarrayType_)
                   ? hostArray(v, p, &key, &rt)
                   : cudaTensor(v, p, &key, &rt);
      if (f == Fast::Python && !key)
        f = hostTensor(v, p, &key, &rt);
      if (f == Fast::Error)
        return nullptr;
    }
    if (!key) { // not a common type: the Python rules of this parameter
      Ref out(PyObject_CallFunction(callback_, "nOO", i, v, warmup ? Py_True : Py_False));
      if (!out.p)
        return nullptr;
      if (!PyTuple_Check(out.p) || PyTuple_Size(out.p) != 2) {
        PyErr_SetString(PyExc_TypeError, "launch specializer: the callback returns (key, rt)");
        return nullptr;
      }
      key = PyTuple_GET_ITEM(out.p, 0);
      rt = PyTuple_GET_ITEM(out.p, 1);
      Py_INCREF(key);
      Py_INCREF(rt);
    }
    PyTuple_SET_ITEM(keys.p, i, key);  // steals
    PyList_SET_ITEM(runtime.p, i, rt); // steals
    PyObject *cls = reinterpret_cast<PyObject *>(Py_TYPE(rt));
    if (cls == hostBufferType_) {
      host = true;
      if (!markSeen(PyTuple_GET_ITEM(rt, 1)))
        return nullptr;
    } else if (cls == deviceBufferType_) {
      if (dev != Py_None) {
        int differ =
            PyObject_RichCompareBool(PyTuple_GET_ITEM(rt, 1), PyTuple_GET_ITEM(dev, 1), Py_NE);
        if (differ < 0)
          return nullptr;
        check = check || differ;
      } else {
        dev = rt;
      }
      if (!markSeen(PyTuple_GET_ITEM(rt, 3)))
        return nullptr;
      PyObject *owner = PyTuple_GET_ITEM(rt, 2);
      if (owner != sTorch_) {
        int torch = PyObject_RichCompareBool(owner, sTorch_, Py_EQ);
        if (torch < 0)
          return nullptr;
        direct = direct && torch;
      }
    } else if (cls == reinterpret_cast<PyObject *>(&PyTuple_Type)) {
      check = shared = true;
    }
  }
  bool checkDevices = check || (host && dev != Py_None);
  Ref addresses(direct && !host && !check && dev != Py_None ? PyList_New(n) : nullptr);
  if (addresses.p) {
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject *rt = PyList_GET_ITEM(runtime.p, i);
      PyObject *arg = Py_TYPE(rt) == reinterpret_cast<PyTypeObject *>(deviceBufferType_)
                          ? PyTuple_GET_ITEM(rt, 0)
                      : rt == constexprMark_ ? PyTuple_GET_ITEM(bound, i)
                                             : rt;
      Py_INCREF(arg);
      PyList_SET_ITEM(addresses.p, i, arg);
    }
  } else if (PyErr_Occurred()) {
    return nullptr;
  }
  return Py_BuildValue("(OOOOOO)", keys.p, runtime.p, dev, shared ? Py_True : Py_False,
                       checkDevices ? Py_True : Py_False, addresses.p ? addresses.p : Py_None);
}

} // namespace tt::py_runtime
