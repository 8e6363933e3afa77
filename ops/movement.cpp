// Shape and layout movement: Reshape, Shape, Size, Flatten, Squeeze, Unsqueeze, Identity, Concat,
// Split, Slice, Expand, Tile, Pad, ConstantOfShape, Range, EyeLike, Trilu, DepthToSpace,
// SpaceToDepth.
#include "ops/ops.h"

namespace asc {

void register_movement(Registry& r) {
  (void)r;
}

}  // namespace asc
