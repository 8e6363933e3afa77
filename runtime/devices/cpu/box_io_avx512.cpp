// The box moves' stride-2 rows with AVX-512 (box_io.cpp): a pooling or depthwise window of
// stride 2 reads every other element of a feature-map row; 32 source elements are two masked
// loads and one permute keeping the even ones (nothing past the row's last element is read).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/devices/cpu/box_io.h"
#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"

namespace asc::cpu {
namespace {

using gemm_detail::even_lanes;
using gemm_detail::load_evens;
using gemm_detail::odd_lanes;
using gemm_detail::tail_mask;

ASC_AVX512 void evens_f32(const float* src, int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 17 <= n; i += 16)  // reads src[2i, 2i + 32): all within the row
    _mm512_storeu_ps(dst + i,
                     even_lanes(_mm512_loadu_ps(src + 2 * i), _mm512_loadu_ps(src + 2 * i + 16)));
  for (; i < n; i += 16) {
    const int64_t cnt = std::min<int64_t>(16, n - i);
    _mm512_mask_storeu_ps(dst + i, tail_mask(cnt), load_evens(src + 2 * i, cnt));
  }
}

// acc[i] = op(acc[i], src[i * s]) for i < n, s 1 or 2 (Op: 0 add, 1 max, 2 min).
template <int Op>
ASC_AVX512 inline __m512 apply(__m512 a, __m512 b) {
  if constexpr (Op == 0) return _mm512_add_ps(a, b);
  if constexpr (Op == 1) return _mm512_maskz_max_ps(0xFFFF, a, b);
  return _mm512_maskz_min_ps(0xFFFF, a, b);
}

// Rows of n: acc[r * ld + i] = op(acc[r * ld + i], src[r * rs + i * s]). Each row's first
// accumulator vector is loaded before the row above stores its last one: a masked store covers
// its whole 64 bytes for the loads after it, so with rows back to back (ld == n: a 13x13 pool's
// 13 floats) the next row's load waited for that store to retire, ~22 cycles a row.
template <int Op>
ASC_AVX512 void accumulate_rows(const float* src, int64_t rs, int64_t s, int64_t rows, int64_t n,
                                float* acc, int64_t ld) {
  const __mmask16 first = tail_mask(n);
  __m512 next = _mm512_maskz_loadu_ps(first, acc);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = src + r * rs;
    float* a = acc + r * ld;
    for (int64_t i = 0; i < n; i += 16) {
      const int64_t cnt = std::min<int64_t>(16, n - i);
      const __mmask16 m = tail_mask(cnt);
      const __m512 cur = i == 0 ? next : _mm512_maskz_loadu_ps(m, a + i);
      const __m512 v = s == 1 ? _mm512_maskz_loadu_ps(m, row + i) : load_evens(row + 2 * i, cnt);
      if (i + 16 >= n && r + 1 < rows) next = _mm512_maskz_loadu_ps(first, a + ld);
      _mm512_mask_storeu_ps(a + i, m, apply<Op>(cur, v));
    }
  }
}

