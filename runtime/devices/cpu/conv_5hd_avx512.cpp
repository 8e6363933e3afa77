// conv5hd_f32 (conv_5hd.h) on AVX-512. A weight panel's output channels run as F vectors of 16
// (F <= 4) against R output positions in R x F zmm accumulators; per K step (c1, t, c0) one
// weight vector load per F, one broadcast of the input lane per position and R x F FMAs. The
// positions of the tile are taken R at a time in row-major order:
//   - an affine block (R positions of one output row whose windows lie inside the map's columns,
//     or of whole rows the map continues into, as a 1x1 window over unpadded rows) reads position
//     r's input at a constant r * PS elements past position 0's (PS = 16 or 32: stride 1 or 2),
//     over the taps whose window row lies inside the map;
//   - any other block (a border, a row break, a remainder) gathers: per tap a pointer per
//     position, to the map or to 16 zeros where that tap of that position is padding; taps
//     padding for every position of the block are skipped.
// K runs in chunks of c1 blocks whose weight rows stay in cache while every position block
// passes; y holds the sums between chunks and the epilogue is applied as the last chunk's sums
// leave the registers.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/devices/cpu/conv_5hd.h"
#include "runtime/devices/cpu/gemm_avx512.h"

namespace asc::cpu {
namespace {

constexpr int kP = static_cast<int>(kConv5hdPanel);
constexpr int kMaxR = 16;
// Positions per block by weight vectors F (1..4): at most 24 accumulators besides the F weights.
constexpr int kRows[5] = {0, 16, 12, 8, 6};
// Weight rows of a K chunk: the panel's rows of one chunk are reread by every position block.
constexpr int64_t kChunkBytes = 96 << 10;

alignas(64) const float kZeros[16] = {};

// A tap of an affine block: position 0's input offset from the c1 block's box origin, and the
// tap's index in the window.
struct Tap {
  int64_t in, t;
};

struct Ep {
  const float* bias = nullptr;  // the panel's first channel
  const float* z = nullptr;     // the panel's first block
  int64_t z_m1 = 0;
  const int64_t* zoff = nullptr;  // per position
  Epilogue5hd::Act act = Epilogue5hd::kNone;
  float lo = 0.f, hi = 0.f;
};

// One kernel call: a block of positions against one panel over one K chunk.
struct Block {
  const float* x = nullptr;  // the box's f32 elements (src.gm)
  int64_t x_c1 = 0;          // elements between c1 blocks of the box
  int64_t c1a = 0, c1b = 0;  // whole c1 blocks [c1a, c1b)
  int64_t part = 0;          // lanes of block c1b (0: none), the last and partial one
  const float* w = nullptr;  // the panel's row 0
  int64_t w_c1 = 0;          // elements of a whole c1 block of the panel's rows
  int64_t ntaps = 0;
  const Tap* taps = nullptr;      // affine blocks
  const int64_t* offs = nullptr;  // gather: per tap, its index then R offsets (-1: padding)
  float* y = nullptr;             // the panel's first block
  int64_t y_m1 = 0;
  const int64_t* yoff = nullptr;  // per position
  bool load_y = false;
  const Ep* ep = nullptr;
};

// acc += the taps' rows (c0 < L, or < lanes for L == 0) against the positions' inputs p.
template <int R, int F, int L>
ASC_AVX512 __attribute__((always_inline)) inline void fma_lanes(__m512 (&acc)[R][F],
                                                                const float* const (&p)[R],
                                                                const float* wt, int64_t lanes) {
  const int64_t n = L > 0 ? L : lanes;
#pragma GCC unroll 16
  for (int64_t c0 = 0; c0 < n; ++c0) {
    __m512 wv[F];
#pragma GCC unroll 4
    for (int f = 0; f < F; ++f) wv[f] = _mm512_loadu_ps(wt + c0 * kP + 16 * f);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 xv = _mm512_set1_ps(p[r][c0]);
#pragma GCC unroll 4
      for (int f = 0; f < F; ++f) acc[r][f] = _mm512_fmadd_ps(xv, wv[f], acc[r][f]);
    }
  }
}

// acc += the block's taps over c1 block `c1` of `lanes` lanes (PS > 0: affine; 0: gather).
template <int R, int F, int PS, int L>
ASC_AVX512 __attribute__((always_inline)) inline void fma_block(__m512 (&acc)[R][F], const Block& b,
                                                                int64_t c1, int64_t lanes) {
  const float* xc = b.x + c1 * b.x_c1;
  const float* wc = b.w + c1 * b.w_c1;
  for (int64_t i = 0; i < b.ntaps; ++i) {
    const float* p[R];
    const float* wt;
    if constexpr (PS > 0) {
      const float* x0 = xc + b.taps[i].in;
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) p[r] = x0 + r * PS;
      wt = wc + b.taps[i].t * lanes * kP;
    } else {
      const int64_t* o = b.offs + i * (R + 1);
      wt = wc + o[0] * lanes * kP;
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) p[r] = o[r + 1] >= 0 ? xc + o[r + 1] : kZeros;
    }
    fma_lanes<R, F, L>(acc, p, wt, lanes);
  }
}

