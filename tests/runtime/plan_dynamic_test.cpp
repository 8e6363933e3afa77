// Plans whose shapes depend on values: shape arithmetic on small inputs folds at planning (the
// plan is keyed by those values), and values computed from large data make the run plan each node
// as it executes.
#include <gtest/gtest.h>

#include <optional>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/model.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::node;

Tensor iota(Shape s) {
  Tensor t(DType::kF32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, static_cast<double>(i % 7) - 3.0);
  return t;
}

Tensor i64s(std::vector<int64_t> v) {
  Tensor t(DType::kI64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

// Sum of x [2,3,4] over one axis, naively.
std::vector<double> sum_axis(const Tensor& x, int64_t axis) {
  const Shape& s = x.shape();
  Shape o = s;
  o[axis] = 1;
  std::vector<double> y(static_cast<size_t>(numel(o)), 0.0);
  for (int64_t i = 0; i < s[0]; ++i)
    for (int64_t j = 0; j < s[1]; ++j)
      for (int64_t k = 0; k < s[2]; ++k) {
        const int64_t idx[3] = {i, j, k};
        int64_t oi = 0;
        for (int d = 0; d < 3; ++d) oi = oi * o[d] + (d == axis ? 0 : idx[d]);
        y[oi] += x.at((i * s[1] + j) * s[2] + k);
      }
  return y;
}

void expect_values(const Tensor& got, const std::vector<double>& want) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < got.numel(); ++i) EXPECT_NEAR(got.at(i), want[i], 1e-5) << i;
}

// y = ReduceSum(x, axes = a + zero, keepdims 0): `a` reaches the axes through an Add.
Graph axes_through_add() {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(2), Dim(3), Dim(4)}});
  const int a = g.add_value("a", {DType::kI64, SymShape{Dim(1)}});
  const int zero = g.add_constant("zero", i64s({0}));
  const int axes = g.add_value("axes", {DType::kI64, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  g.inputs = {x, a};
  g.outputs = {y};
  g.add_node(node("Add", {a, zero}, {axes}));
  g.add_node(node("ReduceSum", {x, axes}, {y}, Attrs{{"keepdims", int64_t{0}}}));
  return g;
}

TEST(PlanValues, ShapeArithmeticOnSmallInputsFoldsAtPlanning) {
  Model model(axes_through_add(), {2, "cpu", true});
  const Tensor x = iota({2, 3, 4});
  for (int64_t axis : {1, 2, 1, 0}) {
    RunStats stats;
    const auto out = model.run({{"x", x}, {"a", i64s({axis})}}, {}, &stats);
    Shape want = {2, 3, 4};
    want.erase(want.begin() + axis);
    ASSERT_EQ(out[0].tensor.shape(), want) << "axis " << axis;
    expect_values(out[0].tensor, sum_axis(x, axis));
    // The Add was evaluated while planning: only the ReduceSum runs.
    ASSERT_EQ(stats.steps.size(), 1u);
    EXPECT_EQ(model.graph().nodes[stats.steps[0].node].op_type, "ReduceSum");
  }
}

// y = ReduceSum(x, axes = ReduceMax(big)): the axes come from 5000 elements, too many to key a
// plan by, so the run plans the ReduceSum once the ReduceMax has run.
TEST(PlanValues, ValuesComputedFromLargeDataPlanWhileRunning) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(2), Dim(3), Dim(4)}});
  const int big = g.add_value("big", {DType::kI64, SymShape{Dim(5000)}});
  const int axes = g.add_value("axes", {DType::kI64, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  g.inputs = {x, big};
  g.outputs = {y};
  g.add_node(node("ReduceMax", {big}, {axes}, Attrs{{"keepdims", int64_t{1}}}));
  g.add_node(node("ReduceSum", {x, axes}, {y}, Attrs{{"keepdims", int64_t{0}}}));
  Model model(std::move(g), {2, "cpu", true});
  EXPECT_FALSE(model.plan_for({{DType::kF32, {2, 3, 4}}, {DType::kI64, {5000}}})->dynamic.empty());

  const Tensor x_val = iota({2, 3, 4});
  for (int64_t axis : {2, 0, 1}) {
    Tensor b(DType::kI64, {5000});
    for (int64_t i = 0; i < 5000; ++i) b.data_as<int64_t>()[i] = i % 2 ? axis : 0;
    RunStats stats;
    const auto out = model.run({{"x", x_val}, {"big", b}}, {}, &stats);
    Shape want = {2, 3, 4};
    want.erase(want.begin() + axis);
    ASSERT_EQ(out[0].tensor.shape(), want) << "axis " << axis;
    expect_values(out[0].tensor, sum_axis(x_val, axis));
    EXPECT_EQ(stats.steps.size(), 2u);
  }
  // Errors while planning a node at run time still name the node, op and shapes.
  Tensor bad(DType::kI64, {5000});
  for (int64_t i = 0; i < 5000; ++i) bad.data_as<int64_t>()[i] = 7;
  try {
    model.run({{"x", x_val}, {"big", bad}});
    FAIL() << "axis 7 of a rank-3 input was accepted";
  } catch (const ShapeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ReduceSum"), std::string::npos) << msg;
    EXPECT_NE(msg.find("f32[2,3,4]"), std::string::npos) << msg;
  }
}

TEST(PlanValues, AbsurdTensorSizesAreRefusedBeforeAllocating) {
  try {
    Tensor t(DType::kF32, {1000000, 1000000000});
    FAIL() << "a 4e15-byte tensor was allocated";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("f32[1000000,1000000000]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Tensor(DType::kF32, {2, -3}), ShapeError);
}

// y = RandomUniform(shape [64]) + x: a random op has no inputs, but it is not folded into a
// constant at planning; unseeded it draws new values per run, seeded the same ones.
Graph random_plus_x(std::optional<float> seed) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(64)}});
  const int r = g.add_value("r", {DType::kF32, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  g.inputs = {x};
  g.outputs = {y};
  Attrs a{{"shape", std::vector<int64_t>{64}}};
  if (seed) a.set("seed", *seed);
  g.add_node(node("RandomUniform", {}, {r}, a));
  g.add_node(node("Add", {r, x}, {y}));
  return g;
}

TEST(PlanValues, RandomOpsAreNotFolded) {
  const Tensor x = iota({64});
  auto two_runs = [&](std::optional<float> seed) {
    const Model model(random_plus_x(seed), {2, "cpu", true});
    const Tensor a = model.run({{"x", x}})[0].tensor;
    const Tensor b = model.run({{"x", x}})[0].tensor;
    int same = 0;
    for (int64_t i = 0; i < 64; ++i) {
      const double u = a.at(i) - x.at(i);
      EXPECT_GE(u, 0.0);
      EXPECT_LT(u, 1.0);
      same += a.at(i) == b.at(i);
    }
    return same;
  };
  EXPECT_LT(two_runs(std::nullopt), 4);  // fresh draws
  EXPECT_EQ(two_runs(3.0f), 64);         // seeded: the same draws
}

}  // namespace
}  // namespace asc
