// A dense convolution's product read straight from the feature map (mmad_f32_planes,
// gemm_avx512.h): the tile's input box copied once into zero-padded stride-phase planes per
// channel, so every column-matrix row (c, b, e) over a run of outputs is one contiguous run of a
// plane. Outputs are numbered q = oh * pw + ow over the planes' pitch pw (the pw - OW columns past
// each output row are computed and dropped): the micro-kernel's B row kk for the 32 outputs
// q0.. is planes + off[kk] + q0, no column matrix is written, and C' [m][q] is compacted into C.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu::gemm_detail {
namespace {

// Scratch bound of the planes (floats): a larger box takes the packed path.
constexpr int64_t kPlanesMax = 1 << 20;  // 4 MiB
constexpr int64_t kPlanesMinK = 16;

// C'[MR rows, 16 NV outputs] (+)= A panel chunk x those outputs of rows off[0..k) (kMr A values
// per k). pf, when not null, a stream fetched into L2 a line per k (ukr_f32's).
template <int MR, int NV>
ASC_AVX512 void ukr_planes(const float* a, const float* b, const int32_t* off, int64_t k, float* c,
                           int64_t ldc, bool load_c, const float* pf) {
  const char* pfl = reinterpret_cast<const char*>(pf ? pf : a);
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_setzero_ps();
  for (int64_t kk = 0; kk < k; ++kk) {
    const float* bk = b + off[kk];
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) bv[j] = _mm512_loadu_ps(bk + 16 * j);
    _mm_prefetch(reinterpret_cast<const char*>(a + 8 * kMr), _MM_HINT_T0);
    _mm_prefetch(pfl, _MM_HINT_T1);
    pfl += 64;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_fmadd_ps(ai, bv[j], acc[i][j]);
    }
    a += kMr;
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      float* ci = c + i * ldc + 16 * j;
      _mm512_storeu_ps(ci, load_c ? _mm512_add_ps(acc[i][j], _mm512_loadu_ps(ci)) : acc[i][j]);
    }
}

// Kernels by rows (1..kMr) and vectors: a full panel takes 32 outputs (2 x 12 accumulators), a
// panel of at most kWideRows rows 64 (its few rows would leave the FMAs waiting on loads).
constexpr int kWideRows = 6;
using UkrPlanes = void (*)(const float*, const float*, const int32_t*, int64_t, float*, int64_t,
                           bool, const float*);
template <int MR>
constexpr std::array<UkrPlanes, 4> planes_row() {
  if constexpr (MR <= kWideRows)
    return {ukr_planes<MR, 1>, ukr_planes<MR, 2>, ukr_planes<MR, 3>, ukr_planes<MR, 4>};
  else
    return {ukr_planes<MR, 1>, ukr_planes<MR, 2>, nullptr, nullptr};
}
template <int... R>
constexpr std::array<std::array<UkrPlanes, 4>, sizeof...(R)> planes_table(
    std::integer_sequence<int, R...>) {
  return {planes_row<R + 1>()...};
}

// Lanes the packed path's micro-kernels spend on n positions: whole vectors, but a last panel's
// 1..11 columns past a multiple of 16 run on tail_cols, one FMA per column for kMr rows where the
// micro-kernel spends 12/16 of one: 4/3 of a lane each (the tiling's host_columns, ops/conv_tile).
double packed_lanes(int64_t n) {
  const int64_t r = n % 16;
  return static_cast<double>(n - r) + (r > 11 ? 16.0 : 4.0 / 3.0 * static_cast<double>(r));
}

