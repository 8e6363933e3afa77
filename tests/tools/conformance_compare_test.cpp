// The ONNX backend-test comparison rule (rtol 1e-3, atol 1e-7): tolerance edges, NaN, infinities,
// integer exactness, dtype and shape mismatches, and the message naming the worst element.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tools/conformance_compare.h"

namespace asc::conformance {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor make(DType dt, Shape shape, const std::vector<double>& values) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.set(static_cast<int64_t>(i), values[i]);
  return t;
}

Tensor f64(const std::vector<double>& v) {
  return make(DType::kF64, {static_cast<int64_t>(v.size())}, v);
}

TEST(ConformanceCompare, EqualTensorsMatch) {
  const auto c = compare_tensors(f64({1, -2, 0, 3.5}), f64({1, -2, 0, 3.5}));
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_TRUE(c.reason.empty());
}

TEST(ConformanceCompare, ToleranceIsAtolPlusRtolTimesExpected) {
  // want 1000: allowed error 1e-7 + 1e-3 * 1000 = 1.0000001.
  EXPECT_TRUE(compare_tensors(f64({1001.0}), f64({1000.0})).ok);
  EXPECT_TRUE(compare_tensors(f64({999.0}), f64({1000.0})).ok);
  EXPECT_FALSE(compare_tensors(f64({1001.00001}), f64({1000.0})).ok);
  // Relative to the expected value, not the result: want 1, got 1.0011 is out (1.0011e-3 > 1e-3).
  EXPECT_FALSE(compare_tensors(f64({1.0011}), f64({1.0})).ok);
  // Near zero only atol counts.
  EXPECT_TRUE(compare_tensors(f64({5e-8}), f64({0.0})).ok);
  EXPECT_FALSE(compare_tensors(f64({2e-7}), f64({0.0})).ok);
}

TEST(ConformanceCompare, CustomTolerance) {
  EXPECT_TRUE(compare_tensors(f64({1.05}), f64({1.0}), {0.1, 0}).ok);
  EXPECT_FALSE(compare_tensors(f64({1.05}), f64({1.0}), {0.01, 0}).ok);
}

TEST(ConformanceCompare, NanMatchesOnlyNan) {
  EXPECT_TRUE(compare_tensors(f64({kNaN, 1}), f64({kNaN, 1})).ok);
  EXPECT_FALSE(compare_tensors(f64({0.0}), f64({kNaN})).ok);
  EXPECT_FALSE(compare_tensors(f64({kNaN}), f64({0.0})).ok);
  EXPECT_FALSE(compare_tensors(f64({kNaN}), f64({kInf})).ok);
}

TEST(ConformanceCompare, InfinitiesMatchExactly) {
  EXPECT_TRUE(compare_tensors(f64({kInf, -kInf}), f64({kInf, -kInf})).ok);
  EXPECT_FALSE(compare_tensors(f64({-kInf}), f64({kInf})).ok);
  EXPECT_FALSE(compare_tensors(f64({1e308}), f64({kInf})).ok);
  EXPECT_FALSE(compare_tensors(f64({kInf}), f64({1e308})).ok);
}

TEST(ConformanceCompare, HalfPrecisionUsesTheSameRule) {
  // 1 and 1 + 2^-10 (one f16 ulp) differ by 9.8e-4: inside 1e-3 * 1.
  EXPECT_TRUE(
      compare_tensors(make(DType::kF16, {1}, {1.0 + 1.0 / 1024}), make(DType::kF16, {1}, {1.0}))
          .ok);
  EXPECT_FALSE(
      compare_tensors(make(DType::kBF16, {1}, {1.0078125}), make(DType::kBF16, {1}, {1.0})).ok);
  EXPECT_TRUE(compare_tensors(make(DType::kF16, {1}, {kNaN}), make(DType::kF16, {1}, {kNaN})).ok);
}

TEST(ConformanceCompare, IntegersAndBoolAreExact) {
  EXPECT_TRUE(compare_tensors(make(DType::kI32, {2}, {7, -3}), make(DType::kI32, {2}, {7, -3})).ok);
  EXPECT_FALSE(compare_tensors(make(DType::kI32, {1}, {1000}), make(DType::kI32, {1}, {1001})).ok);
  EXPECT_FALSE(
      compare_tensors(make(DType::kBool, {2}, {1, 0}), make(DType::kBool, {2}, {1, 1})).ok);
  // 2^53 + 1 and 2^53 are equal as doubles but not as int64.
  Tensor a(DType::kI64, {1}), b(DType::kI64, {1});
  a.data_as<int64_t>()[0] = (int64_t{1} << 53) + 1;
  b.data_as<int64_t>()[0] = int64_t{1} << 53;
  EXPECT_FALSE(compare_tensors(a, b).ok);
  EXPECT_TRUE(compare_tensors(a, a).ok);
}

TEST(ConformanceCompare, DtypeMustMatch) {
  const auto c = compare_tensors(make(DType::kF32, {2}, {1, 2}), make(DType::kF64, {2}, {1, 2}));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "dtype f32, expected f64");
}

TEST(ConformanceCompare, ShapeMustMatchEvenWithEqualElementCount) {
  const auto c = compare_tensors(make(DType::kF32, {2, 3}, {}), make(DType::kF32, {3, 2}, {}));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.reason, "shape [2,3], expected [3,2]");
  EXPECT_FALSE(compare_tensors(make(DType::kF32, {}, {1}), make(DType::kF32, {1}, {1})).ok);
}

TEST(ConformanceCompare, EmptyTensorsMatch) {
  EXPECT_TRUE(compare_tensors(make(DType::kF32, {0, 3}, {}), make(DType::kF32, {0, 3}, {})).ok);
}

TEST(ConformanceCompare, ReportsCountWorstElementAndErrors) {
  const auto c = compare_tensors(f64({1, 2.5, 3, 4.01}), f64({1, 2, 3, 4}));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.worst, 1);
  EXPECT_DOUBLE_EQ(c.max_abs_err, 0.5);
  EXPECT_DOUBLE_EQ(c.max_rel_err, 0.25);
  EXPECT_EQ(c.reason,
            "2 of 4 elements differ; worst [1]: got 2.5, expected 2; max abs err 0.5, max rel err "
            "0.25");
}

TEST(ConformanceCompare, NanMismatchIsTheWorstElement) {
  const auto c = compare_tensors(f64({100, kNaN}), f64({1, 1}));
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.worst, 1);
  EXPECT_DOUBLE_EQ(c.max_abs_err, 99);  // over finite pairs only
}

}  // namespace
}  // namespace asc::conformance
