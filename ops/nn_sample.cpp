// GridSample (16-19, 20+; 2-D) and RoiAlign (10-15, 16+) as host kernels.
//
// GridSample: X [N, C, H, W], grid [N, Ho, Wo, 2] holding (x, y) in [-1, 1] -> Y [N, C, Ho, Wo].
//   x_pix = (x + 1) / 2 * (W - 1) with align_corners, else ((x + 1) * W - 1) / 2. Bilinear and
//   nearest (round half to even) first apply padding_mode to the coordinate (border: clamp to
//   [0, W - 1]; reflection: reflect about the borders, [0, W - 1] with align_corners, else
//   [-0.5, W - 0.5], then clamp); taps outside X read 0. Bicubic (A = -0.75) instead applies
//   padding_mode to each of its 4x4 tap indices. (PyTorch's grid_sampler semantics.)
// RoiAlign: X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R] -> Y [R, C, oh, ow].
//   Each bin averages (or maxes) sampling_ratio^2 bilinear samples (adaptive ceil(roi / bins)
//   when sampling_ratio is 0) at the centres of a regular sub-grid; half_pixel shifts the scaled
//   roi by -0.5 (16+ default; opset 10 is output_half_pixel, which instead keeps rois >= 1).
//   max mode takes the largest weighted corner of each sample, as ONNX Runtime does.
#include <algorithm>
#include <cmath>

#include "ops/nn.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

// ---- GridSample -------------------------------------------------------------------------------

double reflect(double x, double lo2, double hi2) {  // reflect into [lo2 / 2, hi2 / 2]
  if (lo2 == hi2) return 0;
  const double lo = lo2 / 2, span = (hi2 - lo2) / 2;
  x = std::fabs(x - lo);
  const double extra = std::fmod(x, span);
  const int64_t flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

struct Sampler {
  int64_t h, w;
  bool align;
  int pad;  // 0 zeros, 1 border, 2 reflection

  double unnormalize(double g, int64_t n) const {
    return align ? (g + 1) / 2 * double(n - 1) : ((g + 1) * double(n) - 1) / 2;
  }
  double pad_coord(double x, int64_t n) const {
    if (pad == 1) return std::clamp(x, 0.0, double(n - 1));
    if (pad == 2) {
      x = align ? reflect(x, 0, 2.0 * double(n - 1)) : reflect(x, -1, 2.0 * double(n) - 1);
      return std::clamp(x, 0.0, double(n - 1));
    }
    return x;
  }
  // Plane value at integer (iy, ix); 0 outside.
  template <class C>
  double at(const C* p, int64_t iy, int64_t ix) const {
    return iy >= 0 && iy < h && ix >= 0 && ix < w ? double(p[iy * w + ix]) : 0.0;
  }
};

int grid_pad(const Attrs& a) {
  const std::string& p = a.s("padding_mode");
  if (p == "zeros") return 0;
  if (p == "border") return 1;
  if (p == "reflection") return 2;
  throw ShapeError(cat("GridSample: unknown padding_mode '", p, "'"));
}

// The sampling mode as opset 16 names it (20 renamed bilinear / bicubic to linear / cubic).
std::string grid_mode(const Attrs& a) {
  const std::string& m = a.s("mode");
  if (m == "bilinear" || m == "linear") return "bilinear";
  if (m == "bicubic" || m == "cubic") return "bicubic";
  if (m == "nearest") return m;
  throw ShapeError(cat("GridSample: unknown mode '", m, "'"));
}

std::vector<TensorType> infer_grid_sample(const InferContext& ctx) {
  const TensorType &x = ctx.inputs[0], &g = ctx.inputs[1];
  grid_pad(ctx.attrs);
  grid_mode(ctx.attrs);
  if (!x.shape || !g.shape) return {TensorType{x.dtype, std::nullopt}};
  if (x.shape->size() != 4 || g.shape->size() != 4)
    throw ShapeError(cat("GridSample: X ", to_string(*x.shape), " and grid ", to_string(*g.shape),
                         " must be [N, C, H, W] and [N, Ho, Wo, 2]"));
  const auto xd = known_dims(*x.shape), gd = known_dims(*g.shape);
  if ((gd[3] >= 0 && gd[3] != 2) || (xd[0] >= 0 && gd[0] >= 0 && xd[0] != gd[0]))
    throw ShapeError(cat("GridSample: grid ", to_string(*g.shape), " is not [N, Ho, Wo, 2] for X ",
                         to_string(*x.shape)));
  if (xd[2] == 0 || xd[3] == 0)
    throw ShapeError(cat("GridSample: X ", to_string(*x.shape), " has an empty plane"));
  return {TensorType{x.dtype, sym_dims({xd[0], xd[1], gd[1], gd[2]})}};
}

// One output value of plane p at grid point (gx, gy); shared by kernel (C = float/double data) and
// reference (C = double).
template <class C>
double grid_sample_at(const Sampler& s, const std::string& mode, const C* p, double gx, double gy) {
  double x = s.unnormalize(gx, s.w), y = s.unnormalize(gy, s.h);
  if (mode == "bicubic") {
    const double fx = std::floor(x), fy = std::floor(y), tx = x - fx, ty = y - fy;
    auto weights = [](double t, double* w) {
      const double a = -0.75;
      auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
      auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
      w[0] = far(t + 1), w[1] = near(t), w[2] = near(1 - t), w[3] = far(2 - t);
    };
    double wx[4], wy[4];
    weights(tx, wx);
    weights(ty, wy);
    double acc = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const double iy = s.pad_coord(fy - 1 + i, s.h), ix = s.pad_coord(fx - 1 + j, s.w);
        acc += wy[i] * wx[j] * s.at(p, static_cast<int64_t>(iy), static_cast<int64_t>(ix));
      }
    return acc;
  }
  x = s.pad_coord(x, s.w);
  y = s.pad_coord(y, s.h);
  if (mode == "nearest")
    return s.at(p, static_cast<int64_t>(std::nearbyint(y)),
                static_cast<int64_t>(std::nearbyint(x)));
  const double fx = std::floor(x), fy = std::floor(y), tx = x - fx, ty = y - fy;
  const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
  return (1 - ty) * ((1 - tx) * s.at(p, y0, x0) + tx * s.at(p, y0, x0 + 1)) +
         ty * ((1 - tx) * s.at(p, y0 + 1, x0) + tx * s.at(p, y0 + 1, x0 + 1));
}

