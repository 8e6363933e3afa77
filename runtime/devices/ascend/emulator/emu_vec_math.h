// The Atlas A2 advanced math APIs (include kernel_operator.h), each with a sharedTmpBuffer and a
// framework-temp form (emu_vec_adv.h), with or without calCount as the docs list them:
//   Power    tensor^tensor, tensor^scalar, scalar^tensor; half, float, int32_t
//   Fmod     a - Trunc(a / b) * b; half, float
//   Xor      bitwise; int16_t, uint16_t (an advanced API on the A2, no basic Xor)
//   Sign     -1, 0, 1; half, float
//   Sin Cos  half, float; inputs must lie in [-65504, 65504] (else the result is NaN here)
//   Floor Ceil Round (half to even); half, float; calCount forms only
// Minimum/maximum temp bytes (n = count, s = sizeof(T), slices(f) = at least f * 256, at most
// f * max(n * s, 256)): Power int32 tensor^tensor 1536 / 6 * max(4n, 256), with a scalar 1792 /
// 7 * ...; float 1280 / 4 * max(4n, 256) + 256, with a scalar 1536 / 5 * ... + 256; half 2048 /
// 14 * max(2n, 128) + 256 (all forms). Fmod slices(1) float, slices(8) half. Xor slices(1).
// Sign at least 768, at most max(3 * n * s, 768). Sin/Cos slices(3) float (slices(2) with
// isReuseSource, which lets the call overwrite src), slices(8) half. Floor slices(0) float,
// slices(2) half; Ceil slices(1) float, slices(2) half; Round slices(0) float, slices(1) half.
// The sources must not overlap dst (Round excepted: its docs do not forbid it), nor the temp.
#pragma once

#include "emu_vec_adv.h"

namespace AscendC {

// The algorithm configs of the API's templates; the A2 takes only the defaults' algorithms (the
// docs give the choice to the Ascend 950 only), so the emulator ignores them.
enum class PowerAlgo { INTRINSIC = 0, DOUBLE_FLOAT_TECH };
struct PowerConfig {
  PowerAlgo algo = PowerAlgo::INTRINSIC;
};
constexpr PowerConfig defaultPowerConfig = {PowerAlgo::INTRINSIC};
enum class FmodAlgo { NORMAL = 0, ITERATION_COMPENSATION = 1 };
struct FmodConfig {
  FmodAlgo algo = FmodAlgo::NORMAL;
  uint32_t iterationNum = 11;
};
constexpr FmodConfig DEFAULT_FMOD_CONFIG = {FmodAlgo::NORMAL, 11};
enum class SinAlgo { POLYNOMIAL_APPROXIMATION = 0, RADIAN_REDUCTION };
struct SinConfig {
  SinAlgo algo = SinAlgo::POLYNOMIAL_APPROXIMATION;
};
constexpr SinConfig defaultSinConfig{};
enum class CosAlgo { POLYNOMIAL_APPROXIMATION = 0, RADIAN_REDUCTION };
struct CosConfig {
  CosAlgo algo = CosAlgo::POLYNOMIAL_APPROXIMATION;
};
constexpr CosConfig defaultCosConfig{};

}  // namespace AscendC

