// Piecewise activations built from compare/select: PRelu (slope broadcast unidirectionally to X),
// ThresholdedRelu and Shrink. f16/bf16 compute in f32; Shrink on integers computes in f64 (its
// lambd and bias are floats) and truncates toward zero on store.
#include <climits>
#include <cmath>
#include <tuple>

#include "ops/activations.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

// Y has X's shape; slope must broadcast to X without growing it (unidirectional broadcasting).
std::vector<TensorType> infer_prelu(const InferContext& c) {
  const TensorType& x = c.inputs.at(0);
  const TensorType& s = c.inputs.at(1);
  if (x.shape && s.shape) {
    const SymShape &xs = *x.shape, &ss = *s.shape;
    bool ok = ss.size() <= xs.size();
    for (size_t d = 0; ok && d < ss.size(); ++d) {
      const Dim& sd = ss[d];
      const Dim& xd = xs[xs.size() - ss.size() + d];
      ok = !sd.known() || sd.value() == 1 || !xd.known() || sd.value() == xd.value();
    }
    if (!ok)
      throw ShapeError(cat(c.op.name(), ": slope ", to_string(ss),
                           " does not broadcast unidirectionally to X ", to_string(xs)));
  }
  return {x};
}

// PRelu 1-6 follows the exporters of its time: a 1-D slope of X.dims[1] elements is per channel
// (axis 1), one element is shared; anything else broadcasts unidirectionally as in 7+. Returns
// the shape slope is read as: [C, 1, ..., 1] for a per-channel slope, else its own shape.
Shape prelu_slope_shape(bool per_channel, const Shape& x, const Shape& s) {
  if (!per_channel || s.size() != 1 || x.size() < 2 || s[0] != x[1] || s[0] == 1) return s;
  Shape v(x.size() - 1, 1);
  v[0] = s[0];
  return v;
}

std::vector<TensorType> infer_prelu6(const InferContext& c) {
  const TensorType& x = c.inputs.at(0);
  const TensorType& s = c.inputs.at(1);
  const auto xs = x.shape ? to_concrete(*x.shape) : std::nullopt;
  const auto ss = s.shape ? to_concrete(*s.shape) : std::nullopt;
  if (!xs || !ss) return {x};
  std::vector<TensorType> inputs = c.inputs;
  inputs[1].shape = to_sym(prelu_slope_shape(true, *xs, *ss));
  return infer_prelu(InferContext{c.op, inputs, c.attrs, c.values});
}

LaunchContext prelu_view(bool per_channel, const LaunchContext& ctx) {
  LaunchContext v = ctx;
  v.inputs[1].shape = prelu_slope_shape(per_channel, ctx.inputs[0].shape, ctx.inputs[1].shape);
  return v;
}

// y = x < 0 ? slope * x : x
void prelu_kernel(bool per_channel, TileBuilder& t) {
  const LaunchContext v = prelu_view(per_channel, t.ctx());
  Buf x = act_load(t, v, 0);
  Buf slope = act_load(t, v, 1);
  Buf neg = t.compare(CmpOp::kLt, x, t.duplicate(t.dtype(x), t.dims(x), 0.0));
  act_store(t, v, 0, t.select(neg, x * slope, x));
}

void prelu_ref(bool per_channel, std::span<const Tensor> in, std::span<Tensor> out) {
  const Shape s = prelu_slope_shape(per_channel, in[0].shape(), in[1].shape());
  const Tensor slope =
      Tensor::wrap(in[1].dtype(), s, const_cast<void*>(in[1].data()));  // a reshaped view
  const Tensor args[] = {in[0], slope};
  ref_elementwise(args, out[0], [](const double* v) { return v[0] < 0 ? v[0] * v[1] : v[0]; });
}

// y = x > alpha ? x : 0
void thresholded_relu_kernel(TileBuilder& t) {
  Buf x = ew_load(t, 0);
  const double alpha = t.ctx().attr().f("alpha");
  Buf above = t.compare(CmpOp::kGt, x, t.duplicate(t.dtype(x), t.dims(x), alpha));
  ew_store(t, 0, t.select(above, x, t.duplicate(t.dtype(x), t.dims(x), 0.0)));
}

