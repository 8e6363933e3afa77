// The com.microsoft contrib ops onnxruntime-genai's decoder exports use (contrib_norm.cpp,
// contrib_rotary.cpp, contrib_gqa.cpp) and SkipLayerNormalization (contrib_skip_norm.cpp), with
// ONNX Runtime's contrib-op semantics, and the helpers they share: the skip norms' shape checks,
// rows of f32/f16/bf16 converted to f32 for host kernels, the rotary rotation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

#include "ops/host_clones.h"
#include "registry/dsl.h"
#include "registry/error.h"
#include "registry/launch.h"
#include "registry/registry.h"
#include "registry/strings.h"
#include "registry/tensor.h"

namespace asc::contrib {

inline constexpr const char* kDomain = "com.microsoft";

void add_norm(Registry& r);  // SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization
void add_skip_layer_norm(Registry& r);  // SkipLayerNormalization
void add_rotary(Registry& r);           // RotaryEmbedding
void add_gqa(Registry& r);              // GroupQueryAttention

// SimplifiedLayerNormalization's tile kernel, tiling and reference: input 0 X, input 1 scale (may
// be absent: no scale), attributes axis and epsilon, optional output 1 inv_std_var. Shared with
// the fused RMSNorm (ops/fused_norm.cpp).
TilingData rms_norm_tiling(const LaunchContext& ctx);
void rms_norm_kernel(TileBuilder& t);
void rms_norm_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out);

// Two dims that are both known and unequal (unknown dims are taken to agree).
bool dims_differ(const Dim& a, const Dim& b);

// The skip norms' shape checks (SkipLayerNormalization, SkipSimplifiedLayerNormalization): skip has
// the input's shape, and each present input of `params` (input index, name) is [hidden], hidden
// the input's last dim. ShapeError names `op` and the shapes. The input's shape must be known.
void check_skip_shapes(const char* op, const InferContext& c,
                       std::initializer_list<std::pair<size_t, const char*>> params);

// Element i.. i+n of a float buffer (f32, f16, bf16) as f32, and back.
void load_f32(DType dt, const void* base, int64_t i, int64_t n, float* out);
void store_f32(DType dt, void* base, int64_t i, int64_t n, const float* in);

// The rotary rotation of one head vector x[0, head) at one position (ORT's RotaryEmbedding):
// the first `rot` elements rotate by the angle pairs (cos[k], sin[k]), k < rot / 2; the rest pass
// through. Non-interleaved pairs are (x[k], x[k + rot/2]); interleaved pairs are (x[2k], x[2k+1]):
//   (a, b) -> (a cos - b sin, b cos + a sin).
// y may alias x.
void rotate(const float* x, const float* cos, const float* sin, int64_t rot, int64_t head,
            bool interleaved, float* y);

// Same in double for the references (y must not alias x).
void rotate_ref(const double* x, const double* cos, const double* sin, int64_t rot, int64_t head,
                bool interleaved, double* y);

// ---- GroupQueryAttention (contrib_gqa.cpp: schema, inference, reference; contrib_gqa_kernel.cpp:
// the flash kernel) ----------------------------------------------------------------------------
// Inputs: 0 query [B, S, N*H] (or packed QKV [B, S, (N + 2K) * H] when key and value are absent),
// 1 key, 2 value [B, S, K*H], 3 past_key, 4 past_value [B, K, P, H] (BNSH), 5 seqlens_k i32 [B],
// 6 total_sequence_length i32 (one element), 7 cos_cache, 8 sin_cache [max_pos, R/2].
// Outputs: 0 output [B, S, N*H], 1 present_key, 2 present_value [B, K, T, H] with
// T = max(total_sequence_length, P).
struct GqaGeom {
  int64_t batch = 0, seq = 0, heads = 0, kv_heads = 0, head = 0;
  int64_t past = 0;     // P: rows of past_key (0 when absent)
  int64_t present = 0;  // T
  int64_t total = 0;    // total_sequence_length
  bool packed = false;  // QKV packed in query
  bool rotary = false, interleaved = false;
  int64_t rot = 0, cache_rows = 0;  // rotary dim R and cos/sin rows
  float scale = 0, softcap = 0;
  int64_t window = -1;        // local_window_size; <= 0: none
  bool smooth = false;        // smooth_softmax: one more key with score 0 and value 0
  bool first_prompt = false;  // S == total_sequence_length: no past is read

  int64_t group() const { return heads / kv_heads; }
  // Element offsets of token (b, s), head h, in query / key / value inputs.
  int64_t q_at(int64_t b, int64_t s, int64_t h) const;
  int64_t k_at(int64_t b, int64_t s, int64_t kh) const;
  int64_t v_at(int64_t b, int64_t s, int64_t kh) const;
};

// Validates shapes and attributes (ShapeError naming the op and shapes). `shapes` are the 9
// input shapes (absent optional inputs: nullptr).
GqaGeom gqa_geom(const Attrs& a, const std::vector<const Shape*>& shapes, int64_t total);

// Per batch: rows of past read (0 on the first prompt) and the total length seqlens_k[b] + 1;
// ShapeError when they do not fit the past and present buffers or the rotary caches.
struct GqaSpan {
  int64_t past = 0, total = 0;
};
std::vector<GqaSpan> gqa_spans(const GqaGeom& g, const Tensor& seqlens_k);

// Keys [lo, hi) that query token s of a batch attends (the kernel's loop bounds): causal
// (keys <= past + s), capped at the batch's total length, and the local window (the last
// window + 1 causal keys) when set. Empty only for padding tokens of a first prompt.
inline void gqa_keys(const GqaGeom& g, const GqaSpan& sp, int64_t s, int64_t& lo, int64_t& hi) {
  const int64_t causal = sp.past + s + 1;
  hi = std::min(causal, sp.total);
  lo = g.window > 0 ? std::max<int64_t>(0, causal - g.window - 1) : 0;
}

void gqa_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out);

}  // namespace asc::contrib