namespace ascemu {

template <typename T>
using LT = AscendC::LocalTensor<T>;
using Tmp = const AscendC::LocalTensor<uint8_t>*;  // null: the framework's temp

// ---- Power ----
// Integer power with the int32 lanes' wraparound; a negative exponent truncates toward 0 (1 and
// -1 keep their powers), as integer division would.
inline int32_t ipow(int32_t b, int32_t e) {
  if (e < 0) return b == 1 ? 1 : b == -1 ? (e % 2 ? -1 : 1) : 0;
  uint32_t r = 1, x = static_cast<uint32_t>(b);
  for (uint32_t n = static_cast<uint32_t>(e); n; n >>= 1, x *= x)
    if (n & 1u) r *= x;
  return static_cast<int32_t>(r);
}
template <typename T>
inline Calc<T> pow_of(Calc<T> b, Calc<T> e) {
  if constexpr (std::is_same_v<T, int32_t>)
    return ipow(b, e);
  else
    return std::pow(b, e);
}
// The A2 temp of Power: tensor^tensor (tt) or with a scalar.
template <typename T>
inline TmpSize power_tmp(uint64_t n, bool tt) {
  if constexpr (std::is_same_v<T, int32_t>) {
    const uint64_t f = tt ? 6 : 7;
    return {256 * f, f * std::max<uint64_t>(4 * n, 256)};
  } else if constexpr (std::is_same_v<T, float>) {
    const uint64_t f = tt ? 4 : 5;
    return {256 * f + 256, f * std::max<uint64_t>(4 * n, 256) + 256};
  } else {
    return {14 * 256 / 2 + 256, 14 * std::max<uint64_t>(2 * n, 128) + 256};
  }
}
template <typename T>
inline void power_type() {
  vec_type(kOneOf<T, half, float, int32_t>, "Power", type_name<T>(), "half, float, int32_t");
}
template <typename T>
inline void power_tt(const LT<T>& dst, const LT<T>& a, const LT<T>& b, Tmp tmp, uint32_t n) {
  power_type<T>();
  adv_elementwise<2>("Power", dst, {&a, &b}, tmp, power_tmp<T>(n, true), n, {},
                     [](Calc<T> x, Calc<T> y) { return pow_of<T>(x, y); });
}
template <typename T>
inline void power_ts(const LT<T>& dst, const LT<T>& a, const T& s, Tmp tmp, uint32_t n) {
  power_type<T>();
  const auto e = static_cast<Calc<T>>(s);
  adv_elementwise<1>("Power", dst, {&a}, tmp, power_tmp<T>(n, false), n, {},
                     [e](Calc<T> x) { return pow_of<T>(x, e); });
}
template <typename T>
inline void power_st(const LT<T>& dst, const T& s, const LT<T>& b, Tmp tmp, uint32_t n) {
  power_type<T>();
  const auto base = static_cast<Calc<T>>(s);
  adv_elementwise<1>("Power", dst, {&b}, tmp, power_tmp<T>(n, false), n, {},
                     [base](Calc<T> y) { return pow_of<T>(base, y); });
}

// ---- Fmod, Xor ----
template <typename T>
inline void fmod_impl(const LT<T>& dst, const LT<T>& a, const LT<T>& b, Tmp tmp, uint32_t n) {
  vec_type(kFloat<T>, "Fmod", type_name<T>(), "half, float");
  adv_elementwise<2>("Fmod", dst, {&a, &b}, tmp, tmp_slices(sizeof(T) == 4 ? 1 : 8, n * sizeof(T)),
                     n, {}, [](float x, float y) { return std::fmod(x, y); });
}
template <typename T>
inline void xor_impl(const LT<T>& dst, const LT<T>& a, const LT<T>& b, Tmp tmp, uint32_t n) {
  vec_type(kOneOf<T, int16_t, uint16_t>, "Xor", type_name<T>(), "int16_t, uint16_t");
  adv_elementwise<2>("Xor", dst, {&a, &b}, tmp, tmp_slices(1, n * sizeof(T)), n, {},
                     [](Calc<T> x, Calc<T> y) {
                       if constexpr (std::is_integral_v<T>)  // other types: refused above
                         return static_cast<Calc<T>>(x ^ y);
                       else
                         return x;
                     });
}

// ---- unary: half, float ----
template <typename T, typename F>
inline void float_unary(const char* call, const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n,
                        TmpSize sz, AdvFlags flags, F f) {
  vec_type(kFloat<T>, call, type_name<T>(), "half, float");
  adv_elementwise<1>(call, dst, {&src}, tmp, sz, n, flags, f);
}
// slices(f) with f per element type (float, half).
template <typename T>
inline TmpSize slices(uint64_t for_float, uint64_t for_half, uint32_t n) {
  return tmp_slices(sizeof(T) == 4 ? for_float : for_half, uint64_t{n} * sizeof(T));
}
// Sin and Cos on the A2 take inputs in [-65504, 65504]; outside, NaN marks the undefined result.
inline float trig(float x, bool cosine) {
  if (!(std::fabs(x) <= 65504.0f)) return std::numeric_limits<float>::quiet_NaN();
  return cosine ? std::cos(x) : std::sin(x);
}
template <typename T, bool reuse>
inline void trig_impl(const char* call, bool cosine, const LT<T>& dst, const LT<T>& src, Tmp tmp,
                      uint32_t n) {
  const bool r = reuse && sizeof(T) == 4;  // isReuseSource takes effect on float only
  AdvFlags fl;
  fl.reuse_source = r;
  float_unary(call, dst, src, tmp, n, slices<T>(r ? 2 : 3, 8, n), fl,
              [cosine](float x) { return trig(x, cosine); });
}
template <typename T, bool reuse>
inline void sin_impl(const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n) {
  trig_impl<T, reuse>("Sin", false, dst, src, tmp, n);
}
template <typename T, bool reuse>
inline void cos_impl(const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n) {
  trig_impl<T, reuse>("Cos", true, dst, src, tmp, n);
}
template <typename T, bool>
inline void sign_impl(const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n) {
  const uint64_t most = std::max<uint64_t>(3ull * n * sizeof(T), 768);
  // NaN compares false both ways: 0 here (the hardware's choice is not documented).
  float_unary("Sign", dst, src, tmp, n, {768, most}, {}, [](float x) {
    return x > 0 ? 1.0f : x < 0 ? -1.0f : 0.0f;
  });
}
template <typename T, bool>
inline void floor_impl(const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n) {
  float_unary("Floor", dst, src, tmp, n, slices<T>(0, 2, n), {},
              [](float x) { return std::floor(x); });
}
template <typename T, bool>
inline void ceil_impl(const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n) {
  float_unary("Ceil", dst, src, tmp, n, slices<T>(1, 2, n), {},
              [](float x) { return std::ceil(x); });
}
// Halves go to the even neighbour (Round(2.5) = 2, Round(-0.5) = -0).
inline float round_even(float x) {
  if (!(std::fabs(x) < 8388608.0f)) return x;  // 2^23 and up (and NaN, inf): already integral
  const float f = std::floor(x), d = x - f;
  if (d > 0.5f || (d == 0.5f && std::fmod(f, 2.0f) != 0)) return std::copysign(f + 1, x);
  return std::copysign(f, x);
}
template <typename T, bool>
inline void round_impl(const LT<T>& dst, const LT<T>& src, Tmp tmp, uint32_t n) {
  AdvFlags fl;
  fl.src_dst_overlap = true;
  float_unary("Round", dst, src, tmp, n, slices<T>(0, 1, n), fl, round_even);
}

}  // namespace ascemu

