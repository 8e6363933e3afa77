// The cpu device's integer cube (TileBuilder::mmad on i8/u8 operands, docs/DSL.md "Integer
// cube"): c (i32) += (a - za) x (b - zb), exact.
//
// The operands are widened to f32 with their zero points subtracted while packing: every value
// is then an integer in [-255, 255], a product at most 65025 in magnitude, and a sum of up to
// kInt8Chunk = 256 products stays below 2^24, where every f32 partial sum is an exact integer. The
// product runs on the f32 micro-kernels (gemm.h) one k chunk at a time, each chunk's exact sums
// added into the i32 accumulator. Layouts, with the active f32 kernel's mr / nr (k_pack 1):
//  A [m, k]: k chunk after k chunk, each a packed block [m, kc] of gemm.h's A layout
//    (chunk ci at ceil(m/mr) * mr * ci * kInt8Chunk);
//  B [k, n]: gemm.h's B layout (panel q at q * nr * k), so a k chunk is the same rows of every
//    panel — the column matrix of load_l0_im2col is packed by im2col_pack from a widened map.
// With AVX512-VNNI (gemm_int8.cpp) A is packed instead as i16 pairs in panels of 12 rows (same
// byte count as int8_packed_a_bytes reports), B is converted to i16-pair panels of 32 columns
// inside the product, and vpdpwssd accumulates in i32 with no chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "registry/dtype.h"
#include "runtime/devices/cpu/im2col.h"

namespace asc::cpu {

constexpr int64_t kInt8Chunk = 256;

// A zero point: `count` values `stride` elements apart (count 1: one for every row / column);
// none (p null) is 0.
struct ZeroPoint {
  const std::byte* p = nullptr;
  DType dtype = DType::kU8;
  int64_t stride = 1, count = 0;
  int32_t at(int64_t i) const;
};

size_t int8_packed_a_bytes(int64_t m, int64_t k);
size_t int8_packed_b_bytes(int64_t k, int64_t n);
// Element (i, j) of the i8/u8 source is at src[i * rs + j * cs]; za per row of A, zb per column
// of B.
void int8_pack_a(DType in, const void* src, int64_t rs, int64_t cs, int64_t m, int64_t k,
                 const ZeroPoint& za, float* dst);
void int8_pack_b(DType in, const void* src, int64_t rs, int64_t cs, int64_t k, int64_t n,
                 const ZeroPoint& zb, float* dst);
// The valid region of an i8/u8 feature-map box minus its zero point, as f32 in `scratch`: the
// returned source reads like `src` (same box coordinates, same lo/hi) for im2col_pack(kF32, ..).
Im2colSource int8_widen_map(DType in, const Im2colSource& src, int64_t zero,
                            std::vector<float>& scratch);
// c[m, n] (i32, row stride ldc) = (accumulate ? c : 0) + A x B over k, A chunked as above, B
// packed (b_panel_stride floats between its panels: nr * its k).
void int8_mmad(const float* pa, const float* pb, int64_t b_panel_stride, int32_t* c, int64_t ldc,
               int64_t m, int64_t n, int64_t k, bool accumulate, std::vector<float>& tmp);

}  // namespace asc::cpu
