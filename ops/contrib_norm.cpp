// RMS normalisations, tile kernels over a row view (registry/rows.h):
//
// RMSNormalization (ai.onnx 23) computes what SimplifiedLayerNormalization does, Y in the scale's
// dtype and no inv_std_var (stash_type: f32 compute for f16/bf16, f64 for f64, as every RMS
// kernel here).
//
// SimplifiedLayerNormalization (ai.onnx 1, where ONNX Runtime and onnxruntime-genai put it, and
// com.microsoft 1): X [d0..dr-1] normalised over [axis, r) (n elements per row),
//   inv_std_var = 1 / sqrt(sum x^2 / n + epsilon),  Y = X * inv_std_var * scale,
// scale shaped like X.shape[axis:]; inv_std_var (optional, stash_type dtype) has X's shape with
// dims [axis, r) 1.
//
// SkipSimplifiedLayerNormalization (com.microsoft 1): input and skip [B, S, H] or [T, H], gamma
// and bias [H]: s = input + skip (+ bias); output = s * inv_std_var(s) * gamma over H;
// mean = sum s / H and inv_std_var (optional, f32) have the input's shape with H -> 1;
// input_skip_bias_sum (optional) = s.
//
// Per tile of whole rows: load (and add skip, bias), sum of squares along the row, rsqrt, scale.
// Rows longer than a tile take two passes over the row's chunks (sum of squares, then output).
// f16/bf16 compute in f32.
#include <cmath>

#include "ops/contrib.h"
#include "ops/normalization_rows.h"
#include "registry/infer.h"
#include "registry/rows.h"
#include "registry/tiling.h"

namespace asc::contrib {
namespace {

bool present(const LaunchContext& ctx, size_t k) {
  return ctx.inputs.size() > k && ctx.inputs[k].dtype != DType::kUndefined;
}

DType stash_dtype(int64_t stash) {
  for (DType dt : float_types())
    if (static_cast<int64_t>(dt) == stash) return dt;
  throw ShapeError(
      cat("SimplifiedLayerNormalization: stash_type ", stash, " is not a float dtype"));
}

// First normalised axis: `axis` for SimplifiedLayerNormalization, the last for the skip form.
int64_t norm_axis(bool skip, const Attrs& a, int64_t rank) {
  return skip ? rank - 1 : normalize_axis(a.i("axis"), rank);
}

// p must be shaped like x[from:] (leading 1s allowed).
void check_param(const char* op, const char* name, const TensorType& p, const SymShape& x,
                 size_t from) {
  if (!p.shape) return;
  const SymShape& ps = *p.shape;
  const size_t n = x.size() - from;
  bool ok = true;
  for (size_t i = 0; i < ps.size(); ++i) {
    const size_t from_end = ps.size() - i;
    if (from_end > n)
      ok = ok && !(ps[i].known() && ps[i].value() != 1);
    else
      ok = ok && !dims_differ(ps[i], x[x.size() - from_end]);
  }
  if (!ok || ps.size() < n)
    throw ShapeError(cat(op, ": ", name, " ", p.str(), " must have the normalised shape of ",
                         to_string(x), " from axis ", from));
}

SymShape stats_shape(const SymShape& x, size_t axis) {
  SymShape s = x;
  for (size_t d = axis; d < s.size(); ++d) s[d] = Dim(int64_t{1});
  return s;
}

std::vector<TensorType> infer_simplified(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const DType u = stash_dtype(c.attrs.i("stash_type"));
  if (!x.shape) return {{x.dtype, std::nullopt}, {u, std::nullopt}};
  const auto rank = static_cast<int64_t>(x.shape->size());
  if (rank == 0) throw ShapeError("SimplifiedLayerNormalization: X must have rank >= 1");
  const int64_t axis = norm_axis(false, c.attrs, rank);
  check_param("SimplifiedLayerNormalization", "scale", c.inputs[1], *x.shape,
              static_cast<size_t>(axis));
  return {x, {u, stats_shape(*x.shape, static_cast<size_t>(axis))}};
}

// RMSNormalization-23: Y has the scale's dtype (V), X's shape; the scale is shaped like the
// normalised dims (leading 1s allowed; asc does not broadcast it within them).
std::vector<TensorType> infer_rms_normalization(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  stash_dtype(c.attrs.i("stash_type"));
  if (!x.shape) return {{c.inputs[1].dtype, std::nullopt}};
  const auto rank = static_cast<int64_t>(x.shape->size());
  if (rank == 0) throw ShapeError("RMSNormalization: X must have rank >= 1");
  const int64_t axis = norm_axis(false, c.attrs, rank);
  check_param("RMSNormalization", "scale", c.inputs[1], *x.shape, static_cast<size_t>(axis));
  return {{c.inputs[1].dtype, x.shape}};
}

std::vector<TensorType> infer_skip(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const TensorType f32_unknown{DType::kF32, std::nullopt};
  if (!x.shape) return {x, f32_unknown, f32_unknown, x};
  const SymShape& xs = *x.shape;
  if (xs.size() != 2 && xs.size() != 3)
    throw ShapeError(cat("SkipSimplifiedLayerNormalization: input ", x.str(),
                         " must be [batch, seq, hidden] or [tokens, hidden]"));
  check_skip_shapes("SkipSimplifiedLayerNormalization", c, {{2, "gamma"}, {3, "bias"}});
  const TensorType stats{DType::kF32, stats_shape(xs, xs.size() - 1)};
  return {x, stats, stats, x};
}

RowView rms_view(const LaunchContext& ctx, bool skip) {
  const Shape& x = ctx.inputs[0].shape;
  const auto rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes;
  for (int64_t d = norm_axis(skip, ctx.attr(), rank); d < rank; ++d) axes.push_back(d);
  int64_t count = 1;
  for (int64_t d : axes) count *= x[static_cast<size_t>(d)];
  if (count == 0)
    throw ShapeError(cat(ctx.str(), ": the normalised size is 0 (no elements per row)"));
  return row_view(x, axes);
}

void rms_kernel(TileBuilder& t, bool skip) {
  const LaunchContext& ctx = t.ctx();
  const RowView v = rms_view(ctx, skip);
  const DType cdt = compute_dtype(ctx.inputs[0].dtype);
  const auto& outs = ctx.outputs;
  const RowCursor tile = row_tile(v, t.tiling());
  int r = -1;  // the reduced view dim; none when every row has one element
  Shape pst(v.dims.size(), 0);
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.reduced[j]) {
      r = static_cast<int>(j);
      pst[j] = 1;  // trailing contiguous dims merge into one reduced view dim
    }
  const int gamma = skip ? 2 : 1;
  const bool bias = skip && present(ctx, 3);
  const bool mean_out = skip && outs.size() > 1, sum_out = skip && outs.size() > 3;
  const size_t rstd_out = skip ? 2 : 1;
  const double eps = ctx.attr().f("epsilon"), n = static_cast<double>(v.count);

