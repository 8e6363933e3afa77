// Attention fusion: the optimum-form decoder attention (docs/RUNTIME.md, "Attention fusion and
// the KV cache") becomes one FusedAttention node (ops/fused_attention.h) per layer.
//
// Matched, from each Softmax over the last axis (either operand order of the mask Add, the scale
// as Mul by a scalar constant on either side or Div by one):
//
//   present_k = Concat(past_k, k, axis 2)           present_v = Concat(past_v, v, axis 2)
//   kr = repeat_kv(present_k)                       vr = repeat_kv(present_v)
//   probs = Softmax(Add(Mul(MatMul(q, Transpose(kr, [0,1,3,2])), scale), mask))
//   ctx = MatMul(probs, vr)             [, Transpose(ctx, [0,2,1,3]) — absorbed when ctx has no
//                                           other use: the fused output is then token-major]
//
// repeat_kv is Unsqueeze(axes [2]) -> Expand(constant [1,1,r,1,1]) -> Reshape(constant
// [0, N, -1, D]), or nothing when N equals the past's kv heads. The past's declared type must
// give kv heads and head size (N = kv * r, D the past's head size). Anything else — another
// spelling, a non-constant shape, an interior value used elsewhere — leaves the layer unfused.
#pragma once

#include <vector>

#include "runtime/graph.h"

namespace asc {

// The pattern runs first inside fuse() (runtime/fusion.h, FuseOptions::attention) and decides
// with its legality predicate can_fuse(); when `keep` makes the trailing Transpose's input
// observable, the block is fused without absorbing it.
//
// This entry point runs fuse() with the attention pattern alone: fuses every matching block of g
// and returns the number fused. `keep` are values that must stay observable
// (ModelOptions::expose): a block they are interior to is left alone.
int fuse_attention(Graph& g, const std::vector<int>& keep = {});

}  // namespace asc
