// asc CPU GEMM kernels (gemm_pack_* + gemm_mmad; gemm_direct for m <= 8) against oneDNN's
// matmul primitive, f32 and bf16 inputs with f32 output, 1 and 2 threads. Run by hand:
//   asc-gemm-kernel-bench [f32|bf16] [M]
// The asc side splits N over std::threads and tiles like the device's caller would: A packed once
// in [mc, kc] blocks, B packed per [kc, nc] block, gemm_mmad per (mc, nc, kc) tile.
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "registry/dtype.h"
#include "runtime/devices/cpu/gemm.h"

extern "C" void omp_set_num_threads(int);  // oneDNN's OpenMP runtime

namespace {

using asc::DType;
namespace cpu = asc::cpu;

struct Problem {
  DType in;
  int64_t m, k, n;
};

int64_t env_or(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoll(v) : fallback;
}

// Tile sizes of the caller: packed A block [mc, kc] in L2, B block [kc, nc] in L2/L3.
struct Tiling {
  int64_t mc, kc, nc;
};

Tiling tiling_for(DType in) {
  const cpu::GemmKernel& g = cpu::gemm_kernel(in);
  const int64_t kc = env_or("ASC_KC", g.packed == DType::kBF16 ? 512 : 256);
  const int64_t mc = env_or("ASC_MC", g.mr * (g.packed == DType::kBF16 ? 16 : 16));
  const int64_t nc = env_or("ASC_NC", g.nr * 16);
  return {mc, kc, nc};
}

// Packed A blocks, indexed [mb][kb], each holding rows [mb*mc, +mc) x k [kb*kc, +kc).
struct PackedA {
  Tiling t;
  int64_t kblocks = 0;
  std::vector<std::vector<uint8_t>> blocks;
  const void* at(int64_t mb, int64_t kb) const { return blocks[mb * kblocks + kb].data(); }
};

void pack_a(const Problem& p, const void* a, const Tiling& t, PackedA& out) {
  const size_t es = asc::dtype_size(p.in);
  out.t = t;
  out.kblocks = (p.k + t.kc - 1) / t.kc;
  const int64_t mblocks = (p.m + t.mc - 1) / t.mc;
  out.blocks.resize(static_cast<size_t>(mblocks * out.kblocks));
  for (int64_t mb = 0; mb < mblocks; ++mb) {
    for (int64_t kb = 0; kb < out.kblocks; ++kb) {
      const int64_t mm = std::min(t.mc, p.m - mb * t.mc), kk = std::min(t.kc, p.k - kb * t.kc);
      auto& blk = out.blocks[mb * out.kblocks + kb];
      blk.resize(cpu::gemm_packed_a_bytes(p.in, mm, kk));
      const auto* src = static_cast<const uint8_t*>(a) + (mb * t.mc * p.k + kb * t.kc) * es;
      cpu::gemm_pack_a(p.in, src, p.k, 1, mm, kk, blk.data());
    }
  }
}

// C[:, n0:n1] for one thread.
void asc_columns(const Problem& p, const PackedA& pa, const void* b, float* c, int64_t n0,
                 int64_t n1, std::vector<uint8_t>& pb) {
  const Tiling& t = pa.t;
  const size_t es = asc::dtype_size(p.in);
  for (int64_t j0 = n0; j0 < n1; j0 += t.nc) {
    const int64_t nn = std::min(t.nc, n1 - j0);
    for (int64_t kb = 0; kb * t.kc < p.k; ++kb) {
      const int64_t kk = std::min(t.kc, p.k - kb * t.kc);
      const auto* src = static_cast<const uint8_t*>(b) + (kb * t.kc * p.n + j0) * es;
      cpu::gemm_pack_b(p.in, src, p.n, 1, kk, nn, pb.data());
      for (int64_t mb = 0; mb * t.mc < p.m; ++mb) {
        const int64_t mm = std::min(t.mc, p.m - mb * t.mc);
        cpu::gemm_mmad(p.in, pa.at(mb, kb), pb.data(), c + mb * t.mc * p.n + j0, p.n, mm, nn, kk,
                       kb > 0);
      }
    }
  }
}

// Two-thread split of N on a persistent helper (the device's workers are persistent too; thread
// creation per call would dominate the small shapes). The helper spins briefly, then sleeps, so it
// does not steal a core from oneDNN's OpenMP threads.
class Helper {
 public:
  Helper() : thread_([this] { loop(); }) {}
  ~Helper() {
    run([] {}, true);
    thread_.join();
  }
  // Runs `job` on the helper while the caller runs `mine`; returns when both are done.
  void run_pair(const std::function<void()>& job, const std::function<void()>& mine) {
    run(job, false);
    mine();
    for (int spin = 0;
         done_.load(std::memory_order_acquire) != gen_.load(std::memory_order_relaxed); ++spin)
      if (spin > 10000) std::this_thread::yield();  // the helper may be preempted on a busy box
  }

 private:
  void run(std::function<void()> job, bool quit) {
    job_ = std::move(job);
    quit_ = quit;
    gen_.fetch_add(1, std::memory_order_release);
    gen_.notify_one();
  }
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      for (int spin = 0; gen_.load(std::memory_order_acquire) == seen; ++spin)
        if (spin > 200000) gen_.wait(seen, std::memory_order_acquire);
      seen = gen_.load(std::memory_order_acquire);
      if (quit_) return;
      job_();
      done_.store(seen, std::memory_order_release);
    }
  }
  std::function<void()> job_;
  bool quit_ = false;
  std::atomic<uint64_t> gen_{0}, done_{0};
  std::thread thread_;
};

