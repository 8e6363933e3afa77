// FusedConv (ai.asc 1): what the load-time passes make of a convolution and its epilogue
// (runtime/fuse_conv.cpp), and the form whose weights are stored pre-packed:
//   Y = act(Conv(X, W) + B + Z) * post_scale + post_shift
// X, W, B and the attributes as Conv's (B optional); Z (optional) a residual of Y's shape, added
// before the activation (ResNet's relu(conv(x) + x)); act is `activation` with `alpha`/`beta`
// (ops/matmul.h: none, relu, sigmoid, tanh, silu, gelu, gelu_tanh, clip, hardsigmoid, hardswish,
// leakyrelu); post_scale and post_shift (1, 0: none) a scalar map after it (PP-LCNetV3's learnable
// affine block). With `panel` > 0, W is stored pre-packed per group in the cube's A layout
// (runtime/devices/cpu/gemm.h), Wp [G, ceil(M/G / panel), KP * panel] with KP = K rounded up to
// k_pack, and its own shape is `w_shape`: Ascend's weights stored ND -> fractal ahead of time.
// `diag` > 0: W is a depthwise weight as block-diagonal groups (runtime/weight_pack.cpp), output
// channel i of a group reading only input channel i: the mmad is told (TileBuilder::mmad). `tail`
// > 0: each panel's row carries that many more elements after its KP * panel (the cpu's compact
// copy of a block-diagonal weight's taps), Wp [G, panels, KP * panel + tail].
//
// One tile is Conv's (ops/conv_tile.h), the epilogue on the vector unit before the copy-out:
//   c (L0C f32 [TM, positions]) = W_g[m0 : +TM] x cols(X[n, g])
//   y = act(c + B[m0 : +TM] + Z[tile]) * post_scale + post_shift   (UB f32)  -> Y[tile]
#include <cmath>

#include "ops/conv_tile.h"
#include "ops/fused.h"
#include "ops/matmul.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc::fused {
namespace {

bool given(const std::vector<TensorDesc>& in, size_t i) {
  return in.size() > i && in[i].dtype != DType::kUndefined;
}

bool post_affine(const Attrs& a) {
  return a.f("post_scale") != 1.f || a.f("post_shift") != 0.f;
}

void fused_conv_kernel(TileBuilder& t) {
  const LaunchContext& ctx = t.ctx();
  const ConvGeom g = conv_geom(ctx);
  const ConvTile tile = conv_accumulate(t, g);
  const GmBox out = conv_out_box(t, g, tile);
  Buf y = conv_bias(t, g, tile);
  if (given(ctx.inputs, 3)) y = y + t.cast(t.copy_in(3, out, Pos::kUB, "z"), DType::kF32);
  const Attrs& a = ctx.attr();
  y = matmul_activation(t, a.s("activation"), y, a.f("alpha"), a.f("beta"));
  if (post_affine(a)) y = t.unary(UnaryOp::kAffine, y, a.f("post_scale"), a.f("post_shift"));
  t.copy_out(0, y, out);
}

TilingData fused_conv_tiling(const LaunchContext& ctx) {
  const bool epilogue = given(ctx.inputs, 2) || given(ctx.inputs, 3) ||
                        ctx.attr().s("activation") != "none" || post_affine(ctx.attr());
  // The f32 result, a bias column and a residual tile in Z's dtype (twice: double-buffered).
  const int64_t z = given(ctx.inputs, 3) ? 2 * dtype_size(ctx.inputs[3].dtype) : 0;
  return conv_tiling(ctx, conv_geom(ctx), epilogue ? 12 + static_cast<int64_t>(z) : 0);
}

// Conv's inference on W's own shape; Z must have Y's shape.
std::vector<TensorType> infer_fused_conv(const InferContext& c) {
  check_matmul_activation(c.attrs.s("activation"));
  std::vector<TensorType> in = c.inputs;
  if (c.attrs.i("panel") > 0) {
    const auto& ws = c.attrs.ints("w_shape");
    if (ws.size() < 3) throw ShapeError("FusedConv: packed W without its w_shape");
    in[1].shape = sym_dims(ws);
  }
  InferContext unpacked{c.op, in, c.attrs, c.values, c.num_outputs};
  std::vector<TensorType> out = infer_conv(unpacked, "FusedConv", c.inputs[0].dtype, true);
  if (c.inputs.size() > 3 && c.inputs[3].dtype != DType::kUndefined && c.inputs[3].shape &&
      out[0].shape && !(*c.inputs[3].shape == *out[0].shape))
    throw ShapeError(
        cat("FusedConv: residual Z ", c.inputs[3].str(), " is not Y's ", out[0].str()));
  return out;
}

// W unpacked to its own shape (when packed), then Conv's reference, the residual and the
// activation, in double, rounded once into Y.
void ref_fused_conv(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  std::vector<Tensor> args(in.begin(), in.begin() + std::min<size_t>(in.size(), 3));
  if (a.i("panel") > 0) {
    const Shape ws(a.ints("w_shape"));
    const int64_t panel = a.i("panel"), k_pack = a.i("k_pack"), group = a.i("group");
    const int64_t mg = ws[0] / group, k = numel(ws) / ws[0];
    const int64_t kp = (k + k_pack - 1) / k_pack * k_pack, panels = (mg + panel - 1) / panel;
    const int64_t row = kp * panel + a.i("tail", 0);
    Tensor w(DType::kF64, ws);
    for (int64_t m = 0; m < ws[0]; ++m)
      for (int64_t kk = 0; kk < k; ++kk) {
        const int64_t gi = m / mg, r = m % mg;
        const int64_t at = (gi * panels + r / panel) * row + (kk / k_pack) * panel * k_pack +
                           (r % panel) * k_pack + kk % k_pack;
        w.set(m * k + kk, in[1].at(at));
      }
    args[1] = w;
  }
  Tensor conv(DType::kF64, out[0].shape());
  Tensor cv[1] = {conv};
  const OpDef& op = global_registry().lookup("", "Conv", 11);
  op.reference_fn(op.resolve(conv_attrs(a)), args, cv);
  const bool z = in.size() > 3 && in[3].defined();
  const std::string& act = a.s("activation");
  for (int64_t i = 0; i < conv.numel(); ++i)
    out[0].set(i, ref_matmul_activation(act, conv.at(i) + (z ? in[3].at(i) : 0.0), a.f("alpha"),
                                        a.f("beta")) *
                          a.f("post_scale") +
                      a.f("post_shift"));
}

}  // namespace

