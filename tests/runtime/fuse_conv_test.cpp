// Convolution fusion (runtime/fuse_conv.cpp) and conv weight packing (pack_conv_weights): the
// ResNet / MobileNet / EfficientNet epilogues become one FusedConv computing what the unfused
// graph computes, BatchNormalization folds into the weights, and what may not fuse does not.
#include <gtest/gtest.h>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/fusion.h"
#include "runtime/model.h"
#include "runtime/weight_pack.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::Builder;
using test::count_op;
using test::expect_same_outputs;
using test::random;
using test::scalar;
using V = std::vector<int64_t>;

const Attrs kPad1{{"pads", V{1, 1, 1, 1}}};

// x [2, 8, 9, 9] -> Conv 3x3 (8 -> 8) -> BatchNormalization -> Add(x) -> Relu.
Graph resnet_block(bool batch_norm, bool residual) {
  Builder b;
  const int x = b.input("x", {2, 8, 9, 9});
  int y =
      b.op("Conv", "conv",
           {x, b.constant("w", random({8, 8, 3, 3}, 2)), b.constant("b", random({8}, 3))}, kPad1);
  if (batch_norm)
    y = b.op(
        "BatchNormalization", "bn",
        {y, b.constant("scale", random({8}, 4, 0.5f, 1.5f)), b.constant("shift", random({8}, 5)),
         b.constant("mean", random({8}, 6)), b.constant("var", random({8}, 7, 0.5f, 2.f))},
        {{"epsilon", 1e-3f}});
  if (residual) y = b.op("Add", "sum", {y, x});
  b.g.outputs = {b.op("Relu", "out", {y})};
  return b.g;
}

const std::vector<NamedTensor> kIn = {{"x", random({2, 8, 9, 9}, 1)}};

TEST(FuseConv, ResNetBlockIsOneNodeWithTheNormFolded) {
  const Graph orig = resnet_block(true, true);
  Graph g = orig;
  EXPECT_EQ(fuse(g).counts.at("FusedConv"), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.op_type, "FusedConv");
  EXPECT_EQ(n.attrs.s("activation"), "relu");
  ASSERT_EQ(n.inputs.size(), 4u);
  EXPECT_EQ(n.inputs[0], g.find("x"));
  EXPECT_EQ(n.inputs[3], g.find("x"));          // the residual
  EXPECT_NE(n.inputs[1], g.find("w"));          // folded: new constants
  EXPECT_TRUE(g.values[n.inputs[2]].constant);  // the folded bias
  expect_same_outputs(orig, kIn, 1e-5);
}

TEST(FuseConv, EveryConvBecomesFusedConv) {
  for (bool bn : {false, true})
    for (bool res : {false, true}) {
      const Graph orig = resnet_block(bn, res);
      Graph g = orig;
      fuse(g);
      EXPECT_EQ(count_op(g, "Conv"), 0);
      EXPECT_EQ(count_op(g, "FusedConv"), 1);
      EXPECT_EQ(g.nodes.size(), 1u) << bn << res;
      expect_same_outputs(orig, kIn, 1e-5);
    }
}

// Conv followed by `act` spelled as ONNX writes it.
Graph conv_act(const std::string& act) {
  Builder b;
  const int x = b.input("x", {1, 4, 7, 7});
  const int y = b.op("Conv", "conv", {x, b.constant("w", random({6, 4, 3, 3}, 2))}, kPad1);
  int out = -1;
  if (act == "clip") {
    Tensor lo(DType::kF32, {}), hi(DType::kF32, {});
    lo.set(0, 0.0);
    hi.set(0, 6.0);
    out = b.op("Clip", "act", {y, b.constant("lo", lo), b.constant("hi", hi)});
  } else if (act == "silu") {
    out = b.op("Mul", "act", {y, b.op("Sigmoid", "sig", {y})});
  } else {
    out = b.op(act, "act", {y});
  }
  b.g.outputs = {out};
  return b.g;
}

TEST(FuseConv, ActivationsOfMobileAndEfficientNets) {
  for (const std::string act :
       {"Relu", "clip", "HardSwish", "HardSigmoid", "silu", "Sigmoid", "LeakyRelu", "Tanh"}) {
    const Graph orig = conv_act(act);
    Graph g = orig;
    fuse(g);
    ASSERT_EQ(g.nodes.size(), 1u) << act;
    EXPECT_EQ(g.nodes[0].op_type, "FusedConv") << act;
    EXPECT_NE(g.nodes[0].attrs.s("activation"), "none") << act;
    expect_same_outputs(orig, {{"x", random({1, 4, 7, 7}, 1, -3.f, 3.f)}}, 1e-5);
  }
}

TEST(FuseConv, AnExposedConvOutputKeepsTheEpilogueApart) {
  const Graph orig = resnet_block(false, true);
  Graph g = orig;
  FuseOptions o;
  o.keep = {g.find("conv")};
  fuse(g, o);
  ASSERT_EQ(count_op(g, "FusedConv"), 1);
  for (const Node& n : g.nodes)
    if (n.op_type == "FusedConv") {
      EXPECT_EQ(n.outputs[0], g.find("conv"));
      EXPECT_EQ(n.attrs.s("activation"), "none");
      EXPECT_LE(n.inputs.size(), 3u);  // the Add stays outside (the elementwise pass takes it)
    }
  EXPECT_EQ(g.nodes.size(), 2u);
}

