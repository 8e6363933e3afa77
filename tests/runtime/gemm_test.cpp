// CPU device GEMM: every ISA path (avx512_bf16, avx512, avx2, generic), every input type, packed
// against a naive double-accumulating reference on seeded random data.
#include "runtime/devices/cpu/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace asc::cpu {
namespace {

struct GemmCase {
  const char* isa;
  DType in;
  int64_t m, n, k;
  bool trans_a;  // A stored as [k, m] (packed path only)
  bool trans_b;  // B stored as [n, k] (packed path only)
  bool accumulate;
  bool direct;
};

std::string case_name(const GemmCase& c) {
  std::string s = std::string(c.isa) + "_" + std::string(dtype_name(c.in)) + "_" +
                  (c.direct ? "direct" : "packed") + "_" + std::to_string(c.m) + "x" +
                  std::to_string(c.n) + "x" + std::to_string(c.k);
  if (c.trans_a) s += "_tA";
  if (c.trans_b) s += "_tB";
  if (c.accumulate) s += "_acc";
  return s;
}

void PrintTo(const GemmCase& c, std::ostream* os) {
  *os << case_name(c);
}

// Random values in [-1, 1] stored as `in`; `exact` receives the stored values as float.
std::vector<uint8_t> random_tensor(DType in, int64_t count, std::mt19937& rng,
                                   std::vector<float>& exact) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint8_t> bytes(static_cast<size_t>(count) * dtype_size(in) + 1);
  exact.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const float v = dist(rng);
    if (in == DType::kF32) {
      std::memcpy(bytes.data() + i * 4, &v, 4);
      exact[i] = v;
    } else if (in == DType::kF16) {
      const f16 h = f32_to_f16(v);
      std::memcpy(bytes.data() + i * 2, &h, 2);
      exact[i] = f16_to_f32(h);
    } else {
      const bf16 h = f32_to_bf16(v);
      std::memcpy(bytes.data() + i * 2, &h, 2);
      exact[i] = bf16_to_f32(h);
    }
  }
  return bytes;
}

class GemmTest : public ::testing::TestWithParam<GemmCase> {
 protected:
  void TearDown() override { gemm_force_isa(nullptr); }
};

TEST_P(GemmTest, MatchesReference) {
  const GemmCase& p = GetParam();
  if (std::string(gemm_force_isa(p.isa)) != p.isa) GTEST_SKIP() << "CPU lacks " << p.isa;
  const int64_t m = p.m, n = p.n, k = p.k;
  std::mt19937 rng(static_cast<uint32_t>(m * 7919 + n * 131 + k * 17 + static_cast<int>(p.in)));

  // Logical A[i][kk], B[kk][j]; storage per trans flags, with padded row strides.
  const int64_t a_rows = p.trans_a ? k : m, a_cols = p.trans_a ? m : k, lda = a_cols + 3;
  const int64_t b_rows = p.trans_b ? n : k, b_cols = p.trans_b ? k : n, ldb = b_cols + 5;
  std::vector<float> a_exact, b_exact;
  const auto a = random_tensor(p.in, a_rows * lda, rng, a_exact);
  const auto b = random_tensor(p.in, b_rows * ldb, rng, b_exact);
  const int64_t a_rs = p.trans_a ? 1 : lda, a_cs = p.trans_a ? lda : 1;
  const int64_t b_rs = p.trans_b ? 1 : ldb, b_cs = p.trans_b ? ldb : 1;

  const int64_t ldc = n + 2;
  const float kSentinel = 12345.0f;
  std::vector<float> c(static_cast<size_t>(std::max<int64_t>(m, 1) * ldc), kSentinel);
  std::vector<float> c0(c.size());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = c0[i * ldc + j] = dist(rng);

  if (p.direct) {
    gemm_direct(p.in, a.data(), lda, b.data(), ldb, c.data(), ldc, m, n, k, p.accumulate);
  } else {
    std::vector<uint8_t> pa(gemm_packed_a_bytes(p.in, m, k) + 1);
    std::vector<uint8_t> pb(gemm_packed_b_bytes(p.in, k, n) + 1);
    gemm_pack_a(p.in, a.data(), a_rs, a_cs, m, k, pa.data());
    gemm_pack_b(p.in, b.data(), b_rs, b_cs, k, n, pb.data());
    gemm_mmad(p.in, pa.data(), pb.data(), c.data(), ldc, m, n, k, p.accumulate);
  }

  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double ref = p.accumulate ? c0[i * ldc + j] : 0.0, mag = std::abs(ref);
      for (int64_t kk = 0; kk < k; ++kk) {
        const double prod =
            static_cast<double>(a_exact[i * a_rs + kk * a_cs]) * b_exact[kk * b_rs + j * b_cs];
        ref += prod;
        mag += std::abs(prod);
      }
      const double tol = 2e-6 * std::sqrt(static_cast<double>(k) + 1.0) * (mag + 1.0);
      ASSERT_NEAR(c[i * ldc + j], ref, tol) << "at (" << i << ", " << j << ")";
    }
    for (int64_t j = n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], kSentinel) << "padding written";
  }
}

