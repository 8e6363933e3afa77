// asc-check's comparison of one asc tensor `a` with ONNX Runtime's `o`, and the rules that judge
// it (docs/CHECK.md, "What is compared, and how it is judged").
//
// Metrics (every dtype but string), over elements where both values are finite:
//   max_abs = max |a - o|,  max_rel = max |a - o| / |o| over o != 0,
//   cosine  = a·o / (|a| |o|) (1 when both are all zero, 0 when one is),
//   rmse    = sqrt(mean (a - o)^2),
//   scale   = mean |o| over ORT's finite values,
//   mismatches        = elements with |a - o| > atol + rtol * |o| (the strict count),
//   scaled_mismatches = elements with |a - o| > atol + rtol * (|o| + scale),
//   both counting the non-finite pairs that differ.
// A NaN matches only a NaN and an infinity only the same infinity; any other non-finite pair
// fails the tensor under every rule.
//
// Rules (rule_for):
//   tolerance  passes when scaled_mismatches == 0: rounding accumulated upstream is judged against
//              the tensor's magnitude, not only against the element's own;
//   cosine     passes when cosine >= min_cosine and no non-finite pair differs;
//   exact      integers, bool, strings: every element equal.
// f32/f64 tensors at precision fp32 are judged by tolerance; a tensor where either side is
// f16/bf16, and every float tensor under precision fp16/bf16, by cosine. An explicit --atol /
// --rtol adds tolerance, an explicit --min-cosine adds cosine, under every precision.
// Dtypes of different kinds (float against integer) or different shapes fail outright.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "registry/tensor.h"

namespace asc::check {

enum class Rule : uint8_t { kExact, kTolerance, kCosine, kToleranceCosine };
// "exact", "tolerance", "cosine", "tolerance+cosine"
std::string_view rule_name(Rule r);
bool rule_has_tolerance(Rule r);
bool rule_has_cosine(Rule r);

struct Tolerance {
  double atol = 1e-4;
  double rtol = 1e-3;
  double min_cosine = 0.99;
  // Given on the command line: the rule then applies under every precision.
  bool explicit_tolerance = false;  // --atol or --rtol
  bool explicit_cosine = false;     // --min-cosine
};

struct Metrics {
  Rule rule = Rule::kExact;
  bool passed = true;
  std::string reason;             // one line when !passed: what differs
  int64_t mismatches = 0;         // strict count (see above); exact: elements that differ
  int64_t scaled_mismatches = 0;  // floats: outside atol + rtol * (|o| + scale)
  double max_abs = 0, max_rel = 0, cosine = 1, rmse = 0, scale = 0;
};

// The rule for an asc tensor of `got` against an ORT tensor of `want` when asc ran at
// `precision` (kF32, kF16 or kBF16).
Rule rule_for(DType got, DType want, DType precision, const Tolerance& tol);

// Compares asc's `got` with ONNX Runtime's `want`.
Metrics compare(const Tensor& got, const Tensor& want, DType precision, const Tolerance& tol);

// The rules in effect at `precision`, one line for the report: "f32/f64: tolerance (atol 0.0001,
// rtol 0.001); f16/bf16: cosine >= 0.99; integers exact".
std::string rules_summary(DType precision, const Tolerance& tol);

}  // namespace asc::check
