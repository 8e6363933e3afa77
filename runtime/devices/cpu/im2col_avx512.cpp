// The column matrix of a window of column stride 1 or 2 (im2col.h), packed into 32-position f32
// panels with AVX-512 masked loads: per panel, its positions split into runs of one output row;
// for each kernel offset the runs' source rows and valid lanes are found once, then every
// channel's k row is two masked loads per run (stride 2: four, their even elements kept by a
// permute) and two stores. Masked-off lanes are never read (AVX-512 suppresses their faults), so
// the padding costs nothing but the mask.
#include <algorithm>
#include <cstdint>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu {
namespace {

using gemm_detail::load_b;

constexpr int kPanel = 32;

struct Run {
  int64_t j0, n;       // panel lanes [j0, j0 + n)
  int64_t od, oh, ow;  // the first lane's output position
};

// ceil(a / b) for b > 0 and any a.
inline int64_t ceil_div_signed(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

// Lanes [lo, hi) of a 32-lane panel as two 16-lane masks.
ASC_AVX512 inline void lane_masks(int64_t lo, int64_t hi, __mmask16& m0, __mmask16& m1) {
  const auto bits = [](int64_t a, int64_t b) {
    a = std::clamp<int64_t>(a, 0, 16);
    b = std::clamp<int64_t>(b, 0, 16);
    return b <= a ? __mmask16(0) : __mmask16(((1u << (b - a)) - 1) << a);
  };
  m0 = bits(lo, hi);
  m1 = bits(lo - 16, hi - 16);
}

// The 16-lane element mask of a stride-2 source vector: element 2l of it feeds lane `first` + l,
// set where that lane is in `lanes` (a 32-lane panel's valid lanes).
ASC_AVX512 inline __mmask16 even_elements(uint32_t lanes, int first) {
  uint32_t m = 0;
  for (int l = 0; l < 8; ++l)
    if ((lanes >> (first + l)) & 1u) m |= 1u << (2 * l);
  return static_cast<__mmask16>(m);
}

// Lanes 16 x half .. of a panel row for column stride S: S = 1 loads them, S = 2 loads the 32
// source elements they take every other one of and keeps the even ones.
template <DType In, int S>
ASC_AVX512 inline __m512 load_lanes(const void* map, int64_t at, __mmask16 lanes, uint32_t all,
                                    int half) {
  if constexpr (S == 1) {
    return load_b<In>(map, at + 16 * half, lanes);
  } else {
    const __m512 lo = load_b<In>(map, at + 32 * half, even_elements(all, 16 * half));
    const __m512 hi = load_b<In>(map, at + 32 * half + 16, even_elements(all, 16 * half + 8));
    return gemm_detail::even_lanes(lo, hi);
  }
}

template <DType In, int S>
ASC_AVX512 void pack_strided(const Im2colSource& s, const Im2col& g, int64_t k, float* dst) {
  using T = std::conditional_t<In == DType::kF32, float, uint16_t>;
  const T* map = reinterpret_cast<const T*>(s.gm);
  const int64_t np = g.positions(), win = g.window(), channels = k / std::max<int64_t>(win, 1);
  const int64_t panels = (np + kPanel - 1) / kPanel;
  Run runs[kPanel];
  for (int64_t q = 0; q < panels; ++q) {
    int nruns = 0;
    for (int64_t j = 0; j < kPanel && q * kPanel + j < np;) {
      const int64_t p = q * kPanel + j, ow = p % g.out[2], row = p / g.out[2];
      const int64_t n = std::min<int64_t>(kPanel - j, g.out[2] - ow);
      runs[nruns++] = {j, std::min(n, np - p), row / g.out[1], row % g.out[1], ow};
      j += n;
    }
    float* panel = dst + q * k * kPanel;
    for (int64_t a = 0; a < g.k[0]; ++a)
      for (int64_t b = 0; b < g.k[1]; ++b)
        for (int64_t e = 0; e < g.k[2]; ++e) {
          // Per run: the source offset of lane 0 (channel 0) and the valid lanes.
          int64_t off[kPanel];
          __mmask16 m0[kPanel], m1[kPanel];
          uint32_t all[kPanel];
          int nvalid = 0;
          for (int r = 0; r < nruns; ++r) {
            const Run& u = runs[r];
            const int64_t id = u.od * g.s[0] + a * g.d[0], ih = u.oh * g.s[1] + b * g.d[1];
            if (id < s.lo[1] || id >= s.hi[1] || ih < s.lo[2] || ih >= s.hi[2]) continue;
            const int64_t iw0 = u.ow * S + e * g.d[2];  // lane j reads column iw0 + S (j - j0)
            const int64_t lo = std::max(u.j0, u.j0 + ceil_div_signed(s.lo[3] - iw0, S));
            const int64_t hi = std::min(u.j0 + u.n, u.j0 + ceil_div_signed(s.hi[3] - iw0, S));
            if (hi <= lo) continue;
            off[nvalid] = s.base + id * s.stride[1] + ih * s.stride[2] + (iw0 - S * u.j0);
            lane_masks(lo, hi, m0[nvalid], m1[nvalid]);
            all[nvalid] = static_cast<uint32_t>(m0[nvalid]) | static_cast<uint32_t>(m1[nvalid])
                                                                  << 16;
            ++nvalid;
          }
          const int64_t kk0 = (a * g.k[1] + b) * g.k[2] + e;
          for (int64_t c = 0; c < channels; ++c) {
            float* row = panel + (c * win + kk0) * kPanel;
            __m512 r0 = _mm512_setzero_ps(), r1 = _mm512_setzero_ps();
            if (c >= s.lo[0] && c < s.hi[0])
              for (int v = 0; v < nvalid; ++v) {
                const int64_t at = off[v] + c * s.stride[0];
                r0 = _mm512_mask_mov_ps(r0, m0[v], load_lanes<In, S>(map, at, m0[v], all[v], 0));
                r1 = _mm512_mask_mov_ps(r1, m1[v], load_lanes<In, S>(map, at, m1[v], all[v], 1));
              }
            _mm512_storeu_ps(row, r0);
            _mm512_storeu_ps(row + 16, r1);
          }
        }
  }
}

}  // namespace

bool im2col_pack_avx512(DType in, const Im2colSource& src, const Im2col& g, int64_t k, float* dst) {
  if (g.s[2] > 2 || src.stride[3] != 1 || !gemm_detail::gemm_isa_avx512()) return false;
  const bool two = g.s[2] == 2;
  switch (in) {
    case DType::kF32:
      two ? pack_strided<DType::kF32, 2>(src, g, k, dst)
          : pack_strided<DType::kF32, 1>(src, g, k, dst);
      return true;
    case DType::kF16:
      two ? pack_strided<DType::kF16, 2>(src, g, k, dst)
          : pack_strided<DType::kF16, 1>(src, g, k, dst);
      return true;
    case DType::kBF16:
      two ? pack_strided<DType::kBF16, 2>(src, g, k, dst)
          : pack_strided<DType::kBF16, 1>(src, g, k, dst);
      return true;
    default:
      return false;
  }
}

}  // namespace asc::cpu
