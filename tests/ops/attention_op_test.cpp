// FusedAttention beyond the case table: bad shapes and attributes give a ShapeError naming the op
// and every shape; outputs checked against values derived by hand (equal keys average the
// values; a one-hot key picks its value; a fully -inf row gives zeros); present = past ++ new.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

Tensor f32(Shape s, double value = 0.5) {
  Tensor t(DType::kF32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, value + 0.25 * static_cast<double>(i % 7));
  return t;
}

std::vector<Tensor> run(std::vector<Tensor> ins, Attrs a = {}) {
  return run_op(global_registry().lookup("ai.asc", "FusedAttention", 1), a, ins, device());
}

std::string error_of(std::vector<Tensor> ins, Attrs a = {}) {
  try {
    run(std::move(ins), std::move(a));
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)

TEST(FusedAttentionOp, BadShapesNameTheOpAndShapes) {
  const Tensor none;
  std::string e = error_of({f32({1, 3, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 2, 8})});
  EXPECT_HAS(e, "FusedAttention: query heads 3 must be a multiple of kv heads 2");
  EXPECT_HAS(e, "query [1,3,2,8], key [1,2,2,8], value [1,2,2,8]");
  e = error_of({f32({1, 4, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 3, 8})});
  EXPECT_HAS(e, "key and value must be equal [1, kv_heads, 2, 8]");
  e = error_of({f32({1, 4, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 5, 8}), none});
  EXPECT_HAS(e, "past_key and past_value must be both present or both absent");
  e = error_of({f32({1, 4, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 5, 8}),
                f32({1, 2, 5, 8}), f32({1, 1, 2, 6})});
  EXPECT_HAS(e, "the mask does not broadcast to [1,4,2,7]");
  EXPECT_HAS(e, "mask [1,1,2,6]");
  e = error_of({f32({1, 4, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 2, 8})},
               {{"num_heads", int64_t{8}}});
  EXPECT_HAS(e, "num_heads 8 / kv_num_heads 0 differ from the shapes");
  e = error_of({f32({4, 2, 8}), f32({1, 2, 2, 8}), f32({1, 2, 2, 8})});
  EXPECT_HAS(e, "query must be [batch, heads, sequence, head_size]");
}

// Keys that are all equal give equal scores: the output is the mean of the visible values, and
// a key masked by -inf drops out of the mean. Present is past followed by the new rows.
TEST(FusedAttentionOp, EqualKeysAverageVisibleValues) {
  const int64_t P = 70, S = 2, T = P + S, D = 4;  // 72 keys: a whole block and a tail
  Tensor q = f32({1, 2, S, D}), k(DType::kF32, {1, 1, S, D}), v(DType::kF32, {1, 1, S, D});
  Tensor pk(DType::kF32, {1, 1, P, D}), pv(DType::kF32, {1, 1, P, D}), mask(DType::kF32, {S, T});
  for (int64_t j = 0; j < T; ++j)
    for (int64_t d = 0; d < D; ++d) {
      Tensor& kt = j < P ? pk : k;
      Tensor& vt = j < P ? pv : v;
      const int64_t at = (j < P ? j : j - P) * D + d;
      kt.set(at, 1.0);
      vt.set(at, static_cast<double>(j));
    }
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < T; ++j) {
    mask.set(j, j == 5 ? -inf : 0.0);       // token 0: every key but key 5
    mask.set(T + j, j >= 10 ? -inf : 0.0);  // token 1: keys 0..9
  }
  const auto out = run({q, k, v, pk, pv, mask});
  ASSERT_EQ(out[0].shape(), (Shape{1, 2, S, D}));
  const double all = (T - 1) * T / 2.0 - 5.0;
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t d = 0; d < D; ++d) {
      EXPECT_NEAR(out[0].at((h * S + 0) * D + d), all / (T - 1), 1e-4);
      EXPECT_NEAR(out[0].at((h * S + 1) * D + d), 4.5, 1e-4);
    }
  ASSERT_EQ(out[1].shape(), (Shape{1, 1, T, D}));
  for (int64_t j = 0; j < T; ++j) EXPECT_EQ(out[2].at(j * D), static_cast<double>(j));
}

// A fully -inf row gives zeros (not NaN); a row whose keys are all at the lowest finite value
// averages them, as ONNX's Softmax over equal scores does.
TEST(FusedAttentionOp, FullyMaskedRows) {
  const double inf = std::numeric_limits<double>::infinity();
  const double lowest = std::numeric_limits<float>::lowest();
  Tensor q = f32({1, 1, 2, 3}), k = f32({1, 1, 2, 3}), v(DType::kF32, {1, 1, 2, 3});
  for (int64_t i = 0; i < 6; ++i) v.set(i, static_cast<double>(i / 3 * 2));  // rows 0 and 2
  Tensor mask(DType::kF32, {1, 1, 2, 2});
  mask.set(0, -inf);
  mask.set(1, -inf);
  mask.set(2, lowest);
  mask.set(3, lowest);
  const auto out = run({q, k, v, Tensor(), Tensor(), mask});
  for (int64_t d = 0; d < 3; ++d) {
    EXPECT_EQ(out[0].at(d), 0.0);
    EXPECT_NEAR(out[0].at(3 + d), 1.0, 1e-6);
  }
}

}  // namespace
}  // namespace asc
