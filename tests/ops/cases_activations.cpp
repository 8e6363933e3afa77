// Cases of the activations family: pointwise activations, PRelu, ThresholdedRelu, Shrink, Clip,
// Dropout and CastLike.
#include "ops/op_cases.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16, kF64 = DType::kF64;
const DType kBool = DType::kBool, kI32 = DType::kI32, kI64 = DType::kI64;

// A fixed one-element tensor (a bound, ratio or training flag).
InputSpec fixed_scalar(DType dt, double v, Shape shape = {}) {
  Tensor t(dt, std::move(shape));
  t.set(0, v);
  return fixed_tensor(std::move(t));
}

OpCase with(OpCase c, std::initializer_list<std::pair<const char*, AttrValue>> attrs,
            std::string label) {
  for (const auto& [k, v] : attrs) c.attrs.set(k, v);
  c.label = std::move(label);
  return c;
}

void add_pointwise(std::vector<OpCase>& v) {
  struct Op {
    const char* name;
    int opset;
    double lo, hi;
    bool f32_only;
  };
  const Op ops[] = {{"Elu", 17, -6, 4, false},
                    {"Selu", 17, -6, 4, false},
                    {"Celu", 17, -6, 4, true},
                    {"LeakyRelu", 17, -4, 4, false},
                    {"HardSigmoid", 17, -6, 6, false},
                    {"HardSwish", 17, -5, 5, false},
                    {"Softplus", 17, -30, 30, false},
                    {"Softsign", 17, -10, 10, false},
                    {"Mish", 18, -30, 30, false},
                    {"Gelu", 20, -6, 6, false},
                    {"ThresholdedRelu", 17, -3, 3, false}};
  for (const Op& op : ops) {
    for (const Shape& s : {Shape{}, Shape{0}, Shape{1}, Shape{1023}, Shape{3, 5, 7}})
      v.push_back({op.name, op.opset, {in(kF32, s, op.lo, op.hi)}});
    if (op.f32_only) continue;
    for (DType dt : {kF16, kBF16})
      v.push_back({op.name, op.opset, {in(dt, {4, 129}, op.lo, op.hi)}});
    v.push_back({op.name, op.opset, {in(kF64, {2, 33}, op.lo, op.hi)}});
  }
  const Shape s{5, 17};
  v.push_back(with({"Elu", 6, {in(kF32, s, -5, 5)}}, {{"alpha", 2.5f}}, "alpha2.5"));
  v.push_back(with({"Selu", 6, {in(kF32, s, -5, 5)}}, {{"alpha", 2.0f}, {"gamma", 3.0f}}, "a2_g3"));
  v.push_back(with({"Celu", 12, {in(kF32, s, -5, 5)}}, {{"alpha", 2.0f}}, "alpha2"));
  v.push_back(with({"Celu", 12, {in(kF32, s, -5, 5)}}, {{"alpha", 0.5f}}, "alpha0.5"));
  v.push_back(with({"LeakyRelu", 6, {in(kF32, s, -5, 5)}}, {{"alpha", 0.1f}}, "alpha0.1"));
  v.push_back(with({"LeakyRelu", 16, {in(kF16, s, -5, 5)}}, {{"alpha", -2.0f}}, "alpha-2"));
  v.push_back(with({"HardSigmoid", 6, {in(kF32, s, -5, 5)}}, {{"alpha", 0.5f}, {"beta", 0.6f}},
                   "a0.5_b0.6"));
  v.push_back({"HardSwish", 14, {in(kF32, s, -8, 8)}});
  v.push_back({"Softplus", 1, {in(kF32, s, -100, 100)}});
  v.push_back({"Softsign", 1, {in(kF32, s, -100, 100)}});
  v.push_back({"Elu", 1, {in(kF32, s, -5, 5)}});
  for (DType dt : {kF32, kF16, kF64})
    v.push_back(
        with({"Gelu", 20, {in(dt, s, -6, 6)}}, {{"approximate", std::string("tanh")}}, "tanh"));
  v.push_back({"Clip", 1, {in(kF32, s)}});
  v.push_back(with({"ThresholdedRelu", 10, {in(kF32, s, -3, 3)}}, {{"alpha", 0.5f}}, "alpha0.5"));
  v.push_back(with({"ThresholdedRelu", 10, {in(kF32, s, -3, 3)}}, {{"alpha", -1.0f}}, "alpha-1"));
}