// y = act(C' + bias) for rows [0, m) and positions [0, n) of C' (row pitch qb, output row pitch
// pw, OW positions an output row): the compaction and the epilogue in one pass.
ASC_AVX512 void epilogue_rows(RowEpilogue& ep, const float* cq, int64_t qb, int64_t pw,
                              int64_t out_rows, int64_t ow, int64_t m, int64_t n) {
  const __m512 lo = _mm512_set1_ps(ep.act == RowEpilogue::kRelu ? 0.f : ep.lo);
  const __m512 hi = _mm512_set1_ps(ep.hi);
  for (int64_t i = 0; i < m; ++i) {
    const float* qi = cq + i * qb;
    float* yi = ep.y + i * ep.ldy;
    const __m512 b = _mm512_set1_ps(ep.bias ? ep.bias[i] : 0.f);
    for (int64_t oh = 0; oh < out_rows; ++oh) {
      const int64_t p0 = oh * ow, cnt = std::min(ow, n - p0);
      for (int64_t j = 0; j < cnt; j += 16) {
        const __mmask16 mk = tail_mask(cnt - j);
        __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(mk, qi + oh * pw + j), b);
        // As the chain's Relu and Clip: a bound only where v compares past it (NaN stays), the
        // upper one first.
        const __mmask16 above =
            ep.act == RowEpilogue::kClip ? _mm512_cmp_ps_mask(v, hi, _CMP_GT_OQ) : 0;
        if (ep.act != RowEpilogue::kNone)
          v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, lo, _CMP_LT_OQ), v, lo);
        v = _mm512_mask_blend_ps(above, v, hi);
        _mm512_mask_storeu_ps(yi + p0 + j, mk, v);
      }
    }
  }
  ep.done = true;
}

float* align64(float* p) {
  return reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t{63});
}

// The planes' geometry for one call.
struct Geometry {
  int64_t sr, sc, ph, pw, cs;  // strides, phase rows and pitch, floats per channel
  int64_t rows, q, qb;         // output rows computed, outputs q = (rows - 1) pw + OW, q rounded
};

bool planes_geometry(const Im2colSource& src, const Im2col& g, int64_t m, int64_t n, int64_t k,
                     bool force, Geometry& o) {
  const int64_t win = g.window();
  if (g.k[0] != 1 || g.out[0] != 1 || win <= 1 || k % win != 0 || g.s[2] > 4 || n <= 0 ||
      src.lo[1] > 0 || src.hi[1] <= 0)
    return false;
  o.sr = g.s[1];
  o.sc = g.s[2];
  o.ph = (g.span(1) + o.sr - 1) / o.sr;
  o.pw = (g.span(2) + o.sc - 1) / o.sc;
  o.cs = o.sr * o.sc * o.ph * o.pw;
  o.rows = std::min(g.out[1], (n + g.out[2] - 1) / g.out[2]);
  o.q = (o.rows - 1) * o.pw + g.out[2];
  o.qb = (o.q + 31) / 32 * 32;
  if ((k / win) * o.cs + o.qb > kPlanesMax) return false;
  if (force) return true;
  // Worth it where the lanes spent on dropped columns and the compaction (a load and a store per
  // output: ~4 / k of its products) cost less than packing the column matrix: a k row's packing
  // costs about one A panel's products (kMr / m of the micro-kernels' time) when it gathers many
  // channels from L2. A stem's few rows (27 for a 3x3 over RGB) pack from L1 for less, but the
  // planes still win there: the stems of squeezenet1_1, mobilenet_v3, shufflenet and regnet take
  // 0.76-0.94x the packed form's time in the models (one thread, --trace, 3-4 rounds).
  if (k < kPlanesMinK) return false;
  const double planes = static_cast<double>((o.q + 15) / 16 * 16) * (1.0 + 4.0 / k);
  const double mr = static_cast<double>((m + kMr - 1) / kMr * kMr);
  return planes <= packed_lanes(n) * (1.0 + kMr / mr);
}

}  // namespace

