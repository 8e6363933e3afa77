// Packed GEMM micro-kernels of the CPU device: the lowering of the cube unit's `mmad`
// (C in L0C += A in L0A x B in L0B, fp32 accumulation).
//
// Packed ("fractal") layouts, the analogue of Ascend's Zz/Zn layouts in L0A/L0B:
//  A block [m, k] -> ceil(m/mr) row panels of mr * kp elements each (kp = k rounded up to k_pack);
//    k_pack = 1: panel p stores A[p*mr + i][kk] at offset kk*mr + i;
//    k_pack = 2: pairs of k are interleaved: (kk/2)*mr*2 + i*2 + kk%2 (so one 32-bit broadcast
//    feeds a bf16 dot product).
//  B block [k, n] -> ceil(n/nr) column panels of nr * kp elements each;
//    k_pack = 1: panel q stores B[kk][q*nr + j] at kk*nr + j;
//    k_pack = 2: (kk/2)*nr*2 + j*2 + kk%2.
//  Rows of A past m, columns of B past n and k past the true k are zero-padded.
//
// Blocking expected from the caller (it sizes tiles from GemmKernel and the cache sizes):
//  - the packed A block [m, k] should fit in L2 (~256 x 512 f32 = 512 KiB is the upper end);
//  - the packed B block [k, n] should fit in L2/L3;
//  - m a multiple of mr and n a multiple of nr where the shape allows (tails are handled, but
//    a partial panel runs at lower efficiency).
// Inside gemm_mmad the loop nest is: k in chunks of ~kL1 (so one B panel chunk, kL1 * nr
// elements, stays in L1) -> B panels (nr columns) -> A panels (mr rows) -> micro-kernel that
// keeps the mr x nr C tile in registers for the whole k chunk.
#pragma once

#include <cstddef>
#include <cstdint>

#include "registry/dtype.h"

namespace asc::cpu {

// mr x nr is the register tile of C; k_pack is 2 for bf16 dot products (pairs of k), else 1.
// `packed` is the element type of the packed buffers (f32, or bf16 with k_pack = 2).
struct GemmKernel {
  int mr;
  int nr;
  int k_pack;
  DType packed;
  const char* isa;
};

// f32/f16 in -> packed f32; bf16 in -> packed bf16 where avx512_bf16 exists, else f32.
const GemmKernel& gemm_kernel(DType in);
size_t gemm_packed_a_bytes(DType in, int64_t m, int64_t k);
size_t gemm_packed_b_bytes(DType in, int64_t k, int64_t n);

// Source element (i, j) is at src[i*rs + j*cs] (strides in elements; cs != 1 means a transposed
// read). in = f32, f16 or bf16.
void gemm_pack_a(DType in, const void* src, int64_t rs, int64_t cs, int64_t m, int64_t k,
                 void* dst);
void gemm_pack_b(DType in, const void* src, int64_t rs, int64_t cs, int64_t k, int64_t n,
                 void* dst);

// Blocks to bring into cache while gemm_mmad computes: the operands of the caller's next loop
// iteration (a tile's next k block of a weight streamed from DRAM). The kernels spread the
// prefetches evenly over their micro-kernel calls, so the fetch overlaps the arithmetic instead
// of stalling ahead of it: the cpu's analogue of a double-buffered copy-in.
struct GemmAhead {
  struct Block {
    const std::byte* base;
    int64_t stride, rows, row_bytes;  // rows of row_bytes, stride bytes apart
  };
  static constexpr int kMaxBlocks = 2;
  Block blocks[kMaxBlocks];
  int count = 0;

  void add(const std::byte* base, int64_t stride, int64_t rows, int64_t row_bytes) {
    if (count < kMaxBlocks && rows > 0 && row_bytes > 0)
      blocks[count++] = {base, stride, rows, row_bytes};
  }
  int64_t lines() const {
    int64_t n = 0;
    for (int b = 0; b < count; ++b) n += blocks[b].rows * ((blocks[b].row_bytes + 63) / 64);
    return n;
  }
  // Issues the prefetches (into L2) up to `done` / `total` of all lines, walking the blocks row
  // by row.
  void issue(int64_t done, int64_t total) {
    int64_t todo = (total <= 0 ? lines_ : lines_ * done / total) - issued_;
    issued_ += todo;
    for (; todo > 0 && block_ < count; --todo) {
      const Block& b = blocks[block_];
      __builtin_prefetch(b.base + row_ * b.stride + col_, 0, 2);
      if ((col_ += 64) < b.row_bytes) continue;
      col_ = 0;
      if (++row_ < b.rows) continue;
      row_ = 0;
      ++block_;
    }
  }
  int64_t issued() const { return issued_; }
  void start() {
    lines_ = lines();
    issued_ = block_ = row_ = col_ = 0;
  }

