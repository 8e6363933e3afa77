// A residual Add and the LayerNormalization after it become one com.microsoft
// SkipLayerNormalization: post-norm (the sum read only by the norm) and pre-norm (the sum is the
// residual stream, the fused node's input_skip_bias_sum), LayerNormalization's default epsilon
// carried over; a broadcast Add, a norm over more than the last axis, a read Mean and a
// [1, H] scale stay apart. Fused and unfused runs agree.
#include <gtest/gtest.h>

#include "runtime/fusion.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc::test {
namespace {

const Shape kX = {2, 5, 16};

struct SkipGraph {
  Graph g;
  std::vector<NamedTensor> inputs;
  int sum = -1, y = -1;
};

// s = x + r (r [2, 5, 16], or [16] broadcast); y = LayerNormalization(s, gamma, beta); with
// `residual` z = s + y is the output too; `gamma_shape` the scale's shape.
SkipGraph skip_graph(bool residual, Attrs ln = {}, bool broadcast = false,
                     Shape gamma_shape = {16}) {
  Builder b;
  const int x = b.input("x", kX);
  const Shape rs = broadcast ? Shape{16} : kX;
  const int r = b.input("r", rs);
  const int gamma = b.constant("gamma", random(gamma_shape, 3, 0.5f, 1.5f));
  const int beta = b.constant("beta", random({16}, 4, -0.5f, 0.5f));
  SkipGraph s;
  s.sum = b.op("Add", "sum", {x, r});
  s.y = b.op("LayerNormalization", "ln", {s.sum, gamma, beta}, std::move(ln));
  b.g.outputs = {s.y};
  if (residual) b.g.outputs.push_back(b.op("Add", "z", {s.sum, s.y}));
  s.g = std::move(b.g);
  s.inputs = {{"x", random(kX, 1, -2.f, 2.f)}, {"r", random(rs, 2, -2.f, 2.f)}};
  return s;
}

const Node* skip_node(const Graph& g) {
  for (const Node& n : g.nodes)
    if (n.op_type == "SkipLayerNormalization") return &n;
  return nullptr;
}

TEST(FuseSkipLayerNorm, PostNormIsOneNode) {
  SkipGraph s = skip_graph(false);
  Graph g = s.g;
  const FuseReport rep = fuse(g);
  EXPECT_EQ(rep.counts.at("SkipLayerNormalization"), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.domain, "com.microsoft");
  EXPECT_EQ(n.name, "ln");
  EXPECT_EQ(n.inputs,
            (std::vector<int>{g.find("x"), g.find("r"), g.find("gamma"), g.find("beta")}));
  EXPECT_EQ(n.outputs, (std::vector<int>{g.find("ln")}));
  EXPECT_FLOAT_EQ(n.attrs.f("epsilon"), 1e-5f);  // LayerNormalization's default, not 1e-12
  expect_same_outputs(s.g, s.inputs, 1e-5);
}

TEST(FuseSkipLayerNorm, PreNormKeepsTheSumAsAnOutput) {
  SkipGraph s = skip_graph(true, {{"epsilon", 1e-6f}, {"axis", int64_t{2}}});
  Graph g = s.g;
  EXPECT_EQ(fuse(g).counts.at("SkipLayerNormalization"), 1);
  const Node* n = skip_node(g);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->outputs, (std::vector<int>{g.find("ln"), -1, -1, g.find("sum")}));
  EXPECT_FLOAT_EQ(n->attrs.f("epsilon"), 1e-6f);
  EXPECT_EQ(count_op(g, "Add"), 1);  // z
  expect_same_outputs(s.g, s.inputs, 1e-5);
  expect_same_outputs(s.g, s.inputs, 2e-2, DType::kBF16);  // the fused node converted too
}

TEST(FuseSkipLayerNorm, WhatIsNoSkipLayerNormStaysApart) {
  const auto fused = [](SkipGraph s) {
    Graph g = s.g;
    const int made = fuse(g).counts.at("SkipLayerNormalization");
    expect_same_outputs(s.g, s.inputs, 1e-5);
    return made;
  };
  EXPECT_EQ(fused(skip_graph(false, {}, /*broadcast=*/true)), 0);
  EXPECT_EQ(fused(skip_graph(false, {}, false, {1, 16})), 0);
  SkipGraph wide = skip_graph(false, {{"axis", int64_t{1}}}, false, {5, 16});
  EXPECT_EQ(fused(wide), 0);
  // LayerNormalization's Mean read by another node.
  SkipGraph stats = skip_graph(false);
  Node& ln = stats.g.nodes[1];
  const int mean = stats.g.add_value("mean", {});
  ln.outputs.push_back(mean);
  stats.g.outputs.push_back(mean);
  EXPECT_EQ(fused(stats), 0);
}

}  // namespace
}  // namespace asc::test