template <class C>
void grid_sample_run(const Attrs& a, const Tensor& xt, const Tensor& gt, Tensor& yt) {
  std::vector<C> xb, gb;
  const C* x = read_as(xt, xb, C{});
  const C* g = read_as(gt, gb, C{});
  OutBuf<C> yb(yt);
  const Shape& xs = xt.shape();
  const int64_t n = xs[0], c = xs[1], ho = gt.shape()[1], wo = gt.shape()[2];
  const Sampler s{xs[2], xs[3], a.i("align_corners") != 0, grid_pad(a)};
  const std::string mode = grid_mode(a);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const C* p = x + (b * c + ch) * s.h * s.w;
      C* dst = yb.data() + (b * c + ch) * ho * wo;
      const C* gp = g + b * ho * wo * 2;
      for (int64_t i = 0; i < ho * wo; ++i)
        dst[i] = static_cast<C>(grid_sample_at(s, mode, p, gp[2 * i], gp[2 * i + 1]));
    }
  yb.commit();
}

void grid_sample_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const Tensor &x = in[0], &g = in[1];
  const Shape& xs = x.shape();
  const Sampler s{xs[2], xs[3], a.i("align_corners") != 0, grid_pad(a)};
  std::vector<double> plane(static_cast<size_t>(xs[2] * xs[3]));
  int64_t oi[4];
  for (int64_t o = 0; o < out[0].numel(); ++o) {
    unravel(o, out[0].shape(), oi);
    for (int64_t i = 0; i < xs[2] * xs[3]; ++i)
      plane[static_cast<size_t>(i)] = x.at((oi[0] * xs[1] + oi[1]) * xs[2] * xs[3] + i);
    const int64_t gi = ((oi[0] * g.shape()[1] + oi[2]) * g.shape()[2] + oi[3]) * 2;
    out[0].set(o, grid_sample_at(s, grid_mode(a), plane.data(), g.at(gi), g.at(gi + 1)));
  }
}

// ---- RoiAlign ---------------------------------------------------------------------------------

std::vector<TensorType> infer_roi_align(const InferContext& ctx) {
  const TensorType &x = ctx.inputs[0], &rois = ctx.inputs[1], &bi = ctx.inputs[2];
  const std::string& m = ctx.attrs.s("mode");
  if (m != "avg" && m != "max") throw ShapeError(cat("RoiAlign: unknown mode '", m, "'"));
  const int64_t oh = ctx.attrs.i("output_height"), ow = ctx.attrs.i("output_width");
  if (oh < 1 || ow < 1)
    throw ShapeError(
        cat("RoiAlign: output_height ", oh, " and output_width ", ow, " must be >= 1"));
  if (!x.shape || !rois.shape) return {TensorType{x.dtype, std::nullopt}};
  if (x.shape->size() != 4 || rois.shape->size() != 2 || (bi.shape && bi.shape->size() != 1))
    throw ShapeError(cat("RoiAlign: X ", to_string(*x.shape), ", rois ", to_string(*rois.shape),
                         " are not [N, C, H, W], [R, 4]"));
  const auto xd = known_dims(*x.shape), rd = known_dims(*rois.shape);
  if (xd[2] == 0 || xd[3] == 0)
    throw ShapeError(cat("RoiAlign: X ", to_string(*x.shape), " has an empty plane"));
  if (rd[1] >= 0 && rd[1] != 4)
    throw ShapeError(cat("RoiAlign: rois ", to_string(*rois.shape), " is not [R, 4]"));
  if (bi.shape && (*bi.shape)[0].known() && rd[0] >= 0 && (*bi.shape)[0].value() != rd[0])
    throw ShapeError(cat("RoiAlign: batch_indices ", to_string(*bi.shape),
                         " does not hold one index for each of the ", rd[0], " rois"));
  return {TensorType{x.dtype, sym_dims({rd[0], xd[1], oh, ow})}};
}

