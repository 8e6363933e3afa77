// ConvTranspose's tile kernel (phase convolutions on the cube path, 2 threads) against its host
// kernel (GEMM + col2im, one thread: what ConvTranspose ran before), in one run. Run by hand:
//   asc-conv-transpose-bench [NAME]
// Shapes: PaddleOCR v4 detection's head at 640 x 640 and U-Net-style 2x upsamplings. The tile
// program is planned once per shape (as the runtime caches plans) and CpuDevice(2)::launch timed;
// the host kernel is called with a LaunchContext of the same descs. Reports ms medians
// (bench_util.h median_pair: alternating blocks of runs) and host / tile.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "ops/ops.h"
#include "registry/tensor.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace {

struct Case {
  const char* name;
  int64_t c, h, m, k, s, pad;  // input channels, input size, output channels, kernel, stride
};

constexpr Case kCases[] = {
    {"ppocr.head.1", 24, 160, 24, 2, 2, 0}, {"ppocr.head.2", 24, 320, 1, 2, 2, 0},
    {"unet.up.64", 128, 64, 64, 2, 2, 0},   {"unet.up.k4s2", 64, 64, 32, 4, 2, 1},
    {"gan.k3s2", 64, 32, 64, 3, 2, 1},      {"k3s1", 64, 56, 64, 3, 1, 1},
};

asc::Tensor random_tensor(asc::Shape shape, uint32_t seed) {
  asc::Tensor t(asc::DType::kF32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, u(rng));
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const asc::cpu::CpuDevice dev(2);
  std::printf("asc-conv-transpose-bench: tile kernel on 2 threads vs host kernel\n");
  std::printf("%-14s %10s %10s %6s\n", "case", "tile ms", "host ms", "ratio");
  for (const Case& s : kCases) {
    if (!only.empty() && only != s.name) continue;
    const asc::Tensor x = random_tensor({1, s.c, s.h, s.h}, 1);
    const asc::Tensor w = random_tensor({s.c, s.m, s.k, s.k}, 2);
    const asc::Tensor b = random_tensor({s.m}, 3);
    const asc::OpDef& op = asc::global_registry().lookup("", "ConvTranspose", 11);
    const asc::Attrs attrs = op.resolve(
        {{"strides", std::vector<int64_t>{s.s, s.s}}, {"pads", std::vector<int64_t>(4, s.pad)}});
    const std::vector<asc::Tensor> ins{x, w, b};
    const auto out = asc::infer_outputs(op, attrs, ins);
    asc::Tensor y(asc::DType::kF32, out[0].shape), y_host(asc::DType::kF32, out[0].shape);
    const std::vector<asc::TensorDesc> in_desc{x.desc(), w.desc(), b.desc()};
    const asc::TileProgram p = asc::plan_tile_program(op, attrs, in_desc, out, dev.spec());
    std::vector<void*> args{const_cast<void*>(x.data()), const_cast<void*>(w.data()),
                            const_cast<void*>(b.data()), y.data()};
    asc::LaunchContext ctx;
    ctx.op = &op;
    ctx.inputs = in_desc;
    ctx.outputs = out;
    ctx.attrs = &attrs;
    ctx.spec = &dev.spec();
    std::vector<asc::Tensor> outs{y_host};
    const double flops = 2.0 * static_cast<double>(s.c * s.m * s.k * s.k * s.h * s.h);
    const auto [t_tile, t_host] = asc::bench::median_pair(
        [&] { dev.launch(p, args); }, [&] { op.host_kernel_fn(ctx, ins, outs); }, flops);
    std::printf("%-14s %10.3f %10.3f %6.2f\n", s.name, t_tile * 1e3, t_host * 1e3, t_host / t_tile);
  }
  return 0;
}
