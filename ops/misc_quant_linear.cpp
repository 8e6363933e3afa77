// QuantizeLinear and DequantizeLinear, every version, as host kernels:
//
//   version  granularity                    types and attributes
//   10       per tensor                     x f32/i32, scale f32; q u8/i8
//   13       + per axis (1-D scale)         axis
//   19       (Q: saturate)                  x and scale f32/f16/bf16(/i32); DQ: y = scale's dtype
//   21       + blocked (block_size)         q also i16/u16/i4/u4; Q: output_dtype
//   23       (Q: precision; DQ: output_dtype) Q's scale its own dtype
//
// Quantize: y = saturate(round_half_even(x / s) + zp) to the range of y's dtype; dequantize:
// y = (x - zp) * s. s and zp are the scale and zero point of element i: one value (per tensor),
// s[i_axis] (per axis), or s[.., i_axis / block_size, ..] (blocked: s has x's rank with dim axis
// ceil(x_axis / block_size)). Precision: the quotient x / s is rounded to the scale's dtype from
// opset 19 (Q-23's precision attribute overrides it; f32 before 19, double for i32 data); the
// dequantized value is computed in its output dtype ((x - zp) rounded to it, then the product).
// saturate only concerns float8 outputs, which asc has not.
#include <algorithm>
#include <cmath>

#include "ops/misc.h"