// One (roi, channel) plane of the output: out[ph * ow + pw]. Shared by kernel and reference
// through the plane accessor `at(y, x)`.
template <class At>
void roi_align_plane(const Attrs& a, bool half_pixel, const double* roi, int64_t h, int64_t w,
                     At at, double* out) {
  const double scale = a.f("spatial_scale"), off = half_pixel ? 0.5 : 0.0;
  const int64_t oh = a.i("output_height"), ow = a.i("output_width"), sr = a.i("sampling_ratio");
  const bool is_max = a.s("mode") == "max";
  const double x0 = roi[0] * scale - off, y0 = roi[1] * scale - off;
  double rw = roi[2] * scale - off - x0, rh = roi[3] * scale - off - y0;
  if (!half_pixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
  const double bh = rh / double(oh), bw = rw / double(ow);
  const int64_t gh = sr > 0 ? sr : static_cast<int64_t>(std::ceil(rh / double(oh)));
  const int64_t gw = sr > 0 ? sr : static_cast<int64_t>(std::ceil(rw / double(ow)));
  const double count = double(std::max<int64_t>(gh * gw, 1));
  for (int64_t ph = 0; ph < oh; ++ph)
    for (int64_t pw = 0; pw < ow; ++pw) {
      double acc = 0;
      bool first = true;
      for (int64_t iy = 0; iy < gh; ++iy)
        for (int64_t ix = 0; ix < gw; ++ix) {
          double y = y0 + double(ph) * bh + (double(iy) + 0.5) * bh / double(gh);
          double x = x0 + double(pw) * bw + (double(ix) + 0.5) * bw / double(gw);
          double v = 0;
          if (!(y < -1.0 || y > double(h) || x < -1.0 || x > double(w))) {
            y = std::max(y, 0.0), x = std::max(x, 0.0);
            int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x), yh, xh;
            if (yl >= h - 1)
              yh = yl = h - 1, y = double(yl);
            else
              yh = yl + 1;
            if (xl >= w - 1)
              xh = xl = w - 1, x = double(xl);
            else
              xh = xl + 1;
            const double ly = y - double(yl), lx = x - double(xl), hy = 1 - ly, hx = 1 - lx;
            const double c1 = hy * hx * at(yl, xl), c2 = hy * lx * at(yl, xh);
            const double c3 = ly * hx * at(yh, xl), c4 = ly * lx * at(yh, xh);
            v = is_max ? std::max(std::max(c1, c2), std::max(c3, c4)) : c1 + c2 + c3 + c4;
          }
          acc = is_max ? (first ? v : std::max(acc, v)) : acc + v;
          first = false;
        }
      out[ph * ow + pw] = is_max ? acc : acc / count;
    }
}

void check_batch_index(int64_t b, int64_t n, int64_t r) {
  if (b < 0 || b >= n)
    throw ShapeError(cat("RoiAlign: batch_indices[", r, "] = ", b, " is outside [0, ", n, ")"));
}

template <class C>
void roi_align_run(const Attrs& a, bool half_pixel, std::span<const Tensor> in, Tensor& yt) {
  std::vector<C> xb, rb;
  const C* x = read_as(in[0], xb, C{});
  const C* rois = read_as(in[1], rb, C{});
  const Shape& xs = in[0].shape();
  const int64_t n_rois = in[1].shape()[0], c = xs[1], h = xs[2], w = xs[3];
  const int64_t plane = yt.numel() / std::max<int64_t>(1, n_rois * c);
  std::vector<double> out(static_cast<size_t>(plane)), y(static_cast<size_t>(yt.numel()));
  for (int64_t r = 0; r < n_rois; ++r) {
    const int64_t b = static_cast<int64_t>(in[2].at(r));
    check_batch_index(b, xs[0], r);
    const double roi[4] = {rois[r * 4], rois[r * 4 + 1], rois[r * 4 + 2], rois[r * 4 + 3]};
    for (int64_t ch = 0; ch < c; ++ch) {
      const C* p = x + (b * c + ch) * h * w;
      roi_align_plane(
          a, half_pixel, roi, h, w,
          [p, w](int64_t yy, int64_t xx) { return double(p[yy * w + xx]); },
          y.data() + (r * c + ch) * plane);
    }
  }
  std::vector<C> yc(y.begin(), y.end());
  write_as(yt, yc.data());
}

