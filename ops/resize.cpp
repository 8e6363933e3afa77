// Resize (10, 11-12, 13+) and Upsample (7-8 scales attribute, 9 scales input) as host kernels.
//
// Every mode is a tensor product of 1-D interpolations, so the kernel resizes one dim at a time:
// out[o, j, i] = sum_t w_t(j) * in[o, idx_t(j), i] over the taps of output coordinate j (nearest:
// 1 tap, linear: 2, cubic: 4), with o the dims before and i the dims after the resized one.
// Output coordinate j maps to input coordinate x by coordinate_transformation_mode (scale = out /
// in when sizes are given; the resized length in the align_corners, pytorch_half_pixel and
// tf_crop_and_resize maps is in * scale, unfloored); a tf_crop_and_resize coordinate outside
// [0, in - 1] yields extrapolation_value. Resize-10 and Upsample are asymmetric with ONNX Runtime's
// "simple" nearest (floor when upsampling, ceil when downsampling). Scales / sizes / roi are
// value_needed inputs.
#include <algorithm>
#include <cmath>

#include "ops/nn.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

struct ResizeVersion {
  const char* type;
  int since, until;
};

// Everything a resize needs besides the data: per-dim scale and output size, roi, modes.
struct ResizeSpec {
  Shape in, out;
  std::vector<double> scale, roi;
  std::vector<double> len;  // resized length in coordinate maps: in * scale, or sizes
  std::string mode = "nearest", coord = "asymmetric", nearest = "simple";
  double cubic_a = -0.75, extrapolation = 0.0;
  bool exclude_outside = false;
};

// At most four (index, weight) taps of one output coordinate; `outside`: extrapolate instead.
struct Taps {
  int64_t idx[4] = {0, 0, 0, 0};
  double w[4] = {0, 0, 0, 0};
  int n = 0;
  bool outside = false;
};

std::vector<double> floats_of(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.at(i);
  return v;
}

// Input positions: Resize-10 / Upsample-9 [X, scales]; Resize-11+ [X, roi, scales, sizes];
// Upsample-7 [X] with the scales attribute. `value(k)` gives input k's value or nullptr when the
// input is absent; it throws ValueUnknownError when the value is not known yet.
template <class ValueFn>
ResizeSpec resize_spec(const ResizeVersion& v, const Attrs& a, const Shape& x, ValueFn value) {
  const std::string op = v.type;
  ResizeSpec s;
  s.in = x;
  const size_t r = x.size();
  const bool v11 = op == "Resize" && v.since >= 11;
  s.mode = a.s("mode");
  if (s.mode != "nearest" && s.mode != "linear" && !(v11 && s.mode == "cubic"))
    throw ShapeError(cat(op, ": unknown mode '", s.mode, "'"));
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
  if (op == "Upsample" && v.since < 9) {
    for (float f : a.floats("scales")) s.scale.push_back(f);
  } else if (sizes.empty()) {
    const Tensor* t = value(v11 ? 2 : 1);
    if (t) s.scale = floats_of(*t);
  }
  if (!sizes.empty()) {
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
  if (std::find_if(std::begin(kCoords), std::end(kCoords),
                   [&](const char* c) { return s.coord == c; }) == std::end(kCoords))
    throw ShapeError(cat(op, ": unknown coordinate_transformation_mode '", s.coord, "'"));
  return s;
}

double cubic_weight(double a, double t) {  // t = |distance| in [0, 2]
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
}

Taps resize_taps(const ResizeSpec& s, size_t d, int64_t j) {
  const double in = double(s.in[d]), out = s.len[d], sc = s.scale[d];
  const double jj = double(j);
  double x = 0;
  if (s.coord == "half_pixel") {
    x = (jj + 0.5) / sc - 0.5;
  } else if (s.coord == "pytorch_half_pixel") {
    x = out > 1 ? (jj + 0.5) / sc - 0.5 : 0.0;
  } else if (s.coord == "align_corners") {
    x = out > 1 ? jj * (in - 1) / (out - 1) : 0.0;
  } else if (s.coord == "tf_half_pixel_for_nn") {
    x = (jj + 0.5) / sc;
  } else if (s.coord == "tf_crop_and_resize") {
    const size_t r = s.in.size();
    const double start = s.roi[d], end = s.roi[r + d];
    x = out > 1 ? start * (in - 1) + jj * (end - start) * (in - 1) / (out - 1)
                : 0.5 * (start + end) * (in - 1);
  } else {
    x = jj / sc;
  }
  Taps t;
  if (s.coord == "tf_crop_and_resize" && (x < 0 || x > in - 1)) {
    t.outside = true;
    return t;
  }
  const int64_t last = s.in[d] - 1;
  auto clampi = [last](double v) { return std::clamp<int64_t>(static_cast<int64_t>(v), 0, last); };
  if (s.mode == "nearest") {
    const double f = std::floor(x);
    double k = f;
    if (s.nearest == "round_prefer_floor") k = x == f + 0.5 ? f : std::round(x);
    if (s.nearest == "round_prefer_ceil") k = x == f + 0.5 ? f + 1 : std::round(x);
    if (s.nearest == "ceil" || (s.nearest == "simple" && sc < 1)) k = std::ceil(x);
    t.n = 1;
    t.idx[0] = clampi(k);
    t.w[0] = 1;
  } else if (s.mode == "linear") {
    x = std::clamp(x, 0.0, double(last));
    const double f = std::floor(x);
    t.n = 2;
    t.idx[0] = clampi(f);
    t.idx[1] = clampi(f + 1);
    t.w[0] = 1 - (x - f);
    t.w[1] = x - f;
  } else {
    const double f = std::floor(x), r = x - f;
    double sum = 0;
    t.n = 4;
    for (int k = 0; k < 4; ++k) {
      const double pos = f - 1 + k;
      t.w[k] = cubic_weight(s.cubic_a, std::fabs(r - (k - 1)));
      if (s.exclude_outside && (pos < 0 || pos > double(last))) t.w[k] = 0;
      t.idx[k] = std::clamp<int64_t>(static_cast<int64_t>(pos), 0, last);
      sum += t.w[k];
    }
    if (s.exclude_outside && sum != 0)
      for (double& w : t.w) w /= sum;
  }
  return t;
}

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
    if (v11 && value(3) && value(3)->numel() > 0)
      return {TensorType{x.dtype, sym_dims(to_int64s(*value(3)))}};
    return {TensorType{x.dtype, sym_dims(std::vector<int64_t>(xd.size(), -1))}};
  }
  return {TensorType{x.dtype, sym_dims(resize_spec(v, ctx.attrs, xd, value).out)}};
}

