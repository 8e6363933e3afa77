// A depthwise convolution with the channels in the vector lanes, the way NCHWc kernels run it
// (gemm_avx512.h, mmad_f32_diag_lanes): per block of 16 channels the tile's padded input window
// is transposed, 16 x 16 at a time, into T[h][u][16] (zeros in the pads), each output position is
// the sum over the taps of w_t (the 16 channels' weights of tap t) * T[h(t)][u(t)] — aligned
// loads, no broadcasts, every lane a channel's own output — and the sums [position][16] are
// transposed back into C's rows. On a 7x7 or 14x14 map a channel's row is a few vectors with most
// lanes wasted in its pitch and its taps unaligned, and a strided or 5x5 window reads the planes'
// rows many times over; here every FMA is whole. (AVX-512 gathers in place of the transposes
// measured 20-40 % slower than the planes.)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/devices/cpu/gemm_avx512.h"

namespace asc::cpu::gemm_detail {
namespace {

constexpr int kLanePositions = 8;  // output positions in registers at a time

// r[0..15] (rows of 16) -> their columns, in place: r[e] = (r_0[e], ..., r_15[e]). (The zero-
// masked forms with every lane kept: the plain ones trip GCC 12's -Wmaybe-uninitialized.)
ASC_AVX512 inline void transpose16(__m512* r) {
  constexpr __mmask16 k16 = 0xffff;
  constexpr __mmask8 k8 = 0xff;
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_maskz_unpacklo_ps(k16, r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_maskz_unpackhi_ps(k16, r[2 * i], r[2 * i + 1]);
  }
  __m512 u[16];  // u[4i + j], per 128-bit lane L: element 4L + j of rows 4i .. 4i + 3
  for (int i = 0; i < 4; ++i) {
    const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
    const __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
    u[4 * i] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(k8, a, c));
    u[4 * i + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(k8, a, c));
    u[4 * i + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(k8, b, d));
    u[4 * i + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(k8, b, d));
  }
  for (int j = 0; j < 4; ++j) {
    const __m512 s0 = _mm512_maskz_shuffle_f32x4(k16, u[j], u[4 + j], 0x44);
    const __m512 s1 = _mm512_maskz_shuffle_f32x4(k16, u[j], u[4 + j], 0xEE);
    const __m512 s2 = _mm512_maskz_shuffle_f32x4(k16, u[8 + j], u[12 + j], 0x44);
    const __m512 s3 = _mm512_maskz_shuffle_f32x4(k16, u[8 + j], u[12 + j], 0xEE);
    r[j] = _mm512_maskz_shuffle_f32x4(k16, s0, s2, 0x88);
    r[4 + j] = _mm512_maskz_shuffle_f32x4(k16, s0, s2, 0xDD);
    r[8 + j] = _mm512_maskz_shuffle_f32x4(k16, s1, s3, 0x88);
    r[12 + j] = _mm512_maskz_shuffle_f32x4(k16, s1, s3, 0xDD);
  }
}

// Output positions [p0, p0 + kLanePositions) of a channel block: acc[j] = sum_t w[t] * T[pos +
// off].
ASC_AVX512 inline void lane_taps(const float* t_buf, const int64_t* pos, const int64_t* off,
                                 const __m512* w, int64_t taps, float* out) {
  const float* x[kLanePositions];  // each position's window origin in T
  __m512 acc[kLanePositions];
  for (int j = 0; j < kLanePositions; ++j) {
    x[j] = t_buf + pos[j] * 16;
    acc[j] = _mm512_setzero_ps();
  }
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t o = off[t] * 16;
    const __m512 wt = w[t];
#pragma GCC unroll 8
    for (int j = 0; j < kLanePositions; ++j)
      acc[j] = _mm512_fmadd_ps(wt, _mm512_load_ps(x[j] + o), acc[j]);
  }
  for (int j = 0; j < kLanePositions; ++j) _mm512_store_ps(out + j * 16, acc[j]);
}

}  // namespace

