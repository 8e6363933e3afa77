// AVX-512 GEMM micro-kernels (f32 FMA; bf16 dot products, or bf16/f16 widened to f32); the
// one-row GEMV is in gemv_avx512.cpp. Compiled
// without -march: every function that uses the intrinsics carries ASC_AVX512 and runs only after
// the CPU check.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"

namespace asc::cpu::gemm_detail {
namespace {

constexpr int64_t kKcBf16 = 512;  // in k (= 256 pairs)

// f32: a = A panel chunk (kMr per k), b = B panel chunk (bs = kNr per k), MR valid rows. pf, when
// not null, is a stream fetched into L2 a line per k (the A block of a later call, on its way
// from memory while this one computes).
template <int MR>
ASC_AVX512 void ukr_f32(const float* a, const float* b, int64_t bs, int64_t k, float* c,
                        int64_t ldc, __mmask16 m0, __mmask16 m1, bool load_c, const float* pf) {
  const char* pfl = reinterpret_cast<const char*>(pf ? pf : a);
  __m512 acc0[MR], acc1[MR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (int i = 0; i < MR; ++i)
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
  if (m1 == 0) {  // at most 16 valid columns (a conv over few positions): half the FMAs
    for (int64_t kk = 0; kk < k; ++kk) {
      const __m512 b0 = _mm512_loadu_ps(b);
      _mm_prefetch(pfl, _MM_HINT_T1);
      pfl += 64;
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i) acc0[i] = _mm512_fmadd_ps(_mm512_set1_ps(a[i]), b0, acc0[i]);
      a += kMr;
      b += bs;
    }
    store_tile<MR>(acc0, acc1, c, ldc, m0, m1, load_c);
    return;
  }
  for (int64_t kk = 0; kk < k; ++kk) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + 16);
    _mm_prefetch(reinterpret_cast<const char*>(a + 8 * kMr), _MM_HINT_T0);
    _mm_prefetch(pfl, _MM_HINT_T1);
    pfl += 64;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
      acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
      acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
    }
    a += kMr;
    b += bs;
  }
  store_tile<MR>(acc0, acc1, c, ldc, m0, m1, load_c);
}

// bf16: k counted in pairs; a holds kMr 32-bit pairs per step, b holds 32 pairs per step.
template <int MR>
ASC_AVX512 void ukr_bf16(const uint16_t* a, const uint16_t* b, int64_t /*bs*/, int64_t kpairs,
                         float* c, int64_t ldc, __mmask16 m0, __mmask16 m1, bool load_c,
                         const uint16_t* /*pf*/) {
  __m512 acc0[MR], acc1[MR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (int i = 0; i < MR; ++i)
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
  const int32_t* a32 = reinterpret_cast<const int32_t*>(a);
  for (int64_t kk = 0; kk < kpairs; ++kk) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(b + 32);
    _mm_prefetch(reinterpret_cast<const char*>(a32 + 8 * kMr), _MM_HINT_T0);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(a32[i]);
      acc0[i] = _mm512_dpbf16_ps(acc0[i], ai, b0);
      acc1[i] = _mm512_dpbf16_ps(acc1[i], ai, b1);
    }
    a32 += kMr;
    b += 2 * kNr;
  }
  store_tile<MR>(acc0, acc1, c, ldc, m0, m1, load_c);
}

template <class T>
using Ukr = void (*)(const T*, const T*, int64_t, int64_t, float*, int64_t, __mmask16, __mmask16,
                     bool, const T*);

template <class T, template <int> class Pick, int... R>
constexpr auto make_table(std::integer_sequence<int, R...>) {
  return std::array<Ukr<T>, sizeof...(R)>{Pick<R + 1>::fn...};
}
template <int MR>
struct PickF32 {
  static constexpr Ukr<float> fn = ukr_f32<MR>;
};

template <int MR>
struct PickBf16 {
  static constexpr Ukr<uint16_t> fn = ukr_bf16<MR>;
};

// The packed products' tail columns: at most 4 (7x7's 49 = 48 + 1, 14x14's 196 = 192 + 4: a
// 1x1 conv on them 0.90x the time). Winograd's products over 16j + 8 tiles ran 1.25x slower on
// tail_cols<8> (k = the channels, short: its scalar stores weigh) than on the masked zmm.
constexpr int64_t kLoopTailMax = 4;