namespace asc {
namespace {

using misc::has_input;

struct QVersion {
  bool quantize;
  int since, until;
};

const std::vector<DType> kQ8 = {DType::kU8, DType::kI8};
const std::vector<DType> kQ21 = {DType::kU8,  DType::kI8,    DType::kU16,
                                 DType::kI16, DType::kUInt4, DType::kInt4};

double qmin(DType t) {
  switch (t) {
    case DType::kI8:
      return -128;
    case DType::kI16:
      return -32768;
    case DType::kInt4:
      return -8;
    case DType::kI32:
      return -2147483648.0;
    default:
      return 0;
  }
}
double qmax(DType t) {
  switch (t) {
    case DType::kI8:
      return 127;
    case DType::kI16:
      return 32767;
    case DType::kU16:
      return 65535;
    case DType::kInt4:
      return 7;
    case DType::kUInt4:
      return 15;
    case DType::kI32:
      return 2147483647.0;
    default:
      return 255;
  }
}

const char* op_name(const QVersion& v) {
  return v.quantize ? "QuantizeLinear" : "DequantizeLinear";
}

// Where element i of x finds its scale: per tensor (channels 0), per axis (blocks of 1 along
// axis) or blocked. x viewed as [outer, n, inner] around the axis; the scale as
// [outer, groups, inner] (per axis: [groups] with outer and inner not indexed).
struct QMap {
  enum Kind { kTensor, kAxis, kBlocked } kind = kTensor;
  int64_t n = 1, inner = 1, groups = 1, block = 1;
  int64_t index(int64_t i) const {
    if (kind == kTensor) return 0;
    const int64_t a = (i / inner) % n;
    if (kind == kAxis) return a;
    const int64_t o = i / (n * inner);
    return (o * groups + a / block) * inner + i % inner;
  }
};

// Checks the scale (and zero point) shapes against x and resolves the granularity; ShapeError
// names the op and the shapes.
QMap qmap(const QVersion& v, const Attrs& a, const Shape& x, const Shape& scale, const Shape* zp) {
  const char* op = op_name(v);
  if (zp && *zp != scale)
    throw ShapeError(cat(op, ": zero point ", to_string(*zp), " must have the shape of scale ",
                         to_string(scale)));
  const int64_t block = v.since >= 21 ? a.i("block_size") : 0;
  if (block < 0) throw ShapeError(cat(op, ": block_size ", block, " is negative"));
  QMap m;
  if (block == 0 && numel(scale) == 1 && scale.size() <= 1) return m;
  const int64_t r = static_cast<int64_t>(x.size());
  if (v.since < 13)
    throw ShapeError(cat(op, ": scale must be a scalar before opset 13, got ", to_string(scale)));
  const size_t axis = static_cast<size_t>(misc::resolve_axis(a.i("axis"), r, op));
  m.n = x[axis];
  m.inner = misc::dims_product(x, axis + 1, x.size());
  if (block == 0) {
    if (scale.size() != 1 || scale[0] != x[axis])
      throw ShapeError(cat(op, ": scale ", to_string(scale), " must be a scalar or 1-D of size ",
                           x[axis], " (input ", to_string(x), " axis ", axis,
                           v.since >= 21 ? "; blocked quantization needs block_size)" : ")"));
    m.kind = QMap::kAxis;
    m.groups = x[axis];
    return m;
  }
  bool ok = scale.size() == x.size();
  for (size_t d = 0; ok && d < x.size(); ++d)
    ok = d == axis ? scale[d] == (x[d] + block - 1) / block : scale[d] == x[d];
  if (!ok)
    throw ShapeError(cat(op, ": blocked scale ", to_string(scale), " does not fit input ",
                         to_string(x), " with axis ", axis, " and block_size ", block,
                         " (want dim ", axis, " = ceil(", x[axis], " / ", block,
                         "), others equal)"));
  m.kind = QMap::kBlocked;
  m.groups = scale[axis];
  m.block = block;
  return m;
}

QMap qmap(const QVersion& v, const Attrs& a, std::span<const Tensor> in) {
  const Shape* zp = has_input(in, 2) ? &in[2].shape() : nullptr;
  return qmap(v, a, in[0].shape(), in[1].shape(), zp);
}

// The dtype a quotient or product is rounded to (see the file comment); kF64: not rounded.
DType precision(const QVersion& v, const Attrs& a, DType x, DType scale, DType out) {
  if (!v.quantize) return v.since >= 19 ? out : DType::kF32;
  if (v.since >= 23 && a.i("precision") != 0)
    return misc::dtype_attr(a.i("precision"), {DType::kF32, DType::kF16, DType::kBF16},
                            "QuantizeLinear", "precision");
  const DType p = v.since >= 19 ? scale : x == DType::kI32 ? DType::kF64 : DType::kF32;
  return p == DType::kI32 ? DType::kF64 : p;
}

double round_to(DType p, double v) {
  switch (p) {
    case DType::kF32:
      return static_cast<float>(v);
    case DType::kF16:
      return f16_to_f32(f32_to_f16(static_cast<float>(v)));
    case DType::kBF16:
      return bf16_to_f32(f32_to_bf16(static_cast<float>(v)));
    default:
      return v;
  }
}

// The quantized dtype: output_dtype (21+), else the zero point's, else u8.
DType quantized_dtype(const QVersion& v, const Attrs& a, DType zp) {
  DType out = zp == DType::kUndefined ? DType::kU8 : zp;
  if (v.since >= 21 && a.i("output_dtype") != 0) {
    const DType want =
        misc::dtype_attr(a.i("output_dtype"), kQ21, "QuantizeLinear", "output_dtype");
    if (zp != DType::kUndefined && zp != want)
      throw ShapeError(cat("QuantizeLinear: output_dtype ", dtype_name(want),
                           " differs from the zero point's ", dtype_name(zp)));
    out = want;
  }
  return out;
}

// The dequantized dtype: f32 before 19, the scale's after; output_dtype from 23.
DType dequantized_dtype(const QVersion& v, const Attrs& a, DType scale) {
  if (v.since < 19) return DType::kF32;
  if (v.since >= 23 && a.i("output_dtype") != 0)
    return misc::dtype_attr(a.i("output_dtype"), {DType::kF32, DType::kF16, DType::kBF16},
                            "DequantizeLinear", "output_dtype");
  return scale;
}

std::vector<TensorType> infer_qdq(const QVersion& v, const InferContext& c) {
  const DType zp = has_input(c, 2) ? c.inputs[2].dtype : DType::kUndefined;
  const auto xs = misc::concrete(c.inputs[0]);
  const auto ss = misc::concrete(c.inputs[1]);
  const auto zs = has_input(c, 2) ? misc::concrete(c.inputs[2]) : std::nullopt;
  if (xs && ss && (!has_input(c, 2) || zs)) qmap(v, c.attrs, *xs, *ss, zs ? &*zs : nullptr);
  if (v.quantize) return {{quantized_dtype(v, c.attrs, zp), c.inputs[0].shape}};
  if (c.inputs[0].dtype == DType::kI32 && has_input(c, 2) && c.values.size() > 2 && c.values[2])
    for (int64_t i = 0; i < c.values[2]->numel(); ++i)
      if (c.values[2]->at(i) != 0)
        throw ShapeError("DequantizeLinear: an i32 input's zero point must be 0");
  return {{dequantized_dtype(v, c.attrs, c.inputs[1].dtype), c.inputs[0].shape}};
}

std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = t.at(i);
  return v;
}

// Calls f(T{}) with T the storage type of x (4-bit integers are stored as bytes).
template <class F>
void visit_q(DType t, F&& f) {
  switch (t) {
    case DType::kF32:
      return f(float{});
    case DType::kF16:
      return f(f16{});
    case DType::kBF16:
      return f(bf16{});
    case DType::kI32:
      return f(int32_t{});
    case DType::kI16:
      return f(int16_t{});
    case DType::kU16:
      return f(uint16_t{});
    case DType::kI8:
    case DType::kInt4:
      return f(int8_t{});
    default:
      return f(uint8_t{});
  }
}

template <class T>
double as_double(T x) {
  if constexpr (std::is_same_v<T, f16>)
    return f16_to_f32(x);
  else if constexpr (std::is_same_v<T, bf16>)
    return bf16_to_f32(x);
  else
    return static_cast<double>(x);
}

void quantize_kernel(const QVersion& v, const LaunchContext& ctx, std::span<const Tensor> in,
                     std::span<Tensor> out) {
  const QMap m = qmap(v, ctx.attr(), in);
  const std::vector<double> s = values_of(in[1]);
  std::vector<double> zp(s.size(), 0.0);
  if (has_input(in, 2)) zp = values_of(in[2]);
  const DType yt = out[0].dtype();
  const DType p = precision(v, ctx.attr(), in[0].dtype(), in[1].dtype(), yt);
  const double lo = qmin(yt), hi = qmax(yt);
  const int64_t n = in[0].numel();
  visit_q(in[0].dtype(), [&](auto xtag) {
    using X = decltype(xtag);
    const X* x = in[0].data_as<X>();
    visit_q(yt, [&](auto ytag) {
      using Y = decltype(ytag);
      Y* y = out[0].data_as<Y>();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = m.index(i);
        const double q = std::nearbyint(round_to(p, as_double(x[i]) / s[c])) + zp[c];
        y[i] = static_cast<Y>(std::clamp(q, lo, hi));
      }
    });
  });
}

