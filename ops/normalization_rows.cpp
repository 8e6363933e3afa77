// The moments tile kernel: LayerNormalization, MeanVarianceNormalization, InstanceNormalization
// (normalization_layer.cpp) and BatchNormalization in training mode (normalization_batch.cpp)
// share it: moments over a row view (registry/rows.h), then normalise and an optional affine.
//
// Per kept position p (the reduced dims R of the view):
//   mean = sum_R x / n,  var = sum_R (x - mean)^2 / n  (population variance, two passes)
//   rstd = 1 / sqrt(var + eps)   (MVN: 1 / (sqrt(var) + eps), eps = 1e-9 as its ONNX function)
//   y = (x - mean) * rstd, then y * scale + bias with parameter boxes of the op.
// A tile holding whole rows does that on one buffer; longer rows take three passes over the
// row's chunks (sum, sum of squared deviations, output). f16/bf16 compute in f32.
//
// Views: LayerNormalization reduces [axis, rank) of X (one trailing reduced view dim, or the
// normalised dims apart when Scale/B broadcast along some of them);
// MeanVarianceNormalization reduces `axes`; InstanceNormalization views X as [N, C, S] reducing
// S; BatchNormalization (training) as [N, C, S] reducing N and S. The [N, C, S] views are built
// here unmerged so that C keeps its own grid axis (per-channel parameter boxes).
#include "ops/normalization_rows.h"

#include <cmath>
#include <limits>

#include "registry/infer.h"
#include "registry/tiling.h"

