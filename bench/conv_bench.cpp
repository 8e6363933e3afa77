// asc's Conv op against oneDNN's convolution, both on 2 threads, in one run. Run by hand:
//   asc-conv-bench [f32|bf16] [NAME]      (ASC_BENCH_ASC_ONLY=N: N asc launches, no timing)
// Shapes: the convolutions of ResNet-50 and MobileNetV3 at batch 1, 224 x 224. asc: the op's
// placed TileProgram planned once per shape (as the runtime caches plans) and CpuDevice(2)::launch
// timed on preallocated NCHW tensors. oneDNN: NCHW source and destination, its weights in the
// layout it picks (reordered once, outside the timing, as asc's load-time packing would). Reports
// GFLOP/s medians (bench_util.h median_pair: alternating blocks of runs) and asc / oneDNN.
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "ops/ops.h"
#include "registry/tensor.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

extern "C" void omp_set_num_threads(int);  // oneDNN's OpenMP runtime

namespace {

using asc::DType;

constexpr int kThreads = 2;

struct Shape2d {
  const char* name;
  int64_t c, h, m, k, s, group;  // input channels, input size, output channels, kernel, stride
};

// ResNet-50 (conv1, a bottleneck of each stage) and MobileNetV3-Large (stem, pointwise).
constexpr Shape2d kShapes[] = {
    {"r50.conv1", 3, 224, 64, 7, 2, 1},     {"r50.l1.3x3", 64, 56, 64, 3, 1, 1},
    {"r50.l1.1x1a", 64, 56, 256, 1, 1, 1},  {"r50.l1.1x1b", 256, 56, 64, 1, 1, 1},
    {"r50.l2.3x3", 128, 28, 128, 3, 1, 1},  {"r50.l2.3x3s2", 128, 56, 128, 3, 2, 1},
    {"r50.l3.3x3", 256, 14, 256, 3, 1, 1},  {"r50.l3.1x1", 1024, 14, 256, 1, 1, 1},
    {"r50.l4.3x3", 512, 7, 512, 3, 1, 1},   {"r50.l4.1x1", 2048, 7, 512, 1, 1, 1},
    {"mnv3.stem", 3, 224, 16, 3, 2, 1},     {"mnv3.pw.16x64", 16, 112, 64, 1, 1, 1},
    {"mnv3.pw.72x24", 72, 56, 24, 1, 1, 1}, {"mnv3.pw.480x112", 480, 14, 112, 1, 1, 1},
    {"mnv3.dw.3x3", 64, 112, 64, 3, 2, 64}, {"mnv3.dw.5x5", 120, 28, 120, 5, 1, 120},
};

asc::Tensor random_tensor(DType dt, asc::Shape shape, uint32_t seed) {
  asc::Tensor t(dt, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, u(rng));
  return t;
}

struct Dnnl {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::convolution_forward prim;
  dnnl::memory xm, wm, bm, ym;