// Rows of n for k taps at once: acc[r * ld + i] = op(.. op(acc[..], src[0][o]) .., src[k-1][o]),
// o = off + r * rs + i * s. 64 columns of a row stay in registers over every tap, so acc is read
// and written once instead of once per tap; the next row's first vectors are loaded before this
// row's stores (as accumulate_rows does).
template <int Op>
ASC_AVX512 void accumulate_taps(const float* const* src, int64_t taps, int64_t off, int64_t rs,
                                int64_t s, int64_t rows, int64_t n, float* acc, int64_t ld) {
  constexpr int kV = 4;
  __mmask16 m0[kV];
  for (int q = 0; q < kV; ++q) m0[q] = tail_mask(n - 16 * q);
  __m512 next[kV];
  for (int q = 0; q < kV; ++q) next[q] = _mm512_maskz_loadu_ps(m0[q], acc + 16 * q);
  for (int64_t r = 0; r < rows; ++r) {
    float* a = acc + r * ld;
    for (int64_t i = 0; i < n; i += 16 * kV) {
      __mmask16 m[kV];
      int64_t cnt[kV];
      __m512 v[kV];
      for (int q = 0; q < kV; ++q) {
        cnt[q] = n - i - 16 * q;
        m[q] = tail_mask(cnt[q]);
        v[q] = i == 0 ? next[q] : _mm512_maskz_loadu_ps(m[q], a + i + 16 * q);
      }
      const int64_t o = off + r * rs + i * s;
      for (int64_t t = 0; t < taps; ++t) {
        const float* row = src[t] + o;
        for (int q = 0; q < kV; ++q) {
          if (cnt[q] <= 0) break;
          const __m512 x = s == 1 ? _mm512_maskz_loadu_ps(m[q], row + 16 * q)
                                  : load_evens(row + 32 * q, std::min<int64_t>(cnt[q], 16));
          v[q] = apply<Op>(v[q], x);
        }
      }
      if (i + 16 * kV >= n && r + 1 < rows)
        for (int q = 0; q < kV; ++q) next[q] = _mm512_maskz_loadu_ps(m0[q], a + ld + 16 * q);
      for (int q = 0; q < kV; ++q) _mm512_mask_storeu_ps(a + i + 16 * q, m[q], v[q]);
    }
  }
}

template <int Op>
ASC_AVX512 void taps_rows(const float* const* rows, int64_t n_rows, int64_t nu, float* v) {
  constexpr int kV = 4;
  int64_t u = 0;
  for (; u + 16 * kV <= nu; u += 16 * kV) {
    __m512 x[kV];
    for (int q = 0; q < kV; ++q) x[q] = _mm512_loadu_ps(rows[0] + u + 16 * q);
    for (int64_t r = 1; r < n_rows; ++r)
      for (int q = 0; q < kV; ++q) x[q] = apply<Op>(x[q], _mm512_loadu_ps(rows[r] + u + 16 * q));
    for (int q = 0; q < kV; ++q) _mm512_storeu_ps(v + u + 16 * q, x[q]);
  }
  for (; u < nu; u += 16) {
    const __mmask16 m = tail_mask(nu - u);
    __m512 x = _mm512_maskz_loadu_ps(m, rows[0] + u);
    for (int64_t r = 1; r < n_rows; ++r) x = apply<Op>(x, _mm512_maskz_loadu_ps(m, rows[r] + u));
    _mm512_mask_storeu_ps(v + u, m, x);
  }
}

template <int Op, int S>
ASC_AVX512 void taps_cols(const float* v, const int64_t* off, int64_t k, int64_t n, float* acc) {
  for (int64_t x = 0; x < n; x += 16) {
    const int64_t cnt = std::min<int64_t>(16, n - x);
    const __mmask16 m = tail_mask(cnt);
    __m512 a = _mm512_maskz_loadu_ps(m, acc + x);
    for (int64_t i = 0; i < k; ++i) {
      const float* p = v + off[i] + x * S;
      a = apply<Op>(a, S == 1 ? _mm512_maskz_loadu_ps(m, p) : load_evens(p, cnt));
    }
    _mm512_mask_storeu_ps(acc + x, m, a);
  }
}

// Lanes s.. of v followed by lanes of `next`: v shifted down s lanes (s < 16).
ASC_AVX512 inline __m512 shift_lanes(__m512 v, __m512 next, int64_t s) {
  const __m512i idx =
      _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                       _mm512_set1_epi32(static_cast<int>(s)));
  return _mm512_permutex2var_ps(v, idx, next);
}

// Op's identity: what a lane outside V holds (-inf for max, +inf for min).
template <int Op>
ASC_AVX512 inline __m512 identity() {
  return _mm512_set1_ps(Op == 1 ? -__builtin_inff() : __builtin_inff());
}

