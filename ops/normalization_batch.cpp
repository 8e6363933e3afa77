// BatchNormalization (1-5 and 6-8 with `spatial`, 9-13, 14 and 15+ with training_mode): tile
// kernels over the [N, C, S] view of X (normalization_rows.h).
//   inference: y = (x - mean[p]) * a[p] + B[p] with a = scale / sqrt(var + epsilon), where the
//     parameter index p is the channel c (spatial = 1) or (c, s) (spatial = 0: parameters shaped
//     X.shape[1:]); one elementwise pass, parameters broadcast along N (and S).
//   training (14+, training_mode = 1): moments per channel over N and S (population variance),
//     y = (x - mean_c) / sqrt(var_c + epsilon) * scale + B, and
//     running_mean = input_mean * momentum + mean_c * (1 - momentum) (running_var likewise).
// Opsets before 14 run in inference mode (their training outputs are not supported).
#include <climits>
#include <cmath>

#include "ops/normalization_rows.h"
#include "ops/ops.h"
#include "registry/infer.h"
#include "registry/tiling.h"

namespace asc {
namespace {

struct BnVersion {
  int since, until;
  bool consumed_attr;  // 1-5: legacy consumed_inputs (ignored)
  bool spatial_attr;   // 1-8
  bool is_test_attr;   // 1-6
  bool training;       // 14+: training_mode attribute and outputs
  bool split_types;    // 15+: scale/B (T1) and mean/var (T2) types independent of X
};

constexpr BnVersion kBnVersions[] = {
    {1, 5, true, true, true, false, false},     {6, 6, false, true, true, false, false},
    {7, 8, false, true, false, false, false},   {9, 13, false, false, false, false, false},
    {14, 14, false, false, false, true, false}, {15, INT_MAX, false, false, false, true, true},
};

bool bn_spatial(const BnVersion& ver, const Attrs& a) {
  return !ver.spatial_attr || a.i("spatial") != 0;
}

bool bn_training(const BnVersion& ver, const Attrs& a) {
  return ver.training && a.i("training_mode") != 0;
}

std::vector<TensorType> infer_bn(const BnVersion& ver, const InferContext& c) {
  const TensorType& x = c.inputs[0];
  const bool training = bn_training(ver, c.attrs);
  const DType u = c.inputs[3].dtype;
  if (x.shape) {
    if (x.shape->size() < 2)
      throw ShapeError(cat("BatchNormalization: X must be [N, C, ...], got ", x.str()));
    // Parameters: [C] when spatial, else X's dims after N.
    const SymShape want = bn_spatial(ver, c.attrs) ? SymShape{(*x.shape)[1]}
                                                   : SymShape(x.shape->begin() + 1, x.shape->end());
    static const char* names[] = {"", "scale", "B", "input_mean", "input_var"};
    for (size_t k = 1; k <= 4; ++k) {
      const TensorType& p = c.inputs[k];
      if (!p.shape) continue;
      bool ok = p.shape->size() == want.size();
      for (size_t i = 0; ok && i < want.size(); ++i)
        ok =
            !((*p.shape)[i].known() && want[i].known() && (*p.shape)[i].value() != want[i].value());
      if (!ok)
        throw ShapeError(cat("BatchNormalization: ", names[k], " ", p.str(), " must be ",
                             to_string(want), " for X ", x.str()));
    }
  }
  std::vector<TensorType> out = {x};
  if (training) {
    const TensorType stat{
        u, x.shape ? std::optional<SymShape>(SymShape{(*x.shape)[1]}) : std::nullopt};
    out.push_back(stat);
    out.push_back(stat);
  }
  return out;
}

// Parameter element strides over the [N, C, S] view.
Shape bn_param_strides(bool spatial, const RowView& v) {
  return spatial ? Shape{0, 1, 0} : Shape{0, v.dims[2], 1};
}

void bn_inference_kernel(const BnVersion& ver, TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const RowView v = ncs_view(ctx.inputs[0].shape, false, false);
  const Shape st = bn_param_strides(bn_spatial(ver, ctx.attr()), v);
  const DType cdt = compute_dtype(ctx.inputs[0].dtype);
  const RowCursor tile = row_tile(v, t.tiling());
  auto param = [&](int k) { return t.cast(t.copy_in(k, param_box(v, tile, st)), cdt); };
  Buf a = param(1) * t.unary(UnaryOp::kRsqrt, param(4) + ctx.attr().f("epsilon"));
  Buf b = param(2) - param(3) * a;
  Buf x = t.cast(t.copy_in(0, row_in_box(v, tile)), cdt);
  Buf y = bcast_to(t, BinaryOp::kAdd, bcast_to(t, BinaryOp::kMul, x, a), b);
  t.copy_out(0, t.cast(y, ctx.outputs[0].dtype), row_in_box(v, tile));
}

MomentsSpec bn_training_spec(const LaunchContext& ctx) {
  MomentsSpec s;
  s.view = ncs_view(ctx.inputs[0].shape, true, true);
  s.eps = ctx.attr().f("epsilon");
  const double mom = ctx.attr().f("momentum");
  const RowView v = s.view;
  const Shape per_channel = {0, 1, 0};
  s.affine = [v, per_channel](TileBuilder& t, Buf y, const RowCursor& c) {
    const DType cdt = t.dtype(y);
    y = bcast_to(t, BinaryOp::kMul, y, t.cast(t.copy_in(1, param_box(v, c, per_channel)), cdt));
    return bcast_to(t, BinaryOp::kAdd, y, t.cast(t.copy_in(2, param_box(v, c, per_channel)), cdt));
  };
  s.stats = [v, per_channel, mom](TileBuilder& t, Buf mean, Buf var, Buf, const RowCursor& tile) {
    const auto& outs = t.ctx().outputs;
    const DType cdt = t.dtype(mean);
    for (int k = 1; k <= 2 && k < static_cast<int>(outs.size()); ++k) {
      Buf running = t.cast(t.copy_in(2 + k, param_box(v, tile, per_channel)), cdt);
      Buf updated = running * mom + (k == 1 ? mean : var) * (1.0 - mom);
      t.copy_out(k, t.cast(updated, outs[k].dtype), row_out_box(v, tile));
    }
  };
  return s;
}

void bn_reference(const BnVersion& ver, const Attrs& a, std::span<const Tensor> in,
                  std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Shape& s = x.shape();
  const int64_t ch = s[1];
  int64_t spatial = 1;
  for (size_t d = 2; d < s.size(); ++d) spatial *= s[d];
  const double eps = a.f("epsilon");
  if (bn_training(ver, a)) {
    std::vector<bool> reduced(s.size(), true);
    reduced[1] = false;
    const RefMoments m = ref_moments(x, reduced);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t c = (i / spatial) % ch;
      const auto k = static_cast<size_t>(c);
      out[0].set(i, (x.at(i) - m.mean[k]) / std::sqrt(m.var[k] + eps) * in[1].at(c) + in[2].at(c));
    }
    const double mom = a.f("momentum");
    for (int64_t c = 0; c < ch; ++c) {
      const auto k = static_cast<size_t>(c);
      if (out.size() > 1) out[1].set(c, in[3].at(c) * mom + m.mean[k] * (1 - mom));
      if (out.size() > 2) out[2].set(c, in[4].at(c) * mom + m.var[k] * (1 - mom));
    }
    return;
  }
  const bool sp = bn_spatial(ver, a);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t p = sp ? (i / spatial) % ch : i % (ch * spatial);
    out[0].set(i,
               (x.at(i) - in[3].at(p)) / std::sqrt(in[4].at(p) + eps) * in[1].at(p) + in[2].at(p));
  }
}

