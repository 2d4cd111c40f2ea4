# tile: the Tile IR executor: Tile IR preparation in the Compiler (tile_compiler), its emitters
# (tile_*.cpp map cuda_tile ops to the kernels room's shared emitters), structured control flow
# with early exits, tensor/partition views, and the token-order checker (tile_check). Depends on
# kernels, compiler, tileir, runtime and the IR.
tt_exec_room(tile
  SOURCES tile_check.cpp tile_compiler.cpp tile_compute.cpp tile_control.cpp tile_elementwise.cpp
    tile_memory.cpp tile_misc.cpp tile_shape.cpp tile_view.cpp
  DEPS tt_exec_kernels tt_exec_compiler tt_exec_tileir tt_exec_runtime tt_base)
