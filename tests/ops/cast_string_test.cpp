// Cast and CastLike to and from strings: the host path of ops whose numeric casts are tile
// kernels. Numbers print as the shortest text that reads back to the same value.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

Tensor strings(const std::vector<std::string>& values) {
  Tensor t(DType::kString, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.strings()[i] = values[i];
  return t;
}

Tensor cast(const Tensor& x, DType to) {
  const Attrs a{{"to", static_cast<int64_t>(to)}};
  const std::vector<Tensor> in = {x};
  return run_op(global_registry().lookup("", "Cast", 13), a, in, device()).at(0);
}

TEST(CastStrings, FloatsPrintShortestAndReadBack) {
  Tensor x(DType::kF32, {6});
  const float v[6] = {0.9767611f, 1e-5f, -2.5f, 3e38f, INFINITY, NAN};
  for (int i = 0; i < 6; ++i) x.data_as<float>()[i] = v[i];
  const Tensor s = cast(x, DType::kString);
  ASSERT_EQ(s.dtype(), DType::kString);
  EXPECT_EQ(s.strings()[0], "0.9767611");
  EXPECT_EQ(s.strings()[1], "1e-05");
  EXPECT_EQ(s.strings()[2], "-2.5");
  EXPECT_EQ(s.strings()[4], "inf");
  EXPECT_EQ(s.strings()[5], "nan");
  const Tensor back = cast(s, DType::kF32);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(back.data_as<float>()[i], v[i]) << i;
  EXPECT_TRUE(std::isnan(back.data_as<float>()[5]));
}

TEST(CastStrings, ParsesSignsInfinitiesAndIntegers) {
  const Tensor f = cast(strings({"+INF", "-INF", "NaN", "0.47892547", "-1e3"}), DType::kF64);
  EXPECT_EQ(f.data_as<double>()[0], INFINITY);
  EXPECT_EQ(f.data_as<double>()[1], -INFINITY);
  EXPECT_TRUE(std::isnan(f.data_as<double>()[2]));
  EXPECT_EQ(f.data_as<double>()[3], 0.47892547);
  EXPECT_EQ(f.data_as<double>()[4], -1000.0);
  const Tensor i = cast(strings({"-9223372036854775808", "42", "+7"}), DType::kI64);
  EXPECT_EQ(i.data_as<int64_t>()[0], INT64_MIN);
  EXPECT_EQ(i.data_as<int64_t>()[1], 42);
  EXPECT_EQ(i.data_as<int64_t>()[2], 7);
  const Tensor u8 = cast(strings({"200"}), DType::kU8);
  EXPECT_EQ(u8.data_as<uint8_t>()[0], 200);
  Tensor big(DType::kI64, {1});
  big.data_as<int64_t>()[0] = INT64_MAX;
  EXPECT_EQ(cast(big, DType::kString).strings()[0], "9223372036854775807");
}

TEST(CastStrings, BadTextNamesItself) {
  try {
    cast(strings({"1.5", "one"}), DType::kF32);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("'one' is not a number of dtype f32"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(cast(strings({"-3"}), DType::kU64), ShapeError);
  EXPECT_THROW(cast(strings({""}), DType::kI32), ShapeError);
}

TEST(CastStrings, CastLikeTakesTheTargetsDtype) {
  Tensor x(DType::kI32, {2});
  x.data_as<int32_t>()[0] = -17;
  x.data_as<int32_t>()[1] = 0;
  const std::vector<Tensor> in = {x, strings({""})};
  const Tensor s = run_op(global_registry().lookup("", "CastLike", 15), {}, in, device())[0];
  ASSERT_EQ(s.dtype(), DType::kString);
  EXPECT_EQ(s.strings()[0], "-17");
  EXPECT_EQ(s.strings()[1], "0");
}

}  // namespace
}  // namespace asc
