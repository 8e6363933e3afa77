// asc-check's node rule for float tensors (docs/CHECK.md): rare per-element outliers that
// rounding leaves after a long chain pass, while a wrong tensor fails (a permutation, a window
// off by one, a sign error, one wrong channel, NaN where ORT has a number), and tolerances given
// on the command line judge every precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "registry/strings.h"
#include "tools/check_compare.h"

namespace asc::check {
namespace {

// ORT's side: an activation of [1, C, H, W], normal values.
constexpr int64_t kC = 16, kH = 32, kW = 32;

Tensor activation(const Shape& shape, uint32_t seed) {
  Tensor t(DType::kF32, shape);
  std::mt19937 rng(seed);
  std::normal_distribution<float> v(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, v(rng));
  return t;
}

// asc's side of a right node: `o` with the rounding a long chain leaves everywhere, relative
// noise of 1e-6 of the tensor's scale.
Tensor rounded(const Tensor& o, uint32_t seed) {
  Tensor a = o.clone();
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, 1e-6);
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, o.at(i) + noise(rng));
  return a;
}

double mean_abs_of(const Tensor& t) {
  double s = 0;
  for (int64_t i = 0; i < t.numel(); ++i) s += std::fabs(t.at(i));
  return s / static_cast<double>(t.numel());
}

// Elements outside atol + rtol * (|o| + extra), from the definition; non-finite pairs that are not
// the same NaN or infinity count too. extra 0: the strict count; extra mean|o|: the node rule.
int64_t count_outside(const Tensor& a, const Tensor& o, const Tolerance& tol, double extra) {
  int64_t k = 0;
  for (int64_t i = 0; i < o.numel(); ++i) {
    const double x = a.at(i), y = o.at(i);
    if (std::isnan(x) || std::isnan(y))
      k += !(std::isnan(x) && std::isnan(y));
    else if (std::isinf(x) || std::isinf(y))
      k += x != y;
    else
      k += std::fabs(x - y) > tol.atol + tol.rtol * (std::fabs(y) + extra);
  }
  return k;
}

// Judged with the default fp32 rule: fails, and the strict count agrees with its definition.
void expect_wrong(const Tensor& a, const Tensor& o, const std::string& what) {
  SCOPED_TRACE(what);
  const Tolerance tol;
  const Metrics m = compare(a, o, DType::kF32, tol);
  EXPECT_EQ(m.rule, Rule::kTolerance);
  EXPECT_FALSE(m.passed);
  EXPECT_FALSE(m.reason.empty());
  EXPECT_EQ(m.mismatches, count_outside(a, o, tol, 0));
  EXPECT_EQ(m.scaled_mismatches, count_outside(a, o, tol, mean_abs_of(o)));
  EXPECT_GT(m.scaled_mismatches, 0);
}

TEST(CheckRule, OutliersAfterAChainPass) {
  const Tolerance tol;
  const Tensor o = activation({1, 64, 128, 128}, 1);  // 1,048,576 elements
  const double mean = mean_abs_of(o);
  // The outliers: the elements nearest zero, off by more than their own atol + rtol * |o| and less
  // than atol + rtol * (|o| + mean|o|), as cancellation near zero leaves them.
  std::vector<int64_t> near_zero(static_cast<size_t>(o.numel()));
  for (int64_t i = 0; i < o.numel(); ++i) near_zero[static_cast<size_t>(i)] = i;
  std::partial_sort(near_zero.begin(), near_zero.begin() + 100, near_zero.end(),
                    [&](int64_t x, int64_t y) { return std::fabs(o.at(x)) < std::fabs(o.at(y)); });
  for (const int outliers : {1, 100}) {
    SCOPED_TRACE(outliers);
    Tensor a = rounded(o, 2);
    for (int j = 0; j < outliers; ++j) {
      const int64_t i = near_zero[static_cast<size_t>(j)];
      a.set(i, o.at(i) + tol.atol + tol.rtol * (std::fabs(o.at(i)) + mean / 2));
    }
    const Metrics m = compare(a, o, DType::kF32, tol);
    EXPECT_TRUE(m.passed) << m.reason;
    EXPECT_EQ(m.rule, Rule::kTolerance);
    EXPECT_EQ(m.mismatches, outliers);  // the strict count shows them
    EXPECT_EQ(m.mismatches, count_outside(a, o, tol, 0));
    EXPECT_EQ(m.scaled_mismatches, 0);
    EXPECT_NEAR(m.scale, mean, 1e-9 * mean);
    EXPECT_GT(m.cosine, 1 - 5e-7);  // prints as 1.000000
  }
}