ASC_AVX512 bool mmad_f32_planes(const float* pa, int64_t a_stride, const Im2colSource& src,
                                const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n,
                                int64_t k, bool accumulate, GemmAhead* ahead, bool force,
                                RowEpilogue* ep) {
  Geometry o;
  if (src.stride[3] != 1 || !planes_geometry(src, g, m, n, k, force, o)) return false;
  static constexpr auto table = planes_table(std::make_integer_sequence<int, kMr>{});
  const int64_t win = g.window(), k2 = g.k[2], channels = k / win;
  const int64_t ow_n = g.out[2], span1 = g.span(1), span2 = g.span(2), phase = o.ph * o.pw;
  const int64_t r_lo = std::clamp<int64_t>(src.lo[2], 0, span1);
  const int64_t r_hi = std::clamp<int64_t>(src.hi[2], r_lo, span1);
  const int64_t c_lo = std::clamp<int64_t>(src.lo[3], 0, span2);
  const int64_t c_hi = std::clamp<int64_t>(src.hi[3], c_lo, span2);
  const int64_t ch_lo = std::clamp<int64_t>(src.lo[0], 0, channels);
  const int64_t ch_hi = std::clamp<int64_t>(src.hi[0], ch_lo, channels);

  // Per-thread scratch, 64-byte aligned: the planes (reads of dropped outputs run past the last
  // one by up to a block: zeros there, never written), C' and the row offsets.
  static thread_local std::vector<float> plane_buf, cq_buf;
  static thread_local std::vector<int32_t> off_buf;
  const size_t plane_floats = static_cast<size_t>(channels * o.cs + o.qb + 64 + 16);
  if (plane_buf.size() < plane_floats) plane_buf.assign(plane_floats, 0.0f);
  float* const planes = align64(plane_buf.data());
  std::fill(planes + channels * o.cs, planes + channels * o.cs + o.qb + 64, 0.0f);
  // Every element of a channel's planes is written: its map rows and columns, zeros elsewhere
  // (phase j holds the map's columns [col_lo[j], col_hi[j]) of its pw).
  int64_t col_lo[4], col_hi[4];
  for (int64_t j = 0; j < o.sc; ++j) {
    col_lo[j] = std::min(o.pw, std::max<int64_t>(0, c_lo - j + o.sc - 1) / o.sc);
    col_hi[j] =
        std::clamp<int64_t>(std::max<int64_t>(0, c_hi - j + o.sc - 1) / o.sc, col_lo[j], o.pw);
  }
  const float* map = reinterpret_cast<const float*>(src.gm);
  for (int64_t ch = 0; ch < channels; ++ch) {
    float* pc = planes + ch * o.cs;
    if (ch < ch_lo || ch >= ch_hi) {
      std::fill(pc, pc + o.cs, 0.0f);
      continue;
    }
    const float* xc = map + src.base + ch * src.stride[0];
    for (int64_t h = 0; h < o.sr * o.ph; ++h) {
      float* rows[4];
      for (int64_t j = 0; j < o.sc; ++j)
        rows[j] = pc + ((h % o.sr) * o.sc + j) * phase + (h / o.sr) * o.pw;
      const bool inside = h >= r_lo && h < r_hi;
      for (int64_t j = 0; j < o.sc; ++j) {  // phase j's columns outside the map's: zeros
        const int64_t lo = inside ? col_lo[j] : o.pw, hi = inside ? col_hi[j] : o.pw;
        std::fill(rows[j], rows[j] + lo, 0.0f);
        std::fill(rows[j] + hi, rows[j] + o.pw, 0.0f);
      }
      if (inside) split_row(xc + h * src.stride[2], 1, c_lo, c_hi, o.sc, rows);
    }
  }
  // Row kk = (ch, b, e) of the column matrix: plane (ch, phase of b and e) at its shifted start.
  off_buf.resize(static_cast<size_t>(k));
  int32_t* off = off_buf.data();
  for (int64_t t = 0; t < win; ++t) {
    const int64_t b = (t / k2) * g.d[1], e = (t % k2) * g.d[2];
    off[t] =
        static_cast<int32_t>(((b % o.sr) * o.sc + e % o.sc) * phase + (b / o.sr) * o.pw + e / o.sc);
  }
  for (int64_t kk = win; kk < k; ++kk) off[kk] = off[kk - win] + static_cast<int32_t>(o.cs);

  // C' [m][qb]: blocks of 32 outputs, k chunks and A panels in gemm_fill's order; a panel of few
  // rows takes two blocks at once, at the even one.
  cq_buf.resize(static_cast<size_t>(m * o.qb + 16));
  float* const cq = align64(cq_buf.data());
  const int64_t panels_a = (m + kMr - 1) / kMr, blocks = o.qb / 32, vecs = (o.q + 15) / 16;
  const int64_t chunks = (k + kKcF32 - 1) / kKcF32;
  const bool a_in_l2 = panels_a * kMr * k * 4 <= kAInL2Bytes;
  for (int64_t it = 0; it < blocks * chunks; ++it) {
    const int64_t q = a_in_l2 ? it / chunks : it % blocks;
    const int64_t k0 = (a_in_l2 ? it % chunks : it / blocks) * kKcF32;
    const int64_t kl = std::min(kKcF32, k - k0);
    const bool stream = !a_in_l2 && q == blocks - 1 && k0 + kl < k;
    for (int64_t p = 0; p < panels_a; ++p) {
      if (ahead) ahead->issue(it * panels_a + p + 1, blocks * chunks * panels_a);
      const float* a = pa + p * a_stride + k0 * kMr;
      const int64_t rows = std::min<int64_t>(kMr, m - p * kMr);
      const bool wide = rows <= kWideRows;
      if (wide && q % 2 == 1) continue;
      const int64_t nv = std::min<int64_t>(wide ? 4 : 2, vecs - 2 * q);
      const float* pf = stream              ? a + kl * kMr
                        : a_in_l2 && q == 0 ? next_a_chunk(pa, a_stride, p, panels_a, k0, kl, k)
                                            : nullptr;
      table[rows - 1][nv - 1](a, planes + q * 32, off + k0, kl, cq + p * kMr * o.qb + q * 32, o.qb,
                              k0 > 0, pf);
    }
  }
  // C' (pitch pw per output row) into C's positions (pitch OW), or through the epilogue into y.
  if (ep && !accumulate) {
    epilogue_rows(*ep, cq, o.qb, o.pw, o.rows, ow_n, std::min(m, ep->rows), std::min(n, ep->cols));
    return true;
  }
  for (int64_t i = 0; i < m; ++i) {
    const float* qi = cq + i * o.qb;
    float* ci = c + i * ldc;
    for (int64_t oh = 0; oh < o.rows; ++oh) {
      const int64_t p0 = oh * ow_n, cnt = std::min(ow_n, n - p0);
      for (int64_t j = 0; j < cnt; j += 16) {
        const __mmask16 mk = tail_mask(cnt - j);
        __m512 v = _mm512_maskz_loadu_ps(mk, qi + oh * o.pw + j);
        if (accumulate) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, ci + p0 + j));
        _mm512_mask_storeu_ps(ci + p0 + j, mk, v);
      }
    }
  }
  return true;
}

}  // namespace asc::cpu::gemm_detail

namespace asc::cpu {

bool mmad_a_panels_planes(DType in, const void* pa, int64_t a_stride, const Im2colSource& src,
                          const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                          bool accumulate, bool force, RowEpilogue* ep) {
  const GemmKernel& f32 = gemm_kernel(DType::kF32);
  if (in != DType::kF32 || !gemm_detail::gemm_isa_avx512() || f32.mr != gemm_detail::kMr ||
      f32.nr != gemm_detail::kNr || f32.k_pack != 1 || m <= 0 || n <= 0)
    return false;
  return gemm_detail::mmad_f32_planes(static_cast<const float*>(pa), a_stride, src, g, c, ldc, m, n,
                                      k, accumulate, nullptr, force, ep);
}

}  // namespace asc::cpu
