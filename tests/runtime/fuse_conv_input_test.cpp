// Scale and shift steps before a convolution (runtime/fuse_conv.cpp, input_steps): PP-LCNetV3's
// learnable affine block after an activation, x * s + t -> Conv, folds into the conv's W (scale
// per input channel) and B (the shift summed over W) — the shift only when the conv reads no
// padding. Compared with the unfused graph on seeded inputs; what may not fold stays a node.
#include <gtest/gtest.h>

#include <functional>

#include "runtime/fusion.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::Builder;
using test::count_op;
using test::expect_same_outputs;
using test::random;
using test::scalar;
using test::with_const;
using V = std::vector<int64_t>;

// x [2, 4, 7, 6] -> Relu -> before(b, r) -> Conv(w [6, 4 / group, k, k], pads) -> the output.
Graph steps_then_conv(const std::function<int(Builder&, int)>& before, int64_t k, int64_t pad,
                      int64_t group = 1) {
  Builder b;
  const int r = b.op("Relu", "act", {b.input("x", {2, 4, 7, 6})});
  const int v = before(b, r);
  b.g.outputs.insert(
      b.g.outputs.begin(),
      b.op("Conv", "conv",
           {v, b.constant("w", random({6, 4 / group, k, k}, 2)), b.constant("b", random({6}, 3))},
           {{"pads", V{pad, pad, pad, pad}}, {"group", group}}));
  return b.g;
}

const std::vector<NamedTensor> kIn = {{"x", random({2, 4, 7, 6}, 1, -2.f, 2.f)}};

Graph fused(const Graph& orig) {
  Graph g = orig;
  FuseOptions o;
  o.elementwise = false;  // what is left stays countable
  fuse(g, o);
  return g;
}

int mul_add(Builder& b, int v, Tensor s, Tensor t) {
  return with_const(b, "Add", "add", with_const(b, "Mul", "mul", v, std::move(s), true),
                    std::move(t));
}

TEST(FuseConvInput, ScaleAndShiftBeforeAnUnpaddedConvFold) {
  struct Case {
    const char* name;
    Tensor s, t;
    int64_t group;
  };
  const Case cases[] = {
      {"scalar", scalar(1.7, {1}), scalar(-0.3, {1}), 1},
      {"per channel", random({1, 4, 1, 1}, 8), random({4, 1, 1}, 9), 1},
      {"per channel, 2 groups", random({4, 1, 1}, 8), random({1, 4, 1, 1}, 9), 2}};
  for (const Case& c : cases)
    for (const int64_t k : {1, 3}) {  // 3x3 unpadded: every tap reads the shifted input
      const Graph orig = steps_then_conv([&](Builder& b, int v) { return mul_add(b, v, c.s, c.t); },
                                         k, 0, c.group);
      const Graph g = fused(orig);
      ASSERT_EQ(g.nodes.size(), 2u) << c.name << " " << k;  // Relu, FusedConv
      const Node& n = g.nodes[1];
      EXPECT_EQ(n.op_type, "FusedConv") << c.name;
      EXPECT_EQ(n.inputs[0], g.find("act")) << c.name;
      EXPECT_NE(n.inputs[1], g.find("w")) << c.name;
      expect_same_outputs(orig, kIn, 1e-5);
    }
}

// A padded conv reads zeros where the shifted input would give t: the shift stays out; a scale
// nearest the conv still folds (0 * s is 0).
TEST(FuseConvInput, APaddedConvTakesTheScaleOnly) {
  const Graph shift_last = steps_then_conv(
      [](Builder& b, int v) { return mul_add(b, v, scalar(1.7), scalar(0.5)); }, 3, 1);
  Graph g = fused(shift_last);
  EXPECT_EQ(g.nodes.size(), 4u);  // Relu, Mul, Add, FusedConv
  EXPECT_EQ(count_op(g, "Add"), 1);
  expect_same_outputs(shift_last, kIn, 1e-5);

  const Graph scale_last = steps_then_conv(
      [](Builder& b, int v) {
        return with_const(b, "Mul", "mul", with_const(b, "Add", "add", v, scalar(0.5)),
                          random({1, 4, 1, 1}, 8));
      },
      3, 1);
  g = fused(scale_last);
  EXPECT_EQ(g.nodes.size(), 3u);  // Relu, Add, FusedConv (the Mul folded)
  EXPECT_EQ(count_op(g, "Mul"), 0);
  expect_same_outputs(scale_last, kIn, 1e-5);
}

