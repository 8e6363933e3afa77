// The depthwise product read from the feature map (mmad_a_panels_diag_map, im2col.h) on windows
// the model tests' tilings never produce: past the lanes' 16384 positions, so the stride-phase
// planes run with a column stride (and a row stride), pads on every side holding garbage the
// kernel must never read, against a naive depthwise convolution of the box.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu {
namespace {

struct Case {
  int64_t m, k1, k2, s1, s2, oh, ow;
  int64_t lo[2], hi[2];  // valid rows and columns of the box; the rest is padding
};

void check(const Case& c) {
  SCOPED_TRACE("m " + std::to_string(c.m) + " k " + std::to_string(c.k1) + "x" +
               std::to_string(c.k2) + " s " + std::to_string(c.s1) + "x" + std::to_string(c.s2) +
               " out " + std::to_string(c.oh) + "x" + std::to_string(c.ow));
  Im2col g;
  g.k[1] = c.k1, g.k[2] = c.k2, g.s[1] = c.s1, g.s[2] = c.s2, g.out[1] = c.oh, g.out[2] = c.ow;
  const int64_t h = g.span(1), w = g.span(2), win = g.window(), k = c.m * win;
  const int64_t n = c.oh * c.ow;
  std::mt19937 rng(static_cast<uint32_t>(n + c.m));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const auto inside = [&](int64_t y, int64_t x) {
    return y >= c.lo[0] && y < c.hi[0] && x >= c.lo[1] && x < c.hi[1];
  };
  std::vector<float> map(static_cast<size_t>(c.m * h * w));
  for (int64_t ch = 0; ch < c.m; ++ch)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        map[static_cast<size_t>((ch * h + y) * w + x)] = inside(y, x) ? u(rng) : 1e30f;
  // W block diagonal: row r holds channel r's taps in columns [r win, (r + 1) win).
  std::vector<float> taps(static_cast<size_t>(k)), wt(static_cast<size_t>(c.m * k), 0.f);
  for (float& v : taps) v = u(rng);
  for (int64_t r = 0; r < c.m; ++r)
    for (int64_t t = 0; t < win; ++t)
      wt[static_cast<size_t>(r * k + r * win + t)] = taps[static_cast<size_t>(r * win + t)];
  std::vector<std::byte> pa(gemm_packed_a_bytes(DType::kF32, c.m, k));
  gemm_pack_a(DType::kF32, wt.data(), k, 1, c.m, k, pa.data());

  Im2colSource src;
  src.gm = reinterpret_cast<const std::byte*>(map.data());
  const int64_t strides[4] = {h * w, h * w, w, 1};
  const int64_t lo[4] = {0, 0, c.lo[0], c.lo[1]}, hi[4] = {c.m, 1, c.hi[0], c.hi[1]};
  for (int j = 0; j < 4; ++j) src.stride[j] = strides[j], src.lo[j] = lo[j], src.hi[j] = hi[j];
  std::vector<float> got(static_cast<size_t>(c.m * n), -7.f);
  ASSERT_TRUE(mmad_a_panels_diag_map(DType::kF32, pa.data(), gemm_kernel(DType::kF32).mr * k, src,
                                     g, got.data(), n, c.m, n, k, false));
  for (int64_t r = 0; r < c.m; ++r)
    for (int64_t p = 0; p < n; ++p) {
      const int64_t oy = p / c.ow, ox = p % c.ow;
      double want = 0;
      for (int64_t b = 0; b < c.k1; ++b)
        for (int64_t e = 0; e < c.k2; ++e) {
          const int64_t y = oy * c.s1 + b, x = ox * c.s2 + e;
          if (inside(y, x))
            want += double(taps[static_cast<size_t>(r * win + b * c.k2 + e)]) *
                    map[static_cast<size_t>((r * h + y) * w + x)];
        }
      ASSERT_NEAR(got[static_cast<size_t>(r * n + p)], want, 1e-4 * (1 + std::abs(want)))
          << "channel " << r << " position " << p;
    }
}

TEST(DepthwiseMap, WindowsPastTheLanesTakeThePlanes) {
  if (!gemm_detail::gemm_isa_avx512()) GTEST_SKIP() << "no AVX-512: the map forms do not exist";
  check({12, 3, 3, 2, 2, 65, 65, {1, 1}, {130, 130}});  // 131 x 131 window, stride 2 both ways
  check({8, 3, 5, 1, 3, 120, 45, {1, 2}, {121, 136}});  // 122 x 137, column stride 3
}

}  // namespace
}  // namespace asc::cpu
