// The column matrix of a window of column stride 1 or 2 (im2col.h), packed into 32-position f32
// panels with AVX-512 masked loads: per panel, its positions split into runs of one output row;
// for each kernel offset the runs' source rows and valid lanes are found once, then every
// channel's k row is two masked loads per run (stride 2: four, their even elements kept by a
// permute) and two stores. Masked-off lanes are never read (AVX-512 suppresses their faults), so
// the padding costs nothing but the mask.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

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

// Bit l of i moved to bit 2l (a stride-2 source vector's even elements).
constexpr std::array<uint16_t, 256> kSpread = [] {
  std::array<uint16_t, 256> t{};
  for (int i = 0; i < 256; ++i)
    for (int l = 0; l < 8; ++l)
      if ((i >> l) & 1) t[static_cast<size_t>(i)] = static_cast<uint16_t>(t[i] | 1u << (2 * l));
  return t;
}();

// The 16-lane element mask of a stride-2 source vector: element 2l of it feeds lane `first` + l,
// set where that lane is in `lanes` (a 32-lane panel's valid lanes).
inline __mmask16 even_elements(uint32_t lanes, int first) {
  return static_cast<__mmask16>(kSpread[(lanes >> first) & 0xffu]);
}

// Lanes 16 x half .. of a panel row for column stride S: S = 1 loads them (element mask
// lm[half]), S = 2 loads the 32 source elements they take every other one of (element masks
// lm[2 half], lm[2 half + 1]) and keeps the even ones.
template <DType In, int S>
ASC_AVX512 inline __m512 load_lanes(const void* map, int64_t at, const __mmask16* lm, int half) {
  if constexpr (S == 1) {
    return load_b<In>(map, at + 16 * half, lm[half]);
  } else {
    const __m512 lo = load_b<In>(map, at + 32 * half, lm[2 * half]);
    const __m512 hi = load_b<In>(map, at + 32 * half + 16, lm[2 * half + 1]);
    return gemm_detail::even_lanes(lo, hi);
  }
}

// The runs of panel q (its positions split at output-row ends); returns their count.
int panel_runs(const Im2col& g, int64_t q, Run* runs) {
  const int64_t np = g.positions();
  int nruns = 0;
  for (int64_t j = 0; j < kPanel && q * kPanel + j < np;) {
    const int64_t p = q * kPanel + j, ow = p % g.out[2], row = p / g.out[2];
    const int64_t n = std::min<int64_t>(kPanel - j, g.out[2] - ow);
    runs[nruns++] = {j, std::min(n, np - p), row / g.out[1], row % g.out[1], ow};
    j += n;
  }
  return nruns;
}

// One kernel offset of a panel: per run that reads inside the map, the source offset of lane 0
// (channel 0) and the valid lanes.
struct Tap {
  int64_t off[kPanel];
  __mmask16 m0[kPanel], m1[kPanel];  // the lanes each run sets
  __mmask16 lm[kPanel][4];           // its source element masks (load_lanes)
  int nvalid = 0;
};

template <int S>
ASC_AVX512 void tap_of(const Im2colSource& s, const Im2col& g, const Run* runs, int nruns,
                       int64_t a, int64_t b, int64_t e, Tap& t) {
  t.nvalid = 0;
  for (int r = 0; r < nruns; ++r) {
    const Run& u = runs[r];
    const int64_t id = u.od * g.s[0] + a * g.d[0], ih = u.oh * g.s[1] + b * g.d[1];
    if (id < s.lo[1] || id >= s.hi[1] || ih < s.lo[2] || ih >= s.hi[2]) continue;
    const int64_t iw0 = u.ow * S + e * g.d[2];  // lane j reads column iw0 + S (j - j0)
    const int64_t lo = std::max(u.j0, u.j0 + ceil_div_signed(s.lo[3] - iw0, S));
    const int64_t hi = std::min(u.j0 + u.n, u.j0 + ceil_div_signed(s.hi[3] - iw0, S));
    if (hi <= lo) continue;
    const int v = t.nvalid++;
    t.off[v] = s.base + id * s.stride[1] + ih * s.stride[2] + (iw0 - S * u.j0);
    lane_masks(lo, hi, t.m0[v], t.m1[v]);
    const uint32_t all = static_cast<uint32_t>(t.m0[v]) | static_cast<uint32_t>(t.m1[v]) << 16;
    for (int h = 0; h < 4; ++h)
      t.lm[v][h] = S == 1 ? (h == 0 ? t.m0[v] : t.m1[v]) : even_elements(all, 8 * h);
  }
}

// Channels [c0, c1) of one kernel offset: the panel rows c * win + kk0, at row + c * row_step.
template <DType In, int S>
ASC_AVX512 void pack_tap(const Im2colSource& s, const Tap& t, int64_t c0, int64_t c1, float* row,
                         int64_t row_step) {
  using T = std::conditional_t<In == DType::kF32, float, uint16_t>;
  const T* map = reinterpret_cast<const T*>(s.gm);
  for (int64_t c = c0; c < c1; ++c, row += row_step) {
    __m512 r0 = _mm512_setzero_ps(), r1 = _mm512_setzero_ps();
    if (c >= s.lo[0] && c < s.hi[0])
      for (int v = 0; v < t.nvalid; ++v) {
        const int64_t at = t.off[v] + c * s.stride[0];
        // The same run of the next panel: each channel's and offset's rows are a stream of
        // their own, more than the hardware's prefetch follows.
        for (int64_t l = 0; l < 2 * S; ++l)
          _mm_prefetch(reinterpret_cast<const char*>(map + at + 32 * S + 16 * l), _MM_HINT_T0);
        r0 = _mm512_mask_mov_ps(r0, t.m0[v], load_lanes<In, S>(map, at, t.lm[v], 0));
        r1 = _mm512_mask_mov_ps(r1, t.m1[v], load_lanes<In, S>(map, at, t.lm[v], 1));
      }
    _mm512_storeu_ps(row, r0);
    _mm512_storeu_ps(row + 16, r1);
  }
}

