// Products whose B is made panel by panel right before the micro-kernels read it (gemm.h): B's
// rows packed one panel at a time against a packed A block (gemm_mmad_b_rows), and B filled one
// k chunk of one panel at a time into L1 against A's pre-packed panels — a convolution's column
// matrix (im2col.h) or X's rows (gemm_mmad_a_panels_b_rows). The micro-kernels are
// gemm_avx512.cpp's (ukr_f32_table).
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <utility>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"

namespace asc::cpu::gemm_detail {
namespace {

// gemm_mmad_b_rows: prefetch distance in panels (1, 2, 4 and 8 measured the same), and its k chunk:
// 64 rows, so one chunk's rows (a page each for a large weight) fit the L1 DTLB (+2-3 % prefill
// against 256).
constexpr int64_t kBRowsAhead = 2;
constexpr int64_t kKcBRows = 64;

}  // namespace

// B from its rows, one panel at a time (gemm_mmad_b_rows): the panel of kNr columns x kl rows is
// packed into a per-thread buffer (the f32 packed layout), run against every A panel, while the
// next panel's rows are prefetched, spread over those micro-kernel calls.
ASC_AVX512 void mmad_f32_b_rows(const float* pa, const float* b, int64_t ldb, float* c, int64_t ldc,
                                int64_t m, int64_t n, int64_t k, bool accumulate,
                                GemmAhead* ahead) {
  const UkrF32* table = ukr_f32_table();
  if (k == 0) return empty_product(c, ldc, m, n, accumulate);
  alignas(64) static thread_local float panel[kKcBRows * kNr];
  const int64_t panels_a = (m + kMr - 1) / kMr, panels_b = (n + kNr - 1) / kNr;
  const int64_t total = (k + kKcBRows - 1) / kKcBRows * panels_b * panels_a;
  int64_t calls = 0;
  for (int64_t k0 = 0; k0 < k; k0 += kKcBRows) {
    const int64_t kl = std::min(kKcBRows, k - k0);
    const bool load_c = accumulate || k0 > 0;
    for (int64_t q = 0; q < panels_b; ++q) {
      const int64_t cols = n - q * kNr;
      const float* src = b + k0 * ldb + q * kNr;
      if (cols >= kNr) {
        for (int64_t kk = 0; kk < kl; ++kk) {
          _mm512_store_ps(panel + kk * kNr, _mm512_loadu_ps(src + kk * ldb));
          _mm512_store_ps(panel + kk * kNr + 16, _mm512_loadu_ps(src + kk * ldb + 16));
        }
      } else {
        const __mmask16 m0 = tail_mask(cols), m1 = tail_mask(cols - 16);
        for (int64_t kk = 0; kk < kl; ++kk) {
          _mm512_store_ps(panel + kk * kNr, _mm512_maskz_loadu_ps(m0, src + kk * ldb));
          _mm512_store_ps(panel + kk * kNr + 16, _mm512_maskz_loadu_ps(m1, src + kk * ldb + 16));
        }
      }
      // The panel kBRowsAhead on: in this chunk's columns, else in the next chunk's.
      const int64_t t = q + kBRowsAhead, t2 = t - panels_b;
      const float* next = t < panels_b                   ? src + kBRowsAhead * kNr
                          : k0 + kl < k && t2 < panels_b ? b + (k0 + kl) * ldb + t2 * kNr
                                                         : nullptr;
      const int64_t next_rows = t < panels_b ? kl : std::min(kKcBRows, k - k0 - kl);
      const __mmask16 m0 = tail_mask(cols), m1 = tail_mask(cols - 16);
      int64_t row = 0;
      for (int64_t p = 0; p < panels_a; ++p) {
        ahead->issue(++calls, total);
        if (next)
          for (const int64_t until = next_rows * (p + 1) / panels_a; row < until; ++row) {
            _mm_prefetch(reinterpret_cast<const char*>(next + row * ldb), _MM_HINT_T1);
            _mm_prefetch(reinterpret_cast<const char*>(next + row * ldb + 16), _MM_HINT_T1);
          }
        table[std::min<int64_t>(kMr, m - p * kMr) - 1](pa + (p * k + k0) * kMr, panel, kNr, kl,
                                                       c + p * kMr * ldc + q * kNr, ldc, m0, m1,
                                                       load_c, nullptr);
      }
    }
  }
}

namespace {

// tail_f32_table's kernels: A's kMr rows in a zmm's low lanes.
template <int T>
ASC_AVX512 void tail_cols(const float* a, const float* b, int64_t k, float* c, int64_t ldc,
                          int64_t rows, bool load_c) {
  constexpr int U = T >= 4 ? 1 : 4 / T;  // independent sums per column: FMA latency hidden
  const __mmask16 am = (1u << kMr) - 1;
  __m512 acc[U][T];
  for (int u = 0; u < U; ++u)
    for (int j = 0; j < T; ++j) acc[u][j] = _mm512_setzero_ps();
  int64_t kk = 0;
  for (; kk + U <= k; kk += U)
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      const __m512 av = _mm512_maskz_loadu_ps(am, a + (kk + u) * kMr);
#pragma GCC unroll 11
      for (int j = 0; j < T; ++j)
        acc[u][j] = _mm512_fmadd_ps(av, _mm512_set1_ps(b[(kk + u) * kNr + j]), acc[u][j]);
    }
  for (; kk < k; ++kk) {
    const __m512 av = _mm512_maskz_loadu_ps(am, a + kk * kMr);
    for (int j = 0; j < T; ++j)
      acc[0][j] = _mm512_fmadd_ps(av, _mm512_set1_ps(b[kk * kNr + j]), acc[0][j]);
  }
  alignas(64) float sum[T][16];
  for (int j = 0; j < T; ++j) {
    __m512 v = acc[0][j];
    for (int u = 1; u < U; ++u) v = _mm512_add_ps(v, acc[u][j]);
    _mm512_store_ps(sum[j], v);
  }
  for (int64_t i = 0; i < rows; ++i)
    for (int j = 0; j < T; ++j) c[i * ldc + j] = (load_c ? c[i * ldc + j] : 0.0f) + sum[j][i];
}

template <int... T>
constexpr std::array<TailF32, sizeof...(T)> tail_table(std::integer_sequence<int, T...>) {
  return {tail_cols<T + 1>...};
}

}  // namespace

