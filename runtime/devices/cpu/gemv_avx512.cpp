// The one-row GEMV of the CPU device (a batch-1 decoding step) on AVX-512: B streamed as groups
// of rows, C as the accumulator (gemm_avx512.h).
#include <array>
#include <cstring>
#include <utility>

#include "runtime/devices/cpu/gemm_avx512.h"

namespace asc::cpu::gemm_detail {
namespace {

// ---- one row of A (a batch-1 decoding step): B streamed as row groups, C as accumulator ----
//
// B is read kRowGroup rows at a time, each row over all n columns, into C (n floats, in L1/L2):
// eight long sequential streams keep the hardware prefetchers busy, where a walk of short column
// strips down the rows leaves them idle (docs/PERFORMANCE.md, "What makes it fast": the 0.5B decode
// step's f32 MatMuls went from 0.86 to 1.01-1.02 of oneDNN's speed in asc-decode-gemv-bench).
constexpr int kRowGroup = 8;

// A 32-float chunk of C: loaded (zero when !load_c) and stored back, masked only when not kFull
// (masked loads and stores on every chunk cost these loops ~40 % on Zen 5).
template <bool kFull>
ASC_AVX512 inline void load_c32(const float* c, bool load_c, __mmask16 m0, __mmask16 m1, __m512& y0,
                                __m512& y1) {
  y0 = y1 = _mm512_setzero_ps();
  if (!load_c) return;
  y0 = kFull ? _mm512_loadu_ps(c) : _mm512_maskz_loadu_ps(m0, c);
  y1 = kFull ? _mm512_loadu_ps(c + 16) : _mm512_maskz_loadu_ps(m1, c + 16);
}

template <bool kFull>
ASC_AVX512 inline void store_c32(float* c, __mmask16 m0, __mmask16 m1, __m512 y0, __m512 y1) {
  if (kFull) {
    _mm512_storeu_ps(c, y0);
    _mm512_storeu_ps(c + 16, y1);
  } else {
    _mm512_mask_storeu_ps(c, m0, y0);
    _mm512_mask_storeu_ps(c + 16, m1, y1);
  }
}

// C[0, 32) (+)= sum over r < R of a[r] * B row r (32 columns; masked when not kFull): B element
// type In widened to f32. The same columns of the next group's rows are prefetched.
template <DType In, int R, bool kFull>
ASC_AVX512 inline void gemv_row_chunk(const __m512* av, const char* b, int64_t ldb_bytes, float* c,
                                      bool load_c, __mmask16 m0, __mmask16 m1) {
  __m512 y0, y1;
  load_c32<kFull>(c, load_c, m0, m1, y0, y1);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const char* row = b + r * ldb_bytes;
    _mm_prefetch(row + R * ldb_bytes, kStreamHint);
    if constexpr (In == DType::kF32) _mm_prefetch(row + R * ldb_bytes + 64, kStreamHint);
    __m512 w0, w1;
    if constexpr (kFull && In == DType::kF32) {
      w0 = _mm512_loadu_ps(row);
      w1 = _mm512_loadu_ps(row + 64);
    } else {
      w0 = load_b<In>(row, 0, m0);
      w1 = load_b<In>(row, 16, m1);
    }
    y0 = _mm512_fmadd_ps(av[r], w0, y0);
    y1 = _mm512_fmadd_ps(av[r], w1, y1);
  }
  store_c32<kFull>(c, m0, m1, y0, y1);
}

// ---- few columns of a B that fits in L2 (a recurrent step's R): sums in registers ----
//
// Up to kRegVectors vectors of C stay in registers over all of k while B is read row after row
// (one sequential stream where ldb == n; a gate block of an LSTM step is 256 KB), C read and
// written once: the row groups above load and store C every eight rows and chain eight FMAs per
// vector, which held an LSTM step's 1 MB R at ~22 bytes per cycle from L2. Two interleaved sets of
// sums where a row has at most four vectors, so each sum's FMA chain is not the bound.
constexpr int kRegVectors = 16;
constexpr int64_t kRegBytes = int64_t{1} << 20;

// B rows fetched into L1 this far ahead: the block streams from L2 (an RNN step's R), where the
// hardware's L1 prefetch alone left lstm_stack's steps ~5 % slower.
constexpr int64_t kRowsAhead = 8;

template <int NV>
ASC_AVX512 void gemv_rows_regs(const float* a, const float* b, int64_t ldb, float* c, int64_t n,
                               int64_t k, bool accumulate) {
  constexpr int U = NV <= 4 ? 2 : 1;
  const __mmask16 last = tail_mask(n - 16 * (NV - 1));
  __m512 acc[U][NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v)
    for (int u = 0; u < U; ++u) acc[u][v] = _mm512_setzero_ps();
  int64_t kk = 0;
  for (; kk + U <= k; kk += U)
#pragma GCC unroll 2
    for (int u = 0; u < U; ++u) {
      const __m512 av = _mm512_set1_ps(a[kk + u]);
      const float* row = b + (kk + u) * ldb;
      if (kk + u + kRowsAhead < k)
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v)
          _mm_prefetch(reinterpret_cast<const char*>(row + kRowsAhead * ldb + 16 * v), _MM_HINT_T0);
#pragma GCC unroll 16
      for (int v = 0; v + 1 < NV; ++v)
        acc[u][v] = _mm512_fmadd_ps(av, _mm512_loadu_ps(row + 16 * v), acc[u][v]);
      acc[u][NV - 1] =
          _mm512_fmadd_ps(av, _mm512_maskz_loadu_ps(last, row + 16 * (NV - 1)), acc[u][NV - 1]);
    }
  for (; kk < k; ++kk) {
    const __m512 av = _mm512_set1_ps(a[kk]);
    const float* row = b + kk * ldb;
    for (int v = 0; v + 1 < NV; ++v)
      acc[0][v] = _mm512_fmadd_ps(av, _mm512_loadu_ps(row + 16 * v), acc[0][v]);
    acc[0][NV - 1] =
        _mm512_fmadd_ps(av, _mm512_maskz_loadu_ps(last, row + 16 * (NV - 1)), acc[0][NV - 1]);
  }
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) {
    __m512 y = U == 2 ? _mm512_add_ps(acc[0][v], acc[U - 1][v]) : acc[0][v];
    const __mmask16 m = v + 1 < NV ? __mmask16(0xffff) : last;
    if (accumulate) y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(m, c + 16 * v));
    _mm512_mask_storeu_ps(c + 16 * v, m, y);
  }
}

