// vec_chain_f32 (a fused epilogue) and vec_epilogue_f32 give what their steps give one by one
// through vec_unary / vec_binary / vec_binary_scalar: seeded random chains of one to six steps over
// every operand kind (an earlier step, a tile with its own row stride, a value per row, a vector
// over the columns, a scalar on either side), rows 1 to 300 long (up to three blocks), NaN and
// infinities among the inputs. Bit for bit: both run the same vector code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/devices/cpu/vec.h"

namespace asc::cpu {
namespace {

const UnaryOp kUnary[] = {UnaryOp::kNeg,   UnaryOp::kAbs,        UnaryOp::kRelu, UnaryOp::kSigmoid,
                          UnaryOp::kTanh,  UnaryOp::kExp,        UnaryOp::kLog,  UnaryOp::kSqrt,
                          UnaryOp::kRsqrt, UnaryOp::kReciprocal, UnaryOp::kErf,  UnaryOp::kSquare,
                          UnaryOp::kSilu,  UnaryOp::kLeakyRelu,  UnaryOp::kClip, UnaryOp::kAffine};
const BinaryOp kBinary[] = {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul,
                            BinaryOp::kDiv, BinaryOp::kMax, BinaryOp::kMin};

bool same(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 4) == 0;
}

TEST(VecChain, EqualsTheStepsOneByOne) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-3.f, 3.f);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), 0.f, -0.f};
  int fused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t rows = 1 + static_cast<int64_t>(rng() % 5);
    const int64_t cols = 1 + static_cast<int64_t>(rng() % 300);  // blocks of 128: one to three
    const int64_t n = rows * cols;
    const int nsteps = 1 + static_cast<int>(rng() % 6);
    SCOPED_TRACE(testing::Message() << "trial " << trial << " rows " << rows << " cols " << cols
                                    << " steps " << nsteps);
    auto random_vec = [&](int64_t count) {
      std::vector<float> v(static_cast<size_t>(count));
      for (float& x : v) x = rng() % 50 == 0 ? specials[rng() % 5] : u(rng);
      return v;
    };
    // Operands kept alive for the chain: tiles with a row stride past cols, rows, columns.
    std::vector<std::vector<float>> keep;
    std::vector<std::vector<float>> results;  // per step, dense [rows, cols] (the reference)
    std::vector<ChainStep> steps(static_cast<size_t>(nsteps));
    // Operand `a` of step k as a dense [rows, cols] array for the reference.
    auto make_arg = [&](int k, ChainArg& a) {
      const int kind = k == 0 ? 1 + static_cast<int>(rng() % 4) : static_cast<int>(rng() % 5);
      std::vector<float> dense(static_cast<size_t>(n));
      if (kind == 0) {  // an earlier step
        a.kind = ChainArg::kStep;
        a.step = static_cast<int>(rng() % static_cast<unsigned>(k));
        dense = results[static_cast<size_t>(a.step)];
      } else if (kind == 1) {  // a tile, row stride cols + 0..3
        a.kind = ChainArg::kTile;
        a.rs = cols + static_cast<int64_t>(rng() % 4);
        keep.push_back(random_vec(rows * a.rs));
        a.p = keep.back().data();
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < cols; ++j) dense[r * cols + j] = a.p[r * a.rs + j];
      } else if (kind == 2) {
        a.kind = ChainArg::kRow;
        keep.push_back(random_vec(rows));
        a.p = keep.back().data();
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < cols; ++j) dense[r * cols + j] = a.p[r];
      } else if (kind == 3) {
        a.kind = ChainArg::kCol;
        keep.push_back(random_vec(cols));
        a.p = keep.back().data();
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < cols; ++j) dense[r * cols + j] = a.p[j];
      } else {
        a.kind = ChainArg::kScalar;
        a.s = u(rng);
        for (float& x : dense) x = a.s;
      }
      return dense;
    };
    for (int k = 0; k < nsteps; ++k) {
      ChainStep& s = steps[static_cast<size_t>(k)];
      s.binary = rng() % 2 == 0;
      std::vector<float> a = make_arg(k, s.a), y(static_cast<size_t>(n));
      if (s.binary) {
        const BinaryOp op = kBinary[rng() % 6];
        s.op = static_cast<uint8_t>(op);
        std::vector<float> b = make_arg(k, s.b);
        if (s.b.kind == ChainArg::kScalar && rng() % 2 == 0) {  // the scalar on the left
          std::swap(s.a, s.b);
          vec_binary_scalar(op, DType::kF32, a.data(), s.a.s, y.data(), n, true);
        } else if (s.b.kind == ChainArg::kScalar) {
          vec_binary_scalar(op, DType::kF32, a.data(), s.b.s, y.data(), n);
        } else {
          vec_binary(op, DType::kF32, a.data(), b.data(), y.data(), n);
        }
      } else {
        const UnaryOp op = kUnary[rng() % 16];
        s.op = static_cast<uint8_t>(op);
        s.alpha = op == UnaryOp::kClip ? -1.f : 0.25f;
        s.beta = op == UnaryOp::kClip ? 2.f : 0.5f;
        vec_unary(op, DType::kF32, a.data(), y.data(), n, s.alpha, s.beta);
      }
      results.push_back(std::move(y));
    }
    const int64_t ldy = cols + 2;
    std::vector<float> out(static_cast<size_t>(rows * ldy), 12345.f);
    if (!vec_chain_f32(steps.data(), nsteps, out.data(), ldy, rows, cols)) continue;  // ISA
    ++fused;
    const std::vector<float>& want = results.back();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < cols; ++j)
        ASSERT_TRUE(same(out[r * ldy + j], want[r * cols + j]))
            << "(" << r << ", " << j << "): " << out[r * ldy + j] << " vs " << want[r * cols + j];
      for (int64_t j = cols; j < ldy; ++j) ASSERT_EQ(out[r * ldy + j], 12345.f) << "past the row";
    }
  }
  // Where the CPU has AVX2 or better every chain of these ops runs fused.
  if (__builtin_cpu_supports("avx2")) {
    EXPECT_EQ(fused, 300);
  }
}

