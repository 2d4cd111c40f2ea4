// The CUDA Tile IR op set (cuda_tile.*). Registered by the Tile IR issue; empty until then.
#include "ir/op_registry.h"

namespace tt {

void registerTileOps() {}

} // namespace tt
