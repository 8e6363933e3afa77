// The operands of a convolution over one map box, for the tests of the cpu's products that read
// the map (conv_planes_test.cpp, conv_winograd_test.cpp): a map [channels, h, w] whose padding
// (outside [lo, hi) per dim) holds 1e30, which a kernel must never read; seeded weights
// [m, channels * window] and their packed A panels; the Im2colSource; C before the product; and
// the check of C after it against a naive convolution.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu {

struct ConvBox {
  int64_t channels = 0, m = 0, h = 0, w = 0, k = 0, a_stride = 0;
  int64_t lo[3] = {}, hi[3] = {};  // valid region per dim (channel, row, column)
  std::vector<float> map, wt, c0;
  std::vector<std::byte> pa;
  Im2colSource src;

  bool inside(int64_t ch, int64_t y, int64_t x) const {
    return ch >= lo[0] && ch < hi[0] && y >= lo[1] && y < hi[1] && x >= lo[2] && x < hi[2];
  }
  float at(int64_t ch, int64_t y, int64_t x) const {
    return map[static_cast<size_t>((ch * h + y) * w + x)];
  }
  // New weights (same address for the packed panels).
  void draw_weights(std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (float& v : wt) v = u(rng);
    gemm_pack_a(DType::kF32, wt.data(), k, 1, m, k, pa.data());
  }
};

// A box of h x w map positions for a window of `window` taps; C of m rows of ldc floats.
inline ConvBox make_conv_box(int64_t channels, int64_t m, int64_t h, int64_t w, int64_t window,
                             const int64_t (&lo)[3], const int64_t (&hi)[3], int64_t ldc,
                             std::mt19937& rng) {
  ConvBox b;
  b.channels = channels, b.m = m, b.h = h, b.w = w, b.k = channels * window;
  for (int j = 0; j < 3; ++j) b.lo[j] = lo[j], b.hi[j] = hi[j];
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  b.map.resize(static_cast<size_t>(channels * h * w));
  for (int64_t ch = 0; ch < channels; ++ch)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        b.map[static_cast<size_t>((ch * h + y) * w + x)] = b.inside(ch, y, x) ? u(rng) : 1e30f;
  b.wt.resize(static_cast<size_t>(m * b.k));
  b.c0.resize(static_cast<size_t>(m * ldc));
  b.pa.resize(gemm_packed_a_bytes(DType::kF32, m, b.k));
  b.draw_weights(rng);
  for (float& v : b.c0) v = u(rng);
  b.a_stride = gemm_kernel(DType::kF32).mr * b.k;
  b.src.gm = reinterpret_cast<const std::byte*>(b.map.data());
  const int64_t strides[4] = {h * w, h * w, w, 1};
  const int64_t slo[4] = {lo[0], 0, lo[1], lo[2]}, shi[4] = {hi[0], 1, hi[1], hi[2]};
  for (int j = 0; j < 4; ++j)
    b.src.stride[j] = strides[j], b.src.lo[j] = slo[j], b.src.hi[j] = shi[j];
  return b;
}

// C after a product (`got`: box.m rows of ldc floats, n positions over g's output rows) against
// the window's sum in double of box's map and weights, added to C before (accumulate) or to 0;
// positions past n untouched. tol(want, magnitude) is the error allowed, magnitude the sum of
// the terms' absolute values.
template <class Tol>
void expect_naive_conv(const ConvBox& box, const Im2col& g, const std::vector<float>& got,
                       int64_t ldc, int64_t n, bool accumulate, Tol tol) {
  for (int64_t r = 0; r < box.m; ++r)
    for (int64_t p = 0; p < ldc; ++p) {
      const float have = got[static_cast<size_t>(r * ldc + p)];
      const float before = box.c0[static_cast<size_t>(r * ldc + p)];
      if (p >= n) {  // past the tile's positions: untouched
        ASSERT_EQ(have, before) << "row " << r << " column " << p;
        continue;
      }
      const int64_t oy = p / g.out[2], ox = p % g.out[2];
      double want = accumulate ? before : 0.0, magnitude = 0.0;
      for (int64_t ch = 0; ch < box.channels; ++ch)
        for (int64_t b = 0; b < g.k[1]; ++b)
          for (int64_t e = 0; e < g.k[2]; ++e) {
            const int64_t y = oy * g.s[1] + b * g.d[1], x = ox * g.s[2] + e * g.d[2];
            if (!box.inside(ch, y, x)) continue;
            const double t =
                double(box.wt[static_cast<size_t>(r * box.k + (ch * g.k[1] + b) * g.k[2] + e)]) *
                box.at(ch, y, x);
            want += t;
            magnitude += std::abs(t);
          }
      ASSERT_NEAR(have, want, tol(want, magnitude)) << "row " << r << " position " << p;
    }
}

}  // namespace asc::cpu
