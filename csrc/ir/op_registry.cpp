#include "ir/op_registry.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace tt {
namespace {

struct Registry {
  std::unordered_map<std::string, std::unique_ptr<OpInfo>> ops;
};

Registry &registry() {
  static Registry *r = new Registry();
  return *r;
}

std::once_flag &dialectsOnce() {
  static std::once_flag f;
  return f;
}

// Op sets register lazily on first lookup: static initializers in a static library are not
// guaranteed to run, an explicit call is.
void ensureDialects() {
  std::call_once(dialectsOnce(), [] {
    registerTTIROps();
    registerTileOps();
  });
}

} // namespace

void registerOp(OpInfo info) {
  std::string name = info.name;
  registry().ops[name] = std::make_unique<OpInfo>(std::move(info));
}

const OpInfo *lookupOp(const std::string &name) {
  ensureDialects();
  auto &ops = registry().ops;
  auto it = ops.find(name);
  return it == ops.end() ? nullptr : it->second.get();
}

std::vector<std::string> registeredOps() {
  ensureDialects();
  std::vector<std::string> names;
  for (const auto &entry : registry().ops)
    names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace tt
