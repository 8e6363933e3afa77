// Which core of the Atlas A2's split AI Core runs a tile-program instruction in a mixed kernel:
// the emitter splits programs by it, the sim:910b cost model accounts them by it.
#pragma once

#include "registry/tile_program.h"

namespace asc::ascend::a2 {

// L1/L0 work (copies into L1, load_l0, Load3D, mmad, writes out of L0C) runs on the AIC, UB work
// on the AIVs.
inline bool cube_side(const TileProgram& p, const Instr& in) {
  switch (in.kind) {
    case InstrKind::kLoadL0:
    case InstrKind::kLoadIm2col:
    case InstrKind::kMmad:
      return true;
    case InstrKind::kCopyIn:
      return p.buffers[static_cast<size_t>(in.dst)].pos != Pos::kUB;
    case InstrKind::kCopyOut:
      return p.buffers[static_cast<size_t>(in.src[0])].pos != Pos::kUB;
    default:
      return false;
  }
}

}  // namespace asc::ascend::a2
