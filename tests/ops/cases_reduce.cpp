// Cases of ReduceSum / ReduceMean / ReduceMax: axes as attribute (opset 10: non-negative only;
// ReduceSum-11, ReduceMean-17, ReduceMax-17) and as input (ReduceSum-13, ReduceMean-18,
// ReduceMax-18); one, several, non-adjacent, negative, all and no axes; keepdims 0/1;
// noop_with_empty_axes; scalar, empty, size-1 and long (1 << 20) extents; f16/bf16 and integer
// inputs.
#include <deque>

#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16;

struct Variant {
  const char* op;
  int attr_opset;   // axes as attribute
  int input_opset;  // axes as input
};
constexpr Variant kOps[] = {{"ReduceSum", 11, 13}, {"ReduceMean", 17, 18}, {"ReduceMax", 17, 18}};

// Axes tensors referenced by InputSpec::fixed live as long as the case table.
const Tensor* axes_tensor(const std::vector<int64_t>& axes) {
  static std::deque<Tensor> store;
  Tensor t(DType::kI64, {static_cast<int64_t>(axes.size())});
  for (size_t i = 0; i < axes.size(); ++i)
    t.set(static_cast<int64_t>(i), static_cast<double>(axes[i]));
  store.push_back(std::move(t));
  return &store.back();
}

std::string axes_label(const std::optional<std::vector<int64_t>>& axes) {
  if (!axes) return "axes_none";
  std::string s = "axes";
  for (int64_t a : *axes) s += cat("_", a);
  return s;
}

// axes nullopt: the attribute / input is absent.
OpCase reduce(const char* op, int opset, bool axes_input, InputSpec x,
              std::optional<std::vector<int64_t>> axes, int64_t keepdims = 1) {
  OpCase c{op, opset, {std::move(x)}};
  if (axes_input) {
    if (axes) {
      InputSpec a;
      a.dtype = DType::kI64;
      a.shape = {static_cast<int64_t>(axes->size())};
      a.fixed = axes_tensor(*axes);
      c.inputs.push_back(a);
    }
  } else if (axes) {
    c.attrs.set("axes", *axes);
  }
  if (keepdims != 1) c.attrs.set("keepdims", keepdims);
  c.label = axes_label(axes) + "/keep" + std::to_string(keepdims);
  return c;
}

}  // namespace

std::vector<OpCase> cases_reduce() {
  std::vector<OpCase> v;
  struct ShapeAxes {
    Shape shape;
    std::optional<std::vector<int64_t>> axes;
    int64_t keepdims = 1;
  };
  using A = std::vector<int64_t>;
  const std::vector<ShapeAxes> table = {
      {{7}, A{0}},
      {{3, 5}, A{1}},
      {{3, 5}, A{0}, 0},
      {{3, 5}, A{-1}, 0},
      {{3, 5}, std::nullopt},  // all axes
      {{3, 5}, std::nullopt, 0},
      {{2, 3, 4}, A{0, 2}},  // non-adjacent
      {{2, 3, 4}, A{2, 0}, 0},
      {{2, 3, 4}, A{1}},
      {{2, 3, 4}, A{-3, -2}},
      {{4, 5, 6, 7}, A{1, 3}, 0},
      {{4, 5, 6, 7}, A{0, 2}},
      {{3, 1, 5}, A{1}},  // reducing a size-1 dim
      {{1, 7, 1}, A{0, 2}, 0},
      {{}, std::nullopt},  // scalar: no axes to reduce
      {{}, std::nullopt, 0},
      {{0, 4}, A{0}},  // empty reduction: sum 0, max lowest, mean NaN
      {{0, 4}, A{1}},  // empty output
      {{65, 33}, A{1}},
      {{1000, 3}, A{0}},
  };
  for (const Variant& op : kOps)
    for (const auto& [shape, axes, keep] : table) {
      v.push_back(reduce(op.op, op.attr_opset, false, in(kF32, shape), axes, keep));
      v.push_back(reduce(op.op, op.input_opset, true, in(kF32, shape), axes, keep));
    }
  // Opsets 1-10: the axes attribute takes non-negative axes only.
  for (const Variant& op : kOps)
    for (const auto& [shape, axes, keep] : table) {
      bool negative = false;
      for (int64_t a : axes.value_or(A{})) negative = negative || a < 0;
      if (!negative) v.push_back(reduce(op.op, 10, false, in(kF32, shape), axes, keep));
    }
  // Long reduced extents: chunked by a loop with an accumulator, exact tails.
  const std::vector<ShapeAxes> longs = {
      {{1 << 20}, A{0}},         {{1 << 20}, std::nullopt, 0}, {{5, 100003}, A{1}},
      {{100003, 3}, A{0}, 0},    {{2, 70001, 3}, A{0, 2}},     {{3, 1 << 17, 2}, A{1}},
      {{4, 300, 1000}, A{1, 2}},
  };
  for (const Variant& op : kOps)
    for (const auto& [shape, axes, keep] : longs) {
      v.push_back(reduce(op.op, op.attr_opset, false, in(kF32, shape, 0, 1), axes, keep));
      v.push_back(reduce(op.op, op.input_opset, true, in(kF32, shape, 0, 1), axes, keep));
    }
  for (const Variant& op : kOps)
    for (DType dt : {kF16, kBF16}) {
      v.push_back(reduce(op.op, op.input_opset, true, in(dt, {4, 129}), A{1}));
      v.push_back(reduce(op.op, op.attr_opset, false, in(dt, {3, 5000}, 0, 1), A{0, 1}, 0));
    }
  for (const char* op : {"ReduceSum", "ReduceMax"}) {
    const int opset = std::string(op) == "ReduceSum" ? 13 : 18;
    v.push_back(reduce(op, opset, true, in(DType::kI32, {5, 6}, -50, 50), A{1}));
    v.push_back(reduce(op, opset, true, in(DType::kI64, {7, 9}, -1000, 1000), A{0}, 0));
    v.push_back(reduce(op, opset, true, in(DType::kI32, {0, 3}, -5, 5), A{0}));
    v.push_back(reduce(op, opset, true, in(DType::kF64, {3, 70001}), A{1}));
  }
  // Axes input semantics: empty axes reduce all unless noop_with_empty_axes = 1 (identity).
  for (const Variant& op : kOps) {
    OpCase noop = reduce(op.op, op.input_opset, true, in(kF32, {3, 4}), std::nullopt);
    noop.attrs.set("noop_with_empty_axes", int64_t{1});
    noop.label += "/noop";
    v.push_back(noop);
    OpCase noop_given = reduce(op.op, op.input_opset, true, in(kF32, {3, 4}), A{1});
    noop_given.attrs.set("noop_with_empty_axes", int64_t{1});
    noop_given.label += "/noop";
    v.push_back(noop_given);
    v.push_back(reduce(op.op, op.input_opset, true, in(kF32, {2, 3, 4}), A{}, 0));  // all
  }
  return v;
}

}  // namespace asc::test
