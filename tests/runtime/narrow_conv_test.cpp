// Convolutions whose product has only a few columns — a 1x1 conv on a 1x1 map (squeeze and
// excitation), a map of two to five positions — read B as it lies against the packed weight
// panels (gemm_mmad_a_panels_narrow) instead of packing it into a 32-column panel. Results
// against a naive convolution over channel counts that are not multiples of the panel, with and
// without bias and activation, on AVX-512 and with the generic kernels (avx2).
#include <gtest/gtest.h>

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

// y[m, p] = relu?(b[m] + sum over c of w[m, c] * x[c, p]) for a 1x1 conv on [1, C, 1, P].
Tensor naive(const Tensor& x, const Tensor& w, const Tensor& b, int64_t c, int64_t m, int64_t p,
             bool relu) {
  Tensor y(DType::kF32, {1, m, 1, p});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < p; ++j) {
      double acc = b.at(i);
      for (int64_t k = 0; k < c; ++k) acc += w.at(i * c + k) * x.at(k * p + j);
      y.set(i * p + j, relu && acc < 0 ? 0.0 : acc);
    }
  return y;
}

void check(int64_t c, int64_t m, int64_t p, bool relu, const char* isa) {
  SCOPED_TRACE(std::string(isa) + " C " + std::to_string(c) + " M " + std::to_string(m) + " P " +
               std::to_string(p) + (relu ? " relu" : ""));
  Builder bl;
  const int x = bl.input("x", {1, c, 1, p});
  const Tensor w = random({m, c, 1, 1}, 5), b = random({m}, 6);
  int y = bl.op("Conv", "conv", {x, bl.constant("w", w), bl.constant("b", b)}, {});
  if (relu) y = bl.op("Relu", "relu", {y}, {});
  bl.g.outputs = {y};
  Graph g = bl.g;
  fuse(g);
  ASSERT_EQ(pack_conv_weights(g), 1);
  const Tensor xt = random({1, c, 1, p}, 7);
  ModelOptions o;
  o.threads = 2;
  const auto out = Model(bl.g, o).run({{"x", xt}});
  const Tensor want = naive(xt, w, b, c, m, p, relu);
  ASSERT_EQ(out[0].tensor.numel(), want.numel());
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(out[0].tensor.at(i), want.at(i), 1e-4) << "element " << i;
}

TEST(NarrowConv, MatchesANaiveConvolution) {
  for (const char* isa : {"auto", "avx2"}) {
    if (std::string(isa) != "auto") cpu::gemm_force_isa(isa);
    for (int64_t p : {1, 2, 3, 4, 5})
      for (auto [c, m] : {std::pair<int64_t, int64_t>{960, 240}, {37, 13}, {5, 1}, {240, 961}})
        check(c, m, p, p % 2 == 1, isa);
    cpu::gemm_force_isa(nullptr);
  }
}

}  // namespace
}  // namespace asc