// y = x < -lambd ? x + bias : (x > lambd ? x - bias : 0)
void shrink_kernel(TileBuilder& t) {
  Buf x = ew_load(t, 0);
  if (dtype_is_integer(t.dtype(x))) x = t.cast(x, DType::kF64);
  const double lambd = t.ctx().attr().f("lambd");
  const double bias = t.ctx().attr().f("bias");
  const DType dt = t.dtype(x);
  const Shape dims = t.dims(x);  // a copy: new buffers may move the declarations
  Buf below = t.compare(CmpOp::kLt, x, t.duplicate(dt, dims, -lambd));
  Buf above = t.compare(CmpOp::kGt, x, t.duplicate(dt, dims, lambd));
  Buf upper = t.select(above, x - bias, t.duplicate(dt, dims, 0.0));
  ew_store(t, 0, t.select(below, x + bias, upper));
}

}  // namespace

void register_activations_prelu(Registry& r) {
  const std::vector<DType>& fl = float_types();
  std::vector<DType> prelu9 = fl;
  prelu9.insert(prelu9.end(), {DType::kI32, DType::kI64, DType::kU32, DType::kU64});
  for (const auto& [since, until, types] :
       {std::tuple{1, 6, fl}, std::tuple{7, 8, fl}, std::tuple{9, INT_MAX, prelu9}}) {
    const bool per_channel = since < 7;
    r.add(
        def_op("PRelu", since, until)
            .input("X", "T")
            .input("slope", "T")
            .output("Y", "T")
            .type_constraint("T", types)
            // Opsets 1-6 broadcast the slope per channel, not numpy-style: no kBroadcast.
            .trait(kElementwise | (per_channel ? 0u : uint32_t{kBroadcast}))
            .describe(per_channel
                          ? "Y = X < 0 ? slope * X : X, a 1-D slope of X.dims[1] elements per "
                            "channel, else broadcast unidirectionally"
                          : "Y = X < 0 ? slope * X : X, slope broadcast unidirectionally to X")
            .infer(per_channel ? InferFn(infer_prelu6) : InferFn(infer_prelu))
            .tiling([per_channel](const LaunchContext& c) {
              return elementwise_tiling(prelu_view(per_channel, c));
            })
            .kernel([per_channel](TileBuilder& t) { prelu_kernel(per_channel, t); })
            .reference([per_channel](const Attrs&, std::span<const Tensor> in,
                                     std::span<Tensor> out) { prelu_ref(per_channel, in, out); }));
  }
  r.add(def_op("ThresholdedRelu", 10)
            .input("X", "T")
            .output("Y", "T")
            .attr("alpha", AttrKind::kFloat, AttrValue{1.0f})
            .type_constraint("T", fl)
            .trait(kElementwise)
            .describe("y = x > alpha ? x : 0")
            .infer(infer_unary)
            .tiling(elementwise_tiling)
            .kernel(thresholded_relu_kernel)
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              const double alpha = a.f("alpha");
              ref_elementwise(in, out[0],
                              [alpha](const double* v) { return v[0] > alpha ? v[0] : 0; });
            }));
  r.add(def_op("Shrink", 9)
            .input("input", "T")
            .output("output", "T")
            .attr("bias", AttrKind::kFloat, AttrValue{0.0f})
            .attr("lambd", AttrKind::kFloat, AttrValue{0.5f})
            .type_constraint("T", numeric_types())
            .trait(kElementwise)
            .describe("y = x < -lambd ? x + bias : (x > lambd ? x - bias : 0)")
            .infer(infer_unary)
            .tiling(elementwise_tiling)
            .kernel(shrink_kernel)
            .reference([](const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
              const double lambd = a.f("lambd"), bias = a.f("bias");
              ref_elementwise(in, out[0], [lambd, bias](const double* v) {
                if (v[0] < -lambd) return v[0] + bias;
                return v[0] > lambd ? v[0] - bias : 0.0;
              });
            }));
}

}  // namespace asc
