// asc-check's metrics and rules on synthetic tensors: max abs / rel error, cosine, RMSE, the
// per-dtype rules, non-finite values, and the marking of the first failure in a report.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "registry/strings.h"
#include "tools/check_compare.h"
#include "tools/check_run.h"

namespace asc::check {
namespace {

Tensor make(DType dt, Shape shape, const std::vector<double>& v) {
  Tensor t(dt, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, v[static_cast<size_t>(i)]);
  return t;
}

Tensor random_f32(int64_t n, uint32_t seed) {
  Tensor t(DType::kF32, {n});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < n; ++i) t.set(i, u(rng));
  return t;
}

// The metrics computed naively from their definitions (docs/CHECK.md).
struct Naive {
  double max_abs = 0, max_rel = 0, cosine = 0, rmse = 0, mean_o = 0;
  int64_t strict = 0;  // elements with |a - o| > 1e-4 + 1e-3 * |o|
  int64_t scaled = 0;  // elements with |a - o| > 1e-4 + 1e-3 * (|o| + mean|o|)
};
Naive naive(const Tensor& a, const Tensor& o) {
  Naive n;
  for (int64_t i = 0; i < o.numel(); ++i) n.mean_o += std::fabs(o.at(i));
  n.mean_o /= static_cast<double>(o.numel());
  double dot = 0, na = 0, no = 0, sq = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double d = std::fabs(a.at(i) - o.at(i));
    n.max_abs = std::max(n.max_abs, d);
    n.strict += d > 1e-4 + 1e-3 * std::fabs(o.at(i));
    n.scaled += d > 1e-4 + 1e-3 * (std::fabs(o.at(i)) + n.mean_o);
    if (o.at(i) != 0) n.max_rel = std::max(n.max_rel, d / std::fabs(o.at(i)));
    dot += a.at(i) * o.at(i);
    na += a.at(i) * a.at(i);
    no += o.at(i) * o.at(i);
    sq += d * d;
  }
  n.cosine = dot / std::sqrt(na * no);
  n.rmse = std::sqrt(sq / static_cast<double>(a.numel()));
  return n;
}

TEST(CheckCompare, RulesPerDtype) {
  const Tolerance d;
  EXPECT_EQ(rule_for(DType::kF32, DType::kF32, DType::kF32, d), Rule::kTolerance);
  EXPECT_EQ(rule_for(DType::kF64, DType::kF64, DType::kF32, d), Rule::kTolerance);
  EXPECT_EQ(rule_for(DType::kF32, DType::kF32, DType::kBF16, d), Rule::kCosine);
  EXPECT_EQ(rule_for(DType::kBF16, DType::kF32, DType::kBF16, d), Rule::kCosine);
  EXPECT_EQ(rule_for(DType::kF16, DType::kF16, DType::kF32, d), Rule::kCosine);
  EXPECT_EQ(rule_for(DType::kI64, DType::kI64, DType::kBF16, d), Rule::kExact);
  EXPECT_EQ(rule_for(DType::kBool, DType::kBool, DType::kF32, d), Rule::kExact);
  EXPECT_EQ(rule_name(Rule::kCosine), "cosine");
  // Tolerances given on the command line add their rule under every precision; never to integers.
  Tolerance given;
  given.explicit_tolerance = true;
  EXPECT_EQ(rule_for(DType::kF32, DType::kF32, DType::kBF16, given), Rule::kToleranceCosine);
  EXPECT_EQ(rule_for(DType::kF16, DType::kF16, DType::kF32, given), Rule::kToleranceCosine);
  EXPECT_EQ(rule_for(DType::kF32, DType::kF32, DType::kF32, given), Rule::kTolerance);
  given.explicit_cosine = true;
  EXPECT_EQ(rule_for(DType::kF32, DType::kF32, DType::kF32, given), Rule::kToleranceCosine);
  EXPECT_EQ(rule_for(DType::kI32, DType::kI32, DType::kBF16, given), Rule::kExact);
  given.explicit_tolerance = false;
  EXPECT_EQ(rule_for(DType::kF32, DType::kF32, DType::kBF16, given), Rule::kCosine);
  EXPECT_EQ(rule_name(Rule::kToleranceCosine), "tolerance+cosine");
}

