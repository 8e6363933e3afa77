// Depthwise convolutions packed as block-diagonal groups (pack_conv_weights) run a mmad told where
// W's zeros are (FusedConv `diag`); the cpu then reads each channel's taps from the feature map
// (AVX-512: small 2-D maps with the channels in the vector lanes, others channel by channel; the
// weights from the compact copy of the taps after each panel's K, FusedConv `tail`) or skips the
// zero products (other ISAs). Results against a naive depthwise conv over
// 1-D, 2-D and 3-D maps, strides, dilations, asymmetric pads, maps wider than a vector, batches;
// and a NaN in one channel stays in that channel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/fusion.h"
#include "runtime/model.h"
#include "runtime/weight_pack.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::Builder;
using test::random;
using V = std::vector<int64_t>;

struct Case {
  V spatial, kernel, strides, dilations, pads;  // pads: begins then ends
  int64_t batch = 1;
};

// y[n, c, o...] = b[c] + sum over taps of w[c, 0, t...] * x[n, c, o * s + t * d - pad] (0 outside).
Tensor naive(const Tensor& x, const Tensor& w, const Tensor& b, const Case& k, const Shape& ys) {
  const int64_t r = static_cast<int64_t>(k.spatial.size()), c = x.shape()[1];
  Tensor y(DType::kF32, ys);
  V in(3, 1), out(3, 1), ker(3, 1), s(3, 1), d(3, 1), pb(3, 0);
  for (int64_t j = 0; j < r; ++j) {
    in[3 - r + j] = k.spatial[j];
    out[3 - r + j] = ys[2 + j];
    ker[3 - r + j] = k.kernel[j];
    s[3 - r + j] = k.strides[j];
    d[3 - r + j] = k.dilations[j];
    pb[3 - r + j] = k.pads[j];
  }
  const int64_t plane = in[0] * in[1] * in[2], oplane = out[0] * out[1] * out[2];
  for (int64_t n = 0; n < k.batch; ++n)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t o = 0; o < oplane; ++o) {
        const int64_t o0 = o / (out[1] * out[2]), o1 = o / out[2] % out[1], o2 = o % out[2];
        double acc = b.at(ch);
        for (int64_t t0 = 0; t0 < ker[0]; ++t0)
          for (int64_t t1 = 0; t1 < ker[1]; ++t1)
            for (int64_t t2 = 0; t2 < ker[2]; ++t2) {
              const int64_t i0 = o0 * s[0] + t0 * d[0] - pb[0], i1 = o1 * s[1] + t1 * d[1] - pb[1],
                            i2 = o2 * s[2] + t2 * d[2] - pb[2];
              if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2]) continue;
              acc += w.at((ch * ker[0] + t0) * ker[1] * ker[2] + t1 * ker[2] + t2) *
                     x.at((n * c + ch) * plane + (i0 * in[1] + i1) * in[2] + i2);
            }
        y.set((n * c + ch) * oplane + o, acc);
      }
  return y;
}

Graph depthwise(int64_t c, const Case& k, uint32_t seed) {
  Builder b;
  V xs{k.batch, c}, ws{c, 1};
  xs.insert(xs.end(), k.spatial.begin(), k.spatial.end());
  ws.insert(ws.end(), k.kernel.begin(), k.kernel.end());
  const int x = b.input("x", xs);
  b.g.outputs = {
      b.op("Conv", "conv",
           {x, b.constant("w", random(ws, seed)), b.constant("b", random({c}, seed + 1))},
           {{"group", c}, {"strides", k.strides}, {"dilations", k.dilations}, {"pads", k.pads}})};
  return b.g;
}

void check(const Case& k, const char* isa, int64_t c = 2 * cpu::gemm_kernel(DType::kF32).mr) {
  SCOPED_TRACE(std::string(isa) + " c " + std::to_string(c) + " spatial " +
               std::to_string(k.spatial.size()) + "-D, first " + std::to_string(k.spatial[0]));
  const Graph orig = depthwise(c, k, 7);
  Graph g = orig;
  fuse(g);
  ASSERT_EQ(pack_conv_weights(g), 1);
  EXPECT_EQ(g.nodes[0].attrs.i("diag", 0), 1);
  V xs{k.batch, c};
  xs.insert(xs.end(), k.spatial.begin(), k.spatial.end());
  const Tensor x = random(xs, 3);
  ModelOptions o;
  o.threads = 2;
  const auto y = Model(orig, o).run({{"x", x}});
  const Tensor want = naive(x, *orig.values[orig.nodes[0].inputs[1]].constant,
                            *orig.values[orig.nodes[0].inputs[2]].constant, k, y[0].tensor.shape());
  ASSERT_EQ(y[0].tensor.numel(), want.numel());
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(y[0].tensor.at(i), want.at(i), 1e-5) << "element " << i;
}

TEST(DepthwiseDiag, MatchesANaiveDepthwiseConv) {
  const std::vector<Case> cases = {
      {{9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{14, 14}, {5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}},
      {{7, 7}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, 2},
      {{11, 40}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},  // rows of three vectors
      {{10, 37}, {3, 5}, {2, 3}, {2, 1}, {0, 3, 2, 1}},  // stride 3, dilation, uneven pads
      {{6, 21}, {2, 3}, {1, 2}, {1, 3}, {1, 0, 0, 2}},   // stride 2 past a vector
      {{5, 30}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},   // channels in lanes, 2 column blocks
      {{30, 45}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 0, 1}},  // lanes: a wide strided window
      {{28, 26}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}},  // lanes: a wide window of 25 taps
      {{24, 60}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},  // a wide stride-1 3x3: the planes
      {{53}, {7}, {1}, {1}, {3, 3}},                     // 1-D
      {{4, 5, 6}, {3, 3, 3}, {1, 2, 1}, {1, 1, 2}, {1, 1, 2, 1, 0, 2}},  // 3-D
  };
  for (const Case& k : cases) {
    check(k, "auto");
    cpu::gemm_force_isa("avx2");  // the zero products skipped without the map read
    check(k, "avx2");
    cpu::gemm_force_isa(nullptr);
  }
}