ASC_AVX512 inline __m512 activate(__m512 v, const Ep& ep) {
  if (ep.act == Epilogue5hd::kNone) return v;
  // max/min return their second operand where unordered: NaN passes through. (The zero-masked
  // forms with every lane kept: the plain ones trip GCC 12's -Wmaybe-uninitialized.)
  constexpr __mmask16 all = 0xffff;
  const __m512 lo = ep.act == Epilogue5hd::kRelu ? _mm512_setzero_ps() : _mm512_set1_ps(ep.lo);
  v = _mm512_maskz_max_ps(all, lo, v);
  return ep.act == Epilogue5hd::kClip ? _mm512_maskz_min_ps(all, _mm512_set1_ps(ep.hi), v) : v;
}

template <int R, int F, int PS>
ASC_AVX512 void ukr(const Block& b) {
  __m512 acc[R][F];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int f = 0; f < F; ++f) acc[r][f] = _mm512_setzero_ps();
  for (int64_t c1 = b.c1a; c1 < b.c1b; ++c1) fma_block<R, F, PS, 16>(acc, b, c1, 16);
  if (b.part > 0) fma_block<R, F, PS, 0>(acc, b, b.c1b, b.part);

  __m512 bias[F];
#pragma GCC unroll 4
  for (int f = 0; f < F; ++f)
    bias[f] = b.ep && b.ep->bias ? _mm512_loadu_ps(b.ep->bias + 16 * f) : _mm512_setzero_ps();
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int f = 0; f < F; ++f) {
      float* yp = b.y + f * b.y_m1 + b.yoff[r];
      __m512 v = acc[r][f];
      if (b.load_y) v = _mm512_add_ps(_mm512_loadu_ps(yp), v);
      if (b.ep) {
        v = _mm512_add_ps(v, bias[f]);
        if (b.ep->z)
          v = _mm512_add_ps(v, _mm512_loadu_ps(b.ep->z + f * b.ep->z_m1 + b.ep->zoff[r]));
        v = activate(v, *b.ep);
      }
      _mm512_storeu_ps(yp, v);
    }
}

using Ukr = void (*)(const Block&);

template <int F, int PS, int... R>
constexpr std::array<Ukr, kMaxR + 1> ukr_row(std::integer_sequence<int, R...>) {
  return {nullptr, ukr<R + 1, F, PS>...};
}
// gather[F][R] (R = 1..kRows[F]) and affine[F][PS / 16 - 1] (R = kRows[F]).
template <int F>
constexpr auto gather_row() {
  return ukr_row<F, 0>(std::make_integer_sequence<int, kRows[F]>());
}
const std::array<Ukr, kMaxR + 1> kGather[5] = {
    {}, gather_row<1>(), gather_row<2>(), gather_row<3>(), gather_row<4>()};
const Ukr kAffine[5][2] = {{nullptr, nullptr},
                           {ukr<kRows[1], 1, 16>, ukr<kRows[1], 1, 32>},
                           {ukr<kRows[2], 2, 16>, ukr<kRows[2], 2, 32>},
                           {ukr<kRows[3], 3, 16>, ukr<kRows[3], 3, 32>},
                           {ukr<kRows[4], 4, 16>, ukr<kRows[4], 4, 32>}};

