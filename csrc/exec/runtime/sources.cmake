# runtime: what the executors need from the process, nothing of the IR: the persistent thread
# pool, the mapped-memory check for pointers of unknown provenance, the per-thread tile memo,
# vector byte copies and the error types. Depends on nothing (threads only).
tt_exec_room(runtime
  SOURCES mapped_memory.cpp thread_pool.cpp tile_memo.cpp
  DEPS Threads::Threads)
