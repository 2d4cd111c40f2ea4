# kernels: the kernel library both executors run (shared_emit.h: elementwise, casts, memory
# with compact pointer tiles, shape ops, reductions and scans, dot, copies between control
# flow registers, prints and asserts) and the TTIR op set's emitters, which sit next to their
# kernels since a TTIR op's name is its kernel's name. Depends on compiler, tileir (Tile IR
# kernel names), runtime and the IR; not on the tile room.
tt_exec_room(kernels
  SOURCES cast_ops.cpp compact_ptr.cpp control_flow.cpp dot.cpp elementwise.cpp ew_cmp.cpp
    ew_float.cpp ew_int.cpp gemm.cpp memory.cpp misc_ops.cpp reduce.cpp shape_ops.cpp
  DEPS tt_exec_compiler tt_exec_tileir tt_exec_runtime tt_base)
# Eigen runs tl.dot's f64 (and f32 without AVX2) GEMMs (gemm.cpp); without it, a blocked loop.
if(Eigen3_FOUND)
  target_link_libraries(tt_exec_kernels PRIVATE Eigen3::Eigen)
  target_compile_definitions(tt_exec_kernels PRIVATE TT_HAVE_EIGEN=1)
endif()
