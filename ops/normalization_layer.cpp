// LayerNormalization (17+), MeanVarianceNormalization (9+), InstanceNormalization (1-5, 6+),
// GroupNormalization (18-20, 21+): tile kernels on the moments kernel (normalization_rows.h).
//
// LayerNormalization: X [d0..dr-1] normalised over [axis, r); Scale and B broadcast to the
// normalised shape [d_axis..] (numpy rules, right-aligned); Mean and InvStdDev have X's shape
// with dims [axis, r) 1 and the stash_type dtype (1: f32).
// MeanVarianceNormalization: over `axes` (default [0, 2, 3]),
//   y = (x - mean) / (sqrt(var) + 1e-9).
// InstanceNormalization: X [N, C, d...], per (n, c) over d...; scale and B are [C].
#include <algorithm>
#include <climits>
#include <cmath>

#include "ops/normalization_rows.h"
#include "ops/ops.h"
#include "registry/infer.h"
#include "registry/tiling.h"

namespace asc {
namespace {

bool present(const LaunchContext& ctx, size_t k) {
  return ctx.inputs.size() > k && ctx.inputs[k].dtype != DType::kUndefined;
}

// ---- LayerNormalization ----------------------------------------------------------------------

DType stash_dtype(int64_t stash) {
  for (DType dt : float_types())
    if (static_cast<int64_t>(dt) == stash) return dt;
  throw ShapeError(cat("LayerNormalization: stash_type ", stash, " is not a float dtype"));
}

std::vector<int64_t> trailing_axes(int64_t axis, int64_t rank) {
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d) axes.push_back(d);
  return axes;
}

// Scale / B must broadcast (unidirectionally) to the normalised shape X.shape[axis:].
void check_ln_param(const char* name, const TensorType& p, const SymShape& x, int64_t axis) {
  if (!p.shape) return;
  const SymShape& ps = *p.shape;
  const size_t norm_rank = x.size() - static_cast<size_t>(axis);
  bool ok = true;
  for (size_t i = 0; ok && i < ps.size(); ++i) {
    const size_t from_end = ps.size() - i;
    const bool one = ps[i].known() && ps[i].value() == 1;
    if (from_end > norm_rank) {
      ok = one;
      continue;
    }
    const Dim& xd = x[x.size() - from_end];
    ok = one || !(xd.known() && ps[i].known() && xd.value() != ps[i].value());
  }
  if (!ok)
    throw ShapeError(cat("LayerNormalization: ", name, " ", p.str(),
                         " does not broadcast to the normalised shape of X ", to_string(x),
                         " from axis ", axis));
}

std::vector<TensorType> infer_layer_norm(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const DType u = stash_dtype(c.attrs.i("stash_type"));
  if (!x.shape) return {{x.dtype, std::nullopt}, {u, std::nullopt}, {u, std::nullopt}};
  const auto rank = static_cast<int64_t>(x.shape->size());
  if (rank == 0) throw ShapeError("LayerNormalization: X must have rank >= 1");
  const int64_t axis = normalize_axis(c.attrs.i("axis"), rank);
  check_ln_param("Scale", c.inputs[1], *x.shape, axis);
  if (c.inputs.size() > 2 && c.inputs[2].dtype != DType::kUndefined)
    check_ln_param("B", c.inputs[2], *x.shape, axis);
  SymShape stats = *x.shape;
  for (int64_t d = axis; d < rank; ++d) stats[d] = Dim(int64_t{1});
  return {x, {u, stats}, {u, stats}};
}

// Parameters (Scale, B) present at launch.
std::vector<size_t> ln_params(const LaunchContext& ctx) {
  std::vector<size_t> p = {1};
  if (present(ctx, 2)) p.push_back(2);
  return p;
}

// A parameter with one element or the whole normalised shape lets the normalised dims merge
// into one view dim; a partly broadcast one keeps them apart: [prod X[:axis], X[axis], ...].
bool ln_merged(const LaunchContext& ctx, int64_t count) {
  for (size_t k : ln_params(ctx)) {
    const int64_t n = numel(ctx.inputs[k].shape);
    if (n != 1 && n != count) return false;
  }
  return true;
}

RowView ln_view(const LaunchContext& ctx) {
  const Shape& x = ctx.inputs[0].shape;
  const auto rank = static_cast<int64_t>(x.size());
  const int64_t axis = normalize_axis(ctx.attr().i("axis"), rank);
  const Shape norm_shape(x.begin() + axis, x.end());
  if (ln_merged(ctx, numel(norm_shape))) return row_view(x, trailing_axes(axis, rank));
  RowView v;
  v.dims = {numel(Shape(x.begin(), x.begin() + axis))};
  v.dims.insert(v.dims.end(), norm_shape.begin(), norm_shape.end());
  v.reduced.assign(v.dims.size(), true);
  v.reduced[0] = false;
  v.count = numel(norm_shape);
  v.in_strides = {v.count};
  const Shape inner = contiguous_strides(norm_shape);
  v.in_strides.insert(v.in_strides.end(), inner.begin(), inner.end());
  v.out_strides.assign(v.dims.size(), 0);
  v.out_strides[0] = 1;
  return v;
}

// Element strides of parameter `input` over the view dims; 0 where it broadcasts.
Shape ln_param_strides(const LaunchContext& ctx, const RowView& v, size_t input) {
  const Shape& p = ctx.inputs[input].shape;
  Shape st(v.dims.size(), 0);
  if (numel(p) == 1) return st;
  if (ln_merged(ctx, v.count)) {  // the reduced view dim is the innermost: stride 1
    for (size_t j = 0; j < v.dims.size(); ++j)
      if (v.reduced[j]) st[j] = 1;
    return st;
  }
  const Shape ps = contiguous_strides(p);  // p right-aligned to the view dims 1..
  const auto lead = static_cast<int64_t>(v.dims.size()) - static_cast<int64_t>(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    const int64_t j = lead + static_cast<int64_t>(i);
    if (p[i] != 1 && j >= 1) st[static_cast<size_t>(j)] = ps[i];
  }
  return st;
}

MomentsSpec ln_spec(const LaunchContext& ctx) {
  MomentsSpec s;
  s.view = ln_view(ctx);
  s.eps = ctx.attr().f("epsilon");
  const RowView& v = s.view;
  const Shape scale_st = ln_param_strides(ctx, v, 1);
  const bool has_bias = present(ctx, 2);
  const Shape bias_st = has_bias ? ln_param_strides(ctx, v, 2) : Shape{};
  s.affine = [v, scale_st, bias_st, has_bias](TileBuilder& t, Buf y, const RowCursor& c) {
    const DType cdt = t.dtype(y);
    y = bcast_to(t, BinaryOp::kMul, y, t.cast(t.copy_in(1, param_box(v, c, scale_st)), cdt));
    if (has_bias)
      y = bcast_to(t, BinaryOp::kAdd, y, t.cast(t.copy_in(2, param_box(v, c, bias_st)), cdt));
    return y;
  };
  s.stats = [v](TileBuilder& t, Buf mean, Buf, Buf rstd, const RowCursor& tile) {
    const auto& outs = t.ctx().outputs;
    if (outs.size() > 1) t.copy_out(1, t.cast(mean, outs[1].dtype), row_out_box(v, tile));
    if (outs.size() > 2) t.copy_out(2, t.cast(rstd, outs[2].dtype), row_out_box(v, tile));
  };
  return s;
}

void layer_norm_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const auto rank = static_cast<int64_t>(x.shape().size());
  const int64_t axis = normalize_axis(a.i("axis"), rank);
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t d = axis; d < rank; ++d) reduced[static_cast<size_t>(d)] = true;
  const double eps = a.f("epsilon");
  const RefMoments m = ref_moments(x, reduced);
  const bool has_b = in.size() > 2 && in[2].defined();
  // Parameter element at x's element i: right-aligned broadcast of p against x.
  std::vector<int64_t> idx(static_cast<size_t>(rank) + 1);
  auto param = [&](const Tensor& p, int64_t i) {
    unravel(i, x.shape(), idx.data());
    const Shape& ps = p.shape();
    int64_t off = 0;
    for (size_t d = 0; d < ps.size(); ++d) {
      const int64_t xd = rank - static_cast<int64_t>(ps.size()) + static_cast<int64_t>(d);
      off = off * ps[d] + (ps[d] == 1 ? 0 : idx[static_cast<size_t>(xd)]);
    }
    return p.at(off);
  };
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto k = static_cast<size_t>(m.kept_of[static_cast<size_t>(i)]);
    double y = (x.at(i) - m.mean[k]) / std::sqrt(m.var[k] + eps) * param(in[1], i);
    if (has_b) y += param(in[2], i);
    out[0].set(i, y);
  }
  for (size_t k = 0; k < m.mean.size(); ++k) {
    if (out.size() > 1) out[1].set(static_cast<int64_t>(k), m.mean[k]);
    if (out.size() > 2) out[2].set(static_cast<int64_t>(k), 1.0 / std::sqrt(m.var[k] + eps));
  }
}

