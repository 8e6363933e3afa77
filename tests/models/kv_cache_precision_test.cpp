// ModelOptions::kv_cache_precision under --precision bf16/fp16: the KV-cache inputs and outputs
// take the low dtype (no Cast reads a past input or writes a present output), the Generator
// stores its cache in that dtype, and its logits stay close to those of the f32-interface model.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/generator.h"
#include "tests/models/qwen_run.h"

namespace asc::test {
namespace {

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += static_cast<double>(a[i]) * b[i];
    aa += static_cast<double>(a[i]) * a[i];
    bb += static_cast<double>(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb + 1e-30);
}

class KvCachePrecision : public ::testing::TestWithParam<DType> {};

TEST_P(KvCachePrecision, CacheIoTakesTheLowDtype) {
  const models::QwenOptions o = tiny_options(models::ElemType::kF32);
  ModelOptions mo{2, "cpu", true};
  mo.precision = GetParam();
  const Model plain(import_onnx_file(tiny_model_path()), mo);
  mo.kv_cache_precision = true;
  const Model low(import_onnx_file(tiny_model_path()), mo);

  const Graph& g = low.graph();
  int cache_io = 0;
  for (int v : g.inputs) {
    const Value& val = g.values[static_cast<size_t>(v)];
    if (val.name.rfind("past_key_values.", 0) != 0) continue;
    ++cache_io;
    EXPECT_EQ(val.type.dtype, GetParam()) << val.name;
    for (const Node& n : g.nodes)
      for (int in : n.inputs) EXPECT_FALSE(in == v && n.op_type == "Cast") << val.name;
  }
  for (int v : g.outputs) {
    const Value& val = g.values[static_cast<size_t>(v)];
    if (val.name.rfind("present.", 0) != 0) continue;
    ++cache_io;
    EXPECT_EQ(val.type.dtype, GetParam()) << val.name;
    ASSERT_GE(val.producer, 0);
    EXPECT_NE(g.nodes[static_cast<size_t>(val.producer)].op_type, "Cast") << val.name;
  }
  EXPECT_EQ(cache_io, 4 * o.config.layers);
  for (int v : g.outputs) {  // the other outputs keep their f32 interface
    if (g.values[static_cast<size_t>(v)].name == "logits") {
      EXPECT_EQ(g.values[static_cast<size_t>(v)].type.dtype, DType::kF32);
    }
  }

  // The same prompt and forced tokens through both: the logits of every step stay close.
  const std::vector<int64_t> prompt = {17, 3, 200, 45, 9, 30, 8};
  Generator a(plain, {32, {}}), b(low, {32, {}});
  a.prefill(prompt);
  b.prefill(prompt);
  for (int s = 0; s < 6; ++s) {
    EXPECT_GE(cosine(a.last_logits(), b.last_logits()), 0.999) << "step " << s;
    a.step();
    b.step();
  }
  EXPECT_EQ(b.length(), static_cast<int64_t>(prompt.size()) + 6);
}

INSTANTIATE_TEST_SUITE_P(Low, KvCachePrecision, ::testing::Values(DType::kBF16, DType::kF16),
                         [](const ::testing::TestParamInfo<DType>& i) {
                           return std::string(dtype_name(i.param));
                         });

}  // namespace
}  // namespace asc::test