const TailF32* tail_f32_table() {
  static constexpr auto table = tail_table(std::make_integer_sequence<int, kTailMax>{});
  return table.data();
}

// B made panel by panel (mmad_f32_a_panels_fill): each k chunk of a panel is filled into a
// per-thread L1 buffer and run against every A panel before the next is made, so the column
// matrix of a convolution never leaves L1. Panels outermost where A stays in L2 (a panel's chunks
// in a row: the filler sets up a panel's source runs once). The last panel's columns past a
// multiple of 16, up to kTailMax of them, run on tail_f32_table (panel_split).
ASC_AVX512 void mmad_f32_a_panels_fill(const float* pa, int64_t a_stride, const PanelFill& fill,
                                       float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                                       bool accumulate, GemmAhead* ahead) {
  const UkrF32* table = ukr_f32_table();
  const TailF32* tails = tail_f32_table();
  if (k == 0) return empty_product(c, ldc, m, n, accumulate);
  alignas(64) static thread_local float panel[kKcF32 * kNr];
  const int64_t panels_a = (m + kMr - 1) / kMr, panels_b = (n + kNr - 1) / kNr;
  const int64_t chunks = (k + kKcF32 - 1) / kKcF32;
  // Panels outermost while A stays in L2 across them; else k chunks outermost, so each k chunk
  // of A (a weight too large for L2) is read from memory once for every panel.
  const bool a_in_l2 = panels_a * kMr * k * 4 <= kAInL2Bytes;
  for (int64_t it = 0; it < panels_b * chunks; ++it) {
    const int64_t q = a_in_l2 ? it / chunks : it % panels_b;
    const int64_t k0 = (a_in_l2 ? it % chunks : it / panels_b) * kKcF32;
    const int64_t cols = std::min<int64_t>(kNr, n - q * kNr);
    const auto [body, tail] = panel_split(cols);
    const __mmask16 m0 = tail_mask(body), m1 = tail_mask(body - 16);
    const int64_t kl = std::min(kKcF32, k - k0);
    const bool load_c = accumulate || k0 > 0;
    fill.fn(fill.ctx, q, k0, kl, panel);
    // A streamed from memory (too large for L2): during a chunk's last pass over the panels,
    // call p fetches panel p's rows of the next chunk, a line per k (the next K step's first
    // chunk, the next product's, is not fetched: that measured no better).
    const bool stream = !a_in_l2 && q == panels_b - 1 && k0 + kl < k;
    for (int64_t p = 0; p < panels_a; ++p) {
      ahead->issue(it * panels_a + p + 1, panels_b * chunks * panels_a);
      const float* a = pa + p * a_stride + k0 * kMr;
      const float* pf = stream              ? a + kl * kMr
                        : a_in_l2 && q == 0 ? next_a_chunk(pa, a_stride, p, panels_a, k0, kl, k)
                                            : nullptr;
      float* cp = c + p * kMr * ldc + q * kNr;
      const int64_t rows = std::min<int64_t>(kMr, m - p * kMr);
      if (body > 0) table[rows - 1](a, panel, kNr, kl, cp, ldc, m0, m1, load_c, pf);
      if (tail > 0) tails[tail - 1](a, panel + body, kl, cp + body, ldc, rows, load_c);
    }
  }
}

// mmad_f32_a_panels_rows' filler: rows of B copied into a panel, zero past its columns.
struct RowFill {
  const float* b;
  int64_t ldb, n;

  ASC_AVX512 static void fill(void* ctx, int64_t q, int64_t k0, int64_t kl, float* dst) {
    const auto& f = *static_cast<const RowFill*>(ctx);
    const int64_t cols = f.n - q * kNr;
    const __mmask16 m0 = tail_mask(cols), m1 = tail_mask(cols - 16);
    const float* src = f.b + k0 * f.ldb + q * kNr;
    for (int64_t r = 0; r < kl; ++r, src += f.ldb, dst += kNr) {
      // The panel two on in this row: B's k rows are more streams than the hardware follows.
      _mm_prefetch(reinterpret_cast<const char*>(src + 2 * kNr), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(src + 2 * kNr + 16), _MM_HINT_T0);
      _mm512_store_ps(dst, _mm512_maskz_loadu_ps(m0, src));
      _mm512_store_ps(dst + 16, _mm512_maskz_loadu_ps(m1, src + 16));
    }
  }
};

ASC_AVX512 void mmad_f32_a_panels_rows(const float* pa, int64_t a_stride, const float* b,
                                       int64_t ldb, float* c, int64_t ldc, int64_t m, int64_t n,
                                       int64_t k, bool accumulate, GemmAhead* ahead) {
  RowFill f{b, ldb, n};
  mmad_f32_a_panels_fill(pa, a_stride, {&RowFill::fill, &f}, c, ldc, m, n, k, accumulate, ahead);
}

}  // namespace asc::cpu::gemm_detail