namespace asc {

RowView ncs_view(const Shape& x, bool reduce_batch, bool reduce_spatial) {
  RowView v;
  const int64_t n = x.empty() ? 1 : x[0], c = x.size() < 2 ? 1 : x[1];
  int64_t s = 1;
  for (size_t i = 2; i < x.size(); ++i) s *= x[i];
  v.dims = {n, c, s};
  v.reduced = {reduce_batch, false, reduce_spatial};
  v.in_strides = {c * s, s, 1};
  v.out_strides = {reduce_batch ? 0 : c, 1, reduce_spatial ? 0 : 1};
  v.count = (reduce_batch ? n : 1) * (reduce_spatial ? s : 1);
  return v;
}

Buf bcast_to(TileBuilder& t, BinaryOp op, Buf x, Buf s) {
  const Shape xd = t.dims(x);
  std::vector<int> axes;  // dims where s broadcasts
  for (size_t j = 0; j < xd.size(); ++j)
    if (t.dims(s)[j] == 1 && xd[j] > 1) axes.push_back(static_cast<int>(j));
  if (axes.empty()) return t.binary(op, x, s);
  for (size_t k = 0; k + 1 < axes.size(); ++k) {  // expand s along all but the last axis
    Shape grown = t.dims(s);
    grown[axes[k]] = xd[axes[k]];
    s = t.bcast_mid(BinaryOp::kAdd, t.duplicate(t.dtype(s), grown, 0.0), s, axes[k]);
  }
  return t.bcast_mid(op, x, s, axes.back());
}

GmBox param_box(const RowView& v, const RowCursor& c, const Shape& strides) {
  GmBox box;
  for (size_t j = 0; j < v.dims.size(); ++j) {
    if (strides[j] == 0)
      box.dims.push_back(BoxDim{1, 0, Coord{}, 1});
    else
      box.dims.push_back(BoxDim{v.dims[j], strides[j], c.start[j], c.size[j]});
  }
  return box;
}

namespace {

// Sum of squares over every reduced dim of d (a box-shaped buffer): squares on the first reduced
// dim, plain sums on the others.
Buf sum_squares(TileBuilder& t, Buf d, const RowView& v) {
  bool squared = false;
  for (size_t j = 0; j < v.dims.size(); ++j) {
    if (!v.reduced[j] || t.dims(d)[j] <= 1) continue;
    d = t.reduce(squared ? ReduceOp::kSum : ReduceOp::kSumSquares, d, static_cast<int>(j));
    squared = true;
  }
  return squared ? d : d * d;
}

}  // namespace

TilingData moments_tiling(const LaunchContext& ctx, const RowView& v, bool stats_out) {
  TilingData t = row_tiling(ctx, v);
  if (v.count == 0 && !stats_out)  // empty rows and no statistics: nothing to write
    for (auto& g : t.grid) g = 0;
  return t;
}

void moments_kernel(TileBuilder& t, const MomentsSpec& s) {
  const RowView& v = s.view;
  const DType cdt = compute_dtype(t.ctx().inputs[0].dtype);
  const DType odt = t.ctx().outputs[0].dtype;
  const RowCursor tile = row_tile(v, t.tiling());
  bool looped = false;
  const Shape kept = row_kept(v, tile, looped);
  auto load = [&](const RowCursor& c, bool last = false) {
    if (s.load) return s.load(t, c, last);
    return t.cast(t.copy_in(0, row_in_box(v, c)), cdt);
  };
  auto inv_std = [&](Buf var) {
    if (s.eps_on_std) return t.unary(UnaryOp::kReciprocal, sqrt(var) + s.eps);
    return t.unary(UnaryOp::kRsqrt, var + s.eps);
  };
  auto finish = [&](const RowCursor& c, Buf d, Buf rstd) {
    Buf y = bcast_to(t, BinaryOp::kMul, d, rstd);
    if (s.affine) y = s.affine(t, y, c);
    t.copy_out(0, t.cast(y, odt), row_in_box(v, c));
  };
  const double n = static_cast<double>(v.count);
  if (v.count == 0) {  // no elements: statistics are NaN, Y is empty
    const Buf nan = t.duplicate(cdt, kept, std::numeric_limits<double>::quiet_NaN());
    if (s.stats) s.stats(t, nan, nan, nan, tile);
    return;
  }
  Buf mean, var;
  if (!looped) {
    Buf x = load(tile, true);
    mean = row_reduce_box(t, ReduceOp::kSum, x, v) / n;
    Buf d = bcast_to(t, BinaryOp::kSub, x, mean);
    var = sum_squares(t, d, v) / n;
    Buf rstd = inv_std(var);
    finish(tile, d, rstd);
    if (s.stats) s.stats(t, mean, var, rstd, tile);
    return;
  }
  Buf sum = t.duplicate(cdt, kept, 0.0);
  row_chunks(t, v, [&](const RowCursor& c) {
    t.accumulate(BinaryOp::kAdd, sum, row_reduce_box(t, ReduceOp::kSum, load(c), v));
  });
  mean = sum / n;
  Buf ss = t.duplicate(cdt, kept, 0.0);
  row_chunks(t, v, [&](const RowCursor& c) {
    Buf d = bcast_to(t, BinaryOp::kSub, load(c), mean);
    t.accumulate(BinaryOp::kAdd, ss, sum_squares(t, d, v));
  });
  var = ss / n;
  Buf rstd = inv_std(var);
  row_chunks(t, v, [&](const RowCursor& c) {
    finish(c, bcast_to(t, BinaryOp::kSub, load(c, true), mean), rstd);
  });
  if (s.stats) s.stats(t, mean, var, rstd, tile);
}

RefMoments ref_moments(const Tensor& x, const std::vector<bool>& reduced) {
  const Shape& s = x.shape();
  const size_t r = s.size();
  RefMoments m;
  m.kept_of.resize(static_cast<size_t>(x.numel()));
  int64_t kept_n = 1;
  for (size_t d = 0; d < r; ++d)
    if (!reduced[d]) kept_n *= s[d];
  std::vector<int64_t> idx(r + 1);
  std::vector<double> cnt(static_cast<size_t>(kept_n), 0.0);
  m.mean.assign(cnt.size(), 0.0);
  m.var.assign(cnt.size(), 0.0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    unravel(i, s, idx.data());
    int64_t k = 0;
    for (size_t d = 0; d < r; ++d)
      if (!reduced[d]) k = k * s[d] + idx[d];
    m.kept_of[static_cast<size_t>(i)] = k;
    m.mean[static_cast<size_t>(k)] += x.at(i);
    cnt[static_cast<size_t>(k)] += 1;
  }
  for (size_t k = 0; k < cnt.size(); ++k) m.mean[k] /= cnt[k];  // no elements: NaN
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto k = static_cast<size_t>(m.kept_of[static_cast<size_t>(i)]);
    const double dev = x.at(i) - m.mean[k];
    m.var[k] += dev * dev;
  }
  for (size_t k = 0; k < cnt.size(); ++k) m.var[k] /= cnt[k];
  return m;
}

}  // namespace asc