// Loop nest of gemm.h: k chunks -> B panels -> A panels -> micro-kernel. `kstep` is the number of
// packed k rows per chunk unit (1 for f32, 2 for bf16 pairs); kp is the padded k in those units.
// `tails` (f32): a panel's last columns past a multiple of 16 on tail_f32_table (panel_split).
template <class T, class Table>
ASC_AVX512 void mmad_loop(const Table& table, const T* pa, const T* pb, float* c, int64_t ldc,
                          int64_t m, int64_t n, int64_t kp, int64_t kc, int64_t elems_per_k,
                          bool accumulate, GemmAhead* ahead, int64_t a_stride,
                          const TailF32* tails) {
  if (a_stride == 0) a_stride = kp * kMr * elems_per_k;
  if (kp == 0) return empty_product(c, ldc, m, n, accumulate);
  // Micro-kernel calls in all, for spreading the prefetches of `ahead` over them.
  const int64_t total = (kp + kc - 1) / kc * ((n + kNr - 1) / kNr) * ((m + kMr - 1) / kMr);
  int64_t calls = 0;
  for (int64_t k0 = 0; k0 < kp; k0 += kc) {
    const int64_t kl = std::min(kc, kp - k0);
    const bool load_c = accumulate || k0 > 0;
    for (int64_t q = 0; q * kNr < n; ++q) {
      const T* b = pb + (q * kp + k0) * kNr * elems_per_k;
      const int64_t cols = std::min<int64_t>(kNr, n - q * kNr);
      const PanelSplit s = tails ? panel_split(cols, kLoopTailMax) : PanelSplit{cols, 0};
      const __mmask16 m0 = tail_mask(s.body), m1 = tail_mask(s.body - 16);
      for (int64_t p = 0; p * kMr < m; ++p) {
        ahead->issue(++calls, total);
        const T* a = pa + p * a_stride + k0 * kMr * elems_per_k;
        const int64_t rows = std::min<int64_t>(kMr, m - p * kMr);
        float* cp = c + p * kMr * ldc + q * kNr;
        if (s.body > 0)
          table[rows - 1](a, b, kNr * elems_per_k, kl, cp, ldc, m0, m1, load_c, nullptr);
        if (s.tail > 0)
          tails[s.tail - 1](reinterpret_cast<const float*>(a),
                            reinterpret_cast<const float*>(b) + s.body, kl, cp + s.body, ldc, rows,
                            load_c);
      }
    }
  }
}

ASC_AVX512 void mmad_f32(const float* pa, const float* pb, float* c, int64_t ldc, int64_t m,
                         int64_t n, int64_t k, bool accumulate, GemmAhead* ahead,
                         int64_t a_stride) {
  static constexpr auto table = make_table<float, PickF32>(std::make_integer_sequence<int, kMr>{});
  mmad_loop(table, pa, pb, c, ldc, m, n, k, kKcF32, 1, accumulate, ahead, a_stride,
            tail_f32_table());
}

ASC_AVX512 void mmad_bf16(const uint16_t* pa, const uint16_t* pb, float* c, int64_t ldc, int64_t m,
                          int64_t n, int64_t k, bool accumulate, GemmAhead* ahead,
                          int64_t a_stride) {
  static constexpr auto table =
      make_table<uint16_t, PickBf16>(std::make_integer_sequence<int, kMr>{});
  mmad_loop(table, pa, pb, c, ldc, m, n, (k + 1) / 2, kKcBf16 / 2, 2, accumulate, ahead, a_stride,
            nullptr);
}

}  // namespace

const UkrF32* ukr_f32_table() {
  static constexpr auto table = make_table<float, PickF32>(std::make_integer_sequence<int, kMr>{});
  return table.data();
}

