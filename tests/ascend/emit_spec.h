// The specs the emission test plans for: the 910B itself, and the 910B with local memories cut
// to 1/16 and 3 cores, so that tails, many tiles and several tiles per core happen.
#pragma once

#include "registry/device_spec.h"

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

}  // namespace asc::test
