// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12 and 13+; 13 only widens the
// types). Host kernels: the per-element class gather is irregular.
//
// Layouts: input / scores [N, C, d1..dk] viewed as [N, C, D] (D = prod d_i, 1 when k = 0);
// target / labels [N, d1..dk] viewed as [N, D]; weight [C].
//   loss[n, d] = -weight[t] * logp[n, t, d]  with t = target[n, d]; 0 where t == ignore_index
//   none: loss (shaped like target); sum: sum of loss;
//   mean: sum of loss / sum of weight[t] over the elements not ignored (no weight: their count).
// SoftmaxCrossEntropyLoss takes logp = log_softmax(scores, axis 1) and can also output it
// (log_prob, shaped like scores). A target outside [0, C) that is not ignore_index is an error.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/normalization.h"
#include "ops/ops.h"
#include "registry/infer.h"

namespace asc {
namespace {

// ignore_index has no default in ONNX: this value stands for "not set".
constexpr int64_t kNoIgnore = INT64_MIN;

enum class Reduction : uint8_t { kNone, kSum, kMean };

Reduction reduction_of(const std::string& op, const Attrs& a) {
  const std::string& s = a.s("reduction");
  if (s == "none") return Reduction::kNone;
  if (s == "sum") return Reduction::kSum;
  if (s == "mean") return Reduction::kMean;
  throw ShapeError(cat(op, ": reduction must be none, sum or mean, got '", s, "'"));
}

bool present(const InferContext& c, size_t k) {
  return c.inputs.size() > k && c.inputs[k].dtype != DType::kUndefined;
}

// Output 0: the loss (shaped like the target for reduction none, else a scalar); output 1 (SCE
// only): log_prob shaped like the scores.
std::vector<TensorType> infer_loss(const std::string& op, bool log_prob, const InferContext& c) {
  const Reduction red = reduction_of(op, c.attrs);
  const TensorType& x = c.inputs[0];
  const TensorType& t = c.inputs[1];
  if (x.shape && x.shape->size() < 2)
    throw ShapeError(cat(op, ": input must have rank >= 2 ([N, C, ...]), got ", x.str()));
  if (x.shape && t.shape) {
    bool ok = t.shape->size() + 1 == x.shape->size();
    for (size_t i = 0; ok && i < t.shape->size(); ++i) {
      const Dim& a = (*x.shape)[i == 0 ? 0 : i + 1];
      const Dim& b = (*t.shape)[i];
      ok = !(a.known() && b.known() && a.value() != b.value());
    }
    if (!ok)
      throw ShapeError(
          cat(op, ": target ", t.str(), " must be input ", x.str(), " without its class dim 1"));
  }
  if (present(c, 2)) {
    const TensorType& w = c.inputs[2];
    if (w.shape &&
        (w.shape->size() != 1 || (x.shape && (*w.shape)[0].known() && (*x.shape)[1].known() &&
                                  (*w.shape)[0].value() != (*x.shape)[1].value())))
      throw ShapeError(cat(op, ": weight ", w.str(), " must be [C] for input ", x.str()));
  }
  std::vector<TensorType> out;
  if (red == Reduction::kNone)
    out.push_back({x.dtype, t.shape});
  else
    out.push_back({x.dtype, SymShape{}});
  if (log_prob) out.push_back(x);
  return out;
}

struct LossDims {
  int64_t n = 0, c = 0, d = 1;
};

LossDims loss_dims(const Shape& x) {
  LossDims ld{x[0], x[1], 1};
  for (size_t i = 2; i < x.size(); ++i) ld.d *= x[i];
  return ld;
}

// Target values as int64, each checked against [0, C) unless it is ignore_index.
std::vector<int64_t> read_targets(const std::string& op, const Tensor& t, int64_t classes,
                                  int64_t ignore) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == DType::kI64) {
    const int64_t* p = t.data_as<int64_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  } else {
    const int32_t* p = t.data_as<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  }
  for (int64_t x : v)
    if (x != ignore && (x < 0 || x >= classes))
      throw ShapeError(
          cat(op, ": target value ", x, " is outside [0, ", classes, ") and not ignore_index"));
  return v;
}

