// Constant folding and dead-node elimination at load.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/ops.h"
#include "runtime/graph_passes.h"
#include "runtime/model.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::node;

Tensor filled(Shape s, float v) {
  Tensor t(DType::kF32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, v + static_cast<float>(i));
  return t;
}

// y = x * exp(c1 + c2); dead = relu(x) is computed but not an output.
Graph sample() {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(4)}});
  const int c1 = g.add_constant("c1", filled({4}, 0.5f));
  const int c2 = g.add_constant("c2", filled({4}, -1.0f));
  const int s = g.add_value("s", {});
  const int e = g.add_value("e", {});
  const int y = g.add_value("y", {});
  const int dead = g.add_value("dead", {});
  g.inputs = {x};
  g.outputs = {y};
  g.add_node(node("Add", {c1, c2}, {s}));
  g.add_node(node("Exp", {s}, {e}));
  g.add_node(node("Relu", {x}, {dead}));
  g.add_node(node("Mul", {x, e}, {y}));
  return g;
}

TEST(GraphPasses, DeadNodesGoAndConstantsFold) {
  Graph g = sample();
  EXPECT_EQ(eliminate_dead_nodes(g), 1);
  cpu::CpuDevice dev(1);
  EXPECT_EQ(fold_constants(g, dev), 2);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "Mul");
  const Value& e = g.values[g.find("e")];
  ASSERT_TRUE(e.constant.has_value());
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_NEAR(e.constant->at(i), std::exp(-0.5 + 2.0 * static_cast<double>(i)), 1e-4);
  EXPECT_EQ(g.values[g.find("y")].producer, 0);
}

TEST(GraphPasses, FoldedModelGivesTheSameResult) {
  Model m(sample(), {1, "cpu", true});
  const Tensor x = filled({4}, 1.0f);
  const auto out = m.run({{"x", x}});
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_NEAR(out[0].tensor.at(i), x.at(i) * std::exp(-0.5 + 2.0 * static_cast<double>(i)), 1e-3);
}

// y = relu(Dropout(x, ratio, training)) with mask m; variant 1 reads m, variant 2 makes the
// Dropout's output a graph output, variant 3 trains, variant 4 trains with ratio 0 (identity).
Graph dropout_graph(int variant) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(4)}});
  Tensor ratio(DType::kF32, {}), training(DType::kBool, {});
  ratio.set(0, variant == 4 ? 0.0 : 0.1);
  training.set(0, variant >= 3 ? 1.0 : 0.0);
  const int r = g.add_constant("ratio", ratio), t = g.add_constant("training", training);
  const int d = g.add_value("d", {}), m = g.add_value("m", {}), y = g.add_value("y", {});
  g.inputs = {x};
  g.outputs = {y};
  if (variant == 1) g.outputs.push_back(m);
  if (variant == 2) g.outputs.push_back(d);
  g.add_node(node("Dropout", {x, r, t}, {d, m}));
  g.add_node(node("Relu", {d}, {y}));
  return g;
}

TEST(GraphPasses, InferenceDropoutsAreBypassed) {
  for (int variant : {0, 4}) {
    Graph g = dropout_graph(variant);
    EXPECT_EQ(bypass_inference_dropouts(g), 1);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].inputs[0], g.find("x"));
  }
  for (int variant : {1, 2, 3}) {
    Graph kept = dropout_graph(variant);
    EXPECT_EQ(bypass_inference_dropouts(kept), 0) << variant;
    EXPECT_EQ(kept.nodes.size(), 2u) << variant;
  }
  Graph exposed = dropout_graph(0);
  EXPECT_EQ(bypass_inference_dropouts(exposed, {exposed.find("d")}), 0);
  // The model with the pass (optimised) and without it compute the same.
  const Tensor x = filled({4}, -1.5f);
  ModelOptions off{1, "cpu", false};
  for (int variant : {0, 4}) {
    const auto a = Model(dropout_graph(variant), {1, "cpu", true}).run({{"x", x}});
    const auto b = Model(dropout_graph(variant), off).run({{"x", x}});
    for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(a[0].tensor.at(i), b[0].tensor.at(i)) << i;
  }
}

}  // namespace
}  // namespace asc

