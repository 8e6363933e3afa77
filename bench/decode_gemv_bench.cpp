// One batch-1 decoding step's weight traffic: every MatMul of a Qwen2.5 decoder at M = 1, through
// asc's MatMul op (planned once per shape, CpuDevice::launch timed) and oneDNN's matmul, in one
// run on the same 2 threads, against the read bandwidth measured in the same run. The weights are
// distinct tensors (about 1 GB in bf16 for 0.5B), so they stream from DRAM as in a real step,
// not from the last-level cache as a single-matrix bench would.
// With `packed`, asc runs PackedMatMul on weights packed as the load packs a model's
// (runtime/weight_pack.h); oneDNN keeps row-major B.
// Run by hand:  asc-decode-gemv-bench [f32|bf16 (default bf16)] [0.5b|1.5b (default 0.5b)] [packed]
#include <immintrin.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
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

using asc::bench::median;
using asc::bench::seconds;

struct Config {
  int64_t hidden, layers, heads, kv_heads, head_dim, inter, vocab;
};

// [K, N] of every MatMul of one step, in execution order.
std::vector<std::pair<int64_t, int64_t>> step_shapes(const Config& c) {
  std::vector<std::pair<int64_t, int64_t>> s;
  const int64_t q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
  for (int64_t l = 0; l < c.layers; ++l) {
    s.insert(s.end(), {{c.hidden, q},
                       {c.hidden, kv},
                       {c.hidden, kv},
                       {q, c.hidden},
                       {c.hidden, c.inter},
                       {c.hidden, c.inter},
                       {c.inter, c.hidden}});
  }
  s.push_back({c.hidden, c.vocab});
  return s;
}

// Sum of n floats read as 4 interleaved streams with software prefetch into L2, as asc's GEMV
// walks prefetch (AVX-512).
__attribute__((target("avx512f"))) float sum4(const float* p, size_t n) {
  const size_t len = n / 4 / 16 * 16;
  __m512 s = _mm512_setzero_ps();
  for (size_t i = 0; i < len; i += 16)
    for (size_t k = 0; k < 4; ++k) {
      const float* q = p + k * len + i;
      _mm_prefetch(reinterpret_cast<const char*>(q + 512), _MM_HINT_T1);
      s = _mm512_add_ps(s, _mm512_loadu_ps(q));
    }
  alignas(64) float f[16];
  _mm512_store_ps(f, s);
  return f[0];
}

