// MaxPool, AveragePool and LpPool over 1 to 3 spatial dims as host kernels, the (n, c) planes
// split over the device's workers.
//
// X [N, C, in...] -> Y [N, C, out...] (window geometry in nn.h). Per output position the window's
// taps are start + k * d with start = o * s - pb; taps outside X are skipped (max, Lp: padding
// never wins / adds 0; average: not counted unless count_include_pad, which counts the taps inside
// the padded extent [-pb, in + pe)). MaxPool's optional Indices output holds the flat index of the
// max in X: row-major ((n * C + c) * D + id) * H ... by default, and within the (n, c) plane
// column-major (id + ih * D + iw * D * H) with storage_order = 1. Ties keep the first tap.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/nn.h"
#include "ops/nn_pool.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

// Taps k in [lo, hi) with 0 <= start + k * d < n.
void tap_range(int64_t start, int64_t d, int64_t k, int64_t n, int64_t& lo, int64_t& hi) {
  lo = start >= 0 ? 0 : (-start + d - 1) / d;
  hi = n - 1 - start < 0 ? 0 : std::min(k, (n - 1 - start) / d + 1);
  lo = std::min(lo, hi);
}

// One kernel per (compute type, pool kind): the kind is a template argument so the tap loop has
// no per-element branch on it.
template <class C, PoolKind K>
void pool_run(const PoolVersion& v, const LaunchContext& ctx, const Window& w, const Tensor& xt,
              std::span<Tensor> out) {
  const Attrs& a = ctx.attr();
  const Geom3 g = geom3(w);
  std::vector<C> xb;
  const C* x = read_as(xt, xb, C{});
  OutBuf<C> yb(out[0]);
  C* y = yb.data();
  int64_t* idx = out.size() > 1 && out[1].defined() ? out[1].data_as<int64_t>() : nullptr;
  const bool col_major = K == PoolKind::kMax && v.since >= 8 && a.i("storage_order") != 0;
  const bool include_pad = K == PoolKind::kAvg && v.since >= 7 && a.i("count_include_pad");
  const double p = K == PoolKind::kLp ? (v.since == 1 ? a.f("p") : double(a.i("p"))) : 1.0;
  const int64_t planes = xt.shape()[0] * xt.shape()[1];
  const int64_t p_in = g.in_size(), p_out = g.out_size();
  ctx.parallel(planes, [&](int64_t pl0, int64_t pl1) {  // (n, c) planes over the workers
    for (int64_t pl = pl0; pl < pl1; ++pl) {
      const C* xp = x + pl * p_in;
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh)
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const int64_t o[3] = {od, oh, ow};
            int64_t st[3], lo[3], hi[3];
            int64_t count = 1;
            for (int i = 0; i < 3; ++i) {
              st[i] = o[i] * g.s[i] - g.pb[i];
              tap_range(st[i], g.d[i], g.k[i], g.in[i], lo[i], hi[i]);
              if (include_pad) {
                int64_t plo, phi;  // taps inside the padded extent
                tap_range(st[i] + g.pb[i], g.d[i], g.k[i], g.in[i] + g.pb[i] + g.pe[i], plo, phi);
                count *= phi - plo;
              } else {
                count *= hi[i] - lo[i];
              }
            }
            double acc = K == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
            int64_t best = -1;
            for (int64_t kd = lo[0]; kd < hi[0]; ++kd)
              for (int64_t kh = lo[1]; kh < hi[1]; ++kh) {
                const int64_t id = st[0] + kd * g.d[0], ih = st[1] + kh * g.d[1];
                const C* row = xp + (id * g.in[1] + ih) * g.in[2];
                for (int64_t kw = lo[2]; kw < hi[2]; ++kw) {
                  const int64_t iw = st[2] + kw * g.d[2];
                  const double val = row[iw];
                  if constexpr (K == PoolKind::kMax) {
                    if (val > acc || best < 0) {
                      acc = val;
                      best = col_major ? id + ih * g.in[0] + iw * g.in[0] * g.in[1]
                                       : (id * g.in[1] + ih) * g.in[2] + iw;
                    }
                  } else if constexpr (K == PoolKind::kAvg) {
                    acc += val;
                  } else {
                    acc += std::pow(std::fabs(val), p);
                  }
                }
              }
            const int64_t oi = pl * p_out + (od * g.out[1] + oh) * g.out[2] + ow;
            if (K == PoolKind::kMax && best < 0) acc = 0.0;  // a window of padding only
            if (K == PoolKind::kAvg) acc = count > 0 ? acc / double(count) : 0.0;
            if (K == PoolKind::kLp) acc = std::pow(acc, 1.0 / p);
            y[oi] = static_cast<C>(acc);
            if (idx) idx[oi] = best < 0 ? -1 : pl * p_in + best;
          }
    }
  });
  yb.commit();
}

}  // namespace

Window pool_window(const PoolVersion& v, const Attrs& a, const std::vector<int64_t>& x) {
  const bool ceil_mode = a.has("ceil_mode") && a.i("ceil_mode") != 0;  // declared from 10 / 18
  return resolve_window(v.type, a, {x.begin() + 2, x.end()}, a.ints("kernel_shape"), ceil_mode);
}

std::vector<TensorType> infer_pool(const PoolVersion& v, const InferContext& ctx) {
  const TensorType& x = ctx.inputs[0];
  std::vector<TensorType> out(v.kind == PoolKind::kMax && v.since >= 8 ? 2 : 1);
  out[0].dtype = x.dtype;
  if (out.size() > 1) out[1].dtype = DType::kI64;
  if (!x.shape) return out;
  check_spatial_rank(v.type, *x.shape);
  const auto xd = known_dims(*x.shape);
  const Window w = pool_window(v, ctx.attrs, xd);
  std::vector<int64_t> dims = {xd[0], xd[1]};
  dims.insert(dims.end(), w.out.begin(), w.out.end());
  SymShape y = sym_dims(dims);
  y[0] = (*x.shape)[0], y[1] = (*x.shape)[1];  // keeps symbolic batch / channels
  for (auto& t : out) t.shape = y;
  return out;
}

void pool_kernel(const PoolVersion& v, const LaunchContext& ctx, std::span<const Tensor> in,
                 std::span<Tensor> out) {
  const Window w = pool_window(v, ctx.attr(), in[0].shape());
  with_compute(in[0].dtype(), [&](auto tag) {
    using C = decltype(tag);
    switch (v.kind) {
      case PoolKind::kMax:
        return pool_run<C, PoolKind::kMax>(v, ctx, w, in[0], out);
      case PoolKind::kAvg:
        return pool_run<C, PoolKind::kAvg>(v, ctx, w, in[0], out);
      case PoolKind::kLp:
        return pool_run<C, PoolKind::kLp>(v, ctx, w, in[0], out);
    }
  });
}

}  // namespace asc
