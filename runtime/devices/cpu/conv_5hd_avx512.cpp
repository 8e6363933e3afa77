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
#include <limits>
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
// Weight rows of a K chunk (the panel's rows of one chunk are reread by every position block):
// held in L2 (256 and 512 KiB ran 3x3 and 1x1 layers alike, up to 5 % faster than 40 or 96 KiB
// (L1) and up to 10 % faster than 2 MiB).
constexpr int64_t kChunkBytes = 256 << 10;

alignas(64) const float kZeros[16] = {};

// A tap of an affine block: position 0's input offset from the c1 block's box origin, and the
// tap's index in the window.
struct Tap {
  int64_t in, t;
};

// One kernel call: `run` blocks of positions, each `x_run`, `y_run`, `z_run` elements past the
// one before in the input, y and z, against one panel over one K chunk.
struct Block {
  const float* x = nullptr;  // the first block's input origin (affine: its position 0's)
  int64_t x_c1 = 0;          // elements between c1 blocks of the box
  int64_t c1a = 0, c1b = 0;  // whole c1 blocks [c1a, c1b)
  int64_t part = 0;          // lanes of block c1b (0: none), the last and partial one
  const float* w = nullptr;  // the panel's row 0
  int64_t w_c1 = 0;          // elements of a whole c1 block of the panel's rows
  int64_t ntaps = 0;
  const Tap* taps = nullptr;           // affine blocks: whole window rows of row_taps taps
  int64_t row_taps = 0, tap_step = 0;  // tap_step: input elements from one tap to the next
  const int64_t* offs = nullptr;       // gather: per tap, its index then R offsets (-1: padding)
  float* y = nullptr;                  // the first block's y origin
  int64_t y_m1 = 0;
  const int64_t* yoff = nullptr;  // per position, from the block's y origin
  bool load_y = false;
  // The epilogue (neutral before the last K chunk): the sums start from the bias, z is added,
  // then the values are bounded to [lo, hi] (Relu: [0, inf); none: [-inf, inf]).
  const float* bias = nullptr;  // the panel's first channel; null: none
  const float* z = nullptr;     // the first block's z origin; null: none
  int64_t z_m1 = 0;
  const int64_t* zoff = nullptr;  // per position, from the block's z origin
  float lo = 0.f, hi = 0.f;
  int64_t run = 1, x_run = 0, y_run = 0, z_run = 0;
  // A line of weights fetched into L2 per K step from here on (the next K chunk's, read from
  // memory or L3 by its first block otherwise); never null (at worst lines already cached).
  const char* pf = nullptr;
};

// One K step: acc += the weight row wt against the inputs x(r) of the R positions, fetching the
// line pf into L2.
template <int R, int F, class X>
ASC_AVX512 __attribute__((always_inline)) inline void fma_step(__m512 (&acc)[R][F], X x,
                                                               const float* wt, const char* pf) {
  _mm_prefetch(pf, gemm_detail::kStreamHint);
  __m512 wv[F];
#pragma GCC unroll 4
  for (int f = 0; f < F; ++f) wv[f] = _mm512_loadu_ps(wt + 16 * f);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    const __m512 xv = _mm512_set1_ps(x(r));
#pragma GCC unroll 4
    for (int f = 0; f < F; ++f) acc[r][f] = _mm512_fmadd_ps(xv, wv[f], acc[r][f]);
  }
}

// acc += a tap's rows (c0 < L, or < lanes for L == 0) against the positions' inputs: position r's
// lane c0 at x0[r * PS + c0] (affine, one pointer stepping through the lanes) or p[r][c0].
template <int R, int F, int PS, int L>
ASC_AVX512 __attribute__((always_inline)) inline void fma_lanes(__m512 (&acc)[R][F],
                                                                const float* x0,
                                                                const float* const (&p)[R],
                                                                const float* wt, int64_t lanes,
                                                                const char*& pf) {
  const int64_t n = L > 0 ? L : lanes;
#pragma GCC unroll 1
  for (int64_t c0 = 0; c0 < n; ++c0, wt += kP, pf += 64) {
    if constexpr (PS > 0) {
      fma_step<R, F>(
          acc, [x0](int r) { return x0[r * PS]; }, wt, pf);
      ++x0;
    } else {
      fma_step<R, F>(
          acc, [&p, c0](int r) { return p[r][c0]; }, wt, pf);
    }
  }
}

