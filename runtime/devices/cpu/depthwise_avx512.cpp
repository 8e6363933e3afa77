// A block-diagonal mmad read straight from the feature map: a depthwise convolution's product
// (gemm.h, gemm_mmad_a_panels_diag) without its column matrix. Row r of W_g (panels of `mr` rows)
// is output channel r, whose K columns [r * window, (r + 1) * window) are input channel r's taps;
// each tap adds w * (a strided row of the map) to the output row, in vectors along the width.
#include <immintrin.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu::gemm_detail {
namespace {

int64_t ceil_div_signed(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

// cnt <= 16 elements p[0], p[s], ..., p[(cnt - 1) * s]; nothing past the last is read.
ASC_AVX512 inline __m512 load_strided(const float* p, int64_t s, int64_t cnt) {
  if (s == 1) return _mm512_maskz_loadu_ps(tail_mask(cnt), p);
  if (s == 2) {
    const int64_t span = 2 * cnt - 1;
    const __m512 lo = _mm512_maskz_loadu_ps(tail_mask(span), p);
    const __m512 hi = _mm512_maskz_loadu_ps(tail_mask(span - 16), p + 16);
    const __m512i evens =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_ps(lo, evens, hi);
  }
  const __m512i idx =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<int>(s)));
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), tail_mask(cnt), idx, p, 4);
}

}  // namespace

ASC_AVX512 void mmad_f32_diag_map(const float* pa, int64_t a_stride, int64_t mr,
                                  const Im2colSource& src, const Im2col& g, float* c, int64_t ldc,
                                  int64_t m, int64_t n, int64_t k, bool accumulate) {
  const float* map = reinterpret_cast<const float*>(src.gm);
  const int64_t win = g.window(), ow_n = g.out[2], k2 = g.k[2];
  const int64_t xs = g.s[2] * src.stride[3];  // map elements between outputs along the width
  // Per tap column e: the ow whose input column ow * s + e * d lies inside the map (the same for
  // every row and channel of the tile).
  std::vector<int64_t> w0(static_cast<size_t>(k2)), w1(static_cast<size_t>(k2));
  for (int64_t e = 0; e < k2; ++e) {
    const int64_t off = e * g.d[2];
    w0[e] = std::clamp<int64_t>(ceil_div_signed(src.lo[3] - off, g.s[2]), 0, ow_n);
    w1[e] = std::clamp<int64_t>(ceil_div_signed(src.hi[3] - off, g.s[2]), w0[e], ow_n);
  }
  for (int64_t r = 0; r < m; ++r) {
    float* out = c + r * ldc;
    if (r * win >= k || r < src.lo[0] || r >= src.hi[0]) {  // a channel outside the map
      if (!accumulate) std::fill(out, out + n, 0.0f);
      continue;
    }
    const float* w = pa + (r / mr) * a_stride + (r * win) * mr + r % mr;  // w[t * mr]: tap t
    const float* xc = map + src.base + r * src.stride[0];
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        const int64_t p0 = (od * g.out[1] + oh) * ow_n;
        if (p0 >= n) break;
        float* orow = out + p0;
        const int64_t row_end = std::min(ow_n, n - p0);
        // 16 outputs at a time, every tap summed in a register (a store and a reload per tap
        // would wait on store forwarding).
        for (int64_t c0 = 0; c0 < row_end; c0 += 16) {
          const int64_t cnt = std::min<int64_t>(16, row_end - c0);
          const __mmask16 mk = tail_mask(cnt);
          __m512 acc = accumulate ? _mm512_maskz_loadu_ps(mk, orow + c0) : _mm512_setzero_ps();
          for (int64_t a = 0; a < g.k[0]; ++a) {
            const int64_t id = od * g.s[0] + a * g.d[0];
            if (id < src.lo[1] || id >= src.hi[1]) continue;
            for (int64_t b = 0; b < g.k[1]; ++b) {
              const int64_t ih = oh * g.s[1] + b * g.d[1];
              if (ih < src.lo[2] || ih >= src.hi[2]) continue;
              const float* xrow = xc + id * src.stride[1] + ih * src.stride[2];
              const float* wt = w + (a * g.k[1] + b) * k2 * mr;
              for (int64_t e = 0; e < k2; ++e) {
                const int64_t lo = std::max(w0[e], c0), hi = std::min(w1[e], c0 + cnt);
                if (hi <= lo) continue;  // the window's column is in the pads for all 16
                const __m512 v =
                    load_strided(xrow + (lo * g.s[2] + e * g.d[2]) * src.stride[3], xs, hi - lo);
                const __mmask16 lanes =
                    static_cast<__mmask16>(tail_mask(hi - c0) & ~tail_mask(lo - c0));
                acc = _mm512_mask3_fmadd_ps(_mm512_set1_ps(wt[e * mr]),
                                            _mm512_maskz_expand_ps(lanes, v), acc, lanes);
              }
            }
          }
          _mm512_mask_storeu_ps(orow + c0, mk, acc);
        }
      }
  }
}

}  // namespace asc::cpu::gemm_detail

namespace asc::cpu {

bool mmad_a_panels_diag_map(DType in, const void* pa, int64_t a_stride, const Im2colSource& src,
                            const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                            bool accumulate) {
  const GemmKernel& kern = gemm_kernel(in);
  if (in != DType::kF32 || kern.packed != DType::kF32 || kern.k_pack != 1 ||
      std::string_view(gemm_active_isa()).substr(0, 6) != "avx512")
    return false;
  if (m > 0 && n > 0)
    gemm_detail::mmad_f32_diag_map(static_cast<const float*>(pa), a_stride, kern.mr, src, g, c, ldc,
                                   m, n, k, accumulate);
  return true;
}

}  // namespace asc::cpu
