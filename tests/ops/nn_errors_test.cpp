// nn family: error messages name the op and the shapes / values; symbolic inference; what the
// case table cannot express (value-needed inputs, MaxPool's Indices values).
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

using V = std::vector<int64_t>;

const cpu::CpuDevice& dev() {
  static const cpu::CpuDevice d(1);
  return d;
}

// The ShapeError message of running `op` (opset 17) on `in`; "" when it does not throw.
std::string error_of(const char* op, const Attrs& a, const std::vector<Tensor>& in) {
  try {
    run_op(global_registry().lookup("", op, 17), a, in, dev());
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

Tensor f32(Shape s) {
  return Tensor(DType::kF32, std::move(s));
}

Tensor i64(const V& v, Shape s) {
  Tensor t(DType::kI64, std::move(s));
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

Tensor f32v(const std::vector<float>& v) {
  Tensor t(DType::kF32, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data_as<float>()[i] = v[i];
  return t;
}

void expect_has(const std::string& msg, const std::vector<std::string>& parts) {
  EXPECT_FALSE(msg.empty()) << "expected a ShapeError";
  for (const auto& p : parts)
    EXPECT_NE(msg.find(p), std::string::npos) << msg << "\n  lacks: " << p;
}

TEST(NnErrors, ConvShapes) {
  expect_has(error_of("Conv", {}, {f32({1, 3, 5, 5}), f32({4, 2, 3, 3})}),
             {"Conv", "input channels 3", "[4,2,3,3]"});
  expect_has(error_of("Conv", {}, {f32({1, 3, 5, 5}), f32({4, 3, 3})}), {"Conv", "differ in rank"});
  expect_has(error_of("Conv", {}, {f32({1, 3, 2, 2}), f32({4, 3, 3, 3})}),
             {"Conv", "larger than the padded input [2,2]"});
  expect_has(error_of("Conv", {{"strides", V{1, 1, 1}}}, {f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}),
             {"Conv", "strides [1,1,1]", "want 2"});
  expect_has(error_of("Conv", {}, {f32({1, 3, 5, 5}), f32({4, 3, 3, 3}), f32({5})}),
             {"Conv", "bias [5]"});
  expect_has(
      error_of("Conv", {{"auto_pad", std::string("SAME")}}, {f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}),
      {"Conv", "auto_pad 'SAME'"});
  expect_has(error_of("ConvTranspose", {}, {f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}),
             {"ConvTranspose", "input channels 3"});
  expect_has(error_of("ConvTranspose", {}, {f32({1, 3, 5, 5}), f32({3, 2, 3, 3}), f32({3})}),
             {"ConvTranspose", "bias [3]", "[2]"});
  expect_has(error_of("Conv", {}, {f32({3, 5}), f32({4, 3})}), {"Conv", "[N, C, spatial...]"});
  expect_has(error_of("Conv", {{"kernel_shape", V{2, 2}}}, {f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}),
             {"Conv", "kernel_shape differs", "[3,3]"});
}

TEST(NnErrors, PoolShapes) {
  expect_has(error_of("MaxPool", {{"kernel_shape", V{7, 7}}}, {f32({1, 1, 5, 5})}),
             {"MaxPool", "window [7,7]", "[5,5]"});
  expect_has(
      error_of("AveragePool", {{"kernel_shape", V{2, 2}}, {"pads", V{1, 1}}}, {f32({1, 1, 5, 5})}),
      {"AveragePool", "pads [1,1]", "want 4"});
  expect_has(error_of("MaxPool", {}, {f32({1, 1, 5, 5})}), {"MaxPool", "kernel_shape"});
  expect_has(error_of("MaxUnpool", {{"kernel_shape", V{2}}, {"strides", V{2}}},
                      {f32({1, 1, 2}), i64({1, 9}, {1, 1, 2})}),
             {"MaxUnpool", "index 9", "[1,1,4]"});
}

TEST(NnErrors, SamplingShapes) {
  expect_has(error_of("Resize", {}, {f32({1, 1, 2, 2}), Tensor(), f32v({2, 2})}),
             {"Resize", "scales has 2 values", "[1,1,2,2]"});
  expect_has(error_of("Resize", {{"mode", std::string("area")}},
                      {f32({1, 1, 2, 2}), Tensor(), f32v({1, 1, 2, 2})}),
             {"Resize", "mode 'area'"});
  expect_has(error_of("GridSample", {{"padding_mode", std::string("wrap")}},
                      {f32({1, 1, 2, 2}), f32({1, 3, 3, 2})}),
             {"GridSample", "padding_mode 'wrap'"});
  expect_has(error_of("GridSample", {}, {f32({1, 1, 2, 2}), f32({1, 3, 3, 3})}),
             {"GridSample", "[1,3,3,3]"});
  expect_has(error_of("RoiAlign", {}, {f32({1, 1, 4, 4}), f32({1, 4}), i64({3}, {1})}),
             {"RoiAlign", "batch_indices[0] = 3"});
  expect_has(error_of("RoiAlign", {}, {f32({1, 1, 4, 4}), f32({2, 5}), i64({0, 0}, {2})}),
             {"RoiAlign", "[2,5]"});
  expect_has(error_of("RoiAlign", {}, {f32({1, 1, 4, 4}), f32({2, 4}), i64({0}, {1})}),
             {"RoiAlign", "batch_indices [1]", "2 rois"});
}

TEST(NnInfer, SymbolicAndValueNeeded) {
  const OpDef& conv = global_registry().lookup("", "Conv", 17);
  Attrs ca = conv.resolve({{"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}});
  std::vector<TensorType> in{{DType::kF32, SymShape{Dim("batch"), 3, 32, Dim("w")}},
                             {DType::kF32, SymShape{8, 3, 3, 3}},
                             {}};
  auto out = conv.infer_fn(InferContext{conv, in, ca, {nullptr, nullptr, nullptr}});
  ASSERT_TRUE(out[0].shape);
  EXPECT_EQ(to_string(*out[0].shape), "[batch,8,16,?]");

  const OpDef& mp = global_registry().lookup("", "MaxPool", 17);
  Attrs ma = mp.resolve({{"kernel_shape", V{2, 2}}});
  std::vector<TensorType> x{{DType::kF16, SymShape{1, 2, 6, 6}}};
  out = mp.infer_fn(InferContext{mp, x, ma, {nullptr}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].dtype, DType::kI64);
  EXPECT_EQ(to_string(*out[1].shape), "[1,2,5,5]");

  // Resize's scales are value-needed: unknown at planning -> ValueUnknownError; known -> dims.
  const OpDef& rs = global_registry().lookup("", "Resize", 17);
  Attrs ra = rs.resolve({});
  std::vector<TensorType> rin{
      {DType::kF32, SymShape{1, 1, 3, 4}}, {}, {DType::kF32, SymShape{4}}, {}};
  EXPECT_THROW(rs.infer_fn(InferContext{rs, rin, ra, {nullptr, nullptr, nullptr, nullptr}}),
               ValueUnknownError);
  const Tensor scales = f32v({1, 1, 2, 0.5f});
  out = rs.infer_fn(InferContext{rs, rin, ra, {nullptr, nullptr, &scales, nullptr}});
  EXPECT_EQ(to_string(*out[0].shape), "[1,1,6,2]");
  EXPECT_TRUE(rs.inputs[2].value_needed && rs.inputs[3].value_needed);
}

TEST(NnKernels, MaxPoolIndicesRowAndColumnMajor) {
  // X [1, 1, 2, 3] = 0..5: a 2x2 max at (1, 1) and (1, 2): row-major 4, 5; column-major 3, 5.
  Tensor x = f32({1, 1, 2, 3});
  for (int i = 0; i < 6; ++i) x.data_as<float>()[i] = float(i);
  const OpDef& mp = global_registry().lookup("", "MaxPool", 12);
  for (int64_t order : {0, 1}) {
    const std::vector<Tensor> in{x};
    const auto out = run_op(mp, {{"kernel_shape", V{2, 2}}, {"storage_order", order}}, in, dev());
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1].data_as<int64_t>()[0], order ? 3 : 4);
    EXPECT_EQ(out[1].data_as<int64_t>()[1], 5);
    EXPECT_EQ(out[0].data_as<float>()[1], 5.0f);
  }
}

}  // namespace
}  // namespace asc
