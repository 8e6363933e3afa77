// The vector unit's Gather (include kernel_operator.h), count form: dst[i] = the element of src at
// byte srcBaseAddr + srcOffset[i] (bytes from src's start). On the Atlas A2 it takes int16_t,
// uint16_t, int32_t, uint32_t, float, half and bfloat16_t; the three operands are UB tensors on
// 32-byte boundaries and count may not pass dst's or srcOffset's elements (src may hold fewer: an
// element may be gathered more than once). The offsets are data:
// each is checked when the V pipe runs the call (inside src, on an element boundary), and the
// race checker counts all of src as read.
#pragma once

#include "emu_vec_base.h"

namespace AscendC {

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                   const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
                   const uint32_t count) {
  const char* call = "Gather";
  ascemu::vec_type(ascemu::kOneOf<T, int16_t, uint16_t, int32_t, uint32_t, float, half, bfloat16_t>,
                   call, ascemu::type_name<T>(),
                   "int16_t, uint16_t, int32_t, uint32_t, float, half, bfloat16_t");
  ascemu::check(count <= dst.GetSize() && count <= srcOffset.GetSize(), call,
                "count " + std::to_string(count) + " past dst's " + std::to_string(dst.GetSize()) +
                    " or srcOffset's " + std::to_string(srcOffset.GetSize()) + " elements");
  std::vector<ascemu::Access> acc = {ascemu::vec_operand(call, dst, count, true),
                                     ascemu::vec_operand(call, srcOffset, count, false),
                                     ascemu::vec_operand(call, src, src.GetSize(), false)};
  if (count == 0) return;
  const uint64_t s = src.HostOffset(), bytes = uint64_t{src.GetSize()} * sizeof(T);
  const uint64_t d = dst.HostOffset(), o = srcOffset.HostOffset();
  uint8_t* ub = ascemu::ub_base();
  ascemu::current().issue(ascemu::kV, call, std::move(acc), [=] {
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t at = uint64_t{srcBaseAddr} + ascemu::load<uint32_t>(ub, o + 4 * uint64_t{i});
      ascemu::check(
          at % sizeof(T) == 0 && at + sizeof(T) <= bytes, call,
          "element " + std::to_string(i) + "'s byte offset " + std::to_string(at) +
              (at % sizeof(T) != 0 ? " is not on an element boundary"
                                   : " is past src's " + std::to_string(bytes) + " bytes"));
      ascemu::store<T>(ub, d + uint64_t{i} * sizeof(T), ascemu::load<T>(ub, s + at));
    }
  });
}

}  // namespace AscendC
