// asc-check's second look (tools/check_alone.h): a node run alone reads ONNX Runtime's values of
// its inputs, the graph's inputs and its constants, and nothing of asc's own chain; a node that
// cannot run alone (control flow, an input neither side has) is left to the chained verdict.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/runtime/test_util.h"
#include "tools/check_alone.h"

namespace asc::check {
namespace {

Tensor filled(const Shape& s, float first, float step) {
  Tensor t(DType::kF32, s);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, first + step * static_cast<float>(i));
  return t;
}

// y = Sigmoid(x + c), x an input, c a constant; h the Add's output.
struct Chain {
  Graph g;
  int x, c, h, y;
  Chain() {
    g.opsets[""] = 17;
    x = g.add_value("x", {DType::kF32, SymShape{Dim(2), Dim(3)}});
    c = g.add_constant("c", filled({2, 3}, 0.5f, 0.25f));
    h = g.add_value("h", {DType::kF32, std::nullopt});
    y = g.add_value("y", {DType::kF32, std::nullopt});
    g.inputs = {x};
    g.add_node(test::node("Add", {x, c}, {h}));
    g.add_node(test::node("Sigmoid", {h}, {y}));
    g.outputs = {y};
  }
};

TEST(CheckAlone, TheNodeReadsOrtsValuesOfItsInputs) {
  Chain ch;
  const std::vector<NamedTensor> inputs = {{"x", filled({2, 3}, -1.f, 0.5f)}};
  // ORT's h, unlike what asc's Add makes of x + c: the Sigmoid alone must use this one.
  const Tensor ort_h = filled({2, 3}, -3.f, 1.25f);
  const std::map<std::string, Tensor> ort = {{"h", ort_h}};
  ModelOptions mo;
  mo.threads = 1;
  const auto y = run_alone(ch.g, ch.g.nodes[1], ort, inputs, mo);
  ASSERT_TRUE(y.has_value());
  ASSERT_EQ(y->count("y"), 1u);
  const Tensor& t = y->at("y");
  ASSERT_EQ(t.shape(), Shape({2, 3}));
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_NEAR(t.at(i), 1.0 / (1.0 + std::exp(-ort_h.at(i))), 1e-6) << i;
  // The Add alone reads the graph input and the constant.
  const auto h = run_alone(ch.g, ch.g.nodes[0], ort, inputs, mo);
  ASSERT_TRUE(h.has_value());
  const Tensor c = filled({2, 3}, 0.5f, 0.25f);
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(h->at("h").at(i), inputs[0].tensor.at(i) + c.at(i)) << i;
}

TEST(CheckAlone, WhatCannotRunAloneIsLeftToTheChainedVerdict) {
  Chain ch;
  ModelOptions mo;
  mo.threads = 1;
  // h is neither a graph input nor one of ORT's values.
  EXPECT_FALSE(run_alone(ch.g, ch.g.nodes[1], {}, {}, mo).has_value());
  // A control-flow node reads its subgraphs' scope: not run alone.
  Node cf = ch.g.nodes[1];
  cf.subgraphs["then_branch"] = std::make_shared<const Graph>();
  EXPECT_FALSE(run_alone(ch.g, cf, {{"h", filled({2, 3}, 0.f, 1.f)}}, {}, mo).has_value());
}

}  // namespace
}  // namespace asc::check
