// Graph fusion on the tiny Qwen2.5 decoder (optimum form): every pattern matches as often as the
// model spells it, and the fused model's logits and presents equal the unfused model's on the
// same inputs (a padded prefill, then a decode step on its presents), for fp32, fp16 and bf16
// models and under asc's f16/bf16 precision.
#include <gtest/gtest.h>

#include "registry/strings.h"
#include "runtime/devices/cpu/gemm.h"
#include "tests/models/qwen_run.h"

namespace asc::test {
namespace {

using models::ElemType;

int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op_type == op;
  return n;
}

std::unique_ptr<Model> load_with(const std::string& path, bool optimize, DType precision,
                                 std::vector<std::string> expose = {}) {
  ModelOptions o{2, "cpu", optimize, precision};
  o.expose = std::move(expose);
  return std::make_unique<Model>(import_onnx_file(path), o);
}

// Largest |a - b| over the largest |b|.
double rel_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double peak = 0, diff = 0;
  for (int64_t i = 0; i < b.numel() && a.shape() == b.shape(); ++i) {
    peak = std::max(peak, std::abs(b.at(i)));
    diff = std::max(diff, std::abs(a.at(i) - b.at(i)));
  }
  return peak > 0 ? diff / peak : diff;
}

const QwenStep kPrefill{{{3, 14, 15, 92, 65}, {0, 35, 89, 79, 32}},
                        {{0, 1, 2, 3, 4}, {1, 0, 1, 2, 3}},
                        {{1, 1, 1, 1, 1}, {0, 1, 1, 1, 1}},
                        {}};

QwenStep decode_after(const QwenOut& pre) {
  return {{{46}, {43}}, {{5}, {4}}, {{1, 1, 1, 1, 1, 1}, {0, 1, 1, 1, 1, 1}}, pre.present};
}

class QwenFusion : public ::testing::TestWithParam<std::pair<ElemType, DType>> {
 protected:
  void SetUp() override {
    o_ = tiny_options(GetParam().first);
    path_ = dir_ / "qwen.onnx";
    models::write_qwen(o_, path_);
  }
  TempDir dir_;
  models::QwenOptions o_;
  std::string path_;
};

TEST_P(QwenFusion, EveryPatternMatchesPerLayer) {
  const auto m = load_with(path_, true, GetParam().second);
  const int64_t layers = o_.config.layers;
  const FuseReport& r = m->fusion();
  EXPECT_EQ(r.counts.at("FusedRMSNorm"), 2 * layers + 1) << r.str();
  EXPECT_EQ(r.counts.at("FusedMatMulBias"), 3 * layers) << r.str();  // q, k, v with bias
  EXPECT_EQ(r.counts.at("FusedSwiGLU"), layers) << r.str();
  EXPECT_EQ(r.counts.at("FusedRotary"), 2 * layers) << r.str();  // q and k
  EXPECT_LT(r.nodes_after, r.nodes_before);
  const Graph& g = m->graph();
  for (const char* gone : {"Pow", "ReduceMean", "Sqrt", "Sigmoid", "Neg", "Slice"})
    EXPECT_EQ(count_op(g, gone), 0) << gone;
  // Fused nodes keep the last node's name (what profiles and traces show).
  const int q = g.values[g.find("/model/layers.0/self_attn/q_proj/Add_output_0")].producer;
  ASSERT_GE(q, 0);
  // The weights are stored in the precision (an f32 model under f16/bf16) or their own dtype;
  // where the kernels keep panels of that dtype (f32; bf16 on a CPU with bf16 dot products) the
  // weight was packed at load and the fused node became PackedMatMul (runtime/weight_pack.h),
  // bias and all: the tiny model's weights are far under ModelOptions::pack_copy_limit.
  const DType precision = GetParam().second;
  const DType stored = o_.dtype == ElemType::kF16    ? DType::kF16
                       : o_.dtype == ElemType::kBF16 ? DType::kBF16
                                                     : precision;
  const bool packed = (stored == DType::kF32 || stored == DType::kBF16) &&
                      cpu::gemm_kernel(stored).packed == stored;
  EXPECT_EQ(g.nodes[q].op_type, packed ? "PackedMatMul" : "FusedMatMulBias");
  EXPECT_EQ(g.nodes[q].inputs.size(), 3u);
  EXPECT_EQ(g.nodes[q].name, "/model/layers.0/self_attn/q_proj/Add");
}

