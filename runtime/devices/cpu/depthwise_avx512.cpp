// Block-diagonal mmads (gemm.h, gemm_mmad_a_panels_diag): a depthwise convolution's product, the
// rows of each A panel over their own k ranges (mmad_f32_diag), or read straight from the feature
// map without a column matrix (mmad_f32_diag_map). Row r of W_g (panels of `mr` rows)
// is output channel r, whose K columns [r * window, (r + 1) * window) are input channel r's taps;
// each tap adds w * (a strided row of the map, copied with zeros in its pads) to the output row,
// whose vectors along the width stay in registers over every tap.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu::gemm_detail {
namespace {

// cnt <= 16 elements p[0], p[s], ..., p[(cnt - 1) * s]; nothing past the last is read.
ASC_AVX512 inline __m512 load_strided(const float* p, int64_t s, int64_t cnt) {
  if (s == 1) return _mm512_maskz_loadu_ps(tail_mask(cnt), p);
  if (s == 2) return load_evens(p, cnt);
  const __m512i idx =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<int>(s)));
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), tail_mask(cnt), idx, p, 4);
}

// One output row's NCH chunks of 16 (acc), every tap of input row `buf` (the map's row with zeros
// in the pads, so no load is masked) summed in registers. Few chunks (a narrow map) spread the
// taps over kParts partial sums: one chain of dependent FMAs would wait on each one's latency.
template <int NCH>
ASC_AVX512 inline void row_taps(__m512* acc, const float* buf, const float* w, int64_t mr,
                                int64_t k2, int64_t s, int64_t d) {
  constexpr int kParts = NCH >= 4 ? 1 : 4 / NCH;
  __m512 part[kParts][NCH];
  for (int q = 0; q < kParts; ++q)
    for (int j = 0; j < NCH; ++j) part[q][j] = q == 0 ? acc[j] : _mm512_setzero_ps();
  for (int64_t e0 = 0; e0 < k2; e0 += kParts) {
#pragma GCC unroll 4
    for (int q = 0; q < kParts; ++q) {
      const int64_t e = e0 + q;
      if (e >= k2) break;
      const __m512 vw = _mm512_set1_ps(w[e * mr]);
      const float* x = buf + e * d;
#pragma GCC unroll 8
      for (int j = 0; j < NCH; ++j) {
        __m512 v;
        if (s == 1)
          v = _mm512_loadu_ps(x + 16 * j);
        else if (s == 2)
          v = even_lanes(_mm512_loadu_ps(x + 32 * j), _mm512_loadu_ps(x + 32 * j + 16));
        else
          v = load_strided(x + 16 * s * j, s, 16);
        part[q][j] = _mm512_fmadd_ps(vw, v, part[q][j]);
      }
    }
  }
  for (int j = 0; j < NCH; ++j) {
    __m512 t = part[0][j];
    for (int q = 1; q < kParts; ++q) t = _mm512_add_ps(t, part[q][j]);
    acc[j] = t;
  }
}

template <int NCH>
ASC_AVX512 inline void taps_of(__m512* acc, const float* buf, const float* w, int64_t mr,
                               int64_t k2, int64_t s, int64_t d, int nch) {
  if constexpr (NCH > 1) {
    if (nch < NCH) return taps_of<NCH - 1>(acc, buf, w, mr, k2, s, d, nch);
  }
  row_taps<NCH>(acc, buf, w, mr, k2, s, d);
}

// Row r's channel lies outside the map's box (a tail tile) or past K: its outputs are zero
// (unchanged when accumulating).
bool outside_map(int64_t r, int64_t win, int64_t k, const Im2colSource& src, float* out, int64_t n,
                 bool accumulate) {
  if (r * win < k && r >= src.lo[0] && r < src.hi[0]) return false;
  if (!accumulate) std::fill(out, out + n, 0.0f);
  return true;
}

