#include "tools/check_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "registry/strings.h"

namespace asc::check {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool is_low_float(DType t) {
  return t == DType::kF16 || t == DType::kBF16;
}

// A pair of values that no tolerance covers: non-finite and not the same NaN / infinity.
bool nonfinite_mismatch(double a, double o) {
  if (std::isnan(a) || std::isnan(o)) return !(std::isnan(a) && std::isnan(o));
  if (std::isinf(a) || std::isinf(o)) return a != o;
  return false;
}

Metrics compare_strings(const Tensor& got, const Tensor& want) {
  Metrics m;
  m.rule = Rule::kExact;
  int64_t first = -1;
  for (int64_t i = 0; i < want.numel(); ++i)
    if (got.strings()[i] != want.strings()[i] && m.mismatches++ == 0) first = i;
  if (m.mismatches) {
    m.passed = false;
    m.cosine = 0;
    m.reason = cat(m.mismatches, " of ", want.numel(), " strings differ; first [", first,
                   "]: asc '", got.strings()[first], "', ORT '", want.strings()[first], "'");
  }
  return m;
}

}  // namespace

std::string_view rule_name(Rule r) {
  switch (r) {
    case Rule::kExact:
      return "exact";
    case Rule::kTolerance:
      return "tolerance";
    case Rule::kCosine:
      return "cosine";
    case Rule::kToleranceCosine:
      return "tolerance+cosine";
  }
  return "?";
}

bool rule_has_tolerance(Rule r) {
  return r == Rule::kTolerance || r == Rule::kToleranceCosine;
}

bool rule_has_cosine(Rule r) {
  return r == Rule::kCosine || r == Rule::kToleranceCosine;
}

Rule rule_for(DType got, DType want, DType precision, const Tolerance& tol) {
  if (!dtype_is_float(got) || !dtype_is_float(want)) return Rule::kExact;
  const bool low = is_low_float(got) || is_low_float(want) || is_low_float(precision);
  const bool tolerance = !low || tol.explicit_tolerance;
  const bool cosine = low || tol.explicit_cosine;
  return tolerance && cosine ? Rule::kToleranceCosine
         : tolerance         ? Rule::kTolerance
                             : Rule::kCosine;
}

