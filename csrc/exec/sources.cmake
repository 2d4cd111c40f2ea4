list(APPEND TT_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/affine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cast_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compact_ptr.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/control_flow.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dot.cpp
  ${CMAKE_CURRENT_LIST_DIR}/elementwise.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ew_cmp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ew_float.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ew_int.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interpreter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/misc_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shape_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/thread_pool.cpp)
