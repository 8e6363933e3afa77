#include "registry/device_spec.h"

namespace asc {

int64_t DeviceSpec::capacity(Pos p) const {
  switch (p) {
    case Pos::kUB:
      return ub_bytes;
    case Pos::kL1:
      return l1_bytes;
    case Pos::kL0A:
      return l0a_bytes;
    case Pos::kL0B:
      return l0b_bytes;
    case Pos::kL0C:
      return l0c_bytes;
    case Pos::kGM:
      return INT64_MAX;
  }
  return 0;
}

int64_t DeviceSpec::alignment(Pos p) const {
  switch (p) {
    case Pos::kL0A:
    case Pos::kL0B:
      return l0ab_align;
    case Pos::kL0C:
      return l0c_align;
    default:
      return block_bytes;
  }
}

std::string DeviceSpec::str() const {
  auto kib = [](int64_t b) { return std::to_string(b / 1024) + "KiB"; };
  return name + ": UB " + kib(ub_bytes) + ", L1 " + kib(l1_bytes) + ", L0A " + kib(l0a_bytes) +
         ", L0B " + kib(l0b_bytes) + ", L0C " + kib(l0c_bytes) + ", " + std::to_string(cube_cores) +
         " cube / " + std::to_string(vector_cores) + " vector cores";
}

DeviceSpec ascend910b() {
  DeviceSpec s;
  s.name = "ascend910b";
  s.ub_bytes = 192 * 1024;
  s.l1_bytes = 512 * 1024;
  s.l0a_bytes = 64 * 1024;
  s.l0b_bytes = 64 * 1024;
  s.l0c_bytes = 128 * 1024;
  s.cube_cores = 24;
  s.vector_cores = 48;
  s.block_bytes = 32;
  s.aligned_rows = true;
  s.repeat_bytes = 256;
  s.fractal = 16;
  s.fractal_layout = true;
  // The cube's matmul costs (MatmulCosts' defaults): B always packed into fractals, a k step's
  // fixed cost ~64 cycles of the 4096-MAC cube (issue, DMA and pipe-sync latency).
  return s;
}

}  // namespace asc