std::vector<GemmCase> all_cases() {
  struct Shape {
    int64_t m, n, k;
  };
  const Shape packed_shapes[] = {{1, 1, 1},     {0, 5, 3},  {3, 0, 4},     {4, 5, 0},
                                 {1, 33, 17},   {7, 31, 9}, {12, 32, 64},  {13, 33, 65},
                                 {25, 70, 300}, {6, 16, 2}, {24, 64, 257}, {37, 129, 700},
                                 {2, 200, 1}};
  const Shape direct_shapes[] = {{1, 1, 1},
                                 {0, 4, 4},
                                 {2, 0, 4},
                                 {3, 5, 0},
                                 {1, 129, 33},
                                 {2, 200, 7},
                                 {3, 97, 64},
                                 {4, 50, 11},
                                 {5, 96, 5},
                                 {6, 17, 40},
                                 {7, 300, 3},
                                 {8, 130, 100},
                                 {17, 70, 20},
                                 {13, 77, 301},
                                 {24, 40, 514},
                                 // one row (the bf16 dot-product path): k past one k block and
                                 // odd, n past one strip with partial 32-column groups
                                 {1, 161, 257},
                                 {1, 300, 131},
                                 {1, 64, 2},
                                 {1, 1000, 130},
                                 // row groups of 8: exactly one, one plus a partial group
                                 {1, 31, 8},
                                 {1, 48, 15}};
  std::vector<GemmCase> cases;
  for (const char* isa : {"avx512_bf16", "avx512", "avx2", "generic"}) {
    for (DType in : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (const Shape& s : packed_shapes) {
        cases.push_back({isa, in, s.m, s.n, s.k, false, false, false, false});
        cases.push_back({isa, in, s.m, s.n, s.k, false, false, true, false});
        cases.push_back({isa, in, s.m, s.n, s.k, true, false, false, false});
        cases.push_back({isa, in, s.m, s.n, s.k, false, true, true, false});
        cases.push_back({isa, in, s.m, s.n, s.k, true, true, false, false});
      }
      for (const Shape& s : direct_shapes) {
        cases.push_back({isa, in, s.m, s.n, s.k, false, false, false, true});
        cases.push_back({isa, in, s.m, s.n, s.k, false, false, true, true});
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Gemm, GemmTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<GemmCase>& info) {
                           return case_name(info.param);
                         });

// B packed panel by panel inside the product (its own k chunks) matches the reference, over
// shapes with partial panels, several k chunks and C kept.
TEST(GemmBRows, MatchesReference) {
  if (!gemm_mmad_b_rows_supported(DType::kF32)) GTEST_SKIP() << "no b-rows kernel on this CPU";
  struct Shape {
    int64_t m, n, k;
  };
  for (const Shape s : {Shape{1, 1, 1}, Shape{13, 33, 65}, Shape{25, 70, 300}, Shape{132, 608, 160},
                        Shape{37, 129, 700}, Shape{12, 32, 0}}) {
    for (bool accumulate : {false, true}) {
      std::mt19937 rng(static_cast<uint32_t>(s.m * 31 + s.n * 7 + s.k));
      std::vector<float> a_exact, b_exact;
      const int64_t ldb = s.n + 5, ldc = s.n + 2;
      const auto a = random_tensor(DType::kF32, s.m * s.k, rng, a_exact);
      const auto b = random_tensor(DType::kF32, s.k * ldb, rng, b_exact);
      std::vector<uint8_t> pa(gemm_packed_a_bytes(DType::kF32, s.m, s.k) + 1);
      gemm_pack_a(DType::kF32, a.data(), s.k, 1, s.m, s.k, pa.data());
      std::vector<float> c(s.m * ldc);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      for (float& x : c) x = dist(rng);
      const std::vector<float> c0 = c;
      ASSERT_TRUE(gemm_mmad_b_rows(DType::kF32, pa.data(), b.data(), ldb, c.data(), ldc, s.m, s.n,
                                   s.k, accumulate));
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          double ref = accumulate ? c0[i * ldc + j] : 0.0, mag = std::abs(ref);
          for (int64_t kk = 0; kk < s.k; ++kk) {
            const double prod = static_cast<double>(a_exact[i * s.k + kk]) * b_exact[kk * ldb + j];
            ref += prod;
            mag += std::abs(prod);
          }
          const double tol = 2e-6 * std::sqrt(static_cast<double>(s.k) + 1.0) * (mag + 1.0);
          ASSERT_NEAR(c[i * ldc + j], ref, tol)
              << s.m << "x" << s.n << "x" << s.k << " at (" << i << ", " << j << ")";
        }
        for (int64_t j = s.n; j < ldc; ++j)
          ASSERT_EQ(c[i * ldc + j], c0[i * ldc + j]) << "padding written";
      }
    }
  }
  EXPECT_FALSE(gemm_mmad_b_rows(DType::kBF16, nullptr, nullptr, 0, nullptr, 0, 1, 1, 1, false));
}