 private:
  int64_t lines_ = 0, issued_ = 0, row_ = 0, col_ = 0;
  int block_ = 0;
};

// A convolution's epilogue in its plainest form, y = act(C + bias per row), for a product that
// writes C's values out in a pass of their own (mmad_f32_planes' compaction) to apply on the way
// instead of storing C (Lowering::post_chain): such a product writes y and sets `done`.
struct RowEpilogue {
  enum Act : uint8_t { kNone, kRelu, kClip };
  const float* bias = nullptr;  // one per row of C; null: none
  Act act = kNone;
  float lo = 0.f, hi = 0.f;  // kClip's bounds
  float* y = nullptr;
  int64_t ldy = 0, rows = 0, cols = 0;  // y's row stride and C's rows and columns it takes
  bool done = false;
};

// C[m, n] (f32, row stride ldc) = (accumulate ? C : 0) + packedA x packedB. `ahead`, when given,
// is fetched while the product runs.
void gemm_mmad(DType in, const void* pa, const void* pb, float* c, int64_t ldc, int64_t m,
               int64_t n, int64_t k, bool accumulate, GemmAhead* ahead = nullptr);

// Same product with B unpacked (row-major f32, row stride ldb, unit column stride): each panel of
// nr columns is packed right before the micro-kernels that use it while the next panel's rows are
// prefetched, so a B streamed from DRAM arrives under the arithmetic and only one panel (kc x nr)
// occupies the cache (packing a whole block first reads it at DRAM latency, ~15 % of a Qwen
// prefill). `ahead` as for gemm_mmad. Returns false, doing nothing, where the ISA has no such
// kernel (pack B instead).
bool gemm_mmad_b_rows(DType in, const void* pa, const void* b, int64_t ldb, float* c, int64_t ldc,
                      int64_t m, int64_t n, int64_t k, bool accumulate, GemmAhead* ahead = nullptr);
bool gemm_mmad_b_rows_supported(DType in);

// mmad rows up to which the lowering streams B unpacked (gemm_direct) instead of packing it;
// the matmul tiling learns it from cpu_spec (DeviceSpec::MatmulCosts::direct_max_m).
constexpr int64_t kGemmDirectMaxM = 16;

// gemm_mmad_a_panels for B of n <= kNarrowMax columns read where it lies (element (kk, j) at
// b[kk * brs + j * bcs], f32): one pass over A's panels (gemm_narrow_avx512.cpp). f32 A on
// AVX-512 only; false (nothing done) elsewhere.
constexpr int64_t kNarrowMax = 4;
bool gemm_mmad_a_panels_narrow(DType in, const void* pa, int64_t a_stride, const float* b,
                               int64_t brs, int64_t bcs, float* c, int64_t ldc, int64_t m,
                               int64_t n, int64_t k, bool accumulate);

// B pre-packed: a whole weight [K, N] packed once (gemm_pack_b, at load) and kept, whose panels
// of nr columns lie `panel_stride` elements apart; pb points at the block's first panel, at its
// first k row (a k block of the weight is the same rows of every panel). The analogue of weights
// stored in Ascend's fractal layout ahead of time. Same product as gemm_mmad; the layout must be
// the active ISA's (gemm_kernel(in): nr, k_pack, packed dtype).
void gemm_mmad_panels(DType in, const void* pa, const void* pb, int64_t panel_stride, float* c,
                      int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate,
                      GemmAhead* ahead = nullptr);
// A pre-packed: a whole weight [M, K] packed once (gemm_pack_a, at load) and kept, whose panels
// of mr rows lie `a_stride` elements apart; pa points at the block's first panel, at its first k
// row (a k block of the weight is the same rows of every panel). B is a packed block. Same
// product as gemm_mmad; the layout must be the active ISA's. The analogue of a convolution's
// weights stored in the cube's fractal layout ahead of time.
void gemm_mmad_a_panels(DType in, const void* pa, int64_t a_stride, const void* pb, float* c,
                        int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate,
                        GemmAhead* ahead = nullptr);
// gemm_mmad_a_panels with B unpacked (f32, element (kk, j) at b[kk * ldb + j]): each k chunk
// of each panel of nr columns is copied into L1 right before the micro-kernels read it, and the
// last panel's few columns past a multiple of 16 take a kernel of their own (a pointwise conv
// over a 7x7 map: 48 + 1 columns, not 64). f32 with AVX-512's f32 kernel; false (nothing done)
// elsewhere.
bool gemm_mmad_a_panels_b_rows(DType in, const void* pa, int64_t a_stride, const float* b,
                               int64_t ldb, float* c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                               bool accumulate, GemmAhead* ahead = nullptr);
bool gemm_mmad_a_panels_b_rows_supported(DType in);
// gemm_mmad_a_panels for a block-diagonal A (a depthwise convolution's weights as groups of
// channels, runtime/weight_pack.cpp): row r of A is zero outside k in [r * diag, (r + 1) * diag),
// and only those products are formed — the same sums without the zero terms, so a NaN or an
// infinity in one channel's inputs stays in that channel. False (nothing done) where the active
// kernel packs this dtype in k pairs; the caller then runs gemm_mmad_a_panels.
bool gemm_mmad_a_panels_diag(DType in, const void* pa, int64_t a_stride, const void* pb, float* c,
                             int64_t ldc, int64_t m, int64_t n, int64_t k, int64_t diag,
                             bool accumulate);
// The same with A unpacked (type `in`, row stride lda, unit column stride): the decode path. One
// row streams kPanelStreams panels at a time with the sums in registers (AVX-512); more rows pack
// A and run gemm_mmad_panels.
void gemm_direct_panels(DType in, const void* a, int64_t lda, const void* pb, int64_t panel_stride,
                        float* c, int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate);

// Same product with A and B unpacked (A row stride lda, unit column stride; B row-major with row
// stride ldb, unit column stride): the path for small m (decode; m <= 16 on AVX-512) where packing
// B would cost more than it saves. m = 1 (AVX-512) reads B as groups of 8 rows, each over all n,
// with C as the accumulator (eight sequential streams); otherwise B is streamed once in blocks of
// ~128 rows x all n (TLB- and prefetch-friendly), C re-read once per block. m <= 8 reads B once;
// 9..16 rows run as one block (f32: 16 x 16 tiles; bf16: 12 x 32 dot-product tiles).
void gemm_direct(DType in, const void* a, int64_t lda, const void* b, int64_t ldb, float* c,
                 int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate);

// ISA levels, best first: "avx512_bf16" (bf16 GEMMs on vdpbf16ps dot products), "avx512" (f32
// FMA kernels; f16/bf16 operands widened to f32 while packing or loading), "avx2", "generic".
// Automatic selection takes avx512_bf16 only where a dot product issues at more than ~0.6 of
// the FMA rate (gemm_detail::gemm_bf16_dot_pays; ASC_GEMM_BF16_DOT=0/1 overrides): on cores
// that issue it at a quarter of the FMA rate, widening to f32 is the faster bf16 GEMM.
// Test/bench hook: restrict dispatch to one of these levels (a level the CPU lacks is clamped to
// what it has); "" or nullptr restores automatic selection. Returns the active ISA.
// Not thread-safe: call it while no GEMM runs.
const char* gemm_force_isa(const char* isa);
// Name of the ISA gemm_mmad/gemm_direct currently dispatch to.
const char* gemm_active_isa();

namespace gemm_detail {

// One ISA's kernels. Packed operands follow the layouts above with that ISA's mr/nr/k_pack.
// Direct kernels take A already converted to f32 (row stride lda) and B of type `in`.
struct GemmIsa {
  const char* name;
  GemmKernel f32;   // kernel for packed f32 (f32 and f16 inputs; bf16 where bf16 is null)
  GemmKernel bf16;  // kernel for packed bf16 (k_pack 2); mr == 0 when unsupported
  // `ahead` (never null) is issued in step with the work: ahead->issue(done, total). a_stride:
  // elements between A's panels (gemm_mmad_a_panels), 0 for a packed block's own.
  void (*mmad_f32)(const float* pa, const float* pb, float* c, int64_t ldc, int64_t m, int64_t n,
                   int64_t k, bool accumulate, GemmAhead* ahead, int64_t a_stride);
  void (*mmad_bf16)(const uint16_t* pa, const uint16_t* pb, float* c, int64_t ldc, int64_t m,
                    int64_t n, int64_t k, bool accumulate, GemmAhead* ahead, int64_t a_stride);
  void (*direct)(DType in, const float* a, int64_t lda, const void* b, int64_t ldb, float* c,
                 int64_t ldc, int64_t m, int64_t n, int64_t k, bool accumulate);
  // Optional fast gemm_pack_b for bf16 pairs from a row-major source (row stride ldb); may be null.
  void (*pack_b_bf16_rows)(const uint16_t* src, int64_t ldb, int64_t k, int64_t n, uint16_t* dst);
  // Optional gemm_mmad_b_rows for f32; may be null.
  void (*mmad_f32_b_rows)(const float* pa, const float* b, int64_t ldb, float* c, int64_t ldc,
                          int64_t m, int64_t n, int64_t k, bool accumulate, GemmAhead* ahead);
  // Optional fast gemm_pack_b of a row-major f32/f16/bf16 source (row stride ldb) into f32
  // panels; may be null.
  void (*pack_b_rows)(DType in, const void* src, int64_t ldb, int64_t k, int64_t n, float* dst);
  // Optional one-row product against pre-packed B panels of 32 columns (gemm_direct_panels); a
  // holds kp k units of the packed dtype (f32 values, or bf16 pairs); may be null.
  void (*gemv_panels)(DType packed, const void* a, const void* pb, int64_t stride, float* c,
                      int64_t n, int64_t kp, bool accumulate);
};

const GemmIsa* gemm_isa_avx512();       // nullptr when the CPU lacks AVX-512F/BW/VL/DQ
const GemmIsa* gemm_isa_avx512_bf16();  // nullptr when it also lacks AVX512_BF16
// Whether bf16 dot products beat widening to f32 on this CPU (timed once; see above).
bool gemm_bf16_dot_pays();
const GemmIsa* gemm_isa_avx2();  // nullptr when the CPU lacks AVX2/FMA/F16C
const GemmIsa& gemm_isa_generic();

}  // namespace gemm_detail
}  // namespace asc::cpu
