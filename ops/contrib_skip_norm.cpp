// SkipLayerNormalization (com.microsoft 1), ONNX Runtime's residual Add and LayerNorm in one op
// (and what asc's fusion makes of Add -> LayerNormalization, runtime/fuse_norm.cpp):
//   s = input + skip (+ bias)
//   output = (s - mean(s)) / sqrt(var(s) + epsilon) * gamma (+ beta)     over the last axis
// input and skip of one shape [.., H] (ONNX Runtime: [B, S, H] or [T, H]; any rank >= 1 here),
// gamma, beta and bias [H]; mean and inv_std_var (optional, f32) have the input's shape with
// H -> 1; input_skip_bias_sum (optional) is s. epsilon defaults to ONNX Runtime's 1e-12.
//
// The moments tile kernel (ops/normalization_rows.h) with a load that adds skip and bias (and
// writes s on the pass that writes the output): whole rows per tile, or chunks of long rows in
// three passes; f16/bf16 compute in f32.
#include <cmath>

#include "ops/contrib.h"
#include "ops/normalization_rows.h"
#include "registry/infer.h"
#include "registry/tiling.h"

namespace asc::contrib {
namespace {

enum : int { kInput, kSkip, kGamma, kBeta, kBias };
enum : int { kOutput, kMean, kInvStd, kSum };

bool has(const std::vector<TensorDesc>& d, int k) {
  return static_cast<int>(d.size()) > k && d[k].dtype != DType::kUndefined;
}

std::vector<TensorType> infer_skip_ln(const InferContext& c) {
  const TensorType& x = c.inputs[kInput];
  const TensorType f32_unknown{DType::kF32, std::nullopt};
  if (!x.shape) return {x, f32_unknown, f32_unknown, x};
  const SymShape& xs = *x.shape;
  if (xs.empty())
    throw ShapeError(cat("SkipLayerNormalization: input ", x.str(), " must have rank >= 1"));
  check_skip_shapes("SkipLayerNormalization", c,
                    {{kGamma, "gamma"}, {kBeta, "beta"}, {kBias, "bias"}});
  SymShape stats = xs;
  stats.back() = Dim(int64_t{1});
  return {x, {DType::kF32, stats}, {DType::kF32, stats}, x};
}

RowView skip_ln_view(const LaunchContext& ctx) {
  const Shape& x = ctx.inputs[kInput].shape;
  if (x.empty() || x.back() == 0)
    throw ShapeError(cat(ctx.str(), ": the hidden size is 0 (no elements per row)"));
  const int64_t last = static_cast<int64_t>(x.size()) - 1;
  return row_view(x, std::span<const int64_t>(&last, 1));
}

MomentsSpec skip_ln_spec(const LaunchContext& ctx) {
  MomentsSpec s;
  s.view = skip_ln_view(ctx);
  s.eps = ctx.attr().f("epsilon");
  const RowView v = s.view;
  Shape pst(v.dims.size(), 0);  // gamma, beta, bias: stride 1 along the row, 0 across rows
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j]) pst[j] = 1;
  const bool beta = has(ctx.inputs, kBeta), bias = has(ctx.inputs, kBias);
  const bool sum_out = has(ctx.outputs, kSum);
  const DType sum_dt = sum_out ? ctx.outputs[kSum].dtype : DType::kUndefined;
  s.load = [v, pst, bias, sum_out, sum_dt](TileBuilder& t, const RowCursor& c, bool last) {
    const DType cdt = compute_dtype(t.ctx().inputs[kInput].dtype);
    Buf x = t.cast(t.copy_in(kInput, row_in_box(v, c)), cdt) +
            t.cast(t.copy_in(kSkip, row_in_box(v, c)), cdt);
    if (bias)
      x = bcast_to(t, BinaryOp::kAdd, x, t.cast(t.copy_in(kBias, param_box(v, c, pst)), cdt));
    if (last && sum_out) t.copy_out(kSum, t.cast(x, sum_dt), row_in_box(v, c));
    return x;
  };
  s.affine = [v, pst, beta](TileBuilder& t, Buf y, const RowCursor& c) {
    const DType cdt = t.dtype(y);
    y = bcast_to(t, BinaryOp::kMul, y, t.cast(t.copy_in(kGamma, param_box(v, c, pst)), cdt));
    if (beta)
      y = bcast_to(t, BinaryOp::kAdd, y, t.cast(t.copy_in(kBeta, param_box(v, c, pst)), cdt));
    return y;
  };
  const bool mean_out = has(ctx.outputs, kMean), inv_out = has(ctx.outputs, kInvStd);
  s.stats = [v, mean_out, inv_out](TileBuilder& t, Buf mean, Buf, Buf rstd, const RowCursor& tile) {
    const auto& outs = t.ctx().outputs;
    if (mean_out) t.copy_out(kMean, t.cast(mean, outs[kMean].dtype), row_out_box(v, tile));
    if (inv_out) t.copy_out(kInvStd, t.cast(rstd, outs[kInvStd].dtype), row_out_box(v, tile));
  };
  return s;
}

