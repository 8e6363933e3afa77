// The dense convolution read from the map's stride-phase planes (mmad_a_panels_planes, im2col.h)
// against a naive convolution of the same box: pads on every side (the padding holds garbage the
// kernel must never read), strides 1-3 in each dim, dilation, a last output row cut short (n
// below the box's positions), channels past the map (zero), weight panels of 1..12 rows (the
// wide kernel of few rows), k spanning several chunks, a weight block larger than L2 (k chunks
// outermost), and accumulation into C.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/im2col.h"
#include "tests/runtime/conv_box.h"

namespace asc::cpu {
namespace {

struct Case {
  int64_t channels, m;  // input channels packed (k = channels * window), output channels
  int64_t k1, k2, s1, s2, d1, d2, oh, ow;
  int64_t lo[3], hi[3];  // valid box region per dim (channel, row, column); the rest is padding
  int64_t cut = 0;       // positions short of oh * ow
  bool accumulate = false;
};

std::string name(const Case& c) {
  return "C " + std::to_string(c.channels) + " M " + std::to_string(c.m) + " k " +
         std::to_string(c.k1) + "x" + std::to_string(c.k2) + " s " + std::to_string(c.s1) + "x" +
         std::to_string(c.s2) + " d " + std::to_string(c.d1) + "x" + std::to_string(c.d2) +
         " out " + std::to_string(c.oh) + "x" + std::to_string(c.ow) + " cut " +
         std::to_string(c.cut) + (c.accumulate ? " acc" : "");
}

void check(const Case& c, bool force = true) {
  SCOPED_TRACE(name(c));
  Im2col g;
  g.k[1] = c.k1, g.k[2] = c.k2, g.s[1] = c.s1, g.s[2] = c.s2, g.d[1] = c.d1, g.d[2] = c.d2;
  g.out[1] = c.oh, g.out[2] = c.ow;
  const int64_t h = g.span(1), w = g.span(2), win = g.window(), k = c.channels * win;
  const int64_t n = c.oh * c.ow - c.cut, ldc = n + 3;
  std::mt19937 rng(static_cast<uint32_t>(k * 31 + n));
  const ConvBox box = make_conv_box(c.channels, c.m, h, w, win, c.lo, c.hi, ldc, rng);

  std::vector<float> got = box.c0;
  ASSERT_TRUE(mmad_a_panels_planes(DType::kF32, box.pa.data(), box.a_stride, box.src, g, got.data(),
                                   ldc, c.m, n, k, c.accumulate, force));
  expect_naive_conv(box, g, got, ldc, n, c.accumulate,
                    [](double want, double) { return 1e-4 * (1 + std::abs(want)); });
}

TEST(ConvPlanes, MatchesANaiveConvolution) {
  if (!gemm_detail::gemm_isa_avx512())
    GTEST_SKIP() << "no AVX-512 on this CPU: the planes path does not exist here";
  std::vector<Case> cases = {
      // resnet's 3x3 pad 1 on 56-wide rows: a top tile (pad above and on both sides), k 576.
      {64, 64, 3, 3, 1, 1, 1, 1, 8, 56, {0, 1, 1}, {64, 10, 57}},
      // a bottom tile with its last row cut short, pad below.
      {16, 30, 3, 3, 1, 1, 1, 1, 5, 28, {0, 0, 1}, {16, 6, 29}, 9},
      // stride 2 both ways, odd sizes, 13 output channels (a panel of one row).
      {33, 13, 3, 3, 2, 2, 1, 1, 6, 13, {0, 1, 1}, {33, 13, 26}},
      // a stem: 7x7 stride 2 over 3 channels, pad 3.
      {3, 16, 7, 7, 2, 2, 1, 1, 4, 23, {0, 3, 3}, {3, 13, 48}},
      // dilation 2, five output channels (the wide kernel), channels past the map.
      {17, 5, 3, 3, 1, 1, 2, 2, 7, 9, {0, 2, 2}, {12, 13, 11}},
      // column stride 3, row stride 1, a 1x5 and a 5x1 window.
      {8, 12, 3, 3, 1, 3, 1, 1, 5, 11, {0, 1, 1}, {8, 6, 32}},
      {20, 7, 1, 5, 1, 1, 1, 1, 1, 40, {0, 0, 2}, {20, 1, 42}},
      {20, 25, 5, 1, 1, 1, 1, 1, 9, 6, {0, 2, 0}, {20, 11, 6}},
      // accumulating, the whole box inside the map, outputs ending 1 past a block.
      {24, 36, 3, 3, 1, 1, 1, 1, 3, 11, {0, 0, 0}, {24, 5, 13}, 0, true},
      // weights of 1.2 MB (past kAInL2Bytes): k chunks outermost, the next chunk streamed.
      {256, 128, 3, 3, 1, 1, 1, 1, 4, 12, {0, 1, 1}, {256, 6, 13}},
  };
  for (const Case& c : cases) check(c);
}

// Unforced, the planes are taken where they cost less than packing, a stem's 27 rows (3x3 over
// three channels, stride 2, 16 or 24 output channels on a wide map) included; a single channel's
// 9 rows still pack.
TEST(ConvPlanes, StemsTakeThePlanes) {
  if (!gemm_detail::gemm_isa_avx512())
    GTEST_SKIP() << "no AVX-512 on this CPU: the planes path does not exist here";
  check({3, 16, 3, 3, 2, 2, 1, 1, 7, 56, {0, 1, 1}, {3, 15, 113}}, false);
  check({3, 24, 3, 3, 2, 2, 1, 1, 4, 111, {0, 0, 0}, {3, 9, 223}}, false);
  Im2col g;
  g.k[1] = g.k[2] = 3, g.s[1] = g.s[2] = 2, g.out[1] = 7, g.out[2] = 56;
  Im2colSource src;
  src.stride[3] = 1;
  src.hi[0] = 1, src.hi[1] = 1, src.hi[2] = 15, src.hi[3] = 113;
  std::vector<float> a(12 * 9), c(16 * 7 * 56);
  EXPECT_FALSE(mmad_a_panels_planes(DType::kF32, a.data(), 12 * 9, src, g, c.data(), 7 * 56, 16,
                                    7 * 56, 9, false, false));
}

// The epilogue applied as C leaves the planes (RowEpilogue): y = act(C + bias) on the rows and
// columns it names, the same floats as C then the chain; nothing of y past them, nor of C,
// written; a NaN bias kept by every activation; nothing taken when accumulating.
TEST(ConvPlanes, TheEpilogueOnTheWayOut) {
  if (!gemm_detail::gemm_isa_avx512())
    GTEST_SKIP() << "no AVX-512 on this CPU: the planes path does not exist here";
  const std::vector<Case> cases = {
      {3, 24, 3, 3, 2, 2, 1, 1, 4, 111, {0, 0, 0}, {3, 9, 223}},      // squeezenet's stem
      {3, 16, 7, 7, 2, 2, 1, 1, 4, 23, {0, 3, 3}, {3, 13, 48}},       // resnet's, pad 3
      {33, 13, 3, 3, 2, 2, 1, 1, 6, 13, {0, 1, 1}, {33, 13, 26}, 5},  // a last row cut short
  };
  for (const Case& c : cases)
    for (RowEpilogue::Act act : {RowEpilogue::kNone, RowEpilogue::kRelu, RowEpilogue::kClip})
      for (bool bias : {false, true}) {
        SCOPED_TRACE(name(c) + " act " + std::to_string(act) + (bias ? " bias" : ""));
        Im2col g;
        g.k[1] = c.k1, g.k[2] = c.k2, g.s[1] = c.s1, g.s[2] = c.s2, g.d[1] = c.d1, g.d[2] = c.d2;
        g.out[1] = c.oh, g.out[2] = c.ow;
        const int64_t win = g.window(), k = c.channels * win;
        const int64_t n = c.oh * c.ow - c.cut, ldc = n + 3;
        std::mt19937 rng(static_cast<uint32_t>(k * 17 + n));
        const ConvBox box =
            make_conv_box(c.channels, c.m, g.span(1), g.span(2), win, c.lo, c.hi, ldc, rng);
        std::vector<float> plain = box.c0;
        ASSERT_TRUE(mmad_a_panels_planes(DType::kF32, box.pa.data(), box.a_stride, box.src, g,
                                         plain.data(), ldc, c.m, n, k, false, true));
        std::vector<float> b(static_cast<size_t>(c.m));
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        for (float& v : b) v = u(rng);
        b[1] = std::nanf("");
        RowEpilogue ep;
        ep.bias = bias ? b.data() : nullptr;
        ep.act = act;
        ep.lo = -0.5f, ep.hi = 0.75f;
        ep.ldy = n + 5;
        ep.rows = c.m - 1;  // the last row and column past the valid region: untouched
        ep.cols = n - 1;
        const float sentinel = -1234.5f;
        std::vector<float> y(static_cast<size_t>(c.m * ep.ldy), sentinel), got = box.c0;
        ep.y = y.data();
        ASSERT_TRUE(mmad_a_panels_planes(DType::kF32, box.pa.data(), box.a_stride, box.src, g,
                                         got.data(), ldc, c.m, n, k, false, true, &ep));
        ASSERT_TRUE(ep.done);
        EXPECT_EQ(got, box.c0);  // C itself not written
        for (int64_t i = 0; i < c.m; ++i)
          for (int64_t j = 0; j < ep.ldy; ++j) {
            const float v = y[static_cast<size_t>(i * ep.ldy + j)];
            if (i >= ep.rows || j >= ep.cols) {
              ASSERT_EQ(v, sentinel) << i << " " << j;
              continue;
            }
            float want = plain[static_cast<size_t>(i * ldc + j)] + (bias ? b[i] : 0.f);
            if (act != RowEpilogue::kNone && want < (act == RowEpilogue::kRelu ? 0.f : ep.lo))
              want = act == RowEpilogue::kRelu ? 0.f : ep.lo;
            if (act == RowEpilogue::kClip && want > ep.hi) want = ep.hi;
            if (std::isnan(want))
              ASSERT_TRUE(std::isnan(v)) << i << " " << j;
            else
              ASSERT_EQ(v, want) << i << " " << j;
          }
        RowEpilogue acc = ep;
        acc.done = false;
        ASSERT_TRUE(mmad_a_panels_planes(DType::kF32, box.pa.data(), box.a_stride, box.src, g,
                                         got.data(), ldc, c.m, n, k, true, true, &acc));
        EXPECT_FALSE(acc.done);  // accumulating: C += the product, as without an epilogue
      }
}

TEST(ConvPlanes, RefusesWhatItDoesNotCover) {
  Im2col g;
  g.k[0] = 2, g.out[1] = 4, g.out[2] = 4;  // a 3-D window
  Im2colSource src;
  src.stride[3] = 1;
  src.hi[0] = src.hi[1] = src.hi[2] = src.hi[3] = 4;
  std::vector<float> a(64), c(64);
  EXPECT_FALSE(
      mmad_a_panels_planes(DType::kF32, a.data(), 12, src, g, c.data(), 16, 1, 16, 2, false, true));
  g.k[0] = 1, g.k[1] = g.k[2] = 3, g.s[2] = 5;  // column stride past 4
  EXPECT_FALSE(
      mmad_a_panels_planes(DType::kF32, a.data(), 12, src, g, c.data(), 16, 1, 16, 9, false, true));
  g.s[2] = 1;  // f16
  EXPECT_FALSE(
      mmad_a_panels_planes(DType::kF16, a.data(), 12, src, g, c.data(), 16, 1, 16, 9, false, true));
  g.k[1] = g.k[2] = 1;  // a 1x1 window: no column matrix to spare
  EXPECT_FALSE(
      mmad_a_panels_planes(DType::kF32, a.data(), 12, src, g, c.data(), 16, 1, 16, 1, false, true));
}

}  // namespace
}  // namespace asc::cpu
