// The epilogues exporters write after a convolution (runtime/fuse_conv.cpp, fuse_activation.cpp):
// per-channel affine steps fold into W and B; hard-swish, hard-sigmoid, SiLU, Relu6 and GELU
// written out in primitives become the FusedConv's activation. Each case runs against the unfused
// graph on seeded inputs; near misses (a second reader, a computed scale, wrong constants, a
// broadcast that is not per channel) must stay out.
#include <gtest/gtest.h>

#include <cmath>
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

constexpr int64_t kM = 6;  // output channels; x [2, 4, 7, 6] -> y [2, 6, 7, 6]

// x -> Conv 3x3 (4 -> 6, padded) -> epilogue(b, x, y) -> the graph's output.
using Epilogue = std::function<int(Builder&, int x, int y)>;
Graph conv_then(const Epilogue& epilogue) {
  Builder b;
  const int x = b.input("x", {2, 4, 7, 6});
  const int y =
      b.op("Conv", "conv",
           {x, b.constant("w", random({kM, 4, 3, 3}, 2)), b.constant("b", random({kM}, 3))},
           {{"pads", V{1, 1, 1, 1}}});
  const int out = epilogue(b, x, y);  // may add outputs of its own (second readers)
  b.g.outputs.insert(b.g.outputs.begin(), out);
  return b.g;
}

const std::vector<NamedTensor> kIn = {{"x", random({2, 4, 7, 6}, 1, -2.f, 2.f)}};

const Node* fused_conv(const Graph& g) {
  for (const Node& n : g.nodes)
    if (n.op_type == "FusedConv") return &n;
  return nullptr;
}

// Fused with the elementwise pass off (what is left stays countable): the FusedConv.
Graph fused(const Graph& orig, FuseOptions o = {}) {
  Graph g = orig;
  o.elementwise = false;
  fuse(g, o);
  return g;
}

struct AffineCase {
  std::string name;
  Epilogue epilogue;
};

TEST(FuseConvEpilogue, AffineStepsFoldIntoWeightsAndBias) {
  const std::vector<AffineCase> cases = {
      {"Mul(c[1],y)->Add(y,c[1])",  // PP-LCNetV3's learnable affine block as Paddle2ONNX writes it
       [](Builder& b, int, int y) {
         return with_const(b, "Add", "add", with_const(b, "Mul", "mul", y, scalar(1.7, {1}), true),
                           scalar(0.3, {1}));
       }},
      {"Div(y,c[])",
       [](Builder& b, int, int y) { return with_const(b, "Div", "d", y, scalar(3)); }},
      {"Sub(y,c)", [](Builder& b, int, int y) { return with_const(b, "Sub", "s", y, scalar(.5)); }},
      {"Sub(c,y)",
       [](Builder& b, int, int y) { return with_const(b, "Sub", "s", y, scalar(.5), true); }},
      {"Mul(y,c[M,1,1])->Add(c[1,M,1,1],y)",
       [](Builder& b, int, int y) {
         const int m = with_const(b, "Mul", "mul", y, random({kM, 1, 1}, 9));
         return with_const(b, "Add", "add", m, random({1, kM, 1, 1}, 10), true);
       }},
      {"BatchNormalization->Mul->Sub->Div",
       [](Builder& b, int, int y) {
         const int bn =
             b.op("BatchNormalization", "bn",
                  {y, b.constant("scale", random({kM}, 4, 0.5f, 1.5f)),
                   b.constant("shift", random({kM}, 5)), b.constant("mean", random({kM}, 6)),
                   b.constant("var", random({kM}, 7, 0.5f, 2.f))});
         const int m = with_const(b, "Mul", "mul", bn, scalar(-2, {1, 1, 1}));
         return with_const(b, "Div", "div", with_const(b, "Sub", "sub", m, scalar(1)),
                           random({kM, 1, 1}, 11, 1.f, 2.f));
       }},
  };
  for (const AffineCase& c : cases) {
    const Graph orig = conv_then(c.epilogue);
    const Graph g = fused(orig);
    ASSERT_EQ(g.nodes.size(), 1u) << c.name;
    const Node& n = g.nodes[0];
    EXPECT_EQ(n.op_type, "FusedConv") << c.name;
    EXPECT_EQ(n.attrs.s("activation"), "none") << c.name;
    EXPECT_NE(n.inputs[1], g.find("w")) << c.name;  // new constants
    EXPECT_TRUE(g.values[n.inputs[2]].constant) << c.name;
    expect_same_outputs(orig, kIn, 1e-5);
  }
}