namespace AscendC {

// ---- Power: the three kinds, each with/without sharedTmpBuffer and calCount ----
#define ASCEMU_POWER_TMPL \
  template <typename T, bool isReuseSource = false, const PowerConfig& config = defaultPowerConfig>
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor,
                                    const LocalTensor<T>& src0Tensor,
                                    const LocalTensor<T>& src1Tensor,
                                    const LocalTensor<uint8_t>& sharedTmpBuffer,
                                    uint32_t calCount) {
  ascemu::power_tt(dstTensor, src0Tensor, src1Tensor, &sharedTmpBuffer, calCount);
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor,
                                    const LocalTensor<T>& src0Tensor,
                                    const LocalTensor<T>& src1Tensor,
                                    const LocalTensor<uint8_t>& sharedTmpBuffer) {
  ascemu::power_tt(dstTensor, src0Tensor, src1Tensor, &sharedTmpBuffer,
                   ascemu::adv_whole("Power", src0Tensor, &src1Tensor));
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor,
                                    const LocalTensor<T>& src0Tensor,
                                    const LocalTensor<T>& src1Tensor, uint32_t calCount) {
  ascemu::power_tt(dstTensor, src0Tensor, src1Tensor, nullptr, calCount);
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor,
                                    const LocalTensor<T>& src0Tensor,
                                    const LocalTensor<T>& src1Tensor) {
  ascemu::power_tt(dstTensor, src0Tensor, src1Tensor, nullptr,
                   ascemu::adv_whole("Power", src0Tensor, &src1Tensor));
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor,
                                    const LocalTensor<T>& src0Tensor, const T& src1Scalar,
                                    const LocalTensor<uint8_t>& sharedTmpBuffer,
                                    uint32_t calCount) {
  ascemu::power_ts(dstTensor, src0Tensor, src1Scalar, &sharedTmpBuffer, calCount);
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor,
                                    const LocalTensor<T>& src0Tensor, const T& src1Scalar,
                                    const LocalTensor<uint8_t>& sharedTmpBuffer) {
  ascemu::power_ts(dstTensor, src0Tensor, src1Scalar, &sharedTmpBuffer, src0Tensor.GetSize());
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor,
                                    const LocalTensor<T>& src0Tensor, const T& src1Scalar,
                                    uint32_t calCount) {
  ascemu::power_ts(dstTensor, src0Tensor, src1Scalar, nullptr, calCount);
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor,
                                    const LocalTensor<T>& src0Tensor, const T& src1Scalar) {
  ascemu::power_ts(dstTensor, src0Tensor, src1Scalar, nullptr, src0Tensor.GetSize());
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar,
                                    const LocalTensor<T>& src1Tensor,
                                    const LocalTensor<uint8_t>& sharedTmpBuffer,
                                    uint32_t calCount) {
  ascemu::power_st(dstTensor, src0Scalar, src1Tensor, &sharedTmpBuffer, calCount);
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar,
                                    const LocalTensor<T>& src1Tensor,
                                    const LocalTensor<uint8_t>& sharedTmpBuffer) {
  ascemu::power_st(dstTensor, src0Scalar, src1Tensor, &sharedTmpBuffer, src1Tensor.GetSize());
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar,
                                    const LocalTensor<T>& src1Tensor, uint32_t calCount) {
  ascemu::power_st(dstTensor, src0Scalar, src1Tensor, nullptr, calCount);
}
ASCEMU_POWER_TMPL inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar,
                                    const LocalTensor<T>& src1Tensor) {
  ascemu::power_st(dstTensor, src0Scalar, src1Tensor, nullptr, src1Tensor.GetSize());
}
#undef ASCEMU_POWER_TMPL