namespace asc {
namespace {

// y = relu(x) + exp(x) * sigmoid(x): relu, exp and sigmoid are independent (one level).
TEST(Plan, IndependentNodesShareALevelAndNeverShareMemory) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(std::string("n"))}});
  const int r = g.add_value("r", {}), e = g.add_value("e", {}), s = g.add_value("s", {});
  const int m = g.add_value("m", {}), y = g.add_value("y", {});
  g.inputs = {x};
  g.outputs = {y};
  g.add_node(node("Relu", {x}, {r}));
  g.add_node(node("Exp", {x}, {e}));
  g.add_node(node("Sigmoid", {x}, {s}));
  g.add_node(node("Mul", {e, s}, {m}));
  g.add_node(node("Add", {r, m}, {y}));
  Model model(std::move(g), {2, "cpu", false});  // unoptimised: these nodes, not one fused chain
  const auto plan = model.plan_for({{DType::kF32, {1000}}});
  ASSERT_EQ(plan->steps.size(), 5u);
  EXPECT_EQ(plan->steps[0].level, 0);
  EXPECT_EQ(plan->steps[2].level, 0);
  EXPECT_EQ(plan->steps[3].level, 1);
  EXPECT_EQ(plan->steps[4].level, 2);
  const Graph& pg = model.graph();
  const int64_t off_r = plan->offset[pg.find("r")], off_e = plan->offset[pg.find("e")];
  const int64_t off_s = plan->offset[pg.find("s")];
  EXPECT_NE(off_r, off_e);
  EXPECT_NE(off_e, off_s);
  EXPECT_NE(off_r, off_s);
  Tensor xin(DType::kF32, {1000});
  for (int64_t i = 0; i < 1000; ++i) xin.set(i, static_cast<double>(i - 500) / 100.0);
  const auto out = model.run({{"x", xin}});
  for (int64_t i = 0; i < 1000; ++i) {
    const double v = xin.at(i);
    EXPECT_NEAR(out[0].tensor.at(i), std::max(v, 0.0) + std::exp(v) / (1 + std::exp(-v)), 1e-4);
  }
}

}  // namespace
}  // namespace asc

namespace asc {
namespace {

// ReduceSum-13 takes its axes as an input; fed by the caller, the value is part of the plan key.
TEST(Plan, InputValuesThatShapeTheOutputArePartOfTheSignature) {
  Graph g;
  g.opsets[""] = 13;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(2), Dim(3)}});
  const int axes = g.add_value("axes", {DType::kI64, SymShape{Dim(1)}});
  const int y = g.add_value("y", {});
  g.inputs = {x, axes};
  g.outputs = {y};
  Node n = node("ReduceSum", {x, axes}, {y});
  n.opset = 13;
  n.def = global_registry().find("", "ReduceSum", 13);
  n.attrs.set("keepdims", int64_t{0});
  g.add_node(n);
  Model model(std::move(g), {1, "cpu", true});
  Tensor xin(DType::kF32, {2, 3});
  for (int64_t i = 0; i < 6; ++i) xin.set(i, static_cast<double>(i));
  for (int64_t axis : {0, 1, -1}) {
    Tensor a(DType::kI64, {1});
    a.set(0, static_cast<double>(axis));
    const auto out = model.run({{"x", xin}, {"axes", a}});
    if (axis == 0) {
      ASSERT_EQ(out[0].tensor.shape(), (Shape{3}));
      for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(out[0].tensor.at(j), j + (j + 3));
    } else {
      ASSERT_EQ(out[0].tensor.shape(), (Shape{2}));
      EXPECT_EQ(out[0].tensor.at(0), 0 + 1 + 2);
      EXPECT_EQ(out[0].tensor.at(1), 3 + 4 + 5);
    }
  }
}

}  // namespace
}  // namespace asc
