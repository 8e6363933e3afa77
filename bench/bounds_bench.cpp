// The machine's ceilings that docs/PERFORMANCE.md measures asc against, on T threads:
//  - read bandwidth: T threads each summing its share of a 1 GiB f32 array, with 1 and with 4
//    interleaved streams per thread, software prefetch 2 KiB ahead into L1 (T0), into L2 (T1, as
//    asc's GEMV walks prefetch) or none (what a GEMV over the weights can hope for), and the best
//    of these;
//  - FMA peak: 12 independent AVX-512 (or AVX2) FMA chains per thread, 2 flops per lane;
//  - bf16 dot-product peak (where avx512_bf16 exists): 12 vdpbf16ps chains, 4 flops per lane
//    (two products and two adds), the bf16 GEMM kernels' instruction;
//  - with 2 threads or more, two threads pinned to logical CPUs 0 and 1: a cache line passed back
//    and forth (the round trip: about 100 ns inside one core complex, 450 ns between two on the
//    Zen 5 guest), and CPU 0 writing 1.6 MB (an activation's size) after CPU 0 wrote it last,
//    after CPU 1 wrote it last, after CPU 1 read it, and after CPU 1 read it and flushed its lines:
//    what a core pays to write lines the other core holds.
// Run by hand:  asc-bounds-bench [threads (default 2)]
// Reports the median of 7 runs of each.
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "bench/bench_util.h"

namespace {

using Clock = std::chrono::steady_clock;

using asc::bench::median;

// Sum of the 16 lanes (g++ 12 warns on _mm512_reduce_add_ps's undefined register).
__attribute__((target("avx512f"))) float lanes_sum(__m512 v) {
  alignas(64) float f[16];
  _mm512_store_ps(f, v);
  float s = 0;
  for (float x : f) s += x;
  return s;
}

template <typename F>
double run_threads(int threads, F&& body) {
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(body, t);
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

enum class Prefetch { kL1, kL2, kNone };

const char* name(Prefetch p) {
  return p == Prefetch::kL1 ? "T0 (L1)" : p == Prefetch::kL2 ? "T1 (L2)" : "none";
}

template <Prefetch P>
__attribute__((target("avx512f"))) float sum_streams(const float* a, size_t n, int streams) {
  const size_t len = n / static_cast<size_t>(streams) / 16 * 16;
  __m512 s = _mm512_setzero_ps();
  for (size_t i = 0; i < len; i += 16)
    for (int k = 0; k < streams; ++k) {
      const float* p = a + static_cast<size_t>(k) * len + i;
      if constexpr (P == Prefetch::kL1)
        _mm_prefetch(reinterpret_cast<const char*>(p + 512), _MM_HINT_T0);
      else if constexpr (P == Prefetch::kL2)
        _mm_prefetch(reinterpret_cast<const char*>(p + 512), _MM_HINT_T1);
      s = _mm512_add_ps(s, _mm512_loadu_ps(p));
    }
  return lanes_sum(s);
}

float sum_streams(Prefetch p, const float* a, size_t n, int streams) {
  switch (p) {
    case Prefetch::kL1:
      return sum_streams<Prefetch::kL1>(a, n, streams);
    case Prefetch::kL2:
      return sum_streams<Prefetch::kL2>(a, n, streams);
    default:
      return sum_streams<Prefetch::kNone>(a, n, streams);
  }
}

__attribute__((target("avx512f,fma"))) float fma_chains(long iters) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(0.001f * static_cast<float>(i));
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-4f);
  for (long it = 0; it < iters; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  __m512 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
  return lanes_sum(s);
}

__attribute__((target("avx512f,avx512bf16"))) float dpbf16_chains(long iters) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(0.001f * static_cast<float>(i));
  const __m512bh x = (__m512bh)_mm512_set1_epi32(0x3f7f3f7f), y = (__m512bh)_mm512_set1_epi32(0);
  for (long it = 0; it < iters; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], x, y);
  __m512 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
  return lanes_sum(s);
}

bool pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

// Round trip of one cache line between CPUs 0 and 1, in ns (median of 7 runs of 100 000).
double line_round_trip_ns() {
  std::vector<double> ns;
  for (int r = 0; r < 7; ++r) {
    alignas(64) std::atomic<int> flag{0};
    constexpr int kTrips = 100000;
    std::thread other([&] {
      pin(1);
      for (int i = 0; i < kTrips; ++i) {
        while (flag.load(std::memory_order_acquire) != 2 * i + 1) {
        }
        flag.store(2 * i + 2, std::memory_order_release);
      }
    });
    pin(0);
    const auto t0 = Clock::now();
    for (int i = 0; i < kTrips; ++i) {
      flag.store(2 * i + 1, std::memory_order_release);
      while (flag.load(std::memory_order_acquire) != 2 * i + 2) {
      }
    }
    ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / kTrips);
    other.join();
  }
  return median(ns);
}

__attribute__((target("avx512f"))) void write_lines(float* p, size_t n, float v) {
  const __m512 x = _mm512_set1_ps(v);
  for (size_t i = 0; i < n; i += 16) _mm512_store_ps(p + i, x);
}

__attribute__((target("avx512f"))) float read_lines(const float* p, size_t n) {
  __m512 s = _mm512_setzero_ps();
  for (size_t i = 0; i < n; i += 16) s = _mm512_add_ps(s, _mm512_load_ps(p + i));
  return lanes_sum(s);
}

