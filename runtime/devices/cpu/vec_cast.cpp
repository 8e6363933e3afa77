// vec_cast: dtype conversions. SIMD (Highway, runtime dispatch) for f32 <-> f16/bf16/f64/i32/i64
// and f64 <-> i64; every other pair is a scalar loop with the same semantics (vec.h).
#include <cstring>

#include "runtime/devices/cpu/vec.h"
#include "runtime/devices/cpu/vec_internal.h"

// foreach_target.h must precede the other Highway headers.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/devices/cpu/vec_cast.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace asc::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Targets whose f32 <-> f16 conversions are hardware instructions rounding to nearest even (F16C,
// AVX-512, NEON/SVE). Highway 1.0.3 emulates them elsewhere with truncation, so those use scalar.
#undef ASC_VEC_NATIVE_F16
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2) || \
    (HWY_ARCH_ARM_A64 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR)
#define ASC_VEC_NATIVE_F16 1
#else
#define ASC_VEC_NATIVE_F16 0
#endif

// Each kernel runs whole vectors and leaves the last (n % lanes) elements to a scalar tail.
void CastF32ToF16(const float* x, uint16_t* y, size_t n) {
  size_t i = 0;
#if ASC_VEC_NATIVE_F16
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const size_t N = hn::Lanes(df);
  auto* yh = reinterpret_cast<hwy::float16_t*>(y);
  for (; i + 2 * N <= n; i += 2 * N) {
    hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, x + i)), dh, yh + i);
    hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, x + i + N)), dh, yh + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, x + i)), dh, yh + i);
#endif
  for (; i < n; ++i) y[i] = f32_to_f16(x[i]).bits;
}

void CastF16ToF32(const uint16_t* x, float* y, size_t n) {
  size_t i = 0;
#if ASC_VEC_NATIVE_F16
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const size_t N = hn::Lanes(df);
  const auto* xh = reinterpret_cast<const hwy::float16_t*>(x);
  for (; i + 2 * N <= n; i += 2 * N) {
    hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, xh + i)), df, y + i);
    hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, xh + i + N)), df, y + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, xh + i)), df, y + i);
#endif
  for (; i < n; ++i) y[i] = f16_to_f32(f16{x[i]});
}

// Round to nearest even on the f32 bit pattern; NaN stays NaN (quiet bit forced), like
// asc::f32_to_bf16. Highway 1.0.3's DemoteTo to bf16 truncates, so this is done by hand.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> F32ToBF16Bits(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint16_t, DF> du16;
  const auto u = hn::BitCast(du, v);
  const auto bias = hn::Add(hn::Set(du, 0x7fffu), hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u)));
  const auto nan = hn::RebindMask(du, hn::IsNaN(v));
  const auto r = hn::IfThenElse(nan, hn::Or(u, hn::Set(du, 0x00400000u)), hn::Add(u, bias));
  (void)df;
  return hn::DemoteTo(du16, hn::BitCast(di, hn::ShiftRight<16>(r)));
}

void CastF32ToBF16(const float* x, uint16_t* y, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    hn::StoreU(F32ToBF16Bits(df, hn::LoadU(df, x + i)), du16, y + i);
    hn::StoreU(F32ToBF16Bits(df, hn::LoadU(df, x + i + N)), du16, y + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(F32ToBF16Bits(df, hn::LoadU(df, x + i)), du16, y + i);
  for (; i < n; ++i) y[i] = f32_to_bf16(x[i]).bits;
}

void CastBF16ToF32(const uint16_t* x, float* y, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto w = hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(du16, x + i)));
    hn::StoreU(hn::BitCast(df, w), df, y + i);
  }
  for (; i < n; ++i) y[i] = bf16_to_f32(bf16{x[i]});
}

void CastF32ToF64(const float* x, double* y, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const size_t N = hn::Lanes(dd);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::PromoteTo(dd, hn::LoadU(df, x + i)), dd, y + i);
  for (; i < n; ++i) y[i] = x[i];
}

