// node/test_adam_multiple of the ONNX 1.12 backend data fails in asc by ~4e-3: its expected
// outputs were computed with epsilon = 1e-2, but the model's Adam node carries no epsilon
// attribute, so a consumer that follows the schema uses the default 1e-6 (onnx/onnx#7749, fixed
// upstream by adding the attribute to the model). These tests pin that asc reads the multi-tensor
// layout X1, X2, G1, G2, V1, V2, H1, H2 correctly and that the gap is the epsilon alone.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "importers/onnx/onnx_importer.h"
#include "importers/onnx/tensor_proto.h"
#include "ops/ops.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

const std::filesystem::path kCase = "/usr/include/onnx/backend/test/data/node/test_adam_multiple";
const char* const kTraining = "ai.onnx.preview.training";

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(1);
  return dev;
}

struct AdamCase {
  Attrs attrs;  // the model node's
  std::vector<Tensor> inputs, expected;
};

AdamCase load_case() {
  AdamCase c;
  const Graph g = import_onnx_file((kCase / "model.onnx").string());
  EXPECT_EQ(g.nodes.size(), 1u);
  c.attrs = g.nodes.at(0).attrs;
  const auto data = kCase / "test_data_set_0";
  for (int k = 0; std::filesystem::exists(data / ("input_" + std::to_string(k) + ".pb")); ++k)
    c.inputs.push_back(read_tensor_proto_file(data / ("input_" + std::to_string(k) + ".pb")));
  for (int k = 0; std::filesystem::exists(data / ("output_" + std::to_string(k) + ".pb")); ++k)
    c.expected.push_back(read_tensor_proto_file(data / ("output_" + std::to_string(k) + ".pb")));
  return c;
}

const OpDef& adam() {
  return global_registry().lookup(kTraining, "Adam", 1);
}

// Largest |got - want| - rtol * |want| over every element of every output (<= atol: within the
// suite's tolerance).
double worst_excess(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  double worst = -1;
  EXPECT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size() && o < want.size(); ++o) {
    EXPECT_EQ(got[o].shape(), want[o].shape()) << "output " << o;
    for (int64_t i = 0; i < want[o].numel(); ++i)
      worst = std::max(worst,
                       std::fabs(got[o].at(i) - want[o].at(i)) - 1e-3 * std::fabs(want[o].at(i)));
  }
  return worst;
}

TEST(AdamSuite, MultipleDiffersOnlyByTheMissingEpsilon) {
  if (!std::filesystem::exists(kCase)) GTEST_SKIP() << "libonnx-testdata not installed";
  AdamCase c = load_case();
  ASSERT_EQ(c.inputs.size(), 10u);
  ASSERT_EQ(c.expected.size(), 6u);
  EXPECT_FALSE(c.attrs.has("epsilon"));  // the data bug: the generator used epsilon = 1e-2
  // As the model says (default epsilon): outside the suite's tolerance.
  EXPECT_GT(worst_excess(run_op(adam(), c.attrs, c.inputs, device()), c.expected), 1e-3);
  // With the generator's epsilon: every output within rtol 1e-3, atol 1e-7.
  c.attrs.set("epsilon", 1e-2f);
  EXPECT_LE(worst_excess(run_op(adam(), c.attrs, c.inputs, device()), c.expected), 1e-7);
}

TEST(AdamSuite, MultipleEqualsOneNodePerTensor) {
  if (!std::filesystem::exists(kCase)) GTEST_SKIP() << "libonnx-testdata not installed";
  AdamCase c = load_case();
  ASSERT_EQ(c.inputs.size(), 10u);
  c.attrs.set("epsilon", 1e-2f);
  const auto both = run_op(adam(), c.attrs, c.inputs, device());
  ASSERT_EQ(both.size(), 6u);
  // Inputs R, T, X1, X2, G1, G2, V1, V2, H1, H2; outputs X1', X2', V1', V2', H1', H2'.
  for (size_t i = 0; i < 2; ++i) {
    const std::vector<Tensor> one = {c.inputs[0],     c.inputs[1],     c.inputs[2 + i],
                                     c.inputs[4 + i], c.inputs[6 + i], c.inputs[8 + i]};
    const auto got = run_op(adam(), c.attrs, one, device());
    ASSERT_EQ(got.size(), 3u);
    for (size_t b = 0; b < 3; ++b) {
      const Tensor& want = both[2 * b + i];
      ASSERT_EQ(got[b].shape(), want.shape()) << "tensor " << i << " block " << b;
      for (int64_t e = 0; e < want.numel(); ++e)
        EXPECT_EQ(got[b].at(e), want.at(e)) << "tensor " << i << " block " << b << " [" << e << "]";
    }
  }
}

}  // namespace
}  // namespace asc
