// vec_unary / vec_binary* / vec_compare / vec_select / vec_duplicate against naive double
// references: every supported (op, dtype), lengths 0..65537, seeded data, special values.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
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
using cpu::vec_unary;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
const DType kFloats[] = {DType::kF32, DType::kF64, DType::kF16, DType::kBF16};
const DType kInts[] = {DType::kI8, DType::kI16, DType::kI32, DType::kI64,
                       DType::kU8, DType::kU16, DType::kU32, DType::kU64};

// ---------------------------------------------------------------- unary, floats
struct UnaryCase {
  UnaryOp op;
  double lo, hi;      // input range
  double rtol, atol;  // f32 tolerance (f16/bf16 add their rounding, f64 uses rtol64)
  double rtol64;
  float alpha, beta;
  std::function<double(double)> ref;
};

double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

std::vector<UnaryCase> unary_cases() {
  const double u = std::ldexp(1.0, -23);  // f32 unit roundoff x 2: "exact" ops are within it
  const double e = 2e-6, e64 = 1e-13, x64 = 4.5e-16;
  return {
      {UnaryOp::kNeg, -100, 100, 0, 0, 0, 0, 0, [](double x) { return -x; }},
      {UnaryOp::kAbs, -100, 100, 0, 0, 0, 0, 0, [](double x) { return std::abs(x); }},
      {UnaryOp::kRelu, -100, 100, 0, 0, 0, 0, 0, [](double x) { return x < 0 ? 0 : x; }},
      {UnaryOp::kSigmoid, -30, 30, e, 0, e64, 0, 0, sigmoid},
      {UnaryOp::kTanh, -10, 10, e, 1e-7, e64, 0, 0, [](double x) { return std::tanh(x); }},
      {UnaryOp::kExp, -85, 85, e, 0, e64, 0, 0, [](double x) { return std::exp(x); }},
      {UnaryOp::kLog, 1e-3, 1e4, e, 1e-7, e64, 0, 0, [](double x) { return std::log(x); }},
      {UnaryOp::kSqrt, 0, 1e4, u, 0, x64, 0, 0, [](double x) { return std::sqrt(x); }},
      {UnaryOp::kRsqrt, 1e-3, 1e4, 2 * u, 0, 2 * x64, 0, 0,
       [](double x) { return 1 / std::sqrt(x); }},
      {UnaryOp::kReciprocal, 0.01, 100, u, 0, x64, 0, 0, [](double x) { return 1 / x; }},
      {UnaryOp::kErf, -5, 5, e, 1e-7, x64, 0, 0, [](double x) { return std::erf(x); }},
      {UnaryOp::kSin, -50, 50, 0, e, 0, 1e-14, 0, [](double x) { return std::sin(x); }},
      {UnaryOp::kCos, -50, 50, 0, e, 0, 1e-14, 0, [](double x) { return std::cos(x); }},
      {UnaryOp::kFloor, -100, 100, 0, 0, 0, 0, 0, [](double x) { return std::floor(x); }},
      {UnaryOp::kCeil, -100, 100, 0, 0, 0, 0, 0, [](double x) { return std::ceil(x); }},
      {UnaryOp::kRound, -100, 100, 0, 0, 0, 0, 0, [](double x) { return std::nearbyint(x); }},
      {UnaryOp::kSign, -3, 3, 0, 0, 0, 0, 0, [](double x) { return double((x > 0) - (x < 0)); }},
      {UnaryOp::kSquare, -100, 100, u, 0, x64, 0, 0, [](double x) { return x * x; }},
      {UnaryOp::kSilu, -30, 30, e, 1e-7, e64, 0, 0, [](double x) { return x * sigmoid(x); }},
      // The tails, where e^-|x| nears and passes f32's underflow (tiny and subnormal results).
      {UnaryOp::kSigmoid, -110, -20, e, 1e-44, e64, 0, 0, sigmoid},
      {UnaryOp::kSilu, -110, -20, e, 1e-42, e64, 0, 0, [](double x) { return x * sigmoid(x); }},
      {UnaryOp::kSigmoid, 10, 110, e, 0, e64, 0, 0, sigmoid},
      {UnaryOp::kSilu, 10, 110, e, 0, e64, 0, 0, [](double x) { return x * sigmoid(x); }},
      {UnaryOp::kLeakyRelu, -100, 100, u, 0, x64, 0.1f, 0,
       [](double x) { return x < 0 ? double(0.1f) * x : x; }},
      {UnaryOp::kClip, -10, 10, 0, 0, 0, -2.5f, 3.f,
       [](double x) { return std::min(std::max(x, -2.5), 3.0); }},
      {UnaryOp::kAffine, -100, 100, u, 0, x64, 1.5f, -0.25f,
       [](double x) { return 1.5 * x - 0.25; }},
      {UnaryOp::kPowScalar, 0.01, 10, u, 0, x64, 2.f, 0, [](double x) { return x * x; }},
      {UnaryOp::kPowScalar, -10, 10, 2 * u, 0, 2 * x64, 3.f, 0, [](double x) { return x * x * x; }},
      {UnaryOp::kPowScalar, 0, 10, u, 0, x64, 0.5f, 0, [](double x) { return std::sqrt(x); }},
      {UnaryOp::kPowScalar, 0.01, 10, 2 * u, 0, 2 * x64, -0.5f, 0,
       [](double x) { return 1 / std::sqrt(x); }},
      {UnaryOp::kPowScalar, 0.01, 10, u, 0, x64, -1.f, 0, [](double x) { return 1 / x; }},
      {UnaryOp::kPowScalar, 0.01, 10, u, 0, x64, 2.7f, 0,
       [](double x) { return std::pow(x, double(2.7f)); }},
      {UnaryOp::kPowScalar, -10, 10, 0, 0, 0, 0.f, 0, [](double) { return 1.0; }},
  };
}