void CastF64ToF32(const double* x, float* y, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const size_t N = hn::Lanes(dd);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::DemoteTo(df, hn::LoadU(dd, x + i)), df, y + i);
  for (; i < n; ++i) y[i] = static_cast<float>(x[i]);
}

// Float -> int: NaN lanes are zeroed first; ConvertTo truncates and saturates.
void CastF32ToI32(const float* x, int32_t* y, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(df, x + i);
    hn::StoreU(hn::ConvertTo(di, hn::IfThenZeroElse(hn::IsNaN(v), v)), di, y + i);
  }
  for (; i < n; ++i) y[i] = detail::sat_int<int32_t>(x[i]);
}

void CastI32ToF32(const int32_t* x, float* y, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::ConvertTo(df, hn::LoadU(di, x + i)), df, y + i);
  for (; i < n; ++i) y[i] = static_cast<float>(x[i]);
}

void CastF64ToI64(const double* x, int64_t* y, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::RebindToSigned<decltype(dd)> di;
  const size_t N = hn::Lanes(dd);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(dd, x + i);
    hn::StoreU(hn::ConvertTo(di, hn::IfThenZeroElse(hn::IsNaN(v), v)), di, y + i);
  }
  for (; i < n; ++i) y[i] = detail::sat_int<int64_t>(x[i]);
}

void CastI64ToF64(const int64_t* x, double* y, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::RebindToSigned<decltype(dd)> di;
  const size_t N = hn::Lanes(dd);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::ConvertTo(dd, hn::LoadU(di, x + i)), dd, y + i);
  for (; i < n; ++i) y[i] = static_cast<double>(x[i]);
}

// f32 -> i64 is exact through f64; i64 -> f32 goes through f64 (double rounding above 2^53).
void CastF32ToI64(const float* x, int64_t* y, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::RebindToSigned<decltype(dd)> di;
  const size_t N = hn::Lanes(dd);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::PromoteTo(dd, hn::LoadU(df, x + i));
    hn::StoreU(hn::ConvertTo(di, hn::IfThenZeroElse(hn::IsNaN(v), v)), di, y + i);
  }
  for (; i < n; ++i) y[i] = detail::sat_int<int64_t>(x[i]);
}

void CastI64ToF32(const int64_t* x, float* y, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::RebindToSigned<decltype(dd)> di;
  const size_t N = hn::Lanes(dd);
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(hn::DemoteTo(df, hn::ConvertTo(dd, hn::LoadU(di, x + i))), df, y + i);
  for (; i < n; ++i) y[i] = static_cast<float>(static_cast<double>(x[i]));
}

}  // namespace asc::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::cpu {

HWY_EXPORT(CastF32ToF16);
HWY_EXPORT(CastF16ToF32);
HWY_EXPORT(CastF32ToBF16);
HWY_EXPORT(CastBF16ToF32);
HWY_EXPORT(CastF32ToF64);
HWY_EXPORT(CastF64ToF32);
HWY_EXPORT(CastF32ToI32);
HWY_EXPORT(CastI32ToF32);
HWY_EXPORT(CastF64ToI64);
HWY_EXPORT(CastI64ToF64);
HWY_EXPORT(CastF32ToI64);
HWY_EXPORT(CastI64ToF32);