TEST(CheckCompare, IdenticalTensorsPass) {
  const Tensor a = random_f32(100, 1);
  const Metrics m = compare(a, a.clone(), DType::kF32, {});
  EXPECT_TRUE(m.passed) << m.reason;
  EXPECT_EQ(m.rule, Rule::kTolerance);
  EXPECT_EQ(m.max_abs, 0);
  EXPECT_EQ(m.rmse, 0);
  EXPECT_NEAR(m.cosine, 1.0, 1e-12);
  EXPECT_EQ(m.mismatches, 0);
}

TEST(CheckCompare, MetricsMatchTheirDefinitions) {
  const Tensor o = random_f32(257, 2);
  Tensor a = o.clone();
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0, 1e-2);
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, o.at(i) + noise(rng));
  const Metrics m = compare(a, o, DType::kF32, {});
  const Naive n = naive(a, o);
  EXPECT_NEAR(m.max_abs, n.max_abs, 1e-12);
  EXPECT_NEAR(m.max_rel, n.max_rel, 1e-9 * n.max_rel);
  EXPECT_NEAR(m.cosine, n.cosine, 1e-12);
  EXPECT_NEAR(m.rmse, n.rmse, 1e-12);
  EXPECT_LT(m.cosine, 1.0);
  EXPECT_NEAR(m.scale, n.mean_o, 1e-12);
  EXPECT_EQ(m.mismatches, n.strict);
  EXPECT_EQ(m.scaled_mismatches, n.scaled);
  // Noise of 1e-2 is far above atol 1e-4 + rtol 1e-3 * (|o| + mean|o|).
  EXPECT_FALSE(m.passed);
  EXPECT_GT(m.scaled_mismatches, 0);
  EXPECT_NE(m.reason.find(cat(n.scaled, " of 257 elements differ by more than")), std::string::npos)
      << m.reason;
}

TEST(CheckCompare, ToleranceIsScaledByTheTensorsMeanMagnitude) {
  const Tolerance tol;  // atol 1e-4, rtol 1e-3
  const Tensor o = make(DType::kF32, {3}, {0.0, 1.0, 100.0});
  const double mean = (0.0 + 1.0 + 100.0) / 3;
  auto own = [&](double v) { return tol.atol + tol.rtol * std::fabs(v); };
  auto scaled = [&](double v) { return own(v) + tol.rtol * mean; };
  // The middle element is outside its own bound (the strict count shows it) and inside the
  // bound widened by rtol * mean|o|: the tensor passes.
  const double err = (own(1.0) + scaled(1.0)) / 2;
  const Tensor inside = make(DType::kF32, {3}, {own(0.0) / 2, 1.0 + err, 100.0});
  Metrics m = compare(inside, o, DType::kF32, tol);
  EXPECT_TRUE(m.passed) << m.reason;
  EXPECT_EQ(m.mismatches, 1);
  EXPECT_EQ(m.scaled_mismatches, 0);
  EXPECT_NEAR(m.scale, mean, 1e-12);
  // Past the widened bound it fails, and the reason names the element.
  const Tensor outside = make(DType::kF32, {3}, {0.0, 1.0 + 1.5 * scaled(1.0), 100.0});
  m = compare(outside, o, DType::kF32, tol);
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.mismatches, 1);
  EXPECT_EQ(m.scaled_mismatches, 1);
  EXPECT_NE(m.reason.find("worst [1]"), std::string::npos) << m.reason;
  EXPECT_NE(m.reason.find("atol + rtol * (|ORT| + mean|ORT|"), std::string::npos) << m.reason;
  // Relative errors skip ORT zeros.
  EXPECT_NEAR(m.max_rel, 1.5 * scaled(1.0), 1e-6);
  // Wider tolerances from the command line let it pass.
  Tolerance wider = tol;
  wider.rtol = 2 * tol.rtol;
  EXPECT_TRUE(compare(outside, o, DType::kF32, wider).passed);
}

