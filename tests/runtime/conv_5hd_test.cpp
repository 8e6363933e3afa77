// The 5HD convolution kernel (conv5hd_f32, conv_5hd.h) against a naive convolution in double of
// the NCHW data: 1x1 to 7x7 windows, strides 1 and 2, dilation 2, pads on every side (the box's
// padding lies over other rows' data or guard values the kernel must never read), channels not a
// multiple of 16, output channels not a multiple of the panel, a tile that is a sub-rectangle of
// the output (y_row past its columns), a tile starting at a later panel, channel blocks of the box
// that are padding, K split over two calls, every epilogue form, NaN through Relu and Clip, and
// the padded output lanes coming out zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/devices/cpu/conv_5hd.h"
#include "runtime/devices/cpu/gemm_avx512.h"

namespace asc::cpu {
namespace {

enum class Ep { kNone, kBias, kBiasZRelu, kClip, kZClip, kRelu };
const char* ep_name(Ep e) {
  static const char* names[] = {"none", "bias", "bias+z+relu", "clip", "z+clip", "relu"};
  return names[static_cast<int>(e)];
}

struct Case {
  int64_t c, m, h, w;        // input channels, output channels, map rows and columns
  int64_t k1, k2, s, d;      // window rows and columns, stride and dilation (both dims)
  int64_t pt, pl, pb, pr;    // pads: top, left, bottom, right
  int64_t oh0 = 0, ohn = 0;  // the tile's output rows [oh0, oh0 + ohn) (0: to the end)
  int64_t ow0 = 0, own = 0;  // and columns
  int64_t split = 0;         // c1 blocks of a first call (0: one call)
  bool accumulate = false;
  Ep ep = Ep::kNone;
  int64_t m0 = 0;      // the tile's first output channel (a panel boundary)
  int64_t c1_lo = 0;   // the box's channel blocks below it are padding
  bool nan = false;    // a NaN bias of one channel and a NaN residual at one element
  bool dense = false;  // y's and z's rows without a gap (a 1x1's positions then run as one row)
};

std::string name(const Case& c) {
  auto s = [](int64_t v) { return std::to_string(v); };
  return "C " + s(c.c) + " M " + s(c.m) + " map " + s(c.h) + "x" + s(c.w) + " k " + s(c.k1) + "x" +
         s(c.k2) + " s " + s(c.s) + " d " + s(c.d) + " pad " + s(c.pt) + "," + s(c.pl) + "," +
         s(c.pb) + "," + s(c.pr) + " tile " + s(c.oh0) + "+" + s(c.ohn) + "," + s(c.ow0) + "+" +
         s(c.own) + " split " + s(c.split) + (c.accumulate ? " acc" : "") + " ep " + ep_name(c.ep) +
         " m0 " + s(c.m0) + " c1_lo " + s(c.c1_lo) + (c.nan ? " nan" : "");
}

int64_t up16(int64_t v) {
  return (v + 15) / 16 * 16;
}

double activate(double v, Ep ep) {
  if (std::isnan(v)) return v;
  if (ep == Ep::kBiasZRelu || ep == Ep::kRelu) return std::max(v, 0.0);
  if (ep == Ep::kClip || ep == Ep::kZClip) return std::clamp(v, -0.5, 0.75);
  return v;
}

void check(Case c) {
  SCOPED_TRACE(name(c));
  const int64_t oh_all = (c.h + c.pt + c.pb - (c.k1 - 1) * c.d - 1) / c.s + 1;
  const int64_t ow_all = (c.w + c.pl + c.pr - (c.k2 - 1) * c.d - 1) / c.s + 1;
  ASSERT_GE(oh_all, 1);
  ASSERT_GE(ow_all, 1);
  if (c.ohn == 0) c.ohn = oh_all - c.oh0;
  if (c.own == 0) c.own = ow_all - c.ow0;
  ASSERT_LE(c.oh0 + c.ohn, oh_all);
  ASSERT_LE(c.ow0 + c.own, ow_all);
  const int64_t c1n = (c.c + 15) / 16, m16 = up16(c.m), win = c.k1 * c.k2;
  std::mt19937 rng(static_cast<uint32_t>(c.c * 7919 + c.m * 131 + c.h * 17 + c.w + c.k1 * 3));
  std::uniform_real_distribution<float> u(-1.f, 1.f);

  // The map, NCHW and as 5HD between guards of values the kernel must never read.
  std::vector<float> x(static_cast<size_t>(c.c * c.h * c.w));
  for (float& v : x) v = u(rng);
  const int64_t guard = 16 * (c.w * (c.pt + 1) + c.pl + 16), plane = c.h * c.w * 16;
  std::vector<float> map(static_cast<size_t>(2 * guard + c1n * plane), 1e30f);
  for (int64_t ci = 0; ci < c1n * 16; ++ci)
    for (int64_t i = 0; i < c.h * c.w; ++i)
      map[static_cast<size_t>(guard + ci / 16 * plane + i * 16 + ci % 16)] =
          ci / 16 < c.c1_lo ? 1e30f
          : ci < c.c        ? x[static_cast<size_t>(ci * c.h * c.w + i)]
                            : 0.f;

  // The weight and its packed form.
  std::vector<float> wt(static_cast<size_t>(c.m * c.c * win));
  for (float& v : wt) v = u(rng);
  std::vector<float> packed(static_cast<size_t>(conv5hd_packed_elems(c.m, c.c, win)), 1e30f);
  conv5hd_pack(wt.data(), c.m, c.c, win, packed.data());

  // The tile's box.
  Im2col g;
  g.k[1] = c.k1, g.k[2] = c.k2, g.s[1] = g.s[2] = c.s, g.d[1] = g.d[2] = c.d;
  g.out[1] = c.ohn, g.out[2] = c.own;
  const int64_t r0 = c.oh0 * c.s - c.pt, q0 = c.ow0 * c.s - c.pl;
  Im2colSource src;
  src.gm = reinterpret_cast<const std::byte*>(map.data());
  src.base = guard + (r0 * c.w + q0) * 16;
  const int64_t strides[4] = {plane, plane, c.w * 16, 16};
  const int64_t lo[4] = {c.c1_lo, 0, std::max<int64_t>(0, -r0), std::max<int64_t>(0, -q0)};
  const int64_t hi[4] = {c1n, 1, std::max(lo[2], std::min(g.span(1), c.h - r0)),
                         std::max(lo[3], std::min(g.span(2), c.w - q0))};
  for (int j = 0; j < 4; ++j) src.stride[j] = strides[j], src.lo[j] = lo[j], src.hi[j] = hi[j];

  // y over the whole output (rows one column wider unless dense, blocks apart by a gap), z and
  // bias.
  const int64_t y_row = (ow_all + !c.dense) * 16, y_m1 = oh_all * y_row + 16;
  const int64_t z_row = ow_all * 16 + (c.dense ? 0 : 32), z_m1 = oh_all * z_row + 48;
  std::vector<float> y0(static_cast<size_t>(m16 / 16 * y_m1)),
      z(static_cast<size_t>(m16 / 16 * z_m1));
  std::vector<float> bias(static_cast<size_t>(m16), 0.f);
  for (float& v : y0) v = u(rng);
  for (int64_t j = 0; j < m16; ++j) {
    if (j < c.m) bias[static_cast<size_t>(j)] = u(rng);
    for (int64_t oh = 0; oh < oh_all; ++oh)
      for (int64_t ow = 0; ow < ow_all; ++ow)
        z[static_cast<size_t>(j / 16 * z_m1 + oh * z_row + ow * 16 + j % 16)] =
            j < c.m ? u(rng) : 0.f;
  }
  const int64_t nan_j = c.m0 + 1, nan_z = (c.m0 + 2) / 16 * z_m1 + (c.oh0 + c.ohn / 2) * z_row +
                                          (c.ow0 + c.own / 2) * 16 + (c.m0 + 2) % 16;
  if (c.nan) {
    bias[static_cast<size_t>(nan_j)] = std::numeric_limits<float>::quiet_NaN();
    z[static_cast<size_t>(nan_z)] = std::numeric_limits<float>::quiet_NaN();
  }
  const bool has_bias = c.ep == Ep::kBias || c.ep == Ep::kBiasZRelu || c.ep == Ep::kClip;
  const bool has_z = c.ep == Ep::kBiasZRelu || c.ep == Ep::kZClip;
  Epilogue5hd ep;
  ep.bias = has_bias ? bias.data() + c.m0 : nullptr;
  ep.z = has_z ? z.data() + c.m0 / 16 * z_m1 + c.oh0 * z_row + c.ow0 * 16 : nullptr;
  ep.z_m1 = z_m1, ep.z_row = z_row;
  ep.act = c.ep == Ep::kBiasZRelu || c.ep == Ep::kRelu ? Epilogue5hd::kRelu
           : c.ep == Ep::kClip || c.ep == Ep::kZClip   ? Epilogue5hd::kClip
                                                       : Epilogue5hd::kNone;
  ep.lo = -0.5f, ep.hi = 0.75f;

  std::vector<float> y = y0;
  const int64_t stride = conv5hd_panel_stride(c.c, win);
  const float* wq = packed.data() + c.m0 / kConv5hdPanel * stride;
  float* yt = y.data() + c.m0 / 16 * y_m1 + c.oh0 * y_row + c.ow0 * 16;
  const int64_t mt = m16 - c.m0;
  const Epilogue5hd* epp = c.ep == Ep::kNone ? nullptr : &ep;
  if (c.split > 0) {
    ASSERT_TRUE(conv5hd_f32(src, g, wq, stride, c.c, mt, 0, c.split, yt, y_m1, y_row, c.accumulate,
                            nullptr));
    ASSERT_TRUE(conv5hd_f32(src, g, wq, stride, c.c, mt, c.split, c1n, yt, y_m1, y_row, true, epp));
  } else {
    ASSERT_TRUE(
        conv5hd_f32(src, g, wq, stride, c.c, mt, 0, c1n, yt, y_m1, y_row, c.accumulate, epp));
  }

  int bad = 0;
  for (int64_t j = 0; j < m16; ++j)
    for (int64_t oh = 0; oh < oh_all; ++oh)
      for (int64_t ow = 0; ow < y_row / 16 && bad < 10; ++ow) {
        const size_t at = static_cast<size_t>(j / 16 * y_m1 + oh * y_row + ow * 16 + j % 16);
        const bool in =
            j >= c.m0 && oh >= c.oh0 && oh < c.oh0 + c.ohn && ow >= c.ow0 && ow < c.ow0 + c.own;
        if (!in) {  // outside the tile: untouched
          bad += y[at] != y0[at];
          EXPECT_EQ(y[at], y0[at])
              << "outside the tile: channel " << j << " at " << oh << "," << ow;
          continue;
        }
        double sum = 0, mag = 0;
        for (int64_t ci = c.c1_lo * 16; ci < c.c && j < c.m; ++ci)
          for (int64_t b = 0; b < c.k1; ++b)
            for (int64_t e = 0; e < c.k2; ++e) {
              const int64_t ih = oh * c.s - c.pt + b * c.d, iw = ow * c.s - c.pl + e * c.d;
              if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
              const double t = double{x[static_cast<size_t>((ci * c.h + ih) * c.w + iw)]} *
                               wt[static_cast<size_t>((j * c.c + ci) * win + b * c.k2 + e)];
              sum += t, mag += std::abs(t);
            }
        double want = (c.accumulate ? y0[at] : 0.0) + sum;
        mag += std::abs(want - sum);
        if (epp) {
          const size_t zat = static_cast<size_t>(j / 16 * z_m1 + oh * z_row + ow * 16 + j % 16);
          const double extra =
              (has_bias ? bias[static_cast<size_t>(j)] : 0.0) + (has_z ? z[zat] : 0.0);
          want = activate(want + extra, c.ep);
          if (!std::isnan(extra)) mag += std::abs(extra);
        }
        const float got = y[at];
        if (j >= c.m && !c.accumulate) {  // a padded lane: exactly zero
          bad += got != 0.f;
          EXPECT_EQ(got, 0.f) << "padded channel " << j << " at " << oh << "," << ow;
        } else if (std::isnan(want) || std::isnan(got)) {
          bad += std::isnan(want) != std::isnan(got);
          EXPECT_EQ(std::isnan(want), std::isnan(got))
              << "channel " << j << " at " << oh << "," << ow << ": " << got << " vs " << want;
        } else {
          const double tol = 1e-5 * mag + 1e-6;
          bad += std::abs(got - want) > tol;
          EXPECT_NEAR(got, want, tol) << "channel " << j << " at " << oh << "," << ow;
        }
      }
}

bool have_avx512() {
  return gemm_detail::gemm_isa_avx512() != nullptr;
}

TEST(Conv5hd, MatchesANaiveConvolution) {
  if (!have_avx512()) GTEST_SKIP() << "no AVX-512 on this CPU: conv5hd_f32 declines";
  const std::vector<Case> cases = {
      // 1x1 stride 1 over whole rows (blocks spanning rows), every panel full; y and z dense
      // (one run of blocks), then with gaps after their rows (a block at a time).
      {64, 256, 14,    14,  1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, Ep::kBiasZRelu,
       0,  0,   false, true},
      {64, 256, 14, 14, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, Ep::kBiasZRelu},
      {40, 48, 5, 9, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, true, Ep::kClip, 0, 0, false, true},
      // 1x1 stride 2 (a bottleneck's projection), 80 output channels (panels 64 + 16).
      {32, 80, 15, 15, 1, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, Ep::kBias},
      // 3x3 pad 1, 17 channels (a last block of one lane), 48 outputs (a panel of 3 vectors).
      {17, 48, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, false, Ep::kBiasZRelu},
      // resnet's stem: 7x7 stride 2 pad 3 over 3 channels.
      {3, 64, 33, 35, 7, 7, 2, 1, 3, 3, 3, 3, 0, 0, 0, 0, 0, false, Ep::kBiasZRelu},
      // 5x5 dilation 2, uneven pads.
      {24, 40, 13, 12, 5, 5, 1, 2, 4, 3, 2, 4, 0, 0, 0, 0, 0, false, Ep::kClip},
      // 3x3 stride 2 over wide rows (affine blocks of stride 2 beside border blocks).
      {16, 64, 9, 57, 3, 3, 2, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, false, Ep::kRelu},
      {32, 32, 5, 61, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, false, Ep::kZClip},
      // a tile inside the output (y_row past its columns), accumulating.
      {20, 32, 17, 19, 3, 3, 1, 1, 1, 1, 1, 1, 3, 7, 2, 13, 0, true, Ep::kBias},
      // K split over two calls (3 blocks: 2 then the partial one), plain and accumulating.
      {40, 64, 8, 9, 3, 3, 1, 1, 1, 0, 1, 2, 0, 0, 0, 0, 2, false, Ep::kBiasZRelu},
      {40, 64, 8, 9, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, true, Ep::kClip},
      // a tile of the last panel only (channels 64..80 of 80), and of 128..144 of 136.
      {24, 80, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, false, Ep::kBias, 64},
      {24, 136, 7, 7, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, Ep::kBiasZRelu, 128},
      // the box's first channel block is padding.
      {48, 32, 6, 7, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, false, Ep::kNone, 0, 1},
      // 7x7 maps (resnet's last stage, small): 3x3 pad 1, and a map smaller than the window.
      {64, 128, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1},
      {16, 16, 2, 3, 5, 5, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 0, false, Ep::kRelu},
      // K past one chunk of weight rows held in cache (several chunks, y holding the sums
      // between them): 9 blocks of 3x3 (6 a chunk), the last of 8 lanes; 3 blocks of 5x5 (2 a
      // chunk), accumulating and split over calls too.
      {136, 80, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, false, Ep::kBiasZRelu},
      {136, 64, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, false, Ep::kBiasZRelu},
      {40, 48, 7, 9, 5, 5, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 0, true, Ep::kClip},
      {72, 64, 6, 9, 5, 5, 2, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, true, Ep::kBias},
      // a window entirely in the pads for some outputs (pads wider than the map's reach).
      {16, 16, 3, 3, 3, 3, 1, 1, 3, 3, 3, 3},
  };
  for (const Case& c : cases) check(c);
}

TEST(Conv5hd, SeededRandomShapes) {
  if (!have_avx512()) GTEST_SKIP() << "no AVX-512 on this CPU: conv5hd_f32 declines";
  std::mt19937 rng(20240601);
  auto pick = [&](std::initializer_list<int64_t> v) {
    return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng));
  };
  auto in = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
  for (int i = 0; i < 80; ++i) {
    Case c{};
    c.c = pick({1, 3, 16, 17, 24, 32, 33, 64});
    c.m = pick({16, 24, 48, 64, 80, 96, 136});
    c.k1 = pick({1, 1, 3, 3, 5, 7});
    c.k2 = in(0, 3) == 0 ? pick({1, 3, 5}) : c.k1;
    c.s = in(1, 2), c.d = in(0, 3) == 0 ? 2 : 1;
    c.h = in(1, 23), c.w = in(1, 41);
    c.pt = in(0, c.k1 - 1), c.pb = in(0, c.k1 - 1), c.pl = in(0, c.k2 - 1), c.pr = in(0, c.k2 - 1);
    c.dense = in(0, 1) == 0;
    if (c.dense && in(0, 1) == 0) c.k1 = c.k2 = 1, c.pt = c.pb = c.pl = c.pr = 0;  // a 1x1 run
    const int64_t oh = (c.h + c.pt + c.pb - (c.k1 - 1) * c.d - 1) / c.s + 1;
    const int64_t ow = (c.w + c.pl + c.pr - (c.k2 - 1) * c.d - 1) / c.s + 1;
    if (c.h + c.pt + c.pb < (c.k1 - 1) * c.d + 1 || c.w + c.pl + c.pr < (c.k2 - 1) * c.d + 1) {
      --i;
      continue;
    }
    if (in(0, 2) == 0) {
      c.oh0 = in(0, oh - 1), c.ohn = in(1, oh - c.oh0);
      c.ow0 = in(0, ow - 1), c.own = in(1, ow - c.ow0);
    }
    const int64_t c1n = (c.c + 15) / 16;
    c.split = c1n > 1 && in(0, 2) == 0 ? in(1, c1n - 1) : 0;
    c.accumulate = in(0, 3) == 0;
    c.ep = static_cast<Ep>(in(0, 5));
    c.m0 = in(0, 3) == 0 ? in(0, (up16(c.m) - 1) / kConv5hdPanel) * kConv5hdPanel : 0;
    check(c);
  }
}

