# compiler: the Compiler both op sets share (compiler.h: storage classes, liveness, registers,
# emission), the flat program model (program.h, dtype.h), load forwarding, and the analyses it
# runs first: strides and compact pointers (affine), pointer origins (origin). Depends on
# tileir, runtime and the IR. UP: the emitter tables of Compiler::emitOp name the kernels
# room's TTIR emitters and the tile room's Tile IR emitters, and Tile IR preparation
# (classifyTileOp, analyzeTile, exitTarget) lives in the tile room: these calls go up.
tt_exec_room(compiler
  SOURCES affine.cpp compiler.cpp forward.cpp origin.cpp
  DEPS tt_exec_tileir tt_exec_runtime tt_base
  UP tt_exec_kernels tt_exec_tile
  UP_SYMBOLS
    # kernels: the TTIR emitters emitElementwise, emitCast, emitMemory, emitShape, emitReduce,
    # emitDot, emitControlFlow, emitMisc (Compiler::emitOp's table); fillKernel
    # (control_flow.cpp); isElementwiseOp, readsOperandsThroughRefs (elementwise.cpp);
    # emitDivisibilityCheck (misc_ops.cpp: a TTIR op's tt.divisibility, after its emitter).
    tt_exec_kernels:_ZN2tt4exec21emitDivisibilityCheckERNS0_8CompilerERKNS_9OperationEPKNS_5ValueEl
    tt_exec_kernels:_ZN2tt4exec10emitMemoryERNS0_8CompilerERKNS_9OperationE
    tt_exec_kernels:_ZN2tt4exec10emitReduceERNS0_8CompilerERKNS_9OperationE
    tt_exec_kernels:_ZN2tt4exec10fillKernelEi
    tt_exec_kernels:_ZN2tt4exec15emitControlFlowERNS0_8CompilerERKNS_9OperationE
    tt_exec_kernels:_ZN2tt4exec15emitElementwiseERNS0_8CompilerERKNS_9OperationE
    tt_exec_kernels:_ZN2tt4exec15isElementwiseOpERKNS_9OperationE
    tt_exec_kernels:_ZN2tt4exec24readsOperandsThroughRefsERKNS0_8CompilerERKNS_9OperationE
    tt_exec_kernels:_ZN2tt4exec7emitDotERNS0_8CompilerERKNS_9OperationE
    tt_exec_kernels:_ZN2tt4exec8emitCastERNS0_8CompilerERKNS_9OperationE
    tt_exec_kernels:_ZN2tt4exec8emitMiscERNS0_8CompilerERKNS_9OperationE
    tt_exec_kernels:_ZN2tt4exec9emitShapeERNS0_8CompilerERKNS_9OperationE
    # tile: the Tile IR emitters emitTileElementwise, emitTileShape, emitTileMemory,
    # emitTileCompute, emitTileControl, emitTileMisc (Compiler::emitOp's table);
    # Compiler::classifyTileOp and Compiler::analyzeTile (tile_compiler.cpp); exitTarget
    # (tile_control.cpp: affine.cpp and origin.cpp follow Tile IR terminators with it).
    tt_exec_tile:_ZN2tt4exec10exitTargetERKNS_9OperationE
    tt_exec_tile:_ZN2tt4exec12emitTileMiscERNS0_8CompilerERKNS_9OperationE
    tt_exec_tile:_ZN2tt4exec13emitTileShapeERNS0_8CompilerERKNS_9OperationE
    tt_exec_tile:_ZN2tt4exec14emitTileMemoryERNS0_8CompilerERKNS_9OperationE
    tt_exec_tile:_ZN2tt4exec15emitTileComputeERNS0_8CompilerERKNS_9OperationE
    tt_exec_tile:_ZN2tt4exec15emitTileControlERNS0_8CompilerERKNS_9OperationE
    tt_exec_tile:_ZN2tt4exec19emitTileElementwiseERNS0_8CompilerERKNS_9OperationE
    tt_exec_tile:_ZN2tt4exec8Compiler11analyzeTileERKNS_9OperationE
    tt_exec_tile:_ZN2tt4exec8Compiler14classifyTileOpERKNS_9OperationE)
