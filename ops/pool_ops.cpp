// Registration and references of MaxPool / AveragePool / LpPool (kernels in pool.cpp), and the
// whole-plane pools GlobalAveragePool / GlobalMaxPool / GlobalLpPool and MaxUnpool.
//
// Global pools: X [N, C, spatial...] -> Y [N, C, 1, ...] reducing each (n, c) plane as tile
// kernels (row reductions); GlobalLpPool's host kernel keeps p <= 0 and f64 with p other than
// 1 and 2 (PowScalar's exponent is an f32).
// MaxUnpool: Y zero-filled, then Y.flat[I[i]] = X[i] (I as produced by MaxPool's Indices); Y's
// spatial dims are output_shape when given (I then indexes the default shape: see
// unpool_targets), else (in - 1) * s + k - pb - pe.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/nn.h"
#include "ops/nn_pool.h"
#include "registry/error.h"
#include "registry/rows.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

constexpr PoolVersion kPools[] = {
    {"MaxPool", PoolKind::kMax, 1, 7},
    {"MaxPool", PoolKind::kMax, 8, 9},
    {"MaxPool", PoolKind::kMax, 10, 11},
    {"MaxPool", PoolKind::kMax, 12, INT_MAX},
    {"AveragePool", PoolKind::kAvg, 1, 6},
    {"AveragePool", PoolKind::kAvg, 7, 9},
    {"AveragePool", PoolKind::kAvg, 10, 10},
    {"AveragePool", PoolKind::kAvg, 11, 18},
    {"AveragePool", PoolKind::kAvg, 19, INT_MAX},
    {"LpPool", PoolKind::kLp, 1, 1},
    {"LpPool", PoolKind::kLp, 2, 10},
    {"LpPool", PoolKind::kLp, 11, 17},
    {"LpPool", PoolKind::kLp, 18, INT_MAX},
};

// Naive reference: every output element over its window's taps, in double.
void pool_reference(const PoolVersion& v, const Attrs& a, const Tensor& x, std::span<Tensor> out) {
  const Window w = pool_window(v, a, x.shape());
  const size_t ns = w.k.size();
  const Shape xs = contiguous_strides(x.shape());
  const bool col_major = v.kind == PoolKind::kMax && v.since >= 8 && a.i("storage_order") != 0;
  const bool include_pad = v.kind == PoolKind::kAvg && v.since >= 7 && a.i("count_include_pad");
  const double p = v.kind == PoolKind::kLp ? pool_p(v.since, a) : 1.0;
  const Shape kshape = w.k;
  std::vector<int64_t> oi(ns + 2), ki(ns), xi(ns + 2);
  for (int64_t o = 0; o < out[0].numel(); ++o) {
    unravel(o, out[0].shape(), oi.data());
    double acc = 0;
    int64_t count = 0, best = -1;
    for (int64_t k = 0; k < numel(kshape); ++k) {
      unravel(k, kshape, ki.data());
      bool inside = true, in_padded = true;
      for (size_t d = 0; d < ns; ++d) {
        xi[d + 2] = oi[d + 2] * w.s[d] - w.pb[d] + ki[d] * w.d[d];
        inside = inside && xi[d + 2] >= 0 && xi[d + 2] < w.in[d];
        in_padded = in_padded && xi[d + 2] >= -w.pb[d] && xi[d + 2] < w.in[d] + w.pe[d];
      }
      if (include_pad ? in_padded : inside) ++count;
      if (!inside) continue;
      xi[0] = oi[0], xi[1] = oi[1];
      const int64_t flat = ravel(xi.data(), xs, ns + 2);
      const double val = x.at(flat);
      if (v.kind == PoolKind::kMax) {
        if (best < 0 || val > acc) {
          acc = val;
          best = flat;
          if (col_major) {  // plane offset + column-major position within the plane
            int64_t pos = 0, stride = 1;
            for (size_t d = 0; d < ns; ++d) pos += xi[d + 2] * stride, stride *= w.in[d];
            best = (oi[0] * x.shape()[1] + oi[1]) * stride + pos;
          }
        }
      } else if (v.kind == PoolKind::kAvg) {
        acc += val;
      } else {
        acc += std::pow(std::fabs(val), p);
      }
    }
    if (v.kind == PoolKind::kAvg) acc = count ? acc / double(count) : 0.0;
    if (v.kind == PoolKind::kLp) acc = std::pow(acc, 1.0 / p);
    out[0].set(o, acc);
    if (out.size() > 1 && out[1].defined()) out[1].set(o, double(best));
  }
}

