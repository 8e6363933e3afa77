// MaxPool / AveragePool windows on the cpu: a copy-in read only by the accumulate after it is one
// pass (box_accumulate, stride-2 rows with AVX-512 permutes), and a tile's window offsets run in
// one pass over the region they all cover, then each offset's padded rim (box_accumulate_taps;
// max windows of several rows and columns run separably, box_taps.cpp, pool_taps_test.cpp).
// Results against a naive pool over strides 1-3, pads, dilations and maps narrower and wider than a
// vector and than the 64 columns kept in registers, with the AVX-512 rows and with the scalar ones
// (avx2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
  int64_t c, h, w, k, s, pad, dil;
  bool max;
};

int64_t out_dim(int64_t in, const Case& p) {
  return (in + 2 * p.pad - p.dil * (p.k - 1) - 1) / p.s + 1;
}

// y[c, i, j] = max / mean over the k x k window (dilated) of x inside the map; the average counts
// the padding (count_include_pad = 1).
Tensor naive(const Tensor& x, const Case& p) {
  const int64_t oh = out_dim(p.h, p), ow = out_dim(p.w, p);
  Tensor y(DType::kF32, {1, p.c, oh, ow});
  for (int64_t c = 0; c < p.c; ++c)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double acc = p.max ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t a = 0; a < p.k; ++a)
          for (int64_t b = 0; b < p.k; ++b) {
            const int64_t ih = i * p.s + a * p.dil - p.pad, iw = j * p.s + b * p.dil - p.pad;
            if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
            const double v = x.at((c * p.h + ih) * p.w + iw);
            acc = p.max ? std::max(acc, v) : acc + v;
          }
        y.set((c * oh + i) * ow + j, p.max ? acc : acc / static_cast<double>(p.k * p.k));
      }
  return y;
}

void check(const Case& p, const char* isa) {
  SCOPED_TRACE(std::string(isa) + (p.max ? " MaxPool" : " AveragePool") + " " +
               std::to_string(p.h) + "x" + std::to_string(p.w) + " k" + std::to_string(p.k) + " s" +
               std::to_string(p.s) + " pad" + std::to_string(p.pad) + " dil" +
               std::to_string(p.dil));
  Builder b;
  const int x = b.input("x", {1, p.c, p.h, p.w});
  Attrs a{{"kernel_shape", V{p.k, p.k}},
          {"strides", V{p.s, p.s}},
          {"pads", V{p.pad, p.pad, p.pad, p.pad}}};
  if (p.max)
    a.set("dilations", V{p.dil, p.dil});
  else
    a.set("count_include_pad", int64_t{1});
  b.g.outputs = {b.op(p.max ? "MaxPool" : "AveragePool", "pool", {x}, a)};
  const Tensor xt = random({1, p.c, p.h, p.w}, 3);
  ModelOptions o;
  o.threads = 2;
  const auto y = Model(b.g, o).run({{"x", xt}});
  const Tensor want = naive(xt, p);
  ASSERT_EQ(y[0].tensor.numel(), want.numel());
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(y[0].tensor.at(i), want.at(i), 1e-5) << "element " << i;
}

TEST(PoolPass, MatchesANaivePool) {
  const std::vector<Case> cases = {
      {5, 37, 37, 3, 2, 1, 1, true},   {4, 9, 40, 3, 2, 0, 1, true},
      {3, 12, 12, 2, 2, 0, 1, true},   {6, 17, 33, 3, 1, 1, 1, true},
      {2, 20, 21, 3, 3, 1, 1, true},   {3, 15, 15, 3, 2, 2, 2, true},
      {4, 14, 14, 3, 1, 1, 1, false},  {3, 19, 35, 3, 2, 1, 1, false},
      {2, 8, 8, 5, 1, 2, 1, false},    {3, 9, 201, 3, 2, 0, 1, true},
      {2, 11, 150, 3, 1, 0, 1, false}, {4, 27, 27, 3, 2, 0, 1, true},
  };
  for (const char* isa : {"auto", "avx2"}) {
    if (std::string(isa) != "auto") cpu::gemm_force_isa(isa);
    for (const Case& p : cases) check(p, isa);
    cpu::gemm_force_isa(nullptr);
  }
}

}  // namespace
}  // namespace asc
