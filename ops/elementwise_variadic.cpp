// Max, Min, Sum, Mean over 1..N inputs. Opsets 1-7 require equal shapes (1-5 also carry the legacy
// consumed_inputs attribute, ignored); from 8 the inputs broadcast numpy-style. One tile folds the
// inputs left to right: y = x0 op x1 op ... (Mean then divides by N), in f32 for f16/bf16 storage.
// Float Max/Min propagate NaN.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tiling.h"

namespace asc {
namespace {

enum class Fold : uint8_t { kMax, kMin, kSum, kMean };

struct VariadicVersion {
  int since, until;
  bool broadcast;
  std::vector<DType> types;
  bool consumed = false;  // opsets 1-5: the legacy consumed_inputs attribute
};

std::vector<TensorType> infer_variadic(const InferContext& c, bool broadcast) {
  if (c.inputs.empty()) throw ShapeError(cat(c.op.name(), ": needs at least one input"));
  auto out = infer_broadcast(c);
  if (!broadcast && out[0].shape) {
    for (const auto& in : c.inputs) {
      if (in.shape && to_concrete(*in.shape) && to_concrete(*out[0].shape) &&
          *in.shape != *out[0].shape)
        throw ShapeError(cat(c.op.name(), ": inputs ", to_string(*c.inputs[0].shape), " and ",
                             to_string(*in.shape), " differ (no broadcasting before opset 8)"));
    }
  }
  return out;
}

void fold_kernel(TileBuilder& t, Fold f) {
  const int n = static_cast<int>(t.ctx().inputs.size());
  Buf acc = ew_load(t, 0);
  for (int i = 1; i < n; ++i) {
    const Buf x = ew_load(t, i);
    switch (f) {
      case Fold::kMax:
        acc = max(acc, x);
        break;
      case Fold::kMin:
        acc = min(acc, x);
        break;
      default:
        acc = acc + x;
        break;
    }
  }
  if (f == Fold::kMean) acc = acc / static_cast<double>(n);
  ew_store(t, 0, acc);
}

double fold_ref(Fold f, const double* v, size_t n) {
  double acc = v[0];
  for (size_t i = 1; i < n; ++i) {
    if (f == Fold::kSum || f == Fold::kMean) {
      acc += v[i];
    } else if (std::isnan(acc) || std::isnan(v[i])) {
      acc = NAN;
    } else {
      acc = f == Fold::kMax ? std::max(acc, v[i]) : std::min(acc, v[i]);
    }
  }
  return f == Fold::kMean ? acc / static_cast<double>(n) : acc;
}

void add_variadic(Registry& r, const char* type, const char* out, Fold f, const VariadicVersion& v,
                  const char* doc) {
  const bool bc = v.broadcast;
  OpDef d = def_op(type, v.since, v.until);
  if (v.consumed) d.attr("consumed_inputs", AttrKind::kInts, std::vector<int64_t>{});
  d.input("data_0", "T", Arity::kVariadic)
      .output(out, "T")
      .type_constraint("T", v.types)
      .trait(kElementwise | (bc ? uint32_t{kBroadcast} : 0u) | kCommutative)
      .describe(doc)
      .infer([bc](const InferContext& c) { return infer_variadic(c, bc); })
      .tiling(elementwise_tiling)
      .kernel([f](TileBuilder& t) { fold_kernel(t, f); })
      .reference([f](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
        const size_t n = in.size();
        ref_elementwise(in, out[0], [f, n](const double* x) { return fold_ref(f, x, n); });
      });
  r.add(std::move(d));
}

}  // namespace

void register_elementwise_variadic(Registry& r) {
  const std::vector<VariadicVersion> minmax = {
      {1, 5, false, ew_f16_f32_f64(), true}, {6, 7, false, ew_f16_f32_f64()},
      {8, 11, true, ew_f16_f32_f64()},       {12, 12, true, ew_numeric(false)},
      {13, INT_MAX, true, ew_numeric(true)},
  };
  for (const auto& v : minmax) {
    add_variadic(r, "Max", "max", Fold::kMax, v, "max = elementwise maximum of the inputs");
    add_variadic(r, "Min", "min", Fold::kMin, v, "min = elementwise minimum of the inputs");
  }
  const std::vector<VariadicVersion> sums = {
      {1, 5, false, ew_f16_f32_f64(), true},
      {6, 7, false, ew_f16_f32_f64()},
      {8, 12, true, ew_f16_f32_f64()},
      {13, INT_MAX, true, ew_floats(true)},
  };
  for (const auto& v : sums) {
    add_variadic(r, "Sum", "sum", Fold::kSum, v, "sum = elementwise sum of the inputs");
    add_variadic(r, "Mean", "mean", Fold::kMean, v, "mean = elementwise mean of the inputs");
  }
}

}  // namespace asc
