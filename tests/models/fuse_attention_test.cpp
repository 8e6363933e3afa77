// Attention fusion on the tiny Qwen model: one FusedAttention per layer at opsets 14 and 17 and
// every dtype, outputs equal to the unfused model (prefill, decode, a padded batch); other
// spellings (Div scale, constant on the left, mask first) still fuse; anything that differs — an
// exposed interior value, another softmax axis or transpose, a non-scalar scale, an interior value
// used elsewhere — leaves its layer alone.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/ops.h"
#include "registry/strings.h"
#include "runtime/fuse_attention.h"
#include "tests/models/qwen_run.h"

namespace asc::test {
namespace {

using models::ElemType;

int count_ops(const Graph& g, const std::string& type) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op_type == type;
  return n;
}

Node& node_named(Graph& g, const std::string& name) {
  for (Node& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

std::string attn(int layer, const std::string& op) {
  return models::str_cat("/model/layers.", layer, "/self_attn/", op);
}

// Logits and presents of `fused` and `plain` on a prefill, a decode step with that past, and a
// batch of two with a padded first sequence.
void expect_same_outputs(const Model& fused, const Model& plain, const models::QwenOptions& o) {
  const double tol = logits_tolerance(o.dtype);
  auto same = [&](const QwenOut& a, const QwenOut& b, const char* what) {
    for (int64_t i = 0; i < a.logits.shape()[0]; ++i)
      for (int64_t j = 0; j < a.logits.shape()[1]; ++j) {
        const auto want = logits_row(b.logits, i, j), got = logits_row(a.logits, i, j);
        EXPECT_LE(max_abs_diff(want, got), tol * max_abs(want)) << what << " row " << i << "," << j;
      }
    ASSERT_EQ(a.present.size(), b.present.size());
    for (size_t k = 0; k < a.present.size(); ++k) {
      // Layer 0's cache is the same computation; later layers' follow the attention outputs.
      ASSERT_EQ(a.present[k].shape(), b.present[k].shape()) << what;
      std::vector<double> want, got;
      for (int64_t e = 0; e < a.present[k].numel(); ++e) {
        got.push_back(a.present[k].at(e));
        want.push_back(b.present[k].at(e));
      }
      EXPECT_LE(max_abs_diff(want, got), k < 2 ? 0.0 : tol * max_abs(want)) << what << " " << k;
    }
  };
  const QwenStep prefill{{{3, 14, 15, 92, 65}}, {{0, 1, 2, 3, 4}}, {{1, 1, 1, 1, 1}}, {}};
  const QwenOut a = run_step(fused, o, prefill), b = run_step(plain, o, prefill);
  same(a, b, "prefill");
  const QwenStep decode{{{46}}, {{5}}, {{1, 1, 1, 1, 1, 1}}, b.present};
  same(run_step(fused, o, decode), run_step(plain, o, decode), "decode");
  const QwenStep padded{{{0, 0, 7, 8}, {35, 89, 79, 32}},
                        {{0, 0, 0, 1}, {0, 1, 2, 3}},
                        {{0, 0, 1, 1}, {1, 1, 1, 1}},
                        {}};
  same(run_step(fused, o, padded), run_step(plain, o, padded), "padded batch");
}

struct FuseCase {
  ElemType dtype;
  int opset;
};

class FuseAttention : public ::testing::TestWithParam<FuseCase> {
 protected:
  void SetUp() override {
    o_ = tiny_options(GetParam().dtype);
    o_.opset = GetParam().opset;
    path_ = dir_ / "qwen.onnx";
    models::write_qwen(o_, path_);
  }
  Graph graph() const { return import_onnx_file(path_); }
  Model model(Graph g, bool optimize) const {
    return Model(std::move(g), ModelOptions{2, "cpu", optimize});
  }
  // Attention fused, nothing else: layer 0's K/V projections then run exactly as unfused.
  Model attention_only(Graph g) const {
    fuse_attention(g);
    ModelOptions mo{2, "cpu", true};
    mo.fusion = false;
    return Model(std::move(g), mo);
  }
  TempDir dir_;
  models::QwenOptions o_;
  std::string path_;
};

TEST_P(FuseAttention, OneNodePerLayerAndTheSameOutputs) {
  const int layers = static_cast<int>(o_.config.layers);
  Graph g = graph();
  EXPECT_EQ(fuse_attention(g), layers);
  EXPECT_EQ(count_ops(g, "FusedAttention"), layers);
  for (const char* gone : {"self_attn/Softmax", "self_attn/Concat_k", "self_attn/Transpose_kt",
                           "repeat_k/Expand", "repeat_v/Unsqueeze"})
    for (const Node& n : g.nodes) EXPECT_EQ(n.name.find(gone), std::string::npos) << n.name;
  EXPECT_EQ(count_ops(g, "Softmax"), 0);
  EXPECT_NO_THROW(g.topo_order());
  EXPECT_EQ(fuse_attention(g), 0);  // nothing left to match

  const Model full = model(graph(), true), plain = model(graph(), false);
  EXPECT_EQ(count_ops(full.graph(), "FusedAttention"), layers);
  EXPECT_EQ(count_ops(plain.graph(), "FusedAttention"), 0);
  expect_same_outputs(attention_only(graph()), plain, o_);
}

// Div by the constant, the constant on the left of Mul, the mask as the Add's first operand.
TEST_P(FuseAttention, OtherSpellingsFuse) {
  Graph g = graph();
  Node& mul0 = node_named(g, attn(0, "Mul_scale"));
  const double scale = g.values[mul0.inputs[1]].constant->at(0);
  Tensor c(g.values[mul0.inputs[1]].constant->dtype(), {});
  c.set(0, 1.0 / scale);
  mul0.op_type = "Div";
  mul0.def = global_registry().find("", "Div", g.opsets[""]);
  mul0.inputs[1] = g.add_constant("inverse_scale", c);
  Node& mul1 = node_named(g, attn(1, "Mul_scale"));
  std::swap(mul1.inputs[0], mul1.inputs[1]);
  Node& add0 = node_named(g, attn(0, "Add_mask"));
  std::swap(add0.inputs[0], add0.inputs[1]);
  Graph copy = g;
  EXPECT_EQ(fuse_attention(copy), o_.config.layers);
  expect_same_outputs(attention_only(g), model(graph(), false), o_);
}

TEST_P(FuseAttention, DifferencesLeaveTheLayerAlone) {
  const int layers = static_cast<int>(o_.config.layers);
  auto fused_after = [&](const std::function<void(Graph&)>& edit) {
    Graph g = graph();
    edit(g);
    return fuse_attention(g);
  };
  // An interior value kept observable (asc-check's expose) or used outside the block.
  {
    Graph g = graph();
    const int probs = node_named(g, attn(0, "Softmax")).outputs[0];
    EXPECT_EQ(fuse_attention(g, {probs}), layers - 1);
  }
  EXPECT_EQ(fused_after([](Graph& g) {
              g.outputs.push_back(node_named(g, attn(1, "MatMul_qk")).outputs[0]);
            }),
            layers - 1);
  // Softmax over another axis; K transposed otherwise; a scale that is not a scalar.
  EXPECT_EQ(fused_after(
                [](Graph& g) { node_named(g, attn(0, "Softmax")).attrs.set("axis", int64_t{2}); }),
            layers - 1);
  EXPECT_EQ(
      fused_after([](Graph& g) {
        node_named(g, attn(1, "Transpose_kt")).attrs.set("perm", std::vector<int64_t>{0, 1, 2, 3});
      }),
      layers - 1);
  EXPECT_EQ(fused_after([](Graph& g) {
              Node& mul = node_named(g, attn(0, "Mul_scale"));
              Tensor two(g.values[mul.inputs[1]].constant->dtype(), {2});
              mul.inputs[1] = g.add_constant("scale2", two);
            }),
            layers - 1);
  // The repeat factor must turn the past's kv heads into the Reshape's heads.
  EXPECT_EQ(fused_after([](Graph& g) {
              Node& ex = node_named(g, attn(0, "repeat_v/Expand"));
              Tensor shape(DType::kI64, {5});
              for (int64_t i = 0; i < 5; ++i) shape.set(i, i == 2 ? 3 : 1);
              ex.inputs[1] = g.add_constant("repeat3", shape);
            }),
            layers - 1);
  // An absorbed transpose's input used elsewhere: the layer fuses without absorbing it.
  {
    Graph g = graph();
    const int ctx = node_named(g, attn(0, "MatMul_pv")).outputs[0];
    g.outputs.push_back(ctx);
    EXPECT_EQ(fuse_attention(g), layers);
    for (const Node& n : g.nodes) {
      if (n.op_type == "FusedAttention" && n.outputs[0] == ctx) {
        EXPECT_EQ(n.attrs.i("transpose_output"), 0);
      }
    }
    EXPECT_EQ(count_ops(g, "Transpose"), count_ops(graph(), "Transpose") - 2 * layers + 1);
  }
  {  // the same when the context is kept observable (the fusion's keep-set)
    Graph g = graph();
    const int ctx = node_named(g, attn(1, "MatMul_pv")).outputs[0];
    EXPECT_EQ(fuse_attention(g, {ctx}), layers);
    int unabsorbed = 0;
    for (const Node& n : g.nodes)
      if (n.op_type == "FusedAttention" && n.attrs.i("transpose_output") == 0) {
        EXPECT_EQ(n.outputs[0], ctx);
        ++unabsorbed;
      }
    EXPECT_EQ(unabsorbed, 1);
  }
}

std::string case_name(const ::testing::TestParamInfo<FuseCase>& p) {
  return models::str_cat(models::elem_name(p.param.dtype), "_opset", p.param.opset);
}

INSTANTIATE_TEST_SUITE_P(Qwen, FuseAttention,
                         ::testing::Values(FuseCase{ElemType::kF32, 17},
                                           FuseCase{ElemType::kF32, 14},
                                           FuseCase{ElemType::kF16, 17},
                                           FuseCase{ElemType::kBF16, 17}),
                         case_name);

}  // namespace
}  // namespace asc::test
