// vec_binary / vec_binary_scalar / vec_binary_bcast_mid / vec_compare / vec_select /
// vec_duplicate against naive double references.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "tests/runtime/vec_test_util.h"

namespace asc::vectest {
namespace {

using cpu::vec_binary;
using cpu::vec_binary_bcast_mid;
using cpu::vec_binary_scalar;
using cpu::vec_compare;
using cpu::vec_duplicate;
using cpu::vec_select;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const DType kFloats[] = {DType::kF32, DType::kF64, DType::kF16, DType::kBF16};
const DType kInts[] = {DType::kI8, DType::kI16, DType::kI32, DType::kI64,
                       DType::kU8, DType::kU16, DType::kU32, DType::kU64};
const BinaryOp kArith[] = {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv,
                           BinaryOp::kPow, BinaryOp::kMax, BinaryOp::kMin, BinaryOp::kMod};

double float_ref(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    case BinaryOp::kDiv:
      return a / b;
    case BinaryOp::kPow:
      return std::pow(a, b);
    case BinaryOp::kMax:
      return std::max(a, b);
    case BinaryOp::kMin:
      return std::min(a, b);
    default:
      return std::fmod(a, b);
  }
}

// Integer semantics in 64 bits, then wrapped to t (values are small enough not to overflow i64).
double wrap_to(DType t, int64_t v) {
  switch (t) {
    case DType::kI8:
      return static_cast<int8_t>(v);
    case DType::kI16:
      return static_cast<int16_t>(v);
    case DType::kI32:
      return static_cast<int32_t>(v);
    case DType::kI64:
      return static_cast<double>(v);
    case DType::kU8:
      return static_cast<uint8_t>(v);
    case DType::kU16:
      return static_cast<uint16_t>(v);
    case DType::kU32:
      return static_cast<uint32_t>(v);
    default:
      return static_cast<double>(static_cast<uint64_t>(v));
  }
}
double int_ref(DType t, BinaryOp op, int64_t a, int64_t b) {
  switch (op) {
    case BinaryOp::kAdd:
      return wrap_to(t, a + b);
    case BinaryOp::kSub:
      return wrap_to(t, a - b);
    case BinaryOp::kMul:
      return wrap_to(t, a * b);
    case BinaryOp::kDiv:
      return b == 0 ? 0 : wrap_to(t, a / b);
    case BinaryOp::kMod: {
      if (b == 0) return 0;
      int64_t r = a % b;
      if (r != 0 && (r < 0) != (b < 0)) r += b;
      return wrap_to(t, r);
    }
    case BinaryOp::kPow: {
      if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
      int64_t r = 1;
      for (int64_t k = 0; k < b; ++k) r *= a;
      return wrap_to(t, r);
    }
    case BinaryOp::kMax:
      return static_cast<double>(std::max(a, b));
    default:
      return static_cast<double>(std::min(a, b));
  }
}

// Ranges keeping Pow real and Div/Mod away from zero for floats.
std::pair<double, double> float_range(BinaryOp op, bool rhs) {
  if (op == BinaryOp::kPow) return rhs ? std::pair{-3.0, 3.0} : std::pair{0.1, 4.0};
  if ((op == BinaryOp::kDiv || op == BinaryOp::kMod) && rhs) return {0.5, 20.0};
  return {-100.0, 100.0};
}

TEST(VecBinary, FloatOpsAllModes) {
  uint32_t seed = 100;
  for (BinaryOp op : kArith) {
    for (DType t : kFloats) {
      for (int64_t n : lengths()) {
        SCOPED_TRACE(case_name(op_name(op), t, n));
        const auto [alo, ahi] = float_range(op, false);
        const auto [blo, bhi] = float_range(op, true);
        const Buf a = random_buf(t, n, alo, ahi, ++seed);
        const Buf b = random_buf(t, n, blo, bhi, ++seed);
        const double rtol = (t == DType::kF16 || t == DType::kBF16) ? 2 * unit_roundoff(t)
                            : op == BinaryOp::kPow                  ? 2 * unit_roundoff(t)
                                                                    : unit_roundoff(t);
        Buf y(t, n);
        vec_binary(op, t, a.data(), b.data(), y.data(), n);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_TRUE(close(y.get(i), round_to(t, float_ref(op, a.get(i), b.get(i))), rtol, 0))
              << "a=" << a.get(i) << " b=" << b.get(i);
        const double s = round_to(t, op == BinaryOp::kPow ? 1.7 : 3.3);
        vec_binary_scalar(op, t, a.data(), s, y.data(), n);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_TRUE(close(y.get(i), round_to(t, float_ref(op, a.get(i), s)), rtol, 0));
        if (op == BinaryOp::kPow) continue;  // s ^ a with negative a: covered by vector case
        vec_binary_scalar(op, t, b.data(), s, y.data(), n, /*scalar_left=*/true);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_TRUE(close(y.get(i), round_to(t, float_ref(op, s, b.get(i))), rtol, 0));
      }
    }
  }
}

TEST(VecBinary, FloatMaxMinPropagateNaN) {
  for (DType t : {DType::kF32, DType::kF64, DType::kF16}) {
    Buf a(t, 4), b(t, 4), y(t, 4);
    const double av[4] = {kNaN, 1, kNaN, 2}, bv[4] = {1, kNaN, kNaN, 3};
    for (int i = 0; i < 4; ++i) a.set(i, av[i]), b.set(i, bv[i]);
    for (BinaryOp op : {BinaryOp::kMax, BinaryOp::kMin}) {
      vec_binary(op, t, a.data(), b.data(), y.data(), 4);
      EXPECT_TRUE(std::isnan(y.get(0)) && std::isnan(y.get(1)) && std::isnan(y.get(2)));
      EXPECT_EQ(y.get(3), op == BinaryOp::kMax ? 3 : 2);
    }
  }
}

TEST(VecBinary, IntegerOpsWrapAndZeroDivisor) {
  uint32_t seed = 300;
  for (BinaryOp op : kArith) {
    for (DType t : kInts) {
      for (int64_t n : {0, 1, 7, 33, 1001}) {
        SCOPED_TRACE(case_name(op_name(op), t, n));
        const auto [alo, ahi] = int_range(t, op == BinaryOp::kPow ? 5 : 100);
        auto [blo, bhi] = int_range(t, op == BinaryOp::kPow ? 3 : 10);
        if (op == BinaryOp::kPow) bhi = std::min(bhi, 7.0);
        const Buf a = random_buf(t, n, alo, ahi, ++seed);
        const Buf b = random_buf(t, n, blo, bhi, ++seed);
        Buf y(t, n);
        vec_binary(op, t, a.data(), b.data(), y.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          const auto ai = static_cast<int64_t>(a.get(i)), bi = static_cast<int64_t>(b.get(i));
          ASSERT_EQ(y.get(i), int_ref(t, op, ai, bi)) << "a=" << ai << " b=" << bi;
        }
        vec_binary_scalar(op, t, a.data(), 3.0, y.data(), n, /*scalar_left=*/true);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(y.get(i), int_ref(t, op, 3, static_cast<int64_t>(a.get(i))));
      }
    }
  }
  // INT_MIN / -1 and INT_MIN % -1 wrap instead of trapping.
  int32_t a[2] = {std::numeric_limits<int32_t>::min(), 5}, b[2] = {-1, 0}, y[2];
  vec_binary(BinaryOp::kDiv, DType::kI32, a, b, y, 2);
  EXPECT_EQ(y[0], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(y[1], 0);
  vec_binary(BinaryOp::kMod, DType::kI32, a, b, y, 2);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0);
}

TEST(VecBinary, BoolLogic) {
  const uint8_t a[4] = {0, 0, 1, 2}, b[4] = {0, 1, 0, 3};
  uint8_t y[4];
  vec_binary(BinaryOp::kAnd, DType::kBool, a, b, y, 4);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 4), (std::vector<uint8_t>{0, 0, 0, 1}));
  vec_binary(BinaryOp::kOr, DType::kBool, a, b, y, 4);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 4), (std::vector<uint8_t>{0, 1, 1, 1}));
  vec_binary(BinaryOp::kXor, DType::kBool, a, b, y, 4);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 4), (std::vector<uint8_t>{0, 1, 1, 0}));
  vec_binary_scalar(BinaryOp::kXor, DType::kBool, a, 1.0, y, 4);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 4), (std::vector<uint8_t>{1, 1, 0, 0}));
}