void add_layer_norm(Registry& r) {
  r.add(def_op("LayerNormalization", 17)
            .input("X", "T")
            .input("Scale", "T")
            .input("B", "T", Arity::kOptional)
            .output("Y", "T")
            .output("Mean", "U", Arity::kOptional)
            .output("InvStdDev", "U", Arity::kOptional)
            .attr("axis", AttrKind::kInt, int64_t{-1})
            .attr("epsilon", AttrKind::kFloat, 1e-5f)
            .attr("stash_type", AttrKind::kInt, int64_t{1})
            .type_constraint("T", float_types())
            .type_constraint("U", {DType::kF32, DType::kBF16})
            .trait(kNormalization)
            .describe("Y = (X - mean) / sqrt(var + epsilon) * Scale + B over dims [axis, rank); "
                      "Mean and InvStdDev optional")
            .infer(infer_layer_norm)
            .tiling([](const LaunchContext& ctx) {
              return moments_tiling(ctx, ln_view(ctx), ctx.outputs.size() > 1);
            })
            .kernel([](TileBuilder& t) { moments_kernel(t, ln_spec(t.ctx())); })
            .reference(layer_norm_reference));
}

// ---- MeanVarianceNormalization ---------------------------------------------------------------

constexpr double kMvnEps = 1e-9;