// What must not fold: the step stays a node after the FusedConv (activation none, y its output).
TEST(FuseConvEpilogue, AffineNearMissesStayOut) {
  const std::vector<AffineCase> cases = {
      {"computed scale",
       [](Builder& b, int, int y) {
         const int s = b.input("s", {1});
         return b.op("Mul", "mul", {y, s});
       }},
      {"[1,1,1,W]",
       [](Builder& b, int, int y) {
         return with_const(b, "Mul", "mul", y, random({1, 1, 1, 6}, 9));
       }},
      {"[M] (aligned to W)",
       [](Builder& b, int, int y) { return with_const(b, "Add", "add", y, random({kM}, 9)); }},
      {"[1,1,M,1,1] (rank 5)",
       [](Builder& b, int, int y) {
         return with_const(b, "Mul", "mul", y, scalar(2, {1, 1, 1, 1, 1}));
       }},
      {"Div(c,y)",
       [](Builder& b, int, int y) { return with_const(b, "Div", "div", y, scalar(2), true); }},
      {"Div by 0",
       [](Builder& b, int, int y) { return with_const(b, "Div", "div", y, scalar(0)); }},
      {"second reader",
       [](Builder& b, int, int y) {
         const int m = with_const(b, "Mul", "mul", y, scalar(2));
         b.g.outputs.push_back(y);  // y read outside: a graph output
         return m;
       }},
  };
  for (const AffineCase& c : cases) {
    const Graph orig = conv_then(c.epilogue);
    const Graph g = fused(orig);
    const Node* n = fused_conv(g);
    ASSERT_TRUE(n) << c.name;
    EXPECT_EQ(n->outputs[0], g.find("conv")) << c.name;
    EXPECT_EQ(n->inputs[1], g.find("w")) << c.name;
    EXPECT_EQ(g.nodes.size(), 2u) << c.name;
    std::vector<NamedTensor> in = kIn;
    if (g.find("s") >= 0) in.push_back({"s", scalar(1.5, {1})});
    expect_same_outputs(orig, in, 1e-5);
  }
}

// Hard-swish's pieces: z + 3 -> Clip(0, 6) (Clip-11 constant bounds).
int relu6_shift(Builder& b, int z, double three = 3, double six = 6) {
  const int a = with_const(b, "Add", "plus3", z, scalar(three));
  return b.op("Clip", "clip", {a, b.constant("lo", scalar(0)), b.constant("hi", scalar(six))});
}

int by_six(Builder& b, const std::string& name, int v, bool mul) {
  return mul ? with_const(b, "Mul", name, v, scalar(1.0f / 6))
             : with_const(b, "Div", name, v, scalar(6));
}

struct ActCase {
  std::string name, activation;  // the FusedConv's activation
  Epilogue epilogue;
  size_t nodes = 1;  // after fusion: a near miss leaves nodes of the chain
};

void expect_activation(const ActCase& c) {
  const Graph orig = conv_then(c.epilogue);
  const Graph g = fused(orig);
  const Node* n = fused_conv(g);
  ASSERT_TRUE(n) << c.name;
  EXPECT_EQ(n->attrs.s("activation"), c.activation) << c.name;
  EXPECT_EQ(g.nodes.size(), c.nodes) << c.name;
  if (c.nodes == 1) {
    EXPECT_EQ(n->outputs[0], orig.outputs[0]) << c.name;
  }
  expect_same_outputs(orig, kIn, 1e-5);
}

