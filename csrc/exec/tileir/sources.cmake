# tileir: Tile IR facts that need no compiler: which shared kernel runs a cuda_tile op given its
# attributes (tile_ops), and the sinking of pure ops into branches on the executor's copy of a
# module (tile_sink), and the race checker's tokens for data dependences (tile_data_order).
# Depends on the IR only (tt_base).
tt_exec_room(tileir
  SOURCES tile_data_order.cpp tile_ops.cpp tile_sink.cpp
  DEPS tt_base)
