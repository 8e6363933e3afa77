// MatMul's pieces shared with the fused MatMul (ops/fused_matmul.cpp): the strided view of the
// product, the tiling, the K loop of one output tile and its boxes, inference and reference.
// Only ops/matmul*.cpp, ops/fused*.cpp and ops/misc_quant.cpp (the integer matmuls) include this.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "registry/dsl.h"
#include "registry/op_def.h"

namespace asc {

// The product as strided matrices. Element strides: A'[b, i, kk] at sum_d bd*a_bs[d] + i*a_rs +
// kk*a_cs; B'[b, kk, j] likewise with b_*; Y[b, i, j] at sum_d bd*y_bs[d] + i*y_rs + j; Gemm's C
// broadcast to [M, N]: C[i, j] at i*c_rs + j*c_cs.
struct MmView {
  Shape batch;  // output batch dims, size-1 dims dropped, dims that broadcast alike merged
  Shape a_bs, b_bs, y_bs;
  int64_t m = 1, n = 1, k = 0;
  int64_t a_rs = 0, a_cs = 1, b_rs = 0, b_cs = 1, y_rs = 0;
  bool has_c = false;
  int64_t c_rs = 0, c_cs = 0;
  double alpha = 1.0, beta = 1.0;
  int64_t epilogue_ub = 0;  // UB bytes per output element an epilogue needs (tiling's bound)
  // The integer form (MatMulInteger, QLinearMatMul; docs/DSL.md "Integer cube"): A and B of
  // i8/u8 at inputs a_arg and b_arg, their zero points at az_arg / bz_arg (-1: none; one value,
  // or A's one per row and B's one per column), the accumulator i32.
  bool ints = false;
  int a_arg = 0, b_arg = 1, az_arg = -1, bz_arg = -1;
};

// numpy matmul of A [.., M, K] (or [K]) and B [.., K, N] (or [K]); ShapeError naming both shapes.
// fold_rows: a batch B does not vary over becomes more rows of A (not where A's rows have their
// own per-row operands: the integer matmuls' zero points and scales).
MmView matmul_view(const Shape& a, const Shape& b, bool fold_rows = true);

// Tile sizes TM, TN, TK, the grid order and block_dim for the product `v` on ctx.spec.
TilingData matmul_tiling(const LaunchContext& ctx, const MmView& v);

// One output tile: c (L0C, f32 [TM, TN]) = A'[b, m0 : +TM, :] x B'[b, :, n0 : +TN], A and B
// being inputs 0 and 1. m0 and n0 are the tile's first row and column.
struct MmTile {
  Buf c;
  Coord m0, n0;
  int64_t tm = 0, tn = 0;
};
MmTile matmul_accumulate(TileBuilder& t, const MmView& v);
// A box of a [batch.., rows, cols] operand (batch dims with size 1 first, when strides given).
GmBox matmul_box(const MmView& v, const Shape& batch_strides, BoxDim rows, BoxDim cols);
// The tile's box of Y.
GmBox matmul_out_box(const MmView& v, const MmTile& tile);

namespace fused {
// FusedMatMulBias's epilogue (ops/fused_matmul.cpp), shared with PackedMatMul: y = act(c + bias)
// on the tile's f32 product, bias being input 2 when given (one element, or along N), act the
// node's `activation` attribute.
void check_matmul_activation(const std::string& act);  // ShapeError for an unknown name
// clip: min alpha, max beta; hardsigmoid: clip(alpha x + beta, 0, 1); hardswish: ONNX's
// x * hardsigmoid(x) with alpha 1/6, beta 1/2; leakyrelu: slope alpha below 0.
Buf matmul_activation(TileBuilder& t, const std::string& act, Buf x, float alpha = 0.f,
                      float beta = 0.f);
double ref_matmul_activation(const std::string& act, double x, double alpha = 0, double beta = 0);
Buf matmul_epilogue(TileBuilder& t, const MmView& v, const MmTile& tile);
// FusedMatMulBias's reference: A x B (inputs 0, 1), + bias (input 2, optional), activation.
void ref_fused_matmul(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out);
}  // namespace fused

std::vector<TensorType> infer_matmul(const InferContext& c);
// Naive numpy matmul in double (inputs 0 and 1, output 0).
void ref_matmul(std::span<const Tensor> in, std::span<Tensor> out);
const std::vector<DType>& cube_types();  // f32, f16, bf16

}  // namespace asc
