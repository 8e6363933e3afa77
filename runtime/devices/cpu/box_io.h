// GM boxes on the host (tile_program.h: GmBox): a box evaluated for one tile, its matrix views,
// and the moves between a box and a dense local buffer — the cpu device's DMA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "registry/dtype.h"
#include "registry/tile_program.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu {

constexpr int kMaxRank = 8;

// A box at one tile's coordinates. Per dim, elements [lo, hi) of the box lie inside the tensor;
// the rest (padding before it, a tail after it) are zero in the local buffer.
struct BoxEval {
  int64_t base = 0;   // element offset of box element (0, .., 0); outside the tensor when padded
  int64_t first = 0;  // element offset of box element (lo_0, .., lo_r)
  int64_t lo[kMaxRank] = {};
  int64_t hi[kMaxRank] = {};
  bool full = true;    // every element inside
  bool empty = false;  // no element inside

  int64_t valid(size_t j) const { return hi[j] - lo[j]; }
};

BoxEval eval_box(const GmBox& box, const int64_t* vars);

// A box as a strided matrix: element (r, c) at r * rs + c * cs from the box's first element.
struct BoxMatrix {
  int64_t rs = 0, cs = 1, rows = 1, cols = 1;
};

// The last two dims (rows, cols) of a box whose leading dims have size 1, valid extents.
BoxMatrix box_matrix(const GmBox& box, const BoxEval& e);

// The box as the matrix [R, cols] of a dense local buffer with `cols` columns, when the box's
// trailing dims with `cols` elements in all form one strided run (each inner one whole: the
// output rows of a convolution tile, [m][od][oh][ow] -> [m, oh * ow]) and at most one leading
// dim has size > 1. False when the box is not such a matrix at this tile.
bool box_matrix_of(const GmBox& box, const BoxEval& e, int64_t cols, BoxMatrix& m);

// Dense local buffer (row-major over the box sizes) <- the valid region of the box at GM element
// offset e.first of `gm` (es-byte elements). The rest of the local buffer is left as it is.
void box_gather(const std::byte* gm, const GmBox& box, const BoxEval& e, std::byte* local,
                size_t es);
// The valid region of the box in GM <- a dense local buffer of dtype `from`, converted to `to`.
void box_scatter(std::byte* gm, const GmBox& box, const BoxEval& e, const std::byte* local,
                 DType from, DType to);

// dst[r * ld + i] = src[r * rs + 2 * i] for r < rows, i < n (4-byte elements, strides in
// elements), with AVX-512 (box_io_avx512.cpp); false, doing nothing, without it.
bool gather_stride2_f32(const std::byte* src, int64_t rs, int64_t rows, int64_t n, std::byte* dst,
                        int64_t ld);

// acc[r * ld + i] = op(acc[r * ld + i], src[r * rs + i * cs]) for r < rows, i < n: f32, op add,
// max or min, cs 1 or 2, with AVX-512 (box_io_avx512.cpp); false, doing nothing, otherwise.
bool accumulate_rows_f32(BinaryOp op, const std::byte* src, int64_t rs, int64_t cs, int64_t rows,
                         int64_t n, std::byte* acc, int64_t ld);

// accumulate_rows_f32 for k taps in order, tap t's rows at src[t] + off: each acc row is read and
// written once for all of them (box_io_avx512.cpp); false, doing nothing, where that one is.
bool accumulate_taps_f32(BinaryOp op, const float* const* src, int64_t taps, int64_t off,
                         int64_t rs, int64_t cs, int64_t rows, int64_t n, float* acc, int64_t ld);

// The two passes of box_accumulate_taps_separable (box_io_avx512.cpp), f32, op max or min: rows
// sets v[u] = op over q < n_rows of rows[q][u] for u < nu; cols sets acc[x] = op(acc[x],
// v[off[i] + x * cs]) for every i < k, x < n. Null without AVX-512 (or for cs other than 1, 2).
struct TapsKernels {
  void (*rows)(const float* const* rows, int64_t n_rows, int64_t nu, float* v) = nullptr;
  void (*cols)(const float* v, const int64_t* off, int64_t k, int64_t n, float* acc) = nullptr;
  // rows and cols in one pass with V in registers, for kw <= kFusedTaps contiguous column taps:
  // acc[x] = op(acc[x], op over i < kw of V[off0 + x * cs + i]) for x < n, V[u] = op over the
  // rows of rows[q][u] for 0 <= u < nu and op's identity elsewhere (off0 may be negative: a
  // padded edge; nothing outside [0, nu) is read).
  void (*fused)(const float* const* rows, int64_t n_rows, int64_t off0, int64_t nu, int64_t kw,
                int64_t n, float* acc) = nullptr;
};
constexpr int64_t kFusedTaps = 8;
TapsKernels taps_kernels_f32(BinaryOp op, int64_t cs);

// box_accumulate_taps for max and min when the boxes form a window of rows of taps (a pool's,
// tap g * kw + i one step of the last dim's window after tap g * kw, and sharing its rows): per
// output row the valid rows combined once over the columns they span, then their kw column taps
// (box_taps.cpp). False, doing nothing, for any other op or layout.
bool box_accumulate_taps_separable(const std::byte* gm, const GmBox& box,
                                   std::span<const BoxEval> e, std::byte* acc, BinaryOp op);

// box_accumulate of k boxes in order (`box` their dims, equal but for where they start; e their
// evaluations at this tile): the region all of them cover in one pass over acc (each acc row
// read and written once for every box), then each box's own rim (a pool's padded edges) box by
// box. False, doing nothing, when they share no region, the inner stride is not 1 or 2, or
// AVX-512 is absent: the caller accumulates box by box.
bool box_accumulate_taps(const std::byte* gm, const GmBox& box, std::span<const BoxEval> e,
                         std::byte* acc, BinaryOp op);

// acc (a dense f32 local buffer of the box's sizes) = op(acc, the box's valid region), op add, max
// or min: a copy-in and the accumulate reading it as one pass (the rest of acc is unchanged: the
// box's padding is op's identity).
void box_accumulate(const std::byte* gm, const GmBox& box, const BoxEval& e, std::byte* acc,
                    BinaryOp op);

// The last four dims [C, D, H, W] of a box at one tile, as load_l0_im2col's source (a GM view);
// c0 > 1: the four before the last, an NC1HWC0 box [.., C1, D, H, W, c0] (Im2col::c0).
Im2colSource map_view(const std::byte* gm, const GmBox& box, const BoxEval& e, int64_t c0 = 1);
// A dense local buffer [.., C, D, H, W] (or [.., C1, D, H, W, c0]) as load_l0_im2col's source
// (padding already zero).
Im2colSource map_local(const std::byte* local, const Shape& dims, int64_t c0 = 1);
// The same feature-map box (a column matrix made from it is still valid within a launch).
bool same_map(const Im2colSource& a, const Im2colSource& b);

}  // namespace asc::cpu
