// AVX2/FMA GEMM micro-kernels (f32 only; f16/bf16 are widened to f32 when packing). Compiled
// without -march: every function that uses the intrinsics carries ASC_AVX2.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <utility>

#include "runtime/devices/cpu/gemm.h"

#define ASC_AVX2 __attribute__((target("avx2,fma,f16c")))

namespace asc::cpu::gemm_detail {
namespace {

// Register tile: 6 rows x 16 columns (two ymm), 12 accumulators.
constexpr int kMr = 6;
constexpr int kNr = 16;
constexpr int64_t kKc = 256;

template <int MR>
ASC_AVX2 void ukr_f32(const float* a, const float* b, int64_t k, float* c, int64_t ldc,
                      int64_t cols, bool load_c) {
  __m256 acc0[MR], acc1[MR];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) acc0[i] = acc1[i] = _mm256_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
    _mm_prefetch(reinterpret_cast<const char*>(b + 8 * kNr), _MM_HINT_T0);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i);
      acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);
      acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);
    }
    a += kMr;
    b += kNr;
  }
  if (cols >= kNr) {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      float* ci = c + i * ldc;
      __m256 r0 = acc0[i], r1 = acc1[i];
      if (load_c) {
        r0 = _mm256_add_ps(r0, _mm256_loadu_ps(ci));
        r1 = _mm256_add_ps(r1, _mm256_loadu_ps(ci + 8));
      }
      _mm256_storeu_ps(ci, r0);
      _mm256_storeu_ps(ci + 8, r1);
    }
    return;
  }
  alignas(32) float tmp[kNr];
  for (int i = 0; i < MR; ++i) {
    _mm256_store_ps(tmp, acc0[i]);
    _mm256_store_ps(tmp + 8, acc1[i]);
    float* ci = c + i * ldc;
    for (int64_t j = 0; j < cols; ++j) ci[j] = (load_c ? ci[j] : 0.0f) + tmp[j];
  }
}

using Ukr = void (*)(const float*, const float*, int64_t, float*, int64_t, int64_t, bool);

template <int... R>
constexpr std::array<Ukr, sizeof...(R)> make_table(std::integer_sequence<int, R...>) {
  return {ukr_f32<R + 1>...};
}

ASC_AVX2 void mmad_f32(const float* pa, const float* pb, float* c, int64_t ldc, int64_t m,
                       int64_t n, int64_t k, bool accumulate, GemmAhead* ahead, int64_t a_stride) {
  if (a_stride == 0) a_stride = k * kMr;
  static constexpr auto table = make_table(std::make_integer_sequence<int, kMr>{});
  if (k == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kl = std::min(kKc, k - k0);
    const bool load_c = accumulate || k0 > 0;
    for (int64_t q = 0; q * kNr < n; ++q) {
      ahead->issue(k0 * n + q * kNr * kl, k * n);
      const float* b = pb + (q * k + k0) * kNr;
      for (int64_t p = 0; p * kMr < m; ++p) {
        const float* a = pa + p * a_stride + k0 * kMr;
        const int64_t rows = std::min<int64_t>(kMr, m - p * kMr);
        table[rows - 1](a, b, kl, c + p * kMr * ldc + q * kNr, ldc, n - q * kNr, load_c);
      }
    }
  }
}

// ---- direct path: M rows of A (f32) x B rows streamed once, NV ymm of columns per chunk ----

template <DType In>
ASC_AVX2 inline __m256 load_b(const void* b, int64_t idx) {
  if constexpr (In == DType::kF32) {
    return _mm256_loadu_ps(static_cast<const float*>(b) + idx);
  } else {
    const __m128i h =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(b) + idx));
    if constexpr (In == DType::kF16) return _mm256_cvtph_ps(h);
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
}

template <DType In>
inline float load_b1(const void* b, int64_t idx) {
  if constexpr (In == DType::kF32)
    return static_cast<const float*>(b)[idx];
  else if constexpr (In == DType::kF16)
    return f16_to_f32(static_cast<const f16*>(b)[idx]);
  else
    return bf16_to_f32(static_cast<const bf16*>(b)[idx]);
}

