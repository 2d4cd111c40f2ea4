# cmake -DROOT=<source dir> -DOUT=<header> -P source_hash.cmake
#
# Writes `#define TT_SOURCE_HASH "<sha256>"`: a hash of the C++ sources and build files by
# relative path and content. Kernel cache keys use it (runtime/cache.py) instead of the bytes
# of the built library, so a cache built on one machine stays valid on another machine built
# from the same sources with another compiler or Python. The header is rewritten only when the
# hash changes, so unchanged sources rebuild nothing.
file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/csrc/*.h" "${ROOT}/csrc/*.cpp"
     "${ROOT}/csrc/*.cmake")
list(APPEND files CMakeLists.txt)
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