using RegsFn = void (*)(const float*, const float*, int64_t, float*, int64_t, int64_t, bool);
template <int... V>
constexpr std::array<RegsFn, sizeof...(V)> regs_fns(std::integer_sequence<int, V...>) {
  return {gemv_rows_regs<V + 1>...};
}
constexpr auto regs_table = regs_fns(std::make_integer_sequence<int, kRegVectors>{});

template <DType In, int R>
ASC_AVX512 void gemv_row_group(const float* a, const void* b, int64_t ldb, float* c, int64_t n,
                               bool load_c) {
  constexpr int64_t kElem = In == DType::kF32 ? 4 : 2;
  __m512 av[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) av[r] = _mm512_set1_ps(a[r]);
  const char* bb = static_cast<const char*>(b);
  int64_t j = 0;
  for (; j + 32 <= n; j += 32)
    gemv_row_chunk<In, R, true>(av, bb + j * kElem, ldb * kElem, c + j, load_c, 0xffff, 0xffff);
  if (j < n)
    gemv_row_chunk<In, R, false>(av, bb + j * kElem, ldb * kElem, c + j, load_c, tail_mask(n - j),
                                 tail_mask(n - j - 16));
}

template <DType In>
ASC_AVX512 void gemv_rows_typed(const float* a, const void* b, int64_t ldb, float* c, int64_t n,
                                int64_t k, bool accumulate) {
  constexpr int64_t kElem = In == DType::kF32 ? 4 : 2;
  const char* bb = static_cast<const char*>(b);
  int64_t k0 = 0;
  for (; k0 + kRowGroup <= k; k0 += kRowGroup)
    gemv_row_group<In, kRowGroup>(a + k0, bb + k0 * ldb * kElem, ldb, c, n, accumulate || k0 > 0);
  for (; k0 < k; ++k0)
    gemv_row_group<In, 1>(a + k0, bb + k0 * ldb * kElem, ldb, c, n, accumulate || k0 > 0);
}

