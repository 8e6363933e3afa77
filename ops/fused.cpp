// The fused family's registration (ops/fused.h) and FusedSwiGLU.
//
// FusedSwiGLU (ai.asc 1): Y = G * sigmoid(G) * U with numpy broadcasting, what the pass makes of
// Sigmoid(g), Mul(g, .), Mul(., up) — the SiLU-gated MLP of Llama/Qwen. One elementwise tile:
// load G and U (cast to f32 for f16/bf16), silu, multiply, store; the intermediates stay in UB.
#include "ops/fused.h"

#include <cmath>

#include "ops/ops.h"
#include "registry/infer.h"
#include "registry/tiling.h"

namespace asc {

void register_fused(Registry& r) {
  fused::add_norm(r);
  fused::add_matmul(r);
  fused::add_packed_matmul(r);
  fused::add_conv(r);
  fused::add_conv_5hd(r);
  fused::add_layout_5hd(r);
  fused::add_rotary(r);
  fused::add_elementwise(r);
  r.add(def_op("FusedSwiGLU", 1, INT_MAX, fused::kDomain)
            .input("G", "T")
            .input("U", "T")
            .output("Y", "T")
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16, DType::kF64})
            .trait(kElementwise | kBroadcast)
            .describe("Y = G * sigmoid(G) * U with numpy broadcasting (fused SwiGLU)")
            .infer([](const InferContext& c) { return infer_broadcast(c); })
            .tiling(elementwise_tiling)
            .kernel([](TileBuilder& t) {
              Buf g = ew_load(t, 0);
              ew_store(t, 0, t.unary(UnaryOp::kSilu, g) * ew_load(t, 1));
            })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              ref_elementwise(in, out[0], [](const double* v) {
                return v[0] / (1.0 + std::exp(-v[0])) * v[1];
              });
            }));
}

}  // namespace asc
