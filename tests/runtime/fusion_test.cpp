// Graph fusion on small graphs: every pattern matches its spellings, the fused model computes what
// the unfused one does, and the legality predicate's conditions each block a fusion (an interior
// value that is a graph output, exposed, or read outside the pattern).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/fused.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/fusion.h"
#include "runtime/model.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::Builder;
using test::count_op;
using test::expect_same_outputs;
using test::random;

Tensor scalar(float v) {
  Tensor t(DType::kF32, {});
  t.set(0, v);
  return t;
}

Tensor i64s(std::vector<int64_t> v) {
  Tensor t(DType::kI64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

// x [2, 5, 16] -> RMSNorm (Div spelling) -> * w; y also feeds `extra` when asked.
struct RmsGraph {
  Graph g;
  std::vector<NamedTensor> inputs;
};
RmsGraph rms_graph(bool reciprocal, bool mul_square) {
  Builder b;
  const int x = b.input("x", {2, 5, 16});
  const int w = b.constant("w", random({16}, 3, 0.5f, 1.5f));
  const int sq = mul_square ? b.op("Mul", "sq", {x, x})
                            : b.op("Pow", "sq", {x, b.constant("two", scalar(2.f))});
  const int mean = b.op("ReduceMean", "mean", {sq}, {{"axes", std::vector<int64_t>{-1}}});
  const int var = b.op("Add", "var", {mean, b.constant("eps", scalar(1e-6f))});
  const int root = b.op("Sqrt", "root", {var});
  const int normed = reciprocal ? b.op("Mul", "normed", {x, b.op("Reciprocal", "rec", {root})})
                                : b.op("Div", "normed", {x, root});
  b.g.outputs = {b.op("Mul", "y", {w, normed})};
  return {std::move(b.g), {{"x", random({2, 5, 16}, 1, -2.f, 2.f)}}};
}

TEST(FuseRmsNorm, DivSpellingWithWeightIsOneNode) {
  RmsGraph r = rms_graph(false, false);
  Graph g = r.g;
  const FuseReport rep = fuse(g);
  EXPECT_EQ(rep.counts.at("FusedRMSNorm"), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.op_type, "FusedRMSNorm");
  EXPECT_EQ(n.domain, "ai.asc");
  EXPECT_EQ(n.name, "y");  // the last node's name
  EXPECT_EQ(n.inputs, (std::vector<int>{g.find("x"), g.find("w")}));
  EXPECT_FLOAT_EQ(n.attrs.f("epsilon"), 1e-6f);
  EXPECT_EQ(rep.nodes_before, 6);
  EXPECT_EQ(rep.nodes_after, 1);
  expect_same_outputs(r.g, r.inputs, 1e-5);
  expect_same_outputs(r.g, r.inputs, 2e-2, DType::kBF16);
}

TEST(FuseRmsNorm, ReciprocalAndMulSquareSpellings) {
  RmsGraph r = rms_graph(true, true);
  Graph g = r.g;
  EXPECT_EQ(fuse(g).counts.at("FusedRMSNorm"), 1);
  EXPECT_EQ(g.nodes.size(), 1u);
  expect_same_outputs(r.g, r.inputs, 1e-5);
}

TEST(FuseRmsNorm, AnInteriorGraphOutputBlocksIt) {
  RmsGraph r = rms_graph(false, false);
  r.g.outputs.push_back(r.g.find("mean"));
  Graph g = r.g;
  EXPECT_EQ(fuse(g).counts.at("FusedRMSNorm"), 0);
  expect_same_outputs(r.g, r.inputs, 1e-5);
}

TEST(FuseRmsNorm, AnExposedInteriorValueBlocksIt) {
  RmsGraph r = rms_graph(false, false);
  Graph g = r.g;
  FuseOptions o;
  o.keep = {g.find("root")};
  EXPECT_EQ(fuse(g, o).counts.at("FusedRMSNorm"), 0);
  EXPECT_EQ(count_op(g, "FusedRMSNorm"), 0);
  EXPECT_GE(g.values[g.find("root")].producer, 0);  // still computed (by an elementwise chain)
  // Model: an exposed interior value blocks the fusion and is returned.
  ModelOptions mo;
  mo.threads = 2;
  mo.expose = {"root"};
  const Model m(r.g, mo);
  EXPECT_EQ(m.fusion().counts.at("FusedRMSNorm"), 0);
  EXPECT_EQ(m.exposed(), std::vector<std::string>{"root"});
  EXPECT_EQ(m.run(r.inputs).size(), 2u);
}

TEST(FuseRmsNorm, AConsumerOutsideBlocksIt) {
  RmsGraph r = rms_graph(false, false);
  Builder b;
  b.g = r.g;
  b.g.outputs.push_back(b.op("Neg", "outside", {b.g.find("var")}));
  Graph g = b.g;
  EXPECT_EQ(fuse(g).counts.at("FusedRMSNorm"), 0);
  expect_same_outputs(b.g, r.inputs, 1e-5);
}

TEST(FuseRmsNorm, AnExposedNormLeavesTheWeightOut) {
  RmsGraph r = rms_graph(false, false);
  Graph g = r.g;
  FuseOptions o;
  o.keep = {g.find("normed")};
  EXPECT_EQ(fuse(g, o).counts.at("FusedRMSNorm"), 1);
  ASSERT_EQ(g.nodes.size(), 2u);  // the norm without scale, then the Mul
  EXPECT_EQ(count_op(g, "Mul"), 1);
  const Node& n = g.nodes[g.values[g.find("normed")].producer];
  EXPECT_EQ(n.op_type, "FusedRMSNorm");
  EXPECT_EQ(n.inputs.size(), 1u);
}

TEST(Fusion, OptimizeOffFusesNothing) {
  RmsGraph r = rms_graph(false, false);
  ModelOptions mo;
  mo.optimize = false;
  const Model m(r.g, mo);
  EXPECT_EQ(m.fusion().fused(), 0);
  EXPECT_EQ(m.graph().nodes.size(), 6u);
  for (const Node& n : m.graph().nodes) EXPECT_TRUE(n.domain.empty()) << n.label();
}

// 0.5 z (1 + erf(z / sqrt 2)): torch's spelling (Div, then Mul(Mul(z, p), 0.5)), or with
// Mul(z, 1 / sqrt 2) and Mul(Mul(z, 0.5), p); `root2` other than sqrt 2 makes it no GELU.
int gelu_erf(Builder& b, int z, bool torch, float root2 = std::sqrt(2.f)) {
  const int d = torch ? b.op("Div", "d", {z, b.constant("root2", scalar(root2))})
                      : b.op("Mul", "d", {b.constant("inv_root2", scalar(1 / root2)), z});
  const int p = b.op("Add", "p", {b.constant("one", scalar(1.f)), b.op("Erf", "e", {d})});
  const int half = b.constant("half", scalar(0.5f));
  return torch ? b.op("Mul", "act", {b.op("Mul", "u", {z, p}), half})
               : b.op("Mul", "act", {p, b.op("Mul", "u", {half, z})});
}

// a [3, 7] x b [7, 5] + bias [5] -> act
Graph matmul_graph(const std::string& act, Shape bias_shape = {5}) {
  Builder b;
  const int a = b.input("a", {3, 7});
  const int y = b.op("MatMul", "y", {a, b.constant("b", random({7, 5}, 4))});
  const int z = b.op("Add", "z", {b.constant("bias", random(bias_shape, 5)), y});
  int out = z;
  if (act == "silu")
    out = b.op("Mul", "act", {z, b.op("Sigmoid", "sig", {z})});
  else if (act == "gelu_erf" || act == "gelu_erf_half_first")
    out = gelu_erf(b, z, act == "gelu_erf");
  else if (!act.empty())
    out = b.op(act, "act", {z});
  b.g.outputs = {out};
  return b.g;
}

class FuseMatMul : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(FuseMatMul, BiasAndActivationGoIntoTheEpilogue) {
  const auto& [op, act] = GetParam();
  const Graph src = matmul_graph(op);
  Graph g = src;
  EXPECT_EQ(fuse(g).counts.at("FusedMatMulBias"), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "FusedMatMulBias");
  EXPECT_EQ(g.nodes[0].attrs.s("activation"), act);
  EXPECT_EQ(g.nodes[0].inputs.size(), 3u);
  expect_same_outputs(src, {{"a", random({3, 7}, 6)}}, 1e-5);
  expect_same_outputs(src, {{"a", random({3, 7}, 6)}}, 2e-2, DType::kBF16);
}

INSTANTIATE_TEST_SUITE_P(
    Activations, FuseMatMul,
    ::testing::Values(std::pair<std::string, std::string>{"", "none"},
                      std::pair<std::string, std::string>{"Relu", "relu"},
                      std::pair<std::string, std::string>{"Sigmoid", "sigmoid"},
                      std::pair<std::string, std::string>{"Tanh", "tanh"},
                      std::pair<std::string, std::string>{"silu", "silu"},
                      std::pair<std::string, std::string>{"gelu_erf", "gelu"},
                      std::pair<std::string, std::string>{"gelu_erf_half_first", "gelu"}));

// Erf chains that are not GELU stay out of the epilogue: another divisor, a scale other than
// 0.5, a value of the chain read outside it.
TEST(FuseMatMulBias, ErfChainsThatAreNotGeluStayOut) {
  for (int variant = 0; variant < 3; ++variant) {
    Builder b;
    const int a = b.input("a", {3, 7});
    const int y = b.op("MatMul", "y", {a, b.constant("b", random({7, 5}, 4))});
    const int z = b.op("Add", "z", {b.constant("bias", random({5}, 5)), y});
    const int out = gelu_erf(b, z, true, variant == 0 ? 1.5f : std::sqrt(2.f));
    if (variant == 1) b.g.nodes.back().inputs[1] = b.constant("third", scalar(1 / 3.f));
    b.g.outputs = {out};
    if (variant == 2) b.g.outputs.push_back(b.g.find("e"));
    const Graph src = b.g;
    Graph g = src;
    EXPECT_EQ(fuse(g).counts.at("FusedMatMulBias"), 1) << variant;
    EXPECT_EQ(g.nodes[g.values[g.find("z")].producer].attrs.s("activation"), "none") << variant;
    expect_same_outputs(src, {{"a", random({3, 7}, 6)}}, 1e-5);
  }
}

TEST(FuseMatMulBias, AnExposedSumKeepsTheActivationOut) {
  Graph g = matmul_graph("Relu");
  FuseOptions o;
  o.keep = {g.find("z")};
  EXPECT_EQ(fuse(g, o).counts.at("FusedMatMulBias"), 1);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(count_op(g, "Relu"), 1);
  EXPECT_EQ(g.nodes[g.values[g.find("z")].producer].attrs.s("activation"), "none");
}

TEST(FuseMatMulBias, ABiasAcrossRowsIsNotAnEpilogue) {
  const Graph src = matmul_graph("", {3, 1});  // adds along M, not N
  Graph g = src;
  EXPECT_EQ(fuse(g).counts.at("FusedMatMulBias"), 0);
  expect_same_outputs(src, {{"a", random({3, 7}, 6)}}, 1e-5);
}

// SiLU-gated MLP: g * sigmoid(g) * up
Graph swiglu_graph() {
  Builder b;
  const int gate = b.input("g", {4, 33}), up = b.input("up", {4, 33});
  const int m = b.op("Mul", "m", {b.op("Sigmoid", "sig", {gate}), gate});
  b.g.outputs = {b.op("Mul", "y", {up, m})};
  return b.g;
}

TEST(FuseSwiGLU, ThreeNodesBecomeOne) {
  const Graph src = swiglu_graph();
  Graph g = src;
  EXPECT_EQ(fuse(g).counts.at("FusedSwiGLU"), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<int>{g.find("g"), g.find("up")}));
  expect_same_outputs(src, {{"g", random({4, 33}, 7, -4, 4)}, {"up", random({4, 33}, 8)}}, 1e-5);
}

TEST(FuseSwiGLU, AnExposedGateBlocksIt) {
  Graph g = swiglu_graph();
  FuseOptions o;
  o.keep = {g.find("sig")};
  o.elementwise = false;
  EXPECT_EQ(fuse(g, o).counts.at("FusedSwiGLU"), 0);
  EXPECT_EQ(g.nodes.size(), 3u);
}

// x [1, 3, 5, 8] * cos + rotate_half(x) * sin, cos/sin [1, 1, 5, 8]
Graph rotary_graph(bool neg_is_output) {
  Builder b;
  const int x = b.input("x", {1, 3, 5, 8});
  const int cos = b.input("cos", {1, 1, 5, 8}), sin = b.input("sin", {1, 1, 5, 8});
  const int axis = b.constant("axis", i64s({-1}));
  const int x1 =
      b.op("Slice", "x1", {x, b.constant("zero", i64s({0})), b.constant("half", i64s({4})), axis});
  const int x2 =
      b.op("Slice", "x2", {x, b.g.find("half"), b.constant("end", i64s({INT64_MAX})), axis});
  const int neg = b.op("Neg", "neg", {x2});
  const int rot = b.op("Concat", "rot", {neg, x1}, {{"axis", int64_t{-1}}});
  const int y = b.op("Add", "y", {b.op("Mul", "xc", {x, cos}), b.op("Mul", "rs", {sin, rot})});
  b.g.outputs = {y};
  if (neg_is_output) b.g.outputs.push_back(neg);
  return b.g;
}

TEST(FuseRotary, RotateHalfBecomesOneNode) {
  const Graph src = rotary_graph(false);
  Graph g = src;
  EXPECT_EQ(fuse(g).counts.at("FusedRotary"), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<int>{g.find("x"), g.find("cos"), g.find("sin")}));
  const std::vector<NamedTensor> in = {{"x", random({1, 3, 5, 8}, 9)},
                                       {"cos", random({1, 1, 5, 8}, 10)},
                                       {"sin", random({1, 1, 5, 8}, 11)}};
  expect_same_outputs(src, in, 1e-6);
  expect_same_outputs(src, in, 2e-2, DType::kF16);
}

