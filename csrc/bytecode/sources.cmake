list(APPEND TT_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/debug_info.cpp
  ${CMAKE_CURRENT_LIST_DIR}/emit_module.cpp
  ${CMAKE_CURRENT_LIST_DIR}/emit_types.cpp
  ${CMAKE_CURRENT_LIST_DIR}/emit_values.cpp
  ${CMAKE_CURRENT_LIST_DIR}/op_specs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/writer.cpp)
