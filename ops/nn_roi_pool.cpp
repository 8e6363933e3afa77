// MaxRoiPool (1+) as a host kernel: X [N, C, H, W], rois [R, 5] (batch, x1, y1, x2, y2) ->
// Y [R, C, ph, pw]. The roi's corners scale by spatial_scale and round to pixels; the roi
// (at least 1x1, corners inclusive) splits into ph x pw bins, bin i covering rows
// [floor(i * h / ph), ceil((i + 1) * h / ph)) from the roi's start, clamped to X; each output is
// its bin's max, 0 for an empty bin.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/nn.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

std::vector<TensorType> infer_max_roi_pool(const InferContext& ctx) {
  const TensorType &x = ctx.inputs[0], &rois = ctx.inputs[1];
  const auto& pooled = ctx.attrs.ints("pooled_shape");
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1)
    throw ShapeError("MaxRoiPool: pooled_shape must be two positive dims");
  if (!x.shape || !rois.shape) return {TensorType{x.dtype, std::nullopt}};
  const auto xd = known_dims(*x.shape), rd = known_dims(*rois.shape);
  if (xd.size() != 4 || rd.size() != 2 || (rd[1] >= 0 && rd[1] != 5))
    throw ShapeError(cat("MaxRoiPool: X ", to_string(*x.shape), " and rois ",
                         to_string(*rois.shape), " are not [N, C, H, W] and [R, 5]"));
  SymShape y = sym_dims({rd[0], xd[1], pooled[0], pooled[1]});
  y[1] = (*x.shape)[1];
  return {TensorType{x.dtype, y}};
}

// Bin [lo, hi) of bin i of `bins` over a roi of `len` pixels starting at `start`, clamped to
// [0, n).
void roi_bin(int64_t i, int64_t bins, int64_t len, int64_t start, int64_t n, int64_t& lo,
             int64_t& hi) {
  const double size = double(len) / double(bins);
  lo = std::clamp<int64_t>(static_cast<int64_t>(std::floor(double(i) * size)) + start, 0, n);
  hi = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(double(i + 1) * size)) + start, 0, n);
}

// The roi's batch index and its start / extent in pixels: {b, y0, x0, h, w}.
struct RoiBox {
  int64_t b, y0, x0, h, w;
};

RoiBox roi_box(const double* r, double scale, int64_t n) {
  const int64_t b = static_cast<int64_t>(r[0]);
  if (b < 0 || b >= n)
    throw ShapeError(cat("MaxRoiPool: roi batch index ", b, " is outside [0, ", n, ")"));
  const auto x0 = static_cast<int64_t>(std::round(r[1] * scale));
  const auto y0 = static_cast<int64_t>(std::round(r[2] * scale));
  const auto x1 = static_cast<int64_t>(std::round(r[3] * scale));
  const auto y1 = static_cast<int64_t>(std::round(r[4] * scale));
  return {b, y0, x0, std::max<int64_t>(y1 - y0 + 1, 1), std::max<int64_t>(x1 - x0 + 1, 1)};
}

template <class C>
void max_roi_pool_run(const Attrs& a, std::span<const Tensor> in, Tensor& yt) {
  std::vector<C> xb, rb;
  const C* x = read_as(in[0], xb, C{});
  const C* rois = read_as(in[1], rb, C{});
  OutBuf<C> yb(yt);
  C* y = yb.data();
  const Shape& xs = in[0].shape();
  const int64_t c_n = xs[1], h = xs[2], w = xs[3];
  const int64_t ph_n = a.ints("pooled_shape")[0], pw_n = a.ints("pooled_shape")[1];
  const double scale = a.f("spatial_scale");
  for (int64_t r = 0; r < in[1].shape()[0]; ++r) {
    const double rv[5] = {double(rois[r * 5]), double(rois[r * 5 + 1]), double(rois[r * 5 + 2]),
                          double(rois[r * 5 + 3]), double(rois[r * 5 + 4])};
    const RoiBox box = roi_box(rv, scale, xs[0]);
    for (int64_t c = 0; c < c_n; ++c) {
      const C* plane = x + (box.b * c_n + c) * h * w;
      C* dst = y + (r * c_n + c) * ph_n * pw_n;
      for (int64_t ph = 0; ph < ph_n; ++ph) {
        int64_t h0, h1;
        roi_bin(ph, ph_n, box.h, box.y0, h, h0, h1);
        for (int64_t pw = 0; pw < pw_n; ++pw) {
          int64_t w0, w1;
          roi_bin(pw, pw_n, box.w, box.x0, w, w0, w1);
          C m = std::numeric_limits<C>::lowest();
          for (int64_t i = h0; i < h1; ++i)
            for (int64_t j = w0; j < w1; ++j) m = std::max(m, plane[i * w + j]);
          dst[ph * pw_n + pw] = h1 <= h0 || w1 <= w0 ? C(0) : m;
        }
      }
    }
  }
  yb.commit();
}

// Naive reference: every output element scans the whole plane for its bin's pixels.
void max_roi_pool_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Shape& xs = in[0].shape();
  const double scale = a.f("spatial_scale");
  int64_t oi[4];
  for (int64_t o = 0; o < out[0].numel(); ++o) {
    unravel(o, out[0].shape(), oi);
    double rv[5];
    for (int k = 0; k < 5; ++k) rv[k] = in[1].at(oi[0] * 5 + k);
    const RoiBox box = roi_box(rv, scale, xs[0]);
    const double bh = double(box.h) / double(out[0].shape()[2]);
    const double bw = double(box.w) / double(out[0].shape()[3]);
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < xs[2]; ++i)
      for (int64_t j = 0; j < xs[3]; ++j) {
        const bool in_h = double(i - box.y0) >= std::floor(double(oi[2]) * bh) &&
                          double(i - box.y0) < std::ceil(double(oi[2] + 1) * bh);
        const bool in_w = double(j - box.x0) >= std::floor(double(oi[3]) * bw) &&
                          double(j - box.x0) < std::ceil(double(oi[3] + 1) * bw);
        if (in_h && in_w)
          m = std::max(m, in[0].at(((box.b * xs[1] + oi[1]) * xs[2] + i) * xs[3] + j));
      }
    out[0].set(o, std::isinf(m) ? 0.0 : m);
  }
}

}  // namespace

void register_nn_roi_pool(Registry& r) {
  for (auto [since, until] : {std::pair{1, 21}, std::pair{22, INT_MAX}}) {  // 22: bf16 too
    r.add(def_op("MaxRoiPool", since, until)
              .input("X", "T")
              .input("rois", "T")
              .output("Y", "T")
              .attr("pooled_shape", AttrKind::kInts)
              .attr("spatial_scale", AttrKind::kFloat, 1.0f)
              .type_constraint("T", since >= 22 ? nn_float_types_22() : nn_float_types())
              .describe("max pooling of regions of interest into pooled_shape bins")
              .infer(infer_max_roi_pool)
              .host_kernel(
                  [](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
                    with_compute(in[0].dtype(), [&](auto tag) {
                      max_roi_pool_run<decltype(tag)>(ctx.attr(), in, out[0]);
                    });
                  })
              .reference(max_roi_pool_reference));
  }
}

}  // namespace asc
