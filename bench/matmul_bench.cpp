// asc's MatMul op against oneDNN's matmul primitive, both on 2 threads, in one run. Run by hand:
//   asc-matmul-bench [f32|bf16] [M] [K] [N]      (K and N given: that shape alone)
// asc: the op's placed TileProgram is planned once per shape (as the runtime caches plans per
// shape signature) and CpuDevice(2)::launch is timed on preallocated tensors. oneDNN: plain
// row-major layouts, OpenMP with 2 threads. Output dtype = input dtype on both sides (f32 -> f32,
// bf16 -> bf16, f32 accumulation). Reports GFLOP/s medians and asc / oneDNN, for MatMul (B
// row-major, as oneDNN) and for PackedMatMul (B packed once ahead, as the runtime's load-time
// weight packing stores a model's weights; runtime/weight_pack.h), each timed against oneDNN in
// its own alternation. ASC_BENCH_COLD=1: every run reads its B from DRAM, as a model's weights
// are read once per forward pass (a rotation of copies of B over more than the L3).
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "bench/bench_util.h"
#include "ops/ops.h"
#include "registry/tensor.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"
#include "runtime/weight_pack.h"

extern "C" void omp_set_num_threads(int);  // oneDNN's OpenMP runtime

namespace {

using asc::DType;

constexpr int kThreads = 2;

asc::Tensor random_tensor(DType dt, asc::Shape shape, uint32_t seed) {
  asc::Tensor t(dt, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, u(rng));
  return t;
}

// "TM x TN x TK, grid [..], block_dim" of a placed MatMul program.
std::string describe(const asc::TileProgram& p) {
  int64_t tm = 0, tn = 0, tk = 0;
  for (const auto& b : p.buffers) {
    if (b.pos == asc::Pos::kL0A) tm = b.dims[b.dims.size() - 2], tk = b.dims.back();
    if (b.pos == asc::Pos::kL0B) tn = b.dims.back();
  }
  return std::to_string(tm) + "x" + std::to_string(tn) + "x" + std::to_string(tk) + " " +
         asc::to_string(p.grid) + "/" + std::to_string(p.block_dim);
}

// The op's placed program for these shapes, planned once (the runtime caches plans per shape).
asc::TileProgram plan_matmul(const asc::cpu::CpuDevice& dev, const asc::Tensor& a,
                             const asc::Tensor& b, const asc::Tensor& y) {
  const asc::OpDef& op = asc::global_registry().lookup("", "MatMul", 13);
  const asc::Attrs attrs = op.resolve({});
  const std::vector<asc::TensorDesc> in{a.desc(), b.desc()}, out{y.desc()};
  return asc::plan_tile_program(op, attrs, in, out, dev.spec());
}

// PackedMatMul's placed program for A and B packed as the load-time pass packs it.
asc::TileProgram plan_packed(const asc::cpu::CpuDevice& dev, const asc::Tensor& a,
                             const asc::Tensor& bp, const asc::WeightPacking& wp, int64_t k,
                             int64_t n, const asc::Tensor& y) {
  const asc::OpDef& op = asc::global_registry().lookup("ai.asc", "PackedMatMul", 1);
  const asc::Attrs attrs = op.resolve(asc::packed_matmul_attrs(wp, {k, n}));
  const std::vector<asc::TensorDesc> in{a.desc(), bp.desc()}, out{y.desc()};
  return asc::plan_tile_program(op, attrs, in, out, dev.spec());
}

// oneDNN matmul on plain row-major layouts, output dtype = input dtype.
struct Dnnl {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::matmul prim;
  dnnl::memory am, bm, ym;

