// Constant folding and dead-node elimination at load.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/ops.h"
#include "runtime/graph_passes.h"
#include "runtime/model.h"

namespace asc {
namespace {

Node node(const std::string& op, std::vector<int> in, std::vector<int> out) {
  Node n;
  n.op_type = op;
  n.opset = 17;
  n.def = global_registry().find("", op, 17);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

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

}  // namespace
}  // namespace asc
