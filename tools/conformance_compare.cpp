#include "tools/conformance_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "registry/strings.h"

namespace asc::conformance {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// How far element i is outside the tolerance: <= 0 inside, +inf for a NaN or infinity
// mismatch (which no tolerance covers).
double float_excess(double g, double w, Tolerance tol) {
  if (std::isnan(w) || std::isnan(g))
    return std::isnan(w) && std::isnan(g) ? 0.0 : std::numeric_limits<double>::infinity();
  if (std::isinf(w) || std::isinf(g)) return g == w ? 0.0 : std::numeric_limits<double>::infinity();
  return std::fabs(g - w) - (tol.atol + tol.rtol * std::fabs(w));
}

// Sequences and optionals: the same length and, element by element, the rule for tensors. An
// empty list read from a file knows no element dtype, so only non-empty lists compare theirs.
Comparison compare_lists(const TensorList& got, const TensorList& want, Tolerance tol) {
  Comparison c;
  if (got.items.size() != want.items.size()) {
    c.ok = false;
    c.reason = cat(got.items.size(), " elements, expected ", want.items.size());
    return c;
  }
  for (size_t i = 0; i < want.items.size(); ++i) {
    Comparison e = compare_tensors(got.items[i], want.items[i], tol);
    c.max_abs_err = std::max(c.max_abs_err, e.max_abs_err);
    c.max_rel_err = std::max(c.max_rel_err, e.max_rel_err);
    if (e.ok) continue;
    c.mismatches += e.mismatches;
    if (c.ok) {
      c.ok = false;
      c.worst = e.worst;
      c.reason = cat("element ", i, ": ", e.reason);
    }
  }
  return c;
}

}  // namespace

Comparison compare_tensors(const Tensor& got, const Tensor& want, Tolerance tol) {
  Comparison c;
  if (got.dtype() != want.dtype()) {
    c.ok = false;
    c.reason = cat("dtype ", dtype_name(got.dtype()), ", expected ", dtype_name(want.dtype()));
    return c;
  }
  if (got.shape() != want.shape()) {
    c.ok = false;
    c.reason = cat("shape ", to_string(got.shape()), ", expected ", to_string(want.shape()));
    return c;
  }
  if (const TensorList* wl = want.list()) return compare_lists(*got.list(), *wl, tol);
  if (want.dtype() == DType::kString) {  // exact, element by element
    for (int64_t i = 0; i < want.numel(); ++i)
      if (got.strings()[i] != want.strings()[i]) {
        if (c.mismatches++ == 0) c.worst = i;
      }
    if (c.mismatches) {
      c.ok = false;
      c.reason =
          cat(c.mismatches, " of ", want.numel(), " strings differ; first [", c.worst, "]: got '",
              got.strings()[c.worst], "', expected '", want.strings()[c.worst], "'");
    }
    return c;
  }
  const bool is_float = dtype_is_float(want.dtype());
  const size_t esize = dtype_size(want.dtype());
  const auto* gb = static_cast<const unsigned char*>(got.data());
  const auto* wb = static_cast<const unsigned char*>(want.data());
  double worst_excess = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.at(i);
    const double w = want.at(i);
    if (std::isfinite(g) && std::isfinite(w)) {
      const double err = std::fabs(g - w);
      c.max_abs_err = std::max(c.max_abs_err, err);
      if (w != 0) c.max_rel_err = std::max(c.max_rel_err, err / std::fabs(w));
    }
    double excess;
    if (is_float) {
      excess = float_excess(g, w, tol);
    } else {
      // Bit-exact: 64-bit integers do not survive the trip through double.
      const size_t off = static_cast<size_t>(i) * esize;
      const bool same = std::memcmp(gb + off, wb + off, esize) == 0;
      excess = same ? 0.0 : std::max(std::fabs(g - w), 1.0);
    }
    if (excess > 0) {
      ++c.mismatches;
      if (c.worst < 0 || excess > worst_excess) {
        c.worst = i;
        worst_excess = excess;
      }
    }
  }
  if (c.mismatches > 0) {
    c.ok = false;
    c.reason = cat(c.mismatches, " of ", want.numel(), " elements differ; worst [", c.worst,
                   "]: got ", num(got.at(c.worst)), ", expected ", num(want.at(c.worst)),
                   "; max abs err ", num(c.max_abs_err), ", max rel err ", num(c.max_rel_err));
  }
  return c;
}

}  // namespace asc::conformance