// Prefetching the caller's next blocks while gemm_mmad runs: every line of every block is
// issued exactly once, and the product is the one computed without them.
TEST(GemmAhead, IssuesEveryLineOnceAndLeavesTheProductAlone) {
  const int64_t m = 25, n = 70, k = 300;
  std::mt19937 rng(11);
  std::vector<float> a_exact, b_exact;
  const auto a = random_tensor(DType::kF32, m * k, rng, a_exact);
  const auto b = random_tensor(DType::kF32, k * n, rng, b_exact);
  std::vector<uint8_t> pa(gemm_packed_a_bytes(DType::kF32, m, k));
  std::vector<uint8_t> pb(gemm_packed_b_bytes(DType::kF32, k, n));
  gemm_pack_a(DType::kF32, a.data(), k, 1, m, k, pa.data());
  gemm_pack_b(DType::kF32, b.data(), n, 1, k, n, pb.data());
  std::vector<float> plain(m * n), fetched(m * n);
  gemm_mmad(DType::kF32, pa.data(), pb.data(), plain.data(), n, m, n, k, false);

  std::vector<std::byte> next(64 << 10);
  GemmAhead ahead;
  ahead.add(next.data(), 1000, 7, 130);         // 7 rows of 3 lines
  ahead.add(next.data() + 8000, 64, 40, 64);    // 40 rows of 1 line
  ahead.add(next.data() + 20000, 64, 100, 64);  // a third block: more than kMaxBlocks, ignored
  ASSERT_EQ(ahead.count, GemmAhead::kMaxBlocks);
  ASSERT_EQ(ahead.lines(), 7 * 3 + 40);
  gemm_mmad(DType::kF32, pa.data(), pb.data(), fetched.data(), n, m, n, k, false, &ahead);
  EXPECT_EQ(ahead.issued(), ahead.lines());
  EXPECT_EQ(fetched, plain);
}

// The packed layouts are a contract with the caller's tiling: pin the documented offsets.
TEST(GemmLayout, PackedOffsetsMatchHeader) {
  for (DType in : {DType::kF32, DType::kBF16}) {
    const GemmKernel& g = gemm_kernel(in);
    const int64_t m = g.mr + 1, n = g.nr + 1, k = 5, kp = (k + g.k_pack - 1) / g.k_pack * g.k_pack;
    std::vector<float> a_exact, b_exact;
    std::mt19937 rng(7);
    const auto a = random_tensor(in, m * k, rng, a_exact);
    const auto b = random_tensor(in, k * n, rng, b_exact);
    std::vector<uint8_t> pa(gemm_packed_a_bytes(in, m, k)), pb(gemm_packed_b_bytes(in, k, n));
    ASSERT_EQ(pa.size(), static_cast<size_t>(2 * g.mr * kp) * dtype_size(g.packed));
    ASSERT_EQ(pb.size(), static_cast<size_t>(2 * g.nr * kp) * dtype_size(g.packed));
    gemm_pack_a(in, a.data(), k, 1, m, k, pa.data());
    gemm_pack_b(in, b.data(), n, 1, k, n, pb.data());
    auto packed_at = [&](const std::vector<uint8_t>& buf, int64_t off) {
      if (g.packed == DType::kF32) {
        float v;
        std::memcpy(&v, buf.data() + off * 4, 4);
        return v;
      }
      bf16 h;
      std::memcpy(&h, buf.data() + off * 2, 2);
      return bf16_to_f32(h);
    };
    auto offset = [&](int64_t r, int64_t panel_rows, int64_t kk) {
      const int64_t panel = r / panel_rows, i = r % panel_rows;
      const int64_t base = panel * panel_rows * kp;
      return g.k_pack == 2 ? base + (kk / 2) * panel_rows * 2 + i * 2 + kk % 2
                           : base + kk * panel_rows + i;
    };
    for (int64_t i = 0; i < 2 * g.mr; ++i)
      for (int64_t kk = 0; kk < kp; ++kk)
        EXPECT_EQ(packed_at(pa, offset(i, g.mr, kk)), i < m && kk < k ? a_exact[i * k + kk] : 0.0f);
    for (int64_t j = 0; j < 2 * g.nr; ++j)
      for (int64_t kk = 0; kk < kp; ++kk)
        EXPECT_EQ(packed_at(pb, offset(j, g.nr, kk)), j < n && kk < k ? b_exact[kk * n + j] : 0.0f);
  }
}

TEST(GemmKernelInfo, PackedTypeFollowsInput) {
  EXPECT_EQ(gemm_kernel(DType::kF32).packed, DType::kF32);
  EXPECT_EQ(gemm_kernel(DType::kF16).packed, DType::kF32);
  const GemmKernel& g = gemm_kernel(DType::kBF16);
  EXPECT_EQ(g.k_pack == 2, g.packed == DType::kBF16);
  EXPECT_THROW(gemm_kernel(DType::kI32), std::invalid_argument);
  EXPECT_THROW(gemm_force_isa("sse9"), std::invalid_argument);
}

}  // namespace
}  // namespace asc::cpu
