// vec_cast (every dtype pair) and vec_reduce (rows, columns, every op and dtype) against naive
// double references.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "tests/runtime/vec_test_util.h"

namespace asc::vectest {
namespace {

using cpu::vec_cast;
using cpu::vec_reduce;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Expected cast of a source value v (already read exactly as double) to t.
double cast_ref(DType from, DType to, double v) {
  if (to == DType::kBool) return v != 0 ? 1 : 0;
  if (dtype_is_float(to)) {
    if (to == DType::kF16 || to == DType::kBF16) return round_to(to, static_cast<float>(v));
    return round_to(to, v);
  }
  if (std::isnan(v)) return 0;
  const int bits = static_cast<int>(dtype_size(to) * 8);
  const double lo = dtype_is_signed(to) ? -std::ldexp(1, bits - 1) : 0;
  const double hi_excl = dtype_is_signed(to) ? std::ldexp(1, bits - 1) : std::ldexp(1, bits);
  if (dtype_is_float(from)) {  // truncate and saturate
    const double r = std::trunc(v);
    if (r <= lo) return lo;
    if (r >= hi_excl) return round_to(to, hi_excl);  // max of an i64/u64 is not a double
    return r;
  }
  // integer -> integer wraps modulo 2^bits (sources are within +-1e15: exact in int64)
  const auto iv = static_cast<int64_t>(v);
  switch (to) {
    case DType::kI8:
      return static_cast<int8_t>(iv);
    case DType::kI16:
      return static_cast<int16_t>(iv);
    case DType::kI32:
      return static_cast<int32_t>(iv);
    case DType::kU8:
      return static_cast<uint8_t>(iv);
    case DType::kU16:
      return static_cast<uint16_t>(iv);
    case DType::kU32:
      return static_cast<uint32_t>(iv);
    case DType::kU64:
      return static_cast<double>(static_cast<uint64_t>(iv));
    default:
      return static_cast<double>(iv);
  }
}

Buf cast_source(DType t, int64_t n, uint32_t seed) {
  if (t == DType::kBool) return random_buf(t, n, 0, 2, seed);
  if (!dtype_is_float(t)) {
    const double lo = dtype_is_signed(t) ? -std::ldexp(1, int(dtype_size(t) * 8) - 1) : 0;
    const double hi =
        std::min(std::ldexp(1, int(dtype_size(t) * 8) - (dtype_is_signed(t) ? 1 : 0)), 1e15);
    return random_buf(t, n, std::max(lo, -1e15), hi - 1, seed);
  }
  Buf b = random_buf(t, n, -3e5, 3e5, seed);  // wide enough to saturate i8/u8/i16/u16
  const double specials[] = {kNaN, kInf, -kInf, -0.0, 0.5, -0.5, 1e10, -1e10, 3e9, 65504, 70000};
  for (int64_t i = 0; i < n; i += 7) b.set(i, specials[(i / 7) % 11]);
  return b;
}

TEST(VecCast, EveryDtypePair) {
  std::vector<DType> types = numeric_types();
  types.push_back(DType::kBool);
  for (DType from : types) {
    for (DType to : types) {
      for (int64_t n : {0, 1, 17, 100, 1001}) {
        SCOPED_TRACE(std::string(dtype_name(from)) + "->" + std::string(dtype_name(to)) +
                     "/n=" + std::to_string(n));
        const Buf x = cast_source(
            from, n, static_cast<uint32_t>(n) * 131 + uint32_t(from) * 17 + uint32_t(to));
        Buf y(to, n);
        vec_cast(from, to, x.data(), y.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          const double want = cast_ref(from, to, x.get(i));
          const double got = y.get(i);
          ASSERT_TRUE(got == want || (std::isnan(got) && std::isnan(want)))
              << "x=" << x.get(i) << " got " << got << " want " << want;
        }
      }
    }
  }
}

TEST(VecCast, F32ToHalfRoundsToNearestEven) {
  // Ties between f16 neighbours 1 and 1 + 2^-10: 1 + 2^-11 -> 1; 1 + 3 * 2^-11 -> 1 + 2^-9.
  const float x[4] = {1.f + std::ldexp(1.f, -11), 1.f + 3 * std::ldexp(1.f, -11), 65520.f, 1e-8f};
  uint16_t y[4];
  vec_cast(DType::kF32, DType::kF16, x, y, 4);
  EXPECT_EQ(y[0], 0x3c00);
  EXPECT_EQ(y[1], 0x3c02);
  EXPECT_EQ(y[2], 0x7c00);  // rounds to inf
  EXPECT_EQ(y[3], 0x0000);
  // bf16 ties: 1 + 2^-8 -> 1; 1 + 3 * 2^-8 -> 1 + 2^-6.
  const float z[2] = {1.f + std::ldexp(1.f, -8), 1.f + 3 * std::ldexp(1.f, -8)};
  vec_cast(DType::kF32, DType::kBF16, z, y, 2);
  EXPECT_EQ(y[0], 0x3f80);
  EXPECT_EQ(y[1], 0x3f82);
}

TEST(VecCast, UnsupportedThrows) {
  float x[1] = {0};
  EXPECT_THROW(vec_cast(DType::kF32, DType::kString, x, x, 1), std::invalid_argument);
}

// ---------------------------------------------------------------- reduce
double reduce_ref(ReduceOp op, const std::vector<double>& v) {
  double acc = op == ReduceOp::kProd  ? 1
               : op == ReduceOp::kMax ? -kInf
               : op == ReduceOp::kMin ? kInf
                                      : 0;
  for (double x : v) {
    if (op == ReduceOp::kSum) acc += x;
    if (op == ReduceOp::kSumSquares) acc += x * x;
    if (op == ReduceOp::kProd) acc *= x;
    if (op == ReduceOp::kMax) acc = std::isnan(x) || std::isnan(acc) ? kNaN : std::max(acc, x);
    if (op == ReduceOp::kMin) acc = std::isnan(x) || std::isnan(acc) ? kNaN : std::min(acc, x);
  }
  return acc;
}

struct RShape {
  int64_t outer, mid, inner;
};

TEST(VecReduce, AllOpsRowsAndColumns) {
  const ReduceOp ops[] = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin, ReduceOp::kProd,
                          ReduceOp::kSumSquares};
  const RShape shapes[] = {{1, 1, 1},    {3, 7, 1},    {2, 100, 1},    {2, 1001, 1},
                           {1, 5000, 1}, {2, 0, 1},    {2, 5, 3},      {2, 33, 16},
                           {3, 9, 64},   {2, 300, 65}, {1, 2000, 129}, {2, 0, 5}};
  std::vector<DType> types = numeric_types();
  for (ReduceOp op : ops) {
    for (DType t : types) {
      for (const RShape& s : shapes) {
        SCOPED_TRACE(std::string(op_name(op)) + "/" + std::string(dtype_name(t)) + "/" +
                     std::to_string(s.outer) + "x" + std::to_string(s.mid) + "x" +
                     std::to_string(s.inner));
        const int64_t n = s.outer * s.mid * s.inner;
        double lo = -10, hi = 10;
        if (op == ReduceOp::kProd)
          lo = dtype_is_float(t) ? 0.9 : 1, hi = dtype_is_float(t) ? 1.1 : 2.9;
        if (!dtype_is_signed(t)) lo = std::max(lo, 0.0);
        const Buf x = random_buf(t, n, lo, hi, static_cast<uint32_t>(n + int(op)));
        Buf y(t, s.outer * s.inner);
        vec_reduce(op, t, x.data(), y.data(), s.outer, s.mid, s.inner);
        double rtol = t == DType::kF64    ? 1e-12
                      : dtype_is_float(t) ? 2 * unit_roundoff(t) + 1e-6
                                          : 0;
        if (op == ReduceOp::kProd && t == DType::kF32)
          rtol += static_cast<double>(s.mid) * unit_roundoff(t);  // f32 products
        for (int64_t o = 0; o < s.outer; ++o)
          for (int64_t i = 0; i < s.inner; ++i) {
            std::vector<double> v;
            double scale = 1;  // sums are checked relative to the sum of magnitudes
            for (int64_t r = 0; r < s.mid; ++r) {
              v.push_back(x.get((o * s.mid + r) * s.inner + i));
              scale += op == ReduceOp::kSumSquares ? v.back() * v.back() : std::abs(v.back());
            }
            double want = reduce_ref(op, v);
            if (dtype_is_integer(t) && s.mid == 0 && std::isinf(want)) {  // empty max/min
              Buf w(t, 1);
              cpu::vec_cast(DType::kF64, t, &want, w.data(), 1);
              want = w.get(0);
            } else if (dtype_is_integer(t)) {  // 64-bit result narrowed with wrap
              int64_t wide = static_cast<int64_t>(want);
              if (op == ReduceOp::kProd) {  // wrapping 64-bit product
                uint64_t p = 1;
                for (double e : v) p *= static_cast<uint64_t>(static_cast<int64_t>(e));
                wide = static_cast<int64_t>(p);
              }
              Buf w(DType::kI64, 1);
              std::memcpy(w.data(), &wide, 8);
              cpu::vec_cast(DType::kI64, t, w.data(), w.data(), 1);
              want = load_as_double(t, w.data(), 0);
            } else {
              want = round_to(t, want);
            }
            ASSERT_TRUE(
                close(y.get(o * s.inner + i), want, rtol, op == ReduceOp::kProd ? 0 : rtol * scale))
                << "o=" << o << " i=" << i;
          }
      }
    }
  }
}

TEST(VecReduce, LongF32SumIsAccurate) {
  // 2^22 values in [0, 1): a single f32 accumulator would be off by ~1e-3 relative.
  const int64_t n = int64_t{1} << 22;
  const Buf x = random_buf(DType::kF32, n, 0, 1, 99);
  double want = 0;
  for (int64_t i = 0; i < n; ++i) want += x.get(i);
  float y = 0;
  vec_reduce(ReduceOp::kSum, DType::kF32, x.data(), &y, 1, n, 1);
  EXPECT_NEAR(y / want, 1.0, 2e-7);
  // Same data as 64 columns of 2^16 rows.
  std::vector<float> cols(64);
  vec_reduce(ReduceOp::kSum, DType::kF32, x.data(), cols.data(), 1, n / 64, 64);
  for (int64_t i = 0; i < 64; ++i) {
    double w = 0;
    for (int64_t r = 0; r < n / 64; ++r) w += x.get(r * 64 + i);
    ASSERT_NEAR(cols[static_cast<size_t>(i)] / w, 1.0, 2e-7) << i;
  }
}

TEST(VecReduce, NaNPropagatesInMaxMin) {
  for (int64_t inner : {1, 64}) {
    const int64_t mid = 100;
    Buf x = random_buf(DType::kF32, mid * inner, -1, 1, 3);
    x.set(37 * inner, kNaN);  // column 0 only
    Buf y(DType::kF32, inner);
    for (ReduceOp op : {ReduceOp::kMax, ReduceOp::kMin}) {
      vec_reduce(op, DType::kF32, x.data(), y.data(), 1, mid, inner);
      EXPECT_TRUE(std::isnan(y.get(0))) << op_name(op) << " inner=" << inner;
      for (int64_t i = 1; i < inner; ++i) EXPECT_FALSE(std::isnan(y.get(i))) << i;
    }
  }
  uint8_t b[2] = {1, 0}, out[1];
  EXPECT_THROW(vec_reduce(ReduceOp::kSum, DType::kBool, b, out, 1, 2, 1), std::invalid_argument);
}

}  // namespace
}  // namespace asc::vectest
