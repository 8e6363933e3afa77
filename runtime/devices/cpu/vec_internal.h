// Private helpers shared by the vec_*.cpp kernels: errors, scalar conversions, dtype dispatch.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "registry/dtype.h"

namespace asc::cpu::detail {

[[noreturn]] inline void vec_unsupported(std::string_view fn, std::string_view op, DType t) {
  throw std::invalid_argument(std::string(fn) + ": op '" + std::string(op) +
                              "' is not supported for dtype '" + std::string(dtype_name(t)) + "'");
}

template <class T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) with the C++ element type of t (asc::f16 / asc::bf16 for the 16-bit floats,
// uint8_t for bool). Returns false for dtypes without a numeric storage type.
template <class F>
bool dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::kF32:
      f(Tag<float>{});
      return true;
    case DType::kF64:
      f(Tag<double>{});
      return true;
    case DType::kF16:
      f(Tag<f16>{});
      return true;
    case DType::kBF16:
      f(Tag<bf16>{});
      return true;
    case DType::kI8:
      f(Tag<int8_t>{});
      return true;
    case DType::kI16:
      f(Tag<int16_t>{});
      return true;
    case DType::kI32:
      f(Tag<int32_t>{});
      return true;
    case DType::kI64:
      f(Tag<int64_t>{});
      return true;
    case DType::kU8:
      f(Tag<uint8_t>{});
      return true;
    case DType::kU16:
      f(Tag<uint16_t>{});
      return true;
    case DType::kU32:
      f(Tag<uint32_t>{});
      return true;
    case DType::kU64:
      f(Tag<uint64_t>{});
      return true;
    case DType::kBool:
      f(Tag<bool>{});
      return true;
    default:
      return false;
  }
}

// Integer dtypes only (bool excluded).
template <class F>
bool dispatch_int(DType t, F&& f) {
  if (!dtype_is_integer(t)) return false;
  return dispatch_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) f(tag);
  });
}

// Float (or double) -> integer T: truncation toward zero, NaN -> 0, saturating.
template <class T, class F>
T sat_int(F v) {
  static_assert(std::is_integral_v<T> && std::is_floating_point_v<F>);
  if (std::isnan(v)) return 0;
  // Bounds as the float type: lowest is exact (0 or -2^k); max + 1 is an exact power of two.
  const F lo = static_cast<F>(std::numeric_limits<T>::lowest());
  const F hi_excl = static_cast<F>(2) * static_cast<F>(T(1) << (sizeof(T) * 8 - 2)) *
                    (std::is_signed_v<T> ? F(1) : F(2));
  if (v <= lo) return std::numeric_limits<T>::lowest();
  if (v >= hi_excl) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

// Element conversions through the widest "natural" type. Storage types f16/bf16 read as float.
template <class T>
inline auto elem_read(T v) {
  if constexpr (std::is_same_v<T, f16>)
    return f16_to_f32(v);
  else if constexpr (std::is_same_v<T, bf16>)
    return bf16_to_f32(v);
  else
    return v;
}

// Converts a value of any arithmetic type to T with vec_cast semantics.
template <class T, class S>
inline T elem_convert(S v) {
  if constexpr (std::is_same_v<T, f16>) {
    return f32_to_f16(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bf16>) {
    return f32_to_bf16(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != S(0);
  } else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<S>) {
    return sat_int<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace asc::cpu::detail