void dequantize_kernel(const QVersion& v, const LaunchContext& ctx, std::span<const Tensor> in,
                       std::span<Tensor> out) {
  const QMap m = qmap(v, ctx.attr(), in);
  const DType p = precision(v, ctx.attr(), in[0].dtype(), in[1].dtype(), out[0].dtype());
  std::vector<double> s = values_of(in[1]);
  for (double& e : s) e = round_to(p, e);
  std::vector<double> zp(s.size(), 0.0);
  if (has_input(in, 2)) zp = values_of(in[2]);
  const int64_t n = in[0].numel();
  void* y = out[0].data();
  const DType yt = out[0].dtype();
  visit_q(in[0].dtype(), [&](auto xtag) {
    using X = decltype(xtag);
    const X* x = in[0].data_as<X>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = m.index(i);
      store_from_double(yt, y, i, round_to(p, round_to(p, as_double(x[i]) - zp[c]) * s[c]));
    }
  });
}

// Naive reference: the scale of each element found from its multi-index, in double, rounding
// through tensors of the precision dtype.
void qdq_reference(const QVersion& v, const Attrs& a, std::span<const Tensor> in,
                   std::span<Tensor> out) {
  const Tensor& x = in[0];
  const Shape& xs = x.shape();
  const Shape& ss = in[1].shape();
  const QMap m = qmap(v, a, in);  // shape checks only; indices are found below
  const int64_t r = static_cast<int64_t>(xs.size());
  const int64_t axis = m.kind == QMap::kTensor ? 0 : misc::resolve_axis(a.i("axis"), r, "Q");
  const DType p = precision(v, a, x.dtype(), in[1].dtype(), out[0].dtype());
  Tensor rounding(p == DType::kF64 ? DType::kF64 : p, {1});
  const auto in_p = [&](double e) {
    rounding.set(0, e);
    return rounding.at(0);
  };
  std::vector<int64_t> idx(xs.size() + 1), sidx(xs.size() + 1);
  for (int64_t i = 0; i < x.numel(); ++i) {
    unravel(i, xs, idx.data());
    int64_t c = 0;
    if (m.kind == QMap::kAxis) c = idx[axis];
    if (m.kind == QMap::kBlocked) {
      for (int64_t d = 0; d < r; ++d) sidx[d] = d == axis ? idx[d] / m.block : idx[d];
      c = ravel(sidx.data(), contiguous_strides(ss), xs.size());
    }
    const double s = in[1].at(c);
    const double zp = has_input(in, 2) ? in[2].at(c) : 0.0;
    if (v.quantize) {
      const double q = misc::round_half_even(in_p(x.at(i) / s)) + zp;
      out[0].set(i, std::min(std::max(q, qmin(out[0].dtype())), qmax(out[0].dtype())));
    } else {
      out[0].set(i, in_p(in_p(x.at(i) - zp) * in_p(s)));
    }
  }
}

