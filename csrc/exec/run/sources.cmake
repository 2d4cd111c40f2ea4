# run: the entry the bindings call: prepares a TTIR or Tile IR kernel (sinking, the Compiler,
# the checker's per-program state) and runs its programs over the grid on the thread pool
# (interpreter.cpp). Depends on every other room.
tt_exec_room(run
  SOURCES interpreter.cpp
  DEPS tt_exec_tile tt_exec_kernels tt_exec_compiler tt_exec_tileir tt_exec_runtime tt_base)
