// Dense convolutions against pre-packed weights whose column matrix (a pointwise conv's: X's rows)
// is made one k chunk of one panel at a time inside the product (mmad_a_panels_im2col,
// gemm_mmad_a_panels_b_rows): channel counts that span several k
// chunks, output widths whose last panel ends 1..15 columns past a multiple of 16 (the tail
// columns run on their own kernel), strides 1 and 2 (a strided pointwise conv's matrix kept
// across output-channel tiles and k chunks), pads, dilation, output channels that are
// not a multiple of the weight panel. Results against a naive convolution, on AVX-512 and with
// the avx2 kernels (which pack the whole matrix). The epilogues after the product: bias + relu,
// bias + residual + relu (vec_epilogue_f32's form), and a scale and shift after the relu
// (vec_chain_f32's).
#include <gtest/gtest.h>

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
  int64_t c, m, h, w, k, s, pad, d;
};

enum class Epilogue { kRelu, kResidual, kPostAffine };
constexpr float kScale = 1.5f, kShift = 0.25f;

int64_t out_dim(int64_t in, const Case& t) {
  return (in + 2 * t.pad - t.d * (t.k - 1) - 1) / t.s + 1;
}

// y = relu(b + conv(x, w) [+ z]) [* kScale + kShift] for one image.
Tensor naive(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& z, Epilogue e,
             const Case& t) {
  const int64_t oh = out_dim(t.h, t), ow = out_dim(t.w, t);
  Tensor y(DType::kF32, {1, t.m, oh, ow});
  for (int64_t m = 0; m < t.m; ++m)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double acc = b.at(m);
        for (int64_t c = 0; c < t.c; ++c)
          for (int64_t a = 0; a < t.k; ++a)
            for (int64_t e = 0; e < t.k; ++e) {
              const int64_t ih = i * t.s - t.pad + a * t.d, iw = j * t.s - t.pad + e * t.d;
              if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w) continue;
              acc += w.at(((m * t.c + c) * t.k + a) * t.k + e) * x.at((c * t.h + ih) * t.w + iw);
            }
        const int64_t at = (m * oh + i) * ow + j;
        if (e == Epilogue::kResidual) acc += z.at(at);
        acc = acc < 0 ? 0.0 : acc;
        y.set(at, e == Epilogue::kPostAffine ? acc * kScale + kShift : acc);
      }
  return y;
}

void check(const Case& t, int threads, const char* isa, Epilogue e = Epilogue::kRelu) {
  SCOPED_TRACE(std::string(isa) + " C " + std::to_string(t.c) + " M " + std::to_string(t.m) +
               " HxW " + std::to_string(t.h) + "x" + std::to_string(t.w) + " k " +
               std::to_string(t.k) + " s " + std::to_string(t.s) + " pad " + std::to_string(t.pad) +
               " d " + std::to_string(t.d) + " threads " + std::to_string(threads) + " epilogue " +
               std::to_string(static_cast<int>(e)));
  Builder bl;
  const int x = bl.input("x", {1, t.c, t.h, t.w});
  const Tensor w = random({t.m, t.c, t.k, t.k}, 5), b = random({t.m}, 6);
  const Attrs a{{"kernel_shape", V{t.k, t.k}},
                {"strides", V{t.s, t.s}},
                {"pads", V{t.pad, t.pad, t.pad, t.pad}},
                {"dilations", V{t.d, t.d}}};
  int y = bl.op("Conv", "conv", {x, bl.constant("w", w), bl.constant("b", b)}, a);
  const Tensor xt = random({1, t.c, t.h, t.w}, 7);
  const Tensor zt = random({1, t.m, out_dim(t.h, t), out_dim(t.w, t)}, 8);
  std::vector<NamedTensor> feeds = {{"x", xt}};
  if (e == Epilogue::kResidual) {
    y = bl.op("Add", "residual", {y, bl.input("z", zt.shape())}, {});
    feeds.push_back({"z", zt});
  }
  y = bl.op("Relu", "relu", {y}, {});
  if (e == Epilogue::kPostAffine) {
    y = bl.op("Mul", "mul", {y, bl.constant("scale", test::scalar(kScale))}, {});
    y = bl.op("Add", "add", {y, bl.constant("shift", test::scalar(kShift))}, {});
  }
  bl.g.outputs = {y};
  ModelOptions o;
  o.threads = threads;
  const auto out = Model(bl.g, o).run(feeds);
  const Tensor want = naive(xt, w, b, zt, e, t);
  ASSERT_EQ(out[0].tensor.shape(), want.shape());
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(out[0].tensor.at(i), want.at(i), 2e-4 * (1 + std::abs(want.at(i))))
        << "element " << i;
}

