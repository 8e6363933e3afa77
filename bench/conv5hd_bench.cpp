// The 5HD convolution kernel (conv5hd_f32, runtime/devices/cpu/conv_5hd.h) on one thread, over
// ResNet-50 and MobileNet shapes: one call per whole map (bias + ReLU epilogue), median wall time
// and GFLOP/s of the convolution's real multiply-adds (a 3-channel stem counts 3 channels), to
// set against the machine's FMA peak (asc-bounds-bench 1).
// Usage: asc-conv5hd-bench [filter substring]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "bench/bench_util.h"
#include "runtime/devices/cpu/conv_5hd.h"

namespace {

struct Shape {
  const char* name;
  int64_t c, m, h, w, k, s, pad;
};

const Shape kShapes[] = {
    {"1x1 64->256 56x56", 64, 256, 56, 56, 1, 1, 0},
    {"1x1 256->64 56x56", 256, 64, 56, 56, 1, 1, 0},
    {"1x1 16->64 112x112", 16, 64, 112, 112, 1, 1, 0},
    {"3x3 64->64 56x56", 64, 64, 56, 56, 3, 1, 1},
    {"3x3 512->512 7x7", 512, 512, 7, 7, 3, 1, 1},
    {"3x3/2 128->128 56->28", 128, 128, 56, 56, 3, 2, 1},
    {"7x7/2 3->64 224->112", 3, 64, 224, 224, 7, 2, 3},
    {"1x1/2 256->512 56->28", 256, 512, 56, 56, 1, 2, 0},
    {"1x1 960->160 7x7", 960, 160, 7, 7, 1, 1, 0},
    {"3x3 256->256 14x14", 256, 256, 14, 14, 3, 1, 1},
    {"1x1 1024->256 14x14", 1024, 256, 14, 14, 1, 1, 0},
    {"3x3 128->128 28x28", 128, 128, 28, 28, 3, 1, 1},
    // Partial panels: 24 outputs (32 lanes, F = 2) and 16 (F = 1).
    {"1x1 96->24 56x56", 96, 24, 56, 56, 1, 1, 0},
    {"1x1 16->16 112x112", 16, 16, 112, 112, 1, 1, 0},
};

void run(const Shape& sh) {
  using namespace asc::cpu;
  const int64_t c1 = (sh.c + 15) / 16, win = sh.k * sh.k, m16 = (sh.m + 15) / 16 * 16;
  const int64_t oh = (sh.h + 2 * sh.pad - sh.k) / sh.s + 1,
                ow = (sh.w + 2 * sh.pad - sh.k) / sh.s + 1;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> map(static_cast<size_t>(c1 * sh.h * sh.w * 16), 0.f);
  for (int64_t i = 0; i < c1 * sh.h * sh.w; ++i)
    for (int64_t l = 0; l < 16; ++l)
      if ((i / (sh.h * sh.w)) * 16 + l < sh.c) map[static_cast<size_t>(i * 16 + l)] = u(rng);
  std::vector<float> wt(static_cast<size_t>(sh.m * sh.c * win)), bias(static_cast<size_t>(m16));
  for (float& v : wt) v = u(rng);
  for (float& v : bias) v = u(rng);
  std::vector<float> packed(static_cast<size_t>(conv5hd_packed_elems(sh.m, sh.c, win)));
  conv5hd_pack(wt.data(), sh.m, sh.c, win, packed.data());
  std::vector<float> y(static_cast<size_t>(m16 * oh * ow));

  Im2colSource src;
  src.gm = reinterpret_cast<const std::byte*>(map.data());
  src.base = -(sh.pad * sh.w + sh.pad) * 16;
  const int64_t stride[4] = {sh.h * sh.w * 16, 0, sh.w * 16, 16};
  const int64_t lo[4] = {0, 0, sh.pad, sh.pad}, hi[4] = {c1, 1, sh.pad + sh.h, sh.pad + sh.w};
  for (int j = 0; j < 4; ++j) src.stride[j] = stride[j], src.lo[j] = lo[j], src.hi[j] = hi[j];
  asc::Im2col g;
  g.k[1] = g.k[2] = sh.k, g.s[1] = g.s[2] = sh.s, g.out[1] = oh, g.out[2] = ow;
  Epilogue5hd ep;
  ep.bias = bias.data();
  ep.act = Epilogue5hd::kRelu;

  bool ok = true;
  auto call = [&] {
    ok &= conv5hd_f32(src, g, packed.data(), conv5hd_panel_stride(sh.c, win), sh.c, m16, 0, c1,
                      y.data(), oh * ow * 16, ow * 16, false, &ep);
  };
  const double flops = 2.0 * oh * ow * sh.m * sh.c * win;
  const int runs = static_cast<int>(std::clamp(0.5 / (flops / 150e9), 5.0, 2000.0));
  call();
  std::vector<double> ts;
  for (int r = 0; r < runs; ++r) ts.push_back(asc::bench::seconds(call));
  const double t = asc::bench::median(ts), best = *std::min_element(ts.begin(), ts.end());
  if (!ok) {
    std::printf("%-24s  conv5hd_f32 declined (no AVX-512?)\n", sh.name);
    return;
  }
  std::printf("%-24s %9.1f us %8.1f GFLOP/s   best %9.1f us %8.1f GFLOP/s\n", sh.name, t * 1e6,
              flops / t * 1e-9, best * 1e6, flops / best * 1e-9);
}

}  // namespace

int main(int argc, char** argv) {
  std::printf(
      "%-24s %12s %16s   (median; best of the runs; one thread, one call per map, bias "
      "+ relu)\n",
      "shape", "time", "rate");
  for (const Shape& sh : kShapes)
    if (argc < 2 || std::strstr(sh.name, argv[1])) run(sh);
}
