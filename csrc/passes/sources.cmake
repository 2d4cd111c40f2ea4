list(APPEND TT_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/assert_contracts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/block_pointer_loops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/canonicalize.cpp
  ${CMAKE_CURRENT_LIST_DIR}/covered_reads.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cse.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fuse_fma.cpp
  ${CMAKE_CURRENT_LIST_DIR}/grid_stride_loops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/inline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/insert_memory_tokens.cpp
  ${CMAKE_CURRENT_LIST_DIR}/licm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loop_pointers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lower_block_pointers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pipeline.cpp)
