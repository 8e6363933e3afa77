// The specs the emission test plans for: the 910B itself, and the 910B with local memories cut
// to 1/16 and 3 cores, so that tails, many tiles and several tiles per core happen.
#pragma once

#include <string_view>

#include "registry/device_spec.h"
#include "registry/op_def.h"

namespace asc::test {

inline DeviceSpec emit_spec(int variant) {
  DeviceSpec s = ascend910b();
  if (variant == 1) {
    s.ub_bytes /= 16;
    s.l1_bytes /= 16;
    s.l0a_bytes /= 16;
    s.l0b_bytes /= 16;
    s.l0c_bytes /= 16;
    s.vector_cores = s.cube_cores = 3;
  }
  return s;
}

// Tile-kernel ops (and cases) the emitter does not take: ai.asc PackedMatMul, FusedConv5HD, and
// FusedConv with `panel` set, read a weight stored in the cpu device's packed layout
// (runtime/weight_pack.h, runtime/layout_5hd.h), which only the cpu device's load makes; a model
// for the ascend device keeps its weights as they are (docs/ASCENDC.md).
inline bool emission_exempt(const OpDef& op, const Attrs& attrs = {}) {
  return op.domain == "ai.asc" && (op.type == "PackedMatMul" || op.type == "FusedConv5HD" ||
                                   (op.type == "FusedConv" && attrs.i("panel", 0) > 0));
}

}  // namespace asc::test