void add_prelu_shrink(std::vector<OpCase>& v) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{3, 4, 5}, {5}}, {{3, 4, 5}, {4, 1}}, {{2, 3}, {}},         {{}, {}},
      {{0, 3}, {3}},    {{7}, {1}},          {{65, 33}, {65, 33}}, {{2, 3, 4, 5}, {3, 1, 1}},
      {{1000}, {1000}}};
  for (const auto& [x, s] : shapes) v.push_back({"PRelu", 16, {in(kF32, x), in(kF32, s)}});
  v.push_back({"PRelu", 8, {in(kF32, {3, 4, 5}), in(kF32, {5})}});
  // Opset 6: a 1-D slope of X.dims[1] elements is per channel.
  for (const auto& [x, s] : std::vector<std::pair<Shape, Shape>>{
           {{2, 3, 4, 5}, {3}}, {{2, 3, 4}, {1}}, {{2, 3}, {3}}, {{2, 3, 4}, {4}}, {{5}, {5}}})
    v.push_back({"PRelu", 6, {in(kF32, x), in(kF32, s)}});
  v.push_back({"PRelu", 7, {in(kF16, {3, 40}), in(kF16, {40})}});
  v.push_back({"PRelu", 16, {in(kBF16, {3, 40}), in(kBF16, {3, 1})}});
  v.push_back({"PRelu", 16, {in(kF64, {3, 40}), in(kF64, {40})}});
  v.push_back({"PRelu", 9, {in(kI32, {5, 6}, -50, 50), in(kI32, {6}, -3, 3)}});
  v.push_back({"PRelu", 16, {in(kI64, {5, 6}, -50, 50), in(kI64, {5, 1}, -3, 3)}});
  v.push_back({"PRelu", 16, {in(DType::kU32, {9}, 0, 50), in(DType::kU32, {1}, 0, 3)}});

  for (const Shape& s : {Shape{}, Shape{0}, Shape{1023}, Shape{3, 5, 7}})
    v.push_back({"Shrink", 17, {in(kF32, s)}});
  v.push_back({"Shrink", 9, {in(kF16, {4, 33})}});
  v.push_back({"Shrink", 9, {in(kBF16, {4, 33})}});
  v.push_back({"Shrink", 9, {in(kF64, {4, 33})}});
  const Shape s{5, 17};
  v.push_back(with({"Shrink", 9, {in(kF32, s, -3, 3)}}, {{"lambd", 1.5f}, {"bias", 1.5f}}, "soft"));
  v.push_back(with({"Shrink", 9, {in(kF32, s, -3, 3)}}, {{"lambd", 1.0f}}, "hard"));
  v.push_back(with({"Shrink", 9, {in(kI32, s, -5, 5)}}, {{"lambd", 1.5f}, {"bias", 1.0f}}, "int"));
  v.push_back(with({"Shrink", 9, {in(DType::kI8, s, -5, 5)}}, {{"lambd", 2.0f}, {"bias", 0.5f}},
                   "int_fbias"));
  v.push_back(
      with({"Shrink", 9, {in(DType::kU8, s, 0, 9)}}, {{"lambd", 3.0f}, {"bias", 2.0f}}, "uint"));
}

void add_clip(std::vector<OpCase>& v) {
  for (const Shape& s : {Shape{}, Shape{0}, Shape{1023}, Shape{3, 5, 7}}) {
    v.push_back(with({"Clip", 6, {in(kF32, s)}}, {{"min", -1.0f}, {"max", 0.5f}}, "attrs"));
    v.push_back({"Clip", 17, {in(kF32, s), fixed_scalar(kF32, -1), fixed_scalar(kF32, 0.5)}});
  }
  v.push_back({"Clip", 6, {in(kF32, {9})}});
  v.push_back(with({"Clip", 10, {in(kF16, {4, 33})}}, {{"min", 0.0f}}, "min_only"));
  v.push_back(with({"Clip", 6, {in(kF32, {9})}}, {{"min", 1.0f}, {"max", -1.0f}}, "min_gt_max"));
  v.push_back({"Clip", 11, {in(kF32, {4, 33}), fixed_scalar(kF32, -1), fixed_scalar(kF32, 1)}});
  v.push_back({"Clip", 11, {in(kF32, {4, 33})}, {}, "no_bounds"});
  v.push_back(
      {"Clip", 11, {in(kF32, {4, 33}), absent(), fixed_scalar(kF32, 0.25)}, {}, "max_only"});
  v.push_back({"Clip", 12, {in(kF32, {4, 33}), fixed_scalar(kF32, -0.5)}, {}, "min_only"});
  v.push_back({"Clip",
               13,
               {in(kF32, {9}), fixed_scalar(kF32, 1), fixed_scalar(kF32, -1)},
               {},
               "min_gt_max"});
  v.push_back({"Clip",
               13,
               {in(kF32, {}), fixed_scalar(kF32, -1, {1}), fixed_scalar(kF32, 1, {1})},
               {},
               "bounds_1"});
  v.push_back({"Clip", 13, {in(kF16, {3, 40}), fixed_scalar(kF16, -1), fixed_scalar(kF16, 1)}});
  v.push_back({"Clip", 13, {in(kBF16, {3, 40}), fixed_scalar(kBF16, -1), absent()}});
  v.push_back({"Clip", 13, {in(kF64, {3, 40}), fixed_scalar(kF64, -0.3), fixed_scalar(kF64, 1.7)}});
  v.push_back({"Clip", 13, {in(kF64, {0, 3}), fixed_scalar(kF64, -0.3), fixed_scalar(kF64, 1.7)}});
  v.push_back(
      {"Clip", 12, {in(kI32, {5, 6}, -50, 50), fixed_scalar(kI32, -7), fixed_scalar(kI32, 9)}});
  v.push_back({"Clip", 13, {in(kI64, {70}, -50, 50), absent(), fixed_scalar(kI64, 3)}});
  v.push_back({"Clip", 13, {in(DType::kU8, {70}, 0, 255), fixed_scalar(DType::kU8, 100)}});
  v.push_back(
      {"Clip",
       13,
       {in(DType::kI8, {70}, -100, 100), in(DType::kI8, {}, -20, 20), in(DType::kI8, {}, 0, 40)}});
}

