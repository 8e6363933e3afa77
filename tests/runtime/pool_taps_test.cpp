// MaxPool windows on the cpu device's separable path (box_taps.cpp: rows combined over the span
// their columns cover, then the column taps, or both in one pass with the combined rows in
// registers for up to kFusedTaps contiguous column taps): padding at either end of both dims,
// strides 1 to 3, dilations, ceil mode, kernels of 2 to 5 rows and columns, rows shorter and longer
// than a vector, and tiles split by channels and rows (several tilings through `threads`). Results
// against a naive max over the window, exactly (a max rounds nothing), with the AVX-512 kernels
// and with the scalar passes (avx2 forced).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/model.h"
#include "tests/runtime/fusion_util.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::Builder;
using test::random;
using V = std::vector<int64_t>;

struct Case {
  int64_t c, h, w, kh, kw, s, d;
  V pads;  // top, left, bottom, right
  bool ceil;
};

int64_t out_dim(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, bool ceil) {
  const int64_t span = in + pb + pe - d * (k - 1) - 1;
  int64_t o = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (o - 1) * s >= in + pb) --o;  // the last window must start inside X or its pads
  return o;
}

void check(const Case& t, int threads, const char* isa) {
  SCOPED_TRACE(std::string(isa) + " C " + std::to_string(t.c) + " HxW " + std::to_string(t.h) +
               "x" + std::to_string(t.w) + " k " + std::to_string(t.kh) + "x" +
               std::to_string(t.kw) + " s " + std::to_string(t.s) + " d " + std::to_string(t.d) +
               (t.ceil ? " ceil" : "") + " threads " + std::to_string(threads));
  const int64_t oh = out_dim(t.h, t.kh, t.s, t.d, t.pads[0], t.pads[2], t.ceil);
  const int64_t ow = out_dim(t.w, t.kw, t.s, t.d, t.pads[1], t.pads[3], t.ceil);
  Builder bl;
  const int x = bl.input("x", {1, t.c, t.h, t.w});
  const Attrs a{{"kernel_shape", V{t.kh, t.kw}},
                {"strides", V{t.s, t.s}},
                {"pads", t.pads},
                {"dilations", V{t.d, t.d}},
                {"ceil_mode", int64_t{t.ceil}}};
  bl.g.outputs = {bl.op("MaxPool", "pool", {x}, a)};
  const Tensor xt = random({1, t.c, t.h, t.w}, 11, -4.f, 4.f);
  ModelOptions o;
  o.threads = threads;
  const auto out = Model(bl.g, o).run({{"x", xt}});
  ASSERT_EQ(out[0].tensor.shape(), Shape({1, t.c, oh, ow}));
  for (int64_t c = 0; c < t.c; ++c)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double want = -std::numeric_limits<double>::infinity();
        for (int64_t p = 0; p < t.kh; ++p)
          for (int64_t q = 0; q < t.kw; ++q) {
            const int64_t ih = i * t.s - t.pads[0] + p * t.d, iw = j * t.s - t.pads[1] + q * t.d;
            if (ih >= 0 && ih < t.h && iw >= 0 && iw < t.w)
              want = std::max(want, xt.at((c * t.h + ih) * t.w + iw));
          }
        const int64_t at = (c * oh + i) * ow + j;
        ASSERT_EQ(out[0].tensor.at(at), want) << "channel " << c << " row " << i << " col " << j;
      }
}

TEST(PoolTaps, MaxPoolMatchesANaiveMax) {
  const std::vector<Case> cases = {
      {8, 112, 112, 3, 3, 2, 1, {1, 1, 1, 1}, false},  // ResNet's stem pool
      {6, 55, 55, 3, 3, 2, 1, {0, 0, 0, 0}, true},     // SqueezeNet's: ceil, pads at the end
      {3, 13, 13, 3, 3, 2, 1, {0, 0, 0, 0}, true},     // rows shorter than a vector
      {4, 19, 40, 5, 5, 1, 1, {2, 2, 2, 2}, false},    // stride 1, "same"
      {3, 21, 70, 2, 3, 1, 2, {1, 2, 0, 1}, false},    // dilations, uneven pads
      {5, 17, 50, 3, 4, 3, 1, {1, 0, 2, 3}, true},     // stride 3: box by box
      {2, 9, 33, 4, 2, 2, 1, {0, 1, 1, 0}, false},     // two column taps
      {7, 30, 129, 3, 3, 2, 1, {1, 1, 1, 1}, false},   // long rows with vector tails
      {3, 20, 47, 3, 7, 1, 1, {1, 3, 1, 3}, false},    // one pass: 7 lane shifts
      {2, 12, 40, 2, 8, 1, 1, {0, 0, 0, 0}, false},    // one pass: 8 taps, stride 1
      {3, 23, 61, 3, 5, 2, 1, {1, 2, 1, 2}, true},     // one pass: even and odd lanes shifted
      {2, 15, 66, 2, 8, 2, 1, {0, 3, 0, 4}, false},    // one pass: 8 taps, stride 2
      {2, 11, 37, 2, 9, 2, 1, {0, 4, 0, 4}, false},    // 9 taps: rows, then the column taps
      {4, 20, 70, 2, 2, 2, 1, {0, 0, 0, 0}, false},    // one pass: 2x2/2, no chunk carried on
      {3, 18, 50, 2, 3, 1, 1, {0, 1, 1, 1}, false},    // one pass: 2 rows of 3 taps, stride 1
  };
  for (const char* isa : {"auto", "avx2"}) {
    if (std::string(isa) != "auto") cpu::gemm_force_isa(isa);
    for (const Case& t : cases)
      for (int threads : {1, 2}) check(t, threads, isa);
    cpu::gemm_force_isa(nullptr);
  }
}

}  // namespace
}  // namespace asc