TEST(FuseConvInput, NearMissesStayOut) {
  const std::vector<std::pair<const char*, std::function<int(Builder&, int)>>> cases = {
      {"the scaled input read twice",
       [](Builder& b, int v) {
         const int m = with_const(b, "Mul", "mul", v, scalar(2));
         b.g.outputs.push_back(m);
         return m;
       }},
      {"a computed scale",
       [](Builder& b, int v) {
         return b.op("Mul", "mul", {v, b.input("s", {1})});
       }},
      {"a [1, 1, 1, W] scale",
       [](Builder& b, int v) {
         return with_const(b, "Mul", "mul", v, random({1, 1, 1, 6}, 8));
       }},
      {"Div(c, x)",
       [](Builder& b, int v) { return with_const(b, "Div", "div", v, scalar(2), true); }},
      {"a channel broadcast up",  // [2, 1, 7, 6] * [1, 4, 1, 1]
       [](Builder& b, int v) {
         const int one = b.op("ReduceMax", "one", {v}, {{"axes", V{1}}, {"keepdims", int64_t{1}}});
         return with_const(b, "Mul", "mul", one, random({1, 4, 1, 1}, 8));
       }},
  };
  for (const auto& [name, before] : cases) {
    const Graph orig = steps_then_conv(before, 1, 0);
    const Graph g = fused(orig);
    EXPECT_EQ(count_op(g, "Mul") + count_op(g, "Div"), 1) << name;
    for (const Node& n : g.nodes)
      if (n.op_type == "FusedConv") {
        EXPECT_EQ(n.inputs[1], g.find("w")) << name;
      }
    std::vector<NamedTensor> in = kIn;
    if (g.find("s") >= 0) in.push_back({"s", scalar(1.5, {1})});
    expect_same_outputs(orig, in, 1e-5);
  }
}

// After the activation of a conv whose result a padded conv reads (PP-LCNetV3's depthwise
// convs): the scale and shift become the first conv's post_scale and post_shift; an unpadded
// reader takes them into its weights instead. A per-channel scale is no post_scale.
TEST(FuseConvInput, AScaleAfterTheActivationIsTheProducersEpilogue) {
  for (const int64_t pad : {1, 0})
    for (const bool per_channel : {false, true}) {
      Builder b;
      const int x = b.input("x", {2, 4, 7, 6});
      const int y = b.op("Conv", "c1", {x, b.constant("w1", random({4, 4, 1, 1}, 4))});
      const int a = b.op("HardSwish", "hs", {y});
      const int m = with_const(b, "Mul", "mul", a,
                               per_channel ? random({1, 4, 1, 1}, 8) : scalar(1.7, {1}), true);
      const int s = with_const(b, "Add", "add", m, scalar(-0.3, {1}));
      b.g.outputs = {
          b.op("Conv", "c2",
               {s, b.constant("w2", random({6, 4, 3, 3}, 2)), b.constant("b2", random({6}, 3))},
               {{"pads", V{pad, pad, pad, pad}}})};
      const Graph g = fused(b.g);
      const bool post = pad == 1 && !per_channel;  // else: folded forward, or nodes left
      ASSERT_EQ(count_op(g, "FusedConv"), 2) << pad << per_channel;
      EXPECT_EQ(g.nodes.size(), pad == 1 && per_channel ? 4u : 2u) << pad << per_channel;
      const Node* conv1 = nullptr;
      for (const Node& n : g.nodes)
        if (n.op_type == "FusedConv" && n.inputs[0] == g.find("x")) conv1 = &n;
      ASSERT_TRUE(conv1);
      const Node& first = *conv1;
      EXPECT_EQ(first.attrs.s("activation"), "hardswish");
      EXPECT_FLOAT_EQ(first.attrs.f("post_scale"), post ? 1.7f : 1.f) << pad << per_channel;
      EXPECT_FLOAT_EQ(first.attrs.f("post_shift"), post ? -0.3f : 0.f) << pad << per_channel;
      expect_same_outputs(b.g, kIn, 1e-5);
    }
}

}  // namespace
}  // namespace asc