bool cpu_has_avx512() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("fma");
  }();
  return has;
}

// The tile's geometry in box elements (D = 1).
struct Geom {
  int64_t k1, k2, s1, s2, d1, d2, oh, ow;  // window, stride, dilation, output rows and columns
  int64_t st2, st3, lo2, hi2, lo3, hi3;    // the box's row and column strides and valid ranges
  int64_t ps;                              // elements between consecutive positions' inputs
  bool merged;  // rows continue each other (a block may span rows) and every column is inside

  bool row_in(int64_t ih) const { return ih >= lo2 && ih < hi2; }
  bool col_in(int64_t iw) const { return iw >= lo3 && iw < hi3; }
  int64_t in(int64_t ih, int64_t iw) const { return ih * st2 + iw * st3; }
};

// The taps of the affine block of n = R positions from p0, or 0 where the block is not affine.
int64_t affine_taps(const Geom& g, int64_t p0, int64_t n, Tap* taps) {
  if (g.ps != 16 && g.ps != 32) return 0;
  const int64_t oh0 = p0 / g.ow, ow0 = p0 % g.ow, ohl = (p0 + n - 1) / g.ow;
  if (oh0 == ohl) {
    const int64_t owl = ow0 + n - 1;
    if (!g.col_in(ow0 * g.s2) || !g.col_in(owl * g.s2 + (g.k2 - 1) * g.d2)) return 0;
  } else if (!g.merged) {
    return 0;
  }
  int64_t nt = 0;
  for (int64_t b = 0; b < g.k1; ++b) {
    const bool first = g.row_in(oh0 * g.s1 + b * g.d1), last = g.row_in(ohl * g.s1 + b * g.d1);
    if (first != last) return 0;  // (rows inside the map are contiguous: all rows between agree)
    if (!first) continue;
    for (int64_t e = 0; e < g.k2; ++e)
      taps[nt++] = {g.in(oh0 * g.s1 + b * g.d1, ow0 * g.s2 + e * g.d2), b * g.k2 + e};
  }
  return nt > 0 ? nt : -1;  // -1: affine, every tap padding
}

// The gather table of the n positions from p0 (per tap: its index, then n offsets or -1); the
// taps that are padding for every position are left out.
int64_t gather_taps(const Geom& g, int64_t p0, int64_t n, int64_t* offs) {
  int64_t nt = 0;
  for (int64_t b = 0; b < g.k1; ++b)
    for (int64_t e = 0; e < g.k2; ++e) {
      int64_t* o = offs + nt * (n + 1);
      o[0] = b * g.k2 + e;
      bool any = false;
      for (int64_t r = 0; r < n; ++r) {
        const int64_t ih = (p0 + r) / g.ow * g.s1 + b * g.d1;
        const int64_t iw = (p0 + r) % g.ow * g.s2 + e * g.d2;
        const bool in = g.row_in(ih) && g.col_in(iw);
        o[r + 1] = in ? g.in(ih, iw) : -1;
        any |= in;
      }
      nt += any;
    }
  return nt;
}