// NaN from the bias of one channel and from one residual element stays NaN through Relu and
// Clip (compare-and-blend, not max/min that would replace it).
TEST(Conv5hd, NanPassesThroughReluAndClip) {
  if (!have_avx512()) GTEST_SKIP() << "no AVX-512 on this CPU: conv5hd_f32 declines";
  for (Ep e : {Ep::kBiasZRelu, Ep::kClip, Ep::kZClip})
    for (int64_t k : {1, 3}) {
      Case c{24, 48, 6, 9, k, k, 1, 1, k / 2, k / 2, k / 2, k / 2};
      c.ep = e, c.nan = true;
      check(c);
    }
}

// Depth above one and channel counts off the vector decline, doing nothing.
TEST(Conv5hd, DeclinesWhatItDoesNotRun) {
  Im2colSource src;
  Im2col g;
  float y = 1.f, w = 0.f;
  g.k[0] = 2;
  EXPECT_FALSE(conv5hd_f32(src, g, &w, 16, 16, 16, 0, 1, &y, 16, 16, false, nullptr));
  g.k[0] = 1;
  EXPECT_FALSE(conv5hd_f32(src, g, &w, 16, 16, 24, 0, 1, &y, 16, 16, false, nullptr));
  EXPECT_EQ(y, 1.f);
}

}  // namespace
}  // namespace asc::cpu
