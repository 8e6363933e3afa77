// Spatial neural-net ops: Conv, ConvTranspose, pools, MaxUnpool, Resize, Upsample, GridSample,
// RoiAlign.
#include "ops/ops.h"

namespace asc {

void register_nn(Registry& r) {
  (void)r;
}

}  // namespace asc
