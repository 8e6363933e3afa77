// Cases of the normalization family: LayerNormalization (axes, broadcast parameters, optional B,
// statistics outputs, chunked rows), MeanVarianceNormalization (multi-axis views),
// InstanceNormalization, GroupNormalization, BatchNormalization (every version, spatial = 0,
// training mode), Hardmax, LRN, NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (reductions,
// weights, ignore_index, log_prob). Long rows force the chunked (multi-pass) kernels.
#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kF64 = DType::kF64, kBF16 = DType::kBF16;

OpCase layer_norm(DType dt, const Shape& x, int64_t axis, bool bias, bool scalar_params = false) {
  Shape p(x.begin() + (axis < 0 ? axis + static_cast<int64_t>(x.size()) : axis), x.end());
  if (scalar_params) p = {1};
  std::vector<InputSpec> ins = {in(dt, x), in(dt, p)};
  if (bias) ins.push_back(in(dt, p));
  OpCase c{"LayerNormalization", 17, ins, Attrs{{"axis", axis}}};
  c.label = cat("axis", axis, bias ? "" : "/no_bias", scalar_params ? "/scalar_params" : "");
  return c;
}

OpCase batch_norm(int opset, DType dt, const Shape& x, Attrs a = {}, std::string label = "") {
  Shape p = {x[1]};
  if (a.has("spatial") && a.i("spatial") == 0) p.assign(x.begin() + 1, x.end());
  OpCase c{"BatchNormalization",
           opset,
           {in(dt, x), in(dt, p), in(dt, p), in(dt, p), in(dt, p, 0.1, 2.0)},
           std::move(a),
           std::move(label)};
  return c;
}

OpCase loss(const std::string& op, int opset, DType dt, const Shape& x, bool weight,
            const std::string& reduction, std::optional<int64_t> ignore, std::string label = "") {
  Shape t = x;
  t.erase(t.begin() + 1);
  std::vector<InputSpec> ins = {in(dt, x, -3, 3), in_int(DType::kI64, t, 0, x[1] - 1)};
  if (weight) ins.push_back(in(dt, {x[1]}, 0.1, 2.0));
  Attrs a{{"reduction", reduction}};
  if (ignore) a.set("ignore_index", *ignore);
  OpCase c{op, opset, ins, a};
  c.label = cat(reduction, weight ? "/weight" : "", ignore ? cat("/ii", *ignore) : "", label);
  return c;
}

// Targets with ignore_index entries: values in [0, 3] of a [3, 4, 5] input, some equal to 1.
InputSpec targets_with_ignored() {
  return fixed_i64({0, 1, 2, 3, 1, 1, 0, 2, 1, 3, 1, 2, 0, 0, 1}, Shape{3, 5});
}

}  // namespace