void add_dropout(std::vector<OpCase>& v) {
  for (int opset : {7, 10}) {
    for (const Shape& s : {Shape{}, Shape{0}, Shape{1023}, Shape{3, 5, 7}})
      v.push_back({"Dropout", opset, {in(kF32, s)}});
    v.push_back(with({"Dropout", opset, {in(kF16, {4, 33})}}, {{"ratio", 0.2f}}, "ratio"));
    v.push_back({"Dropout", opset, {in(kF64, {4, 33})}});
  }
  for (const Shape& s : {Shape{}, Shape{0}, Shape{3, 5, 7}})
    v.push_back({"Dropout", 12, {in(kF32, s)}});
  v.push_back({"Dropout", 13, {in(kF32, {33}), fixed_scalar(kF32, 0.3)}, {}, "ratio"});
  v.push_back({"Dropout",
               13,
               {in(kF32, {33}), fixed_scalar(kF32, 0.3), fixed_scalar(kBool, 0)},
               {},
               "not_training"});
  v.push_back({"Dropout",
               13,
               {in(kF32, {4, 33}), fixed_scalar(kF32, 0), fixed_scalar(kBool, 1)},
               {},
               "training_ratio0"});
  v.push_back({"Dropout",
               13,
               {in(kF32, {4, 33}), absent(), fixed_scalar(kBool, 1)},
               {},
               "training_default_ratio"});
  v.push_back(
      with({"Dropout", 13, {in(kF32, {4, 33}), fixed_scalar(kF32, 0.75), fixed_scalar(kBool, 1)}},
           {{"seed", int64_t{42}}}, "training_seed"));
  for (DType dt : {kF16, kBF16, kF64})
    v.push_back({"Dropout",
                 13,
                 {in(dt, {4, 33}), fixed_scalar(dt, 0.5), fixed_scalar(kBool, 1)},
                 {},
                 "training"});
}

void add_castlike(std::vector<OpCase>& v) {
  const std::pair<DType, DType> casts[] = {{kF32, kF16}, {kF16, kF32}, {kF32, kBF16}, {kBF16, kF32},
                                           {kF64, kF32}, {kF32, kF64}, {kF64, kF16},  {kF16, kF64},
                                           {kF32, kI64}, {kI64, kF32}, {kF32, kBool}, {kBool, kF32},
                                           {kI32, kI64}, {kF32, kF32}};
  for (const auto& [from, to] : casts) {
    for (const Shape& s : {Shape{}, Shape{0}, Shape{5, 67}})
      v.push_back({"CastLike", 17, {in(from, s, -100, 100), in(to, {})}});
    v.push_back({"CastLike", 21, {in(from, {4, 9}, -100, 100), in(to, {2})}, {}, "opset21"});
  }
  v.push_back(
      {"CastLike", 19, {in(kF32, {6}, -9, 9), in(kF16, {})}, {{"saturate", int64_t{1}}}, "sat1"});
  v.push_back(
      {"CastLike", 15, {in(kF32, {3, 4}, -100, 100), in(kI32, {2, 3, 4, 5})}, {}, "target_rank4"});
  v.push_back({"CastLike", 15, {in(kF32, {}, -100, 100), in(kF16, {7})}, {}, "target_vec"});
}

}  // namespace

std::vector<OpCase> cases_activations() {
  std::vector<OpCase> v;
  add_pointwise(v);
  add_prelu_shrink(v);
  add_clip(v);
  add_dropout(v);
  add_castlike(v);
  return v;
}

}  // namespace asc::test