// Row by row: each output row's taps over a copy of each input row it reads (any strides).
ASC_AVX512 void diag_map_rows(const float* pa, int64_t a_stride, int64_t mr,
                              const Im2colSource& src, const Im2col& g, float* c, int64_t ldc,
                              int64_t m, int64_t n, int64_t k, bool accumulate, int64_t taps_k) {
  constexpr int kChunks = 8;  // 128 outputs of a row in registers at a time
  const float* map = reinterpret_cast<const float*>(src.gm);
  const int64_t win = g.window(), ow_n = g.out[2], k2 = g.k[2], s2 = g.s[2], d2 = g.d[2];
  // The input columns a row of outputs reads, with room for whole vectors past the last.
  const int64_t span = (ow_n - 1) * s2 + (k2 - 1) * d2 + 1;
  static thread_local std::vector<float> row;
  row.assign(static_cast<size_t>(span + 32 * std::max<int64_t>(s2, 1) + 16), 0.0f);
  const int64_t c_lo = std::clamp<int64_t>(src.lo[3], 0, span);
  const int64_t c_hi = std::clamp<int64_t>(src.hi[3], c_lo, span);
  for (int64_t r = 0; r < m; ++r) {
    float* out = c + r * ldc;
    if (outside_map(r, win, k, src, out, n, accumulate)) continue;
    const float* w =
        pa + (r / mr) * a_stride + diag_taps_k(r, win, taps_k) * mr + r % mr;  // tap t: w[t * mr]
    const float* xc = map + src.base + r * src.stride[0];
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        const int64_t p0 = (od * g.out[1] + oh) * ow_n;
        if (p0 >= n) break;
        float* orow = out + p0;
        const int64_t row_end = std::min(ow_n, n - p0);
        for (int64_t g0 = 0; g0 < row_end; g0 += 16 * kChunks) {
          const int nch = static_cast<int>(std::min<int64_t>(kChunks, (row_end - g0 + 15) / 16));
          __m512 acc[kChunks];
          for (int j = 0; j < kChunks; ++j)
            acc[j] = accumulate && j < nch ? _mm512_maskz_loadu_ps(tail_mask(row_end - g0 - 16 * j),
                                                                   orow + g0 + 16 * j)
                                           : _mm512_setzero_ps();
          for (int64_t a = 0; a < g.k[0]; ++a) {
            const int64_t id = od * g.s[0] + a * g.d[0];
            if (id < src.lo[1] || id >= src.hi[1]) continue;
            for (int64_t b = 0; b < g.k[1]; ++b) {
              const int64_t ih = oh * g.s[1] + b * g.d[1];
              if (ih < src.lo[2] || ih >= src.hi[2]) continue;
              const float* xrow = xc + id * src.stride[1] + ih * src.stride[2];
              if (src.stride[3] == 1)
                std::copy(xrow + c_lo, xrow + c_hi, row.data() + c_lo);
              else
                for (int64_t u = c_lo; u < c_hi; ++u) row[u] = xrow[u * src.stride[3]];
              taps_of<kChunks>(acc, row.data() + g0 * s2, w + (a * g.k[1] + b) * k2 * mr, mr, k2,
                               s2, d2, nch);
            }
          }
          for (int j = 0; j < nch; ++j)
            _mm512_mask_storeu_ps(orow + g0 + 16 * j, tail_mask(row_end - g0 - 16 * j), acc[j]);
        }
      }
  }
}

// Plane by plane: the window's part of the map copied once per channel into zero-padded phase
// planes — sr x sc of them, phase (i, j) holding the map rows = i and columns = j modulo the
// strides (sr, sc), P columns each — so output q = oh * P + ow of every tap (b, e) reads phase
// ((b dh) % sr, (e dw) % sc) at q + ((b dh) / sr) P + (e dw) / sc: the taps are unit-stride vector
// loads at offsets fixed for the whole call, the plane's outputs a few vectors even for a 7x7 map
// (its P - OW columns per row computed and dropped). `planes` and `q_out` are per-thread scratch.
constexpr int kPlaneVectors = 8;    // outputs in registers: 8 vectors of 16
constexpr int64_t kPlaneTaps = 64;  // taps of one window depth

