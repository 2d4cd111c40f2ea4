# cmake -DROOT=<source dir> -DOUT=<header> -P source_hash.cmake
#
# Writes `#define TT_SOURCE_HASH "<sha256>"`: a hash of the C++ sources and build files by
# relative path and content. Kernel cache keys use it (runtime/cache.py) instead of the bytes
# of the built library, so a cache built on one machine stays valid on another machine built
# from the same sources with another compiler or Python. The header is rewritten only when the
# hash changes, so unchanged sources rebuild nothing.
#
# Only the code that produces cached artifacts counts: the IR, the op sets, the passes, the
# conversion and the bytecode writer. The executors (exec/), the driver (cuda/) and the
# bindings run what the cache holds (CPU programs are re-prepared at every load), so changing
# them must not invalidate a cache built ahead of time for a GPU machine.
set(files "")
foreach(dir ir ttir tile passes conversion bytecode)
  file(GLOB_RECURSE part RELATIVE "${ROOT}" "${ROOT}/csrc/${dir}/*.h" "${ROOT}/csrc/${dir}/*.cpp"
       "${ROOT}/csrc/${dir}/*.cmake")
  list(APPEND files ${part})
endforeach()
list(SORT files)
set(all "")
foreach(f IN LISTS files)
  file(SHA256 "${ROOT}/${f}" h)
  string(APPEND all "${f} ${h}\n")
endforeach()
string(SHA256 hash "${all}")
set(text "#define TT_SOURCE_HASH \"${hash}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