namespace {

// ---- direct path: M rows of A (f32) x B rows streamed once, NV zmm of columns per chunk ----

constexpr int64_t kDirectPrefetchRows = 6;

// A element (i, kk) is a[i*lda + kk], or a[kk*kPackedA + i] when kPackedA > 0 (a k block of A
// packed by pack_a_rows). Only the first `rows` of the M rows are stored.
template <DType In, int M, int NV, int kPackedA = 0>
ASC_AVX512 void direct_rows(const float* a, int64_t lda, const void* b, int64_t ldb, float* c,
                            int64_t ldc, int64_t n, int64_t k, bool accumulate, int rows = M) {
  constexpr int64_t kW = 16 * NV;
  constexpr int64_t kElem = In == DType::kF32 ? 4 : 2;
  const char* bbytes = static_cast<const char*>(b);
  for (int64_t j0 = 0; j0 < n; j0 += kW) {
    __mmask16 mask[NV];
    for (int v = 0; v < NV; ++v) mask[v] = tail_mask(n - j0 - 16 * v);
    __m512 acc[M][NV];
#pragma GCC unroll 32
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
    for (int64_t kk = 0; kk < k; ++kk) {
      if (kk + kDirectPrefetchRows < k) {
        const char* pf = bbytes + ((kk + kDirectPrefetchRows) * ldb + j0) * kElem;
#pragma GCC unroll 8
        for (int64_t off = 0; off < kW * kElem; off += 64) _mm_prefetch(pf + off, kStreamHint);
      }
      if (j0 + kW < n) {  // the next strip's row, a whole strip ahead (covers DRAM latency)
        const char* pf = bbytes + (kk * ldb + j0 + kW) * kElem;
#pragma GCC unroll 8
        for (int64_t off = 0; off < kW * kElem; off += 64) _mm_prefetch(pf + off, _MM_HINT_T1);
      }
      __m512 bv[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) bv[v] = load_b<In>(b, kk * ldb + j0 + 16 * v, mask[v]);
#pragma GCC unroll 16
      for (int i = 0; i < M; ++i) {
        const __m512 ai = _mm512_set1_ps(kPackedA ? a[kk * kPackedA + i] : a[i * lda + kk]);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
      }
    }
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
      if (i >= rows) break;
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        float* ci = c + i * ldc + j0 + 16 * v;
        __m512 r = acc[i][v];
        if (accumulate) r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(mask[v], ci));
        _mm512_mask_storeu_ps(ci, mask[v], r);
      }
    }
  }
}

// k block of the direct path: B is walked kb rows x all n at a time, so consecutive column
// strips hit the same pages and lines (TLB- and prefetch-friendly); C is re-read once per block.
constexpr int64_t kDirectKb = 128;
constexpr int kDirectWide = 16;  // rows per block when m > 8 (A packed, one zmm of columns)

template <DType In>
ASC_AVX512 void direct_typed(const float* a, int64_t lda, const void* b, int64_t ldb, float* c,
                             int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate) {
  constexpr int64_t kElem = In == DType::kF32 ? 4 : 2;
  if (k == 0) return empty_product(c, ldc, m, n, accumulate);
  if (m == 1) return gemv_rows(In, a, b, ldb, c, n, k, accumulate);
  alignas(64) float ap[kDirectKb * kDirectWide];
  for (int64_t k0 = 0; k0 < k; k0 += kDirectKb) {
    const int64_t kl = std::min(kDirectKb, k - k0);
    const bool acc = accumulate || k0 > 0;
    const void* bk = static_cast<const char*>(b) + k0 * ldb * kElem;
    int64_t i0 = 0;
    for (; m - i0 > 8; i0 += kDirectWide) {
      const int rows = static_cast<int>(std::min<int64_t>(kDirectWide, m - i0));
      for (int64_t kk = 0; kk < kl; ++kk)
        for (int i = 0; i < kDirectWide; ++i)
          ap[kk * kDirectWide + i] = i < rows ? a[(i0 + i) * lda + k0 + kk] : 0.0f;
      direct_rows<In, kDirectWide, 1, kDirectWide>(ap, 0, bk, ldb, c + i0 * ldc, ldc, n, kl, acc,
                                                   rows);
    }
    if (i0 >= m) continue;
    const float* ai = a + i0 * lda + k0;
    float* ci = c + i0 * ldc;
    switch (m - i0) {
      case 1:
        direct_rows<In, 1, 8>(ai, lda, bk, ldb, ci, ldc, n, kl, acc);
        break;
      case 2:
        direct_rows<In, 2, 8>(ai, lda, bk, ldb, ci, ldc, n, kl, acc);
        break;
      case 3:
        direct_rows<In, 3, 6>(ai, lda, bk, ldb, ci, ldc, n, kl, acc);
        break;
      case 4:
        direct_rows<In, 4, 6>(ai, lda, bk, ldb, ci, ldc, n, kl, acc);
        break;
      case 5:
        direct_rows<In, 5, 4>(ai, lda, bk, ldb, ci, ldc, n, kl, acc);
        break;
      case 6:
        direct_rows<In, 6, 4>(ai, lda, bk, ldb, ci, ldc, n, kl, acc);
        break;
      case 7:
        direct_rows<In, 7, 3>(ai, lda, bk, ldb, ci, ldc, n, kl, acc);
        break;
      default:
        direct_rows<In, 8, 3>(ai, lda, bk, ldb, ci, ldc, n, kl, acc);
        break;
    }
  }
}

