// FusedRMSNorm (ai.asc 1): what the pass makes of Pow(x, 2) -> ReduceMean(last axis) -> Add(eps)
// -> Sqrt -> Div(x, .) (or Reciprocal + Mul) -> Mul(scale):
//   Y = X / sqrt(mean(X^2 over [axis, rank)) + epsilon) * scale
// X [d0..dr-1] (f32, f16, bf16), scale (optional) shaped like X.shape[axis:] with leading 1s
// allowed; Y like X. The tile kernel, tiling and reference are SimplifiedLayerNormalization's
// (ops/contrib_norm.cpp): rows of whole normalised extents per tile, sum of squares, rsqrt, scale,
// computed in f32.
#include "ops/contrib.h"
#include "ops/fused.h"
#include "registry/infer.h"

namespace asc::fused {
namespace {

std::vector<TensorType> infer_rms(const InferContext& c) {
  const TensorType& x = c.inputs[0];
  if (!x.shape) return {x};
  const auto rank = static_cast<int64_t>(x.shape->size());
  if (rank == 0) throw ShapeError("FusedRMSNorm: X must have rank >= 1");
  const auto axis = static_cast<size_t>(normalize_axis(c.attrs.i("axis"), rank));
  const TensorType* scale =
      c.inputs.size() > 1 && c.inputs[1].dtype != DType::kUndefined ? &c.inputs[1] : nullptr;
  if (scale && scale->shape) {
    const SymShape& s = *scale->shape;
    const size_t n = x.shape->size() - axis;
    bool ok = s.size() >= n;
    for (size_t i = 0; ok && i < s.size(); ++i) {
      const size_t from_end = s.size() - i;
      const Dim& d = s[i];
      if (from_end > n) {
        ok = !(d.known() && d.value() != 1);
      } else {
        const Dim& xd = (*x.shape)[x.shape->size() - from_end];
        ok = !(d.known() && xd.known() && d.value() != xd.value());
      }
    }
    if (!ok)
      throw ShapeError(cat("FusedRMSNorm: scale ", scale->str(), " must have the shape of X ",
                           x.str(), " from axis ", axis));
  }
  return {x};
}

}  // namespace

void add_norm(Registry& r) {
  r.add(def_op("FusedRMSNorm", 1, INT_MAX, kDomain)
            .input("X", "T")
            .input("scale", "T", Arity::kOptional)
            .output("Y", "T")
            .attr("axis", AttrKind::kInt, int64_t{-1})
            .attr("epsilon", AttrKind::kFloat, 1e-6f)
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .trait(kNormalization)
            .describe("Y = X / sqrt(mean(X^2 over axis..) + epsilon) * scale (fused RMSNorm)")
            .infer(infer_rms)
            .tiling(contrib::rms_norm_tiling)
            .kernel(contrib::rms_norm_kernel)
            .reference(contrib::rms_norm_reference));
}

}  // namespace asc::fused
