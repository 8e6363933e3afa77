// Values the case table cannot pin (its references are naive): ReduceLogSumExp stays finite where
// exp overflows f32 and double, gives -inf for rows of -inf, and the empty-set values of every
// ReduceX kind follow ONNX (0, 1, -inf, the dtype's extremes).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/ops.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(1);
  return dev;
}

Tensor run1(const char* op, int opset, const Tensor& x, const Attrs& a) {
  const OpDef& def = global_registry().lookup("", op, opset);
  return run_op(def, a, std::vector<Tensor>{x}, device())[0];
}

TEST(ReduceValues, LogSumExpIsStable) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x(DType::kF32, {3, 2});
  const float v[] = {1000.f, 1000.f, -inf, -inf, -1000.f, -inf};
  std::copy(v, v + 6, x.data_as<float>());
  Attrs a;
  a.set("axes", std::vector<int64_t>{1});
  a.set("keepdims", int64_t{0});
  const Tensor y = run1("ReduceLogSumExp", 13, x, a);
  ASSERT_EQ(y.shape(), (Shape{3}));
  EXPECT_NEAR(y.data_as<float>()[0], 1000.f + std::log(2.f), 1e-3);
  EXPECT_EQ(y.data_as<float>()[1], -inf);
  EXPECT_NEAR(y.data_as<float>()[2], -1000.f, 1e-3);
}

TEST(ReduceValues, EmptySets) {
  const double inf = std::numeric_limits<double>::infinity();
  Attrs a;
  a.set("axes", std::vector<int64_t>{0});
  const Tensor x(DType::kF32, {0, 2});
  const std::pair<const char*, double> want[] = {
      {"ReduceSum", 0},       {"ReduceProd", 1},      {"ReduceMin", inf},
      {"ReduceMax", -inf},    {"ReduceL1", 0},        {"ReduceL2", 0},
      {"ReduceSumSquare", 0}, {"ReduceLogSum", -inf}, {"ReduceLogSumExp", -inf},
  };
  for (const auto& [op, value] : want) {
    const Tensor y = run1(op, 11, x, a);
    ASSERT_EQ(y.shape(), (Shape{1, 2})) << op;
    EXPECT_EQ(y.at(0), value) << op;
    EXPECT_EQ(y.at(1), value) << op;
  }
  EXPECT_TRUE(std::isnan(run1("ReduceMean", 11, x, a).at(0)));
  const Tensor xi(DType::kI32, {0, 2});
  EXPECT_EQ(run1("ReduceMin", 11, xi, a).at(0), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(run1("ReduceMax", 11, xi, a).at(0), std::numeric_limits<int32_t>::min());
}

}  // namespace
}  // namespace asc
