#include "tools/check_compare.h"

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
    case Rule::kTolerance:
      return "tolerance";
    case Rule::kCosine:
      return "cosine";
    case Rule::kExact:
      return "exact";
  }
  return "?";
}

Rule rule_for(DType got, DType want, DType precision) {
  if (!dtype_is_float(got) || !dtype_is_float(want)) return Rule::kExact;
  if (is_low_float(got) || is_low_float(want) || is_low_float(precision)) return Rule::kCosine;
  return Rule::kTolerance;
}

Metrics compare(const Tensor& got, const Tensor& want, DType precision, const Tolerance& tol) {
  Metrics m;
  m.rule = rule_for(got.dtype(), want.dtype(), precision);
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

  const size_t esize = dtype_size(want.dtype());
  const auto* gb = static_cast<const unsigned char*>(got.data());
  const auto* wb = static_cast<const unsigned char*>(want.data());
  double dot = 0, na = 0, no = 0, sq = 0, worst_excess = -std::numeric_limits<double>::infinity();
  int64_t finite = 0, worst = -1, nonfinite = 0, first_nonfinite = -1;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = got.at(i), o = want.at(i);
    bool bad;
    if (nonfinite_mismatch(a, o)) {
      bad = true;
      if (nonfinite++ == 0) first_nonfinite = i;
    } else if (!std::isfinite(a) || !std::isfinite(o)) {
      bad = false;  // the same NaN or infinity
    } else {
      const double err = std::fabs(a - o);
      m.max_abs = std::max(m.max_abs, err);
      if (o != 0) m.max_rel = std::max(m.max_rel, err / std::fabs(o));
      dot += a * o;
      na += a * a;
      no += o * o;
      sq += err * err;
      ++finite;
      if (m.rule == Rule::kExact) {
        // Bit-exact: 64-bit integers do not survive the trip through double.
        const size_t off = static_cast<size_t>(i) * esize;
        bad = std::memcmp(gb + off, wb + off, esize) != 0;
      } else {
        bad = err > tol.atol + tol.rtol * std::fabs(o);
      }
      const double excess = err - (tol.atol + tol.rtol * std::fabs(o));
      if (bad && excess > worst_excess) {
        worst_excess = excess;
        worst = i;
      }
    }
    if (bad && m.rule != Rule::kCosine) ++m.mismatches;
    if (bad && worst < 0) worst = i;
  }
  m.rmse = finite ? std::sqrt(sq / static_cast<double>(finite)) : 0.0;
  if (na == 0 && no == 0)
    m.cosine = 1;
  else if (na == 0 || no == 0)
    m.cosine = 0;
  else
    m.cosine = dot / (std::sqrt(na) * std::sqrt(no));

  const std::string errors = cat("max abs err ", num(m.max_abs), ", max rel err ", num(m.max_rel),
                                 ", cosine ", num(m.cosine));
  if (m.rule == Rule::kCosine) {
    if (nonfinite) {
      m.passed = false;
      m.mismatches = nonfinite;
      m.reason = cat(nonfinite, " of ", want.numel(), " elements differ in NaN/infinity; first [",
                     first_nonfinite, "]: asc ", num(got.at(first_nonfinite)), ", ORT ",
                     num(want.at(first_nonfinite)));
    } else if (!(m.cosine >= tol.min_cosine)) {
      m.passed = false;
      m.reason = cat("cosine ", num(m.cosine), " < ", num(tol.min_cosine), "; max abs err ",
                     num(m.max_abs), ", rmse ", num(m.rmse));
    }
    return m;
  }
  if (m.mismatches) {
    m.passed = false;
    m.reason = cat(m.mismatches, " of ", want.numel(), " elements differ; worst [", worst,
                   "]: asc ", num(got.at(worst)), ", ORT ", num(want.at(worst)), "; ", errors);
  }
  return m;
}

}  // namespace asc::check