template <int NV>
ASC_AVX512 inline void plane_taps(const float* x, const int64_t* off, const float* w, int64_t taps,
                                  float* dst, bool add) {
  // Few vectors: the taps alternate between P partial sums per vector, so at least eight
  // independent FMA chains hide the FMA latency (a 7x7 plane is five vectors).
  constexpr int P = NV >= 8 ? 1 : NV >= 4 ? 2 : 4;
  __m512 acc[P][NV];
  for (int q = 0; q < P; ++q)
    for (int j = 0; j < NV; ++j)
      acc[q][j] = q == 0 && add ? _mm512_loadu_ps(dst + 16 * j) : _mm512_setzero_ps();
  int64_t t = 0;
  for (; t + P <= taps; t += P) {
#pragma GCC unroll 4
    for (int q = 0; q < P; ++q) {
      const __m512 wv = _mm512_set1_ps(w[t + q]);
      const float* xt = x + off[t + q];
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j)
        acc[q][j] = _mm512_fmadd_ps(wv, _mm512_loadu_ps(xt + 16 * j), acc[q][j]);
    }
  }
  for (; t < taps; ++t) {  // the last taps % P into the first partial sums (no padding tap)
    const __m512 wv = _mm512_set1_ps(w[t]);
    const float* xt = x + off[t];
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j)
      acc[0][j] = _mm512_fmadd_ps(wv, _mm512_loadu_ps(xt + 16 * j), acc[0][j]);
  }
  for (int j = 0; j < NV; ++j) {
    __m512 v = acc[0][j];
    for (int q = 1; q < P; ++q) v = _mm512_add_ps(v, acc[q][j]);
    _mm512_storeu_ps(dst + 16 * j, v);
  }
}

template <int NV>
ASC_AVX512 inline void plane_taps_n(const float* x, const int64_t* off, const float* w,
                                    int64_t taps, float* dst, bool add, int nv) {
  if constexpr (NV > 1) {
    if (nv < NV) return plane_taps_n<NV - 1>(x, off, w, taps, dst, add, nv);
  }
  plane_taps<NV>(x, off, w, taps, dst, add);
}