TEST(CheckRule, OneElementBeyondTheTensorsMagnitudeFails) {
  const Tolerance tol;
  const Tensor o = activation({1, 64, 128, 128}, 3);
  Tensor a = rounded(o, 4);
  const int64_t k = o.numel() / 3;
  // One element in a million, off by twice what the tensor's magnitude allows.
  a.set(k, o.at(k) + 2 * (tol.atol + tol.rtol * (std::fabs(o.at(k)) + mean_abs_of(o))));
  const Metrics m = compare(a, o, DType::kF32, tol);
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.mismatches, 1);
  EXPECT_EQ(m.scaled_mismatches, 1);
  EXPECT_NE(m.reason.find(cat("1 of ", o.numel(), " elements differ")), std::string::npos)
      << m.reason;
  EXPECT_NE(m.reason.find(cat("worst [", k, "]")), std::string::npos) << m.reason;
}

TEST(CheckRule, WrongTensorsFail) {
  const Tensor o = activation({1, kC, kH, kW}, 5);
  const Tensor right = rounded(o, 6);
  ASSERT_TRUE(compare(right, o, DType::kF32, {}).passed);
  auto at = [](int64_t c, int64_t h, int64_t w) { return (c * kH + h) * kW + w; };

  Tensor permuted = right.clone();
  std::vector<double> v(static_cast<size_t>(o.numel()));
  for (int64_t i = 0; i < o.numel(); ++i) v[static_cast<size_t>(i)] = right.at(i);
  std::shuffle(v.begin(), v.end(), std::mt19937(7));
  for (int64_t i = 0; i < o.numel(); ++i) permuted.set(i, v[static_cast<size_t>(i)]);
  expect_wrong(permuted, o, "elements permuted");

  Tensor shifted = right.clone();  // a window off by one along W
  for (int64_t c = 0; c < kC; ++c)
    for (int64_t h = 0; h < kH; ++h)
      for (int64_t w = 0; w + 1 < kW; ++w) shifted.set(at(c, h, w), right.at(at(c, h, w + 1)));
  expect_wrong(shifted, o, "window off by one");

  Tensor negated = right.clone();
  for (int64_t i = 0; i < o.numel(); ++i) negated.set(i, -right.at(i));
  expect_wrong(negated, o, "sign flipped");

  Tensor one_sign = right.clone();  // the sign of one element: the largest
  int64_t big = 0;
  for (int64_t i = 0; i < o.numel(); ++i)
    if (std::fabs(o.at(i)) > std::fabs(o.at(big))) big = i;
  one_sign.set(big, -right.at(big));
  expect_wrong(one_sign, o, "one element's sign flipped");

  Tensor swapped = right.clone();  // channel 5 holds channel 6
  for (int64_t h = 0; h < kH; ++h)
    for (int64_t w = 0; w < kW; ++w) swapped.set(at(5, h, w), right.at(at(6, h, w)));
  expect_wrong(swapped, o, "one channel wrong");

  // One channel's bias off by 2e-3, twice the tensor's rtol * mean|o|: small against the
  // tensor's largest values, yet outside the bound for most of the channel.
  const double off = 2 * Tolerance{}.rtol * mean_abs_of(o);
  Tensor biased = right.clone();
  for (int64_t h = 0; h < kH; ++h)
    for (int64_t w = 0; w < kW; ++w) biased.set(at(9, h, w), right.at(at(9, h, w)) + off);
  expect_wrong(biased, o, "one channel's bias off");
}

TEST(CheckRule, AFewHugeValuesDoNotWidenTheBound) {
  // A hidden state with two massive dimensions (10^4 times the others, as LLM residual streams
  // have): a shift of the ordinary dimensions is far under rtol * max|o| and still fails.
  constexpr int64_t kTokens = 16, kDim = 896;
  const Tensor base = activation({kTokens, kDim}, 8);
  Tensor o = base.clone();
  for (int64_t t = 0; t < kTokens; ++t) {
    o.set(t * kDim + 3, 10000 * base.at(t * kDim + 3));
    o.set(t * kDim + 500, 10000 * base.at(t * kDim + 500));
  }
  Tensor a = o.clone();
  for (int64_t t = 0; t < kTokens; ++t)
    for (int64_t d = 600; d < 700; ++d) a.set(t * kDim + d, o.at(t * kDim + d + 1));
  const Metrics m = compare(a, o, DType::kF32, {});
  double max_o = 0;
  for (int64_t i = 0; i < o.numel(); ++i) max_o = std::max(max_o, std::fabs(o.at(i)));
  ASSERT_LT(m.max_abs, Tolerance{}.rtol * max_o);
  expect_wrong(a, o, "ordinary dimensions shifted");
}