__attribute__((target("clflushopt"))) void flush_lines(const float* p, size_t n) {
  for (size_t i = 0; i < n; i += 16) _mm_clflushopt(const_cast<float*>(p + i));
  _mm_sfence();
}

enum class Before { kSelfWrote, kOtherWrote, kOtherRead, kOtherReadFlushed };

const char* name(Before b) {
  switch (b) {
    case Before::kSelfWrote:
      return "CPU 0 wrote it last";
    case Before::kOtherWrote:
      return "CPU 1 wrote it last";
    case Before::kOtherRead:
      return "CPU 1 read it since";
    default:
      return "CPU 1 read and flushed it";
  }
}

// GB/s of CPU 0 writing n floats, each time after CPU 1 (or CPU 0) did `before` (median of 7 runs
// of 50 rounds).
double write_after(Before before, float* buf, size_t n) {
  std::vector<double> gbs;
  volatile float sink = 0;
  for (int r = 0; r < 7; ++r) {
    constexpr int kRounds = 50;
    std::atomic<int> turn{0};
    double secs = 0;
    std::thread other([&] {
      pin(1);
      for (int i = 0; i < kRounds; ++i) {
        while (turn.load(std::memory_order_acquire) != 2 * i + 1) {
        }
        if (before == Before::kOtherWrote) write_lines(buf, n, static_cast<float>(i));
        if (before == Before::kOtherRead || before == Before::kOtherReadFlushed)
          sink = sink + read_lines(buf, n);
        if (before == Before::kOtherReadFlushed) flush_lines(buf, n);
        turn.store(2 * i + 2, std::memory_order_release);
      }
    });
    pin(0);
    for (int i = 0; i < kRounds; ++i) {
      turn.store(2 * i + 1, std::memory_order_release);
      while (turn.load(std::memory_order_acquire) != 2 * i + 2) {
      }
      if (before == Before::kSelfWrote) write_lines(buf, n, 0.5f);
      const auto t0 = Clock::now();
      write_lines(buf, n, static_cast<float>(i));
      secs += std::chrono::duration<double>(Clock::now() - t0).count();
    }
    other.join();
    gbs.push_back(static_cast<double>(n * sizeof(float)) * kRounds / secs / 1e9);
  }
  return median(gbs);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
  if (!__builtin_cpu_supports("avx512f")) {
    std::fprintf(stderr, "asc-bounds-bench: needs AVX-512F\n");
    return 1;
  }
  const size_t n = size_t{1} << 28;  // 1 GiB of f32
  auto* a = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
  if (!a) return 1;
  std::memset(a, 0, n * sizeof(float));
  volatile float sink = 0;
  double best = 0;
  for (Prefetch p : {Prefetch::kL1, Prefetch::kL2, Prefetch::kNone})
    for (int streams : {1, 4}) {
      std::vector<double> gbs;
      for (int r = 0; r < 7; ++r) {
        const double s = run_threads(threads, [&](int t) {
          const size_t share = n / static_cast<size_t>(threads);
          sink = sink + sum_streams(p, a + share * static_cast<size_t>(t), share, streams);
        });
        gbs.push_back(static_cast<double>(n * sizeof(float)) / s / 1e9);
      }
      best = std::max(best, median(gbs));
      std::printf("read bandwidth, %d thread(s), %d stream(s) each, prefetch %s: %.1f GB/s\n",
                  threads, streams, name(p), median(gbs));
    }
  std::printf("read bandwidth, %d thread(s), best of the above: %.1f GB/s\n", threads, best);
  std::free(a);
  const long iters = 100000000;
  std::vector<double> gf;
  for (int r = 0; r < 7; ++r) {
    const double s = run_threads(threads, [&](int) { sink = sink + fma_chains(iters); });
    gf.push_back(static_cast<double>(threads) * iters * 12 * 32 / s / 1e9);
  }
  std::printf("f32 FMA peak, %d thread(s): %.1f GFLOP/s\n", threads, median(gf));
  if (__builtin_cpu_supports("avx512bf16")) {
    gf.clear();
    for (int r = 0; r < 7; ++r) {
      const double s = run_threads(threads, [&](int) { sink = sink + dpbf16_chains(iters); });
      gf.push_back(static_cast<double>(threads) * iters * 12 * 64 / s / 1e9);
    }
    std::printf("bf16 dot-product peak (vdpbf16ps), %d thread(s): %.1f GFLOP/s\n", threads,
                median(gf));
  }
  bool pinned = threads >= 2 && std::thread::hardware_concurrency() >= 2 && pin(0);
  if (pinned) std::thread([&] { pinned = pin(1); }).join();
  if (threads >= 2 && !pinned)
    std::printf(
        "cache line round trip and shared writes: not measured (cannot pin to CPUs 0 "
        "and 1)\n");
  if (pinned) {
    std::printf("cache line round trip, CPU 0 <-> CPU 1: %.0f ns\n", line_round_trip_ns());
    const size_t n = size_t{400} << 10;  // 1.6 MB of f32
    auto* buf = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
    if (!buf) return 1;
    std::memset(buf, 0, n * sizeof(float));
    const bool flush = __builtin_cpu_supports("clflushopt");
    for (Before b :
         {Before::kSelfWrote, Before::kOtherWrote, Before::kOtherRead, Before::kOtherReadFlushed})
      if (b != Before::kOtherReadFlushed || flush)
        std::printf("CPU 0 writing 1.6 MB, %s: %.1f GB/s\n", name(b), write_after(b, buf, n));
    std::free(buf);
  }
  return 0;
}
