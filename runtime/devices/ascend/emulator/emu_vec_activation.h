// Advanced vector APIs of the Atlas A2 that need a temporary UB buffer (include kernel_operator.h):
// Sigmoid, Tanh and Erf in their sharedTmpBuffer forms. Each runs as one vector instruction that
// reads src and writes dst and the scratch buffer; the result is computed in float and rounded once
// (the hardware's sequence of vector steps may differ in the last bits). sharedTmpBuffer must hold
// the minimum the Get*MaxMinTmpSize calls give (Sigmoid: 256 bytes; Tanh: 256 for float, 1024 for
// half; Erf: 768 for float, 2048 for half) and overlap neither operand; src and dst must not
// overlap.
#pragma once

#include "emu_vec_elementwise.h"

namespace ascemu {

template <typename T, typename F>
inline void vec_scratch_unary(const char* call, const AscendC::LocalTensor<T>& dst,
                              const AscendC::LocalTensor<T>& src,
                              const AscendC::LocalTensor<uint8_t>& tmp, uint32_t count,
                              uint64_t min_tmp, uint64_t max_tmp, F f) {
  vec_type(kFloat<T>, call, type_name<T>(), "half, float");
  std::vector<Access> acc = {vec_operand(call, src, count, false)};
  const Access d = vec_operand(call, dst, count, true);
  vec_operand(call, tmp, 0, true);
  check(tmp.GetSize() >= min_tmp, call,
        "sharedTmpBuffer holds " + std::to_string(tmp.GetSize()) + " bytes; " + type_name<T>() +
            " needs at least " + std::to_string(min_tmp));
  const Access t{Mem::kUB, tmp.HostOffset(),
                 tmp.HostOffset() + std::min<uint64_t>(tmp.GetSize(), max_tmp), true};
  auto overlap = [](const Access& a, const Access& b) {
    return a.begin < b.end && b.begin < a.end;
  };
  check(!overlap(acc[0], d), call, "src and dst overlap");
  check(!overlap(t, acc[0]) && !overlap(t, d), call, "sharedTmpBuffer overlaps src or dst");
  acc.push_back(t);
  acc.push_back(d);
  const T* x = src.GetPhyAddr();
  T* y = dst.GetPhyAddr();
  current().issue(kV, call, std::move(acc), [=] {
    for (uint32_t i = 0; i < count; ++i) y[i] = static_cast<T>(f(static_cast<float>(x[i])));
  });
}

}  // namespace ascemu

namespace AscendC {

template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
  ascemu::vec_scratch_unary("Sigmoid", dstTensor, srcTensor, sharedTmpBuffer, calCount, 256,
                            std::max<uint64_t>(256, uint64_t{calCount} * sizeof(T)),
                            [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
}
template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer) {
  Sigmoid<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize());
}

template <typename T, bool isReuseSource = false>
inline void Tanh(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
  const uint64_t live = sizeof(T) == 4 ? 1 : 4;  // float temporaries per element
  ascemu::vec_scratch_unary("Tanh", dstTensor, srcTensor, sharedTmpBuffer, calCount, 256 * live,
                            live * std::max<uint64_t>(256, uint64_t{calCount} * sizeof(T)),
                            [](float v) { return std::tanh(v); });
}
template <typename T, bool isReuseSource = false>
inline void Tanh(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer) {
  Tanh<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize());
}

template <typename T, bool isReuseSource = false>
inline void Erf(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
  const uint64_t live = sizeof(T) == 4 ? 3 : 8;  // float temporaries per element
  ascemu::vec_scratch_unary("Erf", dstTensor, srcTensor, sharedTmpBuffer, calCount, 256 * live,
                            live * std::max<uint64_t>(256, uint64_t{calCount} * sizeof(T)),
                            [](float v) { return std::erf(v); });
}
template <typename T, bool isReuseSource = false>
inline void Erf(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                const LocalTensor<uint8_t>& sharedTmpBuffer) {
  Erf<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize());
}

}  // namespace AscendC
