// Whether the process may touch an address range: the check for pointers whose provenance is
// not a kernel argument (made by tt.int_to_ptr or loaded from memory, as grouped GEMM's pointer
// tables are), so that a wild one raises IndexError instead of crashing Python.
//
// The answer comes from the process's memory mappings (/proc/self/maps on Linux): the range
// must lie in mappings that are readable (and writable, for stores and atomics). A snapshot is
// cached and, with `reload`, read again when a range misses it (memory mapped since): callers
// test a span of lanes without reloading, then each lane with it, so lanes spread over several
// allocations never reread the file. Limits: it cannot tell one allocation from the next (a
// pointer past its array into a neighbouring live mapping is not caught); memory unmapped or
// made read-only after the snapshot still passes (a dangling pointer into a freed large array
// can crash); where /proc/self/maps is missing every range is taken as accessible.
#pragma once

#include <cstdint>

namespace tt::exec {

bool mappedMemory(uint64_t addr, uint64_t bytes, bool write, bool reload);

} // namespace tt::exec