  auto param = [&](int input, const RowCursor& c) {
    return t.cast(t.copy_in(input, param_box(v, c, pst)), cdt);
  };
  auto load_sum = [&](const RowCursor& c) {  // s = input (+ skip + bias)
    Buf x = t.cast(t.copy_in(0, row_in_box(v, c)), cdt);
    if (skip) x = x + t.cast(t.copy_in(1, row_in_box(v, c)), cdt);
    if (bias) x = bcast_to(t, BinaryOp::kAdd, x, param(3, c));
    if (sum_out) t.copy_out(3, t.cast(x, outs[3].dtype), row_in_box(v, c));
    return x;
  };
  auto row_sum = [&](ReduceOp op, Buf x) {
    if (r >= 0) return t.reduce(op, x, r);
    return op == ReduceOp::kSumSquares ? x * x : x;
  };
  auto finish = [&](const RowCursor& c, Buf x, Buf rstd) {
    Buf y = bcast_to(t, BinaryOp::kMul, x, rstd);
    if (present(ctx, static_cast<size_t>(gamma)))
      y = bcast_to(t, BinaryOp::kMul, y, param(gamma, c));
    t.copy_out(0, t.cast(y, outs[0].dtype), row_in_box(v, c));
  };
  auto stats = [&](Buf sum, Buf ss) {
    Buf rstd = t.unary(UnaryOp::kRsqrt, ss / n + eps);
    if (mean_out) t.copy_out(1, t.cast(sum / n, outs[1].dtype), row_out_box(v, tile));
    if (outs.size() > rstd_out)
      t.copy_out(static_cast<int>(rstd_out), t.cast(rstd, outs[rstd_out].dtype),
                 row_out_box(v, tile));
    return rstd;
  };