// ---- bf16 pairs straight from a row-major B: two rows interleaved in registers ----

// B [k, n] bf16 row-major (row stride ldb) -> panels of 32 columns, pairs of k interleaved.
ASC_AVX512 void pack_b_bf16_rows(const uint16_t* src, int64_t ldb, int64_t k, int64_t n,
                                 uint16_t* dst) {
  const int64_t kpairs = (k + 1) / 2;
  // Groups of 8 row pairs outer, panels inner: the source is read nearly in memory order and
  // each panel gets 8 contiguous pair rows (no aliasing of many write streams in L1).
  for (int64_t t0 = 0; t0 < kpairs; t0 += 8) {
    for (int64_t q = 0; q * kNr < n; ++q) {
      const int64_t cols = std::min<int64_t>(kNr, n - q * kNr);
      const __mmask32 mask = cols >= 32 ? ~__mmask32(0) : (__mmask32(1) << cols) - 1;
      for (int64_t t = t0; t < std::min<int64_t>(kpairs, t0 + 8); ++t) {
        const uint16_t* s0 = src + 2 * t * ldb + q * kNr;
        const __m512i r0 = _mm512_maskz_loadu_epi16(mask, s0);
        const __m512i r1 =
            2 * t + 1 < k ? _mm512_maskz_loadu_epi16(mask, s0 + ldb) : _mm512_setzero_si512();
        __m512i o0, o1;
        interleave_rows(r0, r1, o0, o1);
        uint16_t* d = dst + (q * kpairs + t) * 2 * kNr;
        _mm512_storeu_si512(d, o0);
        _mm512_storeu_si512(d + 32, o1);
      }
    }
  }
}

// B [k, n] f32/f16/bf16 row-major (row stride ldb) -> f32 panels of 32 columns (the f32 layout):
// the packing of every weight for the FMA kernels. Groups of 8 rows outer, panels inner (the
// source read nearly in memory order); plain loads for full panels, masked only for the tail
// (masked loads cost Zen 5 dearly), no call per row (memcpy of 128 bytes was ~15 % of a prefill).
template <DType In>
ASC_AVX512 void pack_b_rows_typed(const void* src, int64_t ldb, int64_t k, int64_t n, float* dst) {
  constexpr int64_t kElem = In == DType::kF32 ? 4 : 2;
  const char* s = static_cast<const char*>(src);
  for (int64_t k0 = 0; k0 < k; k0 += 8) {
    for (int64_t q = 0; q * kNr < n; ++q) {
      const int64_t cols = n - q * kNr;
      const __mmask16 m0 = tail_mask(cols), m1 = tail_mask(cols - 16);
      for (int64_t kk = k0; kk < std::min<int64_t>(k, k0 + 8); ++kk) {
        const char* r = s + (kk * ldb + q * kNr) * kElem;
        float* d = dst + (q * k + kk) * kNr;
        if (In == DType::kF32 && cols >= kNr) {
          _mm512_storeu_ps(d, _mm512_loadu_ps(r));
          _mm512_storeu_ps(d + 16, _mm512_loadu_ps(r + 64));
        } else {
          _mm512_storeu_ps(d, load_b<In>(r, 0, m0));
          _mm512_storeu_ps(d + 16, load_b<In>(r, 16, m1));
        }
      }
    }
  }
}