// Naive, in double: per row of H, s, its mean and population variance, then the output.
void skip_ln_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[kInput];
  const int64_t h = x.shape().back(), rows = h > 0 ? x.numel() / h : 0;
  const auto opt = [&](int k) {
    return static_cast<int>(in.size()) > k && in[k].defined() ? &in[k] : nullptr;
  };
  const Tensor *beta = opt(kBeta), *bias = opt(kBias);
  const auto out_at = [&](int k) {
    return static_cast<int>(out.size()) > k && out[k].defined() ? &out[k] : nullptr;
  };
  const double eps = a.f("epsilon");
  std::vector<double> s(static_cast<size_t>(h));
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t k = 0; k < h; ++k) {
      double v = x.at(r * h + k) + in[kSkip].at(r * h + k);
      if (bias) v += bias->at(k);
      s[static_cast<size_t>(k)] = v;
      mean += v;
    }
    mean /= static_cast<double>(h);
    for (int64_t k = 0; k < h; ++k) var += (s[k] - mean) * (s[k] - mean);
    const double rstd = 1.0 / std::sqrt(var / static_cast<double>(h) + eps);
    for (int64_t k = 0; k < h; ++k) {
      double y = (s[k] - mean) * rstd * in[kGamma].at(k);
      if (beta) y += beta->at(k);
      out[kOutput].set(r * h + k, y);
      if (Tensor* sum = out_at(kSum)) sum->set(r * h + k, s[k]);
    }
    if (Tensor* m = out_at(kMean)) m->set(r, mean);
    if (Tensor* i = out_at(kInvStd)) i->set(r, rstd);
  }
}

}  // namespace

void add_skip_layer_norm(Registry& r) {
  r.add(def_op("SkipLayerNormalization", 1, INT_MAX, kDomain)
            .input("input", "T")
            .input("skip", "T")
            .input("gamma", "T")
            .input("beta", "T", Arity::kOptional)
            .input("bias", "T", Arity::kOptional)
            .output("output", "T")
            .output("mean", "U", Arity::kOptional)
            .output("inv_std_var", "U", Arity::kOptional)
            .output("input_skip_bias_sum", "T", Arity::kOptional)
            .attr("epsilon", AttrKind::kFloat, 1e-12f)
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .type_constraint("U", {DType::kF32})
            .trait(kNormalization)
            .describe("s = input + skip + bias; output = LayerNorm(s) over the last axis * gamma "
                      "+ beta; s as input_skip_bias_sum")
            .infer(infer_skip_ln)
            .tiling([](const LaunchContext& ctx) {
              return moments_tiling(ctx, skip_ln_view(ctx),
                                    has(ctx.outputs, kMean) || has(ctx.outputs, kInvStd));
            })
            .kernel([](TileBuilder& t) { moments_kernel(t, skip_ln_spec(t.ctx())); })
            .reference(skip_ln_reference));
}

}  // namespace asc::contrib
