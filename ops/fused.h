// The fused ops the graph fusion passes create (runtime/fusion.h), in the private domain "ai.asc",
// opset 1. Each is a DSL op like any other: schema, inference, tiling, tile kernel, reference.
//
//   FusedRMSNorm     (fused_norm.cpp)        Y = X / sqrt(mean(X^2 over the last axis) + eps) *
//   scale FusedMatMulBias  (fused_matmul.cpp)      Y = act(A x B + bias), the epilogue before
//   copy-out FusedSwiGLU      (fused.cpp)             Y = G * sigmoid(G) * U FusedRotary
//   (fused_rotary.cpp)      Y = X * cos + rotate_half(X) * sin FusedElementwise
//   (fused_elementwise.cpp) a chain of elementwise ops spliced into one program
//
// FusedElementwise describes its chain in attributes (encode_chain / decode_chain below), so a
// fused node is self-describing: asc-ops, dumps and its reference read the steps from the node.
#pragma once

#include <string>
#include <vector>

#include "registry/attr.h"
#include "registry/registry.h"

namespace asc::fused {

inline constexpr const char* kDomain = "ai.asc";

void add_norm(Registry& r);           // FusedRMSNorm
void add_matmul(Registry& r);         // FusedMatMulBias
void add_packed_matmul(Registry& r);  // PackedMatMul (fused_matmul_packed.cpp)
void add_conv(Registry& r);           // FusedConv (fused_conv.cpp)
void add_conv_5hd(Registry& r);       // FusedConv5HD (fused_conv_5hd.cpp)
void add_layout_5hd(Registry& r);     // To5HD, From5HD (layout_5hd.cpp)
// Conv's own attributes (auto_pad, dilations, group, kernel_shape, pads, strides) of a FusedConv.
Attrs conv_attrs(const Attrs& a);
void add_rotary(Registry& r);       // FusedRotary
void add_elementwise(Registry& r);  // FusedElementwise

// ---- FusedElementwise's chain -------------------------------------------------------------------
// Step k runs op (domain, type, opset) on its operands and yields one value; the fused output is
// the last step's. An operand code c names: c >= 0 the fused node's input c; c == -1 an absent
// optional input; c <= -2 the result of step -c - 2 (an earlier step).
struct ChainStep {
  std::string domain;  // "" = ai.onnx
  std::string type;
  int opset = 0;
  std::vector<int64_t> args;  // operand codes
  Attrs attrs;                // the node's attributes: int, float and string kinds only
};

constexpr int64_t chain_step_code(size_t step) {
  return -2 - static_cast<int64_t>(step);
}

// Attributes of a FusedElementwise node:
//   ops       strings  per step: "Type" (ai.onnx) or "domain.Type"
//   opsets    ints     per step
//   arity     ints     per step: its number of operands
//   args      ints     the operand codes of every step, in order
//   step_attrs strings "step:kind:name=value", kind i (int, decimal), f (float, 9 significant
//                      digits: round-trips f32) or s (string, verbatim)
Attrs encode_chain(const std::vector<ChainStep>& steps);
// Inverse of encode_chain; ShapeError naming the bad attribute when the encoding is inconsistent.
std::vector<ChainStep> decode_chain(const Attrs& a);
// True when every attribute of `a` has a kind encode_chain can store (int, float, string).
bool chain_encodable(const Attrs& a);

}  // namespace asc::fused