// The epilogue form (vec_epilogue_f32: y = act(t + bias [+ z])) in every spelling the planner
// writes (bias per row or column, on either side; the residual on either side; hardsigmoid,
// hardswish and gelu as clip(affine(x)), x * clip(affine(x)) and x * affine(erf(x * scale)))
// gives what its steps give one by one.
TEST(VecChain, EpilogueFormEqualsTheStepsOneByOne) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-8.f, 8.f);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), 0.f, -0.f};
  const bool fused_isa = __builtin_cpu_supports("avx2");
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t rows = 1 + static_cast<int64_t>(rng() % 6);
    const int64_t cols = 1 + static_cast<int64_t>(rng() % 200);
    const int64_t n = rows * cols, ldt = cols + static_cast<int64_t>(rng() % 3);
    const int act = static_cast<int>(rng() % 10);
    const bool row_bias = rng() % 2 == 0, residual = rng() % 2 == 0, swap = rng() % 2 == 0;
    SCOPED_TRACE(testing::Message()
                 << "trial " << trial << " rows " << rows << " cols " << cols << " act " << act
                 << " row bias " << row_bias << " residual " << residual << " swapped " << swap);
    auto random_vec = [&](int64_t count) {
      std::vector<float> v(static_cast<size_t>(count));
      for (float& x : v) x = rng() % 40 == 0 ? specials[rng() % 5] : u(rng);
      return v;
    };
    const std::vector<float> t = random_vec(rows * ldt), z = random_vec(rows * ldt);
    const std::vector<float> bias = random_vec(row_bias ? rows : cols);
    std::vector<ChainStep> steps;
    auto step_arg = [](int k) {
      ChainArg a;
      a.kind = ChainArg::kStep;
      a.step = k;
      return a;
    };
    // The reference, step by step over dense [rows, cols] arrays.
    std::vector<float> x(static_cast<size_t>(n)), b(static_cast<size_t>(n)), zz(x.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < cols; ++j) {
        x[r * cols + j] = t[r * ldt + j];
        b[r * cols + j] = row_bias ? bias[r] : bias[j];
        zz[r * cols + j] = z[r * ldt + j];
      }
    ChainStep s0;
    s0.binary = true;
    s0.op = static_cast<uint8_t>(BinaryOp::kAdd);
    s0.a.kind = ChainArg::kTile;
    s0.a.p = t.data();
    s0.a.rs = ldt;
    s0.b.kind = row_bias ? ChainArg::kRow : ChainArg::kCol;
    s0.b.p = bias.data();
    if (swap) std::swap(s0.a, s0.b);
    steps.push_back(s0);
    vec_binary(BinaryOp::kAdd, DType::kF32, x.data(), b.data(), x.data(), n);
    if (residual) {
      ChainStep s;
      s.binary = true;
      s.op = static_cast<uint8_t>(BinaryOp::kAdd);
      s.a = step_arg(0);
      s.b.kind = ChainArg::kTile;
      s.b.p = z.data();
      s.b.rs = ldt;
      if (swap) std::swap(s.a, s.b);
      steps.push_back(s);
      vec_binary(BinaryOp::kAdd, DType::kF32, x.data(), zz.data(), x.data(), n);
    }
    const int pre = static_cast<int>(steps.size()) - 1;  // the activation's input
    auto unary = [&](UnaryOp op, int of, float alpha, float beta, std::vector<float>& v) {
      ChainStep s;
      s.op = static_cast<uint8_t>(op);
      s.a = step_arg(of);
      s.alpha = alpha;
      s.beta = beta;
      steps.push_back(s);
      vec_unary(op, DType::kF32, v.data(), v.data(), n, alpha, beta);
    };
    // x * (step `of`): hardswish's and gelu's last step, either operand order.
    auto times_x = [&](int of, const std::vector<float>& v) {
      ChainStep m;
      m.binary = true;
      m.op = static_cast<uint8_t>(BinaryOp::kMul);
      m.a = step_arg(pre);
      m.b = step_arg(of);
      if (swap) std::swap(m.a, m.b);
      steps.push_back(m);
      vec_binary(BinaryOp::kMul, DType::kF32, x.data(), v.data(), x.data(), n);
    };
    const UnaryOp single[] = {UnaryOp::kRelu,    UnaryOp::kClip, UnaryOp::kLeakyRelu,
                              UnaryOp::kSigmoid, UnaryOp::kSilu, UnaryOp::kTanh};
    if (act >= 1 && act <= 6) {
      unary(single[act - 1], pre, act == 2 ? -1.5f : 0.1f, act == 2 ? 6.f : 0.f, x);
    } else if (act == 9) {  // gelu: x * affine(erf(x * scale))
      std::vector<float> h(x.size());
      ChainStep sc;
      sc.binary = true;
      sc.op = static_cast<uint8_t>(BinaryOp::kMul);
      sc.a = step_arg(pre);
      sc.b.kind = ChainArg::kScalar;
      sc.b.s = 0.70710678f;
      steps.push_back(sc);
      vec_binary_scalar(BinaryOp::kMul, DType::kF32, x.data(), sc.b.s, h.data(), n);
      unary(UnaryOp::kErf, pre + 1, 0.f, 0.f, h);
      unary(UnaryOp::kAffine, pre + 2, 0.5f, 0.5f, h);
      times_x(pre + 3, h);
    } else if (act >= 7) {  // hardsigmoid, hardswish
      std::vector<float> h = x;
      unary(UnaryOp::kAffine, pre, 1.f / 6, 0.5f, h);
      unary(UnaryOp::kClip, pre + 1, 0.f, 1.f, h);
      if (act == 8)
        times_x(pre + 2, h);
      else
        x = h;
    }
    const int64_t ldy = cols + 1;
    std::vector<float> out(static_cast<size_t>(rows * ldy), 12345.f);
    const bool ran =
        vec_epilogue_f32(steps.data(), static_cast<int>(steps.size()), out.data(), ldy, rows, cols);
    ASSERT_EQ(ran, fused_isa);
    if (!ran) continue;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < cols; ++j)
        ASSERT_TRUE(same(out[r * ldy + j], x[r * cols + j]))
            << "(" << r << ", " << j << "): " << out[r * ldy + j] << " vs " << x[r * cols + j];
      ASSERT_EQ(out[r * ldy + cols], 12345.f) << "past the row";
    }
  }
}