std::vector<OpCase> cases_normalization() {
  std::vector<OpCase> v;
  // LayerNormalization.
  for (const auto& [shape, axis] : std::vector<std::pair<Shape, int64_t>>{
           {{3, 5}, -1},
           {{3, 5}, 0},
           {{2, 3, 7}, 1},
           {{2, 3, 7}, -1},
           {{4, 1, 6}, 1},
           {{7}, 0},
           {{5, 1}, -1},
           {{0, 6}, 1},
           {{65, 33}, 1},
           {{3, 20001}, 1},
           {{2, 3, 12000}, 1},
       })
    v.push_back(layer_norm(kF32, shape, axis, true));
  v.push_back(layer_norm(kF32, {4, 9}, -1, false));
  v.push_back(layer_norm(kF32, {4, 9}, -1, true, true));
  v.push_back(layer_norm(kF16, {3, 129}, -1, true));
  v.push_back(layer_norm(kBF16, {2, 4, 8}, -2, true));
  v.push_back(layer_norm(kF64, {3, 20001}, -1, true));
  // Parameters broadcast along some normalised dims: the normalised dims stay apart in the view.
  v.push_back(OpCase{"LayerNormalization",
                     17,
                     {in(kF32, {2, 3, 4}), in(kF32, {3, 1}), in(kF32, {4})},
                     Attrs{{"axis", int64_t{1}}},
                     "axis1/broadcast_params"});
  v.push_back(OpCase{"LayerNormalization",
                     17,
                     {in(kF32, {2, 3, 20000}), in(kF32, {1, 3, 1}), in(kF32, {3, 20000})},
                     Attrs{{"axis", int64_t{-2}}},
                     "axis-2/broadcast_params/chunked"});
  v.push_back(OpCase{"LayerNormalization",
                     17,
                     {in(kF32, {3, 0}), in(kF32, {0})},
                     Attrs{{"axis", int64_t{1}}},
                     "empty_rows"});
  {
    OpCase c = layer_norm(kF32, {3, 2, 4}, 1, true);
    c.attrs.set("epsilon", 0.5f);
    c.label += "/eps0.5";
    v.push_back(c);
  }
  // MeanVarianceNormalization.
  v.push_back(OpCase{"MeanVarianceNormalization", 9, {in(kF32, {2, 3, 4, 5})}, {}, "default_axes"});
  for (const auto& axes :
       std::vector<std::vector<int64_t>>{{1}, {0, 2}, {-1}, {0, 1, 2, 3}, {1, 3}})
    v.push_back(OpCase{"MeanVarianceNormalization",
                       13,
                       {in(kF32, {2, 3, 4, 5})},
                       Attrs{{"axes", axes}},
                       cat("axes", to_string(Shape(axes.begin(), axes.end())))});
  v.push_back(OpCase{"MeanVarianceNormalization",
                     13,
                     {in(kF32, {3, 2, 30001})},
                     Attrs{{"axes", std::vector<int64_t>{0, 2}}},
                     "axes[0,2]/chunked"});
  v.push_back(OpCase{"MeanVarianceNormalization", 13, {in(kF16, {2, 3, 4, 5})}, {}, "default"});
  // InstanceNormalization.
  v.push_back(OpCase{"InstanceNormalization",
                     1,
                     {in(kF32, {2, 3, 5}), in(kF32, {3}), in(kF32, {3})},
                     Attrs{{"consumed_inputs", std::vector<int64_t>{0, 0}}},
                     "legacy"});
  for (const Shape& s :
       std::vector<Shape>{{2, 3, 4}, {1, 5, 3, 3}, {3, 1, 7}, {2, 3, 1}, {2, 4, 0}, {2, 3, 20001}})
    v.push_back(
        OpCase{"InstanceNormalization", 6, {in(kF32, s), in(kF32, {s[1]}), in(kF32, {s[1]})}});
  v.push_back(OpCase{"InstanceNormalization",
                     6,
                     {in(kF16, {2, 3, 9}), in(kF16, {3}), in(kF16, {3})},
                     Attrs{{"epsilon", 0.01f}},
                     "eps0.01"});
  // GroupNormalization: per-group (18) and per-channel (21) parameters.
  for (const auto& [shape, groups] : std::vector<std::pair<Shape, int64_t>>{{{2, 6, 3, 4}, 3},
                                                                            {{2, 6, 5}, 1},
                                                                            {{1, 4, 7}, 4},
                                                                            {{3, 4}, 2},
                                                                            {{2, 4, 20001}, 2},
                                                                            {{2, 4, 0}, 2}}) {
    for (int opset : {18, 21}) {
      const int64_t p = opset == 18 ? groups : shape[1];
      v.push_back(OpCase{"GroupNormalization",
                         opset,
                         {in(kF32, shape), in(kF32, {p}), in(kF32, {p})},
                         Attrs{{"num_groups", groups}},
                         cat("groups", groups)});
    }
  }
  v.push_back(OpCase{"GroupNormalization",
                     21,
                     {in(kF16, {2, 4, 9}), in(kF16, {4}), in(kF16, {4})},
                     Attrs{{"num_groups", int64_t{2}}, {"epsilon", 0.01f}},
                     "groups2/eps0.01"});
  // BatchNormalization: inference in every version, spatial = 0, training mode (14+).
  for (int opset : {1, 6, 7, 9, 14, 15}) v.push_back(batch_norm(opset, kF32, {2, 3, 4, 5}));
  v.push_back(batch_norm(7, kF32, {2, 3, 4}, Attrs{{"spatial", int64_t{0}}}, "spatial0"));
  v.push_back(batch_norm(15, kF32, {3, 4}, {}, "rank2"));
  v.push_back(batch_norm(15, kF16, {2, 5, 7, 3}));
  v.push_back(batch_norm(15, kF32, {2, 3, 20001}));
  v.push_back(batch_norm(15, kF64, {2, 3, 5}, Attrs{{"epsilon", 0.01f}}, "eps0.01"));
  for (int opset : {14, 15}) {
    v.push_back(batch_norm(opset, kF32, {2, 3, 4, 5},
                           Attrs{{"training_mode", int64_t{1}}, {"momentum", 0.8f}}, "training"));
  }
  v.push_back(batch_norm(15, kF32, {4, 3, 20001}, Attrs{{"training_mode", int64_t{1}}},
                         "training/chunked"));
  v.push_back(batch_norm(15, kF32, {1, 5}, Attrs{{"training_mode", int64_t{1}}}, "training/rank2"));
  // Opset 15: X f16 with f32 parameters and statistics (T, T1, T2 independent).
  for (int64_t training : {0, 1})
    v.push_back(OpCase{
        "BatchNormalization",
        15,
        {in(kF16, {2, 3, 7}), in(kF32, {3}), in(kF32, {3}), in(kF32, {3}), in(kF32, {3}, 0.1, 2.0)},
        Attrs{{"training_mode", training}},
        cat("mixed_types/training", training)});
  // Hardmax (ties: inputs rounded to integers make repeated maxima likely).
  for (const auto& [shape, axis] : std::vector<std::pair<Shape, int64_t>>{
           {{3, 4}, -1}, {{2, 3, 4}, 1}, {{2, 3, 4}, 0}, {{5}, 0}, {{0, 3}, 1}})
    v.push_back(OpCase{"Hardmax", 13, {in(kF32, shape)}, Attrs{{"axis", axis}}, cat("axis", axis)});
  v.push_back(OpCase{"Hardmax", 13, {in_int(kF32, {4, 6}, -2, 2)}, {}, "ties"});
  v.push_back(OpCase{"Hardmax", 13, {in(kF16, {3, 5})}, {}, "default"});
  for (int64_t axis : {0, 1, 2, 3})
    v.push_back(
        OpCase{"Hardmax", 11, {in(kF32, {2, 3, 4})}, Attrs{{"axis", axis}}, cat("axis", axis)});
  // LRN.
  for (int64_t size : {1, 2, 3, 5})
    v.push_back(
        OpCase{"LRN", 13, {in(kF32, {2, 6, 3, 3})}, Attrs{{"size", size}}, cat("size", size)});
  v.push_back(OpCase{"LRN",
                     1,
                     {in(kF32, {1, 4, 5})},
                     Attrs{{"size", int64_t{3}}, {"alpha", 0.01f}, {"beta", 0.5f}, {"bias", 2.0f}},
                     "attrs"});
  v.push_back(OpCase{"LRN", 13, {in(kF16, {2, 3, 4})}, Attrs{{"size", int64_t{2}}}, "size2"});
  // Many channels: the unclipped windows run in a loop; long S is split over tiles; size > C.
  v.push_back(OpCase{"LRN", 13, {in(kF32, {2, 21, 5, 7})}, Attrs{{"size", int64_t{5}}}, "size5"});
  v.push_back(OpCase{"LRN", 13, {in(kF32, {1, 7, 30001})}, Attrs{{"size", int64_t{4}}}, "size4"});
  v.push_back(OpCase{"LRN", 13, {in(kF32, {3, 2})}, Attrs{{"size", int64_t{7}}}, "size7/rank2"});
  v.push_back(OpCase{"LRN", 13, {in(kF32, {2, 3, 0})}, Attrs{{"size", int64_t{3}}}, "empty"});
  v.push_back(OpCase{"LRN", 13, {in(kF64, {2, 6, 9})}, Attrs{{"size", int64_t{3}}}, "size3"});
  // Losses.
  for (const std::string op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    for (int opset : {12, 13})
      for (const std::string red : {"none", "sum", "mean"}) {
        v.push_back(loss(op, opset, kF32, {4, 5}, false, red, std::nullopt));
        v.push_back(loss(op, opset, kF32, {3, 4, 5}, true, red, std::nullopt));
      }
    v.push_back(loss(op, 13, kF32, {2, 3, 2, 4}, true, "mean", std::nullopt));
    v.push_back(loss(op, 13, kF64, {3, 6}, true, "sum", std::nullopt));
    v.push_back(loss(op, 13, kF16, {3, 6, 2}, false, "mean", std::nullopt));
    v.push_back(loss(op, 13, kF32, {0, 3}, false, "sum", std::nullopt, "/empty"));
    for (const std::string red : {"none", "sum", "mean"})
      for (bool weight : {false, true}) {
        OpCase c = loss(op, 13, kF32, {3, 4, 5}, weight, red, int64_t{1});
        c.inputs[1] = targets_with_ignored();
        v.push_back(c);
      }
    // ignore_index outside [0, C): targets equal to it are skipped, not range-checked.
    OpCase neg = loss(op, 13, kF32, {3, 4, 5}, true, "mean", int64_t{-1}, "/negative_ii");
    neg.inputs[1] = fixed_i64({0, -1, 2, 3, 1, -1, 0, 2, 1, 3, 1, 2, 0, -1, 1}, Shape{3, 5});
    v.push_back(neg);
  }
  {
    OpCase c =
        loss("SoftmaxCrossEntropyLoss", 13, kF32, {3, 4}, false, "mean", std::nullopt, "/i32");
    c.inputs[1] = in_int(DType::kI32, {3}, 0, 3);
    v.push_back(c);
  }
  return v;
}

}  // namespace asc::test