ASC_AVX512 void conv5hd_run(const Im2colSource& src, const Im2col& g, const float* w,
                            int64_t panel_stride, int64_t c, int64_t m, int64_t kc0, int64_t kc1,
                            float* y, int64_t y_m1, int64_t y_row, bool accumulate,
                            const Epilogue5hd* ep) {
  Geom ge{g.k[1],    g.k[2],    g.s[1],    g.s[2],        g.d[1],
          g.d[2],    g.out[1],  g.out[2],  src.stride[2], src.stride[3],
          src.lo[2], src.hi[2], src.lo[3], src.hi[3],     g.s[2] * src.stride[3],
          false};
  ge.merged = ge.s1 * ge.st2 == ge.ow * ge.ps && ge.col_in(0) &&
              ge.col_in((ge.ow - 1) * ge.s2 + (ge.k2 - 1) * ge.d2);
  const int64_t window = ge.k1 * ge.k2, positions = ge.oh * ge.ow;
  const int64_t whole = c / kConv5hdC0, blocks = (c + kConv5hdC0 - 1) / kConv5hdC0;
  // The c1 blocks read: inside K's part, the box's channels and the map (d = 0 inside).
  const int64_t ca = std::max({kc0, src.lo[0], int64_t{0}});
  int64_t ce = std::min({kc1, src.hi[0], blocks});
  if (src.lo[1] > 0 || src.hi[1] <= 0 || ce < ca) ce = ca;
  const int64_t row_bytes = window * kConv5hdC0 * kP * int64_t{sizeof(float)};
  const int64_t chunk = std::max<int64_t>(1, kChunkBytes / row_bytes);

  std::vector<Tap> taps(static_cast<size_t>(window));
  std::vector<int64_t> offs(static_cast<size_t>(window * (kMaxR + 1)));
  int64_t yoff[kMaxR], zoff[kMaxR];
  Block bl;
  bl.x = reinterpret_cast<const float*>(src.gm) + src.base;
  bl.x_c1 = src.stride[0];
  bl.w_c1 = window * kConv5hdC0 * kP;
  bl.y_m1 = y_m1;
  bl.yoff = yoff;
  Ep e;
  if (ep) e = {nullptr, nullptr, ep->z_m1, zoff, ep->act, ep->lo, ep->hi};

  for (int64_t q = 0; q * kP < m; ++q) {
    const int f = static_cast<int>(std::min<int64_t>(4, (m - q * kP) / kConv5hdC0));
    const int rows = kRows[f];
    bl.w = w + q * panel_stride;
    bl.y = y + q * (kP / kConv5hdC0) * y_m1;
    if (ep) {
      e.bias = ep->bias ? ep->bias + q * kP : nullptr;
      e.z = ep->z ? ep->z + q * (kP / kConv5hdC0) * ep->z_m1 : nullptr;
    }
    for (int64_t k0 = ca; k0 < ce || k0 == ca; k0 += chunk) {
      const int64_t k1 = std::min(ce, k0 + chunk);
      bl.c1a = k0;
      bl.c1b = std::max(k0, std::min(k1, whole));
      bl.part = k0 <= whole && k1 > whole ? c - whole * kConv5hdC0 : 0;
      bl.load_y = accumulate || k0 > ca;
      bl.ep = ep && k1 >= ce ? &e : nullptr;
      for (int64_t p0 = 0; p0 < positions; p0 += rows) {
        const int64_t n = std::min<int64_t>(rows, positions - p0);
        for (int64_t r = 0; r < n; ++r) {
          const int64_t oh = (p0 + r) / ge.ow, ow = (p0 + r) % ge.ow;
          yoff[r] = oh * y_row + ow * kConv5hdC0;
          if (ep) zoff[r] = oh * ep->z_row + ow * kConv5hdC0;
        }
        const int64_t nt = n == rows && k1 > k0 ? affine_taps(ge, p0, n, taps.data()) : 0;
        if (nt != 0) {
          bl.ntaps = std::max<int64_t>(nt, 0);
          bl.taps = taps.data();
          kAffine[f][ge.ps / 16 - 1](bl);
        } else {
          bl.ntaps = k1 > k0 ? gather_taps(ge, p0, n, offs.data()) : 0;
          bl.offs = offs.data();
          kGather[f][n](bl);
        }
      }
      if (k1 >= ce) break;
    }
  }
}

}  // namespace

bool conv5hd_f32(const Im2colSource& src, const Im2col& g, const float* w, int64_t panel_stride,
                 int64_t c, int64_t m, int64_t kc0, int64_t kc1, float* y, int64_t y_m1,
                 int64_t y_row, bool accumulate, const Epilogue5hd* ep) {
  if (!cpu_has_avx512() || g.k[0] != 1 || g.out[0] != 1 || m <= 0 || m % kConv5hdC0 != 0)
    return false;
  if (g.positions() > 0)
    conv5hd_run(src, g, w, panel_stride, c, m, kc0, kc1, y, y_m1, y_row, accumulate, ep);
  return true;
}

}  // namespace asc::cpu