TEST(FuseConv, ABroadcastAddIsNoResidual) {
  Builder b;
  const int x = b.input("x", {1, 4, 7, 7});
  const int y = b.op("Conv", "conv", {x, b.constant("w", random({6, 4, 3, 3}, 2))}, kPad1);
  b.g.outputs = {
      b.op("Relu", "out", {b.op("Add", "sum", {y, b.constant("c", random({6, 1, 1}, 3))})})};
  const Graph orig = b.g;
  Graph g = orig;
  fuse(g);
  EXPECT_EQ(count_op(g, "FusedConv"), 1);
  for (const Node& n : g.nodes)
    if (n.op_type == "FusedConv") {
      EXPECT_LE(n.inputs.size(), 3u);  // no Z
    }
  expect_same_outputs(orig, {{"x", random({1, 4, 7, 7}, 1)}}, 1e-5);
}

// h = Relu(x); r = Relu(Conv(h)); y = Sigmoid(Relu(Conv(r) + h)) [+ h when h is read later].
// The second FusedConv is h's last reader unless h is read later: then, and only then, its output
// takes h's memory (written over tile by tile as each tile has read its box of h).
Graph residual_reader(int64_t c, int64_t hw, int64_t k, bool h_read_later) {
  Builder b;
  const int x = b.input("x", {1, c, hw, hw});
  const Attrs pads{{"pads", V{k / 2, k / 2, k / 2, k / 2}}};
  const int h = b.op("Relu", "h", {x});
  const int r = b.op("Relu", "r",
                     {b.op("Conv", "conv1",
                           {h, b.constant("w1", random({c, c, k, k}, 2, -0.2f, 0.2f)),
                            b.constant("b1", random({c}, 3))},
                           pads)});
  const int c2 = b.op(
      "Conv", "conv2",
      {r, b.constant("w2", random({c, c, k, k}, 4, -0.2f, 0.2f)), b.constant("b2", random({c}, 5))},
      pads);
  int y = b.op("Sigmoid", "s", {b.op("Relu", "o", {b.op("Add", "sum", {c2, h})})});
  if (h_read_later) y = b.op("Add", "late", {y, h});
  b.g.outputs = {y};
  return b.g;
}

TEST(FuseConv, TheOutputTakesTheResidualsMemoryWhereItIsTheLastReader) {
  for (bool later : {false, true})
    for (auto [c, hw, k] :
         {std::tuple<int64_t, int64_t, int64_t>{8, 9, 3}, {64, 30, 1}, {40, 17, 3}})
      for (int threads : {1, 2}) {
        SCOPED_TRACE(std::to_string(c) + "x" + std::to_string(hw) + " k" + std::to_string(k) +
                     (later ? " read later" : "") + " threads " + std::to_string(threads));
        const Graph orig = residual_reader(c, hw, k, later);
        ModelOptions o;
        o.threads = threads;
        Model model(orig, o);
        const std::vector<NamedTensor> in = {{"x", random({1, c, hw, hw}, 1, -2.f, 2.f)}};
        const auto plan = model.plan_for({in[0].tensor.desc()});
        ASSERT_EQ(count_op(model.graph(), "FusedConv"), 2);
        const int h = model.graph().find("h"), out = model.graph().find("o");
        ASSERT_GE(h, 0);
        ASSERT_GE(out, 0);
        ASSERT_EQ(plan->storage[h], Storage::kArena);
        EXPECT_EQ(plan->offset[out] == plan->offset[h], !later);
        EXPECT_GE(plan->in_place, later ? 0 : 1);
        expect_same_outputs(orig, in, 1e-5);
        const auto fused = model.run(in), plain = Model(orig,
                                                        [] {
                                                          ModelOptions p;
                                                          p.optimize = false;
                                                          return p;
                                                        }())
                                                      .run(in);
        ASSERT_EQ(fused[0].tensor.shape(), plain[0].tensor.shape());
        for (int64_t i = 0; i < fused[0].tensor.numel(); ++i)
          ASSERT_NEAR(fused[0].tensor.at(i), plain[0].tensor.at(i), 1e-4) << i;
      }
}