  Dnnl(const Shape2d& s, const asc::Tensor& x, const asc::Tensor& w, const asc::Tensor& b,
       asc::Tensor& y) {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    omp_set_num_threads(kThreads);
    const dt t = x.dtype() == DType::kBF16 ? dt::bf16 : dt::f32;
    const int64_t p = s.k / 2, oh = y.shape()[2];
    dnnl::memory::dims wd =
        s.group == 1 ? dnnl::memory::dims{s.m, s.c, s.k, s.k}
                     : dnnl::memory::dims{s.group, s.m / s.group, s.c / s.group, s.k, s.k};
    dnnl::memory::desc xd({1, s.c, s.h, s.h}, t, tag::nchw), yd({1, s.m, oh, oh}, t, tag::nchw);
    dnnl::memory::desc wany(wd, t, tag::any), bd({s.m}, t, tag::a);
    const dnnl::memory::desc wplain(wd, t, s.group == 1 ? tag::oihw : tag::goihw);
    auto pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                        dnnl::algorithm::convolution_direct, xd, wany, bd, yd,
                                        {s.s, s.s}, {p, p}, {p, p}),
        eng);
    prim = dnnl::convolution_forward(pd);
    xm = dnnl::memory(xd, eng, const_cast<void*>(x.data()));
    bm = dnnl::memory(bd, eng, const_cast<void*>(b.data()));
    ym = dnnl::memory(yd, eng, y.data());
    dnnl::memory wsrc(wplain, eng, const_cast<void*>(w.data()));
    wm = dnnl::memory(pd.weights_desc(), eng);
    dnnl::reorder(wsrc, wm).execute(strm, wsrc, wm);
    strm.wait();
  }
  void run() {
    prim.execute(
        strm,
        {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, ym}});
    strm.wait();
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::string only_type = argc > 1 ? argv[1] : "";
  const std::string only_name = argc > 2 ? argv[2] : "";
  const asc::cpu::CpuDevice dev(kThreads);
  std::printf("asc-conv-bench: %d threads each; %s\n", kThreads, dev.spec().str().c_str());
  std::printf("%-5s %-16s %10s %10s %6s  %s\n", "type", "conv", "asc GF/s", "dnnl GF/s", "ratio",
              "asc tiling");
  for (DType dt : {DType::kF32, DType::kBF16}) {
    if (!only_type.empty() && only_type != asc::dtype_name(dt)) continue;
    for (const Shape2d& s : kShapes) {
      if (!only_name.empty() && only_name != s.name) continue;
      const asc::Tensor x = random_tensor(dt, {1, s.c, s.h, s.h}, 1);
      const asc::Tensor w = random_tensor(dt, {s.m, s.c / s.group, s.k, s.k}, 2);
      const asc::Tensor b = random_tensor(dt, {s.m}, 3);
      const asc::OpDef& op = asc::global_registry().lookup("", "Conv", 11);
      const asc::Attrs attrs = op.resolve({{"strides", std::vector<int64_t>{s.s, s.s}},
                                           {"pads", std::vector<int64_t>(4, s.k / 2)},
                                           {"group", s.group}});
      const std::vector<asc::Tensor> ins{x, w, b};
      const auto out = asc::infer_outputs(op, attrs, ins);
      asc::Tensor y(dt, out[0].shape), y_dnnl(dt, out[0].shape);
      const std::vector<asc::TensorDesc> in_desc{x.desc(), w.desc(), b.desc()};
      const asc::TileProgram p = asc::plan_tile_program(op, attrs, in_desc, out, dev.spec());
      std::vector<void*> args{const_cast<void*>(x.data()), const_cast<void*>(w.data()),
                              const_cast<void*>(b.data()), y.data()};
      if (const char* reps = std::getenv("ASC_BENCH_ASC_ONLY")) {  // for a profiler: asc alone
        for (int r = 0; r < std::atoi(reps); ++r) dev.launch(p, args);
        continue;
      }
      Dnnl ref(s, x, w, b, y_dnnl);
      const int64_t oh = out[0].shape[2];
      const double flops = 2.0 * static_cast<double>(s.m * (s.c / s.group) * s.k * s.k * oh * oh);
      const auto [t_asc, t_dnnl] =
          asc::bench::median_pair([&] { dev.launch(p, args); }, [&] { ref.run(); }, flops);
      std::string tiling;  // the weight block (L0A) and column block (L0B) of a tile
      for (const auto& buf : p.buffers)
        if (buf.pos == asc::Pos::kL0A || buf.pos == asc::Pos::kL0B)
          tiling += asc::to_string(buf.dims) + " ";
      std::printf("%-5s %-16s %10.1f %10.1f %6.2f  %sgrid %s/%lld\n",
                  std::string(asc::dtype_name(dt)).c_str(), s.name, flops / t_asc * 1e-9,
                  flops / t_dnnl * 1e-9, t_dnnl / t_asc, tiling.c_str(),
                  asc::to_string(p.grid).c_str(), static_cast<long long>(p.block_dim));
    }
  }
  return 0;
}