std::vector<int64_t> mvn_axes(const Attrs& a, int64_t rank) {
  std::vector<int64_t> axes;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t ax : a.ints("axes")) {
    if (ax < -rank || ax >= rank)
      throw ShapeError(
          cat("MeanVarianceNormalization: axis ", ax, " out of range for rank ", rank));
    const int64_t d = ax < 0 ? ax + rank : ax;
    if (seen[static_cast<size_t>(d)])
      throw ShapeError(cat("MeanVarianceNormalization: repeated axis ", ax));
    seen[static_cast<size_t>(d)] = true;
    axes.push_back(d);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

RowView mvn_view(const LaunchContext& ctx) {
  const Shape& x = ctx.inputs[0].shape;
  return row_view(x, mvn_axes(ctx.attr(), static_cast<int64_t>(x.size())));
}

void mvn_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const auto rank = static_cast<int64_t>(x.shape().size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t d : mvn_axes(a, rank)) reduced[static_cast<size_t>(d)] = true;
  const RefMoments m = ref_moments(x, reduced);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto k = static_cast<size_t>(m.kept_of[static_cast<size_t>(i)]);
    out[0].set(i, (x.at(i) - m.mean[k]) / (std::sqrt(m.var[k]) + kMvnEps));
  }
}

void add_mvn(Registry& r) {
  r.add(def_op("MeanVarianceNormalization", 9)
            .input("X", "T")
            .output("Y", "T")
            .attr("axes", AttrKind::kInts, std::vector<int64_t>{0, 2, 3})
            .type_constraint("T", float_types())
            .trait(kNormalization)
            .describe("Y = (X - mean) / (sqrt(var) + 1e-9) with mean and var over axes")
            .infer([](const InferContext& c) {
              if (c.inputs[0].shape)
                mvn_axes(c.attrs, static_cast<int64_t>(c.inputs[0].shape->size()));
              return infer_unary(c);
            })
            .tiling(
                [](const LaunchContext& ctx) { return moments_tiling(ctx, mvn_view(ctx), false); })
            .kernel([](TileBuilder& t) {
              MomentsSpec s;
              s.view = mvn_view(t.ctx());
              s.eps = kMvnEps;
              s.eps_on_std = true;
              moments_kernel(t, s);
            })
            .reference(mvn_reference));
}

// ---- InstanceNormalization -------------------------------------------------------------------

