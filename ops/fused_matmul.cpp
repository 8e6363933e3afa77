// FusedMatMulBias (ai.asc 1): what the pass makes of MatMul -> Add(bias) (-> activation):
//   Y = act(A x B + bias)
// A x B is numpy matmul (B of rank >= 2 when a bias is given); bias (optional) is [.., N] with
// leading 1s, or one element, added along Y's last dim; act is `activation`: none, relu, sigmoid,
// tanh, silu (x * sigmoid x), gelu (erf form) or gelu_tanh.
//
// One tile is MatMul's (ops/matmul.h: same view, tiling and K loop into L0C); the epilogue runs on
// the vector unit before the copy-out:
//   c (L0C f32 [TM, TN]) = A'[b, m0 : +TM, :] x B'[b, :, n0 : +TN]
//   bias (UB [1, TN]) = bias[n0 : +TN]            (one row, broadcast over the tile's rows)
//   y = act(c + bias)                             (UB f32 [TM, TN])
//   copy_out Y[b, m0 : +TM, n0 : +TN]             (Fixpipe: f32 -> Y's dtype)
// so the product is rounded to Y's dtype once, after the bias and the activation.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "ops/fused.h"
#include "ops/matmul.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc::fused {
namespace {

const char* const kActivations[] = {"none",        "relu",      "sigmoid",   "tanh",
                                    "silu",        "gelu",      "gelu_tanh", "clip",
                                    "hardsigmoid", "hardswish", "leakyrelu"};

bool has_bias(const std::vector<TensorDesc>& in) {
  return in.size() > 2 && in[2].dtype != DType::kUndefined;
}

}  // namespace

void check_matmul_activation(const std::string& act) {
  for (const char* a : kActivations)
    if (act == a) return;
  throw ShapeError(cat("activation '", act,
                       "' is not one of none, relu, sigmoid, tanh, silu, gelu, gelu_tanh, clip, "
                       "hardsigmoid, hardswish, leakyrelu"));
}

Buf matmul_activation(TileBuilder& t, const std::string& act, Buf x, float alpha, float beta) {
  if (act == "relu") return t.unary(UnaryOp::kRelu, x);
  if (act == "clip") return t.unary(UnaryOp::kClip, x, alpha, beta);
  if (act == "leakyrelu") return t.unary(UnaryOp::kLeakyRelu, x, alpha);
  if (act == "hardsigmoid")
    return t.unary(UnaryOp::kClip, t.unary(UnaryOp::kAffine, x, alpha, beta), 0.f, 1.f);
  if (act == "hardswish")
    return x * t.unary(UnaryOp::kClip, t.unary(UnaryOp::kAffine, x, 1.f / 6, 0.5f), 0.f, 1.f);
  if (act == "sigmoid") return t.unary(UnaryOp::kSigmoid, x);
  if (act == "tanh") return t.unary(UnaryOp::kTanh, x);
  if (act == "silu") return t.unary(UnaryOp::kSilu, x);
  if (act == "gelu")
    return x * t.unary(UnaryOp::kAffine, t.unary(UnaryOp::kErf, x * (1.0 / std::numbers::sqrt2)),
                       0.5f, 0.5f);
  if (act == "gelu_tanh") {
    Buf poly = (x * x) * 0.044715 + 1.0;
    Buf inner = t.unary(UnaryOp::kTanh, x * poly * std::sqrt(2.0 / std::numbers::pi));
    return x * t.unary(UnaryOp::kAffine, inner, 0.5f, 0.5f);
  }
  return x;
}

