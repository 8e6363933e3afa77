// The cpu device's Load3D packing (runtime/devices/cpu/im2col.h) against its definition: the
// column matrix built naively from Im2col's formula, then packed by gemm_pack_b / gemm_pack_a.
// Every ISA level the CPU has (the AVX-512 unit-stride path and the generic one), f32/f16/bf16,
// windows with padding on every side, strides, dilations, channel tails and 3-D windows.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "registry/tensor.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu {
namespace {

struct Case {
  int64_t c, d, h, w;    // the box [C, D, H, W]
  int64_t lo[4], hi[4];  // its valid region (the rest is padding)
  Im2col g;
  int64_t channels;  // rows of channels packed (k = channels * window)
};

Im2col window(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> d,
              std::vector<int64_t> out) {
  Im2col g;
  for (int j = 0; j < 3; ++j) g.k[j] = k[j], g.s[j] = s[j], g.d[j] = d[j], g.out[j] = out[j];
  return g;
}

std::vector<Case> cases() {
  return {
      // 3x3, pad 1 on every side, output rows wider than a panel.
      {3,
       1,
       6,
       42,
       {0, 0, 1, 1},
       {3, 1, 5, 41},
       window({1, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 4, 40}),
       3},
      // Runs of a panel spanning several short output rows; a channel tail (2 of 5 valid).
      {5,
       1,
       9,
       9,
       {0, 0, 2, 0},
       {2, 1, 9, 7},
       window({1, 3, 3}, {1, 1, 1}, {1, 2, 1}, {1, 5, 7}),
       5},
      // Stride 2 and a dilated 1-D window (the generic path).
      {2,
       1,
       7,
       11,
       {0, 0, 0, 1},
       {2, 1, 6, 11},
       window({1, 3, 2}, {1, 2, 2}, {1, 1, 2}, {1, 3, 4}),
       2},
      {4,
       1,
       1,
       300,
       {0, 0, 0, 2},
       {4, 1, 1, 298},
       window({1, 1, 5}, {1, 1, 1}, {1, 1, 1}, {1, 1, 296}),
       4},
      // Stride 2 (the AVX-512 path's even elements), padded on both sides, rows past a panel.
      {3,
       1,
       9,
       70,
       {0, 0, 1, 1},
       {3, 1, 9, 69},
       window({1, 3, 3}, {1, 2, 2}, {1, 1, 1}, {1, 4, 34}),
       3},
      // A 3-D window.
      {2,
       4,
       5,
       6,
       {0, 1, 0, 1},
       {2, 4, 5, 5},
       window({3, 2, 3}, {1, 1, 1}, {1, 2, 1}, {1, 3, 4}),
       2},
  };
}

// The map's element at box coordinates, or 0 in the padding.
double at(const Tensor& map, const Case& c, int64_t ch, int64_t z, int64_t y, int64_t x) {
  if (ch < c.lo[0] || ch >= c.hi[0] || z < c.lo[1] || z >= c.hi[1] || y < c.lo[2] || y >= c.hi[2] ||
      x < c.lo[3] || x >= c.hi[3])
    return 0;
  return map.at(((ch * c.d + z) * c.h + y) * c.w + x);
}

// Column matrix [k, P] from Im2col's definition.
Tensor columns(const Tensor& map, const Case& c) {
  const Im2col& g = c.g;
  const int64_t np = g.positions();
  Tensor cols(map.dtype(), {c.channels * g.window(), np});
  for (int64_t ch = 0; ch < c.channels; ++ch)
    for (int64_t a = 0; a < g.k[0]; ++a)
      for (int64_t b = 0; b < g.k[1]; ++b)
        for (int64_t e = 0; e < g.k[2]; ++e) {
          const int64_t kk = ((ch * g.k[0] + a) * g.k[1] + b) * g.k[2] + e;
          for (int64_t p = 0; p < np; ++p) {
            const int64_t od = p / (g.out[1] * g.out[2]), oh = p / g.out[2] % g.out[1],
                          ow = p % g.out[2];
            cols.set(kk * np + p, at(map, c, ch, od * g.s[0] + a * g.d[0], oh * g.s[1] + b * g.d[1],
                                     ow * g.s[2] + e * g.d[2]));
          }
        }
  return cols;
}

class Im2colPack : public ::testing::TestWithParam<const char*> {
 protected:
  void TearDown() override { gemm_force_isa(nullptr); }
};

TEST_P(Im2colPack, MatchesPackedColumns) {
  const std::string isa = GetParam();
  if (!isa.empty() && std::string(gemm_force_isa(isa.c_str())) != isa)
    GTEST_SKIP() << "CPU lacks " << isa;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const Case& c : cases()) {
      Tensor map(dt, {c.c, c.d, c.h, c.w});
      for (int64_t i = 0; i < map.numel(); ++i) map.set(i, u(rng));
      // Padding holds garbage: the packing must never read it.
      for (int64_t i = 0; i < map.numel(); ++i) {
        const int64_t x = i % c.w, y = i / c.w % c.h, z = i / (c.w * c.h) % c.d,
                      ch = i / (c.w * c.h * c.d);
        if (at(map, c, ch, z, y, x) == 0) map.set(i, 1e30);
      }
      Im2colSource src;
      src.gm = static_cast<const std::byte*>(map.data());
      const int64_t strides[4] = {c.d * c.h * c.w, c.h * c.w, c.w, 1};
      for (int j = 0; j < 4; ++j)
        src.stride[j] = strides[j], src.lo[j] = c.lo[j], src.hi[j] = c.hi[j];
      const Tensor cols = columns(map, c);
      const int64_t k = c.channels * c.g.window(), np = c.g.positions();
      for (bool a_side : {false, true}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + (a_side ? " A" : " B") + " isa " +
                     gemm_active_isa() + " case " + to_string(Shape{c.c, c.d, c.h, c.w}));
        std::vector<std::byte> got(im2col_packed_bytes(dt, a_side, k, np));
        std::vector<std::byte> want(got.size());
        std::memset(got.data(), 0x5a, got.size());
        im2col_pack(dt, a_side, src, c.g, k, got.data());
        if (a_side)
          gemm_pack_a(dt, cols.data(), 1, np, np, k, want.data());  // [P, k] = cols^T
        else
          gemm_pack_b(dt, cols.data(), np, 1, k, np, want.data());
        ASSERT_EQ(got.size(), want.size());
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size()), 0);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, Im2colPack, ::testing::Values("", "avx2", "generic"),
                         [](const auto& info) {
                           return std::string(*info.param ? info.param : "auto");
                         });

}  // namespace
}  // namespace asc::cpu
