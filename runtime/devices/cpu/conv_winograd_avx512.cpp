// A 3x3 stride-1 convolution's product in Winograd's minimal filtering F(2x2, 3x3) (Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks"): per 2x2 block of outputs, a 4x4
// input patch d and 3x3 filter g give Y = A^T [(G g G^T) . (B^T d B)] A, so the 36 products of
// direct convolution become 16, summed over channels as 16 GEMMs of [m, C] x [C, tiles]:
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1],
//   A^T = [1 1 1 0; 0 1 -1 -1].
// Per call: the filters of the A panels transformed into 16 packed A blocks U[xy] (kMr rows per
// channel), the patches, read from the map with the padding as masked-off lanes, into 16 packed
// B blocks V[xy] (32 tiles per panel), the GEMMs into M[xy] [rows, tiles] a block of
// kRowBlock rows at a time, and each block's M read back into C through A^T . A. The transforms
// run 16 tiles to a vector: a patch row's even and odd columns come from two lane permutes.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/devices/cpu/gemm.h"
#include "runtime/devices/cpu/gemm_avx512.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu::gemm_detail {
namespace {

constexpr int64_t kRowBlock = 2 * kMr;  // rows of A whose U and M blocks stay in L2 together
constexpr int64_t kWinogradMaxFloats = 1 << 20;  // scratch bound (4 MiB): larger boxes go direct
// Worth it where the GEMMs have depth and width: 16 / 36 of the products, for transforms that
// take about half as long as the GEMMs (resnet18's 64-channel 3x3 on 56x56: 1.4x faster in all).
// A few channels or tiles leave the micro-kernels starved (a 7x7 map's 16 tiles ran no faster
// than the direct product), and a tile of one output row computes two (PaddleOCR det's 96->24
// 3x3 on 160x160 in tiles of 1x80 took 1.8x the direct product's time).
constexpr int64_t kWinogradMinChannels = 16, kWinogradMinTiles = 32, kWinogradMinWidth = 8;
// Transformed filters kept across tiles up to this size (floats): larger ones, made a row block at
// a time, stay in L2 (resnet18's 128-channel layer, 540 KiB whole, ran 6 % slower kept).
constexpr int64_t kFilterKeepFloats = 96 << 10;

// Lanes 2..15 of lo, then lanes 0..1 of hi: 16 consecutive elements two on from lo's first.
ASC_AVX512 inline __m512 shift2(__m512 lo, __m512 hi) {
  const __m512i idx = _mm512_setr_epi32(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17);
  return _mm512_permutex2var_ps(lo, idx, hi);
}

// Calls of run_tiles on this thread (im2col_begin_run): a filter transform is reused only
// within one.
thread_local uint64_t t_runs = 0;
uint64_t run_count() {
  return t_runs;
}

struct FilterCache {
  uint64_t run = ~uint64_t{0};
  const float* pa = nullptr;
  int64_t a_stride = 0, m = 0, channels = 0;
  std::vector<float> u;  // 16 packed A blocks
};

constexpr int64_t kFilterAhead = 16;  // channels

// Tiles' geometry for one call.
struct Tiles {
  int64_t channels, rows, cols;  // tile rows WR and columns WC (2x2 outputs each)
  int64_t count, panels;         // WR * WC; B panels of 32 tiles
};

// U[xy] (16 packed A blocks, kMr rows per channel) of rows [0, m) of the A panels.
ASC_AVX512 void transform_filters(const float* pa, int64_t a_stride, int64_t m, int64_t channels,
                                  float* u, int64_t u_block) {
  static_assert(kMr == 12, "a panel's rows are the low 12 lanes");
  const __mmask16 mk = 0xfff;
  const __m512 half = _mm512_set1_ps(0.5f);
  for (int64_t p = 0; p * kMr < m; ++p)
    for (int64_t ch = 0; ch < channels; ++ch) {
      const float* g = pa + p * a_stride + ch * 9 * kMr;
      // The weight's first read, from memory where it is not cached (resnet18's 44 MB): the
      // channels kFilterAhead on, 7 lines each, fetched while this one is transformed.
      for (int l = 0; l < 7; ++l)
        _mm_prefetch(reinterpret_cast<const char*>(g + kFilterAhead * 9 * kMr + 16 * l),
                     _MM_HINT_T0);
      __m512 gg[4][3];  // G g: rows x, columns kw
      for (int j = 0; j < 3; ++j) {
        const __m512 a0 = _mm512_maskz_loadu_ps(mk, g + j * kMr);
        const __m512 a1 = _mm512_maskz_loadu_ps(mk, g + (3 + j) * kMr);
        const __m512 a2 = _mm512_maskz_loadu_ps(mk, g + (6 + j) * kMr);
        const __m512 s = _mm512_add_ps(a0, a2);
        gg[0][j] = a0;
        gg[1][j] = _mm512_mul_ps(half, _mm512_add_ps(s, a1));
        gg[2][j] = _mm512_mul_ps(half, _mm512_sub_ps(s, a1));
        gg[3][j] = a2;
      }
      float* dst = u + (p * channels + ch) * kMr;
      for (int x = 0; x < 4; ++x) {
        const __m512 s = _mm512_add_ps(gg[x][0], gg[x][2]);
        const __m512 v[4] = {gg[x][0], _mm512_mul_ps(half, _mm512_add_ps(s, gg[x][1])),
                             _mm512_mul_ps(half, _mm512_sub_ps(s, gg[x][1])), gg[x][2]};
        for (int y = 0; y < 4; ++y) _mm512_mask_storeu_ps(dst + (x * 4 + y) * u_block, mk, v[y]);
      }
    }
}

// V[xy] (16 packed B blocks [channels, tiles], panels of 32 tiles) read from the map: a patch
// row's elements outside it (the padding) are masked-off lanes, zeros.
ASC_AVX512 void transform_patches(const Im2colSource& src, const Tiles& t, float* v,
                                  int64_t v_block) {
  const float* map = reinterpret_cast<const float*>(src.gm);
  // Per 16-tile chunk, its three vectors' columns inside the map.
  static thread_local std::vector<__mmask16> cols;
  const int64_t chunks = (t.cols + 15) / 16;
  cols.resize(static_cast<size_t>(3 * chunks));
  for (int64_t q = 0; q < 3 * chunks; ++q) {
    const int64_t c0 = 32 * (q / 3) + 16 * (q % 3);
    const int64_t lo = std::clamp<int64_t>(src.lo[3] - c0, 0, 16);
    const int64_t hi = std::clamp<int64_t>(src.hi[3] - c0, lo, 16);
    cols[static_cast<size_t>(q)] = static_cast<__mmask16>(tail_mask(hi) & ~tail_mask(lo));
  }
  for (int64_t ch = 0; ch < t.channels; ++ch)
    for (int64_t wr = 0; wr < t.rows; ++wr) {
      const float* rows[4];
      bool inside[4];
      for (int j = 0; j < 4; ++j) {
        const int64_t r = 2 * wr + j;
        inside[j] = ch >= src.lo[0] && ch < src.hi[0] && r >= src.lo[2] && r < src.hi[2];
        rows[j] = map + src.base + ch * src.stride[0] + r * src.stride[2];
      }
      for (int64_t wc = 0; wc < t.cols; wc += 16) {
        __m512 tr[4][3];  // B^T d over the patch rows, patch columns 2 wc + [0, 48)
        for (int h = 0; h < 3; ++h) {
          const int64_t at = 2 * wc + 16 * h;
          const __mmask16 mk = cols[static_cast<size_t>(wc / 16 * 3 + h)];
          __m512 d[4];
          for (int j = 0; j < 4; ++j)
            d[j] = inside[j] ? _mm512_maskz_loadu_ps(mk, rows[j] + at) : _mm512_setzero_ps();
          tr[0][h] = _mm512_sub_ps(d[0], d[2]);
          tr[1][h] = _mm512_add_ps(d[1], d[2]);
          tr[2][h] = _mm512_sub_ps(d[2], d[1]);
          tr[3][h] = _mm512_sub_ps(d[1], d[3]);
        }
        const int64_t cnt = std::min<int64_t>(16, t.cols - wc), t0 = wr * t.cols + wc;
        const int64_t q0 = t0 / 32, c0 = t0 % 32, first = std::min<int64_t>(cnt, 32 - c0);
        const __mmask16 m0 = tail_mask(first);
        const __mmask16 m1 = static_cast<__mmask16>(tail_mask(cnt) & ~m0);
        float* base0 = v + (q0 * t.channels + ch) * 32 + c0;
        float* base1 = v + ((q0 + 1) * t.channels + ch) * 32 - first;
        for (int x = 0; x < 4; ++x) {
          // Patch columns 0..3 of the 16 tiles: even, odd, even + 2, odd + 2 of the row.
          const __m512 e = even_lanes(tr[x][0], tr[x][1]), o = odd_lanes(tr[x][0], tr[x][1]);
          const __m512 s0 = shift2(tr[x][0], tr[x][1]);
          const __m512 s1 = shift2(tr[x][1], tr[x][2]);
          const __m512 e2 = even_lanes(s0, s1), o2 = odd_lanes(s0, s1);
          const __m512 vy[4] = {_mm512_sub_ps(e, e2), _mm512_add_ps(o, e2), _mm512_sub_ps(e2, o),
                                _mm512_sub_ps(o, o2)};
          for (int y = 0; y < 4; ++y) {
            const int64_t off = (x * 4 + y) * v_block;
            _mm512_mask_storeu_ps(base0 + off, m0, vy[y]);
            if (m1) _mm512_mask_storeu_ps(base1 + off, m1, vy[y]);
          }
        }
      }
    }
}

// Rows [0, rows) of M[xy] ([rows][ldm] each, m_block apart) through A^T . A into C's rows.
ASC_AVX512 void transform_outputs(const float* mo, int64_t m_block, int64_t ldm, int64_t rows,
                                  const Tiles& t, const Im2col& g, int64_t n, float* c, int64_t ldc,
                                  bool accumulate) {
  const __m512i lo_idx = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi_idx =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const int64_t oh_n = g.out[1], ow_n = g.out[2];
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t wr = 0; wr < t.rows; ++wr)
      for (int64_t wc = 0; wc < t.cols; wc += 16) {
        const __mmask16 mk = tail_mask(t.cols - wc);
        const float* src = mo + i * ldm + wr * t.cols + wc;
        __m512 s[4], d[4];  // A^T over x: sums and differences per y
        for (int y = 0; y < 4; ++y) {
          const __m512 a0 = _mm512_maskz_loadu_ps(mk, src + (0 * 4 + y) * m_block);
          const __m512 a1 = _mm512_maskz_loadu_ps(mk, src + (1 * 4 + y) * m_block);
          const __m512 a2 = _mm512_maskz_loadu_ps(mk, src + (2 * 4 + y) * m_block);
          const __m512 a3 = _mm512_maskz_loadu_ps(mk, src + (3 * 4 + y) * m_block);
          s[y] = _mm512_add_ps(_mm512_add_ps(a0, a1), a2);
          d[y] = _mm512_sub_ps(_mm512_sub_ps(a1, a2), a3);
        }
        const __m512 y00 = _mm512_add_ps(_mm512_add_ps(s[0], s[1]), s[2]);
        const __m512 y01 = _mm512_sub_ps(_mm512_sub_ps(s[1], s[2]), s[3]);
        const __m512 y10 = _mm512_add_ps(_mm512_add_ps(d[0], d[1]), d[2]);
        const __m512 y11 = _mm512_sub_ps(_mm512_sub_ps(d[1], d[2]), d[3]);
        const __m512 out[2][2] = {
            {_mm512_permutex2var_ps(y00, lo_idx, y01), _mm512_permutex2var_ps(y00, hi_idx, y01)},
            {_mm512_permutex2var_ps(y10, lo_idx, y11), _mm512_permutex2var_ps(y10, hi_idx, y11)}};
        for (int r = 0; r < 2; ++r) {
          const int64_t oh = 2 * wr + r;
          if (oh >= oh_n) break;
          const int64_t cols = std::min(ow_n, n - oh * ow_n) - 2 * wc;
          float* ci = c + i * ldc + oh * ow_n + 2 * wc;
          for (int h = 0; h < 2; ++h) {
            const __mmask16 sm = tail_mask(cols - 16 * h);
            if (!sm) break;
            __m512 val = out[r][h];
            if (accumulate) val = _mm512_add_ps(val, _mm512_maskz_loadu_ps(sm, ci + 16 * h));
            _mm512_mask_storeu_ps(ci + 16 * h, sm, val);
          }
        }
      }
}

}  // namespace