TEST(VecUnary, FloatOpsMatchDoubleReference) {
  uint32_t seed = 1;
  for (const UnaryCase& c : unary_cases()) {
    for (DType t : kFloats) {
      for (int64_t n : lengths()) {
        SCOPED_TRACE(case_name(op_name(c.op), t, n) + " alpha=" + std::to_string(c.alpha));
        const Buf x = random_buf(t, n, c.lo, c.hi, ++seed);
        Buf y(t, n);
        vec_unary(c.op, t, x.data(), y.data(), n, c.alpha, c.beta);
        const double ut = unit_roundoff(t);
        double rtol = c.rtol, atol = c.atol;
        if (t == DType::kF64) rtol = c.rtol64, atol = c.atol > 0 ? 1e-14 : 0;
        if (t == DType::kF16 || t == DType::kBF16)
          rtol += ut, atol += (t == DType::kF16 ? 6e-8 : 0);
        for (int64_t i = 0; i < n; ++i) {
          const double want = round_to(t, c.ref(x.get(i)));
          ASSERT_TRUE(close(y.get(i), want, rtol, atol)) << "x=" << x.get(i) << " i=" << i;
        }
      }
    }
  }
}

TEST(VecUnary, InPlace) {
  Buf x = random_buf(DType::kF32, 1001, -5, 5, 7);
  const Buf x0 = x;
  vec_unary(UnaryOp::kExp, DType::kF32, x.data(), x.data(), 1001);
  for (int64_t i = 0; i < 1001; ++i) ASSERT_TRUE(close(x.get(i), std::exp(x0.get(i)), 2e-6, 0));
}

TEST(VecUnary, SpecialValuesF32) {
  const std::vector<double> xs = {kNaN,    kInf,  -kInf,  0.0, -0.0, 100.0, -100.0, 1000.0,
                                  -1000.0, 1e-30, -1e-30, 0.5, 1.5,  2.5,   -0.5,   -2.5};
  struct S {
    UnaryOp op;
    std::function<double(double)> ref;
  };
  const std::vector<S> ops = {
      {UnaryOp::kExp, [](double x) { return std::exp(x); }},
      {UnaryOp::kLog, [](double x) { return std::log(x); }},
      {UnaryOp::kSigmoid, sigmoid},
      {UnaryOp::kTanh, [](double x) { return std::tanh(x); }},
      {UnaryOp::kErf, [](double x) { return std::erf(x); }},
      {UnaryOp::kSilu, [](double x) { return std::isinf(x) && x < 0 ? 0.0 : x * sigmoid(x); }},
      {UnaryOp::kRelu, [](double x) { return x < 0 ? 0 : x; }},
      {UnaryOp::kSqrt, [](double x) { return std::sqrt(x); }},
      {UnaryOp::kRound, [](double x) { return std::nearbyint(x); }},
      {UnaryOp::kSign, [](double x) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); }},
      {UnaryOp::kAbs, [](double x) { return std::abs(x); }},
  };
  for (DType t : {DType::kF32, DType::kF64}) {
    const auto n = static_cast<int64_t>(xs.size());
    Buf x(t, n), y(t, n);
    for (int64_t i = 0; i < n; ++i) x.set(i, xs[i]);
    for (const S& s : ops) {
      vec_unary(s.op, t, x.data(), y.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const double want = round_to(t, s.ref(x.get(i)));
        EXPECT_TRUE(close(y.get(i), want, 2e-6, 1e-30))
            << op_name(s.op) << "/" << dtype_name(t) << " x=" << x.get(i);
      }
    }
  }
  // Signed zeros: erf(-0) = -0, neg(0) = -0, round(-0.4) = -0.
  float in[3] = {-0.f, 0.f, -0.4f}, out[3];
  vec_unary(UnaryOp::kErf, DType::kF32, in, out, 1);
  EXPECT_TRUE(std::signbit(out[0]));
  vec_unary(UnaryOp::kNeg, DType::kF32, in + 1, out, 1);
  EXPECT_TRUE(std::signbit(out[0]));
  vec_unary(UnaryOp::kRound, DType::kF32, in + 2, out, 1);
  EXPECT_TRUE(std::signbit(out[0]) && out[0] == 0.f);
}

