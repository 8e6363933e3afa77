// Shared pieces of the AVX-512 GEMM kernels (gemm_avx512.cpp; the products with B made panel by
// panel, gemm_fill_avx512.cpp) and the one-row GEMV (gemv_avx512.cpp). Internal to
// runtime/devices/cpu: every function carries ASC_AVX512 and runs only after the CPU check.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "registry/dtype.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/im2col.h"

#define ASC_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,fma")))

namespace asc::cpu::gemm_detail {

// The software prefetch of a weight streamed from DRAM (the GEMV walks, the direct path, B rows
// packed in the micro-kernel): into L2, not L1. On the Zen 4 guest a bf16 decoding step of 0.5B
// took 34-41 ms this way against 42-52 ms with T0 prefetches (alternating runs,
// docs/PERFORMANCE.md): L1's few miss buffers held the streams back, and a line is read once.
constexpr _mm_hint kStreamHint = _MM_HINT_T1;

// Register tile of the f32 micro-kernels: kMr rows x kNr columns (two zmm), 2 * kMr accumulators
// (gemm.h's packed panels: A in panels of kMr rows, B of kNr columns).
constexpr int kMr = 12;
constexpr int kNr = 32;

// k chunk of the L1 blocking: one B panel chunk is kKcF32 * kNr * 4 bytes.
constexpr int64_t kKcF32 = 256;

// Products with B made panel by panel: the packed A block that stays in L2 while every B panel
// passes (larger: k chunks outermost, so A is read from memory once per chunk).
constexpr int64_t kAInL2Bytes = 1 << 20;

// The f32 micro-kernels by valid rows (table[rows - 1], rows 1..kMr): C[rows, 32] (+)= an A panel
// chunk (kMr per k) x a B panel chunk (bs per k), columns masked by m0/m1; pf, when not null, a
// stream fetched into L2 a line per k (gemm_avx512.cpp's ukr_f32).
using UkrF32 = void (*)(const float* a, const float* b, int64_t bs, int64_t k, float* c,
                        int64_t ldc, __mmask16 m0, __mmask16 m1, bool load_c, const float* pf);
const UkrF32* ukr_f32_table();

// The last T (1..kTailMax) columns of a B panel chunk (b: at its first such column, kNr per k)
// against one A panel, vectorised along A's rows with the columns broadcast: T FMAs per k where
// the micro-kernel spends a whole zmm per row on them (gemm_fill_avx512.cpp; table[T - 1]).
constexpr int kTailMax = 11;
using TailF32 = void (*)(const float* a, const float* b, int64_t k, float* c, int64_t ldc,
                         int64_t rows, bool load_c);
const TailF32* tail_f32_table();

// A B panel of `cols` valid columns split for the kernels: `body` columns (a multiple of 16) on
// the micro-kernel, the `tail` after them on tail_f32_table (a 7x7 map's 49 positions: 48 + 1, not
// 64 lanes; 14x14's 196: 192 + 4).
struct PanelSplit {
  int64_t body, tail;
};
inline PanelSplit panel_split(int64_t cols, int64_t max_tail = kTailMax) {
  const int64_t tail = cols % 16 <= max_tail ? cols % 16 : 0;
  return {cols - tail, tail};
}

// With panels outermost (A held in L2), the first B panel's pass reads each A chunk for the first
// time, from memory where the weight is not cached: the chunk read after panel p's at k0 — the
// next panel's, else the next chunk's first panel's — for the micro-kernel to fetch into L2 a line
// per k (its pf stream) while panel p runs.
inline const float* next_a_chunk(const float* pa, int64_t a_stride, int64_t p, int64_t panels_a,
                                 int64_t k0, int64_t kl, int64_t k) {
  if (p + 1 < panels_a) return pa + (p + 1) * a_stride + k0 * kMr;
  return k0 + kl < k ? pa + (k0 + kl) * kMr : nullptr;
}

// C of an empty contraction (k = 0): zeros, or unchanged when accumulating.
inline void empty_product(float* c, int64_t ldc, int64_t m, int64_t n, bool accumulate) {
  if (!accumulate)
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
}

ASC_AVX512 inline __mmask16 tail_mask(int64_t cols) {
  return cols >= 16 ? __mmask16(0xffff) : cols <= 0 ? __mmask16(0) : __mmask16((1u << cols) - 1);
}

// The even (odd) elements of the 32 floats lo:hi: a stride-2 row's 16 values.
ASC_AVX512 inline __m512 even_lanes(__m512 lo, __m512 hi) {
  const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  return _mm512_permutex2var_ps(lo, idx, hi);
}
ASC_AVX512 inline __m512 odd_lanes(__m512 lo, __m512 hi) {
  const __m512i idx = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return _mm512_permutex2var_ps(lo, idx, hi);
}

// cnt <= 16 elements p[0], p[2], ..., p[2 (cnt - 1)]; nothing past the last is read.
ASC_AVX512 inline __m512 load_evens(const float* p, int64_t cnt) {
  const int64_t span = 2 * cnt - 1;
  return even_lanes(_mm512_maskz_loadu_ps(tail_mask(span), p),
                    _mm512_maskz_loadu_ps(tail_mask(span - 16), p + 16));
}

// C[MR rows, 32 cols] (masked by m0/m1) = (load_c ? C : 0) + acc.
template <int MR>
ASC_AVX512 inline void store_tile(const __m512* acc0, const __m512* acc1, float* c, int64_t ldc,
                                  __mmask16 m0, __mmask16 m1, bool load_c) {
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    float* ci = c + i * ldc;
    __m512 r0 = acc0[i], r1 = acc1[i];
    if (load_c) {
      r0 = _mm512_add_ps(r0, _mm512_maskz_loadu_ps(m0, ci));
      r1 = _mm512_add_ps(r1, _mm512_maskz_loadu_ps(m1, ci + 16));
    }
    _mm512_mask_storeu_ps(ci, m0, r0);
    _mm512_mask_storeu_ps(ci + 16, m1, r1);
  }
}

