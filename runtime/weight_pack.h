// Weight packing at load (ModelOptions::pack_weights): the constant weights a MatMul reads as B
// are stored in the cpu device's packed B layout (runtime/devices/cpu/gemm.h: panels of nr
// columns over all of K, k_pack k-rows interleaved), and their MatMul / FusedMatMulBias nodes
// become PackedMatMul (ops/fused_matmul_packed.cpp) — what Ascend's model converter does when it
// stores weights ND -> NZ for the cube. A decoding step then streams each weight as a few long
// sequential runs with its sums in registers instead of rows of B read into a C row in cache
// (docs/PERFORMANCE.md, Qwen: 0.5B's bf16 weights at 51-67 GB/s instead of 33-40 on a Zen 5 guest).
//
// Packing rides on precision conversion (runtime/precision.h), which writes every weight anyway:
// the packed form is what the converted-weight cache stores. Weights that need no conversion (an
// f32 model under fp32, a bf16 model's) stay mapped from the model file (load in milliseconds)
// unless a weight cache is given: then they are packed into it once and mapped from it on later
// loads.
#pragma once

#include <string>
#include <vector>

#include "registry/tensor.h"
#include "runtime/graph.h"

namespace asc {

struct WeightPacking {
  DType dtype = DType::kUndefined;  // of the packed weights
  int64_t panel = 0;                // columns per panel (the kernels' nr)
  int k_pack = 1;                   // k rows interleaved per column (2: bf16 pairs)
  std::vector<Shape> kn;            // per graph value: [K, N] of a weight to pack, else empty

  bool packs(int v) const { return v >= 0 && static_cast<size_t>(v) < kn.size() && !kn[v].empty(); }
  bool empty() const;
  std::string layout() const;  // "panels32x2": names the layout in cache keys
  Shape packed_shape(
      const Shape& kn) const;  // [ceil(N / panel), ceil(K / k_pack) * k_pack * panel]
  // The packed form of b ([K, N], dtype `dtype`), in memory advised for huge pages.
  Tensor pack(const Tensor& b) const;
  // The packed form of weight w converted to `dtype` (convert_values from f32; none when w is in
  // `dtype`), a few panels at a time: no whole converted copy is made.
  Tensor pack_converted(const Tensor& w) const;
};

// The packing of weights in `to` for the active cpu kernels (panel = nr, their k_pack); empty
// where those kernels keep no packed form in `to` itself (f16; bf16 widened to f32 panels).
WeightPacking kernel_packing(DType to);
// PackedMatMul's attributes for a [K, N] weight packed by p (activation left to the caller).
Attrs packed_matmul_attrs(const WeightPacking& p, const Shape& kn);

// Which constants of g the cpu device's cube kernels read packed at precision `to`: 2-D
// constants with K, N > 0 read only as B (input 1) of MatMul or FusedMatMulBias nodes and not
// graph outputs, in the dtype they are stored in (`to` for an f32 constant under f16 / bf16, else
// their own): f32 or bf16, whichever most of their elements have. Those that need no conversion
// (an f32 model under fp32, a bf16 model) are copied by packing: they are packed when
// `stored_too` (a weight cache, whose file the model then maps) or when they take at most
// `copy_limit` bytes in all (a ViT's 330 MB: the copy costs less than packing B at every run);
// otherwise they stay mapped from the model file. Empty where the active kernels keep no packed
// form in that dtype (f16; bf16 without AVX512_BF16 dot products).
WeightPacking plan_weight_packing(const Graph& g, DType to, bool stored_too,
                                  int64_t copy_limit = 0);

// After conversion: the nodes reading a packed weight become PackedMatMul (same name, inputs,
// outputs; attributes k, n, panel, k_pack and the activation). Returns the nodes rewritten.
int use_packed_weights(Graph& g, const WeightPacking& p);

// The constant weights of FusedConv nodes stored in the cube kernels' A layout, per group: W [M,
// C/G, k..] -> Wp [G, ceil(M/G / mr), KP * mr] (gemm_pack_a of each group's [M/G, K]; KP = K
// rounded up to k_pack), the node's `panel`, `k_pack` and `w_shape` set — a convolution's weights
// stored in the cube's layout ahead of time, as Ascend's model converter does. Always done where
// the active kernels keep panels in W's dtype (f32; bf16 with bf16 dot products): a network's conv
// weights are small and every launch would otherwise pack them. A depthwise weight (group = C =
// M) becomes a grouped conv of block-diagonal blocks of b channels (b a divisor of C; the larger
// ones on maps small enough that a block's column matrix and weight fit in `l0_bytes`, the
// device's L0A and L0B):
// the cube then multiplies b times the useful products, faster on this device than the vector
// form; a non-finite input then also reaches the b - 1 other outputs of its block (as NaN). Its
// f32 panels also carry their rows' taps compactly after K (FusedConv's `tail`). A
// weight shared with a node that is not such a FusedConv stays as it is. Returns the weights
// packed.
int pack_conv_weights(Graph& g, int64_t l0_bytes = 0);

}  // namespace asc
