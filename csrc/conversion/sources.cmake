list(APPEND TT_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/convert.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/convert_compute.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/convert_control.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/convert_index.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/convert_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/raise_views.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/index_poly.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/index_bounds.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/index_views.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ttir_to_tile/launch_guard.cpp)