TEST(FuseRotary, AnInteriorGraphOutputBlocksIt) {
  Graph g = rotary_graph(true);
  EXPECT_EQ(fuse(g).counts.at("FusedRotary"), 0);
}

TEST(FuseElementwise, AChainIsOneSplicedNode) {
  Builder b;
  const int x = b.input("x", {4, 1, 8});
  const int bias = b.constant("bias", random({8}, 12));
  const int s = b.op("Add", "s", {x, bias});
  const int r = b.op("LeakyRelu", "r", {s}, {{"alpha", 0.25f}});
  const int y = b.op("Mul", "y", {r, b.input("c", {3, 8})});  // broadcasts x up to [4, 3, 8]
  b.g.outputs = {y};
  Graph g = b.g;
  EXPECT_EQ(fuse(g).counts.at("FusedElementwise"), 1);
  ASSERT_EQ(g.nodes.size(), 1u);
  const std::vector<fused::ChainStep> steps = fused::decode_chain(g.nodes[0].attrs);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].type, "Add");
  EXPECT_EQ(steps[1].type, "LeakyRelu");
  EXPECT_EQ(steps[1].attrs.f("alpha"), 0.25f);
  EXPECT_EQ(steps[2].args, (std::vector<int64_t>{fused::chain_step_code(1), 2}));
  expect_same_outputs(b.g, {{"x", random({4, 1, 8}, 13)}, {"c", random({3, 8}, 14)}}, 1e-6);
}