// Input row xr's columns [lo, hi) into phase-plane rows: column u to row `dst[u % sc]` at u / sc.
ASC_AVX512 inline void split_row(const float* xr, int64_t xs, int64_t lo, int64_t hi, int64_t sc,
                                 float* const* dst) {
  if (xs == 1 && sc == 1) {  // (short rows: a library copy call costs more than the copy)
    for (int64_t u = lo; u < hi; u += 16) {
      const __mmask16 m = tail_mask(hi - u);
      _mm512_mask_storeu_ps(dst[0] + u, m, _mm512_maskz_loadu_ps(m, xr + u));
    }
    return;
  }
  int64_t u = lo;
  if (xs == 1 && sc == 2) {
    if (u < hi && u % 2 == 1) {
      dst[1][u / 2] = xr[u];
      ++u;
    }
    for (; u < hi; u += 32) {
      const int64_t cnt = std::min<int64_t>(32, hi - u);
      const __m512 v0 = _mm512_maskz_loadu_ps(tail_mask(cnt), xr + u);
      const __m512 v1 = _mm512_maskz_loadu_ps(tail_mask(cnt - 16), xr + u + 16);
      _mm512_mask_storeu_ps(dst[0] + u / 2, tail_mask((cnt + 1) / 2), even_lanes(v0, v1));
      _mm512_mask_storeu_ps(dst[1] + u / 2, tail_mask(cnt / 2), odd_lanes(v0, v1));
    }
    return;
  }
  for (; u < hi; ++u) dst[u % sc][u / sc] = xr[u * xs];
}

// 16 columns of B element type In at b[idx..], widened to f32 (masked).
template <DType In>
ASC_AVX512 inline __m512 load_b(const void* b, int64_t idx, __mmask16 mask) {
  if constexpr (In == DType::kF32) {
    return _mm512_maskz_loadu_ps(mask, static_cast<const float*>(b) + idx);
  } else if constexpr (In == DType::kF16) {
    // The maskz forms avoid g++ 12's spurious -Wmaybe-uninitialized on _mm512_undefined_*().
    const __m256i h = _mm256_maskz_loadu_epi16(mask, static_cast<const uint16_t*>(b) + idx);
    return _mm512_maskz_cvtph_ps(mask, h);
  } else {
    const __m256i h = _mm256_maskz_loadu_epi16(mask, static_cast<const uint16_t*>(b) + idx);
    return _mm512_castsi512_ps(
        _mm512_maskz_slli_epi32(mask, _mm512_maskz_cvtepu16_epi32(mask, h), 16));
  }
}

// unpacklo/hi_epi16 of rows kk, kk+1 give pairs for columns {0-3, 8-11, 16-19, 24-27} (lo) and
// {4-7, ...} (hi); these permutations restore column order (lanes of 64 bits = 4 bf16 columns).
ASC_AVX512 inline void interleave_rows(__m512i r0, __m512i r1, __m512i& out0, __m512i& out1) {
  const __m512i lo = _mm512_unpacklo_epi16(r0, r1), hi = _mm512_unpackhi_epi16(r0, r1);
  out0 = _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), hi);
  out1 = _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15), hi);
}

// B from its rows, one panel at a time against a packed A block (gemm_mmad_b_rows;
// gemm_fill_avx512.cpp).
ASC_AVX512 void mmad_f32_b_rows(const float* pa, const float* b, int64_t ldb, float* c, int64_t ldc,
                                int64_t m, int64_t n, int64_t k, bool accumulate, GemmAhead* ahead);

// Fills rows [k0, k0 + kl) of B's column panel q (kNr columns, the f32 packed layout: row r at
// dst + r * kNr) into dst. Called once per (panel, chunk): a panel's chunks in a row, or every
// panel's first chunk, then every panel's second, ...
struct PanelFill {
  void (*fn)(void* ctx, int64_t q, int64_t k0, int64_t kl, float* dst);
  void* ctx;
};
// gemm_mmad_a_panels (f32, A's panels a_stride apart) with B made by `fill` one k chunk of one
// panel at a time, right before the micro-kernels read it from L1. `ahead` (never null, started)
// is issued in step with the work.
ASC_AVX512 void mmad_f32_a_panels_fill(const float* pa, int64_t a_stride, const PanelFill& fill,
                                       float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                                       bool accumulate, GemmAhead* ahead);