TEST(CheckCompare, CosineEdgeCases) {
  const Tensor zero = make(DType::kF32, {2}, {0, 0});
  const Tensor x = make(DType::kF32, {2}, {1, 0}), y = make(DType::kF32, {2}, {0, 1});
  EXPECT_EQ(compare(zero, zero.clone(), DType::kF32, {}).cosine, 1.0);
  EXPECT_EQ(compare(zero, x, DType::kF32, {}).cosine, 0.0);
  EXPECT_EQ(compare(x, y, DType::kF32, {}).cosine, 0.0);
  // A scaled tensor points the same way: cosine 1, yet the tolerance rule fails it.
  const Tensor o = random_f32(64, 4);
  Tensor twice = o.clone();
  for (int64_t i = 0; i < twice.numel(); ++i) twice.set(i, 2 * o.at(i));
  const Metrics m = compare(twice, o, DType::kF32, {});
  EXPECT_NEAR(m.cosine, 1.0, 1e-12);
  EXPECT_FALSE(m.passed);
  // ... and the cosine rule (a low precision run) passes it.
  EXPECT_TRUE(compare(twice, o, DType::kBF16, {}).passed);
}

TEST(CheckCompare, LowPrecisionIsJudgedByCosine) {
  const Tensor o = random_f32(512, 5);
  Tensor low(DType::kBF16, o.shape());  // asc's bf16 intermediate against ORT's f32
  for (int64_t i = 0; i < o.numel(); ++i) low.set(i, o.at(i));
  Metrics m = compare(low, o, DType::kBF16, {});
  EXPECT_EQ(m.rule, Rule::kCosine);
  EXPECT_TRUE(m.passed) << m.reason;
  EXPECT_GT(m.max_abs, 0);  // bf16 rounding is visible but within the cosine rule
  // The strict count is reported under the cosine rule too, against atol + rtol * |o|.
  int64_t strict = 0;
  for (int64_t i = 0; i < o.numel(); ++i)
    strict += std::fabs(low.at(i) - o.at(i)) > 1e-4 + 1e-3 * std::fabs(o.at(i));
  EXPECT_GT(strict, 0);
  EXPECT_EQ(m.mismatches, strict);
  // Flipping the sign of half the values takes the cosine far below 0.99.
  for (int64_t i = 0; i < low.numel() / 2; ++i) low.set(i, -low.at(i));
  m = compare(low, o, DType::kBF16, {});
  EXPECT_FALSE(m.passed);
  EXPECT_LT(m.cosine, 0.99);
  EXPECT_NE(m.reason.find("cosine"), std::string::npos) << m.reason;
  // --min-cosine lowers the bar.
  EXPECT_TRUE(compare(low, o, DType::kBF16, {1e-4, 1e-3, m.cosine - 0.01}).passed);
}

TEST(CheckCompare, NonFiniteValuesMatchOnlyThemselves) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor o = make(DType::kF32, {3}, {nan, inf, 1});
  EXPECT_TRUE(compare(make(DType::kF32, {3}, {nan, inf, 1}), o, DType::kF32, {}).passed);
  const Metrics m = compare(make(DType::kF32, {3}, {1, inf, 1}), o, DType::kF32, {});
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.mismatches, 1);
  EXPECT_EQ(m.max_abs, 0);  // metrics cover the finite pairs only
  // A cosine cannot hide an infinity of the wrong sign; the reason names that element, not the
  // largest finite error (element 2 here).
  const Metrics low = compare(make(DType::kF32, {3}, {nan, -inf, 3}), o, DType::kF16, {});
  EXPECT_FALSE(low.passed);
  EXPECT_NE(low.reason.find("1 of 3 elements differ in NaN/infinity; first [1]: asc -inf, ORT inf"),
            std::string::npos)
      << low.reason;
}

TEST(CheckCompare, IntegersAndBoolsAreExact) {
  const Tensor o = make(DType::kI32, {4}, {1, 2, 3, 4});
  EXPECT_TRUE(compare(o.clone(), o, DType::kF32, {}).passed);
  const Metrics m = compare(make(DType::kI32, {4}, {1, 2, 3, 5}), o, DType::kF32, {1, 1, 0});
  EXPECT_FALSE(m.passed);  // tolerances do not apply to integers
  EXPECT_EQ(m.rule, Rule::kExact);
  EXPECT_EQ(m.max_abs, 1);
  // 2^53 and 2^53 + 1 are one double apart from nothing: compared bit-exactly.
  Tensor big(DType::kI64, {1}), bigger(DType::kI64, {1});
  big.data_as<int64_t>()[0] = int64_t{1} << 53;
  bigger.data_as<int64_t>()[0] = (int64_t{1} << 53) + 1;
  EXPECT_FALSE(compare(bigger, big, DType::kF32, {}).passed);
  const Tensor t = make(DType::kBool, {2}, {1, 0});
  EXPECT_FALSE(compare(make(DType::kBool, {2}, {1, 1}), t, DType::kF32, {}).passed);
}