  Dnnl(const asc::Tensor& a, const asc::Tensor& b, asc::Tensor& y) {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    omp_set_num_threads(kThreads);
    const dt t = a.dtype() == DType::kBF16 ? dt::bf16 : dt::f32;
    const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
    dnnl::memory::desc ad({m, k}, t, tag::ab), bd({k, n}, t, tag::ab), yd({m, n}, t, tag::ab);
    prim = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(ad, bd, yd), eng));
    am = dnnl::memory(ad, eng, const_cast<void*>(a.data()));
    bm = dnnl::memory(bd, eng, const_cast<void*>(b.data()));
    ym = dnnl::memory(yd, eng, y.data());
  }
  void run(const void* b) {
    bm.set_data_handle(const_cast<void*>(b));
    prim.execute(strm, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, ym}});
    strm.wait();
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::string only_type = argc > 1 ? argv[1] : "";
  const int64_t only_m = argc > 2 ? std::atoll(argv[2]) : 0;
  const int64_t only_k = argc > 3 ? std::atoll(argv[3]) : 0;
  const int64_t only_n = argc > 4 ? std::atoll(argv[4]) : 0;
  const asc::cpu::CpuDevice dev(kThreads);
  std::printf("asc-matmul-bench: %d threads each; %s\n", kThreads, dev.spec().str().c_str());
  std::printf("%-5s %5s %5s %6s %10s %10s %6s %10s %10s %6s  %s\n", "type", "M", "K", "N",
              "asc GF/s", "dnnl GF/s", "ratio", "packed", "dnnl GF/s", "ratio",
              "asc tile TMxTNxTK grid/block_dim; packed");
  std::vector<std::array<int64_t, 2>> kn = {{896, 4864}, {4864, 896}, {3584, 18944}};
  if (only_k > 0 && only_n > 0) kn = {{only_k, only_n}};
  for (DType dt : {DType::kF32, DType::kBF16}) {
    if (!only_type.empty() && only_type != asc::dtype_name(dt)) continue;
    for (const auto& s : kn) {
      if (only_k && s[0] != only_k) continue;
      const asc::Tensor b = random_tensor(dt, {s[0], s[1]}, 2);
      const asc::WeightPacking wp = asc::kernel_packing(dt);
      const bool packs = wp.dtype == dt;  // else this CPU widens bf16 panels: not packed
      const asc::Tensor bp = packs ? wp.pack(b) : asc::Tensor();
      // Copies of B (row-major and packed) to rotate through, ~256 MiB of each when cold.
      const int64_t copies =
          std::getenv("ASC_BENCH_COLD")
              ? std::clamp<int64_t>((int64_t{256} << 20) / static_cast<int64_t>(b.nbytes()), 2, 64)
              : 1;
      std::vector<asc::Tensor> bs{b}, bps{bp};
      for (int64_t c = 1; c < copies; ++c) {
        bs.push_back(b.clone());
        if (packs) bps.push_back(bp.clone());
      }
      const std::vector<int64_t> ms =
          only_m ? std::vector<int64_t>{only_m} : std::vector<int64_t>{1, 16, 128, 512};
      for (int64_t m : ms) {
        const asc::Tensor a = random_tensor(dt, {m, s[0]}, 1);
        asc::Tensor y(dt, {m, s[1]});
        const double flops = 2.0 * static_cast<double>(m * s[0] * s[1]);
        asc::Tensor y_dnnl(dt, {m, s[1]});
        const asc::TileProgram p = plan_matmul(dev, a, b, y);
        const std::string tiling = describe(p);
        std::vector<void*> args{const_cast<void*>(a.data()), nullptr, y.data()};
        Dnnl dnnl_mm(a, b, y_dnnl);
        size_t turn = 0;  // the copy of B the next run reads
        auto next_b = [&](const std::vector<asc::Tensor>& v) {
          return v[turn++ % v.size()].data();
        };
        auto run_asc = [&](const asc::TileProgram& prog, const std::vector<asc::Tensor>& v) {
          args[1] = const_cast<void*>(next_b(v));
          dev.launch(prog, args);
        };
        auto run_dnnl = [&] { dnnl_mm.run(next_b(bs)); };
        const auto [t_asc, t_dnnl] =
            asc::bench::median_pair([&] { run_asc(p, bs); }, run_dnnl, flops);
        double t_packed = 0, t_dnnl2 = 0;
        std::string packed_tiling = "-";
        if (packs) {
          const asc::TileProgram pp = plan_packed(dev, a, bp, wp, s[0], s[1], y);
          packed_tiling = describe(pp);
          std::tie(t_packed, t_dnnl2) =
              asc::bench::median_pair([&] { run_asc(pp, bps); }, run_dnnl, flops);
        }
        auto gf = [&](double t) { return t > 0 ? flops / t * 1e-9 : 0.0; };
        std::printf("%-5s %5lld %5lld %6lld %10.1f %10.1f %6.2f %10.1f %10.1f %6.2f  %s; %s\n",
                    std::string(asc::dtype_name(dt)).c_str(), static_cast<long long>(m),
                    static_cast<long long>(s[0]), static_cast<long long>(s[1]), gf(t_asc),
                    gf(t_dnnl), t_dnnl / t_asc, gf(t_packed), gf(t_dnnl2),
                    t_packed > 0 ? t_dnnl2 / t_packed : 0.0, tiling.c_str(), packed_tiling.c_str());
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
