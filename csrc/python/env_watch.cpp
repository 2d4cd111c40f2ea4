// The launch path's environment token: rules in env_watch.h.
#include "python/env_watch.h"

#include <stdexcept>

namespace tt::py_runtime {

EnvWatch::EnvWatch(PyObject *data, PyObject *keys) {
  if (!PyDict_Check(data) || !PyTuple_Check(keys))
    throw std::invalid_argument("EnvWatch: expected (dict, tuple of bytes)");
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(keys); ++i)
    if (!PyBytes_Check(PyTuple_GET_ITEM(keys, i)))
      throw std::invalid_argument("EnvWatch: the keys must be bytes");
  seen_ = PyDict_New();
  if (!seen_) {
    PyErr_Clear();
    throw std::runtime_error("EnvWatch: out of memory");
  }
  Py_INCREF(data);
  Py_INCREF(keys);
  data_ = data;
  keys_ = keys;
  last_.assign(static_cast<size_t>(PyTuple_GET_SIZE(keys)), nullptr);
}

EnvWatch::~EnvWatch() {
  for (PyObject *v : last_)
    Py_XDECREF(v);
  Py_XDECREF(current_);
  Py_XDECREF(seen_);
  Py_XDECREF(keys_);
  Py_XDECREF(data_);
}

PyObject *EnvWatch::token() {
  const Py_ssize_t n = PyTuple_GET_SIZE(keys_);
  bool same = valid_;
  for (Py_ssize_t i = 0; i < n && same; ++i) {
    PyObject *v = PyDict_GetItemWithError(data_, PyTuple_GET_ITEM(keys_, i)); // borrowed
    if (!v && PyErr_Occurred())
      return nullptr;
    same = v == last_[static_cast<size_t>(i)];
  }
  if (same) {
    Py_INCREF(current_);
    return current_;
  }
  // A change: take the new values, then name them.
  PyObject *raw = PyTuple_New(n);
  if (!raw)
    return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *v = PyDict_GetItemWithError(data_, PyTuple_GET_ITEM(keys_, i));
    if (!v && PyErr_Occurred()) {
      Py_DECREF(raw);
      return nullptr;
    }
    PyObject *item = v ? v : Py_None;
    Py_INCREF(item);
    PyTuple_SET_ITEM(raw, i, item);
  }
  PyObject *tok = PyDict_GetItemWithError(seen_, raw); // borrowed
  if (!tok) {
    if (PyErr_Occurred()) {
      Py_DECREF(raw);
      return nullptr;
    }
    tok = PyLong_FromSsize_t(PyDict_GET_SIZE(seen_));
    if (!tok || PyDict_SetItem(seen_, raw, tok) < 0) {
      Py_XDECREF(tok);
      Py_DECREF(raw);
      return nullptr;
    }
    Py_DECREF(tok); // the dict holds it
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PyTuple_GET_ITEM(raw, i);
    PyObject *held = item == Py_None ? nullptr : item;
    Py_XINCREF(held);
    Py_XDECREF(last_[static_cast<size_t>(i)]);
    last_[static_cast<size_t>(i)] = held;
  }
  Py_DECREF(raw);
  Py_INCREF(tok);
  Py_XDECREF(current_);
  current_ = tok;
  valid_ = true;
  Py_INCREF(current_);
  return current_;
}

} // namespace tt::py_runtime