void register_pool(Registry& r, const PoolVersion& pv) {
  const PoolVersion* v = &pv;
  OpDef def = def_op(pv.type, pv.since, pv.until);
  def.input("X", "T").output("Y", "T");
  if (pv.kind == PoolKind::kMax && pv.since >= 8)
    def.output("Indices", "i64", Arity::kOptional)
        .attr("storage_order", AttrKind::kInt, int64_t{0});
  def.attr("auto_pad", AttrKind::kString, std::string("NOTSET"))
      .attr("kernel_shape", AttrKind::kInts)
      .attr("pads", AttrKind::kInts, std::vector<int64_t>{})
      .attr("strides", AttrKind::kInts, std::vector<int64_t>{});
  // ceil_mode: MaxPool / AveragePool 10+, LpPool 18+; dilations: MaxPool 10+, AveragePool 19+,
  // LpPool 18+.
  const int since_ceil = pv.kind == PoolKind::kLp ? 18 : 10;
  const int since_dil = pv.kind == PoolKind::kMax ? 10 : pv.kind == PoolKind::kAvg ? 19 : 18;
  if (pv.since >= since_ceil) def.attr("ceil_mode", AttrKind::kInt, int64_t{0});
  if (pv.since >= since_dil) def.attr("dilations", AttrKind::kInts, std::vector<int64_t>{});
  if (pv.kind == PoolKind::kAvg && pv.since >= 7)
    def.attr("count_include_pad", AttrKind::kInt, int64_t{0});
  if (pv.kind == PoolKind::kLp) {
    if (pv.since == 1) {
      def.attr("p", AttrKind::kFloat, 2.0f);
    } else {
      def.attr("p", AttrKind::kInt, int64_t{2});
    }
  }
  std::vector<DType> types = nn_float_types();
  if (pv.kind == PoolKind::kMax && pv.since >= 12) {
    types.push_back(DType::kI8);
    types.push_back(DType::kU8);
  }
  const char* doc = pv.kind == PoolKind::kMax   ? "sliding-window max (optional argmax Indices)"
                    : pv.kind == PoolKind::kAvg ? "sliding-window average"
                                                : "sliding-window Lp norm";
  def.tiling([v](const LaunchContext& ctx) { return pool_tiling(*v, ctx); })
      .kernel([v](TileBuilder& t) { pool_tile_kernel(*v, t); })
      .tile_when([v](const Attrs& a, std::span<const TensorDesc> in,
                     std::span<const TensorDesc> out) { return pool_tile_covers(*v, a, in, out); });
  def.type_constraint("T", types)
      .describe(doc)
      .infer([v](const InferContext& c) { return infer_pool(*v, c); })
      .host_kernel([v](const LaunchContext& ctx, std::span<const Tensor> in,
                       std::span<Tensor> out) { pool_kernel(*v, ctx, in, out); })
      .reference([v](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
        pool_reference(*v, a, in[0], out);
      });
  r.add(std::move(def));
}

// ---- Global pools -----------------------------------------------------------------------------

std::vector<TensorType> infer_global(const char* op, const InferContext& ctx) {
  const TensorType& x = ctx.inputs[0];
  if (!x.shape) return {x};
  check_spatial_rank(op, *x.shape, 0);
  SymShape s = *x.shape;
  for (size_t i = 2; i < s.size(); ++i) s[i] = Dim(1);
  return {TensorType{x.dtype, s}};
}

