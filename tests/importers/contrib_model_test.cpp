// A decoder attention block in the form onnxruntime-genai exports (com.microsoft contrib ops)
// built as an ONNX model, imported and run with Model for a prefill and a decode step, against
// the ops' double references chained node by node.
//
//   x, residual -> SkipSimplifiedLayerNormalization -> norm, sum
//   norm -> MatMul Wq / Wk / Wv -> RotaryEmbedding (q, k) -> GroupQueryAttention (past, seqlens_k,
//   total_sequence_length) -> attn, present_key, present_value
//   attn -> SimplifiedLayerNormalization (ai.onnx, as genai writes it) -> y
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "onnx_builder.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/model.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

constexpr int64_t B = 2, D = 32, N = 4, K = 2, H = 8, kMaxPos = 16;

std::vector<float> seeded(size_t n, uint64_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

Tensor tensor_of(DType dt, Shape s, const std::vector<double>& v) {
  Tensor t(dt, std::move(s));
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return t;
}

Tensor f32(Shape s, uint64_t seed) {
  Tensor t(DType::kF32, std::move(s));
  const auto v = seeded(static_cast<size_t>(t.numel()), seed);
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return t;
}

struct Weights {
  Tensor gamma = f32({D}, 1), scale = f32({N * H}, 2), wq = f32({D, N*H}, 3), wk = f32({D, K*H}, 4),
         wv = f32({D, K*H}, 5), cos = f32({kMaxPos, H / 2}, 6), sin = f32({kMaxPos, H / 2}, 7);
};

void init(ModelBuilder& b, const std::string& name, const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(t.at(static_cast<int64_t>(i)));
  b.initializer_f32(name, t.shape(), v);
}

ModelBuilder block(const Weights& w) {
  ModelBuilder b(17);
  auto* ms = b.m.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  b.input("x", DType::kF32, {"2", "seq", "32"});
  b.input("residual", DType::kF32, {"2", "seq", "32"});
  b.input("position_ids", DType::kI64, {"2", "seq"});
  b.input("past_key", DType::kF32, {"2", "2", "past", "8"});
  b.input("past_value", DType::kF32, {"2", "2", "past", "8"});
  b.input("seqlens_k", DType::kI32, {"2"});
  b.input("total_sequence_length", DType::kI32, {});
  init(b, "gamma", w.gamma);
  init(b, "scale", w.scale);
  init(b, "Wq", w.wq);
  init(b, "Wk", w.wk);
  init(b, "Wv", w.wv);
  init(b, "cos", w.cos);
  init(b, "sin", w.sin);
  auto& skip = b.node("SkipSimplifiedLayerNormalization", {"x", "residual", "gamma"},
                      {"norm", "", "", "sum"}, "skip_norm");
  skip.set_domain("com.microsoft");
  attr_f(skip, "epsilon", 1e-6f);
  b.node("MatMul", {"norm", "Wq"}, {"q"}, "q_proj");
  b.node("MatMul", {"norm", "Wk"}, {"k"}, "k_proj");
  b.node("MatMul", {"norm", "Wv"}, {"v"}, "v_proj");
  for (const char* t : {"q", "k"}) {
    auto& r = b.node("RotaryEmbedding", {t, "position_ids", "cos", "sin"},
                     {std::string(t) + "_rot"}, std::string(t) + "_rotary");
    r.set_domain("com.microsoft");
  }
  auto& gqa = b.node(
      "GroupQueryAttention",
      {"q_rot", "k_rot", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length"},
      {"attn", "present_key", "present_value"}, "attention");
  gqa.set_domain("com.microsoft");
  attr_i(gqa, "num_heads", N);
  attr_i(gqa, "kv_num_heads", K);
  auto& fin = b.node("SimplifiedLayerNormalization", {"attn", "scale"}, {"y"}, "final_norm");
  attr_f(fin, "epsilon", 1e-6f);
  b.output("y", DType::kF32, {"2", "seq", "32"});
  b.output("sum", DType::kF32, {"2", "seq", "32"});
  b.output("present_key", DType::kF32, {"2", "2", "total", "8"});
  b.output("present_value", DType::kF32, {"2", "2", "total", "8"});
  return b;
}

std::vector<Tensor> ref(const char* domain, const char* op, int opset, std::vector<Tensor> ins,
                        Attrs a = {}, size_t outs = 0) {
  return run_reference(global_registry().lookup(domain, op, opset), a, ins, outs);
}

// The block by chained references: y, sum, present_key, present_value.
std::vector<Tensor> block_reference(const Weights& w, const std::vector<Tensor>& in) {
  const char* ms = "com.microsoft";
  const auto norm =
      ref(ms, "SkipSimplifiedLayerNormalization", 1, {in[0], in[1], w.gamma}, {{"epsilon", 1e-6f}});
  const auto q = ref("", "MatMul", 13, {norm[0], w.wq})[0];
  const auto k = ref("", "MatMul", 13, {norm[0], w.wk})[0];
  const auto v = ref("", "MatMul", 13, {norm[0], w.wv})[0];
  const auto qr = ref(ms, "RotaryEmbedding", 1, {q, in[2], w.cos, w.sin})[0];
  const auto kr = ref(ms, "RotaryEmbedding", 1, {k, in[2], w.cos, w.sin})[0];
  const auto att = ref(ms, "GroupQueryAttention", 1, {qr, kr, v, in[3], in[4], in[5], in[6]},
                       {{"num_heads", N}, {"kv_num_heads", K}});
  const auto y =
      ref("", "SimplifiedLayerNormalization", 1, {att[0], w.scale}, {{"epsilon", 1e-6f}}, 1);
  return {y[0], norm[3], att[1], att[2]};
}

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.desc().str(), want.desc().str()) << what;
  for (int64_t i = 0; i < got.numel(); ++i)
    ASSERT_NEAR(got.at(i), want.at(i), 1e-4 + 1e-4 * std::abs(want.at(i))) << what << " " << i;
}