TEST(VecBinary, BroadcastMid) {
  struct Shape {
    int64_t outer, mid, inner;
  };
  // Rows shorter than, equal to and past a vector (f32: 16 lanes), with tails.
  const Shape shapes[] = {{1, 1, 1},    {2, 3, 1}, {4, 100, 1}, {3, 5, 7},  {2, 3, 33}, {2, 0, 4},
                          {1, 2, 1000}, {6, 7, 1}, {3, 16, 1},  {5, 23, 1}, {2, 4, 17}, {3, 2, 16}};
  for (DType t : {DType::kF32, DType::kF64, DType::kF16, DType::kI64, DType::kI8}) {
    for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv,
                        BinaryOp::kMax, BinaryOp::kMin}) {
      for (const Shape& s : shapes) {
        SCOPED_TRACE(std::string(op_name(op)) + "/" + std::string(dtype_name(t)) + "/" +
                     std::to_string(s.outer) + "x" + std::to_string(s.mid) + "x" +
                     std::to_string(s.inner));
        const int64_t n = s.outer * s.mid * s.inner;
        const Buf a = random_buf(t, n, 1, 50, 7);
        const Buf b = random_buf(t, s.outer * s.inner, 1, 9, 8);
        Buf y(t, n);
        vec_binary_bcast_mid(op, t, a.data(), b.data(), y.data(), s.outer, s.mid, s.inner);
        for (int64_t o = 0; o < s.outer; ++o)
          for (int64_t r = 0; r < s.mid; ++r)
            for (int64_t i = 0; i < s.inner; ++i) {
              const int64_t k = (o * s.mid + r) * s.inner + i;
              const double av = a.get(k), bv = b.get(o * s.inner + i);
              const double want = dtype_is_integer(t) ? int_ref(t, op, static_cast<int64_t>(av),
                                                                static_cast<int64_t>(bv))
                                                      : round_to(t, float_ref(op, av, bv));
              ASSERT_TRUE(close(y.get(k), want, 2 * unit_roundoff(t), 0)) << "k=" << k;
            }
      }
    }
  }
}

