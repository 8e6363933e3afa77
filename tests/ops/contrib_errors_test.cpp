// The contrib family's contracts beyond the case table: bad shapes, attributes and values give a
// ShapeError naming the op and the shapes or values; a few outputs checked against values derived
// by hand (not by the reference): RMS norm of a constant row, attention over equal keys, a
// rotation by a quarter turn; the decode kernel leaves no stale present rows.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

const char* kMs = "com.microsoft";

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

Tensor f32(Shape s, double value = 0.5) {
  Tensor t(DType::kF32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, value + 0.25 * static_cast<double>(i % 7));
  return t;
}

Tensor ints(DType dt, Shape s, std::vector<int64_t> values) {
  Tensor t(dt, std::move(s));
  for (size_t i = 0; i < values.size(); ++i) t.set(static_cast<int64_t>(i), values[i]);
  return t;
}

std::vector<Tensor> run(const char* domain, const char* op, std::vector<Tensor> ins, Attrs a = {}) {
  return run_op(global_registry().lookup(domain, op, 1), a, ins, device());
}

// The ShapeError message of running the op, or "" when it runs.
std::string error_of(const char* domain, const char* op, std::vector<Tensor> ins, Attrs a = {}) {
  try {
    run(domain, op, std::move(ins), std::move(a));
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)

TEST(ContribErrors, SimplifiedLayerNormalization) {
  std::string e = error_of("", "SimplifiedLayerNormalization", {f32({2, 3, 4}), f32({5})});
  EXPECT_HAS(e,
             "SimplifiedLayerNormalization: scale f32[5] must have the normalised shape of "
             "[2,3,4] from axis 2");
  e = error_of(kMs, "SimplifiedLayerNormalization", {f32({2, 3, 4}), f32({4})},
               {{"axis", int64_t{1}}});
  EXPECT_HAS(e, "scale f32[4] must have the normalised shape of [2,3,4] from axis 1");
  e = error_of("", "SimplifiedLayerNormalization", {f32({}), f32({1})});
  EXPECT_HAS(e, "SimplifiedLayerNormalization: X must have rank >= 1");
  e = error_of("", "SimplifiedLayerNormalization", {f32({2, 3}), f32({3})}, {{"axis", int64_t{2}}});
  EXPECT_HAS(e, "SimplifiedLayerNormalization");
  EXPECT_HAS(e, "axis");
  e = error_of("", "SimplifiedLayerNormalization", {f32({2, 0}), f32({0})});
  EXPECT_HAS(e, "normalised size is 0");
}

TEST(ContribErrors, SkipSimplifiedLayerNormalization) {
  const char* op = "SkipSimplifiedLayerNormalization";
  std::string e = error_of(kMs, op, {f32({2, 3, 8}), f32({2, 4, 8}), f32({8})});
  EXPECT_HAS(e,
             "SkipSimplifiedLayerNormalization: skip f32[2,4,8] must have the input's shape "
             "f32[2,3,8]");
  e = error_of(kMs, op, {f32({2, 3, 8}), f32({2, 3, 8}), f32({7})});
  EXPECT_HAS(e, "gamma f32[7] must be [hidden] for input f32[2,3,8]");
  e = error_of(kMs, op, {f32({2, 3, 8}), f32({2, 3, 8}), f32({8}), f32({2, 8})});
  EXPECT_HAS(e, "bias f32[2,8] must be [hidden]");
  e = error_of(kMs, op, {f32({1, 2, 3, 8}), f32({1, 2, 3, 8}), f32({8})});
  EXPECT_HAS(e, "input f32[1,2,3,8] must be [batch, seq, hidden] or [tokens, hidden]");
}

TEST(ContribErrors, SkipLayerNormalization) {
  const char* op = "SkipLayerNormalization";
  std::string e = error_of(kMs, op, {f32({2, 3, 8}), f32({2, 4, 8}), f32({8})});
  EXPECT_HAS(e, "SkipLayerNormalization: skip f32[2,4,8] must have the input's shape f32[2,3,8]");
  e = error_of(kMs, op, {f32({2, 8}), f32({2, 8}), f32({7})});
  EXPECT_HAS(e, "gamma f32[7] must be [hidden] for input f32[2,8]");
  e = error_of(kMs, op, {f32({2, 8}), f32({2, 8}), f32({8}), f32({1, 8})});
  EXPECT_HAS(e, "beta f32[1,8] must be [hidden]");
  e = error_of(kMs, op, {f32({2, 8}), f32({2, 8}), f32({8}), Tensor(), f32({9})});
  EXPECT_HAS(e, "bias f32[9] must be [hidden]");
  e = error_of(kMs, op, {f32({}), f32({}), f32({1})});
  EXPECT_HAS(e, "must have rank >= 1");
  e = error_of(kMs, op, {f32({3, 0}), f32({3, 0}), f32({0})});
  EXPECT_HAS(e, "the hidden size is 0");
}

// The skip norms' epsilon defaults to ONNX Runtime's (1e-12), the plain norms' to 1e-5.
TEST(ContribErrors, EpsilonDefaultsAreOnnxRuntimes) {
  const auto eps = [](const char* domain, const char* op) {
    return global_registry().lookup(domain, op, 1).resolve({}).f("epsilon");
  };
  EXPECT_FLOAT_EQ(eps(kMs, "SkipLayerNormalization"), 1e-12f);
  EXPECT_FLOAT_EQ(eps(kMs, "SkipSimplifiedLayerNormalization"), 1e-12f);
  EXPECT_FLOAT_EQ(eps(kMs, "SimplifiedLayerNormalization"), 1e-5f);
}

TEST(ContribErrors, RotaryEmbedding) {
  const Tensor cache = f32({16, 4});
  std::string e = error_of(kMs, "RotaryEmbedding",
                           {f32({1, 2, 16}), ints(DType::kI64, {1, 2}, {3, 20}), cache, cache});
  EXPECT_HAS(e,
             "RotaryEmbedding: position 20 of batch 0 token 1 is outside the cos/sin caches "
             "of 16 rows");
  e = error_of(kMs, "RotaryEmbedding",
               {f32({1, 2, 16}), ints(DType::kI64, {1}, {-1}), cache, cache});
  EXPECT_HAS(e, "position -1 of batch 0 token 0");
  e = error_of(kMs, "RotaryEmbedding",
               {f32({1, 2, 16}), ints(DType::kI64, {2, 2}, {0, 1, 2, 3}), cache, cache});
  EXPECT_HAS(e,
             "position_ids must have one element or be [batch, sequence] (input [1,2,16], "
             "position_ids [2,2], cos_cache [16,4], sin_cache [16,4])");
  e = error_of(kMs, "RotaryEmbedding",
               {f32({1, 2, 12}), ints(DType::kI64, {1}, {0}), cache, cache});
  EXPECT_HAS(e, "hidden size 12 is not a multiple of the head size 8");
  e = error_of(kMs, "RotaryEmbedding", {f32({1, 2, 16}), ints(DType::kI64, {1}, {0}), cache, cache},
               {{"rotary_embedding_dim", int64_t{4}}});
  EXPECT_HAS(e, "rotary_embedding_dim needs num_heads");
  e = error_of(kMs, "RotaryEmbedding",
               {f32({1, 2, 16}), ints(DType::kI64, {1}, {0}), cache, f32({16, 3})});
  EXPECT_HAS(e, "cos_cache and sin_cache must be equal 2-D shapes");
  e = error_of(kMs, "RotaryEmbedding",
               {f32({1, 2, 4, 6}), ints(DType::kI64, {1}, {0}), cache, cache});
  EXPECT_HAS(e, "rotary dim 8 must be even, <= head size 6");
}

// GroupQueryAttention inputs: query [B, S, N*H], key/value [B, S, K*H], past [B, K, P, H].
std::vector<Tensor> gqa_inputs(int64_t B, int64_t S, int64_t N, int64_t K, int64_t H, int64_t P,
                               std::vector<int64_t> seqlens, int64_t total) {
  std::vector<Tensor> v = {f32({B, S, N * H}), f32({B, S, K * H}), f32({B, S, K * H})};
  v.push_back(P > 0 ? f32({B, K, P, H}) : Tensor());
  v.push_back(P > 0 ? f32({B, K, P, H}) : Tensor());
  v.push_back(ints(DType::kI32, {B}, std::move(seqlens)));
  v.push_back(ints(DType::kI32, {}, {total}));
  return v;
}

Attrs heads(int64_t n, int64_t k) {
  return {{"num_heads", n}, {"kv_num_heads", k}};
}

TEST(ContribErrors, GroupQueryAttentionShapes) {
  const char* op = "GroupQueryAttention";
  std::string e = error_of(kMs, op, gqa_inputs(1, 1, 4, 2, 8, 3, {3}, 4), heads(4, 3));
  EXPECT_HAS(e, "GroupQueryAttention: num_heads 4 must be a positive multiple of kv_num_heads 3");
  auto ins = gqa_inputs(1, 1, 4, 2, 8, 3, {3}, 4);
  ins[2] = Tensor();
  e = error_of(kMs, op, ins, heads(4, 2));
  EXPECT_HAS(e, "key and value must be both present or both absent");
  ins = gqa_inputs(1, 1, 4, 2, 8, 3, {3}, 4);
  ins[1] = f32({1, 1, 8});
  e = error_of(kMs, op, ins, heads(4, 2));
  EXPECT_HAS(e, "key and value must be [1,1,16] (query [1,1,32], key [1,1,8], value [1,1,16]");
  ins = gqa_inputs(1, 1, 4, 2, 8, 3, {3}, 4);
  ins[3] = f32({1, 4, 3, 8});
  e = error_of(kMs, op, ins, heads(4, 2));
  EXPECT_HAS(e, "past_key and past_value must be [1, 2, past, 8]");
  ins = gqa_inputs(2, 1, 4, 2, 8, 3, {3, 3}, 4);
  ins[5] = ints(DType::kI32, {1}, {3});
  e = error_of(kMs, op, ins, heads(4, 2));
  EXPECT_HAS(e, "seqlens_k must be [2]");
  e = error_of(kMs, op, gqa_inputs(2, 3, 4, 2, 8, 4, {6, 6}, 7), heads(4, 2));
  EXPECT_HAS(e,
             "sequence length 3 != total_sequence_length 7 (a later prompt chunk) needs batch 1");
  e = error_of(
      kMs, op, gqa_inputs(1, 1, 4, 2, 8, 3, {3}, 4),
      {{"num_heads", int64_t{4}}, {"kv_num_heads", int64_t{2}}, {"do_rotary", int64_t{1}}});
  EXPECT_HAS(e, "do_rotary needs cos_cache and sin_cache");
  ins = gqa_inputs(1, 1, 4, 2, 8, 3, {3}, 4);
  ins[5] = Tensor();
  e = error_of(kMs, op, ins, heads(4, 2));
  EXPECT_HAS(e, "required input 'seqlens_k' (input 5) is missing");
}

TEST(ContribErrors, GroupQueryAttentionLengths) {
  const char* op = "GroupQueryAttention";
  // Present has max(total, P) = 7 rows; batch 1 claims 10.
  std::string e = error_of(kMs, op, gqa_inputs(2, 1, 4, 2, 8, 6, {6, 9}, 7), heads(4, 2));
  EXPECT_HAS(e, "GroupQueryAttention: batch 1: seqlens_k 9 gives a total length outside [1, 7]");
  // Past of 4 rows needed, buffer has 2.
  e = error_of(kMs, op, gqa_inputs(1, 1, 4, 2, 8, 2, {4}, 5), heads(4, 2));
  EXPECT_HAS(e, "batch 0: seqlens_k 4 needs 4 past rows, past_key has 2");
  // Rotary positions beyond the caches.
  auto ins = gqa_inputs(1, 1, 4, 2, 8, 6, {6}, 7);
  ins.push_back(f32({5, 4}));
  ins.push_back(f32({5, 4}));
  Attrs a = heads(4, 2);
  a.set("do_rotary", int64_t{1});
  e = error_of(kMs, op, ins, a);
  EXPECT_HAS(e, "needs rotary positions up to 6, the caches have 5 rows");
}

TEST(ContribValues, RmsNormOfConstantRowIsScale) {
  // x = c everywhere: mean(x^2) = c^2, y = c / sqrt(c^2 + eps) * scale ~ sign(c) * scale.
  Tensor x(DType::kF32, {2, 5});
  for (int64_t i = 0; i < 10; ++i) x.set(i, i < 5 ? 3.0 : -2.0);
  Tensor scale = f32({5}, 1.0);
  const auto out = run("", "SimplifiedLayerNormalization", {x, scale}, {{"epsilon", 0.0f}});
  ASSERT_EQ(out[0].shape(), (Shape{2, 5}));
  ASSERT_EQ(out[1].shape(), (Shape{2, 1}));
  for (int64_t i = 0; i < 10; ++i)
    EXPECT_NEAR(out[0].at(i), (i < 5 ? 1.0 : -1.0) * scale.at(i % 5), 1e-6) << i;
  EXPECT_NEAR(out[1].at(0), 1.0 / 3.0, 1e-6);
  EXPECT_NEAR(out[1].at(1), 1.0 / 2.0, 1e-6);
}

TEST(ContribValues, RotaryQuarterTurn) {
  // cos 0, sin 1: (a, b) -> (-b, a) for each pair (k, k + 2) of a head of 4.
  Tensor x(DType::kF32, {1, 1, 4});
  for (int64_t i = 0; i < 4; ++i) x.set(i, static_cast<double>(i + 1));
  Tensor c(DType::kF32, {1, 2}), s(DType::kF32, {1, 2});
  for (int64_t i = 0; i < 2; ++i) s.set(i, 1.0);
  const auto y = run(kMs, "RotaryEmbedding", {x, ints(DType::kI64, {1}, {0}), c, s})[0];
  const double want[] = {-3, -4, 1, 2};
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(y.at(i), want[i]) << i;
}

TEST(ContribValues, AttentionOverEqualKeysAveragesValues) {
  // Decode, 1 batch, 2 query heads on 1 KV head, 3 past rows + 1 new: all keys equal, so the
  // softmax is uniform and the output is the mean of the 4 value rows; present holds past then new.
  const int64_t H = 4;
  auto ins = gqa_inputs(1, 1, 2, 1, H, 3, {3}, 4);
  for (int64_t i = 0; i < H; ++i) ins[1].set(i, 1.0);
  for (int64_t i = 0; i < 3 * H; ++i) ins[3].set(i, 1.0);
  const auto out = run(kMs, "GroupQueryAttention", ins, heads(2, 1));
  ASSERT_EQ(out[1].shape(), (Shape{1, 1, 4, H}));
  for (int64_t d = 0; d < H; ++d) {
    double mean = ins[2].at(d);
    for (int64_t j = 0; j < 3; ++j) mean += ins[4].at(j * H + d);
    mean /= 4;
    EXPECT_NEAR(out[0].at(d), mean, 1e-6);      // head 0
    EXPECT_NEAR(out[0].at(H + d), mean, 1e-6);  // head 1
    EXPECT_EQ(out[2].at(3 * H + d), ins[2].at(d));
    EXPECT_EQ(out[2].at(d), ins[4].at(d));
  }
}

TEST(ContribValues, PresentRowsPastTheLengthAreZero) {
  // Batch 1 is shorter (total 2 of present 5): its rows 2..4 are zero, whatever the past holds.
  auto ins = gqa_inputs(2, 1, 2, 1, 4, 5, {4, 1}, 5);
  const auto out = run(kMs, "GroupQueryAttention", ins, heads(2, 1));
  for (int64_t j = 2; j < 5; ++j)
    for (int64_t d = 0; d < 4; ++d) {
      EXPECT_EQ(out[1].at((5 + j) * 4 + d), 0.0);
      EXPECT_EQ(out[2].at((5 + j) * 4 + d), 0.0);
    }
  EXPECT_EQ(out[1].at(5 * 4), ins[3].at(5 * 4));  // batch 1, row 0: its past row
}

TEST(ContribValues, SharedKvBufferIsUpdatedInPlace) {
  // past_key/value passed as present_key/value's memory (P == T = 6): the result equals the
  // separate-buffer reference on every row a batch uses; rows past a batch's length keep what the
  // buffer held (batch 1 uses 3 of 6 rows).
  const OpDef& op = global_registry().lookup(kMs, "GroupQueryAttention", 1);
  auto ins = gqa_inputs(2, 1, 4, 2, 16, 6, {5, 2}, 6);
  const Attrs attrs = op.resolve(heads(4, 2));
  const auto want = run_reference(op, attrs, ins);
  const Tensor kc = ins[3].clone(), vc = ins[4].clone();
  std::vector<Tensor> in = ins;
  in[3] = Tensor::wrap(DType::kF32, kc.shape(), const_cast<void*>(kc.data()));
  in[4] = Tensor::wrap(DType::kF32, vc.shape(), const_cast<void*>(vc.data()));
  std::vector<Tensor> out = {Tensor(DType::kF32, {2, 1, 64}), in[3], in[4]};
  LaunchContext ctx;
  ctx.op = &op;
  for (const auto& t : in) ctx.inputs.push_back(t.desc());
  for (const auto& t : out) ctx.outputs.push_back(t.desc());
  ctx.attrs = &attrs;
  op.host_kernel_fn(ctx, in, out);
  for (int64_t i = 0; i < out[0].numel(); ++i) EXPECT_NEAR(out[0].at(i), want[0].at(i), 1e-5) << i;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t kh = 0; kh < 2; ++kh)
      for (int64_t j = 0; j < 6; ++j)
        for (int64_t d = 0; d < 16; ++d) {
          const int64_t at = ((b * 2 + kh) * 6 + j) * 16 + d;
          const bool used = j < (b == 0 ? 6 : 3);
          EXPECT_NEAR(kc.at(at), used ? want[1].at(at) : ins[3].at(at), 1e-6) << at;
          EXPECT_NEAR(vc.at(at), used ? want[2].at(at) : ins[4].at(at), 1e-6) << at;
        }
}

}  // namespace
}  // namespace asc
