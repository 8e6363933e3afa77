// Pointwise activations with scalar attributes: Elu, Selu, Celu, LeakyRelu, HardSigmoid,
// HardSwish, Softplus, Softsign, Mish, Gelu. One tile y = f(x), composed from the vector vocabulary
// and computed in f32 for f16/bf16 storage (f64 stays f64). The family's shared helpers (act_view,
// act_load, act_store) are defined here too.
//
// Opsets 1-5 of Elu, Selu, LeakyRelu and HardSigmoid differ from 6 only by the legacy
// consumed_inputs attribute (ignored), so one version covers each from opset 1.
//
// The exponential branches evaluate exp on min(x, 0) only, so no tile ever computes exp of a
// large positive value: elu(x) = relu(x) + alpha * (exp(min(x, 0)) - 1) is x for x >= 0 and
// alpha * (exp(x) - 1) below.
#include "ops/activations.h"

#include <cmath>
#include <numbers>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {

LaunchContext act_view(const LaunchContext& ctx, std::initializer_list<int> scalar_inputs) {
  LaunchContext v = ctx;
  for (int k : scalar_inputs)
    if (k < static_cast<int>(v.inputs.size())) v.inputs[k].shape.clear();
  return v;
}

Buf act_load(TileBuilder& t, const LaunchContext& view, int input) {
  Buf b = t.copy_in(input, ew_box(view, t.tiling(), input));
  return t.cast(b, compute_dtype(t.dtype(b)));
}

void act_store(TileBuilder& t, const LaunchContext& view, int output, Buf value) {
  const int arg = static_cast<int>(view.inputs.size()) + output;
  t.copy_out(output, t.cast(value, view.outputs[output].dtype), ew_box(view, t.tiling(), arg));
}

namespace {

using ActKernel = Buf (*)(TileBuilder& t, Buf x, const Attrs& a);
using ActRef = double (*)(double x, const Attrs& a);

// alpha * (exp(min(x, 0) / scale) - 1): the negative branch of Elu (scale 1) and Celu (alpha).
Buf exp_branch(TileBuilder& t, Buf x, double scale, float alpha) {
  Buf m = t.scalar(BinaryOp::kMin, x, 0.0);
  if (scale != 1.0) m = t.scalar(BinaryOp::kDiv, m, scale);
  return t.unary(UnaryOp::kAffine, exp(m), alpha, -alpha);
}

Buf elu_kernel(TileBuilder& t, Buf x, const Attrs& a) {
  return t.unary(UnaryOp::kRelu, x) + exp_branch(t, x, 1.0, a.f("alpha"));
}
double elu_ref(double x, const Attrs& a) {
  return x < 0 ? a.f("alpha") * (std::exp(x) - 1.0) : x;
}

Buf celu_kernel(TileBuilder& t, Buf x, const Attrs& a) {
  const float alpha = a.f("alpha");
  return t.unary(UnaryOp::kRelu, x) + exp_branch(t, x, alpha, alpha);
}
double celu_ref(double x, const Attrs& a) {
  const double alpha = a.f("alpha");
  return std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x / alpha) - 1.0));
}

// gamma * relu(x) + gamma * alpha * (exp(min(x, 0)) - 1); scalar ops keep f64 exact.
Buf selu_kernel(TileBuilder& t, Buf x, const Attrs& a) {
  const double gamma = a.f("gamma");
  const double ga = gamma * a.f("alpha");
  Buf neg = (exp(t.scalar(BinaryOp::kMin, x, 0.0)) - 1.0) * ga;
  return t.unary(UnaryOp::kRelu, x) * gamma + neg;
}
double selu_ref(double x, const Attrs& a) {
  const double gamma = a.f("gamma"), alpha = a.f("alpha");
  return x > 0 ? gamma * x : gamma * (alpha * std::exp(x) - alpha);
}

Buf leaky_relu_kernel(TileBuilder& t, Buf x, const Attrs& a) {
  return t.unary(UnaryOp::kLeakyRelu, x, a.f("alpha"));
}
double leaky_relu_ref(double x, const Attrs& a) {
  return x < 0 ? a.f("alpha") * x : x;
}

Buf hard_sigmoid_kernel(TileBuilder& t, Buf x, const Attrs& a) {
  return t.unary(UnaryOp::kClip, t.unary(UnaryOp::kAffine, x, a.f("alpha"), a.f("beta")), 0.f, 1.f);
}
double hard_sigmoid_ref(double x, const Attrs& a) {
  const double y = static_cast<double>(a.f("alpha")) * x + a.f("beta");
  return std::isnan(y) ? y : std::max(0.0, std::min(1.0, y));
}

// x * clip(x / 6 + 1/2, 0, 1)
Buf hard_swish_kernel(TileBuilder& t, Buf x, const Attrs&) {
  Buf h = x / 6.0 + 0.5;
  return x * t.unary(UnaryOp::kClip, h, 0.f, 1.f);
}
double hard_swish_ref(double x, const Attrs&) {
  return x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5));
}

// log(1 + exp(x)) = relu(x) + log(1 + exp(-|x|)): exp never overflows.
Buf softplus_kernel(TileBuilder& t, Buf x, const Attrs&) {
  Buf e = exp(-t.unary(UnaryOp::kAbs, x));
  return t.unary(UnaryOp::kRelu, x) + log(e + 1.0);
}
double softplus_ref(double x, const Attrs&) {
  return x > 30 ? x : std::log1p(std::exp(x));
}

