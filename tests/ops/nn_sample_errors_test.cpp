// Sampling-grid ops: bad input gives a ShapeError naming the op and the shapes.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(1);
  return dev;
}

Tensor ints(std::vector<int64_t> v) {
  Tensor t(DType::kI64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

std::string error_of(const char* op, int opset, std::vector<Tensor> inputs) {
  try {
    run_op(global_registry().lookup("", op, opset), {}, inputs, device());
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& msg, std::initializer_list<const char*> parts) {
  EXPECT_FALSE(msg.empty()) << "no error";
  for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << "\nlacks: " << p;
}

TEST(NnSampleErrors, AffineGrid) {
  const Tensor theta2(DType::kF32, {2, 2, 3});
  expect_error(error_of("AffineGrid", 20, {theta2, ints({2, 1, 4, 5, 6})}),
               {"AffineGrid", "theta [2,2,3]", "[2, 3, 4]", "[2,1,4,5,6]"});
  expect_error(error_of("AffineGrid", 20, {theta2, ints({3, 1, 4, 5})}),
               {"AffineGrid", "theta [2,2,3]", "[3, 2, 3]"});
  expect_error(error_of("AffineGrid", 20, {theta2, ints({2, 4, 5})}),
               {"AffineGrid", "size [2,4,5]", "[N, C, H, W]"});
  expect_error(error_of("AffineGrid", 20, {theta2, ints({2, 1, -4, 5})}),
               {"AffineGrid", "negative", "[2,1,-4,5]"});
}

}  // namespace
}  // namespace asc::test