namespace {

// The SIMD pairs; returns false when (from, to) has no SIMD kernel.
bool cast_simd(DType from, DType to, const void* x, void* y, size_t n) {
  using D = DType;
  const auto* f = static_cast<const float*>(x);
  float* fy = static_cast<float*>(y);
  if (from == D::kF32) {
    switch (to) {
      case D::kF16:
        HWY_DYNAMIC_DISPATCH(CastF32ToF16)(f, static_cast<uint16_t*>(y), n);
        return true;
      case D::kBF16:
        HWY_DYNAMIC_DISPATCH(CastF32ToBF16)(f, static_cast<uint16_t*>(y), n);
        return true;
      case D::kF64:
        HWY_DYNAMIC_DISPATCH(CastF32ToF64)(f, static_cast<double*>(y), n);
        return true;
      case D::kI32:
        HWY_DYNAMIC_DISPATCH(CastF32ToI32)(f, static_cast<int32_t*>(y), n);
        return true;
      case D::kI64:
        HWY_DYNAMIC_DISPATCH(CastF32ToI64)(f, static_cast<int64_t*>(y), n);
        return true;
      default:
        return false;
    }
  }
  if (to == D::kF32) {
    switch (from) {
      case D::kF16:
        HWY_DYNAMIC_DISPATCH(CastF16ToF32)(static_cast<const uint16_t*>(x), fy, n);
        return true;
      case D::kBF16:
        HWY_DYNAMIC_DISPATCH(CastBF16ToF32)(static_cast<const uint16_t*>(x), fy, n);
        return true;
      case D::kF64:
        HWY_DYNAMIC_DISPATCH(CastF64ToF32)(static_cast<const double*>(x), fy, n);
        return true;
      case D::kI32:
        HWY_DYNAMIC_DISPATCH(CastI32ToF32)(static_cast<const int32_t*>(x), fy, n);
        return true;
      case D::kI64:
        HWY_DYNAMIC_DISPATCH(CastI64ToF32)(static_cast<const int64_t*>(x), fy, n);
        return true;
      default:
        return false;
    }
  }
  if (from == D::kF64 && to == D::kI64) {
    HWY_DYNAMIC_DISPATCH(CastF64ToI64)(static_cast<const double*>(x), static_cast<int64_t*>(y), n);
    return true;
  }
  if (from == D::kI64 && to == D::kF64) {
    HWY_DYNAMIC_DISPATCH(CastI64ToF64)(static_cast<const int64_t*>(x), static_cast<double*>(y), n);
    return true;
  }
  return false;
}

template <class From, class To>
void cast_scalar(const void* xv, void* yv, size_t n) {
  // bool is read as bytes (any nonzero byte is true) and written as 0/1.
  using FromStore = std::conditional_t<std::is_same_v<From, bool>, uint8_t, From>;
  using ToStore = std::conditional_t<std::is_same_v<To, bool>, uint8_t, To>;
  const auto* x = static_cast<const FromStore*>(xv);
  auto* y = static_cast<ToStore*>(yv);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<From, bool>) {
      y[i] = static_cast<ToStore>(detail::elem_convert<To>(static_cast<uint8_t>(x[i] != 0)));
    } else if constexpr (std::is_same_v<From, int64_t> && std::is_same_v<To, float>) {
      y[i] = static_cast<float>(static_cast<double>(x[i]));  // same rounding as the SIMD path
    } else {
      y[i] = static_cast<ToStore>(detail::elem_convert<To>(detail::elem_read(x[i])));
    }
  }
}

}  // namespace

void vec_cast(DType from, DType to, const void* x, void* y, int64_t n) {
  if (dtype_size(from) == 0 || dtype_size(to) == 0)
    throw std::invalid_argument("vec_cast: unsupported cast " + std::string(dtype_name(from)) +
                                " -> " + std::string(dtype_name(to)));
  if (n <= 0) return;
  const size_t un = static_cast<size_t>(n);
  if (from == to && from != DType::kBool) {
    if (x != y) std::memmove(y, x, un * dtype_size(from));
    return;
  }
  if (cast_simd(from, to, x, y, un)) return;
  detail::dispatch_dtype(from, [&](auto ft) {
    detail::dispatch_dtype(to, [&](auto tt) {
      cast_scalar<typename decltype(ft)::type, typename decltype(tt)::type>(x, y, un);
    });
  });
}

}  // namespace asc::cpu
#endif  // HWY_ONCE