namespace {

// A 2-D 3x3 window of stride and dilation 1 over k = 9 x channels column-matrix rows.
bool winograd_shape(const Im2col& g, int64_t k) {
  return g.k[0] == 1 && g.k[1] == 3 && g.k[2] == 3 && g.s[1] == 1 && g.s[2] == 1 && g.d[1] == 1 &&
         g.d[2] == 1 && g.out[0] == 1 && k % 9 == 0;
}

}  // namespace

ASC_AVX512 bool winograd_f32(const Im2col& g, int64_t k) {
  const int64_t tiles = (g.out[1] + 1) / 2 * ((g.out[2] + 1) / 2);
  return winograd_shape(g, k) && k / 9 >= kWinogradMinChannels && g.out[2] >= kWinogradMinWidth &&
         tiles >= kWinogradMinTiles &&
         g.positions() >= 3 * tiles;  // at least 3 of a tile's 4 outputs used
}

ASC_AVX512 bool mmad_f32_winograd(const float* pa, int64_t a_stride, const Im2colSource& src,
                                  const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n,
                                  int64_t k, bool accumulate, bool force) {
  if (!winograd_shape(g, k) || src.stride[3] != 1 || src.lo[1] > 0 || src.hi[1] <= 0 || m <= 0 ||
      n <= 0 || n > g.positions() || (!force && !winograd_f32(g, k)))
    return false;
  Tiles t;
  t.channels = k / 9;
  t.rows = (std::min(g.out[1], (n + g.out[2] - 1) / g.out[2]) + 1) / 2;
  t.cols = (g.out[2] + 1) / 2;
  t.count = t.rows * t.cols;
  t.panels = (t.count + 31) / 32;
  if (!force && t.count < kWinogradMinTiles) return false;
  const int64_t rows_a = std::min<int64_t>(m, kRowBlock);
  // The 16 blocks of each kind lie a line apart in cache sets (a multiple of 4 KiB between the
  // blocks written together made their stores conflict in L1: the patches' transform ran about
  // 4x slower).
  const auto stagger = [](int64_t floats) { return (floats + 1023) / 1024 * 1024 + 16; };
  const int64_t v_block = stagger(t.panels * 32 * t.channels);
  int64_t u_block = stagger((rows_a + kMr - 1) / kMr * kMr * t.channels);
  const int64_t ldm = (t.count + 15) / 16 * 16;
  const int64_t m_block = stagger(rows_a * ldm);
  if (16 * (v_block + u_block + m_block) > kWinogradMaxFloats) return false;

  // The filters' U, of the whole block where it is small enough to stay in L2 beside the rest
  // (kept then for the core's next tiles of this launch that read the same weights: a row of
  // spatial tiles), else of one row block at a time.
  const int64_t u_all = stagger((m + kMr - 1) / kMr * kMr * t.channels);
  const bool keep = 16 * u_all <= kFilterKeepFloats;
  if (keep) u_block = u_all;
  static thread_local std::vector<float> buf;
  buf.resize(static_cast<size_t>(16 * (v_block + m_block + (keep ? 0 : u_block)) + 16));
  float* const v = buf.data();
  float* const mo = v + 16 * v_block;
  static thread_local FilterCache fc;
  if (keep && (fc.run != run_count() || fc.pa != pa || fc.a_stride != a_stride || fc.m != m ||
               fc.channels != t.channels)) {
    fc.u.resize(static_cast<size_t>(16 * u_block));
    transform_filters(pa, a_stride, m, t.channels, fc.u.data(), u_block);
    fc.run = run_count(), fc.pa = pa, fc.a_stride = a_stride, fc.m = m, fc.channels = t.channels;
  }
  transform_patches(src, t, v, v_block);
  for (int64_t r0 = 0; r0 < m; r0 += kRowBlock) {
    const int64_t rows = std::min(kRowBlock, m - r0);
    const float* u = mo + 16 * m_block;  // this row block's U, or the kept one's rows
    if (keep)
      u = fc.u.data() + r0 / kMr * t.channels * kMr;
    else
      transform_filters(pa + r0 / kMr * a_stride, a_stride, rows, t.channels, mo + 16 * m_block,
                        u_block);
    for (int64_t xy = 0; xy < 16; ++xy)
      gemm_mmad_a_panels(DType::kF32, u + xy * u_block, t.channels * kMr, v + xy * v_block,
                         mo + xy * m_block, ldm, rows, t.count, t.channels, false);
    transform_outputs(mo, m_block, ldm, rows, t, g, n, c + r0 * ldc, ldc, accumulate);
  }
  return true;
}

}  // namespace asc::cpu::gemm_detail

namespace asc::cpu {

void im2col_begin_run() {
  ++gemm_detail::t_runs;
}

bool winograd_window(const Im2col& g, int64_t k) {
  const GemmKernel& f32 = gemm_kernel(DType::kF32);
  return gemm_detail::gemm_isa_avx512() && f32.mr == gemm_detail::kMr &&
         f32.nr == gemm_detail::kNr && f32.k_pack == 1 && gemm_detail::winograd_f32(g, k);
}

bool mmad_a_panels_winograd(DType in, const void* pa, int64_t a_stride, const Im2colSource& src,
                            const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                            bool accumulate, bool force) {
  const GemmKernel& f32 = gemm_kernel(DType::kF32);
  if (in != DType::kF32 || !gemm_detail::gemm_isa_avx512() || f32.mr != gemm_detail::kMr ||
      f32.nr != gemm_detail::kNr || f32.k_pack != 1)
    return false;
  return gemm_detail::mmad_f32_winograd(static_cast<const float*>(pa), a_stride, src, g, c, ldc, m,
                                        n, k, accumulate, force);
}

}  // namespace asc::cpu