// A stem (3x3 stride 2 over three channels, read from the map's phase planes) whose bias and
// ReLU / ReLU6 / no activation are applied as the product leaves the planes, against the graph
// unfused, on one and two threads.
TEST(FuseConv, AStemsEpilogueOnItsWayOutOfThePlanes) {
  for (const char* act : {"Relu", "Clip", ""})
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::string(act) + " threads " + std::to_string(threads));
      Builder b;
      const int x = b.input("x", {1, 3, 97, 130});
      int y = b.op("Conv", "conv",
                   {x, b.constant("w", random({24, 3, 3, 3}, 2)), b.constant("b", random({24}, 3))},
                   {{"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}});
      if (std::string(act) == "Relu") y = b.op("Relu", "act", {y});
      if (std::string(act) == "Clip")
        y = b.op("Clip", "act", {y, b.constant("lo", scalar(-0.5)), b.constant("hi", scalar(0.5))});
      b.g.outputs = {y};
      ModelOptions o;
      o.threads = threads;
      const std::vector<NamedTensor> in = {{"x", random({1, 3, 97, 130}, 1, -2.f, 2.f)}};
      const auto fused = Model(b.g, o).run(in);
      o.optimize = false;
      const auto plain = Model(b.g, o).run(in);
      ASSERT_EQ(fused[0].tensor.shape(), plain[0].tensor.shape());
      for (int64_t i = 0; i < fused[0].tensor.numel(); ++i)
        ASSERT_NEAR(fused[0].tensor.at(i), plain[0].tensor.at(i), 1e-5) << i;
    }
}

TEST(PackConvWeights, PacksEachGroupInTheKernelsALayout) {
  const cpu::GemmKernel& k = cpu::gemm_kernel(DType::kF32);
  Builder b;
  const int x = b.input("x", {1, 8, 6, 6});
  const Tensor w = random({10, 4, 3, 3}, 2);
  b.g.outputs = {b.op("Conv", "conv", {x, b.constant("w", w)}, {{"group", int64_t{2}}})};
  Graph g = b.g;
  fuse(g);
  EXPECT_EQ(pack_conv_weights(g), 1);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.attrs.i("panel"), k.mr);
  EXPECT_EQ(n.attrs.ints("w_shape"), (V{10, 4, 3, 3}));
  const Tensor& p = *g.values[n.inputs[1]].constant;
  const int64_t kk = 36, kp = (kk + k.k_pack - 1) / k.k_pack * k.k_pack,
                panels = (5 + k.mr - 1) / k.mr;
  ASSERT_EQ(p.shape(), (Shape{2, panels, kp * k.mr}));
  // Element (m, kk) of group gi at its place in the layout of gemm.h (k_pack 1 for f32).
  for (int64_t gi = 0; gi < 2; ++gi)
    for (int64_t m = 0; m < 5; ++m)
      for (int64_t q = 0; q < kk; ++q)
        ASSERT_EQ(p.at((gi * panels + m / k.mr) * kp * k.mr + q * k.mr + m % k.mr),
                  w.at((gi * 5 + m) * kk + q))
            << gi << " " << m << " " << q;
}

TEST(PackConvWeights, ModelsRunPackedAsTheyRunUnpacked) {
  const Graph orig = resnet_block(true, true);
  ModelOptions packed, plain;
  packed.threads = plain.threads = 2;
  plain.pack_weights = false;
  const auto a = Model(orig, packed).run(kIn), c = Model(orig, plain).run(kIn);
  ASSERT_EQ(a.size(), 1u);
  double diff = 0;
  for (int64_t i = 0; i < a[0].tensor.numel(); ++i)
    diff = std::max(diff, std::abs(a[0].tensor.at(i) - c[0].tensor.at(i)));
  EXPECT_LE(diff, 1e-5);
  expect_same_outputs(orig, kIn, 1e-5);
}

TEST(PackConvWeights, ADepthwiseWeightBecomesBlockDiagonalGroups) {
  const cpu::GemmKernel& k = cpu::gemm_kernel(DType::kF32);
  const int64_t c = 4 * k.mr;
  Builder b;
  const int x = b.input("x", {1, c, 9, 9});
  b.g.outputs = {
      b.op("Conv", "conv",
           {x, b.constant("w", random({c, 1, 3, 3}, 2)), b.constant("b", random({c}, 3))},
           {{"group", c}, {"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}})};
  const Graph orig = b.g;
  Graph g = orig;
  fuse(g);
  EXPECT_EQ(pack_conv_weights(g), 1);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.attrs.i("group"), 4);
  EXPECT_EQ(n.attrs.ints("w_shape"), (V{c, k.mr, 3, 3}));
  // Packed against the vector form (pack_weights off): the same convolution.
  ModelOptions packed, plain;
  packed.threads = plain.threads = 2;
  plain.pack_weights = false;
  const std::vector<NamedTensor> in = {{"x", random({1, c, 9, 9}, 1)}};
  const auto a = Model(orig, packed).run(in), d = Model(orig, plain).run(in);
  double diff = 0;
  for (int64_t i = 0; i < a[0].tensor.numel(); ++i)
    diff = std::max(diff, std::abs(a[0].tensor.at(i) - d[0].tensor.at(i)));
  EXPECT_LE(diff, 1e-5);
  expect_same_outputs(orig, in, 1e-5);
}

TEST(PackConvWeights, AWeightReadElsewhereStaysAsItIs) {
  Builder b;
  const int x = b.input("x", {1, 4, 6, 6});
  const int w = b.constant("w", random({4, 4, 3, 3}, 2));
  const int y = b.op("Conv", "conv", {x, w}, kPad1);
  b.g.outputs = {y, b.op("Relu", "wr", {w})};
  Graph g = b.g;
  fuse(g);
  EXPECT_EQ(pack_conv_weights(g), 0);
}

}  // namespace
}  // namespace asc
