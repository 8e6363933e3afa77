// The 3x3 stride-1 convolution as F(2x2, 3x3) Winograd GEMMs (mmad_a_panels_winograd, im2col.h)
// against a naive convolution of the same box: pads on every side (the padding holds garbage the
// kernel must never read), odd output rows and columns (half-used 2x2 tiles), a last output row
// cut short, channels past the map (zero), output channels past a row block and in a panel of one
// row, tiles spilling over a 32-tile panel, channels not a multiple of 16, accumulation, and new
// weights at the same address in a later run (the transformed filters are kept within a run).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"
#include "runtime/devices/cpu/im2col.h"
#include "tests/runtime/conv_box.h"

namespace asc::cpu {
namespace {

struct Case {
  int64_t channels, m, oh, ow;
  int64_t lo[3], hi[3];  // valid box region per dim (channel, row, column); the rest is padding
  int64_t cut = 0;       // positions short of oh * ow
  bool accumulate = false;
};

std::string name(const Case& c) {
  return "C " + std::to_string(c.channels) + " M " + std::to_string(c.m) + " out " +
         std::to_string(c.oh) + "x" + std::to_string(c.ow) + " cut " + std::to_string(c.cut) +
         (c.accumulate ? " acc" : "");
}

void check(const Case& c) {
  SCOPED_TRACE(name(c));
  Im2col g;
  g.k[1] = g.k[2] = 3;
  g.out[1] = c.oh, g.out[2] = c.ow;
  const int64_t h = g.span(1), w = g.span(2), k = c.channels * 9;
  const int64_t n = c.oh * c.ow - c.cut, ldc = n + 5;
  std::mt19937 rng(static_cast<uint32_t>(k * 17 + n));
  ConvBox box = make_conv_box(c.channels, c.m, h, w, 9, c.lo, c.hi, ldc, rng);

  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) box.draw_weights(rng);  // at the same address, in a new run: no stale filters
    im2col_begin_run();
    std::vector<float> got = box.c0;
    ASSERT_TRUE(mmad_a_panels_winograd(DType::kF32, box.pa.data(), box.a_stride, box.src, g,
                                       got.data(), ldc, c.m, n, k, c.accumulate, true));
    // The transforms reorder the sums: error bound by the sum of the terms' magnitudes.
    expect_naive_conv(box, g, got, ldc, n, c.accumulate,
                      [](double, double magnitude) { return 2e-6 * (1 + magnitude); });
  }
}

TEST(ConvWinograd, MatchesANaiveConvolution) {
  if (!gemm_detail::gemm_isa_avx512())
    GTEST_SKIP() << "no AVX-512 on this CPU: the Winograd path does not exist here";
  std::vector<Case> cases = {
      // resnet's 3x3 pad 1 on 56-wide rows: a top tile (pad above and on both sides).
      {64, 64, 4, 56, {0, 1, 1}, {64, 6, 57}},
      // odd rows and columns, a bottom tile cut short, 13 output channels (a panel of one row).
      {17, 13, 5, 13, {0, 0, 1}, {17, 6, 14}, 9},
      // channels past the map, 50 output channels (three row blocks, the last of two rows),
      // 17 tile columns (a vector and one more) over three 32-tile panels.
      {21, 50, 7, 33, {0, 1, 0}, {12, 9, 34}},
      // filters too large to keep (made a row block at a time): 64 channels, 100 rows.
      {64, 100, 4, 20, {0, 1, 1}, {64, 6, 21}},
      // 130 channels, the whole box inside the map, accumulating.
      {130, 30, 2, 40, {0, 0, 0}, {130, 4, 42}, 0, true},
      // one output row and column past a multiple of 2 everywhere, 1 output channel.
      {16, 1, 3, 9, {0, 1, 1}, {16, 4, 10}},
  };
  for (const Case& c : cases) check(c);
}

TEST(ConvWinograd, RefusesWhatItDoesNotCover) {
  Im2col g;
  g.k[1] = g.k[2] = 3, g.out[1] = 4, g.out[2] = 8;
  std::vector<float> map(16 * 16 * 16), a(4096), c(4096);
  Im2colSource src;
  src.gm = reinterpret_cast<const std::byte*>(map.data());
  src.stride[0] = src.stride[1] = 256, src.stride[2] = 16, src.stride[3] = 1;
  src.hi[0] = src.hi[1] = src.hi[2] = src.hi[3] = 16;
  const auto takes = [&](DType dt, int64_t k) {
    return mmad_a_panels_winograd(dt, a.data(), 12 * k, src, g, c.data(), 32, 1, 32, k, false,
                                  true);
  };
  EXPECT_TRUE(takes(DType::kF32, 18) || !gemm_detail::gemm_isa_avx512());
  EXPECT_FALSE(takes(DType::kF16, 18));
  g.s[2] = 2;  // strided
  EXPECT_FALSE(takes(DType::kF32, 18));
  g.s[2] = 1, g.d[1] = 2;  // dilated
  EXPECT_FALSE(takes(DType::kF32, 18));
  g.d[1] = 1, g.k[2] = 5;  // a 3x5 window
  EXPECT_FALSE(takes(DType::kF32, 30));
  g.k[2] = 3, g.k[0] = 2;  // 3-D
  EXPECT_FALSE(takes(DType::kF32, 36));
  g.k[0] = 1;
  // Without `force`: a 7x7 map's 16 tiles, one output row, or 8 channels stay direct.
  g.out[1] = g.out[2] = 7;
  EXPECT_FALSE(winograd_window(g, 64 * 9));
  g.out[1] = 1, g.out[2] = 80;  // one output row: half of each tile's outputs dropped
  EXPECT_FALSE(winograd_window(g, 64 * 9));
  g.out[1] = g.out[2] = 14;
  EXPECT_FALSE(winograd_window(g, 8 * 9));
  EXPECT_EQ(winograd_window(g, 64 * 9), gemm_detail::gemm_isa_avx512() != nullptr);
}

}  // namespace
}  // namespace asc::cpu