// A one-element chain (a scale from a shape) stays apart from the full-size chain it feeds: fused,
// it would run once per element of the output.
TEST(FuseElementwise, AOneElementProducerStaysOut) {
  Builder b;
  const int x = b.input("x", {4, 6});
  const int d = b.input("d", {});
  const int scale =
      b.op("Pow", "scale", {b.op("Sqrt", "root", {d}), b.constant("p", scalar(-1.f))});
  b.g.outputs = {b.op("Exp", "y", {b.op("Mul", "q", {x, scale})})};
  Graph g = b.g;
  EXPECT_EQ(fuse(g).counts.at("FusedElementwise"), 2);  // {Sqrt, Pow} and {Mul, Exp}
  EXPECT_EQ(g.nodes.size(), 2u);
  Tensor dv(DType::kF32, {});
  dv.set(0, 32.0);
  expect_same_outputs(b.g, {{"x", random({4, 6}, 17)}, {"d", dv}}, 1e-6);
}

TEST(FuseElementwise, AValueReadTwiceInsideIsInterior) {
  Builder b;
  const int x = b.input("x", {5, 7});
  const int s = b.op("Sigmoid", "s", {x});
  const int e = b.op("Exp", "e", {s});
  b.g.outputs = {b.op("Add", "y", {s, e})};  // s read by Exp and Add, both in the chain
  Graph g = b.g;
  EXPECT_EQ(fuse(g).counts.at("FusedElementwise"), 1);
  EXPECT_EQ(g.nodes.size(), 1u);
  expect_same_outputs(b.g, {{"x", random({5, 7}, 15)}}, 1e-6);
}