// x * tanh(softplus(x))
Buf mish_kernel(TileBuilder& t, Buf x, const Attrs& a) {
  return x * t.unary(UnaryOp::kTanh, softplus_kernel(t, x, a));
}
double mish_ref(double x, const Attrs&) {
  return x * std::tanh(x > 30 ? x : std::log1p(std::exp(x)));
}

// approximate "none": x * (1 + erf(x / sqrt(2))) / 2;
// "tanh": x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2.
Buf gelu_kernel(TileBuilder& t, Buf x, const Attrs& a) {
  Buf inner;
  if (a.s("approximate") == "tanh") {
    Buf poly = (x * x) * 0.044715 + 1.0;
    inner = t.unary(UnaryOp::kTanh, x * poly * std::sqrt(2.0 / std::numbers::pi));
  } else {
    inner = t.unary(UnaryOp::kErf, x * (1.0 / std::numbers::sqrt2));
  }
  return x * t.unary(UnaryOp::kAffine, inner, 0.5f, 0.5f);
}
double gelu_ref(double x, const Attrs& a) {
  if (a.s("approximate") == "tanh")
    return 0.5 * x *
           (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

Buf softsign_kernel(TileBuilder& t, Buf x, const Attrs&) {
  return x / (t.unary(UnaryOp::kAbs, x) + 1.0);
}
double softsign_ref(double x, const Attrs&) {
  return x / (1.0 + std::fabs(x));
}

// One pointwise activation: y = kernel(x) with the op's attributes.
OpDef pointwise(const char* type, int since, std::vector<DType> types, const char* doc,
                ActKernel kernel, ActRef ref) {
  return def_op(type, since)
      .input("X", "T")
      .output("Y", "T")
      .type_constraint("T", std::move(types))
      .trait(kElementwise)
      .describe(doc)
      .infer(infer_unary)
      .tiling(elementwise_tiling)
      .kernel(
          [kernel](TileBuilder& t) { ew_store(t, 0, kernel(t, ew_load(t, 0), t.ctx().attr())); })
      .reference([ref](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
        ref_elementwise(in.first(1), out[0], [ref, &a](const double* v) { return ref(v[0], a); });
      });
}

AttrValue f(float v) {
  return AttrValue{v};
}

}  // namespace

void register_activations(Registry& r) {
  const std::vector<DType>& fl = float_types();
  r.add(pointwise("Elu", 1, fl, "y = x < 0 ? alpha * (exp(x) - 1) : x", elu_kernel, elu_ref)
            .attr("alpha", AttrKind::kFloat, f(1.0f)));
  r.add(pointwise("Selu", 1, fl, "y = gamma * (x <= 0 ? alpha * (exp(x) - 1) : x)", selu_kernel,
                  selu_ref)
            .attr("alpha", AttrKind::kFloat, f(1.67326319217681884765625f))
            .attr("gamma", AttrKind::kFloat, f(1.05070102214813232421875f)));
  r.add(pointwise("Celu", 12, {DType::kF32}, "y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))",
                  celu_kernel, celu_ref)
            .attr("alpha", AttrKind::kFloat, f(1.0f))
            .infer([](const InferContext& c) {
              if (c.attrs.f("alpha") == 0.f)
                throw ShapeError(cat(c.op.name(), ": alpha must not be 0"));
              return infer_unary(c);
            }));
  r.add(
      pointwise("LeakyRelu", 1, fl, "y = x < 0 ? alpha * x : x", leaky_relu_kernel, leaky_relu_ref)
          .attr("alpha", AttrKind::kFloat, f(0.01f)));
  r.add(pointwise("HardSigmoid", 1, fl, "y = max(0, min(1, alpha * x + beta))", hard_sigmoid_kernel,
                  hard_sigmoid_ref)
            .attr("alpha", AttrKind::kFloat, f(0.2f))
            .attr("beta", AttrKind::kFloat, f(0.5f)));
  r.add(pointwise("HardSwish", 14, fl, "y = x * max(0, min(1, x / 6 + 1/2))", hard_swish_kernel,
                  hard_swish_ref));
  r.add(pointwise("Softplus", 1, fl, "y = ln(exp(x) + 1)", softplus_kernel, softplus_ref));
  r.add(pointwise("Mish", 18, fl, "y = x * tanh(ln(exp(x) + 1))", mish_kernel, mish_ref));
  r.add(pointwise("Gelu", 20, fl, "y = x * (1 + erf(x / sqrt(2))) / 2, or its tanh approximation",
                  gelu_kernel, gelu_ref)
            .attr("approximate", AttrKind::kString, AttrValue{std::string("none")})
            .infer([](const InferContext& c) {
              const std::string& mode = c.attrs.s("approximate");
              if (mode != "none" && mode != "tanh")
                throw ShapeError(
                    cat(c.op.name(), ": approximate must be 'none' or 'tanh', got '", mode, "'"));
              return infer_unary(c);
            }));
  r.add(pointwise("Softsign", 1, fl, "y = x / (1 + |x|)", softsign_kernel, softsign_ref));
  register_activations_prelu(r);
  register_activations_clip(r);
}

}  // namespace asc
