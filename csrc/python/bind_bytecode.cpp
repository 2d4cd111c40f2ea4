// Bindings for the Tile IR bytecode stage: Tile IR module -> bytecode, and the reader's
// round trip and listing (used by tests and `kernel.asm`).
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bytecode/emit_module.h"
#include "bytecode/op_specs.h"
#include "bytecode/reader.h"

namespace py = pybind11;
using namespace tt;

namespace {

py::bytes toBytes(const std::vector<uint8_t> &b) {
  return py::bytes(reinterpret_cast<const char *>(b.data()), b.size());
}

std::vector<uint8_t> fromBytes(const py::bytes &b) {
  std::string s = b;
  return std::vector<uint8_t>(s.begin(), s.end());
}

} // namespace

void bindBytecode(py::module_ &m) {
  m.def(
      "tile_to_bytecode",
      [](const Module &mod, const std::optional<std::string> &version, bool lineInfo) {
        return toBytes(version
                           ? bytecode::writeModule(mod, bytecode::parseVersion(*version), lineInfo)
                           : bytecode::writeModule(mod, lineInfo));
      },
      py::arg("module"), py::arg("version") = py::none(), py::arg("line_info") = true,
      "Tile IR module -> bytecode (bytes); version '13.3'/'13.4', default: the oldest that "
      "expresses the module (13.3 unless a 13.4-only op is used); line_info: the ops' source "
      "positions in a Debug section, for tileiras --lineinfo.");
  m.def(
      "bytecode_version", [](const Module &mod) { return bytecode::chooseVersion(mod).str(); },
      py::arg("module"));
  m.def(
      "bytecode_reencode",
      [](const py::bytes &data) {
        return toBytes(bytecode::reencode(bytecode::readModule(fromBytes(data))));
      },
      py::arg("data"), "Decodes and re-encodes bytecode (byte-exact for our writer's output).");
  m.def("bytecode_layouts", [] {
    std::vector<std::string> names;
    for (const bytecode::OpSpec &s : bytecode::allOpSpecs())
      names.push_back(s.name);
    return names;
  });
  m.def(
      "bytecode_dump",
      [](const py::bytes &data) { return bytecode::readModule(fromBytes(data)).dump(); },
      py::arg("data"));
}