TEST(FuseElementwise, GraphOutputsAndDtypeAttributesSplitChains) {
  Builder b;
  const int x = b.input("x", {6});
  const int a = b.op("Exp", "a", {x});
  const int c = b.op("Neg", "c", {a});  // c is an output too: the chain ends here
  const int d = b.op("Cast", "d", {b.op("Abs", "ab", {c})}, {{"to", int64_t{1}}});
  b.g.outputs = {b.op("Sqrt", "y", {d}), c};
  Graph g = b.g;
  const FuseReport rep = fuse(g);
  // {Exp, Neg} fuse; Abs cannot take Neg in (c is a graph output), nor Sqrt the Cast.
  EXPECT_EQ(rep.counts.at("FusedElementwise"), 1);
  EXPECT_EQ(count_op(g, "Cast"), 1);
  EXPECT_EQ(count_op(g, "Abs"), 1);
  EXPECT_EQ(count_op(g, "Sqrt"), 1);
  EXPECT_EQ(g.values[g.find("c")].producer >= 0, true);
  expect_same_outputs(b.g, {{"x", random({6}, 16)}}, 1e-6);
}

TEST(Fusion, FusedOpsAreCountedAndNamed) {
  Graph g = rms_graph(false, false).g;
  const FuseReport rep = fuse(g);
  EXPECT_EQ(rep.fused(), 1);
  EXPECT_EQ(rep.str(), "FusedRMSNorm 1; 6 -> 1 nodes");
}

}  // namespace
}  // namespace asc

