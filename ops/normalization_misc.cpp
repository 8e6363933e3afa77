// Hardmax (1-12: rows of the input flattened at axis; 13+: one axis) and LRN (1+): host kernels.
//
// Hardmax: y = 1 at the first maximum of each row, 0 elsewhere. Rows are [outer, mid, inner]
// with mid the normalised extent.
// LRN over X [N, C, d...] (S = prod d): for channel c the window is
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to [0, C), and
//   y = x / (bias + alpha / size * sum_window x^2) ^ beta.
#include <climits>
#include <cmath>
#include <vector>

#include "ops/normalization.h"
#include "ops/ops.h"
#include "registry/infer.h"

namespace asc {
namespace {

// ---- Hardmax ---------------------------------------------------------------------------------

struct Rows {
  int64_t outer = 1, mid = 1, inner = 1;
};

Rows hardmax_rows(bool flatten, int64_t axis, const Shape& s) {
  const auto rank = static_cast<int64_t>(s.size());
  if (rank == 0) throw ShapeError("Hardmax: input must have rank >= 1");
  const int64_t a = flatten && axis == rank ? rank : normalize_axis(axis, rank);
  const int64_t last = flatten ? rank : a + 1;
  Rows r;
  for (int64_t d = 0; d < rank; ++d) (d < a ? r.outer : d < last ? r.mid : r.inner) *= s[d];
  return r;
}

template <typename T>
void hardmax_rows_kernel(const Rows& r, const T* x, T* y) {
  for (int64_t o = 0; o < r.outer; ++o)
    for (int64_t i = 0; i < r.inner; ++i) {
      const int64_t base = o * r.mid * r.inner + i;
      int64_t best = 0;
      double m = r.mid > 0 ? norm::load(x, base) : 0.0;
      for (int64_t k = 1; k < r.mid; ++k) {
        const double v = norm::load(x, base + k * r.inner);
        if (v > m) {
          m = v;
          best = k;
        }
      }
      for (int64_t k = 0; k < r.mid; ++k) norm::store(y, base + k * r.inner, k == best ? 1.0 : 0.0);
    }
}

void hardmax_reference(bool flatten, const Attrs& a, const Tensor& x, Tensor& y) {
  const Rows r = hardmax_rows(flatten, a.i("axis"), x.shape());
  for (int64_t o = 0; o < r.outer; ++o)
    for (int64_t i = 0; i < r.inner; ++i) {
      int64_t best = -1;
      for (int64_t k = 0; k < r.mid; ++k) {
        const int64_t at = (o * r.mid + k) * r.inner + i;
        if (best < 0 || x.at(at) > x.at((o * r.mid + best) * r.inner + i)) best = k;
      }
      for (int64_t k = 0; k < r.mid; ++k) y.set((o * r.mid + k) * r.inner + i, k == best);
    }
}

void add_hardmax(Registry& r, bool flatten) {
  r.add(
      def_op("Hardmax", flatten ? 1 : 13, flatten ? 12 : INT_MAX)
          .input("input", "T")
          .output("output", "T")
          .attr("axis", AttrKind::kInt, int64_t{flatten ? 1 : -1})
          .type_constraint("T", float_types())
          .trait(kNormalization)
          .describe(flatten ? "output = 1 at the first max of each row of input flattened to "
                              "2-D at axis, else 0"
                            : "output = 1 at the first max of input along axis, else 0")
          .infer([flatten](const InferContext& c) {
            if (c.inputs[0].shape) {
              Shape probe(c.inputs[0].shape->size(), 1);
              hardmax_rows(flatten, c.attrs.i("axis"), probe);
            }
            return infer_unary(c);
          })
          .host_kernel([flatten](const LaunchContext& ctx, std::span<const Tensor> in,
                                 std::span<Tensor> out) {
            const Rows rows = hardmax_rows(flatten, ctx.attr().i("axis"), in[0].shape());
            norm::dispatch_float(in[0].dtype(), [&](auto tag) {
              using T = decltype(tag);
              hardmax_rows_kernel(rows, in[0].data_as<T>(), out[0].data_as<T>());
            });
          })
          .reference([flatten](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
            hardmax_reference(flatten, a, in[0], out[0]);
          }));
}

// ---- LRN -------------------------------------------------------------------------------------

struct LrnParams {
  double alpha, beta, bias;
  int64_t size, lo, hi;  // window [c - lo, c + hi]
};

LrnParams lrn_params(const Attrs& a) {
  const int64_t size = a.i("size");
  if (size < 1) throw ShapeError(cat("LRN: size must be >= 1, got ", size));
  return {a.f("alpha"), a.f("beta"), a.f("bias"), size, (size - 1) / 2, size / 2};
}

template <typename T>
void lrn_kernel(const LrnParams& p, const Shape& s, const T* x, T* y) {
  const int64_t n_ = s[0], c_ = s[1];
  int64_t sp = 1;
  for (size_t d = 2; d < s.size(); ++d) sp *= s[d];
  std::vector<double> sq(static_cast<size_t>(c_ * sp)), acc(static_cast<size_t>(sp));
  const double scale = p.alpha / static_cast<double>(p.size);
  for (int64_t n = 0; n < n_; ++n) {
    const int64_t base = n * c_ * sp;
    for (int64_t i = 0; i < c_ * sp; ++i) {
      const double v = norm::load(x, base + i);
      sq[static_cast<size_t>(i)] = v * v;
    }
    for (int64_t c = 0; c < c_; ++c) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const int64_t from = std::max<int64_t>(0, c - p.lo), to = std::min(c_ - 1, c + p.hi);
      for (int64_t k = from; k <= to; ++k)
        for (int64_t i = 0; i < sp; ++i)
          acc[static_cast<size_t>(i)] += sq[static_cast<size_t>(k * sp + i)];
      for (int64_t i = 0; i < sp; ++i) {
        const int64_t at = base + c * sp + i;
        norm::store(
            y, at,
            norm::load(x, at) / std::pow(p.bias + scale * acc[static_cast<size_t>(i)], p.beta));
      }
    }
  }
}

void lrn_reference(const Attrs& a, const Tensor& x, Tensor& y) {
  const LrnParams p = lrn_params(a);
  const Shape& s = x.shape();
  const int64_t c_ = s[1];
  const int64_t sp = c_ == 0 || s[0] == 0 ? 0 : x.numel() / (s[0] * c_);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t c = (i / sp) % c_;
    double sum = 0;
    for (int64_t k = c - p.lo; k <= c + p.hi; ++k) {
      if (k < 0 || k >= c_) continue;
      const double v = x.at(i + (k - c) * sp);
      sum += v * v;
    }
    y.set(i, x.at(i) / std::pow(p.bias + p.alpha / static_cast<double>(p.size) * sum, p.beta));
  }
}

