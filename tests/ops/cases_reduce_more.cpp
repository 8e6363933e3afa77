// Cases of ReduceMin / ReduceProd / ReduceL1 / ReduceL2 / ReduceLogSum / ReduceLogSumExp /
// ReduceSumSquare (axes as non-negative attribute at opset 10, attribute at 17, input at 18; one,
// several, non-adjacent, negative, all and no axes; keepdims 0/1; noop_with_empty_axes; scalar,
// empty, size-1 and long extents; f16/bf16/f64 and integers) and ArgMax / ArgMin (opsets 10, 11,
// 13 with select_last_index; ties; every axis; keepdims; integer and 16-bit float data); and
// Einsum's (cases_einsum.cpp) and the recurrent ops' cases (cases_rnn.cpp).
#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {

std::vector<OpCase> cases_rnn();     // cases_rnn.cpp
std::vector<OpCase> cases_einsum();  // cases_einsum.cpp

namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16, kF64 = DType::kF64;
using Axes = std::optional<std::vector<int64_t>>;

struct Op {
  const char* name;
  double lo, hi;  // value range where the op is well conditioned (LogSum needs sum > 0)
  bool integral;  // also has integer cases
};
constexpr Op kOps[] = {
    {"ReduceMin", -2, 2, true},       {"ReduceProd", 0.6, 1.5, true},
    {"ReduceL1", -2, 2, true},        {"ReduceL2", -2, 2, false},
    {"ReduceLogSum", 0.05, 2, false}, {"ReduceLogSumExp", -2, 2, false},
    {"ReduceSumSquare", -2, 2, true},
};

enum class From { kAttr10, kAttr17, kInput18 };

// axes nullopt: the attribute / input is absent.
OpCase reduce(const char* op, From from, InputSpec x, const Axes& axes, int64_t keepdims = 1) {
  const int opset = from == From::kAttr10 ? 10 : from == From::kAttr17 ? 17 : 18;
  OpCase c{op, opset, {std::move(x)}};
  std::string label = "axes";
  if (!axes) label += "_none";
  for (int64_t a : axes.value_or(std::vector<int64_t>{})) label += cat("_", a);
  if (from == From::kInput18) {
    if (axes) c.inputs.push_back(fixed_i64(*axes));
  } else if (axes) {
    c.attrs.set("axes", *axes);
  }
  if (keepdims != 1) c.attrs.set("keepdims", keepdims);
  c.label = cat(label, "/keep", keepdims, "/opset", opset);
  return c;
}

bool has_negative(const Axes& axes) {
  if (!axes) return false;
  for (int64_t a : *axes)
    if (a < 0) return true;
  return false;
}

