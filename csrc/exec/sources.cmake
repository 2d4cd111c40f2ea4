# The CPU executors (TTIR and Tile IR), one room per folder, each a static library
# tt_exec_<room> that links only the rooms it may call (docs/architecture.md, "The executor's
# rooms"). Each room's sources.cmake lists its files and calls tt_exec_room; the rooms come
# lowest first.
#
#   tt_exec_room(<room> SOURCES <files in the room's folder>
#                DEPS <libraries it calls, highest first>
#                [UP <rooms above it> UP_SYMBOLS <room>:<mangled symbol>...])
#
# UP names the rooms above it that a room calls back, UP_SYMBOLS exactly which functions: only
# the compiler has such edges (its emitter tables name the TTIR and Tile IR emitters), a cycle
# that CMake links by repeating the archives. The layering check (tt_layer_check) links each
# room with its DEPS and their DEPS, not their UP rooms: an upward call not in UP_SYMBOLS fails.
function(tt_exec_room room)
  cmake_parse_arguments(R "" "" "SOURCES;DEPS;UP;UP_SYMBOLS" ${ARGN})
  set(lib tt_exec_${room})
  list(TRANSFORM R_SOURCES PREPEND "${CMAKE_CURRENT_LIST_DIR}/") # the calling room's folder
  add_library(${lib} STATIC ${R_SOURCES})
  tt_core_flags(${lib})
  target_link_libraries(${lib} PUBLIC ${R_DEPS})
  if(R_UP)
    target_link_libraries(${lib} PRIVATE ${R_UP})
    set_property(TARGET ${lib} PROPERTY LINK_INTERFACE_MULTIPLICITY 3)
  endif()
  # The archives this room may call (its DEPS and theirs) and the upward calls declared on the
  # way, kept as global properties for the rooms above.
  set(closure "")
  set(up ${R_UP_SYMBOLS})
  foreach(dep IN LISTS R_DEPS)
    if(dep MATCHES "^tt_exec_|^tt_base$")
      get_property(dep_closure GLOBAL PROPERTY TT_ROOM_CLOSURE_${dep})
      get_property(dep_up GLOBAL PROPERTY TT_ROOM_UP_${dep})
      list(APPEND closure ${dep} ${dep_closure})
      list(APPEND up ${dep_up})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES closure)
  set_property(GLOBAL PROPERTY TT_ROOM_CLOSURE_${lib} ${closure})
  set_property(GLOBAL PROPERTY TT_ROOM_UP_${lib} ${up})
  set(defsym "")
  foreach(entry IN LISTS up)
    string(REPLACE ":" ";" parts "${entry}")
    list(GET parts 0 target_room)
    list(GET parts 1 sym)
    list(FIND closure ${target_room} in_closure)
    if(NOT target_room STREQUAL lib AND in_closure EQUAL -1)
      list(APPEND defsym ${sym})
    endif()
  endforeach()
  tt_layer_check(${lib} CLOSURE ${closure} DEFSYM ${defsym})
  set(TT_LAYER_CHECKS ${TT_LAYER_CHECKS} PARENT_SCOPE)
endfunction()

foreach(room runtime tileir compiler kernels tile run)
  include("${CMAKE_CURRENT_LIST_DIR}/${room}/sources.cmake")
endforeach()