ASC_AVX512 void pack_b_rows(DType in, const void* src, int64_t ldb, int64_t k, int64_t n,
                            float* dst) {
  switch (in) {
    case DType::kF16:
      return pack_b_rows_typed<DType::kF16>(src, ldb, k, n, dst);
    case DType::kBF16:
      return pack_b_rows_typed<DType::kBF16>(src, ldb, k, n, dst);
    default:
      return pack_b_rows_typed<DType::kF32>(src, ldb, k, n, dst);
  }
}

// bf16 micro-kernel reading 32 columns of a row-major B (row stride ldb) for k rows; a holds kMr
// bf16 pairs per k pair (the packed A layout).
template <int MR>
ASC_AVX512 void ukr_bf16_rows(const uint16_t* a, const uint16_t* b, int64_t ldb, int64_t k,
                              float* c, int64_t ldc, __mmask16 m0, __mmask16 m1, bool load_c,
                              const uint16_t* /*pf*/) {
  const __mmask32 mb = __mmask32(m0) | (__mmask32(m1) << 16);
  __m512 acc0[MR], acc1[MR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  const int32_t* a32 = reinterpret_cast<const int32_t*>(a);
  for (int64_t kk = 0; kk < k; kk += 2) {
    const __m512i r0 = _mm512_maskz_loadu_epi16(mb, b);
    const __m512i r1 = kk + 1 < k ? _mm512_maskz_loadu_epi16(mb, b + ldb) : _mm512_setzero_si512();
    _mm_prefetch(reinterpret_cast<const char*>(b + 8 * ldb), kStreamHint);
    _mm_prefetch(reinterpret_cast<const char*>(b + 9 * ldb), kStreamHint);
    __m512i p0, p1;
    interleave_rows(r0, r1, p0, p1);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(a32[i]);
      acc0[i] = _mm512_dpbf16_ps(acc0[i], ai, (__m512bh)p0);
      acc1[i] = _mm512_dpbf16_ps(acc1[i], ai, (__m512bh)p1);
    }
    a32 += kMr;
    b += 2 * ldb;
  }
  store_tile<MR>(acc0, acc1, c, ldc, m0, m1, load_c);
}

template <int MR>
struct PickBf16Rows {
  static constexpr Ukr<uint16_t> fn = ukr_bf16_rows<MR>;
};

// Direct path for m > 8: A (small) is packed per k chunk, B is read straight from its rows by
// the 12 x 32 kernels, once per k chunk from memory and then from L2 for the other A panels.
constexpr int64_t kKcDirect = 256;

ASC_AVX512 void direct_rows_bf16(const float* a, int64_t lda, const uint16_t* b, int64_t ldb,
                                 float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                                 bool accumulate) {
  static constexpr auto table =
      make_table<uint16_t, PickBf16Rows>(std::make_integer_sequence<int, kMr>{});
  const int64_t panels = (m + kMr - 1) / kMr;
  std::vector<uint16_t> pa(static_cast<size_t>(panels * kMr * kKcDirect));
  for (int64_t k0 = 0; k0 < k; k0 += kKcDirect) {
    const int64_t kl = std::min(kKcDirect, k - k0), kpl = (kl + 1) / 2 * 2;
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t i = 0; i < kMr; ++i)
        for (int64_t kk = 0; kk < kpl; ++kk) {
          // A came from bf16 and was widened exactly; truncating back is exact.
          float v = p * kMr + i < m && kk < kl ? a[(p * kMr + i) * lda + k0 + kk] : 0.0f;
          uint32_t u;
          std::memcpy(&u, &v, 4);
          pa[p * kpl * kMr + (kk / 2) * kMr * 2 + i * 2 + kk % 2] = static_cast<uint16_t>(u >> 16);
        }
    for (int64_t j0 = 0; j0 < n; j0 += kNr) {
      const __mmask16 m0 = tail_mask(n - j0), m1 = tail_mask(n - j0 - 16);
      for (int64_t p = 0; p < panels; ++p)
        table[std::min<int64_t>(kMr, m - p * kMr) - 1](pa.data() + p * kpl * kMr, b + k0 * ldb + j0,
                                                       ldb, kl, c + p * kMr * ldc + j0, ldc, m0, m1,
                                                       accumulate || k0 > 0, nullptr);
    }
  }
}