void add_reduce_cases(std::vector<OpCase>& v) {
  struct ShapeAxes {
    Shape shape;
    Axes axes;
    int64_t keepdims = 1;
  };
  using A = std::vector<int64_t>;
  const std::vector<ShapeAxes> table = {
      {{7}, A{0}},
      {{3, 5}, A{1}},
      {{3, 5}, A{-1}, 0},
      {{3, 5}, std::nullopt},  // all axes
      {{3, 5}, std::nullopt, 0},
      {{2, 3, 4}, A{0, 2}},  // non-adjacent
      {{2, 3, 4}, A{2, 0}, 0},
      {{2, 3, 4}, A{-3, -2}},
      {{4, 5, 6, 7}, A{1, 3}, 0},
      {{3, 1, 5}, A{1}},  // reducing a size-1 dim
      {{1, 7, 1}, A{0, 2}, 0},
      {{}, std::nullopt},  // scalar: no axes to reduce
      {{0, 4}, A{0}},      // empty reduction: the op's empty-set value
      {{0, 4}, A{1}},      // empty output
      {{65, 33}, A{1}},
      {{1000, 3}, A{0}},
  };
  for (const Op& op : kOps)
    for (const auto& [shape, axes, keep] : table) {
      const InputSpec x = in(kF32, shape, op.lo, op.hi);
      if (!has_negative(axes)) v.push_back(reduce(op.name, From::kAttr10, x, axes, keep));
      v.push_back(reduce(op.name, From::kAttr17, x, axes, keep));
      v.push_back(reduce(op.name, From::kInput18, x, axes, keep));
    }
  // Long reduced extents: chunked by a loop with an accumulator, exact tails; several reduced
  // dims in one chunk (LogSumExp broadcasts its running max over both).
  const std::vector<ShapeAxes> longs = {
      {{100003}, A{0}, 0},
      {{2, 70001, 3}, A{0, 2}},
      {{70001, 3}, A{0}},
  };
  for (const Op& op : kOps)
    for (const auto& [shape, axes, keep] : longs) {
      // Products of many factors stay representable when the factors are close to 1.
      const bool prod = std::string(op.name) == "ReduceProd";
      const InputSpec x = in(kF32, shape, prod ? 0.9999 : op.lo, prod ? 1.0001 : op.hi);
      v.push_back(reduce(op.name, From::kInput18, x, axes, keep));
      // f32 products of ~1e5 factors drift ~1e-3 from the double reference (rounding bias).
      if (prod) v.back().atol = v.back().rtol = 1e-2;
    }
  for (const Op& op : kOps) {
    for (DType dt : {kF16, kBF16}) {
      v.push_back(reduce(op.name, From::kInput18, in(dt, {4, 129}, op.lo, op.hi), A{1}));
      v.push_back(reduce(op.name, From::kAttr17, in(dt, {3, 7, 5}, op.lo, op.hi), A{0, 2}, 0));
    }
    v.push_back(reduce(op.name, From::kInput18, in(kF64, {3, 70001}, op.lo, op.hi), A{1}));
    if (op.integral) {
      v.push_back(reduce(op.name, From::kInput18, in(DType::kI32, {5, 6}, -3, 3), A{1}));
      v.push_back(reduce(op.name, From::kAttr17, in(DType::kI64, {7, 4}, -3, 3), A{0}, 0));
      v.push_back(reduce(op.name, From::kAttr10, in(DType::kU32, {2, 3, 4}, 0, 3), A{0, 2}));
      v.push_back(reduce(op.name, From::kInput18, in(DType::kI32, {0, 3}, -5, 5), A{0}));
    }
  }
  for (const char* op : {"ReduceMin", "ReduceMax"})
    for (DType dt : {DType::kI8, DType::kU8, DType::kU64}) {
      v.push_back(reduce(op, From::kInput18, in(dt, {6, 5}, 0, 100), A{0}));
      v.push_back(reduce(op, From::kInput18, in(dt, {0, 5}, 0, 100), A{0}));  // empty: extreme
    }
  // ReduceMax-20 / ReduceMin-20: bool (any / all; an empty set gives false / true), and the
  // earlier types as they select the 20 version.
  for (const char* op : {"ReduceMin", "ReduceMax"}) {
    for (const auto& [shape, axes] : std::vector<std::pair<Shape, Axes>>{
             {{6, 5}, A{0}}, {{3, 4, 5}, A{-1, 0}}, {{4, 3}, std::nullopt}, {{0, 5}, A{0}}}) {
      OpCase c = reduce(op, From::kInput18, in(DType::kBool, shape), axes);
      c.opset = 20;
      c.label += "/bool";
      v.push_back(c);
    }
    OpCase f = reduce(op, From::kInput18, in(kF32, {5, 7}), A{1}, 0);
    f.opset = 20;
    v.push_back(f);
  }
  // LogSumExp of large values: exp(x) overflows f32, the max-shifted form does not.
  v.push_back(reduce("ReduceLogSumExp", From::kInput18, in(kF32, {6, 40}, 80, 100), A{1}));
  v.push_back(reduce("ReduceLogSumExp", From::kInput18, in(kF32, {3, 60000}, 80, 100), A{1}));
  // Axes input semantics: empty axes reduce all unless noop_with_empty_axes = 1 (identity).
  for (const Op& op : kOps) {
    OpCase noop = reduce(op.name, From::kInput18, in(kF32, {3, 4}, op.lo, op.hi), std::nullopt);
    noop.attrs.set("noop_with_empty_axes", int64_t{1});
    noop.label += "/noop";
    v.push_back(noop);
    OpCase noop_given = reduce(op.name, From::kInput18, in(kF32, {3, 4}, op.lo, op.hi), A{1});
    noop_given.attrs.set("noop_with_empty_axes", int64_t{1});
    noop_given.label += "/noop";
    v.push_back(noop_given);
    v.push_back(reduce(op.name, From::kInput18, in(kF32, {2, 3, 4}, op.lo, op.hi), A{}, 0));
  }
}

OpCase arg(const char* op, int opset, InputSpec x, int64_t axis, int64_t keepdims, int64_t last) {
  OpCase c{op, opset, {std::move(x)}};
  c.attrs.set("axis", axis);
  if (keepdims != 1) c.attrs.set("keepdims", keepdims);
  if (opset >= 12) c.attrs.set("select_last_index", last);
  c.label = cat("axis", axis, "/keep", keepdims, "/last", last, "/opset", opset);
  return c;
}

void add_arg_cases(std::vector<OpCase>& v) {
  struct ShapeAxis {
    Shape shape;
    int64_t axis;
    int64_t keepdims = 1;
  };
  const std::vector<ShapeAxis> table = {
      {{7}, 0},     {{7}, 0, 0},    {{3, 5}, 0},        {{3, 5}, 1, 0},
      {{3, 5}, -1}, {{2, 3, 4}, 1}, {{2, 3, 4}, -3, 0}, {{4, 1, 6}, 1},
      {{0, 5}, 1},  {{65, 33}, 0},  {{3, 1000}, 1, 0},
  };
  for (const char* op : {"ArgMax", "ArgMin"})
    for (const auto& [shape, axis, keep] : table) {
      if (axis >= 0) v.push_back(arg(op, 10, in(kF32, shape), axis, keep, 0));
      v.push_back(arg(op, 11, in(kF32, shape), axis, keep, 0));
      for (int64_t last : {0, 1}) {
        // Few distinct integral values: ties, where select_last_index matters.
        v.push_back(arg(op, 13, in_int(kF32, shape, -2, 2), axis, keep, last));
      }
    }
  for (const char* op : {"ArgMax", "ArgMin"})
    for (DType dt :
         {kF16, kBF16, kF64, DType::kI8, DType::kU8, DType::kI32, DType::kI64, DType::kU64})
      for (int64_t last : {0, 1}) v.push_back(arg(op, 13, in_int(dt, {4, 9}, 0, 5), 1, 1, last));
}

}  // namespace

std::vector<OpCase> cases_reduce_more() {
  std::vector<OpCase> v;
  add_reduce_cases(v);
  add_arg_cases(v);
  for (OpCase& c : cases_einsum()) v.push_back(std::move(c));
  for (OpCase& c : cases_rnn()) v.push_back(std::move(c));
  return v;
}

}  // namespace asc::test