ASC_AVX512 void diag_map_planes(const float* pa, int64_t a_stride, int64_t mr,
                                const Im2colSource& src, const Im2col& g, float* c, int64_t ldc,
                                int64_t m, int64_t n, int64_t k, bool accumulate, int64_t taps_k) {
  const float* map = reinterpret_cast<const float*>(src.gm);
  const int64_t win = g.window(), sr = g.s[1], sc = g.s[2], k1 = g.k[1], k2 = g.k[2];
  const int64_t oh_n = g.out[1], ow_n = g.out[2], taps = k1 * k2;
  const int64_t hp = g.span(1), wp = g.span(2);
  const int64_t ph = (hp + sr - 1) / sr, pw = (wp + sc - 1) / sc;
  // Phase stride: reads run past a phase's last row by up to a row and a block of vectors.
  const int64_t ps = ph * pw + pw + 16 * kPlaneVectors;
  const int64_t qn = oh_n * pw;  // outputs computed per plane (pitch pw)
  const int64_t c_lo = std::clamp<int64_t>(src.lo[3], 0, wp);
  const int64_t c_hi = std::clamp<int64_t>(src.hi[3], c_lo, wp);
  const int64_t r_lo = std::clamp<int64_t>(src.lo[2], 0, hp);
  const int64_t r_hi = std::clamp<int64_t>(src.hi[2], r_lo, hp);
  // The planes' padding is zero; the map's rows [r_lo, r_hi) x columns [c_lo, c_hi) are written
  // over for every channel. A call with the geometry of this thread's last one writes the same
  // places, so its padding is still zero and the planes are not cleared again (clearing them
  // per call was 14 % of a 56x56 layer).
  static thread_local std::vector<float> plane_buf, q_buf;
  static thread_local std::array<int64_t, 8> zeroed{};
  const std::array<int64_t, 8> geometry{sr, sc, ps, pw, r_lo, r_hi, c_lo, c_hi};
  if (geometry != zeroed || plane_buf.size() != static_cast<size_t>(sr * sc * ps)) {
    plane_buf.assign(static_cast<size_t>(sr * sc * ps), 0.0f);
    zeroed = geometry;
  }
  q_buf.resize(static_cast<size_t>(qn + 16 * kPlaneVectors));
  float* const planes = plane_buf.data();
  float* const q_out = q_buf.data();
  int64_t off[kPlaneTaps];
  float wt[kPlaneTaps];
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t b = (t / k2) * g.d[1], e = (t % k2) * g.d[2];
    off[t] = ((b % sr) * sc + e % sc) * ps + (b / sr) * pw + e / sc;
  }
  const int64_t plane_n = oh_n * ow_n;
  for (int64_t r = 0; r < m; ++r) {
    float* out = c + r * ldc;
    if (outside_map(r, win, k, src, out, n, accumulate)) continue;
    const float* w =
        pa + (r / mr) * a_stride + diag_taps_k(r, win, taps_k) * mr + r % mr;  // tap t: w[t * mr]
    const float* xc = map + src.base + r * src.stride[0];
    for (int64_t od = 0; od < g.out[0]; ++od) {
      bool any = false;
      for (int64_t a = 0; a < g.k[0]; ++a) {
        const int64_t id = od * g.s[0] + a * g.d[0];
        if (id < src.lo[1] || id >= src.hi[1]) continue;
        const float* xd = xc + id * src.stride[1];
        for (int64_t h = r_lo; h < r_hi; ++h) {
          float* rows[4];
          for (int64_t j = 0; j < sc; ++j)
            rows[j] = planes + ((h % sr) * sc + j) * ps + (h / sr) * pw;
          split_row(xd + h * src.stride[2], src.stride[3], c_lo, c_hi, sc, rows);
        }
        for (int64_t t = 0; t < taps; ++t) wt[t] = w[(a * taps + t) * mr];
        for (int64_t q0 = 0; q0 < qn; q0 += 16 * kPlaneVectors) {
          const int nv = static_cast<int>(std::min<int64_t>(kPlaneVectors, (qn - q0 + 15) / 16));
          plane_taps_n<kPlaneVectors>(planes + q0, off, wt, taps, q_out + q0, any, nv);
        }
        any = true;
      }
      // The plane's outputs (pitch pw) into C's positions (pitch ow_n).
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        const int64_t p0 = od * plane_n + oh * ow_n;
        if (p0 >= n) break;
        const int64_t cnt = std::min(ow_n, n - p0);
        const float* qr = q_out + oh * pw;
        for (int64_t i = 0; i < cnt; i += 16) {
          const __mmask16 mk = tail_mask(cnt - i);
          __m512 v = any ? _mm512_maskz_loadu_ps(mk, qr + i) : _mm512_setzero_ps();
          if (accumulate) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, out + p0 + i));
          _mm512_mask_storeu_ps(out + p0 + i, mk, v);
        }
      }
    }
  }
}

}  // namespace

