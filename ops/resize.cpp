// Resize (10, 11-12, 13-17, 18, 19+) and Upsample (1-6 height_scale / width_scale attributes on
// NCHW data, mode nearest or bilinear; 7-8 scales attribute; 9, 10 scales input) as host kernels.
//
// Every mode is a tensor product of 1-D interpolations, so the kernel resizes one dim at a time:
// out[o, j, i] = sum_t w_t(j) * in[o, idx_t(j), i] over the taps of output coordinate j (nearest:
// 1 tap, linear: 2, cubic: 4), with o the dims before and i the dims after the resized one.
// Output coordinate j maps to input coordinate x by coordinate_transformation_mode (scale = out /
// in when sizes are given; the resized length in the align_corners, pytorch_half_pixel and
// tf_crop_and_resize maps is in * scale, unfloored); a tf_crop_and_resize coordinate outside
// [0, in - 1] yields extrapolation_value. Resize-10 and Upsample are asymmetric with ONNX Runtime's
// "simple" nearest (floor when upsampling, ceil when downsampling). Resize-18 adds axes (scales /
// sizes / roi for those dims only), keep_aspect_ratio_policy (one scale for every axis, out =
// round(scale * in)) and antialias (see resize_taps); 19 adds half_pixel_symmetric. Scales /
// sizes / roi are value_needed inputs.
#include <algorithm>
#include <cmath>

#include "ops/nn.h"
#include "ops/resize.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

// Resize-18 inputs given for `axes` only, expanded to every dim (`fill` for the others).
template <class T>
std::vector<T> expand_axes(const std::vector<T>& given, const std::vector<int64_t>& axes,
                           std::vector<T> fill) {
  for (size_t i = 0; i < axes.size() && i < given.size(); ++i)
    fill[static_cast<size_t>(axes[i])] = given[i];
  return fill;
}

std::vector<double> floats_of(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.at(i);
  return v;
}

// Input positions: Resize-10 / Upsample-9 [X, scales]; Resize-11+ [X, roi, scales, sizes];
// Upsample-7 [X] with the scales attribute. `value(k)` gives input k's value or nullptr when the
// input is absent; it throws ValueUnknownError when the value is not known yet.
}  // namespace

