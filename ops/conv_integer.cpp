// ConvInteger (10+) and QLinearConv (10+) as tile kernels on the integer cube (docs/DSL.md
// "Integer cube"): Conv's tile (ops/conv_tile.h) with X and W of i8/u8 loaded into L0 with their
// zero points, accumulating in an i32 L0C.
//   ConvInteger: y (i32) = Conv(x - x_zero_point, w - w_zero_point); the padding is zero after
//     the zero point is subtracted. x_zero_point is a scalar; w_zero_point a scalar or [M].
//   QLinearConv: the same accumulator, then requantised in the epilogue as ONNX Runtime does it,
//     in f32: y = saturate(round_half_even(f32(acc + B[m]) * (x_scale * w_scale[m] / y_scale))
//     + y_zero_point).
// The references are naive loops over every output element.
#include <algorithm>
#include <cmath>

#include "ops/conv_tile.h"
#include "ops/nn.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

// A zero point: absent is 0, a scalar applies to every channel.
struct ZeroPoint {
  const Tensor* t = nullptr;
  double at(int64_t channel) const {
    if (!t || !t->defined()) return 0.0;
    return t->at(t->numel() == 1 ? 0 : channel);
  }
};

void check_zero_points(std::span<const Tensor> in, int64_t m) {
  if (in.size() > 2 && in[2].defined() && in[2].numel() != 1)
    throw ShapeError(
        cat("ConvInteger: x_zero_point ", to_string(in[2].shape()), " must be a scalar"));
  if (in.size() > 3 && in[3].defined() && in[3].numel() != 1 && in[3].numel() != m)
    throw ShapeError(cat("ConvInteger: w_zero_point ", to_string(in[3].shape()),
                         " must be a scalar or [", m, "]"));
}

// QLinearConv inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
// B. Requantisation as ONNX Runtime does it, in float: y = saturate(round_half_even((acc + B[m])
// * (x_scale * w_scale[m] / y_scale)) + y_zero_point).
void check_qlinear(std::span<const Tensor> in, int64_t m) {
  auto scalar_or_m = [m](const Tensor& t, const char* name, bool per_channel) {
    if (t.numel() != 1 && !(per_channel && t.numel() == m))
      throw ShapeError(cat("QLinearConv: ", name, " ", to_string(t.shape()), " must be a scalar",
                           per_channel ? cat(" or [", m, "]") : std::string()));
  };
  scalar_or_m(in[1], "x_scale", false);
  scalar_or_m(in[2], "x_zero_point", false);
  scalar_or_m(in[4], "w_scale", true);
  scalar_or_m(in[5], "w_zero_point", true);
  scalar_or_m(in[6], "y_scale", false);
  scalar_or_m(in[7], "y_zero_point", false);
  if (in.size() > 8 && in[8].defined() && in[8].numel() != m)
    throw ShapeError(cat("QLinearConv: B ", to_string(in[8].shape()), " is not [", m, "]"));
}

void qlinear_requantize(std::span<const Tensor> in, const std::vector<double>& acc, Tensor& y) {
  const int64_t m_n = in[3].shape()[0], rows = y.shape()[0] * m_n;
  const int64_t per = rows ? y.numel() / rows : 1;
  const bool has_b = in.size() > 8 && in[8].defined();
  const double lo = y.dtype() == DType::kU8 ? 0 : -128, hi = y.dtype() == DType::kU8 ? 255 : 127;
  const float xs = static_cast<float>(in[1].at(0)), ys = static_cast<float>(in[6].at(0));
  const double yz = in[7].at(0);
  for (int64_t i = 0; i < y.numel(); ++i) {
    const int64_t m = (i / per) % m_n;
    const float ws = static_cast<float>(in[4].at(in[4].numel() == 1 ? 0 : m));
    const float scale = xs * ws / ys;
    const double a = acc[static_cast<size_t>(i)] + (has_b ? in[8].at(m) : 0.0);
    const double q = std::nearbyint(static_cast<double>(static_cast<float>(a) * scale)) + yz;
    y.set(i, std::clamp(q, lo, hi));
  }
}