TEST(CheckRule, NaNOrInfinityWhereOrtHasANumberFails) {
  const Tensor o = activation({1, 64, 128, 128}, 9);
  for (const double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    Tensor a = rounded(o, 10);
    const int64_t k = o.numel() / 2 + 1;
    a.set(k, bad);
    for (const DType precision : {DType::kF32, DType::kBF16}) {
      const Metrics m = compare(a, o, precision, {});
      EXPECT_FALSE(m.passed);
      EXPECT_NE(m.reason.find(
                    cat("1 of ", o.numel(), " elements differ in NaN/infinity; first [", k, "]")),
                std::string::npos)
          << m.reason;
      EXPECT_GE(m.mismatches, 1);
    }
  }
}

TEST(CheckRule, ExplicitTolerancesJudgeEveryPrecision) {
  const Tensor o = activation({4096}, 11);
  Tensor a = o.clone();  // errors of 5e-3, as a bf16 run leaves them
  std::mt19937 rng(12);
  std::bernoulli_distribution sign(0.5);
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, o.at(i) + (sign(rng) ? 5e-3 : -5e-3));

  Tolerance defaults;
  const Metrics by_cosine = compare(a, o, DType::kBF16, defaults);
  EXPECT_EQ(by_cosine.rule, Rule::kCosine);
  EXPECT_TRUE(by_cosine.passed) << by_cosine.reason;
  EXPECT_EQ(by_cosine.mismatches, count_outside(a, o, defaults, 0));  // reported, not judged
  EXPECT_GT(by_cosine.mismatches, 0);

  // --precision bf16 --atol 1e-7 --rtol 1e-7
  Tolerance tight;
  tight.atol = tight.rtol = 1e-7;
  tight.explicit_tolerance = true;
  for (const DType precision : {DType::kBF16, DType::kF16, DType::kF32}) {
    const Metrics m = compare(a, o, precision, tight);
    EXPECT_FALSE(m.passed) << dtype_name(precision);
    EXPECT_TRUE(rule_has_tolerance(m.rule));
    EXPECT_EQ(m.mismatches, o.numel());
    EXPECT_NE(m.reason.find("atol + rtol"), std::string::npos) << m.reason;
  }
  // Explicit tolerances wide enough for the error pass; the cosine rule still judges.
  Tolerance wide = tight;
  wide.atol = 6e-3;
  const Metrics both = compare(a, o, DType::kBF16, wide);
  EXPECT_EQ(both.rule, Rule::kToleranceCosine);
  EXPECT_TRUE(both.passed) << both.reason;
  wide.min_cosine = both.cosine + (1 - both.cosine) / 2;
  EXPECT_FALSE(compare(a, o, DType::kBF16, wide).passed);

  // --min-cosine given at fp32 judges the cosine on top of the tolerance rule.
  Tensor close = o.clone();
  for (int64_t i = 0; i < close.numel(); ++i) close.set(i, o.at(i) + (i % 2 ? 5e-5 : -5e-5));
  Tolerance bar;
  const Metrics plain = compare(close, o, DType::kF32, bar);
  ASSERT_TRUE(plain.passed) << plain.reason;
  ASSERT_LT(plain.cosine, 1.0);
  bar.min_cosine = plain.cosine + (1 - plain.cosine) / 2;
  EXPECT_TRUE(compare(close, o, DType::kF32, bar).passed);  // not given: not judged
  bar.explicit_cosine = true;
  const Metrics judged = compare(close, o, DType::kF32, bar);
  EXPECT_EQ(judged.rule, Rule::kToleranceCosine);
  EXPECT_FALSE(judged.passed);
  EXPECT_NE(judged.reason.find("cosine"), std::string::npos) << judged.reason;
}

TEST(CheckRule, SummaryNamesTheRulesInEffect) {
  Tolerance t;
  const std::string fp32 = rules_summary(DType::kF32, t), bf16 = rules_summary(DType::kBF16, t);
  EXPECT_NE(fp32.find("f32/f64: tolerance"), std::string::npos) << fp32;
  EXPECT_NE(fp32.find("f16/bf16: cosine"), std::string::npos) << fp32;
  EXPECT_NE(bf16.find("floats: cosine"), std::string::npos) << bf16;
  EXPECT_EQ(bf16.find("tolerance"), std::string::npos) << bf16;
  t.explicit_tolerance = true;
  const std::string given = rules_summary(DType::kBF16, t);
  EXPECT_NE(given.find("floats: tolerance"), std::string::npos) << given;
  EXPECT_NE(given.find("and cosine"), std::string::npos) << given;
}

}  // namespace
}  // namespace asc::check
