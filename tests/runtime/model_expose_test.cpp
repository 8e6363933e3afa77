// ModelOptions::expose: intermediates returned after the graph outputs (what asc-check reads),
// kept alive against dead-node elimination, never overwritten by the arena or in-place kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/model.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::node;

// y = exp(relu(x + b)); dead = -s reaches no output; nb = -b folds to a constant.
Graph chain_graph(const Tensor& b) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(4), Dim(8)}});
  const int bv = g.add_constant("b", b);
  const int s = g.add_value("s", {DType::kF32, std::nullopt});
  const int r = g.add_value("r", {DType::kF32, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  const int dead = g.add_value("dead", {DType::kF32, std::nullopt});
  const int nb = g.add_value("nb", {DType::kF32, std::nullopt});
  g.inputs = {x};
  g.outputs = {y};
  g.add_node(node("Add", {x, bv}, {s}));
  g.add_node(node("Relu", {s}, {r}));
  g.add_node(node("Exp", {r}, {y}));
  g.add_node(node("Neg", {s}, {dead}));
  g.add_node(node("Neg", {bv}, {nb}));
  return g;
}

using test::random;

const Tensor* find(const std::vector<NamedTensor>& outs, const std::string& name) {
  for (const auto& o : outs)
    if (o.name == name) return &o.tensor;
  return nullptr;
}

TEST(ModelExpose, ReturnsIntermediatesAfterTheOutputs) {
  const Tensor b = random({8}, 1), x = random({4, 8}, 2);
  ModelOptions o;
  o.threads = 2;
  o.expose = {"s", "r", "dead", "nb", "y"};  // y is an output already: returned once
  const Model m(chain_graph(b), o);
  EXPECT_EQ(m.exposed(), (std::vector<std::string>{"s", "r", "dead", "nb"}));
  for (int run = 0; run < 2; ++run) {  // the second run reuses the cached plan
    const auto outs = m.run({{"x", x}});
    ASSERT_EQ(outs.size(), 5u);
    const std::vector<std::string> names = {"y", "s", "r", "dead", "nb"};
    for (size_t k = 0; k < names.size(); ++k) EXPECT_EQ(outs[k].name, names[k]);
    for (size_t k = 0; k < names.size(); ++k) {
      const int64_t want = names[k] == "nb" ? 8 : 32;
      ASSERT_EQ(outs[k].tensor.numel(), want) << names[k];
    }
    const Tensor &s = *find(outs, "s"), &r = *find(outs, "r"), &y = *find(outs, "y");
    const Tensor &dead = *find(outs, "dead"), &nb = *find(outs, "nb");
    for (int64_t i = 0; i < 32; ++i) {
      const double sum = static_cast<double>(static_cast<float>(x.at(i) + b.at(i % 8)));
      EXPECT_NEAR(s.at(i), sum, 1e-6) << i;
      EXPECT_NEAR(r.at(i), std::max(0.0, sum), 1e-6) << i;
      EXPECT_NEAR(dead.at(i), -sum, 1e-6) << i;
      EXPECT_NEAR(y.at(i), std::exp(std::max(0.0, sum)), 1e-5) << i;
    }
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(nb.at(i), -b.at(i));
  }
}

TEST(ModelExpose, WithoutExposeDeadNodesAreDropped) {
  const Model m(chain_graph(random({8}, 1)), ModelOptions{});
  EXPECT_TRUE(m.exposed().empty());
  for (const Node& n : m.graph().nodes) EXPECT_NE(n.op_type, "Neg");
  EXPECT_EQ(m.run({{"x", random({4, 8}, 2)}}).size(), 1u);
}

TEST(ModelExpose, LowPrecisionKeepsTheStoredDtype) {
  const Tensor b = random({8}, 3), x = random({4, 8}, 4);
  ModelOptions o;
  o.precision = DType::kBF16;
  o.expose = {"r"};
  const Model m(chain_graph(b), o);
  const auto outs = m.run({{"x", x}});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].tensor.dtype(), DType::kF32);  // the interface stays f32
  ASSERT_EQ(outs[1].name, "r");
  EXPECT_EQ(outs[1].tensor.dtype(), DType::kBF16);
  for (int64_t i = 0; i < 32; ++i)
    EXPECT_NEAR(outs[1].tensor.at(i), std::max(0.0, x.at(i) + b.at(i % 8)), 2e-2) << i;
}

TEST(ModelExpose, UnknownNameIsAModelError) {
  ModelOptions o;
  o.expose = {"s", "nope"};
  try {
    const Model m(chain_graph(random({8}, 1)), o);
    FAIL() << "expected ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace asc
