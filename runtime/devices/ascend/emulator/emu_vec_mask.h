// The vector unit's mask calls and repeat parameters (include kernel_operator.h): SetMaskCount,
// SetMaskNorm, SetVectorMask, ResetMask, and BinaryRepeatParams/UnaryRepeatParams with the API's
// field names, types and defaults. The registers are the core's VecRegs (emu_vec_regs.h); a
// level-2 (count) call leaves normal mode and a full mask behind, as the API's own calls do.
#pragma once

#include "emu_vec_base.h"

namespace AscendC {

constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint8_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr uint64_t MASK_PLACEHOLDER_LIST[2] = {0, 0};

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

struct BinaryRepeatParams {
  BinaryRepeatParams() {}
  BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn,
                     const uint8_t src1BlkStrideIn, const uint8_t dstRepStrideIn,
                     const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
      : dstBlkStride(dstBlkStrideIn),
        src0BlkStride(src0BlkStrideIn),
        src1BlkStride(src1BlkStrideIn),
        dstRepStride(dstRepStrideIn),
        src0RepStride(src0RepStrideIn),
        src1RepStride(src1RepStrideIn) {}
  uint32_t blockNumber = DEFAULT_BLK_NUM;
  uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
  uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
  uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
  uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

struct UnaryRepeatParams {
  UnaryRepeatParams() {}
  UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                    const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn)
      : dstBlkStride(dstBlkStrideIn),
        srcBlkStride(srcBlkStrideIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
  UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                    const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn,
                    const bool halfBlockIn)
      : dstBlkStride(dstBlkStrideIn),
        srcBlkStride(srcBlkStrideIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn),
        halfBlock(halfBlockIn) {}
  uint32_t blockNumber = DEFAULT_BLK_NUM;
  uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
  uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
  uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
  bool halfBlock = false;
};

inline void SetMaskCount() {
  ascemu::current().vec.counter = true;
}
inline void SetMaskNorm() {
  ascemu::current().vec.counter = false;
}
inline void ResetMask() {
  ascemu::VecRegs& g = ascemu::current().vec;
  g.mask_hi = g.mask_lo = ~uint64_t{0};
}

// Normal mode: the bit mask; counter mode: maskLow elements (maskHigh must be 0).
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
  ascemu::VecRegs& g = ascemu::current().vec;
  g.mask_hi = maskHigh;
  g.mask_lo = maskLow;
}

// Normal mode: the first len elements of each repeat; MaskMode::COUNTER: len elements in all.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len) {
  if constexpr (mode == MaskMode::COUNTER) {
    SetVectorMask<T, mode>(0, static_cast<uint64_t>(static_cast<uint32_t>(len)));
  } else {
    ascemu::check(!ascemu::current().vec.counter, "SetVectorMask",
                  "in counter mode (SetMaskCount) a count is set with "
                  "SetVectorMask<T, MaskMode::COUNTER>(len) or SetVectorMask<T>(0, len); the "
                  "normal-mode form expands len = " +
                      std::to_string(len) + " to a bit mask");
    ascemu::set_mask_len("SetVectorMask", 256 / sizeof(T), static_cast<uint64_t>(len));
  }
}

}  // namespace AscendC
