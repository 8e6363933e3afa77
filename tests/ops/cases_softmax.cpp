// Cases of Softmax and LogSoftmax: opset 13 (one axis) and opset 1-12 (rows of the input flattened
// at axis), axis first, middle, last and negative; rows that fit one tile and rows long enough to
// be chunked (online max/sum); empty, size-1 and wide-range (overflow-prone) inputs.
#include "ops/op_cases.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16;

OpCase softmax(int opset, InputSpec x, std::optional<int64_t> axis) {
  OpCase c{"Softmax", opset, {std::move(x)}};
  if (axis) {
    c.attrs.set("axis", *axis);
    c.label = "axis" + std::to_string(*axis);
  } else {
    c.label = "axis_default";
  }
  return c;
}

}  // namespace

std::vector<OpCase> cases_softmax() {
  std::vector<OpCase> v;
  struct ShapeAxis {
    Shape shape;
    std::optional<int64_t> axis;
  };
  const std::vector<ShapeAxis> v13 = {
      {{7}, std::nullopt}, {{3, 5}, 0},       {{3, 5}, -1},   {{2, 3, 33}, 1},
      {{2, 3, 33}, -3},    {{4, 1000}, -1},   {{4, 1}, -1},   {{0, 5}, -1},
      {{3, 0}, 1},         {{65, 33}, 1},     {{1000, 3}, 0}, {{2, 300007}, -1},
      {{3, 70001, 2}, 1},  {{1, 1 << 18}, 1}, {{5, 1, 7}, 1}, {{2, 2, 2, 9}, 2},
  };
  for (const auto& [shape, axis] : v13) v.push_back(softmax(13, in(kF32, shape, -5, 5), axis));
  // Opset 1-12: rows are the flattened trailing dims from axis.
  const std::vector<ShapeAxis> v1 = {
      {{2, 3, 4}, std::nullopt}, {{2, 3, 4}, 0}, {{2, 3, 4}, 2}, {{2, 3, 4}, -1}, {{2, 3}, 2},
      {{2, 100, 1000}, 1},       {{7}, 0},       {{0, 3}, 1},    {{3, 5, 1}, 1},  {{64, 17}, -2},
  };
  for (const auto& [shape, axis] : v1) v.push_back(softmax(11, in(kF32, shape, -5, 5), axis));
  // Large magnitudes: a naive exp overflows; x - max keeps it finite.
  v.push_back(softmax(13, in(kF32, {3, 77}, -80, 80), -1));
  v.push_back(softmax(13, in(kF32, {2, 200003}, -80, 80), 1));
  for (DType dt : {kF16, kBF16}) {
    v.push_back(softmax(13, in(dt, {4, 129}), -1));
    v.push_back(softmax(13, in(dt, {3, 40000}), -1));
    v.push_back(softmax(11, in(dt, {2, 5, 7}), 1));
  }
  v.push_back(softmax(13, in(DType::kF64, {5, 17}), 0));
  v.push_back(softmax(13, in(DType::kF64, {2, 150001}), 1));
  // LogSoftmax runs the same kernel with a log epilogue: a subset of the shapes above.
  const size_t n = v.size();
  for (size_t i = 0; i < n; i += 2) {
    OpCase c = v[i];
    if (numel(c.inputs[0].shape) > 100000) continue;  // the long rows: one chunked case below
    c.op = "LogSoftmax";
    v.push_back(c);
  }
  v.push_back(softmax(13, in(kF32, {2, 30001}, -80, 80), -1));
  v.back().op = "LogSoftmax";
  return v;
}

}  // namespace asc::test