// ---------------------------------------------------------------- unary, integers and bool
double wrap_to(DType t, uint64_t v) {
  switch (t) {
    case DType::kI8:
      return static_cast<int8_t>(v);
    case DType::kI16:
      return static_cast<int16_t>(v);
    case DType::kI32:
      return static_cast<int32_t>(v);
    case DType::kI64:
      return static_cast<double>(static_cast<int64_t>(v));
    case DType::kU8:
      return static_cast<uint8_t>(v);
    case DType::kU16:
      return static_cast<uint16_t>(v);
    case DType::kU32:
      return static_cast<uint32_t>(v);
    default:
      return static_cast<double>(v);
  }
}
uint64_t as_u64(double v) {
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}

TEST(VecUnary, IntegerOps) {
  for (DType t : kInts) {
    for (int64_t n : {0, 1, 17, 1001}) {
      const auto [lo, hi] = int_range(t, 100);
      const Buf x = random_buf(t, n, lo, hi, 11);
      auto check = [&](UnaryOp op, float alpha, float beta, auto ref) {
        SCOPED_TRACE(case_name(op_name(op), t, n));
        Buf y(t, n);
        vec_unary(op, t, x.data(), y.data(), n, alpha, beta);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y.get(i), ref(x.get(i))) << "x=" << x.get(i);
      };
      const double cmin = dtype_is_signed(t) ? -5 : 0;
      check(UnaryOp::kCopy, 0, 0, [](double v) { return v; });
      check(UnaryOp::kNeg, 0, 0, [&](double v) { return wrap_to(t, 0 - as_u64(v)); });
      check(UnaryOp::kAbs, 0, 0, [](double v) { return std::abs(v); });
      check(UnaryOp::kRelu, 0, 0, [](double v) { return std::max(v, 0.0); });
      check(UnaryOp::kSign, 0, 0, [](double v) { return double((v > 0) - (v < 0)); });
      check(UnaryOp::kSquare, 0, 0, [&](double v) { return wrap_to(t, as_u64(v) * as_u64(v)); });
      check(UnaryOp::kClip, -5.5f, 7.25f,
            [&](double v) { return std::min(std::max(v, cmin), 7.0); });
      check(UnaryOp::kAffine, 3.f, -2.f, [&](double v) { return wrap_to(t, 3 * as_u64(v) - 2); });
      check(UnaryOp::kAffine, 0.5f, 1.25f, [&](double v) {
        const double r = std::trunc(0.5 * v + 1.25);
        return dtype_is_signed(t) ? r : std::max(r, 0.0);
      });
    }
  }
}

TEST(VecUnary, BoolOps) {
  uint8_t x[5] = {0, 1, 2, 0, 255}, y[5];
  vec_unary(UnaryOp::kNot, DType::kBool, x, y, 5);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 5), (std::vector<uint8_t>{1, 0, 0, 1, 0}));
  vec_unary(UnaryOp::kCopy, DType::kBool, x, y, 5);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 5), std::vector<uint8_t>(x, x + 5));
}

TEST(VecUnary, UnsupportedThrowsNamingOpAndDtype) {
  int32_t x[1] = {1}, y[1];
  try {
    vec_unary(UnaryOp::kSigmoid, DType::kI32, x, y, 1);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sigmoid"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("i32"), std::string::npos) << e.what();
  }
  float f[1] = {1};
  EXPECT_THROW(vec_unary(UnaryOp::kNot, DType::kF32, f, f, 1), std::invalid_argument);
  EXPECT_THROW(vec_unary(UnaryOp::kExp, DType::kBool, x, y, 1), std::invalid_argument);
  EXPECT_THROW(vec_binary(BinaryOp::kAnd, DType::kF32, f, f, f, 1), std::invalid_argument);
  EXPECT_THROW(vec_binary(BinaryOp::kAdd, DType::kBool, x, x, y, 1), std::invalid_argument);
  EXPECT_THROW(vec_compare(CmpOp::kEq, DType::kString, x, x, nullptr, 0), std::invalid_argument);
  EXPECT_THROW(vec_select(3, nullptr, x, x, y, 0), std::invalid_argument);
}

}  // namespace
}  // namespace asc::vectest