// ---- binary calls: the four forms; the variadic tail is the template head ----
#define ASCEMU_ADV_BINARY(NAME, IMPL, ...)                                                        \
  __VA_ARGS__ inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, \
                               const LocalTensor<T>& src1Tensor,                                  \
                               const LocalTensor<uint8_t>& sharedTmpBuffer,                       \
                               const uint32_t calCount) {                                         \
    ascemu::IMPL(dstTensor, src0Tensor, src1Tensor, &sharedTmpBuffer, calCount);                  \
  }                                                                                               \
  __VA_ARGS__ inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, \
                               const LocalTensor<T>& src1Tensor,                                  \
                               const LocalTensor<uint8_t>& sharedTmpBuffer) {                     \
    ascemu::IMPL(dstTensor, src0Tensor, src1Tensor, &sharedTmpBuffer,                             \
                 ascemu::adv_whole(#NAME, src0Tensor, &src1Tensor));                              \
  }                                                                                               \
  __VA_ARGS__ inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, \
                               const LocalTensor<T>& src1Tensor, const uint32_t calCount) {       \
    ascemu::IMPL(dstTensor, src0Tensor, src1Tensor, nullptr, calCount);                           \
  }                                                                                               \
  __VA_ARGS__ inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, \
                               const LocalTensor<T>& src1Tensor) {                                \
    ascemu::IMPL(dstTensor, src0Tensor, src1Tensor, nullptr,                                      \
                 ascemu::adv_whole(#NAME, src0Tensor, &src1Tensor));                              \
  }
ASCEMU_ADV_BINARY(Fmod, fmod_impl,
                  template <typename T, bool isReuseSource = false,
                            const FmodConfig& config = DEFAULT_FMOD_CONFIG>
)
ASCEMU_ADV_BINARY(Xor, xor_impl, template <typename T, bool isReuseSource = false>)
#undef ASCEMU_ADV_BINARY

// ---- unary calls: the calCount forms, and the whole-tensor forms where the API has them ----
#define ASCEMU_ADV_UNARY_COUNT(NAME, IMPL, ...)                                                  \
  __VA_ARGS__ inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, \
                               const LocalTensor<uint8_t>& sharedTmpBuffer,                      \
                               const uint32_t calCount) {                                        \
    ascemu::IMPL<T, isReuseSource>(dstTensor, srcTensor, &sharedTmpBuffer, calCount);            \
  }                                                                                              \
  __VA_ARGS__ inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, \
                               const uint32_t calCount) {                                        \
    ascemu::IMPL<T, isReuseSource>(dstTensor, srcTensor, nullptr, calCount);                     \
  }
#define ASCEMU_ADV_UNARY_WHOLE(NAME, IMPL, ...)                                                    \
  __VA_ARGS__ inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,   \
                               const LocalTensor<uint8_t>& sharedTmpBuffer) {                      \
    ascemu::IMPL<T, isReuseSource>(dstTensor, srcTensor, &sharedTmpBuffer, srcTensor.GetSize());   \
  }                                                                                                \
  __VA_ARGS__ inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) { \
    ascemu::IMPL<T, isReuseSource>(dstTensor, srcTensor, nullptr, srcTensor.GetSize());            \
  }
#define ASCEMU_ADV_UNARY(NAME, IMPL, ...) \
  ASCEMU_ADV_UNARY_COUNT(NAME, IMPL, __VA_ARGS__) ASCEMU_ADV_UNARY_WHOLE(NAME, IMPL, __VA_ARGS__)
// The template head of the calls whose only documented flag is isReuseSource.
#define ASCEMU_ADV_TMPL template <typename T, bool isReuseSource = false>
ASCEMU_ADV_UNARY(
    Sin, sin_impl,
    template <typename T, bool isReuseSource = false, const SinConfig& config = defaultSinConfig>
)
ASCEMU_ADV_UNARY(
    Cos, cos_impl,
    template <typename T, bool isReuseSource = false, const CosConfig& config = defaultCosConfig>
)
ASCEMU_ADV_UNARY(Sign, sign_impl, ASCEMU_ADV_TMPL)
ASCEMU_ADV_UNARY_COUNT(Floor, floor_impl, ASCEMU_ADV_TMPL)
ASCEMU_ADV_UNARY_COUNT(Ceil, ceil_impl, ASCEMU_ADV_TMPL)
ASCEMU_ADV_UNARY_COUNT(Round, round_impl, ASCEMU_ADV_TMPL)

}  // namespace AscendC