Attrs conv_attrs(const Attrs& a) {
  Attrs c;
  for (const char* name : {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"})
    if (a.has(name)) c.set(name, a.all().at(name));
  return c;
}

void add_conv(Registry& r) {
  r.add(
      def_op("FusedConv", 1, INT_MAX, kDomain)
          .input("X", "T")
          .input("W", "T")
          .input("B", "T", Arity::kOptional)
          .input("Z", "T", Arity::kOptional)
          .output("Y", "T")
          .attr("auto_pad", AttrKind::kString, std::string("NOTSET"))
          .attr("dilations", AttrKind::kInts, std::vector<int64_t>{})
          .attr("group", AttrKind::kInt, int64_t{1})
          .attr("kernel_shape", AttrKind::kInts, std::vector<int64_t>{})
          .attr("pads", AttrKind::kInts, std::vector<int64_t>{})
          .attr("strides", AttrKind::kInts, std::vector<int64_t>{})
          .attr("activation", AttrKind::kString, std::string("none"))
          .attr("alpha", AttrKind::kFloat, 0.0f)
          .attr("beta", AttrKind::kFloat, 0.0f)
          .attr("post_scale", AttrKind::kFloat, 1.0f)
          .attr("post_shift", AttrKind::kFloat, 0.0f)
          .attr("panel", AttrKind::kInt, int64_t{0})
          .attr("k_pack", AttrKind::kInt, int64_t{1})
          .attr("w_shape", AttrKind::kInts, std::vector<int64_t>{})
          .attr("diag", AttrKind::kInt, int64_t{0})
          .attr("tail", AttrKind::kInt, int64_t{0})
          .type_constraint("T", cube_types())
          .trait(kContraction)
          .describe("Y = act(Conv(X, W) + B + Z) * post_scale + post_shift: a convolution with its "
                    "bias, residual, activation and a scalar map in the epilogue; W optionally "
                    "pre-packed in the cube's layout")
          .infer(infer_fused_conv)
          .tiling(fused_conv_tiling)
          .kernel(fused_conv_kernel)
          .in_place(3)  // a tile reads its box of Z before it writes that box of Y
          .reference(ref_fused_conv));
}

}  // namespace asc::fused