// Widening path: f16/bf16 B converted to f32 in registers, FMA (bf16 without dot products).
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

// Dot-product path: bf16 with more than 8 rows runs the 12 x 32 vdpbf16ps kernels.
void direct_dot(DType in, const float* a, int64_t lda, const void* b, int64_t ldb, float* c,
                int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate) {
  if (m > 8 && k > 0 && in == DType::kBF16)
    return direct_rows_bf16(a, lda, static_cast<const uint16_t*>(b), ldb, c, ldc, m, n, k,
                            accumulate);
  if (m == 1 && k > 0 && in == DType::kBF16)
    return gemv_pairs_bf16(a, static_cast<const uint16_t*>(b), ldb, c, n, k, accumulate);
  direct(in, a, lda, b, ldb, c, ldc, m, n, k, accumulate);
}

// Nanoseconds per instruction of 12 independent chains of vdpbf16ps (dot) or vfmadd (f32), the
// best of 5 short runs (~30 us each).
ASC_AVX512 double chain_ns(bool dot) {
  constexpr int64_t kIters = 2048;
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    __m512 acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
    const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-4f);
    const __m512bh xb = (__m512bh)_mm512_set1_epi32(0x3f7f3f7f);
    const __m512bh yb = (__m512bh)_mm512_setzero_si512();
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t it = 0; it < kIters; ++it)
#pragma GCC unroll 12
      for (int i = 0; i < 12; ++i)
        acc[i] = dot ? _mm512_dpbf16_ps(acc[i], xb, yb) : _mm512_fmadd_ps(acc[i], x, y);
    __m512 sum = acc[0];
    for (int i = 1; i < 12; ++i) sum = _mm512_add_ps(sum, acc[i]);
    alignas(64) float sink[16];
    _mm512_store_ps(sink, sum);
    asm volatile("" : : "r"(sink) : "memory");
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ns / (kIters * 12));
  }
  return best;
}

}  // namespace

bool gemm_bf16_dot_pays() {
  static const bool pays = [] {
    if (const char* e = std::getenv("ASC_GEMM_BF16_DOT")) return std::string_view(e) == "1";
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bf16")) return false;
    // A dot product does twice an FMA's flops: it pays when it issues at more than half the FMA's
    // instruction rate (with a margin). Some cores issue vdpbf16ps at a quarter of it (this
    // project's Xeon VMs); there the widening path (bf16 -> f32 while packing, FMA kernels) is
    // the faster one.
    return chain_ns(true) < 1.6 * chain_ns(false);
  }();
  return pays;
}

const GemmIsa* gemm_isa_avx512() {
  static const GemmIsa* isa = []() -> const GemmIsa* {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512vl") || !__builtin_cpu_supports("avx512dq") ||
        !__builtin_cpu_supports("fma"))
      return nullptr;
    static const GemmIsa widen{"avx512",
                               {kMr, kNr, 1, DType::kF32, "avx512"},
                               {0, 0, 0, DType::kUndefined, "avx512"},
                               mmad_f32,
                               nullptr,
                               direct,
                               nullptr,
                               mmad_f32_b_rows,
                               pack_b_rows,
                               gemv_panels};
    return &widen;
  }();
  return isa;
}

const GemmIsa* gemm_isa_avx512_bf16() {
  static const GemmIsa* isa = []() -> const GemmIsa* {
    if (!gemm_isa_avx512() || !__builtin_cpu_supports("avx512bf16")) return nullptr;
    static const GemmIsa dot{"avx512_bf16",
                             {kMr, kNr, 1, DType::kF32, "avx512"},
                             {kMr, kNr, 2, DType::kBF16, "avx512_bf16"},
                             mmad_f32,
                             mmad_bf16,
                             direct_dot,
                             pack_b_bf16_rows,
                             mmad_f32_b_rows,
                             pack_b_rows,
                             gemv_panels};
    return &dot;
  }();
  return isa;
}

}  // namespace asc::cpu::gemm_detail
