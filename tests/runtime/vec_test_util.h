// Shared helpers for the vec_* tests: typed byte buffers, seeded data, tolerance checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "registry/dtype.h"
#include "runtime/devices/cpu/vec.h"

namespace asc::vectest {

// Lengths around every vector width (4..64 lanes), plus empty, one and large.
inline const std::vector<int64_t>& lengths() {
  static const std::vector<int64_t> v = {0,  1,  3,  7,  8,   15,   16,   17,   31,
                                         33, 63, 64, 65, 100, 1001, 4099, 65537};
  return v;
}

struct Buf {
  DType t;
  std::vector<uint8_t> bytes;
  Buf(DType type, int64_t n)
      : t(type), bytes(static_cast<size_t>(std::max<int64_t>(n, 1)) * dtype_size(type)) {}
  void* data() { return bytes.data(); }
  const void* data() const { return bytes.data(); }
  double get(int64_t i) const { return load_as_double(t, bytes.data(), i); }
  void set(int64_t i, double v) { store_from_double(t, bytes.data(), i, v); }
};

// Uniform values in [lo, hi], stored as t (rounded), seeded per test.
inline Buf random_buf(DType t, int64_t n, double lo, double hi, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Buf b(t, n);
  for (int64_t i = 0; i < n; ++i) {
    double v = dist(rng);
    if (dtype_is_integer(t) || t == DType::kBool) v = std::floor(v);
    b.set(i, v);
  }
  return b;
}

// Value range that fits every integer dtype's sign and a small magnitude.
inline std::pair<double, double> int_range(DType t, double mag) {
  return dtype_is_signed(t) ? std::pair{-mag, mag + 1} : std::pair{0.0, 2 * mag + 1};
}

inline bool same_special(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return false;
}

// |got - want| <= atol + rtol |want|, with NaN/inf required to match exactly.
inline ::testing::AssertionResult close(double got, double want, double rtol, double atol) {
  if (std::isnan(got) || std::isnan(want) || std::isinf(got) || std::isinf(want)) {
    if (same_special(got, want)) return ::testing::AssertionSuccess();
  } else if (std::abs(got - want) <= atol + rtol * std::abs(want)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "got " << got << " want " << want << " (rtol " << rtol << ", atol " << atol << ")";
}

// One unit in the last place of t at 1.0, used to widen tolerances for f16/bf16.
inline double unit_roundoff(DType t) {
  switch (t) {
    case DType::kF16:
      return std::ldexp(1.0, -10);
    case DType::kBF16:
      return std::ldexp(1.0, -7);
    case DType::kF32:
      return std::ldexp(1.0, -23);
    default:
      return std::ldexp(1.0, -52);
  }
}

inline double round_to(DType t, double v) {
  Buf b(t, 1);
  b.set(0, v);
  return b.get(0);
}

inline std::string case_name(std::string_view op, DType t, int64_t n) {
  return std::string(op) + "/" + std::string(dtype_name(t)) + "/n=" + std::to_string(n);
}

}  // namespace asc::vectest