template <int P, bool kFull>
ASC_AVX512 inline void gemv_pair_chunk(const __m512bh* av, const uint16_t* b, int64_t ldb, float* c,
                                       bool load_c, bool single, __mmask16 m0, __mmask16 m1) {
  const __mmask32 mb = __mmask32(m0) | (__mmask32(m1) << 16);
  __m512 y0, y1;
  load_c32<kFull>(c, load_c, m0, m1, y0, y1);
#pragma GCC unroll 8
  for (int t = 0; t < P; ++t) {
    const uint16_t* r0 = b + 2 * t * ldb;
    // The same columns of the next group's rows (prefetches never fault past B's end).
    _mm_prefetch(reinterpret_cast<const char*>(r0 + 2 * P * ldb), kStreamHint);
    _mm_prefetch(reinterpret_cast<const char*>(r0 + (2 * P + 1) * ldb), kStreamHint);
    const __m512i x0 = kFull ? _mm512_loadu_si512(r0) : _mm512_maskz_loadu_epi16(mb, r0);
    const __m512i x1 = single && t == P - 1 ? _mm512_setzero_si512()
                       : kFull              ? _mm512_loadu_si512(r0 + ldb)
                                            : _mm512_maskz_loadu_epi16(mb, r0 + ldb);
    __m512i p0, p1;
    interleave_rows(x0, x1, p0, p1);
    y0 = _mm512_dpbf16_ps(y0, av[t], (__m512bh)p0);
    y1 = _mm512_dpbf16_ps(y1, av[t], (__m512bh)p1);
  }
  store_c32<kFull>(c, m0, m1, y0, y1);
}

// bf16 B with dot products: P pairs of rows; each pair interleaved in registers and multiplied
// with vdpbf16ps against the broadcast pair (a[2t], a[2t+1]). `single`: the last pair has only its
// first row (k odd), the second is zero. Masked loads and stores only for the column tail (they
// cost this loop ~40 % on Zen 5).
template <int P>
ASC_AVX512 void gemv_pair_group(const uint32_t* ap, const uint16_t* b, int64_t ldb, float* c,
                                int64_t n, bool load_c, bool single = false) {
  __m512bh av[P];
#pragma GCC unroll 8
  for (int t = 0; t < P; ++t) av[t] = (__m512bh)_mm512_set1_epi32(static_cast<int>(ap[t]));
  int64_t j = 0;
  for (; j + 32 <= n; j += 32)
    gemv_pair_chunk<P, true>(av, b + j, ldb, c + j, load_c, single, 0xffff, 0xffff);
  if (j < n)
    gemv_pair_chunk<P, false>(av, b + j, ldb, c + j, load_c, single, tail_mask(n - j),
                              tail_mask(n - j - 16));
}

// ---- one row of A against B pre-packed as panels (gemm.h's packed B layout, whole K) ----
//
// Panel q holds columns [q*32, q*32 + 32) over all k, contiguous: kPanelStreams panels (far apart
// in memory: evenly spaced through the caller's range) are walked at once, each one sequential
// stream with its 32 sums in two registers and a software prefetch kPanelAhead bytes ahead. No
// accumulator traffic, no shuffles: 0.5B's 896 x 4864 bf16 weights streamed at 56-66 GB/s where
// the row-major walk above reads 33-40 (throwaway test on the Zen 5 guest, docs/PERFORMANCE.md).
constexpr int kPanelStreams = 4;
constexpr int64_t kPanelAhead = 2048;

// Panels first, first + step, .. (S of them): C[q*32, +32) (+)= a x panel q.
template <DType In, int S>
ASC_AVX512 void gemv_panel_set(const void* a, const void* pb, int64_t stride, float* c, int64_t n,
                               int64_t kp, bool accumulate, int64_t first, int64_t step) {
  constexpr int64_t kUnit = 128;  // bytes of one k unit of a panel: 32 f32, or 32 bf16 pairs
  const char* base = static_cast<const char*>(pb);
  const int64_t sb = stride * (In == DType::kF32 ? 4 : 2);
  const char* s[S];
  __m512 y[2 * S];
#pragma GCC unroll 4
  for (int q = 0; q < S; ++q) {
    s[q] = base + (first + q * step) * sb;
    y[2 * q] = y[2 * q + 1] = _mm512_setzero_ps();
  }
  for (int64_t u = 0; u < kp; ++u) {
    __m512 av;
    if constexpr (In == DType::kF32)
      av = _mm512_set1_ps(static_cast<const float*>(a)[u]);
    else
      av = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<const int32_t*>(a)[u]));
#pragma GCC unroll 4
    for (int q = 0; q < S; ++q) {
      const char* r = s[q] + u * kUnit;
      _mm_prefetch(r + kPanelAhead, kStreamHint);
      _mm_prefetch(r + kPanelAhead + 64, kStreamHint);
      if constexpr (In == DType::kF32) {
        y[2 * q] =
            _mm512_fmadd_ps(av, _mm512_loadu_ps(reinterpret_cast<const float*>(r)), y[2 * q]);
        y[2 * q + 1] = _mm512_fmadd_ps(av, _mm512_loadu_ps(reinterpret_cast<const float*>(r + 64)),
                                       y[2 * q + 1]);
      } else {
        const __m512bh ab = (__m512bh)_mm512_castps_si512(av);
        y[2 * q] = _mm512_dpbf16_ps(y[2 * q], ab, (__m512bh)_mm512_loadu_si512(r));
        y[2 * q + 1] = _mm512_dpbf16_ps(y[2 * q + 1], ab, (__m512bh)_mm512_loadu_si512(r + 64));
      }
    }
  }