bool diag_lanes_apply(const Im2colSource& src, const Im2col& g, int64_t m) {
  const int64_t hp = g.span(1), wp = g.span(2);
  if (g.k[0] != 1 || g.out[0] != 1 || src.lo[1] > 0 || src.hi[1] <= 0 || m < 8 ||
      g.window() > kLaneTaps || src.stride[3] != 1)
    return false;
  // (Measured on one thread against the planes: 240 channels 3x3/2 on 28x28 0.11-0.16 -> 0.09 ms,
  // 672 channels 5x5/2 on 14x14 0.19 -> 0.13, 120 channels 5x5 on 28x28 0.15 -> 0.14; 72
  // channels 3x3 on 56x56 0.20 -> 0.21, 16 channels 3x3 on 112x112 0.18 -> 0.25.)
  const bool small = wp <= 16 && hp * wp <= kLanePlaneMax;
  const bool wide =
      hp * wp <= kLaneWindowMax && (g.s[1] > 1 || g.s[2] > 1 || g.window() >= kLaneWideTaps);
  return small || wide;
}

ASC_AVX512 void mmad_f32_diag_lanes(const float* pa, int64_t a_stride, int64_t mr,
                                    const Im2colSource& src, const Im2col& g, float* c, int64_t ldc,
                                    int64_t m, int64_t n, int64_t k, bool accumulate,
                                    int64_t taps_k) {
  const float* map = reinterpret_cast<const float*>(src.gm);
  const int64_t win = g.window(), k2 = g.k[2];
  const int64_t hp = g.span(1), wp = g.span(2), ow_n = g.out[2];
  const int64_t np = std::min(n, g.out[1] * ow_n);
  const int64_t np_pad = (np + kLanePositions - 1) / kLanePositions * kLanePositions;
  static thread_local std::vector<float> t_buf, o_buf;  // (aligned to 64 bytes below)
  static thread_local std::vector<int64_t> pos;
  t_buf.resize(static_cast<size_t>(hp * wp * 16 + 16));
  o_buf.resize(static_cast<size_t>(np_pad * 16 + 16));
  pos.resize(static_cast<size_t>(np_pad));
  // Each position's window origin in T (kept while the geometry is the same: a launch's tiles).
  static thread_local int64_t pos_key[5] = {-1, -1, -1, -1, -1};
  const int64_t key[5] = {np_pad, ow_n, wp, g.s[1], g.s[2]};
  if (!std::equal(key, key + 5, pos_key)) {
    std::copy(key, key + 5, pos_key);
    std::fill(pos.begin(), pos.end(), 0);  // (positions past np read T's first vector, unused)
    for (int64_t p = 0, row = 0; p < np; row += g.s[1] * wp)
      for (int64_t ow = 0; ow < ow_n && p < np; ++ow) pos[p++] = row + ow * g.s[2];
  }
  int64_t off[kLaneTaps];
  for (int64_t t = 0; t < win; ++t) off[t] = (t / k2) * g.d[1] * wp + (t % k2) * g.d[2];
  const int64_t r_lo = std::clamp<int64_t>(src.lo[2], 0, hp),
                r_hi = std::clamp(src.hi[2], r_lo, hp);
  const int64_t c_lo = std::clamp<int64_t>(src.lo[3], 0, wp),
                c_hi = std::clamp(src.hi[3], c_lo, wp);
  const auto align = [](float* p) {
    return reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t{63});
  };
  float* const tb = align(t_buf.data());
  float* const ob = align(o_buf.data());
  for (int64_t r0 = 0; r0 < m; r0 += 16) {
    const int64_t nc = std::min<int64_t>(16, m - r0);
    bool live[16] = {};  // channels inside the map and K (outside: zero outputs)
    int64_t w_at[16] = {};
    for (int64_t i = 0; i < nc; ++i) {
      const int64_t r = r0 + i;
      live[i] = r * win < k && r >= src.lo[0] && r < src.hi[0];
      w_at[i] = (r / mr) * a_stride + diag_taps_k(r, win, taps_k) * mr + r % mr;  // tap t: + t * mr
    }
    __m512 w[kLaneTaps];
    if (taps_k >= 0) {  // compact taps: a panel's channels of one tap are consecutive
      __mmask16 lanes = 0;
      for (int64_t i = 0; i < nc; ++i) lanes |= live[i] ? __mmask16(1u << i) : __mmask16(0);
      __mmask16 seg[16];  // the block's runs of lanes in one panel, and where each tap's begins
      const float* at[16];
      int segs = 0;
      for (int64_t i = 0; i < nc;) {
        const int64_t r = r0 + i, run = std::min<int64_t>(nc - i, mr - r % mr);
        seg[segs] = static_cast<__mmask16>(tail_mask(i + run) & ~tail_mask(i));
        at[segs++] = pa + w_at[i];
        i += run;
      }
      for (int64_t t = 0; t < win; ++t) {
        __m512 v = _mm512_setzero_ps();
        for (int q = 0; q < segs; ++q) v = _mm512_mask_expandloadu_ps(v, seg[q], at[q] + t * mr);
        w[t] = _mm512_maskz_mov_ps(lanes, v);
      }
    } else {
      alignas(64) float wl[16];
      for (int64_t t = 0; t < win; ++t) {
        for (int64_t i = 0; i < 16; ++i) wl[i] = live[i] ? pa[w_at[i] + t * mr] : 0.f;
        w[t] = _mm512_load_ps(wl);
      }
    }
    // T: the window's rows in the map transposed 16 channels at a time, zeros elsewhere.
    std::fill(tb, tb + r_lo * wp * 16, 0.0f);
    std::fill(tb + r_hi * wp * 16, tb + hp * wp * 16, 0.0f);
    const float* xc = map + src.base + r0 * src.stride[0];
    const bool all_live = std::all_of(live, live + 16, [](bool b) { return b; });
    for (int64_t h = r_lo; h < r_hi; ++h)
      for (int64_t u0 = 0; u0 < wp; u0 += 16) {  // columns [u0, u0 + 16) of the 16 channels
        const __mmask16 cols = tail_mask(c_hi - u0) & ~tail_mask(c_lo - u0);  // in the map
        const float* x = xc + h * src.stride[2] + u0;
        __m512 v[16];
        if (all_live && cols == 0xFFFF) {  // plain loads: masked ones cost Zen 5 dearly
#pragma GCC unroll 16
          for (int64_t i = 0; i < 16; ++i) v[i] = _mm512_loadu_ps(x + i * src.stride[0]);
        } else {
          for (int64_t i = 0; i < 16; ++i)
            v[i] =
                live[i] ? _mm512_maskz_loadu_ps(cols, x + i * src.stride[0]) : _mm512_setzero_ps();
        }
        transpose16(v);
        for (int64_t u = 0; u < std::min<int64_t>(16, wp - u0); ++u)
          _mm512_store_ps(tb + (h * wp + u0 + u) * 16, v[u]);
      }
    for (int64_t p0 = 0; p0 < np; p0 += kLanePositions)
      lane_taps(tb, pos.data() + p0, off, w, win, ob + p0 * 16);
    for (int64_t p = 0; p < np; p += 16) {  // position-major sums back into C's rows
      __m512 v[16];
      for (int j = 0; j < 16; ++j)
        v[j] = _mm512_load_ps(ob + (p + std::min<int64_t>(j, np - 1 - p)) * 16);
      transpose16(v);
      const __mmask16 mk = tail_mask(np - p);
      for (int64_t i = 0; i < nc; ++i) {
        float* out = c + (r0 + i) * ldc + p;
        if (mk == 0xFFFF && !accumulate) {
          _mm512_storeu_ps(out, v[i]);
          continue;
        }
        const __m512 x = accumulate ? _mm512_add_ps(v[i], _mm512_maskz_loadu_ps(mk, out)) : v[i];
        _mm512_mask_storeu_ps(out, mk, x);
      }
    }
  }
}

}  // namespace asc::cpu::gemm_detail