std::vector<TensorType> infer_instance_norm(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  if (x.shape) {
    if (x.shape->size() < 3)
      throw ShapeError(cat("InstanceNormalization: input must be [N, C, D1, ...], got ", x.str()));
    const Dim& ch = (*x.shape)[1];
    for (size_t k = 1; k <= 2; ++k) {
      const TensorType& p = c.inputs[k];
      if (p.shape && (p.shape->size() != 1 ||
                      ((*p.shape)[0].known() && ch.known() && (*p.shape)[0].value() != ch.value())))
        throw ShapeError(cat("InstanceNormalization: ", k == 1 ? "scale " : "B ", p.str(),
                             " must be [C] for input ", x.str()));
    }
  }
  return infer_unary(c);
}

void instance_norm_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Shape& s = x.shape();
  std::vector<bool> reduced(s.size(), true);
  reduced[0] = reduced[1] = false;
  int64_t spatial = 1;
  for (size_t d = 2; d < s.size(); ++d) spatial *= s[d];
  const double eps = a.f("epsilon");
  const RefMoments m = ref_moments(x, reduced);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto k = static_cast<size_t>(m.kept_of[static_cast<size_t>(i)]);
    const int64_t ch = (i / spatial) % s[1];
    out[0].set(i, in[1].at(ch) * (x.at(i) - m.mean[k]) / std::sqrt(m.var[k] + eps) + in[2].at(ch));
  }
}

void add_instance_norm(Registry& r, bool legacy) {
  OpDef def = def_op("InstanceNormalization", legacy ? 1 : 6, legacy ? 5 : INT_MAX);
  if (legacy) def.attr("consumed_inputs", AttrKind::kInts, std::vector<int64_t>{});  // ignored
  r.add(std::move(def)
            .input("input", "T")
            .input("scale", "T")
            .input("B", "T")
            .output("output", "T")
            .attr("epsilon", AttrKind::kFloat, 1e-5f)
            .type_constraint("T", float_types())
            .trait(kNormalization)
            .describe("output = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c], moments per "
                      "(n, c) over the spatial dims")
            .infer(infer_instance_norm)
            .tiling([](const LaunchContext& ctx) {
              return moments_tiling(ctx, ncs_view(ctx.inputs[0].shape, false, true), false);
            })
            .kernel([](TileBuilder& t) {
              MomentsSpec s;
              s.view = ncs_view(t.ctx().inputs[0].shape, false, true);
              s.eps = t.ctx().attr().f("epsilon");
              const RowView v = s.view;
              s.affine = [v](TileBuilder& tb, Buf y, const RowCursor& c) {
                const Shape per_channel = {0, 1, 0};
                const DType cdt = tb.dtype(y);
                y = bcast_to(tb, BinaryOp::kMul, y,
                             tb.cast(tb.copy_in(1, param_box(v, c, per_channel)), cdt));
                return bcast_to(tb, BinaryOp::kAdd, y,
                                tb.cast(tb.copy_in(2, param_box(v, c, per_channel)), cdt));
              };
              moments_kernel(t, s);
            })
            .reference(instance_norm_reference));
}

// ---- GroupNormalization ----------------------------------------------------------------------
// X [N, C, d...] as [N, G, C/G, S]: moments per (n, g) over C/G and S. Opset 18: scale and bias
// per group [G]; 21+: per channel [C] (and stash_type, computed in f32 here for f16/bf16).

RowView gn_view(const Shape& x, int64_t groups) {
  const int64_t n = x[0], c = x[1], cg = c / groups;
  int64_t sp = 1;
  for (size_t i = 2; i < x.size(); ++i) sp *= x[i];
  RowView v;
  v.dims = {n, groups, cg, sp};
  v.reduced = {false, false, true, true};
  v.in_strides = {c * sp, cg * sp, sp, 1};
  v.out_strides = {groups, 1, 0, 0};
  v.count = cg * sp;
  return v;
}