// On small maps a block is the divisor of C that fills the 16 vector lanes best (the larger on a
// tie) with at least 8 blocks, its column matrix and weight within L0; elsewhere (or with no L0
// given) micro-kernel panels. Results as above (the model packs for its own device's L0).
TEST(DepthwiseDiag, BlocksFillTheLanesOnSmallMaps) {
  const int64_t mr = cpu::gemm_kernel(DType::kF32).mr;
  const Case k5{{7, 7}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}};
  const Case k3{{14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  const auto group = [&](int64_t c, const Case& k, int64_t l0) {
    Graph g = depthwise(c, k, 5);
    fuse(g);
    EXPECT_EQ(pack_conv_weights(g, l0), 1);
    EXPECT_EQ(g.nodes[0].attrs.i("diag", 0), 1);
    return g.nodes[0].attrs.i("group");
  };
  const int64_t cols5 = 25 * 49 * 4;                    // a channel's column matrix over 7x7
  EXPECT_EQ(group(768, k5, int64_t{1} << 30), 8);       // 96 channels: 768 / 8
  EXPECT_EQ(group(768, k5, 48 * cols5), 16);            // 48: the largest that fits
  EXPECT_EQ(group(768, k5, 48 * 48 * 100 - 1), 24);     // the weight of 48 does not: 32
  EXPECT_EQ(group(200, k3, int64_t{1} << 30), 8);       // 25 channels fill 25 of 32 lanes
  EXPECT_EQ(group(200, k3, 0), 200 / 8);                // unknown L0: panels (8 divides 200)
  EXPECT_EQ(group(48, k3, int64_t{1} << 30), 48 / mr);  // 48 / 8 < 8 blocks of 8: panels
  for (const auto& [c, k] :
       {std::pair{int64_t{768}, k5}, std::pair{int64_t{200}, k3},
        std::pair{int64_t{200}, Case{{14, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}}}}) {
    check(k, "auto", c);
    cpu::gemm_force_isa("avx2");
    check(k, "avx2", c);
    cpu::gemm_force_isa(nullptr);
  }
}

// 16 channels on a large map are one block (all 16 lanes busy), not two of 8; results as above,
// a strided window (the lanes) and a stride-1 one (the planes).
TEST(DepthwiseDiag, SixteenChannelsAreOneBlock) {
  const Case s2{{40, 52}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}};
  const Case s1{{36, 50}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  for (const Case& k : {s2, s1}) {
    Graph g = depthwise(16, k, 5);
    fuse(g);
    ASSERT_EQ(pack_conv_weights(g), 1);
    EXPECT_EQ(g.nodes[0].attrs.i("diag", 0), 1);
    EXPECT_EQ(g.nodes[0].attrs.i("group"), 1);
    check(k, "auto", 16);
  }
}

// A NaN in channel 0's map: the other channels of its block-diagonal group are untouched (the
// whole-block product would have multiplied it by their zeros).
TEST(DepthwiseDiag, ANaNStaysInItsChannel) {
  const int64_t c = 2 * cpu::gemm_kernel(DType::kF32).mr;
  const Case k{{8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  const Graph g = depthwise(c, k, 11);
  Tensor x = random({1, c, 8, 8}, 5), clean = random({1, c, 8, 8}, 5);  // (handles: two)
  for (int64_t i = 0; i < 64; ++i) {
    x.set(i, std::nan(""));
    clean.set(i, 0.0);
  }
  const Model m(g, ModelOptions{});
  const auto y = m.run({{"x", x}}), z = m.run({{"x", clean}});
  for (int64_t i = 0; i < y[0].tensor.numel(); ++i) {
    if (i < 64)
      EXPECT_TRUE(std::isnan(y[0].tensor.at(i))) << i;
    else
      ASSERT_EQ(y[0].tensor.at(i), z[0].tensor.at(i)) << i;
  }
}

// An infinity in the map gives infinities (never NaN) where a window reads it with a nonzero
// weight, finite values elsewhere; 3x3 and 5x5 windows (taps not a multiple of four).
TEST(DepthwiseDiag, AnInfinityStaysAnInfinity) {
  const int64_t c = 2 * cpu::gemm_kernel(DType::kF32).mr;
  for (const Case& k : {Case{{9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
                        Case{{12, 12}, {5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}}}) {
    const Graph g = depthwise(c, k, 13);
    Tensor x = random({1, c, k.spatial[0], k.spatial[1]}, 9);
    const int64_t plane = k.spatial[0] * k.spatial[1];
    x.set(plane + 4 * k.spatial[1] + 4, std::numeric_limits<double>::infinity());  // channel 1
    const auto y = Model(g, ModelOptions{}).run({{"x", x}});
    const Tensor want = naive(x, *g.values[g.nodes[0].inputs[1]].constant,
                              *g.values[g.nodes[0].inputs[2]].constant, k, y[0].tensor.shape());
    int infinite = 0;
    for (int64_t i = 0; i < want.numel(); ++i) {
      if (std::isinf(want.at(i))) {
        ++infinite;
        ASSERT_EQ(y[0].tensor.at(i), want.at(i)) << i;
      } else {
        ASSERT_NEAR(y[0].tensor.at(i), want.at(i), 1e-5) << i;
      }
    }
    EXPECT_GT(infinite, 0);
  }
}

}  // namespace
}  // namespace asc