// Read bandwidth of kThreads oneTBB workers summing their halves of `buf` (asc-bounds-bench's
// 4-stream T1 figure, on the bench's own threads).
double read_gbs(tbb::task_arena& arena, const std::vector<float>& buf) {
  std::vector<double> gbs;
  for (int r = 0; r < 5; ++r) {
    const double s = seconds([&] {
      arena.execute([&] {
        tbb::parallel_for(0, kThreads, [&](int t) {
          const size_t share = buf.size() / kThreads;
          volatile float sink = sum4(buf.data() + share * static_cast<size_t>(t), share);
          (void)sink;
        });
      });
    });
    gbs.push_back(static_cast<double>(buf.size() * sizeof(float)) / s / 1e9);
  }
  return median(gbs);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string type = argc > 1 ? argv[1] : "bf16";
  const std::string model = argc > 2 ? argv[2] : "0.5b";
  const bool packed = argc > 3 && std::string(argv[3]) == "packed";
  const DType dt = type == "f32" ? DType::kF32 : DType::kBF16;
  const Config cfg = model == "1.5b" ? Config{1536, 28, 12, 2, 128, 8960, 151936}
                                     : Config{896, 24, 14, 2, 64, 4864, 151936};
  const auto shapes = step_shapes(cfg);
  const asc::cpu::CpuDevice dev(kThreads);
  omp_set_num_threads(kThreads);

  // Weights: distinct tensors with random bits (values do not change the traffic).
  std::vector<asc::Tensor> w;
  size_t bytes = 0;
  std::mt19937 rng(1);
  for (const auto& [k, n] : shapes) {
    w.emplace_back(dt, asc::Shape{k, n});
    auto* p = static_cast<uint16_t*>(w.back().data());
    const size_t halves = w.back().nbytes() / 2;
    for (size_t i = 0; i < halves; ++i) p[i] = static_cast<uint16_t>(0x3c00 | (rng() & 0x00ff));
    bytes += w.back().nbytes();
  }
  // asc's weights: w, or w packed into the active kernels' panels.
  const asc::WeightPacking wp = asc::kernel_packing(dt);
  if (packed && wp.dtype != dt) {
    std::fprintf(stderr, "asc-decode-gemv-bench: this CPU widens %s panels: nothing to pack\n",
                 type.c_str());
    return 1;
  }
  std::vector<asc::Tensor> wa;
  for (const asc::Tensor& t : w) wa.push_back(packed ? wp.pack(t) : t);
  // Activations and programs, one per distinct shape.
  const asc::OpDef& op = packed ? asc::global_registry().lookup("ai.asc", "PackedMatMul", 1)
                                : asc::global_registry().lookup("", "MatMul", 13);
  std::vector<asc::Tensor> xs, ys;
  std::vector<asc::TileProgram> progs;
  for (const auto& [k, n] : shapes) {
    xs.emplace_back(dt, asc::Shape{1, k});
    for (int64_t i = 0; i < k; ++i) xs.back().set(i, 0.01f * static_cast<float>(i % 7));
    ys.emplace_back(dt, asc::Shape{1, n});
    const std::vector<asc::TensorDesc> in{xs.back().desc(), wa[xs.size() - 1].desc()},
        out{ys.back().desc()};
    const asc::Attrs given = packed ? asc::packed_matmul_attrs(wp, {k, n}) : asc::Attrs{};
    progs.push_back(asc::plan_tile_program(op, op.resolve(given), in, out, dev.spec()));
  }
  auto asc_step = [&] {
    for (size_t i = 0; i < shapes.size(); ++i) {
      void* args[] = {xs[i].data(), wa[i].data(), ys[i].data()};
      dev.launch(progs[i], args);
    }
  };
  // oneDNN: one primitive per matrix.
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  using ddt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const ddt t = dt == DType::kBF16 ? ddt::bf16 : ddt::f32;
  std::vector<dnnl::matmul> prims;
  std::vector<std::array<dnnl::memory, 3>> mems;
  std::vector<asc::Tensor> ys_dnnl;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto [k, n] = shapes[i];
    dnnl::memory::desc ad({1, k}, t, tag::ab), bd({k, n}, t, tag::ab), yd({1, n}, t, tag::ab);
    prims.emplace_back(dnnl::matmul::primitive_desc(dnnl::matmul::desc(ad, bd, yd), eng));
    ys_dnnl.emplace_back(dt, asc::Shape{1, n});
    mems.push_back({dnnl::memory(ad, eng, xs[i].data()), dnnl::memory(bd, eng, w[i].data()),
                    dnnl::memory(yd, eng, ys_dnnl.back().data())});
  }
  auto dnnl_step = [&] {
    for (size_t i = 0; i < prims.size(); ++i)
      prims[i].execute(
          strm,
          {{DNNL_ARG_SRC, mems[i][0]}, {DNNL_ARG_WEIGHTS, mems[i][1]}, {DNNL_ARG_DST, mems[i][2]}});
    strm.wait();
  };

  tbb::task_arena arena(kThreads);
  const std::vector<float> buf(size_t{1} << 28, 1.0f);
  std::vector<double> ta, td;
  asc_step();
  dnnl_step();
  for (int r = 0; r < 7; ++r) {  // alternate, with a pause so idle spinning workers stop
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    ta.push_back(seconds(asc_step));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    td.push_back(seconds(dnnl_step));
  }
  const double bw = read_gbs(arena, buf);
  // Per shape: each launch timed alone over 3 steps (median of the per-step sums).
  std::map<std::pair<int64_t, int64_t>, std::vector<double>> per;
  for (int r = 0; r < 3; ++r) {
    std::map<std::pair<int64_t, int64_t>, double> sum;
    for (size_t i = 0; i < shapes.size(); ++i) {
      void* args[] = {xs[i].data(), wa[i].data(), ys[i].data()};
      sum[shapes[i]] += seconds([&] { dev.launch(progs[i], args); });
    }
    for (const auto& [s, t] : sum) per[s].push_back(t);
  }
  const double a = median(ta), d = median(td), gb = static_cast<double>(bytes) / 1e9;
  std::printf(
      "asc-decode-gemv-bench: Qwen2.5-%s %s, %zu MatMuls at M=1 (asc: %s), %.3f GB of weights, "
      "%d threads\n",
      model.c_str(), type.c_str(), shapes.size(), packed ? "PackedMatMul" : "MatMul", gb, kThreads);
  std::printf("read bandwidth (same run): %.1f GB/s -> bound %.2f ms per step\n", bw,
              gb / bw * 1e3);
  std::printf("asc    %.2f ms  %.1f GB/s  %.0f%% of read bandwidth\n", a * 1e3, gb / a,
              100.0 * gb / a / bw);
  std::printf("oneDNN %.2f ms  %.1f GB/s  %.0f%% of read bandwidth   asc/oneDNN speed %.2f\n",
              d * 1e3, gb / d, 100.0 * gb / d / bw, d / a);
  {  // fixed cost of a launch: the first k/v matrix (229 KB bf16) again and again, cache-warm
    void* args[] = {xs[1].data(), wa[1].data(), ys[1].data()};
    std::vector<double> t;
    for (int r = 0; r < 2000; ++r) t.push_back(seconds([&] { dev.launch(progs[1], args); }));
    std::printf("warm launch of %lld x %lld: median %.1f us\n",
                static_cast<long long>(shapes[1].first), static_cast<long long>(shapes[1].second),
                median(t) * 1e6);
  }
  std::printf("\nasc per shape (K x N: launches, ms per step, GB/s, tiling)\n");
  for (const auto& [s, v] : per) {
    const auto n = std::count(shapes.begin(), shapes.end(), s);
    const size_t i =
        static_cast<size_t>(std::find(shapes.begin(), shapes.end(), s) - shapes.begin());
    const double gbs =
        static_cast<double>(n) * static_cast<double>(w[i].nbytes()) / median(v) / 1e9;
    std::printf("%6lld x %-6lld %4lld %8.2f %6.1f  %s\n", static_cast<long long>(s.first),
                static_cast<long long>(s.second), static_cast<long long>(n), median(v) * 1e3, gbs,
                asc::to_string(progs[i].grid).c_str());
  }
  return 0;
}