const std::vector<ActCase>& activation_cases() {
  static const std::vector<ActCase> cases = {
      {"z*Clip(z+3,0,6)/6", "hardswish",
       [](Builder& b, int, int z) {
         return by_six(b, "out", b.op("Mul", "m", {z, relu6_shift(b, z)}), false);
       }},
      {"Clip(z+3,0,6)*z*(1/6)", "hardswish",
       [](Builder& b, int, int z) {
         return by_six(b, "out", b.op("Mul", "m", {relu6_shift(b, z), z}), true);
       }},
      {"z*(Clip(z+3,0,6)/6)", "hardswish",
       [](Builder& b, int, int z) {
         return b.op("Mul", "out", {z, by_six(b, "d", relu6_shift(b, z), false)});
       }},
      {"(Clip(z+3,0,6)*(1/6))*z", "hardswish",
       [](Builder& b, int, int z) {
         return b.op("Mul", "out", {by_six(b, "d", relu6_shift(b, z), true), z});
       }},
      {"HardSigmoid(z,1/6,1/2)*z", "hardswish",
       [](Builder& b, int, int z) {
         const int h = b.op("HardSigmoid", "hs", {z}, {{"alpha", 1.0f / 6}, {"beta", 0.5f}});
         return b.op("Mul", "out", {h, z});
       }},
      {"Clip(z+3,0,6)/6", "hardsigmoid",
       [](Builder& b, int, int z) { return by_six(b, "out", relu6_shift(b, z), false); }},
      {"z*Sigmoid(z)", "silu",
       [](Builder& b, int, int z) {
         return b.op("Mul", "out", {z, b.op("Sigmoid", "s", {z})});
       }},
      {"Sigmoid(z*1)*z", "silu",
       [](Builder& b, int, int z) {
         const int s = b.op("Sigmoid", "s", {with_const(b, "Mul", "one", z, scalar(1))});
         return b.op("Mul", "out", {s, z});
       }},
      {"Clip(z,0,6)", "clip",
       [](Builder& b, int, int z) {
         return b.op("Clip", "out", {z, b.constant("lo", scalar(0)), b.constant("hi", scalar(6))});
       }},
      {"Min(Max(z,0),6)", "clip",
       [](Builder& b, int, int z) {
         return with_const(b, "Min", "out", with_const(b, "Max", "mx", z, scalar(0)), scalar(6));
       }},
      {"Max(0,z)", "relu",
       [](Builder& b, int, int z) { return with_const(b, "Max", "out", z, scalar(0), true); }},
      {"GELU (erf)", "gelu",
       [](Builder& b, int, int z) {
         const int d = with_const(b, "Div", "d", z, scalar(std::sqrt(2.0)));
         const int p = with_const(b, "Add", "p", b.op("Erf", "e", {d}), scalar(1));
         return with_const(b, "Mul", "out", b.op("Mul", "m", {z, p}), scalar(0.5));
       }},
  };
  return cases;
}

TEST(FuseConvEpilogue, ActivationsWrittenOutBecomeTheEpilogue) {
  for (const ActCase& c : activation_cases()) expect_activation(c);
}

// After the affine block, and after a residual Add: the whole chain is one node.
TEST(FuseConvEpilogue, AffineResidualAndActivationAreOneNode) {
  for (const ActCase& c : activation_cases()) {
    const ActCase affine{c.name + " after Mul->Add", c.activation, [&](Builder& b, int x, int y) {
                           const int m = with_const(b, "Mul", "am", y, scalar(1.3, {1}), true);
                           return c.epilogue(b, x, with_const(b, "Add", "aa", m, scalar(-.2, {1})));
                         }};
    expect_activation(affine);
    // x has 4 channels, y 6: the residual is y's own shape, another conv of x.
    const ActCase residual{
        c.name + " after Add(r)", c.activation, [&](Builder& b, int x, int y) {
          const int r = b.op("Conv", "conv_r", {x, b.constant("wr", random({kM, 4, 1, 1}, 12))});
          return c.epilogue(b, x, b.op("Add", "sum", {r, y}));
        }};
    const Graph orig = conv_then(residual.epilogue);
    const Graph g = fused(orig);
    EXPECT_EQ(g.nodes.size(), 2u) << residual.name;  // conv_r, then conv + Add + activation
    int with_z = 0;
    for (const Node& n : g.nodes)
      if (n.op_type == "FusedConv" && n.inputs.size() > 3) {
        ++with_z;
        EXPECT_EQ(n.attrs.s("activation"), c.activation) << residual.name;
      }
    EXPECT_EQ(with_z, 1) << residual.name;
    expect_same_outputs(orig, kIn, 1e-5);
  }
}