double ref_matmul_activation(const std::string& act, double x, double alpha, double beta) {
  if (act == "relu") return x > 0 ? x : 0.0;
  if (act == "clip") return std::min(std::max(x, alpha), beta);
  if (act == "leakyrelu") return x < 0 ? alpha * x : x;
  if (act == "hardsigmoid") return std::min(std::max(alpha * x + beta, 0.0), 1.0);
  if (act == "hardswish") return x * std::min(std::max(x / 6 + 0.5, 0.0), 1.0);
  if (act == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (act == "tanh") return std::tanh(x);
  if (act == "silu") return x / (1.0 + std::exp(-x));
  if (act == "gelu") return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  if (act == "gelu_tanh")
    return 0.5 * x *
           (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
  return x;
}

Buf matmul_epilogue(TileBuilder& t, const MmView& v, const MmTile& tile) {
  const LaunchContext& ctx = t.ctx();
  Buf y = tile.c;
  if (has_bias(ctx.inputs)) {
    const bool one = numel(ctx.inputs[2].shape) == 1;  // a single element broadcasts along N
    GmBox box;
    box.dims.push_back(BoxDim{1, 0, Coord{}, 1});
    box.dims.push_back(BoxDim{v.n, one ? 0 : 1, tile.n0, tile.tn});
    Buf b = t.cast(t.copy_in(2, box, Pos::kUB, "bias"), DType::kF32);
    y = t.bcast_mid(BinaryOp::kAdd, y, b, 0);
  }
  return matmul_activation(t, ctx.attr().s("activation"), y);
}

// In double: the product, then bias and activation, rounded once into Y.
void ref_fused_matmul(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  Tensor prod(DType::kF64, out[0].shape());
  Tensor pv[1] = {prod};
  ref_matmul(in, pv);
  const std::string& act = a.s("activation");
  const bool bias = in.size() > 2 && in[2].defined();
  const int64_t n = out[0].shape().empty() ? 1 : out[0].shape().back();
  const int64_t bias_len = bias ? in[2].numel() : 0;
  for (int64_t i = 0; i < prod.numel(); ++i) {
    double y = prod.at(i);
    if (bias) y += in[2].at(bias_len == 1 ? 0 : i % n);
    out[0].set(i, ref_matmul_activation(act, y));
  }
}

namespace {

MmView fused_view(const LaunchContext& ctx) {
  MmView v = matmul_view(ctx.inputs[0].shape, ctx.inputs[1].shape);
  const bool act = ctx.attr().s("activation") != "none";
  if (has_bias(ctx.inputs) || act) v.epilogue_ub = 4;  // the f32 result tile (act in place)
  return v;
}

void fused_matmul_kernel(TileBuilder& t) {
  const MmView v = fused_view(t.ctx());
  const MmTile tile = matmul_accumulate(t, v);
  t.copy_out(0, matmul_epilogue(t, v, tile), matmul_out_box(v, tile));
}

std::vector<TensorType> infer_fused_matmul(const InferContext& c) {
  check_matmul_activation(c.attrs.s("activation"));
  std::vector<TensorType> out = infer_matmul(c);
  if (c.inputs.size() < 3 || c.inputs[2].dtype == DType::kUndefined) return out;
  const auto& b = c.inputs[1].shape;
  if (b && b->size() < 2)
    throw ShapeError(cat("FusedMatMulBias: a bias needs B of rank >= 2, B is ", c.inputs[1].str()));
  const auto& bias = c.inputs[2].shape;
  if (!bias || !out[0].shape || out[0].shape->empty()) return out;
  const Dim n = out[0].shape->back();
  bool ok = bias->size() <= out[0].shape->size();
  for (size_t i = 0; ok && i < bias->size(); ++i) {
    const Dim& d = (*bias)[i];
    if (i + 1 < bias->size())
      ok = !(d.known() && d.value() != 1);
    else
      ok = !(d.known() && n.known() && d.value() != 1 && d.value() != n.value());
  }
  if (!ok)
    throw ShapeError(cat("FusedMatMulBias: bias ", c.inputs[2].str(),
                         " must broadcast along the last dim of ", out[0].str()));
  return out;
}

}  // namespace

void add_matmul(Registry& r) {
  r.add(def_op("FusedMatMulBias", 1, INT_MAX, kDomain)
            .input("A", "T")
            .input("B", "T")
            .input("bias", "T", Arity::kOptional)
            .output("Y", "T")
            .attr("activation", AttrKind::kString, AttrValue{std::string("none")})
            .type_constraint("T", cube_types())
            .trait(kContraction | kBroadcast)
            .describe("Y = act(A x B + bias): numpy matmul with a bias along the last dim and an "
                      "activation in the epilogue (fused MatMul)")
            .infer(infer_fused_matmul)
            .tiling([](const LaunchContext& ctx) { return matmul_tiling(ctx, fused_view(ctx)); })
            .kernel(fused_matmul_kernel)
            .reference(ref_fused_matmul));
}

}  // namespace asc::fused