  if (r < 0 || tile.size[r] >= v.dims[r]) {  // whole rows in the tile
    Buf x = load_sum(tile);
    Buf rstd =
        stats(mean_out ? row_sum(ReduceOp::kSum, x) : Buf{}, row_sum(ReduceOp::kSumSquares, x));
    finish(tile, x, rstd);
    return;
  }
  Shape kept = tile.size;
  kept[r] = 1;
  Buf ss = t.duplicate(cdt, kept, 0.0), sum;
  if (mean_out) sum = t.duplicate(cdt, kept, 0.0);
  row_chunks(t, v, [&](const RowCursor& c) {
    Buf x = load_sum(c);
    t.accumulate(BinaryOp::kAdd, ss, row_sum(ReduceOp::kSumSquares, x));
    if (mean_out) t.accumulate(BinaryOp::kAdd, sum, row_sum(ReduceOp::kSum, x));
  });
  Buf rstd = stats(sum, ss);
  row_chunks(t, v, [&](const RowCursor& c) { finish(c, load_sum(c), rstd); });
}

// Reference in double: rows of n elements at the end of x (n = prod x.shape[axis:]).
void rms_reference(bool skip, const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const auto rank = static_cast<int64_t>(x.shape().size());
  const int64_t axis = norm_axis(skip, a, rank);
  int64_t n = 1;
  for (int64_t d = axis; d < rank; ++d) n *= x.shape()[static_cast<size_t>(d)];
  const size_t gi = skip ? 2 : 1;  // absent: no scale (the fused RMSNorm)
  const Tensor* gamma = in.size() > gi && in[gi].defined() ? &in[gi] : nullptr;
  const bool bias = skip && in.size() > 3 && in[3].defined();
  const double eps = a.f("epsilon");
  std::vector<double> s(static_cast<size_t>(n));
  for (int64_t row = 0; n > 0 && row < x.numel() / n; ++row) {
    double sum = 0, ss = 0;
    for (int64_t k = 0; k < n; ++k) {
      double v = x.at(row * n + k);
      if (skip) v += in[1].at(row * n + k);
      if (bias) v += in[3].at(k);
      s[static_cast<size_t>(k)] = v;
      sum += v;
      ss += v * v;
    }
    const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
    for (int64_t k = 0; k < n; ++k) {
      out[0].set(row * n + k, s[static_cast<size_t>(k)] * rstd * (gamma ? gamma->at(k) : 1.0));
      if (skip && out.size() > 3) out[3].set(row * n + k, s[static_cast<size_t>(k)]);
    }
    if (skip && out.size() > 1) out[1].set(row, sum / static_cast<double>(n));
    const size_t ri = skip ? 2 : 1;
    if (out.size() > ri) out[ri].set(row, rstd);
  }
}

OpDef simplified_def(const std::string& domain) {
  return def_op("SimplifiedLayerNormalization", 1, INT_MAX, domain)
      .input("X", "T")
      .input("scale", "T")
      .output("Y", "T")
      .output("inv_std_var", "U", Arity::kOptional)
      .attr("axis", AttrKind::kInt, int64_t{-1})
      .attr("epsilon", AttrKind::kFloat, 1e-5f)
      .attr("stash_type", AttrKind::kInt, int64_t{1})
      .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
      .type_constraint("U", {DType::kF32, DType::kF64})
      .trait(kNormalization)
      .describe("Y = X / sqrt(mean(X^2 over axis..) + epsilon) * scale (RMSNorm)")
      .infer(infer_simplified)
      .tiling(rms_norm_tiling)
      .kernel(rms_norm_kernel)
      .reference(rms_norm_reference);
}

}  // namespace

TilingData rms_norm_tiling(const LaunchContext& ctx) {
  return row_tiling(ctx, rms_view(ctx, false));
}

void rms_norm_kernel(TileBuilder& t) {
  rms_kernel(t, false);
}

void rms_norm_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  rms_reference(false, a, in, out);
}

void add_norm(Registry& r) {
  r.add(simplified_def(""));  // ONNX Runtime registers it in the ONNX domain
  r.add(simplified_def(kDomain));
  r.add(def_op("RMSNormalization", 23)
            .input("X", "T")
            .input("scale", "V")
            .output("Y", "V")
            .attr("axis", AttrKind::kInt, int64_t{-1})
            .attr("epsilon", AttrKind::kFloat, 1e-5f)
            .attr("stash_type", AttrKind::kInt, int64_t{1})
            .type_constraint("T", float_types())
            .type_constraint("V", float_types())
            .trait(kNormalization)
            .describe("Y = X / sqrt(mean(X^2 over axis..) + epsilon) * scale, in scale's dtype")
            .infer(infer_rms_normalization)
            .tiling(rms_norm_tiling)
            .kernel(rms_norm_kernel)
            .reference(rms_norm_reference));
  r.add(def_op("SkipSimplifiedLayerNormalization", 1, INT_MAX, kDomain)
            .input("input", "T")
            .input("skip", "T")
            .input("gamma", "T")
            .input("bias", "T", Arity::kOptional)
            .output("output", "T")
            .output("mean", "U", Arity::kOptional)
            .output("inv_std_var", "U", Arity::kOptional)
            .output("input_skip_bias_sum", "T", Arity::kOptional)
            .attr("epsilon", AttrKind::kFloat, 1e-12f)
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .type_constraint("U", {DType::kF32})
            .trait(kNormalization)
            .describe("s = input + skip + bias; output = s / sqrt(mean(s^2) + epsilon) * gamma")
            .infer(infer_skip)
            .tiling([](const LaunchContext& ctx) { return row_tiling(ctx, rms_view(ctx, true)); })
            .kernel([](TileBuilder& t) { rms_kernel(t, true); })
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              rms_reference(true, a, in, out);
            }));
}

}  // namespace asc::contrib