// GlobalLpPool's host kernel for what its tile kernel does not take (p <= 0): (sum |x|^p)^(1/p)
// per plane, the planes over the workers.
template <class C>
void global_lp_run(const LaunchContext& ctx, double p, const Tensor& xt, Tensor& yt) {
  std::vector<C> xb;
  const C* x = read_as(xt, xb, C{});
  OutBuf<C> yb(yt);
  const int64_t planes = yt.numel(), n = planes ? xt.numel() / planes : 0;
  ctx.parallel(planes, [&](int64_t pl0, int64_t pl1) {
    for (int64_t pl = pl0; pl < pl1; ++pl) {
      double acc = 0;
      for (int64_t i = 0; i < n; ++i) acc += std::pow(std::fabs(double(x[pl * n + i])), p);
      yb.data()[pl] = static_cast<C>(std::pow(acc, 1.0 / p));
    }
  });
  yb.commit();
}

// GlobalAveragePool / GlobalMaxPool tile kernel: the row view of X reducing every spatial dim
// (registry/rows.h), mean = sum / count; f16 accumulates in f32.
RowView global_view(const LaunchContext& ctx) {
  const Shape& x = ctx.inputs.at(0).shape;
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < static_cast<int64_t>(x.size()); ++d) axes.push_back(d);
  return row_view(x, axes);
}

void global_kernel(PoolKind kind, TileBuilder& t) {
  const RowView v = global_view(t.ctx());
  Buf r = row_reduce_input(t, 0, kind == PoolKind::kMax ? ReduceOp::kMax : ReduceOp::kSum, v);
  if (kind == PoolKind::kAvg) r = r / static_cast<double>(v.count);
  r = t.cast(r, t.ctx().outputs[0].dtype);
  t.copy_out(0, r, row_out_box(v, row_tile(v, t.tiling())));
}

// GlobalLpPool's tile kernel: the row view's chunks as |x|^p (f32; f64 stays f64), each chunk's
// sum accumulated, then the root.
void global_lp_kernel(double p, TileBuilder& t) {
  const RowView v = global_view(t.ctx());
  const DType cdt = compute_dtype(t.ctx().inputs[0].dtype);
  const RowCursor tile = row_tile(v, t.tiling());
  bool looped = false;
  const Shape kept = row_kept(v, tile, looped);
  auto partial = [&](const RowCursor& c) {
    Buf x = t.cast(t.copy_in(0, row_in_box(v, c)), cdt);
    return row_reduce_box(t, ReduceOp::kSum, lp_power(t, x, p), v);
  };
  Buf r;
  if (v.count == 0 || looped) {
    r = t.duplicate(cdt, kept, 0.0);
    if (v.count > 0)
      row_chunks(t, v, [&](const RowCursor& c) { t.accumulate(BinaryOp::kAdd, r, partial(c)); });
  } else {
    r = partial(tile);
  }
  r = t.cast(lp_root(t, r, p), t.ctx().outputs[0].dtype);
  t.copy_out(0, r, row_out_box(v, tile));
}

void global_reference(PoolKind kind, double p, const Tensor& x, Tensor& y) {
  const int64_t planes = y.numel(), n = planes ? x.numel() / planes : 0;
  for (int64_t pl = 0; pl < planes; ++pl) {
    double acc = kind == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const double v = x.at(pl * n + i);
      acc = kind == PoolKind::kMax   ? std::max(acc, v)
            : kind == PoolKind::kAvg ? acc + v
                                     : acc + std::pow(std::fabs(v), p);
    }
    if (kind == PoolKind::kAvg) acc /= double(n);
    if (kind == PoolKind::kLp) acc = std::pow(acc, 1.0 / p);
    y.set(pl, acc);
  }
}