// V[u, u + 16) of the rows, u possibly negative: the columns outside [0, nu) hold op's identity
// and are never read (masked lanes do not fault). Whole chunks are plain loads (masked ones cost
// Zen 5 dearly), only a row's first (before column 0: a padded edge) and last are masked.
template <int Op, int R, bool Whole>
ASC_AVX512 inline __m512 v_chunk_of(const float* const* rows, int64_t n_rows, int64_t u,
                                    __mmask16 m) {
  const auto at = [u](const float* row) {  // row + u, without forming a pointer before row
    return reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(row) +
                                          static_cast<uintptr_t>(u) * sizeof(float));
  };
  const __m512 id = identity<Op>();
  __m512 x = Whole ? _mm512_loadu_ps(at(rows[0])) : _mm512_mask_loadu_ps(id, m, at(rows[0]));
  const int64_t n = R > 0 ? R : n_rows;
#pragma GCC unroll 4
  for (int64_t q = 1; q < n; ++q)
    x = apply<Op>(x,
                  Whole ? _mm512_loadu_ps(at(rows[q])) : _mm512_mask_loadu_ps(id, m, at(rows[q])));
  return x;
}
template <int Op, int R>
ASC_AVX512 inline __m512 v_chunk(const float* const* rows, int64_t n_rows, int64_t u, int64_t nu) {
  if (u >= 0 && u + 16 <= nu) return v_chunk_of<Op, R, true>(rows, n_rows, u, 0xFFFF);
  const uint32_t lo = u < 0 ? (u <= -16 ? 0xFFFFu : (1u << -u) - 1) : 0u;
  const __mmask16 m = static_cast<__mmask16>(tail_mask(nu - u) & ~lo);
  return v_chunk_of<Op, R, false>(rows, n_rows, u, m);
}

// TapsKernels::fused: per 16 outputs, V's 32 (S = 1) or 48 (S = 2) columns from the rows in
// registers, each column tap a lane shift of them (S = 2: of their even or odd lanes). The last
// chunk of one step is the first of the next (16 S columns on), so each is combined once.
template <int Op, int S, int R, int KW>
ASC_AVX512 void taps_fused_rows(const float* const* rows, int64_t n_rows, int64_t off0, int64_t nu,
                                int64_t kw_any, int64_t n, float* acc) {
  const int64_t kw = KW > 0 ? KW : kw_any;
  const bool carry = S == 1 || kw > 2;  // the step's last chunk is loaded and starts the next
  __m512 a = v_chunk<Op, R>(rows, n_rows, off0, nu);
  for (int64_t x = 0; x < n; x += 16) {
    const int64_t base = off0 + x * S;
    if (!carry && x > 0) a = v_chunk<Op, R>(rows, n_rows, base, nu);
    const __m512 b = v_chunk<Op, R>(rows, n_rows, base + 16, nu);
    __m512 r;
    if constexpr (S == 1) {
      r = a;
      for (int64_t i = 1; i < kw; ++i) r = apply<Op>(r, shift_lanes(a, b, i));
      a = b;
    } else {
      const __m512 c = kw > 2 ? v_chunk<Op, R>(rows, n_rows, base + 32, nu) : _mm512_setzero_ps();
      const __m512 e = even_lanes(a, b), o = odd_lanes(a, b);
      const __m512 ec = even_lanes(c, c), oc = odd_lanes(c, c);
      r = apply<Op>(e, o);
      for (int64_t i = 2; i < kw; ++i)
        r = apply<Op>(r, i % 2 ? shift_lanes(o, oc, i / 2) : shift_lanes(e, ec, i / 2));
      a = c;
    }
    if (x + 16 <= n) {
      _mm512_storeu_ps(acc + x, apply<Op>(_mm512_loadu_ps(acc + x), r));
    } else {
      const __mmask16 m = tail_mask(n - x);
      _mm512_mask_storeu_ps(acc + x, m, apply<Op>(_mm512_maskz_loadu_ps(m, acc + x), r));
    }
  }
}

