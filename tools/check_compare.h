// asc-check's comparison of one asc tensor with ONNX Runtime's, and the rules that judge it.
//
// Metrics (every dtype but string), over elements where both values are finite:
//   max_abs = max |a - o|,  max_rel = max |a - o| / |o| over o != 0,
//   cosine  = a·o / (|a| |o|) (1 when both are all zero, 0 when one is),
//   rmse    = sqrt(mean (a - o)^2).
// A NaN matches only a NaN and an infinity only the same infinity; any other non-finite pair is a
// mismatch under every rule.
//
// Rules (rule_for):
//   kTolerance  f32/f64 on both sides at precision fp32: an element fails when
//               |a - o| > atol + rtol * |o|;
//   kCosine     a float tensor where either side is f16/bf16, or any float tensor under
//               --precision fp16/bf16: passes when cosine >= min_cosine;
//   kExact      integers, bool, strings: every element equal.
// Dtypes of different kinds (float against integer) or different shapes fail outright.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "registry/tensor.h"

namespace asc::check {

enum class Rule : uint8_t { kTolerance, kCosine, kExact };
std::string_view rule_name(Rule r);  // "tolerance", "cosine", "exact"

struct Tolerance {
  double atol = 1e-4;
  double rtol = 1e-3;
  double min_cosine = 0.99;
};

struct Metrics {
  Rule rule = Rule::kExact;
  bool passed = true;
  std::string reason;      // one line when !passed: what differs
  int64_t mismatches = 0;  // elements outside the tolerance (kTolerance, kExact)
  double max_abs = 0, max_rel = 0, cosine = 1, rmse = 0;
};

// The rule for an asc tensor of `got` against an ORT tensor of `want` when asc ran at
// `precision` (kF32, kF16 or kBF16).
Rule rule_for(DType got, DType want, DType precision);

// Compares asc's `got` with ONNX Runtime's `want`.
Metrics compare(const Tensor& got, const Tensor& want, DType precision, const Tolerance& tol);

}  // namespace asc::check