constexpr QVersion kVersions[] = {
    {true, 10, 12},  {true, 13, 18},  {true, 19, 20},  {true, 21, 22},  {true, 23, INT_MAX},
    {false, 10, 12}, {false, 13, 18}, {false, 19, 20}, {false, 21, 22}, {false, 23, INT_MAX},
};

OpDef quantize_def(const QVersion& v) {
  OpDef d = def_op("QuantizeLinear", v.since, v.until);
  const std::vector<DType> x_types =
      v.since >= 19 ? std::vector<DType>{DType::kF32, DType::kF16, DType::kBF16, DType::kI32}
                    : std::vector<DType>{DType::kF32, DType::kI32};
  const char* q = v.since >= 23 ? "T3" : "T2";
  d.input("x", "T1")
      .input("y_scale", v.since >= 23   ? "T2"
                        : v.since >= 19 ? "T1"
                                        : "f32")
      .input("y_zero_point", q, Arity::kOptional)
      .output("y", q)
      .type_constraint("T1", x_types)
      .type_constraint(q, v.since >= 21 ? kQ21 : kQ8);
  if (v.since >= 23) d.type_constraint("T2", x_types);
  if (v.since >= 13) d.attr("axis", AttrKind::kInt, int64_t{1});
  if (v.since >= 19) d.attr("saturate", AttrKind::kInt, int64_t{1});
  if (v.since >= 21)
    d.attr("block_size", AttrKind::kInt, int64_t{0})
        .attr("output_dtype", AttrKind::kInt, int64_t{0});
  if (v.since >= 23) d.attr("precision", AttrKind::kInt, int64_t{0});
  d.describe(v.since >= 21   ? "y = saturate(round(x / y_scale) + y_zero_point), per tensor, per "
                               "axis or blocked (block_size along axis)"
             : v.since >= 13 ? "y = saturate(round(x / y_scale) + y_zero_point), per tensor or "
                               "per axis (1-D scale along axis)"
                             : "y = saturate(round(x / y_scale) + y_zero_point), per tensor");
  return d;
}

OpDef dequantize_def(const QVersion& v) {
  OpDef d = def_op("DequantizeLinear", v.since, v.until);
  std::vector<DType> x_types = {DType::kU8, DType::kI8, DType::kI32};
  if (v.since >= 21)
    for (DType t : {DType::kU16, DType::kI16, DType::kUInt4, DType::kInt4}) x_types.push_back(t);
  const std::vector<DType> floats = {DType::kF32, DType::kF16, DType::kBF16};
  d.input("x", "T1")
      .input("x_scale", v.since >= 19 ? "T2" : "f32")
      .input("x_zero_point", "T1", Arity::kOptional)
      .output("y", v.since >= 23   ? "T3"
                   : v.since >= 19 ? "T2"
                                   : "f32")
      .type_constraint("T1", x_types);
  if (v.since >= 19) d.type_constraint("T2", floats);
  if (v.since >= 23)
    d.type_constraint("T3", floats).attr("output_dtype", AttrKind::kInt, int64_t{0});
  if (v.since >= 13) d.attr("axis", AttrKind::kInt, int64_t{1});
  if (v.since >= 21) d.attr("block_size", AttrKind::kInt, int64_t{0});
  d.describe(v.since >= 21   ? "y = (x - x_zero_point) * x_scale, per tensor, per axis or blocked"
             : v.since >= 13 ? "y = (x - x_zero_point) * x_scale, per tensor or per axis"
                             : "y = (x - x_zero_point) * x_scale, per tensor");
  return d;
}

}  // namespace

void register_misc_quant_linear(Registry& r) {
  for (const QVersion& qv : kVersions) {
    const QVersion v = qv;
    OpDef d = v.quantize ? quantize_def(v) : dequantize_def(v);
    d.infer([v](const InferContext& c) { return infer_qdq(v, c); })
        .host_kernel(
            [v](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
              if (v.quantize)
                quantize_kernel(v, ctx, in, out);
              else
                dequantize_kernel(v, ctx, in, out);
            })
        .reference([v](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
          qdq_reference(v, a, in, out);
        });
    r.add(std::move(d));
  }
}

}  // namespace asc