void register_global(Registry& r, const char* type, PoolKind kind, int since, int until) {
  auto p_of = [kind, since](const Attrs& a) {
    return kind != PoolKind::kLp ? 1.0 : pool_p(since, a);
  };
  OpDef def = def_op(type, since, until);
  def.input("X", "T").output("Y", "T").type_constraint("T", nn_float_types());
  if (kind == PoolKind::kLp) {
    if (since == 1) {
      def.attr("p", AttrKind::kFloat, 2.0f);
    } else {
      def.attr("p", AttrKind::kInt, int64_t{2});
    }
  }
  def.trait(kReduction)
      .describe(kind == PoolKind::kMax   ? "max over each (n, c) plane"
                : kind == PoolKind::kAvg ? "mean over each (n, c) plane"
                                         : "Lp norm over each (n, c) plane")
      .infer([type](const InferContext& c) { return infer_global(type, c); })
      .reference([kind, p_of](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
        global_reference(kind, p_of(a), in[0], out[0]);
      });
  def.tiling([](const LaunchContext& ctx) { return row_tiling(ctx, global_view(ctx)); });
  if (kind == PoolKind::kLp) {
    def.kernel([p_of](TileBuilder& t) { global_lp_kernel(p_of(t.ctx().attr()), t); })
        // PowScalar's exponent is an f32: f64 data with p other than 1, 2 stays on the host.
        .tile_when(
            [p_of](const Attrs& a, std::span<const TensorDesc> in, std::span<const TensorDesc>) {
              const double p = p_of(a);
              return p > 0 && (in[0].dtype != DType::kF64 || p == 1 || p == 2);
            })
        .host_kernel(
            [p_of](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
              with_compute(in[0].dtype(), [&](auto tag) {
                global_lp_run<decltype(tag)>(ctx, p_of(ctx.attr()), in[0], out[0]);
              });
            });
  } else {
    def.kernel([kind](TileBuilder& t) { global_kernel(kind, t); });
  }
  r.add(std::move(def));
}

// ---- MaxUnpool --------------------------------------------------------------------------------

// The output dims without output_shape: [N, C, (in - 1) * s + k - pb - pe ...]; -1 where unknown.
std::vector<int64_t> unpool_default_dims(const Attrs& a, const std::vector<int64_t>& xd) {
  const Window w = resolve_window("MaxUnpool", a, std::vector<int64_t>(xd.size() - 2, -1),
                                  a.ints("kernel_shape"), false);
  std::vector<int64_t> dims = {xd[0], xd[1]};
  for (size_t d = 0; d + 2 < xd.size(); ++d)
    dims.push_back(xd[d + 2] < 0 ? -1 : (xd[d + 2] - 1) * w.s[d] + w.k[d] - w.pb[d] - w.pe[d]);
  return dims;
}

std::vector<TensorType> infer_max_unpool(const InferContext& ctx) {
  const TensorType& x = ctx.inputs[0];
  const TensorType& i = ctx.inputs[1];
  if (x.shape && i.shape && known_dims(*x.shape) != known_dims(*i.shape))
    throw ShapeError(
        cat("MaxUnpool: indices ", to_string(*i.shape), " differ from X ", to_string(*x.shape)));
  if (x.shape) check_spatial_rank("MaxUnpool", *x.shape);
  const bool given = ctx.inputs.size() > 2 && ctx.inputs[2].dtype != DType::kUndefined;
  if (given) {
    const auto shape = to_int64s(need_value(ctx, 2));
    if (x.shape && shape.size() != x.shape->size())
      throw ShapeError(
          cat("MaxUnpool: output_shape has ", shape.size(), " dims, X ", to_string(*x.shape)));
    for (int64_t d : shape)
      if (d < 0) throw ShapeError("MaxUnpool: negative output_shape");
    return {TensorType{x.dtype, sym_dims(shape)}};
  }
  if (!x.shape) return {x};
  return {TensorType{x.dtype, sym_dims(unpool_default_dims(ctx.attrs, known_dims(*x.shape)))}};
}

