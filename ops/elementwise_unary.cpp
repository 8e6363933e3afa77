// Unary math and activations: one tile y = f(x), computed in f32 for f16/bf16 storage.
#include <cmath>

#include "ops/ops.h"
#include "registry/infer.h"
#include "registry/tiling.h"

namespace asc {
namespace {

struct UnaryOpInfo {
  const char* type;
  int since;
  UnaryOp op;
  bool signed_ints;  // also defined on signed integers
  double (*ref)(double);
  const char* doc;
};

double ref_neg(double x) {
  return -x;
}
double ref_abs(double x) {
  return std::fabs(x);
}
double ref_relu(double x) {
  return x > 0 ? x : 0.0;
}
double ref_sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
double ref_tanh(double x) {
  return std::tanh(x);
}
double ref_exp(double x) {
  return std::exp(x);
}
double ref_log(double x) {
  return std::log(x);
}
double ref_sqrt(double x) {
  return std::sqrt(x);
}
double ref_recip(double x) {
  return 1.0 / x;
}
double ref_erf(double x) {
  return std::erf(x);
}

constexpr UnaryOpInfo kUnary[] = {
    {"Neg", 6, UnaryOp::kNeg, true, ref_neg, "y = -x"},
    {"Abs", 6, UnaryOp::kAbs, true, ref_abs, "y = |x|"},
    {"Relu", 6, UnaryOp::kRelu, true, ref_relu, "y = max(x, 0)"},
    {"Sigmoid", 6, UnaryOp::kSigmoid, false, ref_sigmoid, "y = 1 / (1 + exp(-x))"},
    {"Tanh", 6, UnaryOp::kTanh, false, ref_tanh, "y = tanh(x)"},
    {"Exp", 6, UnaryOp::kExp, false, ref_exp, "y = exp(x)"},
    {"Log", 6, UnaryOp::kLog, false, ref_log, "y = ln(x)"},
    {"Sqrt", 6, UnaryOp::kSqrt, false, ref_sqrt, "y = sqrt(x)"},
    {"Reciprocal", 6, UnaryOp::kReciprocal, false, ref_recip, "y = 1 / x"},
    {"Erf", 9, UnaryOp::kErf, false, ref_erf, "y = erf(x)"},
};

}  // namespace

void register_elementwise_unary(Registry& r) {
  for (const UnaryOpInfo& u : kUnary) {
    std::vector<DType> types = float_types();
    if (u.signed_ints)
      types.insert(types.end(), {DType::kI8, DType::kI16, DType::kI32, DType::kI64});
    const UnaryOp op = u.op;
    auto* ref = u.ref;
    r.add(def_op(u.type, u.since)
              .input("X", "T")
              .output("Y", "T")
              .type_constraint("T", types)
              .trait(kElementwise)
              .describe(u.doc)
              .infer(infer_unary)
              .tiling(elementwise_tiling)
              .kernel([op](TileBuilder& t) { ew_store(t, 0, t.unary(op, ew_load(t, 0))); })
              .reference([ref](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
                ref_elementwise(in, out[0], [ref](const double* v) { return ref(v[0]); });
              }));
  }
}

}  // namespace asc
