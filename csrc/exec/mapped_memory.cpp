#include "exec/mapped_memory.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

namespace tt::exec {
namespace {

// Maximal runs of adjacent mappings with a permission, sorted by address.
struct Mappings {
  std::vector<std::pair<uint64_t, uint64_t>> readable, writable;
  bool known = false; // false: no /proc/self/maps here
};

void addRun(std::vector<std::pair<uint64_t, uint64_t>> &runs, uint64_t lo, uint64_t hi) {
  if (!runs.empty() && runs.back().second == lo)
    runs.back().second = hi;
  else
    runs.emplace_back(lo, hi);
}

std::shared_ptr<const Mappings> readMappings() {
  auto m = std::make_shared<Mappings>();
  std::FILE *f = std::fopen("/proc/self/maps", "r");
  if (!f)
    return m;
  m->known = true;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    unsigned long long lo, hi;
    char perms[5] = {0};
    if (std::sscanf(line, "%llx-%llx %4s", &lo, &hi, perms) != 3)
      continue;
    if (perms[0] == 'r')
      addRun(m->readable, lo, hi);
    if (perms[0] == 'r' && perms[1] == 'w')
      addRun(m->writable, lo, hi);
  }
  std::fclose(f);
  return m;
}

bool covered(const std::vector<std::pair<uint64_t, uint64_t>> &runs, uint64_t lo, uint64_t hi) {
  auto it = std::upper_bound(runs.begin(), runs.end(), std::make_pair(lo, UINT64_MAX));
  if (it == runs.begin())
    return false;
  --it;
  return lo >= it->first && hi <= it->second;
}

bool inside(const Mappings &m, uint64_t lo, uint64_t hi, bool write) {
  return !m.known || covered(write ? m.writable : m.readable, lo, hi);
}

std::shared_ptr<const Mappings> snapshot;
std::mutex reload;

} // namespace

bool mappedMemory(uint64_t addr, uint64_t bytes, bool write) {
  uint64_t hi = addr + bytes;
  if (hi < addr)
    return false;
  std::shared_ptr<const Mappings> m = std::atomic_load(&snapshot);
  if (m && inside(*m, addr, hi, write))
    return true;
  std::lock_guard<std::mutex> lock(reload);
  m = readMappings();
  std::atomic_store(&snapshot, m);
  return inside(*m, addr, hi, write);
}

} // namespace tt::exec