void add_lrn(Registry& r) {
  r.add(def_op("LRN", 1)
            .input("X", "T")
            .output("Y", "T")
            .attr("alpha", AttrKind::kFloat, 1e-4f)
            .attr("beta", AttrKind::kFloat, 0.75f)
            .attr("bias", AttrKind::kFloat, 1.0f)
            .attr("size", AttrKind::kInt)
            .type_constraint("T", float_types())
            .trait(kNormalization)
            .describe("Y = X / (bias + alpha / size * sum of X^2 over a window of size channels) "
                      "^ beta")
            .infer([](const InferContext& c) {
              lrn_params(c.attrs);
              if (c.inputs[0].shape && c.inputs[0].shape->size() < 2)
                throw ShapeError(cat("LRN: X must be [N, C, ...], got ", c.inputs[0].str()));
              return infer_unary(c);
            })
            .host_kernel(
                [](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
                  const LrnParams p = lrn_params(ctx.attr());
                  norm::dispatch_float(in[0].dtype(), [&](auto tag) {
                    using T = decltype(tag);
                    lrn_kernel(p, in[0].shape(), in[0].data_as<T>(), out[0].data_as<T>());
                  });
                })
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              lrn_reference(a, in[0], out[0]);
            }));
}

}  // namespace

void register_normalization_misc(Registry& r) {
  add_hardmax(r, true);
  add_hardmax(r, false);
  add_lrn(r);
}

}  // namespace asc