// Per (n, d): the log-softmax shift max_k x + log(sum_k exp(x - max)) over the classes k, so that
// log_softmax(x)[n, k, d] = x[n, k, d] - shift[n, d]. Walks each class plane contiguously.
template <typename T>
std::vector<double> softmax_shifts(const LossDims& ld, const T* x) {
  std::vector<double> shift(static_cast<size_t>(ld.n * ld.d));
  std::vector<double> m(static_cast<size_t>(ld.d)), s(m.size());
  for (int64_t n = 0; n < ld.n; ++n) {
    const int64_t base = n * ld.c * ld.d;
    std::fill(m.begin(), m.end(), -std::numeric_limits<double>::infinity());
    std::fill(s.begin(), s.end(), 0.0);
    for (int64_t k = 0; k < ld.c; ++k)
      for (int64_t d = 0; d < ld.d; ++d)
        m[static_cast<size_t>(d)] =
            std::max(m[static_cast<size_t>(d)], norm::load(x, base + k * ld.d + d));
    for (int64_t k = 0; k < ld.c; ++k)
      for (int64_t d = 0; d < ld.d; ++d)
        s[static_cast<size_t>(d)] +=
            std::exp(norm::load(x, base + k * ld.d + d) - m[static_cast<size_t>(d)]);
    for (int64_t d = 0; d < ld.d; ++d)
      shift[static_cast<size_t>(n * ld.d + d)] =
          m[static_cast<size_t>(d)] + std::log(s[static_cast<size_t>(d)]);
  }
  return shift;
}

// The loss into out (dtype T) from log-probabilities x - shift (shift empty: x itself).
template <typename T>
void loss_from_logp(const LossDims& ld, const T* x, const std::vector<double>& shift,
                    const std::vector<int64_t>& target, const Tensor* weight, int64_t ignore,
                    Reduction red, Tensor& out) {
  std::vector<double> w;
  if (weight) {
    const T* wp = weight->data_as<T>();
    for (int64_t k = 0; k < ld.c; ++k) w.push_back(norm::load(wp, k));
  }
  T* o = out.data_as<T>();
  double sum = 0, wsum = 0;
  for (int64_t n = 0; n < ld.n; ++n)
    for (int64_t d = 0; d < ld.d; ++d) {
      const int64_t i = n * ld.d + d;
      const int64_t t = target[static_cast<size_t>(i)];
      double l = 0;
      if (t != ignore) {
        const double wt = weight ? w[static_cast<size_t>(t)] : 1.0;
        double logp = norm::load(x, (n * ld.c + t) * ld.d + d);
        if (!shift.empty()) logp -= shift[static_cast<size_t>(i)];
        l = -wt * logp;
        wsum += wt;
      }
      if (red == Reduction::kNone)
        norm::store(o, i, l);
      else
        sum += l;
    }
  if (red == Reduction::kSum) norm::store(o, 0, sum);
  if (red == Reduction::kMean) norm::store(o, 0, sum / wsum);  // all ignored: 0 / 0 = NaN
}

// in: input/scores, target, [weight]; out: loss, [log_prob]. softmax: SCE (scores to logp).
void loss_kernel(const std::string& op, bool softmax, const Attrs& a, std::span<const Tensor> in,
                 std::span<Tensor> out) {
  const Tensor& x = in[0];
  const LossDims ld = loss_dims(x.shape());
  const int64_t ignore = a.i("ignore_index");
  const auto target = read_targets(op, in[1], ld.c, ignore);
  const Tensor* weight = in.size() > 2 && in[2].defined() ? &in[2] : nullptr;
  const Reduction red = reduction_of(op, a);
  norm::dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data_as<T>();
    std::vector<double> shift;
    if (softmax) shift = softmax_shifts(ld, xp);
    if (softmax && out.size() > 1) {  // log_prob[n, k, d] = x - shift[n, d]
      T* lp = out[1].data_as<T>();
      for (int64_t n = 0; n < ld.n; ++n)
        for (int64_t k = 0; k < ld.c; ++k)
          for (int64_t d = 0; d < ld.d; ++d) {
            const int64_t i = (n * ld.c + k) * ld.d + d;
            norm::store(lp, i, norm::load(xp, i) - shift[static_cast<size_t>(n * ld.d + d)]);
          }
    }
    loss_from_logp<T>(ld, xp, shift, target, weight, ignore, red, out[0]);
  });
}

