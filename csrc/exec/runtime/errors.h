// Errors the CPU executors throw. The Python bindings translate them: ExecError ->
// RuntimeError, OutOfBoundsError -> IndexError, DeviceAssertError -> AssertionError. Messages
// are complete sentences that name the op (or kernel) and its source location.
#pragma once

#include <stdexcept>
#include <string>

namespace tt::exec {

class ExecError : public std::runtime_error {
public:
  explicit ExecError(const std::string &msg) : std::runtime_error(msg) {}
};

class OutOfBoundsError : public ExecError {
public:
  explicit OutOfBoundsError(const std::string &msg) : ExecError(msg) {}
};

class DeviceAssertError : public ExecError {
public:
  explicit DeviceAssertError(const std::string &msg) : ExecError(msg) {}
};

// The Tile IR checker found two accesses that no chain of tokens orders (tile_check.h); a
// RuntimeError in Python.
class UnorderedAccessError : public ExecError {
public:
  explicit UnorderedAccessError(const std::string &msg) : ExecError(msg) {}
};

} // namespace tt::exec
