// The vector unit's per-core registers (emu_vec_mask.h): the mask register (128 bits, one per
// element of a 256-byte repeat, low word first), its mode, and the compare-mask register that
// Compare without a destination writes and Select's VSEL_CMPMASK_SPR mode reads.
#pragma once

#include <cstdint>

namespace ascemu {

struct VecRegs {
  bool counter = false;  // SetMaskCount: mask_lo counts the elements of the whole call
  uint64_t mask_hi = ~uint64_t{0}, mask_lo = ~uint64_t{0};
  uint64_t cmp[2] = {0, 0};  // CMPMASK, bit i = element i
};

}  // namespace ascemu