namespace asc {
namespace {

// A classifier's Linear as torch exports it: Gemm(x, W [N, K], C [N], transB = 1) -> Relu,
// alpha and beta folded into the new constants.
TEST(FuseMatMulBias, AGemmWithAConstantWeightIsAMatMul) {
  for (const float beta : {2.f, 0.f}) {
    test::Builder b;
    const int x = b.input("x", {3, 20});
    const int y =
        b.op("Gemm", "fc",
             {x, b.constant("w", test::random({7, 20}, 2)), b.constant("c", test::random({7}, 3))},
             {{"transB", int64_t{1}}, {"alpha", 0.5f}, {"beta", beta}});
    b.g.outputs = {b.op("Relu", "out", {y})};
    const Graph orig = b.g;
    Graph g = orig;
    EXPECT_EQ(fuse(g).counts.at("FusedMatMulBias"), 1);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, "FusedMatMulBias");
    EXPECT_EQ(g.nodes[0].attrs.s("activation"), "relu");
    EXPECT_EQ(g.nodes[0].inputs.size(), beta == 0.f ? 2u : 3u);
    test::expect_same_outputs(orig, {{"x", test::random({3, 20}, 1)}}, 1e-5);
  }
}

TEST(FuseMatMulBias, AGemmWithAComputedWeightStaysAGemm) {
  test::Builder b;
  const int x = b.input("x", {3, 20});
  const int w = b.input("w", {20, 7});
  b.g.outputs = {b.op("Gemm", "fc", {x, w})};
  Graph g = b.g;
  fuse(g);
  EXPECT_EQ(test::count_op(g, "Gemm"), 1);
}

}  // namespace
}  // namespace asc