void add_batch_norm(Registry& r, const BnVersion& ver) {
  const BnVersion* vp = &ver;
  OpDef def = def_op("BatchNormalization", ver.since, ver.until);
  const std::string pt = ver.split_types ? "T1" : "T";
  const std::string mt = ver.split_types ? "T2" : ver.training ? "U" : "T";
  def.input("X", "T")
      .input("scale", pt)
      .input("B", pt)
      .input(ver.training ? "input_mean" : "mean", mt)
      .input(ver.training ? "input_var" : "var", mt)
      .output("Y", "T");
  if (ver.training)
    def.output("running_mean", mt, Arity::kOptional).output("running_var", mt, Arity::kOptional);
  def.attr("epsilon", AttrKind::kFloat, 1e-5f).attr("momentum", AttrKind::kFloat, 0.9f);
  if (ver.spatial_attr) def.attr("spatial", AttrKind::kInt, int64_t{1});
  if (ver.consumed_attr) def.attr("consumed_inputs", AttrKind::kInts, std::vector<int64_t>{});
  if (ver.is_test_attr) def.attr("is_test", AttrKind::kInt, int64_t{0});
  if (ver.training) def.attr("training_mode", AttrKind::kInt, int64_t{0});
  def.type_constraint("T", float_types());
  if (pt != "T") def.type_constraint(pt, float_types());
  if (mt != "T") def.type_constraint(mt, float_types());
  def.trait(kNormalization)
      .describe(ver.training ? "Y = (X - mean) / sqrt(var + epsilon) * scale + B per channel; "
                               "training_mode uses batch moments and updates running stats"
                             : "Y = (X - mean) / sqrt(var + epsilon) * scale + B per channel "
                               "(inference)")
      .infer([vp](const InferContext& c) { return infer_bn(*vp, c); })
      .tiling([vp](const LaunchContext& ctx) {
        if (bn_training(*vp, ctx.attr()))
          return moments_tiling(ctx, ncs_view(ctx.inputs[0].shape, true, true), true);
        return row_tiling(ctx, ncs_view(ctx.inputs[0].shape, false, false));
      })
      .kernel([vp](TileBuilder& t) {
        if (bn_training(*vp, t.ctx().attr()))
          moments_kernel(t, bn_training_spec(t.ctx()));
        else
          bn_inference_kernel(*vp, t);
      })
      .reference([vp](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
        bn_reference(*vp, a, in, out);
      });
  r.add(std::move(def));
}

}  // namespace

void register_normalization_batch(Registry& r) {
  for (const BnVersion& v : kBnVersions) add_batch_norm(r, v);
}

}  // namespace asc