TEST(ContribModel, PrefillThenDecodeMatchesChainedReferences) {
  const Weights w;
  const Model model(block(w).import(), {2, "cpu", true});
  const std::vector<std::string> names = {
      "x",          "residual",  "position_ids",         "past_key",
      "past_value", "seqlens_k", "total_sequence_length"};
  auto feed = [&](const std::vector<Tensor>& in) {
    std::vector<NamedTensor> v;
    for (size_t i = 0; i < in.size(); ++i) v.push_back({names[i], in[i]});
    return v;
  };
  // Prefill: 3 tokens, empty past ([B, K, 0, H]).
  const int64_t S = 3;
  std::vector<Tensor> in = {f32({B, S, D}, 10),
                            f32({B, S, D}, 11),
                            tensor_of(DType::kI64, {B, S}, {0, 1, 2, 0, 1, 2}),
                            Tensor(DType::kF32, {B, K, 0, H}),
                            Tensor(DType::kF32, {B, K, 0, H}),
                            tensor_of(DType::kI32, {B}, {2, 2}),
                            tensor_of(DType::kI32, {}, {3})};
  auto out = model.run(feed(in));
  auto want = block_reference(w, in);
  for (size_t i = 0; i < want.size(); ++i) expect_close(out[i].tensor, want[i], out[i].name);
  ASSERT_EQ(out[2].tensor.shape(), (Shape{B, K, 3, H}));

  // Decode: one token per batch at position 3 over the prefill's present.
  in = {f32({B, 1, D}, 12),
        f32({B, 1, D}, 13),
        tensor_of(DType::kI64, {B, 1}, {3, 3}),
        out[2].tensor,
        out[3].tensor,
        tensor_of(DType::kI32, {B}, {3, 3}),
        tensor_of(DType::kI32, {}, {4})};
  out = model.run(feed(in));
  want = block_reference(w, in);
  for (size_t i = 0; i < want.size(); ++i) expect_close(out[i].tensor, want[i], out[i].name);
  ASSERT_EQ(out[2].tensor.shape(), (Shape{B, K, 4, H}));
}

TEST(ContribModel, Bf16PrecisionStaysCloseToTheF32References) {
  // precision bf16: weights and activations stored in bf16, computed in f32 (runtime/precision.h).
  const Weights w;
  ModelOptions opts{2, "cpu", true};
  opts.precision = DType::kBF16;
  const Model model(block(w).import(), opts);
  const int64_t S = 4;
  const std::vector<Tensor> in = {f32({B, S, D}, 20),
                                  f32({B, S, D}, 21),
                                  tensor_of(DType::kI64, {B, S}, {0, 1, 2, 3, 0, 1, 2, 3}),
                                  Tensor(DType::kF32, {B, K, 0, H}),
                                  Tensor(DType::kF32, {B, K, 0, H}),
                                  tensor_of(DType::kI32, {B}, {3, 3}),
                                  tensor_of(DType::kI32, {}, {4})};
  const std::vector<std::string> names = {
      "x",          "residual",  "position_ids",         "past_key",
      "past_value", "seqlens_k", "total_sequence_length"};
  std::vector<NamedTensor> feed;
  for (size_t i = 0; i < in.size(); ++i) feed.push_back({names[i], in[i]});
  const auto out = model.run(feed);
  const auto want = block_reference(w, in);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(out[i].tensor.shape(), want[i].shape()) << out[i].name;
    double dot = 0, gg = 0, ww = 0;
    for (int64_t e = 0; e < want[i].numel(); ++e) {
      dot += out[i].tensor.at(e) * want[i].at(e);
      gg += out[i].tensor.at(e) * out[i].tensor.at(e);
      ww += want[i].at(e) * want[i].at(e);
    }
    EXPECT_GT(dot / std::sqrt(gg * ww), 0.999) << out[i].name;  // cosine similarity
  }
}

TEST(ContribModel, BadSeqlensNamesTheNode) {
  const Weights w;
  const Model model(block(w).import(), {1, "cpu", true});
  std::vector<NamedTensor> in = {{"x", f32({B, 1, D}, 1)},
                                 {"residual", f32({B, 1, D}, 2)},
                                 {"position_ids", tensor_of(DType::kI64, {B, 1}, {2, 2})},
                                 {"past_key", f32({B, K, 2, H}, 3)},
                                 {"past_value", f32({B, K, 2, H}, 4)},
                                 {"seqlens_k", tensor_of(DType::kI32, {B}, {2, 5})},
                                 {"total_sequence_length", tensor_of(DType::kI32, {}, {3})}};
  const std::string e = error_of<Error>([&] { model.run(in); });
  EXPECT_NE(e.find("attention"), std::string::npos) << e;
  EXPECT_NE(e.find("batch 1: seqlens_k 5 gives a total length outside [1, 3]"), std::string::npos)
      << e;
}

}  // namespace
}  // namespace asc::test