ResizeSpec resize_spec(const ResizeVersion& v, const Attrs& a, const Shape& x,
                       const std::function<const Tensor*(size_t)>& value) {
  const std::string op = v.type;
  ResizeSpec s;
  s.in = x;
  const size_t r = x.size();
  const bool v11 = op == "Resize" && v.since >= 11;
  const bool v1 = op == "Upsample" && v.since < 7;
  s.mode = a.s("mode");
  if (v1 && s.mode == "bilinear") s.mode = "linear";  // Upsample-1 names linear on H, W bilinear
  if ((s.mode != "nearest" && s.mode != "linear" && !(v11 && s.mode == "cubic")) ||
      (v1 && a.s("mode") == "linear"))
    throw ShapeError(cat(op, ": unknown mode '", a.s("mode"), "'",
                         v1 ? " (Upsample-1 has nearest and bilinear)" : ""));
  std::vector<int64_t> sizes;
  if (v11) {
    s.coord = a.s("coordinate_transformation_mode");
    s.nearest = a.s("nearest_mode");
    s.cubic_a = a.f("cubic_coeff_a");
    s.extrapolation = a.f("extrapolation_value");
    s.exclude_outside = a.i("exclude_outside") != 0;
    if (const Tensor* t = value(3)) sizes = to_int64s(*t);
    if (s.coord == "tf_crop_and_resize") {
      const Tensor* roi = value(1);
      if (roi) s.roi = floats_of(*roi);
      if (s.roi.size() != 2 * r)
        throw ShapeError(
            cat(op, ": tf_crop_and_resize needs roi of ", 2 * r, " values, got ", s.roi.size()));
    }
  }
  if (v1) {
    if (r != 4) throw ShapeError(cat(op, "-1: X must be 4-D [N, C, H, W], got ", to_string(x)));
    s.scale = {1.0, 1.0, a.f("height_scale"), a.f("width_scale")};
  } else if (op == "Upsample" && v.since < 9) {
    for (float f : a.floats("scales")) s.scale.push_back(f);
  } else if (sizes.empty()) {
    const Tensor* t = value(v11 ? 2 : 1);
    if (t) s.scale = floats_of(*t);
  }
  if (op == "Resize" && v.since >= 18) {  // axes, keep_aspect_ratio_policy, antialias
    s.antialias = a.i("antialias") != 0;
    std::vector<int64_t> axes = a.ints("axes");
    for (auto& ax : axes) ax = normalize_axis(ax, static_cast<int64_t>(r));
    std::vector<bool> seen(r, false);
    for (int64_t ax : axes) {
      if (seen[static_cast<size_t>(ax)]) throw ShapeError(cat(op, ": repeated axis in axes"));
      seen[static_cast<size_t>(ax)] = true;
    }
    if (axes.empty())
      for (size_t d = 0; d < r; ++d) axes.push_back(static_cast<int64_t>(d));
    const size_t na = axes.size();
    if ((!sizes.empty() && sizes.size() != na) || (sizes.empty() && s.scale.size() != na))
      throw ShapeError(cat(op, ": scales / sizes need one value per axis (", na, ")"));
    if (s.roi.size() == 2 * na && na != r) {
      std::vector<double> lo(r, 0.0), hi(r, 1.0);
      const std::vector<double> st(s.roi.begin(), s.roi.begin() + na),
          en(s.roi.begin() + na, s.roi.end());
      lo = expand_axes(st, axes, lo);
      hi = expand_axes(en, axes, hi);
      s.roi = lo;
      s.roi.insert(s.roi.end(), hi.begin(), hi.end());
    }
    const std::string& policy = a.s("keep_aspect_ratio_policy");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      throw ShapeError(cat(op, ": unknown keep_aspect_ratio_policy '", policy, "'"));
    if (!sizes.empty() && policy != "stretch") {
      double sc = policy == "not_larger" ? 1e300 : 0.0;
      for (size_t i = 0; i < na; ++i) {
        const double f = double(sizes[i]) / double(std::max<int64_t>(1, x[axes[i]]));
        sc = policy == "not_larger" ? std::min(sc, f) : std::max(sc, f);
      }
      std::vector<double> sv(na, sc);
      s.scale = expand_axes(sv, axes, std::vector<double>(r, 1.0));
      for (size_t d = 0; d < r; ++d) {
        s.out.push_back(seen[d] || a.ints("axes").empty()
                            ? static_cast<int64_t>(std::round(s.scale[d] * double(x[d])))
                            : x[d]);
        s.len.push_back(double(s.out[d]));
      }
      sizes.clear();
    } else if (!sizes.empty()) {
      sizes = expand_axes(sizes, axes, x);
    } else {
      s.scale = expand_axes(s.scale, axes, std::vector<double>(r, 1.0));
    }
  }
  if (!s.out.empty()) {
    // sizes resolved by keep_aspect_ratio_policy above
  } else if (!sizes.empty()) {
    if (sizes.size() != r)
      throw ShapeError(cat(op, ": sizes has ", sizes.size(), " values for input ", to_string(x)));
    s.out = sizes;
    for (size_t d = 0; d < r; ++d) {
      s.scale.push_back(x[d] ? double(sizes[d]) / double(x[d]) : 1.0);
      s.len.push_back(double(sizes[d]));
    }
  } else {
    if (s.scale.size() != r)
      throw ShapeError(cat(op, ": scales has ", s.scale.size(), " values for input ", to_string(x),
                           " (and no sizes)"));
    for (size_t d = 0; d < r; ++d) {
      if (!(s.scale[d] > 0)) throw ShapeError(cat(op, ": scale ", s.scale[d], " is not positive"));
      s.out.push_back(static_cast<int64_t>(std::floor(double(x[d]) * s.scale[d])));
      s.len.push_back(double(x[d]) * s.scale[d]);
    }
  }
  for (size_t d = 0; d < r; ++d)
    if (s.out[d] < 0 || (x[d] == 0 && s.out[d] != 0))
      throw ShapeError(cat(op, ": cannot resize ", to_string(x), " to ", to_string(s.out)));
  static const char* kCoords[] = {"half_pixel", "pytorch_half_pixel",   "align_corners",
                                  "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  const bool symmetric = s.coord == "half_pixel_symmetric" && v.since >= 19;
  if (!symmetric && std::find_if(std::begin(kCoords), std::end(kCoords),
                                 [&](const char* c) { return s.coord == c; }) == std::end(kCoords))
    throw ShapeError(cat(op, ": unknown coordinate_transformation_mode '", s.coord, "'"));
  return s;
}

namespace {

double cubic_weight(double a, double t) {  // t = |distance|; 0 from 2 on
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

// Input coordinate of output coordinate j along dim d.
double resize_coord(const ResizeSpec& s, size_t d, int64_t j) {
  const double in = double(s.in[d]), out = s.len[d], sc = s.scale[d];
  const double jj = double(j);
  if (s.coord == "half_pixel") return (jj + 0.5) / sc - 0.5;
  if (s.coord == "half_pixel_symmetric") {
    const double adjust = double(s.out[d]) / (sc * in), center = in / 2;
    return center * (1 - adjust) + (jj + 0.5) / sc - 0.5;
  }
  if (s.coord == "pytorch_half_pixel") return out > 1 ? (jj + 0.5) / sc - 0.5 : -0.5;
  if (s.coord == "align_corners") return out > 1 ? jj * (in - 1) / (out - 1) : 0.0;
  if (s.coord == "tf_half_pixel_for_nn") return (jj + 0.5) / sc;
  if (s.coord == "tf_crop_and_resize") {
    const size_t r = s.in.size();
    const double start = s.roi[d], end = s.roi[r + d];
    return out > 1 ? start * (in - 1) + jj * (end - start) * (in - 1) / (out - 1)
                   : 0.5 * (start + end) * (in - 1);
  }
  return jj / sc;  // asymmetric
}

}  // namespace

// Taps of output coordinate j along dim d. Linear and cubic taps sit at floor(x) + i with edge
// clamping; antialias (scale < 1) widens the filter by 1 / scale: linear weights max(0, 1 - |t|),
// cubic weights cubic(|t|), t = (i - frac(x)) * scale, normalised to sum 1. exclude_outside
// drops taps outside the input and renormalises.
Taps resize_taps(const ResizeSpec& s, size_t d, int64_t j) {
  double x = resize_coord(s, d, j);
  const double sc = s.scale[d];
  Taps t;
  const int64_t last = s.in[d] - 1;
  if (s.coord == "tf_crop_and_resize" && (x < 0 || x > double(last))) {
    t.outside = true;
    return t;
  }
  auto clampi = [last](double v) { return std::clamp<int64_t>(static_cast<int64_t>(v), 0, last); };
  if (s.mode == "nearest") {
    const double f = std::floor(x);
    double k = f;
    if (s.nearest == "round_prefer_floor") k = x == f + 0.5 ? f : std::round(x);
    if (s.nearest == "round_prefer_ceil") k = x == f + 0.5 ? f + 1 : std::round(x);
    if (s.nearest == "ceil" || (s.nearest == "simple" && sc < 1)) k = std::ceil(x);
    t.idx = {clampi(k)};
    t.w = {1.0};
    return t;
  }
  const bool cubic = s.mode == "cubic";
  const bool wide = s.antialias && sc < 1;
  if (!cubic && !wide) x = std::clamp(x, 0.0, double(last));
  const double f = std::floor(x), frac = x - f, ws = wide ? sc : 1.0;
  const int64_t i0 = static_cast<int64_t>(std::floor((cubic ? -2.0 : -1.0) / ws)) + 1;
  double sum = 0;
  for (int64_t i = i0; i <= 1 - i0; ++i) {
    const double dist = std::fabs((double(i) - frac) * ws);
    double w = cubic ? cubic_weight(s.cubic_a, dist) : std::max(0.0, 1 - dist);
    const double pos = f + double(i);
    if (s.exclude_outside && (pos < 0 || pos > double(last))) w = 0;
    t.idx.push_back(clampi(std::max(pos, 0.0)));
    t.w.push_back(w);
    sum += w;
  }
  if ((wide || s.exclude_outside) && sum != 0)
    for (double& w : t.w) w /= sum;
  return t;
}

bool resize_axis_active(const ResizeSpec& s, size_t d) {
  return !(s.in[d] == s.out[d] && s.coord != "tf_crop_and_resize" && s.scale[d] == 1.0);
}

namespace {

// The value of input k for a kernel / reference (nullptr when absent or empty is fine).
auto tensor_values(std::span<const Tensor> in) {
  return [in](size_t k) -> const Tensor* {
    return k < in.size() && in[k].defined() ? &in[k] : nullptr;
  };
}

std::vector<TensorType> infer_resize(const ResizeVersion& v, const InferContext& ctx) {
  const TensorType& x = ctx.inputs[0];
  if (!x.shape) return {TensorType{x.dtype, std::nullopt}};
  const auto xd = known_dims(*x.shape);
  const bool known = std::all_of(xd.begin(), xd.end(), [](int64_t d) { return d >= 0; });
  auto value = [&](size_t k) -> const Tensor* {
    if (k >= ctx.inputs.size() || ctx.inputs[k].dtype == DType::kUndefined) return nullptr;
    return &need_value(ctx, k);
  };
  if (!known) {  // output dims from sizes only; scales need the input dims
    const bool v11 = std::string(v.type) == "Resize" && v.since >= 11;
    const bool all_axes = !ctx.attrs.has("axes") || ctx.attrs.ints("axes").empty();
    const bool stretch = !ctx.attrs.has("keep_aspect_ratio_policy") ||
                         ctx.attrs.s("keep_aspect_ratio_policy") == "stretch";
    if (v11 && all_axes && stretch && value(3) && value(3)->numel() > 0)
      return {TensorType{x.dtype, sym_dims(to_int64s(*value(3)))}};
    return {TensorType{x.dtype, sym_dims(std::vector<int64_t>(xd.size(), -1))}};
  }
  return {TensorType{x.dtype, sym_dims(resize_spec(v, ctx.attrs, xd, value).out)}};
}

// One pass per resized dim over [outer, n_in, inner] -> [outer, n_out, inner]: each output row
// (o, j) is the taps' weighted sum of input rows, the rows split over the workers.
template <class C>
void resize_run(const ResizeSpec& s, const LaunchContext& ctx, const Tensor& xt, Tensor& yt) {
  std::vector<C> xb;
  const C* x = read_as(xt, xb, C{});
  std::vector<C> cur(x, x + xt.numel()), next;
  Shape shape = s.in;
  const size_t r = shape.size();
  for (size_t d = 0; d < r; ++d) {
    if (!resize_axis_active(s, d)) continue;
    std::vector<Taps> taps(static_cast<size_t>(s.out[d]));
    for (int64_t j = 0; j < s.out[d]; ++j) taps[static_cast<size_t>(j)] = resize_taps(s, d, j);
    int64_t outer = 1, inner = 1;
    for (size_t e = 0; e < d; ++e) outer *= shape[e];
    for (size_t e = d + 1; e < r; ++e) inner *= shape[e];
    const int64_t n_in = shape[d], n_out = s.out[d];
    next.resize(static_cast<size_t>(outer * n_out * inner));
    auto rows = [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t o = row / n_out, j = row % n_out;
        const Taps& t = taps[static_cast<size_t>(j)];
        C* dst = next.data() + row * inner;
        if (t.outside || t.n() == 0) {
          std::fill_n(dst, inner, t.outside ? static_cast<C>(s.extrapolation) : C(0));
          continue;
        }
        const C* base = cur.data() + o * n_in * inner;
        const C* src = base + t.idx[0] * inner;
        const C w0 = static_cast<C>(t.w[0]);
        for (int64_t i = 0; i < inner; ++i) dst[i] = w0 * src[i];
        for (int k = 1; k < t.n(); ++k) {
          src = base + t.idx[static_cast<size_t>(k)] * inner;
          const C w = static_cast<C>(t.w[static_cast<size_t>(k)]);
          for (int64_t i = 0; i < inner; ++i) dst[i] += w * src[i];
        }
      }
    };
    // Chunks of at least ~16K output elements, so small resizes stay on the calling thread.
    const int64_t per = std::max<int64_t>(1, 16384 / std::max<int64_t>(inner * 4, 1));
    const int64_t total = outer * n_out, chunks = (total + per - 1) / per;
    ctx.parallel(chunks,
                 [&](int64_t c0, int64_t c1) { rows(c0 * per, std::min(total, c1 * per)); });
    cur.swap(next);
    shape[d] = n_out;
  }
  if (dtype_is_integer(yt.dtype())) {  // integer data: interpolated values round to nearest
    for (auto& v : cur) v = std::nearbyint(v);
  }
  write_as(yt, cur.data());
}

void resize_kernel(const ResizeVersion& v, const LaunchContext& ctx, std::span<const Tensor> in,
                   std::span<Tensor> out) {
  const ResizeSpec s = resize_spec(v, ctx.attr(), in[0].shape(), tensor_values(in));
  with_compute(in[0].dtype(), [&](auto tag) { resize_run<decltype(tag)>(s, ctx, in[0], out[0]); });
}

// Naive reference: each output element as the full N-D tensor-product sum, in double.
void resize_reference(const ResizeVersion& v, const Attrs& a, std::span<const Tensor> in,
                      Tensor& y) {
  const ResizeSpec s = resize_spec(v, a, in[0].shape(), tensor_values(in));
  const size_t r = s.in.size();
  const Shape xs = contiguous_strides(s.in);
  std::vector<int64_t> oi(r + 1);
  std::vector<Taps> taps(r + 1);  // + 1: GCC 12 alloc-size false positive on (r)
  for (int64_t o = 0; o < y.numel(); ++o) {
    unravel(o, y.shape(), oi.data());
    bool outside = false;
    int64_t combos = 1;
    for (size_t d = 0; d < r; ++d) {
      taps[d] = resize_taps(s, d, oi[d]);
      outside = outside || taps[d].outside;
      combos *= taps[d].n();
    }
    double acc = 0;
    for (int64_t c = 0; c < combos && !outside; ++c) {
      int64_t rest = c, flat = 0;
      double w = 1;
      for (size_t d = r; d-- > 0;) {
        const int k = static_cast<int>(rest % taps[d].n());
        rest /= taps[d].n();
        flat += taps[d].idx[k] * xs[d];
        w *= taps[d].w[k];
      }
      acc += w * in[0].at(flat);
    }
    if (outside) acc = s.extrapolation;
    if (dtype_is_integer(y.dtype())) acc = std::nearbyint(acc);
    y.set(o, acc);
  }
}

constexpr ResizeVersion kVersions[] = {
    {"Resize", 10, 10}, {"Resize", 11, 12},      {"Resize", 13, 17},
    {"Resize", 18, 18}, {"Resize", 19, INT_MAX}, {"Upsample", 1, 6},
    {"Upsample", 7, 8}, {"Upsample", 9, 9},      {"Upsample", 10, 10},
};

}  // namespace

void register_nn_resize(Registry& r) {
  std::vector<DType> types = nn_float_types();
  for (DType t : {DType::kI8, DType::kU8, DType::kI32, DType::kI64}) types.push_back(t);
  for (const ResizeVersion& rv : kVersions) {
    const ResizeVersion* v = &rv;
    const bool v11 = std::string(rv.type) == "Resize" && rv.since >= 11;
    OpDef def = def_op(rv.type, rv.since, rv.until);
    def.input("X", "T");
    if (v11) {
      // roi and scales are required before opset 13 but exporters leave them empty (""): both
      // are accepted as absent in every version.
      def.input("roi", "T2", Arity::kOptional, true)
          .input("scales", "f32", Arity::kOptional, true)
          .input("sizes", "i64", Arity::kOptional, true)
          .attr("coordinate_transformation_mode", AttrKind::kString, std::string("half_pixel"))
          .attr("cubic_coeff_a", AttrKind::kFloat, -0.75f)
          .attr("exclude_outside", AttrKind::kInt, int64_t{0})
          .attr("extrapolation_value", AttrKind::kFloat, 0.0f)
          .attr("nearest_mode", AttrKind::kString, std::string("round_prefer_floor"))
          .type_constraint("T2", nn_float_types());
      if (rv.since >= 18)
        def.attr("antialias", AttrKind::kInt, int64_t{0})
            .attr("axes", AttrKind::kInts, std::vector<int64_t>{})
            .attr("keep_aspect_ratio_policy", AttrKind::kString, std::string("stretch"));
    } else if (rv.since >= 9) {
      def.input("scales", "f32", Arity::kSingle, true);
    } else if (rv.since < 7) {
      def.attr("height_scale", AttrKind::kFloat).attr("width_scale", AttrKind::kFloat);
    } else {
      def.attr("scales", AttrKind::kFloats);
    }
    def.output("Y", "T")
        .attr("mode", AttrKind::kString, std::string("nearest"))
        .type_constraint("T", types)
        .describe(v11 ? "resizes by scales or sizes: nearest / linear / cubic, any coordinate mode"
                  : rv.since < 7 ? "resizes H and W of NCHW X by height_scale, width_scale: "
                                   "nearest / bilinear, asymmetric coordinates"
                                 : "resizes by scales: nearest / linear, asymmetric coordinates")
        .infer([v](const InferContext& c) { return infer_resize(*v, c); })
        .host_kernel(
            [v](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
              if (resize_tile_covers(ctx, in))
                resize_tile_run(*v, ctx, in, out);
              else
                resize_kernel(*v, ctx, in, out);
            })
        .launches([v](const LaunchContext& ctx) { return resize_launches(*v, ctx); })
        .reference([v](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          resize_reference(*v, a, in, out[0]);
        });
    r.add(std::move(def));
  }
  register_resize_axis(r);
}

}  // namespace asc