Helper& helper() {
  static Helper h;
  return h;
}

// Runs fn(thread, n0, n1) on 1 or 2 threads over N split at a multiple of `align`.
void split_n(int threads, int64_t n, int64_t align,
             const std::function<void(int, int64_t, int64_t)>& fn) {
  if (threads == 1) return fn(0, 0, n);
  const int64_t half = std::min(n, (n / 2 + align - 1) / align * align);
  helper().run_pair([&] { fn(1, half, n); }, [&] { fn(0, 0, half); });
}

double median_seconds(const std::function<void()>& fn, double flops) {
  fn();  // warm-up
  const int runs = std::clamp(static_cast<int>(0.25 / std::max(flops / 150e9, 1e-6)), 3, 15);
  std::vector<double> s;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

// Largest m for which the bench calls gemm_direct (B unpacked) instead of packing B.
constexpr int64_t kDirectMaxM = 16;

double bench_asc(const Problem& p, const void* a, const void* b, float* c, int threads) {
  const cpu::GemmKernel& g = cpu::gemm_kernel(p.in);
  const Tiling t = tiling_for(p.in);
  const size_t pb_bytes = cpu::gemm_packed_b_bytes(p.in, t.kc, t.nc);
  std::vector<std::vector<uint8_t>> pb(threads, std::vector<uint8_t>(pb_bytes));
  PackedA pa;
  const size_t es = asc::dtype_size(p.in);
  auto run = [&] {
    if (p.m <= kDirectMaxM) {
      split_n(threads, p.n, 64, [&](int, int64_t n0, int64_t n1) {
        cpu::gemm_direct(p.in, a, p.k, static_cast<const uint8_t*>(b) + n0 * es, p.n, c + n0, p.n,
                         p.m, n1 - n0, p.k, false);
      });
      return;
    }
    pack_a(p, a, t, pa);
    split_n(threads, p.n, g.nr,
            [&](int th, int64_t n0, int64_t n1) { asc_columns(p, pa, b, c, n0, n1, pb[th]); });
  };
  return median_seconds(run, 2.0 * p.m * p.n * p.k);
}

double bench_dnnl(const Problem& p, const void* a, const void* b, float* c, int threads) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const dt in = p.in == DType::kBF16 ? dt::bf16 : dt::f32;
  dnnl::memory::desc ad({p.m, p.k}, in, tag::ab), bd({p.k, p.n}, in, tag::ab),
      cd({p.m, p.n}, dt::f32, tag::ab);
  dnnl::matmul prim(dnnl::matmul::primitive_desc(dnnl::matmul::desc(ad, bd, cd), eng));
  dnnl::memory am(ad, eng, const_cast<void*>(a)), bm(bd, eng, const_cast<void*>(b)), cm(cd, eng, c);
  auto run = [&] {
    prim.execute(strm, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    strm.wait();
  };
  return median_seconds(run, 2.0 * p.m * p.n * p.k);
}

std::vector<uint8_t> random_input(DType in, int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint8_t> v(static_cast<size_t>(count) * asc::dtype_size(in));
  for (int64_t i = 0; i < count; ++i) {
    if (in == DType::kBF16) {
      const asc::bf16 h = asc::f32_to_bf16(dist(rng));
      std::memcpy(v.data() + i * 2, &h, 2);
    } else {
      const float f = dist(rng);
      std::memcpy(v.data() + i * 4, &f, 4);
    }
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string only_type = argc > 1 ? argv[1] : "";
  const int64_t only_m = argc > 2 ? std::atoll(argv[2]) : 0;
  std::printf("asc gemm isa: %s (f32 %dx%d, bf16 %dx%d k_pack %d)\n", cpu::gemm_active_isa(),
              cpu::gemm_kernel(DType::kF32).mr, cpu::gemm_kernel(DType::kF32).nr,
              cpu::gemm_kernel(DType::kBF16).mr, cpu::gemm_kernel(DType::kBF16).nr,
              cpu::gemm_kernel(DType::kBF16).k_pack);
  std::printf("%-5s %5s %5s %6s %3s %10s %10s %6s\n", "type", "M", "K", "N", "thr", "asc GF/s",
              "dnnl GF/s", "ratio");
  const int64_t kn[][2] = {{896, 4864}, {4864, 896}, {3584, 18944}};
  for (DType in : {DType::kF32, DType::kBF16}) {
    if (!only_type.empty() && only_type != asc::dtype_name(in)) continue;
    for (int64_t m : {1, 16, 128, 512}) {
      if (only_m && m != only_m) continue;
      for (const auto& s : kn) {
        const Problem p{in, m, s[0], s[1]};
        const auto a = random_input(in, p.m * p.k, 1);
        const auto b = random_input(in, p.k * p.n, 2);
        std::vector<float> c(static_cast<size_t>(p.m * p.n));
        const double flops = 2.0 * p.m * p.n * p.k;
        for (int threads : {1, 2}) {
          const double t_asc = bench_asc(p, a.data(), b.data(), c.data(), threads);
          const double t_dnnl = bench_dnnl(p, a.data(), b.data(), c.data(), threads);
          std::printf("%-5s %5lld %5lld %6lld %3d %10.1f %10.1f %6.2f\n",
                      std::string(asc::dtype_name(in)).c_str(), static_cast<long long>(p.m),
                      static_cast<long long>(p.k), static_cast<long long>(p.n), threads,
                      flops / t_asc * 1e-9, flops / t_dnnl * 1e-9, t_dnnl / t_asc);
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
