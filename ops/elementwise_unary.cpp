// Unary math and activations that are one vector instruction: y = f(x), computed in f32 for
// f16/bf16 storage. Ops dating from opset 1 also get their 1-5 version (the `consumed_inputs`
// attribute, otherwise the same). Composed functions (Tan, Asin, Sinh, ...) live in
// elementwise_math.cpp.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/ops.h"
#include "registry/tiling.h"

namespace asc {
namespace {

enum class Types : uint8_t { kFloat, kSignedOrFloat, kNumeric };

struct UnaryOpInfo {
  const char* type;
  int since;
  bool legacy;  // also registered for opsets 1-5 (consumed_inputs)
  UnaryOp op;
  Types types;
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
double ref_sin(double x) {
  return std::sin(x);
}
double ref_cos(double x) {
  return std::cos(x);
}
double ref_floor(double x) {
  return std::floor(x);
}
double ref_ceil(double x) {
  return std::ceil(x);
}
double ref_round(double x) {  // half to even
  const double f = std::floor(x);
  const double d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return std::fmod(f, 2.0) == 0 ? f : f + 1;
}
double ref_sign(double x) {
  if (std::isnan(x)) return x;
  return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
}

constexpr UnaryOpInfo kUnary[] = {
    {"Neg", 6, true, UnaryOp::kNeg, Types::kSignedOrFloat, ref_neg, "y = -x"},
    {"Abs", 6, true, UnaryOp::kAbs, Types::kNumeric, ref_abs, "y = |x|"},
    {"Relu", 6, true, UnaryOp::kRelu, Types::kSignedOrFloat, ref_relu, "y = max(x, 0)"},
    {"Sigmoid", 6, true, UnaryOp::kSigmoid, Types::kFloat, ref_sigmoid, "y = 1 / (1 + exp(-x))"},
    {"Tanh", 6, true, UnaryOp::kTanh, Types::kFloat, ref_tanh, "y = tanh(x)"},
    {"Exp", 6, true, UnaryOp::kExp, Types::kFloat, ref_exp, "y = exp(x)"},
    {"Log", 6, true, UnaryOp::kLog, Types::kFloat, ref_log, "y = ln(x)"},
    {"Sqrt", 6, true, UnaryOp::kSqrt, Types::kFloat, ref_sqrt, "y = sqrt(x)"},
    {"Reciprocal", 6, true, UnaryOp::kReciprocal, Types::kFloat, ref_recip, "y = 1 / x"},
    {"Floor", 6, true, UnaryOp::kFloor, Types::kFloat, ref_floor, "y = floor(x)"},
    {"Ceil", 6, true, UnaryOp::kCeil, Types::kFloat, ref_ceil, "y = ceil(x)"},
    {"Sin", 7, false, UnaryOp::kSin, Types::kFloat, ref_sin, "y = sin(x)"},
    {"Cos", 7, false, UnaryOp::kCos, Types::kFloat, ref_cos, "y = cos(x)"},
    {"Erf", 9, false, UnaryOp::kErf, Types::kFloat, ref_erf, "y = erf(x)"},
    {"Sign", 9, false, UnaryOp::kSign, Types::kNumeric, ref_sign,
     "y = -1, 0 or 1 by the sign of x"},
    {"Round", 11, false, UnaryOp::kRound, Types::kFloat, ref_round,
     "y = x rounded to the nearest integer, halves to even"},
};

std::vector<DType> types_of(Types t) {
  switch (t) {
    case Types::kFloat:
      return float_types();
    case Types::kSignedOrFloat:
      return ew_plus(float_types(), {DType::kI8, DType::kI16, DType::kI32, DType::kI64});
    case Types::kNumeric:
      return numeric_types();
  }
  return {};
}

OpDef unary_def(const UnaryOpInfo& u, int since, int until) {
  const UnaryOp op = u.op;
  auto* ref = u.ref;
  OpDef d = def_op(u.type, since, until);
  if (since < 6) d.attr("consumed_inputs", AttrKind::kInts, std::vector<int64_t>{});
  d.input("X", "T")
      .output("Y", "T")
      .type_constraint("T", since < 6 ? ew_f16_f32_f64() : types_of(u.types))
      .trait(kElementwise)
      .describe(u.doc)
      .infer(infer_unary)
      .tiling(elementwise_tiling)
      .kernel([op](TileBuilder& t) { ew_store(t, 0, t.unary(op, ew_load(t, 0))); })
      .reference([ref](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
        ref_elementwise(in, out[0], [ref](const double* v) { return ref(v[0]); });
      });
  return d;
}

}  // namespace

void register_elementwise_unary(Registry& r) {
  for (const UnaryOpInfo& u : kUnary) {
    r.add(unary_def(u, u.since, INT_MAX));
    if (u.legacy) r.add(unary_def(u, 1, u.since - 1));
  }
  register_elementwise_math(r);
}

}  // namespace asc