// Paddle2ONNX's models have a symbolic width: after a strided conv its dims are unknown,
// and the chain (one-element constants of rank <= y's) still keeps y's shape.
TEST(FuseConvEpilogue, ASymbolicWidthStillFuses) {
  for (const ActCase& c : activation_cases()) {
    Builder b;
    const int x = b.g.add_value("x", {DType::kF32, SymShape{Dim("n"), 4, 7, Dim("w")}});
    b.g.inputs.push_back(x);
    const int y = b.op("Conv", "conv", {x, b.constant("w", random({kM, 4, 3, 3}, 2))},
                       {{"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}});
    const int m = with_const(b, "Mul", "am", y, scalar(1.3, {1}), true);
    b.g.outputs = {c.epilogue(b, x, with_const(b, "Add", "aa", m, scalar(-.2, {1})))};
    const Graph g = fused(b.g);
    ASSERT_EQ(g.nodes.size(), 1u) << c.name;
    EXPECT_EQ(g.nodes[0].attrs.s("activation"), c.activation) << c.name;
    expect_same_outputs(b.g, {{"x", random({3, 4, 7, 9}, 1, -2.f, 2.f)}}, 1e-5);
  }
}

// Paddle2ONNX at opset 9: Clip's bounds are attributes.
TEST(FuseConvEpilogue, HardSwishWithAClip6) {
  expect_activation({"Clip-6", "hardswish", [](Builder& b, int, int z) {
                       const int a = with_const(b, "Add", "plus3", z, scalar(3));
                       const int c = b.op("Clip", "clip", {a}, {{"min", 0.0f}, {"max", 6.0f}});
                       Node& clip = b.g.nodes.back();
                       clip.opset = 9;
                       clip.def = global_registry().find("", "Clip", 9);
                       return by_six(b, "out", b.op("Mul", "m", {z, c}), false);
                     }});
}

TEST(FuseConvEpilogue, NearMissActivationsStayOut) {
  const float sixth = 1.0f / 6, up = std::nextafter(sixth, 1.f), up2 = std::nextafter(up, 1.f);
  // One ulp above float(1/6) is 1/6; two are not.
  expect_activation({"*(1/6 + 1 ulp)", "hardsigmoid", [=](Builder& b, int, int z) {
                       return with_const(b, "Mul", "out", relu6_shift(b, z), scalar(up));
                     }});
  const std::vector<ActCase> misses = {
      {"*(1/6 + 2 ulp)", "clip",  // +3 in B, a Clip, the Mul its post_scale
       [=](Builder& b, int, int z) {
         return with_const(b, "Mul", "out", relu6_shift(b, z), scalar(up2));
       },
       1},
      {"z+3.0001", "none",
       [](Builder& b, int, int z) {
         return by_six(b, "out", b.op("Mul", "m", {z, relu6_shift(b, z, 3.0001)}), false);
       },
       5},
      {"Clip(.,0,6.5)", "none",
       [](Builder& b, int, int z) {
         return by_six(b, "out", b.op("Mul", "m", {z, relu6_shift(b, z, 3, 6.5)}), false);
       },
       5},
      {"/6.01", "none",
       [](Builder& b, int, int z) {
         return with_const(b, "Div", "out", b.op("Mul", "m", {z, relu6_shift(b, z)}), scalar(6.01));
       },
       5},
      {"6/(z*Clip)", "none",
       [](Builder& b, int, int z) {
         return with_const(b, "Div", "out", b.op("Mul", "m", {z, relu6_shift(b, z)}), scalar(6),
                           true);
       },
       5},
      {"Sigmoid(z*2)*z", "none",
       [](Builder& b, int, int z) {
         const int s = b.op("Sigmoid", "s", {with_const(b, "Mul", "two", z, scalar(2))});
         return b.op("Mul", "out", {s, z});
       },
       4},
      {"HardSigmoid(z,0.2,0.5)*z", "none",
       [](Builder& b, int, int z) {
         return b.op("Mul", "out", {b.op("HardSigmoid", "hs", {z}), z});
       },
       3},
      {"the Clip read twice", "none",
       [](Builder& b, int, int z) {
         const int c = relu6_shift(b, z);
         b.g.outputs.push_back(c);
         return by_six(b, "out", b.op("Mul", "m", {z, c}), false);
       },
       5},
      {"a [1,1,1,1,1] 3", "none",
       [](Builder& b, int, int z) {
         const int a = with_const(b, "Add", "plus3", z, scalar(3, {1, 1, 1, 1, 1}));
         const int c =
             b.op("Clip", "clip", {a, b.constant("lo", scalar(0)), b.constant("hi", scalar(6))});
         return by_six(b, "out", b.op("Mul", "m", {z, c}), false);
       },
       5},
  };
  for (const ActCase& c : misses) expect_activation(c);
}

// The same matcher serves FusedMatMulBias, which has no alpha/beta: hard-swish written out fuses,
// a Clip stays a node of its own.
TEST(FuseConvEpilogue, MatMulEpiloguesShareTheMatcher) {
  for (const bool clip : {false, true}) {
    Builder b;
    const int x = b.input("x", {3, 5, 8});
    const int y = b.op("MatMul", "mm", {x, b.constant("w", random({8, 6}, 2))});
    const int z = b.op("Add", "bias", {y, b.constant("b", random({6}, 3))});
    b.g.outputs = {
        clip ? b.op("Clip", "out", {z, b.constant("lo", scalar(0)), b.constant("hi", scalar(6))})
             : by_six(b, "out", b.op("Mul", "m", {z, relu6_shift(b, z)}), false)};
    const Graph g = fused(b.g);
    ASSERT_EQ(count_op(g, "FusedMatMulBias"), 1) << clip;
    EXPECT_EQ(g.nodes.size(), clip ? 2u : 1u);
    for (const Node& n : g.nodes)
      if (n.op_type == "FusedMatMulBias") {
        EXPECT_EQ(n.attrs.s("activation"), clip ? "none" : "hardswish");
      }
    expect_same_outputs(b.g, {{"x", random({3, 5, 8}, 1, -4.f, 4.f)}}, 1e-5);
  }
}

}  // namespace
}  // namespace asc