// Naive reference: every output element as an exact sum over its window.
std::vector<double> int_conv_reference(const char* op, const Attrs& a, const Tensor& x,
                                       ZeroPoint xz, const Tensor& w, ZeroPoint wz,
                                       const Shape& y_shape) {
  std::vector<double> y(static_cast<size_t>(numel(y_shape)));
  const Window win = conv_window(op, a, x.shape(), w.shape());
  const size_t ns = win.k.size();
  const int64_t group = a.i("group"), cg = x.shape()[1] / group, mg = w.shape()[0] / group;
  const Shape xs = contiguous_strides(x.shape()), ws = contiguous_strides(w.shape());
  const Shape kshape(w.shape().begin() + 2, w.shape().end());
  std::vector<int64_t> oi(ns + 2), ki(ns), xi(ns + 2), wi(ns + 2);
  for (int64_t o = 0; o < numel(y_shape); ++o) {
    unravel(o, y_shape, oi.data());
    const int64_t m = oi[1];
    int64_t acc = 0;
    for (int64_t c = 0; c < cg; ++c)
      for (int64_t k = 0; k < numel(kshape); ++k) {
        unravel(k, kshape, ki.data());
        bool inside = true;
        for (size_t d = 0; d < ns; ++d) {
          xi[d + 2] = oi[d + 2] * win.s[d] - win.pb[d] + ki[d] * win.d[d];
          inside = inside && xi[d + 2] >= 0 && xi[d + 2] < win.in[d];
          wi[d + 2] = ki[d];
        }
        if (!inside) continue;
        xi[0] = oi[0], xi[1] = (m / mg) * cg + c, wi[0] = m, wi[1] = c;
        const auto xv = static_cast<int64_t>(x.at(ravel(xi.data(), xs, ns + 2)) - xz.at(0));
        const auto wv = static_cast<int64_t>(w.at(ravel(wi.data(), ws, ns + 2)) - wz.at(m));
        acc += xv * wv;
      }
    y[static_cast<size_t>(o)] = static_cast<double>(acc);
  }
  return y;
}

void conv_integer_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  check_zero_points(in, in[1].shape()[0]);
  const ZeroPoint xz{in.size() > 2 ? &in[2] : nullptr}, wz{in.size() > 3 ? &in[3] : nullptr};
  const auto y = int_conv_reference("ConvInteger", a, in[0], xz, in[1], wz, out[0].shape());
  for (int64_t i = 0; i < out[0].numel(); ++i) out[0].set(i, y[static_cast<size_t>(i)]);
}

void qlinear_conv_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  check_qlinear(in, in[3].shape()[0]);
  const auto acc = int_conv_reference("QLinearConv", a, in[0], ZeroPoint{&in[2]}, in[3],
                                      ZeroPoint{&in[5]}, out[0].shape());
  qlinear_requantize(in, acc, out[0]);
}

// Inputs of the two forms: X, W and their zero points.
ConvGeom geom_conv_integer(const LaunchContext& ctx) {
  return conv_geom_int(ctx, 0, 1, 2, 3);
}
ConvGeom geom_qlinear_conv(const LaunchContext& ctx) {
  const ConvGeom g = conv_geom_int(ctx, 0, 3, 2, 5);
  auto check = [&](size_t i, const char* name, int64_t per) {
    const int64_t n = numel(ctx.inputs[i].shape);
    if (n != 1 && n != per)
      throw ShapeError(cat("QLinearConv: ", name, " ", to_string(ctx.inputs[i].shape),
                           " must be a scalar", per > 1 ? cat(" or [", per, "]") : std::string()));
  };
  check(1, "x_scale", 1);
  check(4, "w_scale", g.m);
  check(6, "y_scale", 1);
  check(7, "y_zero_point", 1);
  if (ctx.inputs.size() > 8 && ctx.inputs[8].dtype != DType::kUndefined &&
      numel(ctx.inputs[8].shape) != g.m)
    throw ShapeError(cat("QLinearConv: B ", to_string(ctx.inputs[8].shape), " is not [", g.m, "]"));
  return g;
}

void conv_integer_tile(TileBuilder& t) {
  const ConvGeom g = geom_conv_integer(t.ctx());
  const ConvTile tile = conv_accumulate(t, g);
  t.copy_out(0, tile.c, conv_out_box(t, g, tile));
}

// A per-output-channel operand of the tile's rows [1, TM] (one value: spread with stride 0).
Buf channel_values(TileBuilder& t, const ConvGeom& g, const ConvTile& tile, int input,
                   const char* name) {
  const bool one = numel(t.ctx().inputs[static_cast<size_t>(input)].shape) == 1;
  GmBox b;
  b.dims = {BoxDim{g.group, one ? 0 : g.mg(), t.grid(1), 1},
            BoxDim{g.mg(), one ? 0 : 1, tile.m0, tile.tm}};
  return t.cast(t.copy_in(input, b, Pos::kUB, name), DType::kF32);
}