// acc += the block's taps over c1 block `c1` of `lanes` lanes (PS > 0: affine; 0: gather).
template <int R, int F, int PS, int L>
ASC_AVX512 __attribute__((always_inline)) inline void fma_block(__m512 (&acc)[R][F], const Block& b,
                                                                const float* x, int64_t c1,
                                                                int64_t lanes, const char*& pf) {
  const float* xc = x + c1 * b.x_c1;
  const float* wc = b.w + c1 * b.w_c1;
  if constexpr (PS > 0) {  // whole window rows of taps, each tap_step past the one before
    const float* const p[R] = {};
    for (int64_t i = 0; i < b.ntaps; i += b.row_taps) {
      const float* x0 = xc + b.taps[i].in;
      const float* wt = wc + b.taps[i].t * lanes * kP;
      for (int64_t e = 0; e < b.row_taps; ++e, x0 += b.tap_step, wt += lanes * kP)
        fma_lanes<R, F, PS, L>(acc, x0, p, wt, lanes, pf);
    }
  } else {
    for (int64_t i = 0; i < b.ntaps; ++i) {
      const int64_t* o = b.offs + i * (R + 1);
      const float* p[R];
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) p[r] = o[r + 1] >= 0 ? xc + o[r + 1] : kZeros;
      fma_lanes<R, F, PS, L>(acc, nullptr, p, wc + o[0] * lanes * kP, lanes, pf);
    }
  }
}

// The kernel of R positions and F vectors: starts on a cache line, so its loops' placement
// (which moved the 1x1 layers' times by up to 10 % from one build to the next) is the same in
// every build.
template <int R, int F, int PS>
ASC_AVX512 __attribute__((aligned(64))) void ukr(const Block& b) {
  const float* x = b.x;
  float* y = b.y;
  const float* z = b.z;
  const char* pf = b.pf;
  for (int64_t i = 0; i < b.run; ++i) {
    __m512 acc[R][F];
#pragma GCC unroll 4
    for (int f = 0; f < F; ++f) {
      const __m512 init = b.bias ? _mm512_loadu_ps(b.bias + 16 * f) : _mm512_setzero_ps();
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) acc[r][f] = init;
    }
    for (int64_t c1 = b.c1a; c1 < b.c1b; ++c1) fma_block<R, F, PS, 16>(acc, b, x, c1, 16, pf);
    if (b.part > 0) fma_block<R, F, PS, 0>(acc, b, x, b.c1b, b.part, pf);
    // max/min return their second operand where unordered: NaN passes through. (The zero-masked
    // forms with every lane kept: the plain ones trip GCC 12's -Wmaybe-uninitialized.) The
    // bounds are read here, not held through the K loop where every register is taken.
    constexpr __mmask16 all = 0xffff;
    const __m512 lo = _mm512_set1_ps(b.lo), hi = _mm512_set1_ps(b.hi);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int f = 0; f < F; ++f) {
        float* yp = y + f * b.y_m1 + b.yoff[r];
        __m512 v = acc[r][f];
        if (b.load_y) v = _mm512_add_ps(_mm512_loadu_ps(yp), v);
        if (z) v = _mm512_add_ps(v, _mm512_loadu_ps(z + f * b.z_m1 + b.zoff[r]));
        v = _mm512_maskz_min_ps(all, hi, _mm512_maskz_max_ps(all, lo, v));
        _mm512_storeu_ps(yp, v);
      }
    x += b.x_run, y += b.y_run;
    if (z) z += b.z_run;
  }
}

using Ukr = void (*)(const Block&);
using UkrRow = std::array<Ukr, kMaxR + 1>;  // by positions R (1..kRows[F])

template <int F, int PS, int... R>
constexpr UkrRow ukr_row(std::integer_sequence<int, R...>) {
  return {nullptr, ukr<R + 1, F, PS>...};
}
template <int F, int PS>
constexpr UkrRow ukr_row() {
  return ukr_row<F, PS>(std::make_integer_sequence<int, kRows[F]>());
}
// By F: gather kernels, affine kernels of PS 16 and 32.
const UkrRow kGather[5] = {{}, ukr_row<1, 0>(), ukr_row<2, 0>(), ukr_row<3, 0>(), ukr_row<4, 0>()};
const UkrRow kAffine[5][2] = {{},
                              {ukr_row<1, 16>(), ukr_row<1, 32>()},
                              {ukr_row<2, 16>(), ukr_row<2, 32>()},
                              {ukr_row<3, 16>(), ukr_row<3, 32>()},
                              {ukr_row<4, 16>(), ukr_row<4, 32>()}};

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

  bool row_in(int64_t ih) const { return ih >= lo2 && ih < hi2; }
  bool col_in(int64_t iw) const { return iw >= lo3 && iw < hi3; }
  bool affine_ps() const { return ps == 16 || ps == 32; }
  // Rows continue each other (s1 * st2 == ow * ps) and every window lies inside the map: the
  // positions run as one row.
  bool merged() const {
    return affine_ps() && s1 * st2 == ow * ps && row_in(0) &&
           row_in((oh - 1) * s1 + (k1 - 1) * d1) && col_in(0) &&
           col_in((ow - 1) * s2 + (k2 - 1) * d2);
  }
};