// The same with B's rows read where they lie (row stride ldb, unit column stride).
ASC_AVX512 void mmad_f32_a_panels_rows(const float* pa, int64_t a_stride, const float* b,
                                       int64_t ldb, float* c, int64_t ldc, int64_t m, int64_t n,
                                       int64_t k, bool accumulate, GemmAhead* ahead);

// mmad_a_panels_planes' kernel (im2col.h; conv_planes_avx512.cpp): false, doing nothing, where
// the window does not apply or (unless `force`) packing would cost less.
ASC_AVX512 bool mmad_f32_planes(const float* pa, int64_t a_stride, const Im2colSource& src,
                                const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n,
                                int64_t k, bool accumulate, GemmAhead* ahead, bool force,
                                RowEpilogue* ep = nullptr);

// mmad_a_panels_winograd's kernel (im2col.h; conv_winograd_avx512.cpp): false, doing nothing,
// where the window is not a 2-D 3x3 of stride and dilation 1 or (unless `force`) too small.
ASC_AVX512 bool winograd_f32(const Im2col& g, int64_t k);  // the window and size it takes
ASC_AVX512 bool mmad_f32_winograd(const float* pa, int64_t a_stride, const Im2colSource& src,
                                  const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n,
                                  int64_t k, bool accumulate, bool force);

// The k column of row r's first tap in its A panel: r * window in the block-diagonal layout, or
// `taps_k` for every row where the panels carry their taps compactly after K (taps_k >= 0:
// mmad_a_panels_diag_map).
inline int64_t diag_taps_k(int64_t r, int64_t window, int64_t taps_k) {
  return taps_k >= 0 ? taps_k : r * window;
}
// mmad_a_panels_diag_map's kernel (im2col.h) (depthwise_avx512.cpp).
ASC_AVX512 void mmad_f32_diag_map(const float* pa, int64_t a_stride, int64_t mr,
                                  const Im2colSource& src, const Im2col& g, float* c, int64_t ldc,
                                  int64_t m, int64_t n, int64_t k, bool accumulate, int64_t taps_k);
// mmad_f32_diag_map's form with 16 channels in the vector lanes (depthwise_lanes_avx512.cpp),
// their padded window transposed into a [rows][columns][16] block: small maps (at most 16
// columns and kLanePlaneMax positions), and larger windows of up to kLaneWindowMax positions
// that are strided or of at least kLaneWideTaps taps (a stride-1 3x3 over a wide map runs faster
// on the planes); 2-D windows of at most kLaneTaps taps, tiles of at least 8 channels
// (diag_lanes_apply).
constexpr int64_t kLanePlaneMax = 512;     // 32 KiB of L1
constexpr int64_t kLaneWindowMax = 16384;  // 1 MiB of L2
constexpr int64_t kLaneWideTaps = 25;
constexpr int64_t kLaneTaps = 64;
bool diag_lanes_apply(const Im2colSource& src, const Im2col& g, int64_t m);
ASC_AVX512 void mmad_f32_diag_lanes(const float* pa, int64_t a_stride, int64_t mr,
                                    const Im2colSource& src, const Im2col& g, float* c, int64_t ldc,
                                    int64_t m, int64_t n, int64_t k, bool accumulate,
                                    int64_t taps_k);
// gemm_mmad_a_panels_diag's f32 kernel: the kMr rows of an A panel run side by side, each over
// its own k range, against B's panels of kNr columns.
ASC_AVX512 void mmad_f32_diag(const float* pa, int64_t a_stride, const float* pb, float* c,
                              int64_t ldc, int64_t m, int64_t n, int64_t k, int64_t diag,
                              bool accumulate);

// One row of A times B (row-major, row stride ldb, element type in; A already f32): C[0, n)
// (+)= a x B, B read as groups of rows (gemv_avx512.cpp). gemv_rows widens B to f32;
// gemv_pairs_bf16 runs bf16 B on vdpbf16ps (A came from bf16).
void gemv_rows(DType in, const float* a, const void* b, int64_t ldb, float* c, int64_t n, int64_t k,
               bool accumulate);
// One row of A against B pre-packed in panels of 32 columns (gemm.h's packed B layout over the
// whole k; `stride` elements from one panel to the next; kp k units: k for f32, pairs for bf16):
// C[0, n) (+)= a x B. `a` holds kp f32 values, or for bf16 kp pairs (a[2u] low, a[2u+1] high).
ASC_AVX512 void gemv_panels(DType packed, const void* a, const void* pb, int64_t stride, float* c,
                            int64_t n, int64_t kp, bool accumulate);
ASC_AVX512 void gemv_pairs_bf16(const float* a, const uint16_t* b, int64_t ldb, float* c, int64_t n,
                                int64_t k, bool accumulate);

}  // namespace asc::cpu::gemm_detail
