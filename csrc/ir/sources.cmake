list(APPEND TT_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/attribute.cpp
  ${CMAKE_CURRENT_LIST_DIR}/builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/op_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/operation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/printer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/type.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verifier.cpp)