template <class C>
void resize_run(const ResizeSpec& s, const Tensor& xt, Tensor& yt) {
  std::vector<C> xb;
  const C* x = read_as(xt, xb, C{});
  std::vector<C> cur(x, x + xt.numel()), next;
  Shape shape = s.in;
  const size_t r = shape.size();
  for (size_t d = 0; d < r; ++d) {
    if (s.in[d] == s.out[d] && s.coord != "tf_crop_and_resize" && s.scale[d] == 1.0) continue;
    std::vector<Taps> taps(static_cast<size_t>(s.out[d]));
    for (int64_t j = 0; j < s.out[d]; ++j) taps[static_cast<size_t>(j)] = resize_taps(s, d, j);
    int64_t outer = 1, inner = 1;
    for (size_t e = 0; e < d; ++e) outer *= shape[e];
    for (size_t e = d + 1; e < r; ++e) inner *= shape[e];
    const int64_t n_in = shape[d], n_out = s.out[d];
    next.assign(static_cast<size_t>(outer * n_out * inner), C(0));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < n_out; ++j) {
        const Taps& t = taps[static_cast<size_t>(j)];
        C* dst = next.data() + (o * n_out + j) * inner;
        if (t.outside) {
          std::fill_n(dst, inner, static_cast<C>(s.extrapolation));
          continue;
        }
        for (int k = 0; k < t.n; ++k) {
          const C* src = cur.data() + (o * n_in + t.idx[k]) * inner;
          const C w = static_cast<C>(t.w[k]);
          for (int64_t i = 0; i < inner; ++i) dst[i] += w * src[i];
        }
      }
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
  with_compute(in[0].dtype(), [&](auto tag) { resize_run<decltype(tag)>(s, in[0], out[0]); });
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
      combos *= taps[d].n;
    }
    double acc = 0;
    for (int64_t c = 0; c < combos && !outside; ++c) {
      int64_t rest = c, flat = 0;
      double w = 1;
      for (size_t d = r; d-- > 0;) {
        const int k = static_cast<int>(rest % taps[d].n);
        rest /= taps[d].n;
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
    {"Resize", 10, 10}, {"Resize", 11, 12}, {"Resize", 13, INT_MAX},
    {"Upsample", 7, 8}, {"Upsample", 9, 9},
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
    } else if (rv.since >= 9) {
      def.input("scales", "f32", Arity::kSingle, true);
    } else {
      def.attr("scales", AttrKind::kFloats);
    }
    def.output("Y", "T")
        .attr("mode", AttrKind::kString, std::string("nearest"))
        .type_constraint("T", types)
        .describe(v11 ? "resizes by scales or sizes: nearest / linear / cubic, any coordinate mode"
                      : "resizes by scales: nearest / linear, asymmetric coordinates")
        .infer([v](const InferContext& c) { return infer_resize(*v, c); })
        .host_kernel([v](const LaunchContext& ctx, std::span<const Tensor> in,
                         std::span<Tensor> out) { resize_kernel(*v, ctx, in, out); })
        .reference([v](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          resize_reference(*v, a, in, out[0]);
        });
    r.add(std::move(def));
  }
}

}  // namespace asc