void roi_align_reference(bool half_pixel, const Attrs& a, std::span<const Tensor> in,
                         std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Shape& xs = x.shape();
  const int64_t n_rois = in[1].shape()[0], c = xs[1], h = xs[2], w = xs[3];
  const int64_t plane = a.i("output_height") * a.i("output_width");
  std::vector<double> buf(static_cast<size_t>(plane));
  for (int64_t r = 0; r < n_rois; ++r) {
    const int64_t b = static_cast<int64_t>(in[2].at(r));
    check_batch_index(b, xs[0], r);
    const double roi[4] = {in[1].at(r * 4), in[1].at(r * 4 + 1), in[1].at(r * 4 + 2),
                           in[1].at(r * 4 + 3)};
    for (int64_t ch = 0; ch < c; ++ch) {
      const int64_t base = (b * c + ch) * h * w;
      roi_align_plane(
          a, half_pixel, roi, h, w,
          [&](int64_t yy, int64_t xx) { return x.at(base + yy * w + xx); }, buf.data());
      for (int64_t i = 0; i < plane; ++i) out[0].set((r * c + ch) * plane + i, buf[i]);
    }
  }
}

bool roi_half_pixel(int since, const Attrs& a) {
  if (since < 16) return false;
  const std::string& m = a.s("coordinate_transformation_mode");
  if (m != "half_pixel" && m != "output_half_pixel")
    throw ShapeError(cat("RoiAlign: unknown coordinate_transformation_mode '", m, "'"));
  return m == "half_pixel";
}

}  // namespace

void register_nn_sample(Registry& r) {
  // 16-19: 2-D with modes bilinear / nearest / bicubic; 20+: N-D (asc: 2-D only) and the modes
  // renamed linear / nearest / cubic; 22: bf16 too.
  for (auto [since, until] : {std::pair{16, 19}, std::pair{20, 21}, std::pair{22, INT_MAX}}) {
    r.add(def_op("GridSample", since, until)
              .input("X", "T1")
              .input("grid", "T2")
              .output("Y", "T1")
              .attr("align_corners", AttrKind::kInt, int64_t{0})
              .attr("mode", AttrKind::kString, std::string(since >= 20 ? "linear" : "bilinear"))
              .attr("padding_mode", AttrKind::kString, std::string("zeros"))
              .type_constraint("T1", since >= 22 ? nn_float_types_22() : nn_float_types())
              .type_constraint("T2", since >= 22 ? nn_float_types_22() : nn_float_types())
              .describe("samples X at grid's normalised (x, y): bilinear / nearest / bicubic")
              .infer(infer_grid_sample)
              .host_kernel(
                  [](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
                    with_compute(in[0].dtype(), [&](auto tag) {
                      grid_sample_run<decltype(tag)>(ctx.attr(), in[0], in[1], out[0]);
                    });
                  })
              .reference(grid_sample_reference));
  }
  for (auto [since, until] : {std::pair{10, 15}, std::pair{16, 21}, std::pair{22, INT_MAX}}) {
    OpDef def = def_op("RoiAlign", since, until);
    def.input("X", "T1")
        .input("rois", "T1")
        .input("batch_indices", "T2")
        .output("Y", "T1")
        .attr("mode", AttrKind::kString, std::string("avg"))
        .attr("output_height", AttrKind::kInt, int64_t{1})
        .attr("output_width", AttrKind::kInt, int64_t{1})
        .attr("sampling_ratio", AttrKind::kInt, int64_t{0})
        .attr("spatial_scale", AttrKind::kFloat, 1.0f);
    if (since >= 16)
      def.attr("coordinate_transformation_mode", AttrKind::kString, std::string("half_pixel"));
    const int s = since;
    def.type_constraint("T1", since >= 22 ? nn_float_types_22() : nn_float_types())
        .type_constraint("T2", {DType::kI64})
        .describe("bilinear average / max pooling of regions of interest")
        .infer(infer_roi_align)
        .host_kernel([s](const LaunchContext& ctx, std::span<const Tensor> in,
                         std::span<Tensor> out) {
          const bool hp = roi_half_pixel(s, ctx.attr());
          with_compute(in[0].dtype(),
                       [&](auto tag) { roi_align_run<decltype(tag)>(ctx.attr(), hp, in, out[0]); });
        })
        .reference([s](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          roi_align_reference(roi_half_pixel(s, a), a, in, out);
        });
    r.add(std::move(def));
  }
}

}  // namespace asc