TEST(Im2colConv, MatchesANaiveConvolution) {
  std::vector<Case> cases;
  // Output widths 1..15 past a multiple of 16 (a single-row map: the panel is the row).
  for (int64_t w : {17, 18, 20, 23, 27, 28, 29, 31, 33, 49, 3})
    cases.push_back({40, 13, 1, w, 3, 1, 1, 1});
  cases.push_back({64, 64, 7, 7, 3, 1, 1, 1});    // 49 positions: 48 + 1
  cases.push_back({29, 30, 14, 14, 3, 1, 1, 1});  // 196 = 192 + 4, k 261: two chunks
  cases.push_back({3, 16, 23, 23, 7, 2, 3, 1});   // a stem: stride 2, pad 3
  cases.push_back({33, 25, 11, 13, 3, 2, 1, 1});  // stride 2, odd sizes
  cases.push_back({17, 12, 10, 9, 3, 1, 2, 2});   // dilation 2
  cases.push_back({70, 5, 6, 5, 5, 1, 2, 1});     // k 1750: seven chunks, M < one panel
  // Pointwise: B is X's rows, copied panel by panel (gemm_mmad_a_panels_b_rows).
  for (int64_t w : {6, 17, 23, 29, 40}) cases.push_back({300, 13, 1, w, 1, 1, 0, 1});
  cases.push_back({64, 70, 7, 7, 1, 1, 0, 1});
  // ResNet's layer3/4 pointwise convs on one thread, several output-channel tiles per core: the
  // strided one's column matrix made whole and kept for them, a block per k chunk of the tiling's
  // channel loop; X's rows packed once and kept; the packed products' 1..4 tail columns (49 =
  // 48 + 1, 196 = 192 + 4) on their own kernel.
  cases.push_back({1024, 600, 14, 14, 1, 2, 0, 1});
  cases.push_back({1024, 256, 14, 14, 1, 1, 0, 1});
  for (const char* isa : {"auto", "avx2"}) {
    if (std::string(isa) != "auto") cpu::gemm_force_isa(isa);
    for (const Case& t : cases)
      for (int threads : {1, 2}) check(t, threads, isa);
    cpu::gemm_force_isa(nullptr);
  }
}

TEST(Im2colConv, ResidualAndPostAffineEpilogues) {
  const std::vector<Case> cases = {
      {64, 64, 20, 56, 3, 1, 1, 1},  // k 576 on 56-wide rows (the phase planes)
      {29, 30, 14, 14, 3, 1, 1, 1},  // k 261: two chunks
      {33, 25, 11, 13, 3, 2, 1, 1},  // stride 2, odd sizes
      {3, 16, 23, 23, 7, 2, 3, 1},   // a stem
      {64, 70, 7, 7, 1, 1, 0, 1},    // pointwise: X's rows
      {1024, 64, 9, 9, 3, 1, 1, 1},  // k 9216: the tiling steps over channels (a k loop)
  };
  for (const Case& t : cases)
    for (Epilogue e : {Epilogue::kResidual, Epilogue::kPostAffine})
      for (int threads : {1, 2}) check(t, threads, "auto", e);
}

}  // namespace
}  // namespace asc