// Naive reference: one output element at a time through Tensor::at.
void loss_reference(bool softmax, const Attrs& a, std::span<const Tensor> in,
                    std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Tensor& t = in[1];
  const bool has_w = in.size() > 2 && in[2].defined();
  const int64_t n_ = x.shape()[0], c_ = x.shape()[1];
  int64_t d_ = 1;
  for (size_t i = 2; i < x.shape().size(); ++i) d_ *= x.shape()[i];
  const int64_t ignore = a.i("ignore_index");
  const std::string& red = a.s("reduction");
  auto logp = [&](int64_t n, int64_t k, int64_t d) {
    const double v = x.at((n * c_ + k) * d_ + d);
    if (!softmax) return v;
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < c_; ++j) m = std::max(m, x.at((n * c_ + j) * d_ + d));
    double s = 0;
    for (int64_t j = 0; j < c_; ++j) s += std::exp(x.at((n * c_ + j) * d_ + d) - m);
    return v - m - std::log(s);
  };
  if (softmax && out.size() > 1)
    for (int64_t n = 0; n < n_; ++n)
      for (int64_t k = 0; k < c_; ++k)
        for (int64_t d = 0; d < d_; ++d) out[1].set((n * c_ + k) * d_ + d, logp(n, k, d));
  double sum = 0, wsum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const auto cls = static_cast<int64_t>(t.at(i));
    const int64_t n = i / d_, d = i % d_;
    double l = 0;
    if (cls != ignore && (cls < 0 || cls >= c_))
      throw ShapeError(cat("loss reference: target ", cls, " outside [0, ", c_, ")"));
    if (cls != ignore) {
      const double w = has_w ? in[2].at(cls) : 1.0;
      l = -w * logp(n, cls, d);
      wsum += w;
    }
    if (red == "none") out[0].set(i, l);
    sum += l;
  }
  if (red == "sum") out[0].set(0, sum);
  if (red == "mean") out[0].set(0, sum / wsum);
}

void add_loss(Registry& r, bool softmax, int since, int until) {
  const std::string op = softmax ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss";
  OpDef def = def_op(op, since, until);
  def.input(softmax ? "scores" : "input", "T")
      .input(softmax ? "labels" : "target", "Tind")
      .input("weights", "T", Arity::kOptional)
      .output("output", "T");
  if (softmax) def.output("log_prob", "T", Arity::kOptional);
  def.attr("reduction", AttrKind::kString, std::string("mean"))
      .attr("ignore_index", AttrKind::kInt, kNoIgnore)
      .type_constraint("T", float_types())
      .type_constraint("Tind", {DType::kI32, DType::kI64})
      .describe(softmax ? "output = NLL of log_softmax(scores, axis 1) at labels (weights, "
                          "ignore_index, reduction none/sum/mean); log_prob optional"
                        : "output = -input[n, target, d] * weight[target] (ignore_index, "
                          "reduction none/sum/mean over the weights of counted targets)")
      .infer([op, softmax](const InferContext& c) { return infer_loss(op, softmax, c); })
      .host_kernel(
          [op, softmax](const LaunchContext& ctx, std::span<const Tensor> in,
                        std::span<Tensor> out) { loss_kernel(op, softmax, ctx.attr(), in, out); })
      .reference([softmax](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
        loss_reference(softmax, a, in, out);
      });
  r.add(std::move(def));
}

}  // namespace

void register_normalization_loss(Registry& r) {
  for (const bool softmax : {false, true}) {
    add_loss(r, softmax, 12, 12);
    add_loss(r, softmax, 13, INT_MAX);
  }
}

}  // namespace asc