TEST(VecChain, EpilogueFormRefusesOtherChains) {
  float t[4] = {1, 2, 3, 4}, bias[2] = {1, 2}, y[4] = {7, 7, 7, 7};
  ChainStep add;
  add.binary = true;
  add.op = static_cast<uint8_t>(BinaryOp::kAdd);
  add.a.kind = ChainArg::kTile;
  add.a.p = t;
  add.a.rs = 2;
  add.b.kind = ChainArg::kRow;
  add.b.p = bias;
  ChainStep mul = add;  // a product, not a bias
  mul.op = static_cast<uint8_t>(BinaryOp::kMul);
  EXPECT_FALSE(vec_epilogue_f32(&mul, 1, y, 2, 2, 2));
  ChainStep relu_first[2];  // the activation before the bias
  relu_first[0].op = static_cast<uint8_t>(UnaryOp::kRelu);
  relu_first[0].a = add.a;
  relu_first[1] = add;
  relu_first[1].a.kind = ChainArg::kStep;
  relu_first[1].a.step = 0;
  EXPECT_FALSE(vec_epilogue_f32(relu_first, 2, y, 2, 2, 2));
  ChainStep exp_after[2] = {add, {}};  // an activation without this form
  exp_after[1].op = static_cast<uint8_t>(UnaryOp::kExp);
  exp_after[1].a.kind = ChainArg::kStep;
  EXPECT_FALSE(vec_epilogue_f32(exp_after, 2, y, 2, 2, 2));
  ChainStep clip_of_tile[3] = {add, {}, {}};  // clip(affine(x)) whose clip reads another step
  clip_of_tile[1].op = static_cast<uint8_t>(UnaryOp::kAffine);
  clip_of_tile[1].a.kind = ChainArg::kStep;
  clip_of_tile[2].op = static_cast<uint8_t>(UnaryOp::kClip);
  clip_of_tile[2].a.kind = ChainArg::kStep;
  clip_of_tile[2].a.step = 0;
  EXPECT_FALSE(vec_epilogue_f32(clip_of_tile, 3, y, 2, 2, 2));
  for (float v : y) EXPECT_EQ(v, 7.f);
}

TEST(VecChain, RefusesOpsWithoutAFusedForm) {
  ChainStep s;
  s.op = static_cast<uint8_t>(UnaryOp::kFloor);
  s.a.kind = ChainArg::kScalar;
  float y = 7.f;
  EXPECT_FALSE(vec_chain_f32(&s, 1, &y, 1, 1, 1));
  EXPECT_EQ(y, 7.f);
  s.binary = true;
  s.op = static_cast<uint8_t>(BinaryOp::kPow);
  EXPECT_FALSE(vec_chain_f32(&s, 1, &y, 1, 1, 1));
  EXPECT_FALSE(vec_chain_f32(&s, 0, &y, 1, 1, 1));
}

}  // namespace
}  // namespace asc::cpu
