// The launch path's environment token (knobs.code_env_token): a small int that names the raw
// values of the environment variables that change generated code, so that in-memory cache
// keys hash and compare one int instead of an 18-tuple of bytes (rebuilding that tuple was the
// largest single cost of a cached launch after the specializer: docs/gpu_perf_notes.md).
//
// Rules:
//  - Each call looks every key up in the environment's byte dict (os.environ._data) and
//    compares the values it finds by identity with those of the last call. A new value object
//    is a change; the last values are held (strong references), so an address seen again is
//    the same object, never a freed one reused.
//  - On a change the raw values as a tuple are looked up in a table of the tuples seen so far:
//    an environment seen before gets its old token back (toggling a variable does not grow the
//    callers' caches), a new one gets the next int.
// Limits: what os.environ does not see (C code calling setenv) is not seen, as for os.environ.
#pragma once

#include <Python.h>

#include <vector>

namespace tt::py_runtime {

class EnvWatch {
public:
  // data: the environment's dict of bytes (borrowed for the watch's life: a new reference is
  // taken); keys: a tuple of bytes.
  EnvWatch(PyObject *data, PyObject *keys);
  ~EnvWatch();
  EnvWatch(const EnvWatch &) = delete;
  EnvWatch &operator=(const EnvWatch &) = delete;

  // The token as a new reference, or null with a Python error set.
  PyObject *token();

private:
  PyObject *data_ = nullptr, *keys_ = nullptr;
  std::vector<PyObject *> last_; // the values of the last call (owned; null for absent)
  PyObject *current_ = nullptr;  // the token of `last_` (owned)
  PyObject *seen_ = nullptr;     // dict: tuple of raw values -> token
  bool valid_ = false;           // whether `last_` and `current_` were filled
};

} // namespace tt::py_runtime