Metrics compare(const Tensor& got, const Tensor& want, DType precision, const Tolerance& tol) {
  Metrics m;
  m.rule = rule_for(got.dtype(), want.dtype(), precision, tol);
  const bool same_kind = dtype_is_float(got.dtype()) == dtype_is_float(want.dtype()) &&
                         (got.dtype() == DType::kString) == (want.dtype() == DType::kString);
  if (!same_kind || (m.rule == Rule::kExact && got.dtype() != want.dtype())) {
    m.passed = false;
    m.reason =
        cat("dtype differs: asc ", dtype_name(got.dtype()), ", ORT ", dtype_name(want.dtype()));
    return m;
  }
  if (got.shape() != want.shape()) {
    m.passed = false;
    m.reason =
        cat("shape differs: asc ", to_string(got.shape()), ", ORT ", to_string(want.shape()));
    return m;
  }
  if (want.dtype() == DType::kString) return compare_strings(got, want);

  const bool exact = m.rule == Rule::kExact;
  const int64_t n = want.numel();
  int64_t finite_o = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double o = want.at(i);
    if (!std::isfinite(o)) continue;
    m.scale += std::fabs(o);
    ++finite_o;
  }
  if (finite_o) m.scale /= static_cast<double>(finite_o);

  const size_t esize = dtype_size(want.dtype());
  const auto* gb = static_cast<const unsigned char*>(got.data());
  const auto* wb = static_cast<const unsigned char*>(want.data());
  double dot = 0, na = 0, no = 0, sq = 0;
  double worst_excess = -std::numeric_limits<double>::infinity();
  int64_t finite = 0, nonfinite = 0, first_nonfinite = -1;
  // The largest excess over atol + rtol * (|o| + scale); exact: over atol + rtol * |o|.
  int64_t worst = -1;
  for (int64_t i = 0; i < n; ++i) {
    const double a = got.at(i), o = want.at(i);
    bool strict = false, scaled = false;
    if (nonfinite_mismatch(a, o)) {
      strict = scaled = true;
      if (nonfinite++ == 0) first_nonfinite = i;
    } else if (std::isfinite(a) && std::isfinite(o)) {  // else the same NaN or infinity
      const double err = std::fabs(a - o);
      m.max_abs = std::max(m.max_abs, err);
      if (o != 0) m.max_rel = std::max(m.max_rel, err / std::fabs(o));
      dot += a * o;
      na += a * a;
      no += o * o;
      sq += err * err;
      ++finite;
      const double own = tol.atol + tol.rtol * std::fabs(o);
      const double excess = err - (own + (exact ? 0 : tol.rtol * m.scale));
      if (exact) {
        // Bit-exact: 64-bit integers do not survive the trip through double.
        const size_t off = static_cast<size_t>(i) * esize;
        strict = scaled = std::memcmp(gb + off, wb + off, esize) != 0;
      } else {
        strict = err > own;
        scaled = excess > 0;
      }
      if ((exact ? strict : scaled) && excess > worst_excess) {
        worst_excess = excess;
        worst = i;
      }
    }
    m.mismatches += strict;
    m.scaled_mismatches += scaled;
  }
  m.rmse = finite ? std::sqrt(sq / static_cast<double>(finite)) : 0.0;
  if (na == 0 && no == 0)
    m.cosine = 1;
  else if (na == 0 || no == 0)
    m.cosine = 0;
  else
    m.cosine = dot / (std::sqrt(na) * std::sqrt(no));

  auto pair = [&](int64_t i) { return cat("asc ", num(got.at(i)), ", ORT ", num(want.at(i))); };
  const std::string errors = cat("max abs err ", num(m.max_abs), ", max rel err ", num(m.max_rel),
                                 ", cosine ", num(m.cosine));
  m.passed = false;
  if (nonfinite) {
    m.reason = cat(nonfinite, " of ", n, " elements differ in NaN/infinity; first [",
                   first_nonfinite, "]: ", pair(first_nonfinite));
  } else if (exact && m.mismatches) {
    m.reason = cat(m.mismatches, " of ", n, " elements differ; worst [", worst, "]: ", pair(worst),
                   "; ", errors);
  } else if (rule_has_tolerance(m.rule) && m.scaled_mismatches) {
    m.reason = cat(m.scaled_mismatches, " of ", n,
                   " elements differ by more than atol + rtol * (|ORT| + mean|ORT| ", num(m.scale),
                   "); worst [", worst, "]: ", pair(worst), "; ", errors);
  } else if (rule_has_cosine(m.rule) && !(m.cosine >= tol.min_cosine)) {
    m.reason = cat("cosine ", num(m.cosine), " < ", num(tol.min_cosine), "; max abs err ",
                   num(m.max_abs), ", rmse ", num(m.rmse));
  } else {
    m.passed = true;
  }
  return m;
}

std::string rules_summary(DType precision, const Tolerance& tol) {
  auto describe = [&](Rule r) {
    std::string s;
    if (rule_has_tolerance(r))
      s = cat("tolerance (atol ", num(tol.atol), ", rtol ", num(tol.rtol), ")");
    if (rule_has_cosine(r)) s += cat(s.empty() ? "" : " and ", "cosine >= ", num(tol.min_cosine));
    return s;
  };
  const Rule wide = rule_for(DType::kF32, DType::kF32, precision, tol);
  const Rule low = rule_for(DType::kF16, DType::kF16, precision, tol);
  if (wide == low) return cat("floats: ", describe(wide), "; integers exact");
  return cat("f32/f64: ", describe(wide), "; f16/bf16: ", describe(low), "; integers exact");
}

}  // namespace asc::check
