// FusedAttention (domain ai.asc, opset 1): the decoder attention block the attention fusion pass
// (runtime/fuse_attention.h) replaces — KV-cache append, grouped-query attention with an additive
// mask, and optionally the transpose back to token-major — as one flash-style tile kernel.
//
// Inputs (B batch, N query heads, K kv heads, S new tokens, P past rows, T = P + S, D head size):
//   0 query      [B, N, S, D]
//   1 key        [B, K, S, D]   the new tokens' keys (after rotary)
//   2 value      [B, K, S, D]
//   3 past_key   [B, K, P, D]   optional (absent: P = 0); may be a strided view
//   4 past_value [B, K, P, D]   optional, present exactly when past_key is; may be strided
//   5 mask       additive, numpy-broadcastable to [B, N, S, T] (e.g. [B, 1, S, T]); optional
// Outputs:
//   0 output        [B, N, S, D], or [B, S, N, D] with transpose_output = 1
//   1 present_key   [B, K, T, D] = concat(past_key, key) along axis 2; may be a strided view
//   2 present_value [B, K, T, D]
// Semantics: query head h reads kv head h / (N / K) (K/V are never repeated); for query token i
//   score_j = scale * q . present_key_j + mask[b, h, i, j]
//   output  = sum_j softmax(score)_j present_value_j
// computed with an online softmax over key tiles, accumulating in f32. A row whose every score is
// -inf gives zeros (ONNX's Softmax would give NaN). Attributes: scale (0: 1 / sqrt(D)),
// num_heads / kv_num_heads (0: from the shapes; otherwise checked against them), transpose_output.
//
// present_key/value may be the very memory of past_key/value (same data and strides, rows
// [0, P) of a [.., max_len, D] cache buffer viewed as [.., T, D]): the past rows are then already
// in place and the kernel writes only the S new rows. Any other overlap is not supported.
#pragma once

#include <span>
#include <vector>

#include "ops/fused.h"
#include "registry/attr.h"
#include "registry/registry.h"
#include "registry/shape.h"

namespace asc::attention {

using fused::kDomain;  // ai.asc, with the other fused ops

struct Geom {
  int64_t batch = 0, heads = 0, kv_heads = 0, seq = 0, head = 0, past = 0;
  bool has_past = false, has_mask = false;
  bool transpose_output = false;
  float scale = 0;
  // Element strides of the mask broadcast to [B, N, S, T] (0 along broadcast dims).
  Shape mask_strides;

  int64_t total() const { return past + seq; }
  int64_t group() const { return heads / kv_heads; }
  Shape output_shape() const;
  Shape present_shape() const;
};

// Validates the input shapes (absent optional inputs: nullptr) and attributes; ShapeError naming
// the op and every shape.
Geom geom(const Attrs& a, std::span<const Shape* const> shapes);

void add_fused_attention(Registry& r);

// The tile kernel and its tiling (fused_attention_kernel.cpp).
TilingData tiling(const LaunchContext& ctx);
void kernel(TileBuilder& t);

}  // namespace asc::attention