TEST_P(QwenFusion, FusedModelComputesWhatTheUnfusedOneDoes) {
  const auto fused = load_with(path_, true, GetParam().second);
  const auto plain = load_with(path_, false, GetParam().second);
  ASSERT_GT(fused->fusion().fused(), 0);
  ASSERT_EQ(plain->fusion().fused(), 0);
  // The fused kernels round once where the chain rounded per op: f32 agrees to rounding, f16 and
  // bf16 to about an ulp of the stored dtype (measured: 1.5e-7, 1.1e-3, 9e-3).
  const bool bf16 = o_.dtype == ElemType::kBF16 || GetParam().second == DType::kBF16;
  const bool f16 = o_.dtype == ElemType::kF16 || GetParam().second == DType::kF16;
  // f16: the fused attention keeps scores and probabilities in f32 where the unfused graph
  // rounds them to f16 between nodes; the two differ by ~7e-3 relative on the tiny model.
  const double tol = bf16 ? 2e-2 : f16 ? 1.5e-2 : 1e-6;
  const QwenOut a = run_step(*fused, o_, kPrefill), b = run_step(*plain, o_, kPrefill);
  EXPECT_LE(rel_diff(a.logits, b.logits), tol) << "prefill logits";
  ASSERT_EQ(a.present.size(), b.present.size());
  for (size_t i = 0; i < a.present.size(); ++i)
    EXPECT_LE(rel_diff(a.present[i], b.present[i]), tol) << "present " << i;
  // A decode step, each model on its own presents.
  const QwenOut c = run_step(*fused, o_, decode_after(a));
  const QwenOut d = run_step(*plain, o_, decode_after(b));
  EXPECT_LE(rel_diff(c.logits, d.logits), tol) << "decode logits";
  for (int64_t bi = 0; bi < 2; ++bi)
    EXPECT_EQ(argmax(logits_row(c.logits, bi, 0)), argmax(logits_row(d.logits, bi, 0))) << bi;
}

std::string case_name(const ::testing::TestParamInfo<std::pair<ElemType, DType>>& p) {
  return cat(models::elem_name(p.param.first), "_model_", dtype_name(p.param.second), "_precision");
}

INSTANTIATE_TEST_SUITE_P(Precisions, QwenFusion,
                         ::testing::Values(std::pair{ElemType::kF32, DType::kF32},
                                           std::pair{ElemType::kF32, DType::kF16},
                                           std::pair{ElemType::kF32, DType::kBF16},
                                           std::pair{ElemType::kF16, DType::kF32},
                                           std::pair{ElemType::kBF16, DType::kF32}),
                         case_name);

// An exposed interior value (what asc-check reads) blocks the one fusion it belongs to, is
// returned, and leaves the results unchanged.
TEST(QwenFusionLegality, AnExposedInteriorValueBlocksItsPatternOnly) {
  TempDir dir;
  const models::QwenOptions o = tiny_options(ElemType::kF32);
  const std::string path = dir / "qwen.onnx";
  models::write_qwen(o, path);
  const std::string mean = "/model/layers.0/input_layernorm/ReduceMean_output_0";
  const std::string rot = "/model/layers.1/self_attn/rotary_k/Concat_output_0";
  const auto m = load_with(path, true, DType::kF32, {mean, rot});
  const FuseReport& r = m->fusion();
  EXPECT_EQ(r.counts.at("FusedRMSNorm"), 2 * o.config.layers);
  EXPECT_EQ(r.counts.at("FusedRotary"), 2 * o.config.layers - 1);
  EXPECT_EQ(m->exposed(), (std::vector<std::string>{mean, rot}));
  const auto plain = load_with(path, false, DType::kF32);
  const QwenOut a = run_step(*m, o, kPrefill), b = run_step(*plain, o, kPrefill);
  EXPECT_LE(rel_diff(a.logits, b.logits), 2e-5);
}

TEST(QwenFusionLegality, OptimizeOffLeavesTheGraphAlone) {
  TempDir dir;
  const models::QwenOptions o = tiny_options(ElemType::kF32);
  const std::string path = dir / "qwen.onnx";
  models::write_qwen(o, path);
  const auto m = load_with(path, false, DType::kF32);
  EXPECT_EQ(m->fusion().fused(), 0);
  // Weight packing is no fusion: its MatMuls become PackedMatMul with optimisation off too.
  for (const Node& n : m->graph().nodes)
    EXPECT_TRUE(n.domain != "ai.asc" || n.op_type == "PackedMatMul") << n.label();
}

}  // namespace
}  // namespace asc::test
