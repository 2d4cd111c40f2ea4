#include "exec/runtime/mapped_memory.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
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
  std::ifstream f("/proc/self/maps");
  if (!f)
    return m;
  m->known = true;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    uint64_t lo = 0, hi = 0;
    char dash = 0;
    std::string perms;
    if (!(in >> std::hex >> lo >> dash >> hi >> perms) || dash != '-' || perms.size() < 2)
      continue;
    if (perms[0] == 'r')
      addRun(m->readable, lo, hi);
    if (perms[0] == 'r' && perms[1] == 'w')
      addRun(m->writable, lo, hi);
  }
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

// The shared snapshot and its generation; each thread keeps its own reference and takes the
// lock only when the generation moved (a per-lane check must not contend).
std::mutex lock;
std::shared_ptr<const Mappings> shared;
std::atomic<uint64_t> generation{0};

const Mappings &current() {
  thread_local std::shared_ptr<const Mappings> mine;
  thread_local uint64_t seen = ~uint64_t(0);
  uint64_t g = generation.load(std::memory_order_acquire);
  if (g != seen || !mine) {
    std::lock_guard<std::mutex> hold(lock);
    if (!shared)
      shared = readMappings();
    mine = shared;
    seen = generation.load(std::memory_order_relaxed);
  }
  return *mine;
}

} // namespace

bool mappedMemory(uint64_t addr, uint64_t bytes, bool write, bool reload) {
  uint64_t hi = addr + bytes;
  if (hi < addr)
    return false;
  if (inside(current(), addr, hi, write))
    return true;
  if (!reload)
    return false;
  {
    std::lock_guard<std::mutex> hold(lock);
    shared = readMappings();
    generation.fetch_add(1, std::memory_order_release);
  }
  return inside(current(), addr, hi, write);
}

} // namespace tt::exec
