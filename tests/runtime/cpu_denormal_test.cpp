// The cpu device runs programs with an mmad with denormals flushed to zero (cpu_device.cpp), and
// restores the thread's floating-point mode after.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#include "runtime/model.h"
#include "tests/runtime/fusion_util.h"

namespace asc {
namespace {

TEST(CpuDenormals, ProductsFlushDenormalsAndTheModeIsRestored) {
  test::Builder b;
  const int a = b.input("a", {2, 3});
  Tensor w(DType::kF32, {3, 2});
  for (int64_t i = 0; i < w.numel(); ++i) w.set(i, 1.0);
  b.g.outputs = {b.op("MatMul", "y", {a, b.constant("w", w)})};
  ModelOptions o;
  o.threads = 1;
  o.optimize = false;
  const Model m(b.g, o);
  Tensor x(DType::kF32, {2, 3});
  const float tiny = FLT_MIN / 4;  // a denormal
  for (int64_t i = 0; i < 3; ++i) x.set(i, tiny);
  for (int64_t i = 3; i < 6; ++i) x.set(i, 1.5);
  const auto out = m.run({{"a", x}});
  EXPECT_EQ(out[0].tensor.at(0), 0.0);  // tiny * 1 summed: flushed
  EXPECT_EQ(out[0].tensor.at(2), 4.5);
  volatile float d = tiny;
  EXPECT_EQ(std::fpclassify(d * 0.5f), FP_SUBNORMAL);  // this thread: IEEE again
}

}  // namespace
}  // namespace asc
