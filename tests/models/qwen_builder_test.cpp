// The builder itself: determinism, dtype rounding, external data layout, the genai form, bad
// options, the 0.5B config, and asc-run on the written model.
#include <gtest/gtest.h>

#include <onnx/checker.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "registry/error.h"
#include "tests/models/qwen_run.h"
#include "tests/tools/run_tool.h"

namespace asc::test {
namespace {

using models::ElemType;
using models::QwenForm;
using models::QwenOptions;

std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

onnx::ModelProto read_model(const std::string& path) {
  onnx::ModelProto m;
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(m.ParseFromIstream(&f)) << path;
  return m;
}

const onnx::TensorProto& initializer(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer())
    if (t.name() == name) return t;
  throw std::runtime_error("no initializer " + name);
}

TEST(QwenBuilder, SameSeedSameBytesOtherSeedOtherWeights) {
  TempDir dir;
  QwenOptions o = tiny_options(ElemType::kF32);
  models::write_qwen(o, dir / "a.onnx");
  models::write_qwen(o, dir / "b.onnx");
  o.seed = 8;
  models::write_qwen(o, dir / "c.onnx");
  EXPECT_EQ(file_bytes(dir / "a.onnx"), file_bytes(dir / "b.onnx"));
  const auto a = read_model(dir / "a.onnx"), c = read_model(dir / "c.onnx");
  EXPECT_NE(initializer(a, "model.layers.0.self_attn.q_proj.weight").raw_data(),
            initializer(c, "model.layers.0.self_attn.q_proj.weight").raw_data());
}

// Weights are drawn as f32 and rounded: the f16/bf16 models hold the fp32 model's values rounded
// to nearest even, checked through asc's own dtype conversions (Tensor::set / at).
TEST(QwenBuilder, HalfWeightsAreTheFp32DrawsRounded) {
  TempDir dir;
  models::write_qwen(tiny_options(ElemType::kF32), dir / "f32.onnx");
  const auto f32 = read_model(dir / "f32.onnx");
  const std::string name = "model.layers.1.mlp.down_proj.weight";
  const std::string& raw32 = initializer(f32, name).raw_data();
  for (ElemType t : {ElemType::kF16, ElemType::kBF16}) {
    models::write_qwen(tiny_options(t), dir / "h.onnx");
    const auto h = read_model(dir / "h.onnx");
    const std::string& raw16 = initializer(h, name).raw_data();
    ASSERT_EQ(raw16.size() * 2, raw32.size());
    const int64_t n = static_cast<int64_t>(raw32.size() / 4);
    Tensor want(asc_dtype(t), {n});
    for (int64_t i = 0; i < n; ++i) {
      float v;
      std::memcpy(&v, raw32.data() + 4 * i, 4);
      want.set(i, v);
    }
    EXPECT_EQ(std::memcmp(want.data(), raw16.data(), raw16.size()), 0) << models::elem_name(t);
  }
}

// The builder's own f32 -> f16/bf16 rounding against asc's, on edge values: ties, subnormals,
// the overflow threshold, infinities, signed zero, and a sweep of exponents.
TEST(QwenBuilder, HalfRoundingMatchesAscOnEdgeValues) {
  std::vector<float> v = {0.0f,          -0.0f,     1.0f,           65504.0f,        65519.99f,
                          65520.0f,      -65520.0f, 1e-8f,          2.9802322e-8f,   2.98024e-8f,
                          6.1035156e-5f, 6.1e-5f,   1.00048828125f, 1.000732421875f, 3.3895314e38f,
                          3.4e38f,       INFINITY,  -INFINITY};
  for (int e = -30; e <= 30; ++e)
    for (float m : {1.0f, 1.3333333f, 1.9999999f}) v.push_back(std::ldexp(m, e));
  for (ElemType t : {ElemType::kF16, ElemType::kBF16}) {
    Tensor want(asc_dtype(t), {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) want.set(static_cast<int64_t>(i), v[i]);
    for (size_t i = 0; i < v.size(); ++i) {
      const uint16_t got =
          t == ElemType::kF16 ? models::f32_to_f16(v[i]) : models::f32_to_bf16(v[i]);
      EXPECT_EQ(got, want.data_as<uint16_t>()[i]) << models::elem_name(t) << " of " << v[i];
      const float back = t == ElemType::kF16 ? models::f16_to_f32(got) : models::bf16_to_f32(got);
      EXPECT_EQ(back, static_cast<float>(want.at(static_cast<int64_t>(i)))) << v[i];
    }
  }
}

TEST(QwenBuilder, TiedLmHeadIsTheEmbeddingTransposed) {
  TempDir dir;
  const QwenOptions o = tiny_options(ElemType::kF32);
  models::write_qwen(o, dir / "m.onnx");
  const auto m = read_model(dir / "m.onnx");
  const auto& e = initializer(m, "model.embed_tokens.weight");
  const auto& l = initializer(m, "lm_head.weight");
  const int64_t V = o.config.vocab, H = o.config.hidden;
  ASSERT_EQ(l.dims(0), H);
  ASSERT_EQ(l.dims(1), V);
  const float* ep = reinterpret_cast<const float*>(e.raw_data().data());
  const float* lp = reinterpret_cast<const float*>(l.raw_data().data());
  for (int64_t v = 0; v < V; ++v)
    for (int64_t h = 0; h < H; ++h) ASSERT_EQ(ep[v * H + h], lp[h * V + v]) << v << "," << h;
}

TEST(QwenBuilder, ExternalDataIsPageAlignedAndLoads) {
  TempDir dir;
  QwenOptions o = tiny_options(ElemType::kBF16);
  o.external = QwenOptions::External::kAlways;
  const std::string path = dir / "ext.onnx";
  const models::QwenWritten w = models::write_qwen(o, path);
  ASSERT_TRUE(w.external);
  EXPECT_EQ(w.data_path, path + ".data");
  const auto m = read_model(path);
  int external = 0;
  for (const auto& t : m.graph().initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    ++external;
    std::map<std::string, std::string> kv;
    for (const auto& e : t.external_data()) kv[e.key()] = e.value();
    EXPECT_EQ(kv["location"], "ext.onnx.data") << t.name();
    EXPECT_EQ(std::stoull(kv["offset"]) % models::OnnxWriter::kExternalAlign, 0u) << t.name();
  }
  // embed, 12 per layer (2 norms, q/k/v weight and bias, o, gate/up/down), norm, lm_head
  EXPECT_EQ(external, 1 + 12 * o.config.layers + 1 + 1);
  // Same logits as the inline model.
  QwenOptions inl = o;
  inl.external = QwenOptions::External::kNever;
  models::write_qwen(inl, dir / "inline.onnx");
  const QwenStep step{{{1, 2, 3}}, {{0, 1, 2}}, {{1, 1, 1}}, {}};
  const QwenOut a = run_step(*load(path), o, step),
                b = run_step(*load(dir / "inline.onnx"), o, step);
  for (int64_t i = 0; i < a.logits.numel(); ++i) ASSERT_EQ(a.logits.at(i), b.logits.at(i)) << i;
}

TEST(QwenBuilder, Opsets14To17AllRun) {
  TempDir dir;
  for (int opset = 14; opset <= 17; ++opset) {
    QwenOptions o = tiny_options(ElemType::kF32);
    o.opset = opset;
    const std::string path = dir / models::str_cat("m", opset, ".onnx");
    models::write_qwen(o, path);
    EXPECT_NO_THROW(onnx::checker::check_model(path)) << "opset " << opset;
    const QwenOut r = run_step(*load(path), o, {{{9, 8}}, {{0, 1}}, {{1, 1}}, {}});
    EXPECT_EQ(r.logits.shape(), (Shape{1, 2, o.config.vocab})) << "opset " << opset;
  }
}

TEST(QwenBuilder, BadOptionsNameTheProblem) {
  QwenOptions o = tiny_options(ElemType::kF32);
  o.opset = 13;
  const auto msg = [](const QwenOptions& x) {
    try {
      models::qwen_validate(x);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg(o).find("opset 13"), std::string::npos) << msg(o);
  o = tiny_options(ElemType::kF32);
  o.config.kv_heads = 3;
  EXPECT_NE(msg(o).find("kv_heads 3"), std::string::npos) << msg(o);
  o = tiny_options(ElemType::kF32);
  o.config.layers = 0;
  EXPECT_NE(msg(o).find("layers must be >= 1"), std::string::npos) << msg(o);
  try {
    models::qwen_config("3b");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'3b' (known: tiny, 0.5b, 1.5b, 7b)"), std::string::npos)
        << e.what();
  }
}

// The genai form: contrib ops in com.microsoft, genai's inputs, accepted by the checker.
TEST(QwenBuilder, GenaiFormUsesContribOps) {
  TempDir dir;
  for (bool in_attn : {true, false}) {
    QwenOptions o = tiny_options(ElemType::kF32, QwenForm::kGenai);
    o.genai_rotary_in_attention = in_attn;
    const std::string path = dir / "genai.onnx";
    models::write_qwen(o, path);
    EXPECT_NO_THROW(onnx::checker::check_model(path));
    const auto m = read_model(path);
    std::map<std::string, int> ms_ops;
    for (const auto& n : m.graph().node())
      if (n.domain() == "com.microsoft") ++ms_ops[n.op_type()];
    const int layers = static_cast<int>(o.config.layers);
    EXPECT_EQ(ms_ops["GroupQueryAttention"], layers);
    EXPECT_EQ(ms_ops["SimplifiedLayerNormalization"], 1);
    EXPECT_EQ(ms_ops["SkipSimplifiedLayerNormalization"], 2 * layers);
    EXPECT_EQ(ms_ops["RotaryEmbedding"], in_attn ? 0 : 2 * layers);
    std::vector<std::string> inputs;
    for (const auto& i : m.graph().input()) inputs.push_back(i.name());
    ASSERT_GE(inputs.size(), 3u);
    EXPECT_EQ(inputs[0], "input_ids");
    EXPECT_EQ(inputs[1], "attention_mask");
    EXPECT_EQ(inputs[2], in_attn ? "past_key_values.0.key" : "position_ids");
  }
}

// The genai form (com.microsoft contrib ops) computes what the optimum form computes (same
// weights by name).
TEST(QwenBuilder, GenaiFormMatchesOptimumForm) {
  TempDir dir;
  const QwenOptions std_o = tiny_options(ElemType::kF32);
  const QwenOptions gen_o = tiny_options(ElemType::kF32, QwenForm::kGenai);
  models::write_qwen(std_o, dir / "std.onnx");
  models::write_qwen(gen_o, dir / "genai.onnx");
  const std::unique_ptr<Model> genai = load(dir / "genai.onnx");
  const QwenStep pre{{{4, 5, 6, 7}}, {{0, 1, 2, 3}}, {{1, 1, 1, 1}}, {}};
  const QwenOut want = run_step(*load(dir / "std.onnx"), std_o, pre);
  const QwenOut got = run_step(*genai, gen_o, pre, false);
  for (int64_t t = 0; t < 4; ++t) {
    const auto w = logits_row(want.logits, 0, t), g = logits_row(got.logits, 0, t);
    EXPECT_LE(max_abs_diff(w, g), 1e-4 * max_abs(w)) << "position " << t;
  }
}

// The real 0.5B dims with 2 layers: written with external data, loaded, one prefill run.
TEST(QwenBuilder, HalfBillionConfigWithTwoLayersWritesAndRuns) {
  TempDir dir;
  QwenOptions o;
  o.config = models::qwen_config("0.5b");
  o.config.layers = 2;
  o.dtype = ElemType::kBF16;
  o.external = QwenOptions::External::kAlways;
  const std::string path = dir / "qwen05b.onnx";
  const models::QwenWritten w = models::write_qwen(o, path);
  // embed + tied lm_head (2 x 151936 x 896) + 2 layers, bf16
  const uint64_t layer =
      896 * (896 + 128 + 128 + 896) + 3 * 896 * 4864 + (896 + 128 + 128) + 2 * 896;
  EXPECT_EQ(w.weight_bytes, 2 * (2ull * 151936 * 896 + 2 * layer + 896));
  EXPECT_NO_THROW(onnx::checker::check_model(path));
  const QwenOut r = run_step(*load(path), o, {{{151, 9000}}, {{0, 1}}, {{1, 1}}, {}});
  ASSERT_EQ(r.logits.shape(), (Shape{1, 2, 151936}));
  const auto row = logits_row(r.logits, 0, 1);
  EXPECT_GT(max_abs(row), 0.0);
  for (double x : row) ASSERT_TRUE(std::isfinite(x));
}

#ifdef ASC_RUN_EXE
TEST(QwenBuilder, AscRunRunsTheTinyModel) {
  TempDir dir;
  const std::string path = dir / "qwen.onnx";
  models::write_qwen(tiny_options(ElemType::kF32), path);
  const Result r = run_tool(ASC_RUN_EXE,
                            models::str_cat("'", path,
                                            "' --dim batch_size=1 --dim sequence_length=8 "
                                            "--dim past_sequence_length=0 "
                                            "--dim total_sequence_length=8"),
                            dir / "");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("logits"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("present.1.value"), std::string::npos) << r.out;
}
#endif

}  // namespace
}  // namespace asc::test