#pragma GCC unroll 4
  for (int q = 0; q < S; ++q) {
    const int64_t j = (first + q * step) * 32;
    const int64_t cols = n - j;
    const __mmask16 m0 = tail_mask(cols), m1 = tail_mask(cols - 16);
    __m512 y0 = y[2 * q], y1 = y[2 * q + 1];
    if (accumulate) {
      y0 = _mm512_add_ps(y0, _mm512_maskz_loadu_ps(m0, c + j));
      y1 = _mm512_add_ps(y1, _mm512_maskz_loadu_ps(m1, c + j + 16));
    }
    _mm512_mask_storeu_ps(c + j, m0, y0);
    _mm512_mask_storeu_ps(c + j + 16, m1, y1);
  }
}

template <DType In>
ASC_AVX512 void gemv_panels_typed(const void* a, const void* pb, int64_t stride, float* c,
                                  int64_t n, int64_t kp, bool accumulate) {
  const int64_t panels = (n + 31) / 32;
  const int64_t per = panels / kPanelStreams;  // S-stream sets: panel i of each quarter
  for (int64_t i = 0; i < per; ++i)
    gemv_panel_set<In, kPanelStreams>(a, pb, stride, c, n, kp, accumulate, i, per);
  for (int64_t q = per * kPanelStreams; q < panels; ++q)
    gemv_panel_set<In, 1>(a, pb, stride, c, n, kp, accumulate, q, 1);
}

}  // namespace

void gemv_rows(DType in, const float* a, const void* b, int64_t ldb, float* c, int64_t n, int64_t k,
               bool accumulate) {
  if (in == DType::kF32 && n <= 16 * kRegVectors && k * n * 4 <= kRegBytes)
    return regs_table[(n + 15) / 16 - 1](a, static_cast<const float*>(b), ldb, c, n, k, accumulate);
  switch (in) {
    case DType::kF16:
      return gemv_rows_typed<DType::kF16>(a, b, ldb, c, n, k, accumulate);
    case DType::kBF16:
      return gemv_rows_typed<DType::kBF16>(a, b, ldb, c, n, k, accumulate);
    default:
      return gemv_rows_typed<DType::kF32>(a, b, ldb, c, n, k, accumulate);
  }
}

ASC_AVX512 void gemv_pairs_bf16(const float* a, const uint16_t* b, int64_t ldb, float* c, int64_t n,
                                int64_t k, bool accumulate) {
  constexpr int kPairs = kRowGroup / 2;
  uint32_t ap[kPairs];
  int64_t k0 = 0;
  auto pack = [&](int pairs) {
    // A came from bf16 and was widened exactly; truncating back is exact.
    for (int t = 0; t < pairs; ++t) {
      uint32_t lo, hi = 0;
      std::memcpy(&lo, a + k0 + 2 * t, 4);
      if (k0 + 2 * t + 1 < k) std::memcpy(&hi, a + k0 + 2 * t + 1, 4);
      ap[t] = (lo >> 16) | (hi & 0xffff0000u);
    }
  };
  for (; k0 + kRowGroup <= k; k0 += kRowGroup) {
    pack(kPairs);
    gemv_pair_group<kPairs>(ap, b + k0 * ldb, ldb, c, n, accumulate || k0 > 0);
  }
  for (; k0 < k; k0 += 2) {
    pack(1);
    gemv_pair_group<1>(ap, b + k0 * ldb, ldb, c, n, accumulate || k0 > 0, k0 + 1 == k);
  }
}

}  // namespace asc::cpu::gemm_detail

namespace asc::cpu::gemm_detail {

ASC_AVX512 void gemv_panels(DType packed, const void* a, const void* pb, int64_t stride, float* c,
                            int64_t n, int64_t kp, bool accumulate) {
  if (packed == DType::kBF16)
    gemv_panels_typed<DType::kBF16>(a, pb, stride, c, n, kp, accumulate);
  else
    gemv_panels_typed<DType::kF32>(a, pb, stride, c, n, kp, accumulate);
}

}  // namespace asc::cpu::gemm_detail