// Columns [j0, j_end) in chunks of 8 * NV; returns where it stopped (the last partial chunk).
template <DType In, int M, int NV>
ASC_AVX2 int64_t direct_rows(const float* a, int64_t lda, const void* b, int64_t ldb, float* c,
                             int64_t ldc, int64_t j0, int64_t n, int64_t k, bool accumulate) {
  constexpr int64_t kW = 8 * NV;
  for (; j0 + kW <= n; j0 += kW) {
    __m256 acc[M][NV];
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_setzero_ps();
    for (int64_t kk = 0; kk < k; ++kk) {
      __m256 bv[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) bv[v] = load_b<In>(b, kk * ldb + j0 + 8 * v);
#pragma GCC unroll 8
      for (int i = 0; i < M; ++i) {
        const __m256 ai = _mm256_broadcast_ss(a + i * lda + kk);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        float* ci = c + i * ldc + j0 + 8 * v;
        _mm256_storeu_ps(ci,
                         accumulate ? _mm256_add_ps(acc[i][v], _mm256_loadu_ps(ci)) : acc[i][v]);
      }
    }
  }
  return j0;
}

template <DType In, int M, int NV>
ASC_AVX2 void direct_block(const float* a, int64_t lda, const void* b, int64_t ldb, float* c,
                           int64_t ldc, int64_t n, int64_t k, bool accumulate) {
  int64_t j0 = direct_rows<In, M, NV>(a, lda, b, ldb, c, ldc, 0, n, k, accumulate);
  j0 = direct_rows<In, M, 1>(a, lda, b, ldb, c, ldc, j0, n, k, accumulate);
  for (int64_t i = 0; i < M; ++i) {  // fewer than 8 columns left
    for (int64_t j = j0; j < n; ++j) {
      float s = 0.0f;
      for (int64_t kk = 0; kk < k; ++kk) s += a[i * lda + kk] * load_b1<In>(b, kk * ldb + j);
      c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.0f) + s;
    }
  }
}

template <DType In>
void direct_typed(const float* a, int64_t lda, const void* b, int64_t ldb, float* c, int64_t ldc,
                  int64_t m, int64_t n, int64_t k, bool accumulate) {
  for (int64_t i0 = 0; i0 < m; i0 += 4) {
    const float* ai = a + i0 * lda;
    float* ci = c + i0 * ldc;
    switch (std::min<int64_t>(4, m - i0)) {
      case 1:
        direct_block<In, 1, 4>(ai, lda, b, ldb, ci, ldc, n, k, accumulate);
        break;
      case 2:
        direct_block<In, 2, 4>(ai, lda, b, ldb, ci, ldc, n, k, accumulate);
        break;
      case 3:
        direct_block<In, 3, 2>(ai, lda, b, ldb, ci, ldc, n, k, accumulate);
        break;
      default:
        direct_block<In, 4, 2>(ai, lda, b, ldb, ci, ldc, n, k, accumulate);
        break;
    }
  }
}

void direct(DType in, const float* a, int64_t lda, const void* b, int64_t ldb, float* c,
            int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate) {
  switch (in) {
    case DType::kF16:
      direct_typed<DType::kF16>(a, lda, b, ldb, c, ldc, m, n, k, accumulate);
      break;
    case DType::kBF16:
      direct_typed<DType::kBF16>(a, lda, b, ldb, c, ldc, m, n, k, accumulate);
      break;
    default:
      direct_typed<DType::kF32>(a, lda, b, ldb, c, ldc, m, n, k, accumulate);
      break;
  }
}

}  // namespace

const GemmIsa* gemm_isa_avx2() {
  static const GemmIsa* isa = []() -> const GemmIsa* {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return nullptr;
    // F16C has no __builtin_cpu_supports name on every compiler; every AVX2 CPU has it.
    static const GemmIsa avx2{"avx2",
                              {kMr, kNr, 1, DType::kF32, "avx2"},
                              {0, 0, 0, DType::kUndefined, "avx2"},
                              mmad_f32,
                              nullptr,
                              direct,
                              nullptr,
                              nullptr,
                              nullptr,
                              nullptr};
    return &avx2;
  }();
  return isa;
}

}  // namespace asc::cpu::gemm_detail