std::vector<TensorType> infer_group_norm(bool per_channel, const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const int64_t groups = c.attrs.i("num_groups");
  if (groups < 1)
    throw ShapeError(cat("GroupNormalization: num_groups must be >= 1, got ", groups));
  if (!x.shape) return infer_unary(c);
  if (x.shape->size() < 2)
    throw ShapeError(cat("GroupNormalization: X must be [N, C, ...], got ", x.str()));
  const Dim& ch = (*x.shape)[1];
  if (ch.known() && ch.value() % groups != 0)
    throw ShapeError(cat("GroupNormalization: ", ch.value(), " channels of X ", x.str(),
                         " do not split into ", groups, " groups"));
  const Dim want = per_channel ? ch : Dim(groups);
  for (size_t k = 1; k <= 2; ++k) {
    const TensorType& p = c.inputs[k];
    if (p.shape && (p.shape->size() != 1 || ((*p.shape)[0].known() && want.known() &&
                                             (*p.shape)[0].value() != want.value())))
      throw ShapeError(cat("GroupNormalization: ", k == 1 ? "scale " : "bias ", p.str(),
                           " must be [", want.str(), "] for X ", x.str()));
  }
  return infer_unary(c);
}

void group_norm_reference(bool per_channel, const Attrs& a, std::span<const Tensor> in,
                          std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Shape& s = x.shape();
  const int64_t groups = a.i("num_groups"), ch = s[1], cg = ch / groups;
  int64_t sp = 1;
  for (size_t d = 2; d < s.size(); ++d) sp *= s[d];
  const double eps = a.f("epsilon");
  const int64_t len = cg * sp;  // one (n, g) group is contiguous in X
  for (int64_t start = 0; start < x.numel(); start += len) {
    double mean = 0, var = 0;
    for (int64_t i = start; i < start + len; ++i) mean += x.at(i) / static_cast<double>(len);
    for (int64_t i = start; i < start + len; ++i) var += (x.at(i) - mean) * (x.at(i) - mean);
    var /= static_cast<double>(len);
    for (int64_t i = start; i < start + len; ++i) {
      const int64_t c = (i / sp) % ch;
      const int64_t p = per_channel ? c : c / cg;
      out[0].set(i, (x.at(i) - mean) / std::sqrt(var + eps) * in[1].at(p) + in[2].at(p));
    }
  }
}

void add_group_norm(Registry& r, bool per_channel) {
  OpDef def = def_op("GroupNormalization", per_channel ? 21 : 18, per_channel ? INT_MAX : 20);
  def.input("X", "T")
      .input("scale", "T")
      .input("bias", "T")
      .output("Y", "T")
      .attr("epsilon", AttrKind::kFloat, 1e-5f)
      .attr("num_groups", AttrKind::kInt);
  if (per_channel) def.attr("stash_type", AttrKind::kInt, int64_t{1});
  def.type_constraint("T", float_types())
      .trait(kNormalization)
      .describe(per_channel ? "Y = (X - mean) / sqrt(var + epsilon) * scale[c] + bias[c], moments "
                              "per (n, group of channels)"
                            : "Y = (X - mean) / sqrt(var + epsilon) * scale[g] + bias[g], moments "
                              "per (n, group of channels)")
      .infer([per_channel](const InferContext& c) { return infer_group_norm(per_channel, c); })
      .tiling([](const LaunchContext& ctx) {
        return moments_tiling(ctx, gn_view(ctx.inputs[0].shape, ctx.attr().i("num_groups")), false);
      })
      .kernel([per_channel](TileBuilder& t) {
        MomentsSpec s;
        s.view = gn_view(t.ctx().inputs[0].shape, t.ctx().attr().i("num_groups"));
        s.eps = t.ctx().attr().f("epsilon");
        const RowView v = s.view;
        const Shape st = per_channel ? Shape{0, v.dims[2], 1, 0} : Shape{0, 1, 0, 0};
        s.affine = [v, st](TileBuilder& tb, Buf y, const RowCursor& c) {
          const DType cdt = tb.dtype(y);
          y = bcast_to(tb, BinaryOp::kMul, y, tb.cast(tb.copy_in(1, param_box(v, c, st)), cdt));
          return bcast_to(tb, BinaryOp::kAdd, y, tb.cast(tb.copy_in(2, param_box(v, c, st)), cdt));
        };
        moments_kernel(t, s);
      })
      .reference([per_channel](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
        group_norm_reference(per_channel, a, in, out);
      });
  r.add(std::move(def));
}

}  // namespace

void register_normalization_rows(Registry& r) {
  add_layer_norm(r);
  add_mvn(r);
  add_instance_norm(r, true);
  add_instance_norm(r, false);
  add_group_norm(r, false);
  add_group_norm(r, true);
}

}  // namespace asc
