// Advanced activation APIs of the Atlas A2 (include kernel_operator.h), on half and float, each
// with a sharedTmpBuffer and a framework-temp form (emu_vec_adv.h), with or without calCount:
// Sigmoid, Tanh, Erf; and Silu (dataSize form only: the A2 needs no temp for it). Minimum temp
// bytes (GetSigmoidMaxMinTmpSize and kin): Sigmoid 256; Tanh 256 float, 1024 half; Erf 768 float,
// 2048 half; each touches at most its float temporaries per element (Sigmoid 1, Tanh 1 / 4, Erf
// 3 / 8) times max(count * sizeof(T), 256). src and dst must not overlap, nor either the temp.
#pragma once

#include "emu_vec_math.h"

namespace AscendC {

enum class TanhAlgo { INTRINSIC = 0, SUBSECTION_COMPENSATION };
struct TanhConfig {
  TanhAlgo algo = TanhAlgo::INTRINSIC;
};
constexpr TanhConfig DEFAULT_TANH_CONFIG = {TanhAlgo::INTRINSIC};
enum class ErfAlgo { PADE_APPROXIMATION = 0, SUBSECTION_POLYNOMIAL_APPROXIMATION };
struct ErfConfig {
  ErfAlgo algo = ErfAlgo::PADE_APPROXIMATION;
};
constexpr ErfConfig defaultErfConfig = {ErfAlgo::PADE_APPROXIMATION};

}  // namespace AscendC

namespace ascemu {

// Float temporaries per element (`live`) of `live` * 256 bytes at least.
inline TmpSize live_slices(uint64_t live, uint64_t bytes) {
  return {256 * live, live * std::max<uint64_t>(256, bytes)};
}
template <typename T, bool>
inline void sigmoid_impl(const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n) {
  float_unary("Sigmoid", dst, src, tmp, n, live_slices(1, uint64_t{n} * sizeof(T)), {},
              [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
}
template <typename T, bool>
inline void tanh_impl(const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n) {
  float_unary("Tanh", dst, src, tmp, n, live_slices(sizeof(T) == 4 ? 1 : 4, n * sizeof(T)), {},
              [](float v) { return std::tanh(v); });
}
template <typename T, bool>
inline void erf_impl(const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n) {
  float_unary("Erf", dst, src, tmp, n, live_slices(sizeof(T) == 4 ? 3 : 8, n * sizeof(T)), {},
              [](float v) { return std::erf(v); });
}

}  // namespace ascemu

namespace AscendC {

ASCEMU_ADV_UNARY(Sigmoid, sigmoid_impl, ASCEMU_ADV_TMPL)
ASCEMU_ADV_UNARY(Tanh, tanh_impl,
                 template <typename T, bool isReuseSource = false,
                           const TanhConfig& config = DEFAULT_TANH_CONFIG>
)
ASCEMU_ADV_UNARY(
    Erf, erf_impl,
    template <typename T, bool isReuseSource = false, const ErfConfig& config = defaultErfConfig>
)

// Silu: x / (1 + e^-x), dataSize elements; no temporary space on the A2 (GetSiluTmpSize: 0).
template <typename T, bool isReuseSource = false>
inline void Silu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                 uint32_t dataSize) {
  ascemu::float_unary("Silu", dstLocal, srcLocal, nullptr, dataSize, {}, {},
                      [](float v) { return v / (1.0f + std::exp(-v)); });
}

}  // namespace AscendC
