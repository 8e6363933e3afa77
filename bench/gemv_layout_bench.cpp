// Which bf16 weight layout a batch-1 decode step can stream at the machine's read bandwidth
// (docs/PERFORMANCE.md, "Weight layout for M = 1"). 116 matrices of 896 x 4864 bf16 (1.01 GB,
// far past any L3) multiplied by one activation row on 2 threads, each thread half the outputs:
//   rows  : B [K, N] row-major as the model stores it, strips of 128 columns x 128-row k blocks
//           widened to f32 and FMA'd (the pattern of asc's M = 1 direct path, gemm_avx512.cpp);
//   pairs : the same layout, k pairs interleaved in registers and vdpbf16ps (x in bf16);
//   nt    : B^T [N, K] (each output's weights contiguous), one vdpbf16ps per 32 weights;
//   sum   : a plain sum of the same bytes, each thread its contiguous half (the read ceiling).
// Sweeps run every variant once in turn; medians over the sweeps and the ratio to `sum`.
//   build/bench/asc-gemv-layout-bench [sweeps]
#include <immintrin.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"

namespace {

#define BENCH_AVX512 __attribute__((target("avx512f,avx512bw,avx512bf16")))

constexpr int kK = 896, kN = 4864, kMats = 116;
constexpr int kStrip = 128, kKBlock = 128;

// The maskz forms avoid g++ 12's spurious -Wmaybe-uninitialized on _mm512_undefined_*().
BENCH_AVX512 inline __m512 widen(__m256i h) {
  return _mm512_castsi512_ps(
      _mm512_maskz_slli_epi32(0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, h), 16));
}

BENCH_AVX512 inline float horizontal_sum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float s = 0;
  for (float l : lanes) s += l;
  return s;
}

// y[j0:j1] = x . B[:, j0:j1], B row-major [kK, kN]: asc's direct-path walk.
BENCH_AVX512 void rows(const float* x, const uint16_t* b, float* y, int j0, int j1) {
  for (int j = j0; j < j1; ++j) y[j] = 0;
  for (int k0 = 0; k0 < kK; k0 += kKBlock)
    for (int s = j0; s < j1; s += kStrip) {
      __m512 acc[kStrip / 16];
      for (auto& a : acc) a = _mm512_setzero_ps();
      for (int k = k0; k < k0 + kKBlock; ++k) {
        if (k + 6 < k0 + kKBlock)
          for (int o = 0; o < kStrip; o += 32) _mm_prefetch(b + (k + 6) * kN + s + o, _MM_HINT_T0);
        const __m512 xv = _mm512_set1_ps(x[k]);
        for (int v = 0; v < kStrip / 16; ++v)
          acc[v] = _mm512_fmadd_ps(
              xv,
              widen(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + k * kN + s + 16 * v))),
              acc[v]);
      }
      for (int v = 0; v < kStrip / 16; ++v)
        _mm512_storeu_ps(y + s + 16 * v, _mm512_add_ps(_mm512_loadu_ps(y + s + 16 * v), acc[v]));
    }
}

// The same walk with k pairs interleaved into vdpbf16ps operands (x as bf16 pairs).
BENCH_AVX512 void pairs(const uint16_t* xb, const uint16_t* b, float* y, int j0, int j1) {
  const __m512i lo_idx = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i hi_idx = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  for (int j = j0; j < j1; ++j) y[j] = 0;
  for (int k0 = 0; k0 < kK; k0 += kKBlock)
    for (int s = j0; s < j1; s += kStrip) {
      __m512 acc[kStrip / 16];
      for (auto& a : acc) a = _mm512_setzero_ps();
      for (int k = k0; k < k0 + kKBlock; k += 2) {
        uint32_t pair;
        std::memcpy(&pair, xb + k, 4);
        const __m512bh xv = (__m512bh)_mm512_set1_epi32(static_cast<int>(pair));
        for (int v = 0; v < kStrip / 32; ++v) {
          const __m512i r0 = _mm512_loadu_si512(b + k * kN + s + 32 * v);
          const __m512i r1 = _mm512_loadu_si512(b + (k + 1) * kN + s + 32 * v);
          const __m512i lo = _mm512_unpacklo_epi16(r0, r1), hi = _mm512_unpackhi_epi16(r0, r1);
          acc[2 * v] =
              _mm512_dpbf16_ps(acc[2 * v], xv, (__m512bh)_mm512_permutex2var_epi64(lo, lo_idx, hi));
          acc[2 * v + 1] = _mm512_dpbf16_ps(acc[2 * v + 1], xv,
                                            (__m512bh)_mm512_permutex2var_epi64(lo, hi_idx, hi));
        }
      }
      for (int v = 0; v < kStrip / 16; ++v)
        _mm512_storeu_ps(y + s + 16 * v, _mm512_add_ps(_mm512_loadu_ps(y + s + 16 * v), acc[v]));
    }
}