// A block of n output columns from ow0, the same in every output row. Affine: every tap's column
// inside the map for every position. Else a gather table from `tab`: per window row b, `ne` taps
// (those of columns inside the map for some position), each its index then n offsets from the
// output row's input row (-1: padding).
struct ColBlock {
  int64_t ow0, n;
  bool affine;
  int64_t ne;
  size_t tab;
};

// How a tile's positions run: in blocks of columns repeated for every output row (cols), or, on
// a map of narrow rows, in blocks of up to R positions in row-major order across the rows (flat:
// cols[i] holds the block's first position in ow0, its gather table over every tap in tab).
struct RowPlan {
  bool flat = false;
  std::vector<ColBlock> cols;
  std::vector<int64_t> tab;
};

// Rows narrower than this many blocks run flat where the tables stay small: a 7x7 map's 49
// positions as 9 blocks (8 of 6 positions) instead of 7 rows of 4 + 3, each rereading the weights.
constexpr int64_t kFlatRowBlocks = 2;
constexpr int64_t kFlatTableMax = 1 << 14;

// The plan for R = `rows` positions a block. Row blocks split ow as evenly as R allows (no narrow
// remainder).
RowPlan row_plan(const Geom& g, int64_t rows) {
  RowPlan plan;
  const int64_t positions = g.oh * g.ow;
  if (g.ow < kFlatRowBlocks * rows && g.oh > 1 &&
      positions * g.k1 * g.k2 * (rows + 1) <= kFlatTableMax * rows) {
    plan.flat = true;
    for (int64_t p0 = 0; p0 < positions; p0 += rows) {
      ColBlock cb{p0, std::min(rows, positions - p0), false, 0, plan.tab.size()};
      for (int64_t b = 0; b < g.k1; ++b)
        for (int64_t e = 0; e < g.k2; ++e) {
          const size_t at = plan.tab.size();
          plan.tab.push_back(b * g.k2 + e);
          bool any = false;
          for (int64_t r = 0; r < cb.n; ++r) {
            const int64_t ih = (p0 + r) / g.ow * g.s1 + b * g.d1;
            const int64_t iw = (p0 + r) % g.ow * g.s2 + e * g.d2;
            const bool in = g.row_in(ih) && g.col_in(iw);
            plan.tab.push_back(in ? ih * g.st2 + iw * g.st3 : -1);
            any |= in;
          }
          if (any)
            ++cb.ne;
          else
            plan.tab.resize(at);
        }
      plan.cols.push_back(cb);
    }
    return plan;
  }
  const int64_t nb = (g.ow + rows - 1) / rows, base = g.ow / nb, wide = g.ow % nb;
  int64_t ow0 = 0;
  for (int64_t i = 0; i < nb; ++i) {
    ColBlock cb{ow0, base + (i < wide), false, 0, plan.tab.size()};
    ow0 += cb.n;
    cb.affine = g.affine_ps() && g.col_in(cb.ow0 * g.s2) &&
                g.col_in((cb.ow0 + cb.n - 1) * g.s2 + (g.k2 - 1) * g.d2);
    if (!cb.affine) {
      for (int64_t b = 0; b < g.k1; ++b)
        for (int64_t e = 0; e < g.k2; ++e) {
          bool any = false;
          for (int64_t r = 0; r < cb.n; ++r) any |= g.col_in((cb.ow0 + r) * g.s2 + e * g.d2);
          if (!any) continue;
          cb.ne += b == 0;
          plan.tab.push_back(b * g.k2 + e);
          for (int64_t r = 0; r < cb.n; ++r) {
            const int64_t iw = (cb.ow0 + r) * g.s2 + e * g.d2;
            plan.tab.push_back(g.col_in(iw) ? b * g.d1 * g.st2 + iw * g.st3 : -1);
          }
        }
    }
    plan.cols.push_back(cb);
  }
  return plan;
}