// (A pool's 2 and 3 rows and 2 or 3 column taps unrolled: the row loop was a third of the time,
// the tap loop's shifts built at run time another tenth.)
template <int Op, int S>
ASC_AVX512 void taps_fused(const float* const* rows, int64_t n_rows, int64_t off0, int64_t nu,
                           int64_t kw, int64_t n, float* acc) {
  if (n_rows == 3 && kw == 3)
    return taps_fused_rows<Op, S, 3, 3>(rows, n_rows, off0, nu, kw, n, acc);
  if (n_rows == 2 && kw == 3)
    return taps_fused_rows<Op, S, 2, 3>(rows, n_rows, off0, nu, kw, n, acc);
  if (n_rows == 2 && kw == 2)
    return taps_fused_rows<Op, S, 2, 2>(rows, n_rows, off0, nu, kw, n, acc);
  if (n_rows == 3) return taps_fused_rows<Op, S, 3, 0>(rows, n_rows, off0, nu, kw, n, acc);
  if (n_rows == 2) return taps_fused_rows<Op, S, 2, 0>(rows, n_rows, off0, nu, kw, n, acc);
  taps_fused_rows<Op, S, 0, 0>(rows, n_rows, off0, nu, kw, n, acc);
}

}  // namespace

TapsKernels taps_kernels_f32(BinaryOp op, int64_t cs) {
  TapsKernels k;
  if ((cs != 1 && cs != 2) || (op != BinaryOp::kMax && op != BinaryOp::kMin) ||
      std::strncmp(gemm_active_isa(), "avx512", 6) != 0)
    return k;
  const bool max = op == BinaryOp::kMax;
  k.rows = max ? taps_rows<1> : taps_rows<2>;
  k.cols = cs == 1 ? (max ? taps_cols<1, 1> : taps_cols<2, 1>)
                   : (max ? taps_cols<1, 2> : taps_cols<2, 2>);
  k.fused = cs == 1 ? (max ? taps_fused<1, 1> : taps_fused<2, 1>)
                    : (max ? taps_fused<1, 2> : taps_fused<2, 2>);
  return k;
}

bool accumulate_taps_f32(BinaryOp op, const float* const* src, int64_t taps, int64_t off,
                         int64_t rs, int64_t cs, int64_t rows, int64_t n, float* acc, int64_t ld) {
  if ((cs != 1 && cs != 2) || std::strncmp(gemm_active_isa(), "avx512", 6) != 0) return false;
  void (*fn)(const float* const*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float*,
             int64_t) = nullptr;
  if (op == BinaryOp::kAdd) fn = accumulate_taps<0>;
  if (op == BinaryOp::kMax) fn = accumulate_taps<1>;
  if (op == BinaryOp::kMin) fn = accumulate_taps<2>;
  if (!fn) return false;
  if (rows > 0 && n > 0) fn(src, taps, off, rs, cs, rows, n, acc, ld);
  return true;
}

bool accumulate_rows_f32(BinaryOp op, const std::byte* src, int64_t rs, int64_t cs, int64_t rows,
                         int64_t n, std::byte* acc, int64_t ld) {
  if ((cs != 1 && cs != 2) || std::strncmp(gemm_active_isa(), "avx512", 6) != 0) return false;
  void (*fn)(const float*, int64_t, int64_t, int64_t, int64_t, float*, int64_t) = nullptr;
  if (op == BinaryOp::kAdd) fn = accumulate_rows<0>;
  if (op == BinaryOp::kMax) fn = accumulate_rows<1>;
  if (op == BinaryOp::kMin) fn = accumulate_rows<2>;
  if (!fn) return false;
  if (rows > 0 && n > 0)
    fn(reinterpret_cast<const float*>(src), rs, cs, rows, n, reinterpret_cast<float*>(acc), ld);
  return true;
}

bool gather_stride2_f32(const std::byte* src, int64_t rs, int64_t rows, int64_t n, std::byte* dst,
                        int64_t ld) {
  if (std::strncmp(gemm_active_isa(), "avx512", 6) != 0) return false;
  const float* s = reinterpret_cast<const float*>(src);
  float* d = reinterpret_cast<float*>(dst);
  for (int64_t r = 0; r < rows; ++r) evens_f32(s + r * rs, n, d + r * ld);
  return true;
}

}  // namespace asc::cpu