ASC_AVX512 void mmad_f32_diag_map(const float* pa, int64_t a_stride, int64_t mr,
                                  const Im2colSource& src, const Im2col& g, float* c, int64_t ldc,
                                  int64_t m, int64_t n, int64_t k, bool accumulate,
                                  int64_t taps_k) {
  constexpr int64_t kPlaneMax = 1 << 15;  // floats of scratch planes (128 KiB): an L2-sized map
  const int64_t sr = g.s[1], sc = g.s[2];
  const int64_t ph = (g.span(1) + sr - 1) / sr, pw = (g.span(2) + sc - 1) / sc;
  if (diag_lanes_apply(src, g, m))
    mmad_f32_diag_lanes(pa, a_stride, mr, src, g, c, ldc, m, n, k, accumulate, taps_k);
  else if (sc <= 4 && g.k[1] * g.k[2] <= kPlaneTaps &&
           sr * sc * (ph * pw + pw + 16 * kPlaneVectors) <= kPlaneMax)
    diag_map_planes(pa, a_stride, mr, src, g, c, ldc, m, n, k, accumulate, taps_k);
  else
    diag_map_rows(pa, a_stride, mr, src, g, c, ldc, m, n, k, accumulate, taps_k);
}

ASC_AVX512 void mmad_f32_diag(const float* pa, int64_t a_stride, const float* pb, float* c,
                              int64_t ldc, int64_t m, int64_t n, int64_t k, int64_t diag,
                              bool accumulate) {
  for (int64_t q = 0; q * kNr < n; ++q) {
    const float* b = pb + q * k * kNr;
    const int64_t cols = n - q * kNr;
    const __mmask16 m0 = tail_mask(cols), m1 = tail_mask(cols - 16);
    for (int64_t p = 0; p * kMr < m; ++p) {
      const float* a = pa + p * a_stride;
      const int64_t rows = std::min<int64_t>(kMr, m - p * kMr);
      int64_t lo[kMr], len = 0;  // row i's first k (rows past m: 0, never stored)
      for (int i = 0; i < kMr; ++i) {
        lo[i] = i < rows ? std::min(k, (p * kMr + i) * diag) : 0;
        len = std::max(len, i < rows ? std::min(diag, k - lo[i]) : 0);
      }
      __m512 acc0[kMr], acc1[kMr];
#pragma GCC unroll 16
      for (int i = 0; i < kMr; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
      for (int64_t t = 0; t < len; ++t) {
#pragma GCC unroll 16
        for (int i = 0; i < kMr; ++i) {
          const int64_t kk = std::min(lo[i] + t, k - 1);  // a row's range ends by k: stays in B
          const __m512 ai = _mm512_set1_ps(lo[i] + t < k ? a[kk * kMr + i] : 0.f);
          acc0[i] = _mm512_fmadd_ps(ai, _mm512_maskz_loadu_ps(m0, b + kk * kNr), acc0[i]);
          acc1[i] = _mm512_fmadd_ps(ai, _mm512_maskz_loadu_ps(m1, b + kk * kNr + 16), acc1[i]);
        }
      }
      float* cp = c + p * kMr * ldc + q * kNr;
      for (int i = 0; i < rows; ++i) {
        __m512 r0 = acc0[i], r1 = acc1[i];
        if (accumulate) {
          r0 = _mm512_add_ps(r0, _mm512_maskz_loadu_ps(m0, cp + i * ldc));
          r1 = _mm512_add_ps(r1, _mm512_maskz_loadu_ps(m1, cp + i * ldc + 16));
        }
        _mm512_mask_storeu_ps(cp + i * ldc, m0, r0);
        _mm512_mask_storeu_ps(cp + i * ldc + 16, m1, r1);
      }
    }
  }
}

}  // namespace asc::cpu::gemm_detail

namespace asc::cpu {

bool mmad_a_panels_diag_map(DType in, const void* pa, int64_t a_stride, const Im2colSource& src,
                            const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                            bool accumulate, int64_t taps_k) {
  const GemmKernel& kern = gemm_kernel(in);
  if (in != DType::kF32 || kern.packed != DType::kF32 || kern.k_pack != 1 ||
      std::string_view(gemm_active_isa()).substr(0, 6) != "avx512")
    return false;
  if (m > 0 && n > 0)
    gemm_detail::mmad_f32_diag_map(static_cast<const float*>(pa), a_stride, kern.mr, src, g, c, ldc,
                                   m, n, k, accumulate, taps_k);
  return true;
}

}  // namespace asc::cpu