ASC_AVX512 void conv5hd_run(const Im2colSource& src, const Im2col& g, const float* w,
                            int64_t panel_stride, int64_t c, int64_t m, int64_t kc0, int64_t kc1,
                            float* y, int64_t y_m1, int64_t y_row, bool accumulate,
                            const Epilogue5hd* ep) {
  const Geom ge{g.k[1],    g.k[2],    g.s[1],    g.s[2],        g.d[1],
                g.d[2],    g.out[1],  g.out[2],  src.stride[2], src.stride[3],
                src.lo[2], src.hi[2], src.lo[3], src.hi[3],     g.s[2] * src.stride[3]};
  constexpr int64_t kC0 = kConv5hdC0, kPanelVectors = kP / kC0;
  const int64_t window = ge.k1 * ge.k2, positions = ge.oh * ge.ow, vectors = m / kC0;
  const int64_t whole = c / kC0, blocks = (c + kC0 - 1) / kC0;
  // The c1 blocks read: inside K's part, the box's channels and the map (d = 0 inside).
  const int64_t ca = std::max({kc0, src.lo[0], int64_t{0}});
  int64_t ce = std::min({kc1, src.hi[0], blocks});
  if (src.lo[1] > 0 || src.hi[1] <= 0 || ce < ca) ce = ca;
  const int64_t row_bytes = window * kC0 * kP * int64_t{sizeof(float)};
  const int64_t chunk = std::max<int64_t>(1, kChunkBytes / row_bytes);
  const bool merged = ge.merged();
  const int64_t z_row = ep ? ep->z_row : 0;
  // y and z continue from one output row into the next: merged positions run as one row there.
  const bool dense = y_row == ge.ow * kC0 && (!ep || !ep->z || z_row == ge.ow * kC0);

  // Every tap's input offset from its position's first, window rows first.
  std::vector<Tap> taps(static_cast<size_t>(window));
  for (int64_t b = 0; b < ge.k1; ++b)
    for (int64_t e = 0; e < ge.k2; ++e)
      taps[static_cast<size_t>(b * ge.k2 + e)] = {b * ge.d1 * ge.st2 + e * ge.d2 * ge.st3,
                                                  b * ge.k2 + e};
  RowPlan plans[5];  // by F, made as panels need them
  int64_t lin[kMaxR], yoff[kMaxR], zoff[kMaxR];
  for (int r = 0; r < kMaxR; ++r) lin[r] = r * kC0;
  const float* x = reinterpret_cast<const float*>(src.gm) + src.base;
  Block bl;
  bl.x_c1 = src.stride[0];
  bl.w_c1 = window * kC0 * kP;
  bl.y_m1 = y_m1;
  bl.z_m1 = ep ? ep->z_m1 : 0;
  bl.row_taps = ge.k2, bl.tap_step = ge.d2 * ge.st3;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float lo = -kInf, hi = kInf;
  if (ep && ep->act == Epilogue5hd::kRelu) lo = 0.f;
  if (ep && ep->act == Epilogue5hd::kClip) lo = ep->lo, hi = ep->hi;
  const int psi = static_cast<int>(ge.ps / 16 - 1);  // kAffine's index where affine_ps()

  for (int64_t v = 0; v < vectors;) {  // output vectors [v, v + f), within one panel
    const int64_t q = v / kPanelVectors, in_q = v % kPanelVectors;
    const int f = static_cast<int>(std::min({int64_t{4}, vectors - v, kPanelVectors - in_q}));
    const int rows = kRows[f];
    if (!merged && plans[f].cols.empty()) plans[f] = row_plan(ge, rows);
    const RowPlan& plan = plans[f];
    bl.w = w + q * panel_stride + in_q * kC0;
    float* const yv = y + v * y_m1;
    for (int64_t k0 = ca;; k0 += chunk) {
      const int64_t k1 = std::min(ce, k0 + chunk);
      const bool empty = k1 == k0;
      bl.c1a = k0;
      bl.c1b = std::max(k0, std::min(k1, whole));
      bl.part = k0 <= whole && k1 > whole ? c - whole * kC0 : 0;
      bl.load_y = accumulate || k0 > ca;
      const bool last = ep && k1 >= ce;
      bl.bias = last && ep->bias ? ep->bias + v * kC0 : nullptr;
      const float* const zv = last && ep->z ? ep->z + v * ep->z_m1 : nullptr;
      bl.lo = last ? lo : -kInf, bl.hi = last ? hi : kInf;
      // The weights fetched ahead: the next chunk of this panel's rows, else the next panel's
      // first; each call fetches a line per K step it runs, the calls in turn.
      const int64_t next_q = (v + f) / kPanelVectors;
      const float* next = k1 < ce           ? w + q * panel_stride + k1 * bl.w_c1
                          : v + f < vectors ? w + next_q * panel_stride + ca * bl.w_c1
                                            : nullptr;
      const char* pf = reinterpret_cast<const char*>(next);
      const char* pf_end = pf ? pf + std::min(chunk, ce - (k1 < ce ? k1 : ca)) * bl.w_c1 * 4 : pf;
      const int64_t steps_c1 = (bl.c1b - bl.c1a) * kC0 + bl.part;
      // Runs `kernel` over `run` blocks from position (oh, ow0) (gather: ow0 is the row's
      // start; its table holds the columns).
      auto call = [&](Ukr kernel, int64_t oh, int64_t ow0, int64_t run, int64_t n) {
        bl.y = yv + oh * y_row + ow0 * kC0;
        bl.z = zv ? zv + oh * z_row + ow0 * kC0 : nullptr;
        bl.run = run, bl.x_run = n * ge.ps, bl.y_run = bl.z_run = n * kC0;
        bl.pf = pf < pf_end ? pf : reinterpret_cast<const char*>(bl.w);
        kernel(bl);
        pf += run * bl.ntaps * steps_c1 * 64;
      };
      if (merged) {  // one row of positions, every tap inside
        bl.taps = taps.data();
        bl.ntaps = empty ? 0 : window;
        if (dense) {
          const int64_t full = positions / rows, rest = positions % rows;
          bl.yoff = bl.zoff = lin;
          bl.x = x;
          if (full > 0) call(kAffine[f][psi][rows], 0, 0, full, rows);
          bl.x = x + full * rows * ge.ps;
          if (rest > 0) call(kAffine[f][psi][rest], 0, full * rows, 1, rest);
        } else {
          bl.yoff = yoff, bl.zoff = zoff;
          for (int64_t p0 = 0, oh = 0, ow = 0; p0 < positions; p0 += rows) {
            const int64_t n = std::min<int64_t>(rows, positions - p0);
            bl.x = x + oh * ge.s1 * ge.st2 + ow * ge.ps;
            for (int64_t r = 0; r < n; ++r) {
              yoff[r] = oh * y_row + ow * kC0, zoff[r] = oh * z_row + ow * kC0;
              if (++ow == ge.ow) ow = 0, ++oh;
            }
            call(kAffine[f][psi][n], 0, 0, 1, n);
          }
        }
      } else if (plan.flat) {
        bl.x = x;
        bl.yoff = yoff, bl.zoff = zoff;
        for (const ColBlock& cb : plan.cols) {
          for (int64_t r = 0, oh = cb.ow0 / ge.ow, ow = cb.ow0 % ge.ow; r < cb.n; ++r) {
            yoff[r] = oh * y_row + ow * kC0, zoff[r] = oh * z_row + ow * kC0;
            if (++ow == ge.ow) ow = 0, ++oh;
          }
          bl.offs = plan.tab.data() + cb.tab;
          bl.ntaps = empty ? 0 : cb.ne;
          call(kGather[f][cb.n], 0, 0, 1, cb.n);
        }
      } else {
        bl.yoff = bl.zoff = lin;
        for (int64_t oh = 0; oh < ge.oh; ++oh) {
          int64_t b0 = 0, b1 = ge.k1;  // the window rows inside the map
          while (b0 < b1 && !ge.row_in(oh * ge.s1 + b0 * ge.d1)) ++b0;
          while (b1 > b0 && !ge.row_in(oh * ge.s1 + (b1 - 1) * ge.d1)) --b1;
          if (empty) b1 = b0;
          const float* xr = x + oh * ge.s1 * ge.st2;
          for (size_t i = 0; i < plan.cols.size();) {
            const ColBlock& cb = plan.cols[i];
            if (cb.affine) {  // with the affine blocks of its width after it
              size_t j = i + 1;
              while (j < plan.cols.size() && plan.cols[j].affine && plan.cols[j].n == cb.n) ++j;
              bl.x = xr + cb.ow0 * ge.ps;
              bl.taps = taps.data() + b0 * ge.k2;
              bl.ntaps = (b1 - b0) * ge.k2;
              call(kAffine[f][psi][cb.n], oh, cb.ow0, static_cast<int64_t>(j - i), cb.n);
              i = j;
            } else {
              bl.x = xr;
              bl.offs = plan.tab.data() + cb.tab + b0 * cb.ne * (cb.n + 1);
              bl.ntaps = (b1 - b0) * cb.ne;
              call(kGather[f][cb.n], oh, cb.ow0, 1, cb.n);
              ++i;
            }
          }
        }
      }
      if (k1 >= ce) break;
    }
    v += f;
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