// Output positions of the indices: I indexes the unpooled tensor of the default shape (what
// MaxPool saw); with another output_shape each index is unravelled in the default shape and
// ravelled in the output shape.
std::vector<int64_t> unpool_targets(const Attrs& a, std::span<const Tensor> in, const Shape& ys) {
  const Shape dflt = unpool_default_dims(a, in[0].shape());
  const int64_t* idx = in[1].data_as<int64_t>();
  const int64_t n = in[1].numel(), total = numel(dflt);
  std::vector<int64_t> t(static_cast<size_t>(n));
  std::vector<int64_t> pos(dflt.size() + 1);
  const Shape ystr = contiguous_strides(ys);
  for (int64_t i = 0; i < n; ++i) {
    bool ok = idx[i] >= 0 && idx[i] < total;
    if (ok && dflt != ys) {
      unravel(idx[i], dflt, pos.data());
      for (size_t d = 0; d < ys.size(); ++d) ok = ok && pos[d] < ys[d];
      t[static_cast<size_t>(i)] = ok ? ravel(pos.data(), ystr, ys.size()) : -1;
    } else {
      t[static_cast<size_t>(i)] = idx[i];
    }
    if (!ok)
      throw ShapeError(cat("MaxUnpool: index ", idx[i], " at ", i, " is outside the unpooled ",
                           to_string(dflt), " or the output ", to_string(ys)));
  }
  return t;
}

void max_unpool_kernel(const LaunchContext& ctx, std::span<const Tensor> in,
                       std::span<Tensor> out) {
  const std::vector<int64_t> target = unpool_targets(ctx.attr(), in, out[0].shape());
  const size_t es = dtype_size(in[0].dtype());
  const auto* x = static_cast<const char*>(in[0].data());
  char* y = static_cast<char*>(out[0].data());
  std::memset(y, 0, out[0].nbytes());
  for (size_t i = 0; i < target.size(); ++i) std::memcpy(y + target[i] * es, x + i * es, es);
}

void max_unpool_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Shape dflt = unpool_default_dims(a, in[0].shape());
  const Shape& ys = out[0].shape();
  for (int64_t i = 0; i < out[0].numel(); ++i) out[0].set(i, 0.0);
  for (int64_t i = 0; i < in[0].numel(); ++i) {
    int64_t rest = static_cast<int64_t>(in[1].at(i)), flat = 0, stride = 1;
    for (size_t d = ys.size(); d-- > 0;) {  // last dim first
      flat += (rest % dflt[d]) * stride;
      rest /= dflt[d];
      stride *= ys[d];
    }
    out[0].set(flat, in[0].at(i));
  }
}

}  // namespace

void register_nn_pool(Registry& r) {
  for (const PoolVersion& pv : kPools) register_pool(r, pv);
  register_global(r, "GlobalAveragePool", PoolKind::kAvg, 1, INT_MAX);
  register_global(r, "GlobalMaxPool", PoolKind::kMax, 1, INT_MAX);
  register_global(r, "GlobalLpPool", PoolKind::kLp, 1, 1);
  register_global(r, "GlobalLpPool", PoolKind::kLp, 2, INT_MAX);
  for (auto [since, until] : {std::pair{9, 10}, std::pair{11, INT_MAX}}) {
    r.add(def_op("MaxUnpool", since, until)
              .input("X", "T1")
              .input("I", "T2")
              .input("output_shape", "T2", Arity::kOptional, /*value_needed=*/true)
              .output("output", "T1")
              .attr("kernel_shape", AttrKind::kInts)
              .attr("pads", AttrKind::kInts, std::vector<int64_t>{})
              .attr("strides", AttrKind::kInts, std::vector<int64_t>{})
              .type_constraint("T1", nn_float_types())
              .type_constraint("T2", {DType::kI64})
              .trait(kMovement)
              .describe("scatters pooled values back to their MaxPool indices, zeros elsewhere")
              .infer(infer_max_unpool)
              .host_kernel(max_unpool_kernel)
              .reference(max_unpool_reference));
  }
}

}  // namespace asc