TEST(CheckCompare, DtypeAndShapeMismatchesFailWithBoth) {
  const Tensor f = make(DType::kF32, {2}, {1, 2});
  Metrics m = compare(make(DType::kI64, {2}, {1, 2}), f, DType::kF32, {});
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.reason, "dtype differs: asc i64, ORT f32");
  m = compare(make(DType::kI32, {2}, {1, 2}), make(DType::kI64, {2}, {1, 2}), DType::kF32, {});
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.reason.find("dtype differs"), std::string::npos);
  m = compare(make(DType::kF32, {1, 2}, {1, 2}), f, DType::kF32, {});
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.reason, "shape differs: asc [1,2], ORT [2]");
}

TEST(CheckCompare, StringsAreExact) {
  Tensor a(DType::kString, {2}), o(DType::kString, {2});
  a.strings()[0] = o.strings()[0] = "x";
  a.strings()[1] = "y";
  o.strings()[1] = "z";
  const Metrics m = compare(a, o, DType::kF32, {});
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.reason.find("asc 'y', ORT 'z'"), std::string::npos) << m.reason;
  a.strings()[1] = "z";
  EXPECT_TRUE(compare(a, o, DType::kF32, {}).passed);
}

TEST(CheckCompare, EmptyTensorsPass) {
  const Metrics m =
      compare(Tensor(DType::kF32, {0, 3}), Tensor(DType::kF32, {0, 3}), DType::kF32, {});
  EXPECT_TRUE(m.passed);
  EXPECT_EQ(m.cosine, 1.0);
}

Row row(const std::string& node, Status s, Metrics m = {}) {
  Row r;
  r.node_name = node;
  r.op = "Add";
  r.output = node + "_out";
  r.status = s;
  r.metrics = std::move(m);
  return r;
}

TEST(CheckReport, MarksTheFirstFailureInTopologicalOrder) {
  Metrics bad;
  bad.passed = false;
  bad.rule = Rule::kTolerance;
  bad.reason = "3 of 4 elements differ";
  Report r;
  r.model = "m.onnx";
  r.rows = {row("a", Status::kPass), row("b", Status::kNotCompared), row("c", Status::kFail, bad),
            row("d", Status::kFail, bad), row("e", Status::kPass)};
  for (size_t i = 0; i < r.rows.size(); ++i) r.rows[i].node = static_cast<int>(i);
  tally(r);
  EXPECT_EQ(r.compared, 4);
  EXPECT_EQ(r.failed, 2);
  EXPECT_EQ(r.first_failure, 2);
  EXPECT_FALSE(r.passed());

  const CheckOptions o;
  const auto j = report_json(r, o);
  EXPECT_EQ(j["nodes"].size(), 5u);
  EXPECT_EQ(j["first_failure"]["node"], "c");
  EXPECT_EQ(j["first_failure"]["reason"], "3 of 4 elements differ");
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["nodes"][1]["status"], "not compared");
  EXPECT_EQ(j["nodes"][3]["status"], "fail");

  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  print_report(r, o, f);
  std::fclose(f);
  const std::string text(buf, len);
  std::free(buf);
  // Exactly one row carries the mark, and it is c's.
  const size_t mark = text.find("<- first failure");
  ASSERT_NE(mark, std::string::npos) << text;
  EXPECT_EQ(text.find("<- first failure", mark + 1), std::string::npos) << text;
  const size_t line = text.rfind('\n', mark);
  EXPECT_NE(text.substr(line, mark - line).find("c_out"), std::string::npos) << text;
  EXPECT_NE(text.find("first failure: #2 c (Add) output c_out"), std::string::npos) << text;
  EXPECT_NE(text.find("FAILED"), std::string::npos);

  for (Row& x : r.rows)
    if (x.status == Status::kFail) x.status = Status::kPass;
  tally(r);
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.first_failure, -1);
  EXPECT_TRUE(report_json(r, o)["first_failure"].is_null());

  // Nothing compared is no pass; a model without nodes has nothing to fail.
  Report none;
  none.rows = {row("a", Status::kNotCompared)};
  tally(none);
  EXPECT_EQ(none.compared, 0);
  EXPECT_FALSE(none.passed());
  none.rows.clear();
  tally(none);
  EXPECT_TRUE(none.passed());
}

}  // namespace
}  // namespace asc::check