// y[j0:j1] from B^T [kN, kK]: four output rows at a time, 64 weights per row per step.
BENCH_AVX512 void nt(const uint16_t* xb, const uint16_t* bt, float* y, int j0, int j1) {
  for (int j = j0; j < j1; j += 4) {
    __m512 acc[4][2];
    for (auto& r : acc) r[0] = r[1] = _mm512_setzero_ps();
    const uint16_t* r0 = bt + j * kK;
    for (int k = 0; k < kK; k += 64) {
      const __m512bh x0 = (__m512bh)_mm512_loadu_si512(xb + k);
      const __m512bh x1 = (__m512bh)_mm512_loadu_si512(xb + k + 32);
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) {
        acc[r][0] = _mm512_dpbf16_ps(acc[r][0], x0, (__m512bh)_mm512_loadu_si512(r0 + r * kK + k));
        acc[r][1] =
            _mm512_dpbf16_ps(acc[r][1], x1, (__m512bh)_mm512_loadu_si512(r0 + r * kK + k + 32));
      }
    }
    for (int r = 0; r < 4; ++r) y[j + r] = horizontal_sum(_mm512_add_ps(acc[r][0], acc[r][1]));
  }
}

BENCH_AVX512 float sum(const uint16_t* p, size_t elems) {
  __m512 a[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                 _mm512_setzero_ps()};
  for (size_t i = 0; i < elems; i += 128)
    for (int v = 0; v < 4; ++v) a[v] = _mm512_add_ps(a[v], _mm512_loadu_ps(p + i + 32 * v));
  return horizontal_sum(_mm512_add_ps(_mm512_add_ps(a[0], a[1]), _mm512_add_ps(a[2], a[3])));
}

// Runs body(thread) on 2 threads and returns the wall-clock seconds.
double on_two_threads(const std::function<void(int)>& body) {
  return asc::bench::seconds([&] {
    std::thread other([&] { body(1); });
    body(0);
    other.join();
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512bf16")) {
    std::printf("this CPU has no AVX-512 BF16: nothing to compare\n");
    return 0;
  }
  const int sweeps = argc > 1 ? std::max(3, std::atoi(argv[1])) : 9;
  const size_t elems = static_cast<size_t>(kK) * kN;
  std::vector<std::unique_ptr<uint16_t, void (*)(void*)>> w;
  for (int m = 0; m < kMats; ++m) {
    w.emplace_back(static_cast<uint16_t*>(std::aligned_alloc(4096, elems * 2)), &std::free);
    for (size_t i = 0; i < elems; ++i) w.back().get()[i] = static_cast<uint16_t>(0x3f80 + (i & 7));
  }
  std::vector<float> x(kK, 0.5f), y(kN);
  std::vector<uint16_t> xb(kK, 0x3f00);  // 0.5 in bf16
  volatile float sink = 0;
  struct Variant {
    std::string name;
    std::function<void(int)> body;
    std::vector<double> s;
  };
  auto half = [](int t) { return std::pair<int, int>{t * kN / 2, (t + 1) * kN / 2}; };
  std::vector<Variant> vs = {
      {"rows (asc's direct path, widen + FMA)",
       [&](int t) {
         for (auto& m : w) rows(x.data(), m.get(), y.data(), half(t).first, half(t).second);
       },
       {}},
      {"pairs (row-major, vdpbf16ps)",
       [&](int t) {
         for (auto& m : w) pairs(xb.data(), m.get(), y.data(), half(t).first, half(t).second);
       },
       {}},
      {"nt (B^T rows, vdpbf16ps)",
       [&](int t) {
         for (auto& m : w) nt(xb.data(), m.get(), y.data(), half(t).first, half(t).second);
       },
       {}},
      {"sum (read ceiling)",
       [&](int t) {
         for (auto& m : w) sink = sink + sum(m.get() + t * elems / 2, elems / 2);
       },
       {}},
  };
  for (auto& v : vs) v.body(0);  // page faults, warm-up
  std::vector<std::vector<double>> ratio(vs.size());
  for (int r = 0; r < sweeps; ++r) {
    for (auto& v : vs) v.s.push_back(on_two_threads(v.body));
    for (size_t k = 0; k < vs.size(); ++k) ratio[k].push_back(vs.back().s.back() / vs[k].s.back());
  }
  const double gb = static_cast<double>(elems) * 2 * kMats / 1e9;
  std::printf("%d x %dx%d bf16 (%.2f GB), 2 threads, %d sweeps\n\n", kMats, kK, kN, gb, sweeps);
  std::printf("| layout | median ms | GB/s | of the read ceiling (median per sweep) |\n");
  std::printf("|---|---:|---:|---:|\n");
  for (size_t k = 0; k < vs.size(); ++k) {
    const double s = asc::bench::median(vs[k].s);
    std::printf("| %s | %.1f | %.1f | %.2f |\n", vs[k].name.c_str(), s * 1e3, gb / s,
                asc::bench::median(ratio[k]));
  }
  return 0;
}