TEST(VecCompare, AllNumericDtypes) {
  const CmpOp ops[] = {CmpOp::kEq, CmpOp::kNe, CmpOp::kLt, CmpOp::kLe, CmpOp::kGt, CmpOp::kGe};
  for (DType t : numeric_types()) {
    for (int64_t n : lengths()) {
      const auto [lo, hi] = int_range(t, 3);
      const Buf a = random_buf(t, n, lo, hi, 21), b = random_buf(t, n, lo, hi, 22);
      std::vector<uint8_t> y(static_cast<size_t>(n) + 1);
      for (CmpOp op : ops) {
        SCOPED_TRACE(case_name(op_name(op), t, n));
        vec_compare(op, t, a.data(), b.data(), y.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          const double x = a.get(i), z = b.get(i);
          const bool want = op == CmpOp::kEq   ? x == z
                            : op == CmpOp::kNe ? x != z
                            : op == CmpOp::kLt ? x < z
                            : op == CmpOp::kLe ? x <= z
                            : op == CmpOp::kGt ? x > z
                                               : x >= z;
          ASSERT_EQ(y[static_cast<size_t>(i)], want ? 1 : 0) << "a=" << x << " b=" << z;
        }
      }
    }
  }
}

TEST(VecCompare, NaNIsFalseExceptNe) {
  for (DType t : kFloats) {
    const int64_t n = 37;  // NaN lands in both the SIMD body and the tail
    Buf a(t, n), b(t, n);
    for (int64_t i = 0; i < n; ++i) a.set(i, i % 3 == 0 ? kNaN : 1.0), b.set(i, i % 2 ? kNaN : 1.0);
    std::vector<uint8_t> y(n);
    for (CmpOp op : {CmpOp::kEq, CmpOp::kNe, CmpOp::kLt, CmpOp::kLe, CmpOp::kGt, CmpOp::kGe}) {
      vec_compare(op, t, a.data(), b.data(), y.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const bool has_nan = std::isnan(a.get(i)) || std::isnan(b.get(i));
        const bool want =
            has_nan ? op == CmpOp::kNe : (op == CmpOp::kEq || op == CmpOp::kLe || op == CmpOp::kGe);
        ASSERT_EQ(y[static_cast<size_t>(i)], want ? 1 : 0)
            << op_name(op) << "/" << dtype_name(t) << " i=" << i;
      }
    }
  }
}

TEST(VecSelect, AllElementSizes) {
  std::mt19937 rng(5);
  for (size_t es : {1, 2, 4, 8}) {
    for (int64_t n : lengths()) {
      const auto un = static_cast<size_t>(n);
      std::vector<uint8_t> c(un + 1), a(un * es + 1), b(un * es + 1), y(un * es + 1);
      for (auto& v : c) v = static_cast<uint8_t>(rng() % 3);  // 0, 1, 2: nonzero is true
      for (auto& v : a) v = static_cast<uint8_t>(rng());
      for (auto& v : b) v = static_cast<uint8_t>(rng());
      vec_select(es, c.data(), a.data(), b.data(), y.data(), n);
      for (size_t i = 0; i < un; ++i)
        ASSERT_EQ(std::memcmp(y.data() + i * es, (c[i] ? a : b).data() + i * es, es), 0)
            << "es=" << es << " n=" << n << " i=" << i;
    }
  }
}

TEST(VecDuplicate, ConvertsLikeCast) {
  for (DType t : all_types()) {
    if (t == DType::kString) continue;
    for (double v : {3.7, -1.5, 1e10}) {
      for (int64_t n : {0, 1, 17, 1000}) {
        Buf y(t, n);
        vec_duplicate(t, v, y.data(), n);
        double want = round_to(t, v);
        if (dtype_is_integer(t)) want = round_to(t, std::trunc(v));
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y.get(i), want) << dtype_name(t) << " v=" << v;
      }
    }
  }
}

}  // namespace
}  // namespace asc::vectest
