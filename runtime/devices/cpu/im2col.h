// The cpu device's Load3D (TileBuilder::load_l0_im2col): the column matrix of a feature-map box,
// packed straight from GM into the GEMM micro-kernels' panel layout (gemm.h) — the B side
// [K, P] (panels of nr positions) or the A side [P, K] (panels of mr positions). The box's
// padding is never read: positions whose window element lies outside the map get zeros.
#pragma once

#include <cstddef>
#include <cstdint>

#include "registry/dtype.h"
#include "registry/tile_program.h"
#include "runtime/devices/cpu/gemm.h"

namespace asc::cpu {

// A feature-map box [C, D, H, W] in GM (the last four dims of a copy-in's box at one tile).
struct Im2colSource {
  const std::byte* gm = nullptr;  // the tensor's first element
  int64_t base = 0;               // element offset of box element (0, 0, 0, 0); may be < 0
  int64_t stride[4] = {0, 0, 0, 0};
  int64_t lo[4] = {0, 0, 0, 0};  // per dim: box elements [lo, hi) lie inside the map
  int64_t hi[4] = {0, 0, 0, 0};
};

// Bytes of the packed column matrix of k rows (channels * window) and g.positions() positions.
size_t im2col_packed_bytes(DType in, bool a_side, int64_t k, int64_t positions);

// Packs rows [0, k) of the column matrix of `g` over `src` (dtype `in`) into dst: the B-side
// panels of gemm_pack_b for [k, P], or (a_side) the A-side panels of gemm_pack_a for [P, k], in
// the active kernels' packed dtype; rows past k and positions past P are zero.
void im2col_pack(DType in, bool a_side, const Im2colSource& src, const Im2col& g, int64_t k,
                 void* dst);

// gemm_mmad_a_panels_diag (gemm.h) with B the column matrix of `g` over `src`, read from the map
// itself instead of being packed: a depthwise convolution's taps as vector FMAs along the map's
// rows. `taps_k` >= 0: each A panel also holds its rows' taps compactly from k column `taps_k` on
// (tap t of row i at (taps_k + t) * mr + i: runtime/weight_pack.cpp), read there instead of on the
// diagonal. f32 A and map on AVX-512 only; false (nothing done) elsewhere.
bool mmad_a_panels_diag_map(DType in, const void* pa, int64_t a_stride, const Im2colSource& src,
                            const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                            bool accumulate, int64_t taps_k = -1);

// gemm_mmad_a_panels (gemm.h) with B the column matrix of `g` over `src`, packed one k chunk of
// one panel at a time into L1 right before the micro-kernels read it (the whole matrix is never
// stored). f32 with AVX-512's f32 kernel and a window of column stride 1 or 2 over unit-stride
// map rows only; false (nothing done) elsewhere. `ep`, where the product is read from the map's
// phase planes, is applied as C's values leave them (y written, C not; ep->done set).
bool mmad_a_panels_im2col(DType in, const void* pa, int64_t a_stride, const Im2colSource& src,
                          const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                          bool accumulate, GemmAhead* ahead = nullptr, RowEpilogue* ep = nullptr);

// The same product read from the map's zero-padded stride-phase planes instead of a column
// matrix (conv_planes_avx512.cpp): f32 on AVX-512, a 2-D window of column stride up to 4 over
// unit-stride map rows. mmad_a_panels_im2col takes it where the outputs it computes and drops
// cost less than packing; `force` takes it wherever it applies (tests). false, doing nothing,
// elsewhere. `ep` (not accumulating) is applied as C leaves the planes: y written, C not.
bool mmad_a_panels_planes(DType in, const void* pa, int64_t a_stride, const Im2colSource& src,
                          const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                          bool accumulate, bool force, RowEpilogue* ep = nullptr);

// The same product as F(2x2, 3x3) Winograd minimal filtering (conv_winograd_avx512.cpp): 16
// GEMMs over the channels instead of 36 products per 2x2 outputs, sums in another order (within
// f32 rounding of the direct ones). f32 on AVX-512, a 2-D 3x3 window of stride and dilation 1
// over unit-stride map rows; mmad_a_panels_im2col takes it where winograd_window does, `force`
// wherever it applies (tests). false, doing nothing, elsewhere.
bool mmad_a_panels_winograd(DType in, const void* pa, int64_t a_stride, const Im2colSource& src,
                            const Im2col& g, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                            bool accumulate, bool force);
// Whether mmad_a_panels_winograd takes a window of k column-matrix rows (at least 16 channels,
// 32 tiles of 2x2 outputs and 3 of each tile's 4 outputs used); the lowering then leaves its
// column matrix unmade (tile_lower.cpp).
bool winograd_window(const Im2col& g, int64_t k);
// Starts a core's run of one launch's tiles (run_tiles): what a product derives from the
// launch's weights (Winograd's transformed filters) is kept from one tile to the next until the
// next call, never longer (a later launch may hold other weights at the same address).
void im2col_begin_run();

// The B side in f32 panels of 32 for a window of column stride 1 or 2 with AVX-512
// (im2col_avx512.cpp); false, doing nothing, where that does not apply.
bool im2col_pack_avx512(DType in, const Im2colSource& src, const Im2col& g, int64_t k, float* dst);

}  // namespace asc::cpu