template <DType In, int S>
ASC_AVX512 void pack_strided(const Im2colSource& s, const Im2col& g, int64_t k, float* dst) {
  const int64_t np = g.positions(), win = g.window(), channels = k / std::max<int64_t>(win, 1);
  const int64_t panels = (np + kPanel - 1) / kPanel;
  Run runs[kPanel];
  Tap t;
  for (int64_t q = 0; q < panels; ++q) {
    const int nruns = panel_runs(g, q, runs);
    float* panel = dst + q * k * kPanel;
    for (int64_t a = 0; a < g.k[0]; ++a)
      for (int64_t b = 0; b < g.k[1]; ++b)
        for (int64_t e = 0; e < g.k[2]; ++e) {
          tap_of<S>(s, g, runs, nruns, a, b, e, t);
          const int64_t kk0 = (a * g.k[1] + b) * g.k[2] + e;
          pack_tap<In, S>(s, t, 0, channels, panel + kk0 * kPanel, win * kPanel);
        }
  }
}

// mmad_im2col's filler: a panel's kernel offsets set up when the panel starts, then each k
// chunk's rows packed offset by offset.
template <int S>
struct ChunkFill {
  const Im2colSource* s;
  const Im2col* g;
  int64_t win;
  std::vector<Tap> taps;
  int64_t panel = -1;

  ASC_AVX512 static void fill(void* ctx, int64_t q, int64_t k0, int64_t kl, float* dst) {
    auto& f = *static_cast<ChunkFill*>(ctx);
    const Im2col& g = *f.g;
    if (q != f.panel) {
      Run runs[kPanel];
      const int nruns = panel_runs(g, q, runs);
      size_t kk = 0;
      for (int64_t a = 0; a < g.k[0]; ++a)
        for (int64_t b = 0; b < g.k[1]; ++b)
          for (int64_t e = 0; e < g.k[2]; ++e)
            tap_of<S>(*f.s, g, runs, nruns, a, b, e, f.taps[kk++]);
      f.panel = q;
    }
    const int64_t k1 = k0 + kl;
    for (int64_t kk = 0; kk < f.win; ++kk) {  // rows c * win + kk in [k0, k1)
      const int64_t c0 = std::max<int64_t>(0, ceil_div_signed(k0 - kk, f.win));
      const int64_t c1 = ceil_div_signed(k1 - kk, f.win);
      if (c0 < c1)
        pack_tap<DType::kF32, S>(*f.s, f.taps[static_cast<size_t>(kk)], c0, c1,
                                 dst + (c0 * f.win + kk - k0) * kPanel, f.win * kPanel);
    }
  }
};

template <int S>
ASC_AVX512 void mmad_im2col(const float* pa, int64_t a_stride, const Im2colSource& src,
                            const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                            bool accumulate, GemmAhead* ahead) {
  static thread_local std::vector<Tap> taps;
  ChunkFill<S> f{&src, &g, std::max<int64_t>(g.window(), 1), std::move(taps)};
  f.taps.resize(static_cast<size_t>(f.win));
  gemm_detail::mmad_f32_a_panels_fill(pa, a_stride, {&ChunkFill<S>::fill, &f}, c, ldc, m, n, k,
                                      accumulate, ahead);
  taps = std::move(f.taps);
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

namespace asc::cpu {

bool mmad_a_panels_im2col(DType in, const void* pa, int64_t a_stride, const Im2colSource& src,
                          const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                          bool accumulate, GemmAhead* ahead, RowEpilogue* ep) {
  const GemmKernel& f32 = gemm_kernel(DType::kF32);
  if (in != DType::kF32 || g.s[2] > 2 || src.stride[3] != 1 || !gemm_detail::gemm_isa_avx512() ||
      f32.mr != gemm_detail::kMr || f32.nr != gemm_detail::kNr || f32.k_pack != 1)
    return false;
  GemmAhead none;
  if (!ahead) ahead = &none;
  ahead->start();
  if (m > 0 && n > 0) {
    const auto* a = static_cast<const float*>(pa);
    const bool planes =  // Winograd's 16 products for 36, else the map's phase planes where
                         // that is cheaper than packing
        gemm_detail::mmad_f32_winograd(a, a_stride, src, g, c, ldc, m, n, k, accumulate, false) ||
        gemm_detail::mmad_f32_planes(a, a_stride, src, g, c, ldc, m, n, k, accumulate, ahead, false,
                                     ep);
    if (!planes && g.s[2] == 2)
      mmad_im2col<2>(a, a_stride, src, g, c, ldc, m, n, k, accumulate, ahead);
    else if (!planes)
      mmad_im2col<1>(a, a_stride, src, g, c, ldc, m, n, k, accumulate, ahead);
  }
  ahead->issue(1, 1);
  return true;
}

}  // namespace asc::cpu
