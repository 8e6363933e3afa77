// Attention-23: bad input gives a ShapeError naming the op and every input shape.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

std::string error_of(std::vector<Tensor> inputs, Attrs attrs = {}) {
  static const cpu::CpuDevice dev(1);
  try {
    run_op(global_registry().lookup("", "Attention", 23), attrs, inputs, dev);
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& msg, std::initializer_list<const char*> parts) {
  EXPECT_FALSE(msg.empty()) << "no error";
  for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << "\nlacks: " << p;
}

Tensor f32(Shape s) {
  return Tensor(DType::kF32, std::move(s));
}

TEST(AttentionErrors, Shapes) {
  expect_error(error_of({f32({1, 3, 8}), f32({1, 3, 8}), f32({1, 3, 8})}),
               {"Attention", "q_num_heads", "f32[1,3,8]"});
  expect_error(error_of({f32({1, 3, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 2, 8})}),
               {"Attention", "q heads 3", "kv heads 2", "f32[1,3,2,8]"});
  expect_error(error_of({f32({1, 2, 2, 8}), f32({1, 2, 4, 6}), f32({1, 2, 4, 8})}),
               {"Attention", "head size", "f32[1,2,4,6]"});
  expect_error(error_of({f32({1, 2, 2, 8}), f32({1, 2, 4, 8}), f32({1, 2, 4, 8}), f32({2, 5})}),
               {"Attention", "attn_mask [2,5]", "[1,2,2,4]"});
  expect_error(error_of({f32({1, 2, 2, 8}), f32({1, 2, 4, 8}), f32({1, 2, 4, 8}), Tensor(),
                         f32({1, 2, 3, 8})}),
               {"Attention", "past_key and past_value"});
}

}  // namespace
}  // namespace asc::test