void qlinear_conv_tile(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const ConvGeom g = geom_qlinear_conv(ctx);
  const ConvTile tile = conv_accumulate(t, g);
  Buf acc = tile.c;
  if (ctx.inputs.size() > 8 && ctx.inputs[8].dtype != DType::kUndefined) {
    GmBox b;
    b.dims = {BoxDim{g.group, g.mg(), t.grid(1), 1}, BoxDim{g.mg(), 1, tile.m0, tile.tm}};
    acc = t.bcast_mid(BinaryOp::kAdd, acc, t.copy_in(8, b, Pos::kUB, "bias"), 1);
  }
  // scale[m] = x_scale * w_scale[m] / y_scale, rounded as f32 at each step.
  Buf scale = channel_values(t, g, tile, 4, "ws") * channel_values(t, g, tile, 1, "xs");
  scale = scale / channel_values(t, g, tile, 6, "ys");
  Buf y = t.unary(UnaryOp::kRound, t.bcast_mid(BinaryOp::kMul, t.cast(acc, DType::kF32), scale, 1));
  y = t.bcast_mid(BinaryOp::kAdd, y, channel_values(t, g, tile, 7, "yz"), 1);
  const bool u8 = ctx.outputs[0].dtype == DType::kU8;
  y = t.unary(UnaryOp::kClip, y, u8 ? 0.f : -128.f, u8 ? 255.f : 127.f);
  t.copy_out(0, y, conv_out_box(t, g, tile));
}

}  // namespace

void register_conv_integer(Registry& r) {
  r.add(def_op("QLinearConv", 10)
            .input("x", "T1")
            .input("x_scale", "f32")
            .input("x_zero_point", "T1")
            .input("w", "T2")
            .input("w_scale", "f32")
            .input("w_zero_point", "T2")
            .input("y_scale", "f32")
            .input("y_zero_point", "T3")
            .input("B", "i32", Arity::kOptional)
            .output("y", "T3")
            .attr("auto_pad", AttrKind::kString, std::string("NOTSET"))
            .attr("dilations", AttrKind::kInts, std::vector<int64_t>{})
            .attr("group", AttrKind::kInt, int64_t{1})
            .attr("kernel_shape", AttrKind::kInts, std::vector<int64_t>{})
            .attr("pads", AttrKind::kInts, std::vector<int64_t>{})
            .attr("strides", AttrKind::kInts, std::vector<int64_t>{})
            .type_constraint("T1", {DType::kI8, DType::kU8})
            .type_constraint("T2", {DType::kI8, DType::kU8})
            .type_constraint("T3", {DType::kI8, DType::kU8})
            .trait(kContraction)
            .describe("quantized 8-bit convolution: integer conv, then requantised to y's scale")
            .infer([](const InferContext& c) {
              // Conv's checks on (x, w); y has y_zero_point's dtype.
              std::vector<TensorType> xw = {c.inputs[0], c.inputs[3]};
              const InferContext sub{c.op, xw, c.attrs, {}};
              return infer_conv(sub, "QLinearConv", c.inputs[7].dtype, false);
            })
            .tiling([](const LaunchContext& ctx) {
              // The f32 result and the requantisation's per-channel operands.
              return conv_tiling(ctx, geom_qlinear_conv(ctx), 12);
            })
            .kernel(qlinear_conv_tile)
            .reference(qlinear_conv_reference));
  r.add(def_op("ConvInteger", 10)
            .input("x", "T1")
            .input("w", "T2")
            .input("x_zero_point", "T1", Arity::kOptional)
            .input("w_zero_point", "T2", Arity::kOptional)
            .output("y", "i32")
            .attr("auto_pad", AttrKind::kString, std::string("NOTSET"))
            .attr("dilations", AttrKind::kInts, std::vector<int64_t>{})
            .attr("group", AttrKind::kInt, int64_t{1})
            .attr("kernel_shape", AttrKind::kInts, std::vector<int64_t>{})
            .attr("pads", AttrKind::kInts, std::vector<int64_t>{})
            .attr("strides", AttrKind::kInts, std::vector<int64_t>{})
            .type_constraint("T1", {DType::kI8, DType::kU8})
            .type_constraint("T2", {DType::kI8, DType::kU8})
            .trait(kContraction)
            .describe("8-bit integer convolution with zero points, i32 output")
            .infer([](const InferContext& c) {
              return infer_conv(c, "ConvInteger", DType::kI32, false);
            })
            .tiling([](const LaunchContext& ctx) {
              return conv_tiling(ctx, geom_conv_integer(ctx), 0);
            })
            .kernel(conv_integer_tile)
            .reference(conv_integer_reference));
}

}  // namespace asc
