// Cases of the com.microsoft contrib family: RMS norms in both domains, over trailing dims from an
// axis, with skip/bias and rows long enough to chunk; SkipLayerNormalization; RotaryEmbedding 3-D
// and 4-D, per-token and single start positions, interleaved and partial rotation;
// GroupQueryAttention prompts and decode steps with batch > 1, ragged seqlens, past length 0 and >
// 0, GQA ratios 1/2/7, packed QKV, rotary, local window, softcap, smooth softmax, later prompt
// chunks and query blocks past one work item. f32, f16 and bf16; odd sizes throughout.
#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16, kI32 = DType::kI32;
const DType kI64 = DType::kI64;
const char* kMs = "com.microsoft";

InputSpec i32s(const std::vector<int64_t>& values, Shape shape) {
  Tensor t(kI32, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.set(static_cast<int64_t>(i), values[i]);
  return fixed_tensor(std::move(t));
}

OpCase ms(OpCase c) {
  c.domain = kMs;
  return c;
}

void add_norms(std::vector<OpCase>& v) {
  for (const char* domain : {"", "com.microsoft"}) {
    auto simplified = [&](DType dt, Shape x, Shape scale, Attrs a, std::string label) {
      OpCase c{"SimplifiedLayerNormalization", 1, {in(dt, x), in(dt, scale, 0.5, 1.5)}, a, label};
      c.domain = domain;
      v.push_back(c);
    };
    simplified(kF32, {2, 5, 7}, {7}, {{"epsilon", 1e-6f}}, "");
    simplified(kF32, {3, 896}, {896}, {}, "qwen");
    simplified(kF32, {4, 3, 6}, {3, 6}, {{"axis", int64_t{1}}}, "axis1");
    simplified(kF32, {5, 1}, {1}, {}, "row1");
    simplified(kF16, {3, 33}, {33}, {}, "");
    simplified(kBF16, {2, 2, 65}, {65}, {{"axis", int64_t{-1}}}, "");
  }
  v.push_back(
      {"SimplifiedLayerNormalization", 1, {in(kF32, {3, 9001}), in(kF32, {9001})}, {}, "long_row"});
  auto skip = [&](DType dt, Shape x, bool bias, std::string label) {
    const Shape h = {x.back()};
    std::vector<InputSpec> ins = {in(dt, x), in(dt, x), in(dt, h, 0.5, 1.5)};
    if (bias) ins.push_back(in(dt, h, -0.5, 0.5));
    v.push_back(ms({"SkipSimplifiedLayerNormalization", 1, ins, {{"epsilon", 1e-6f}}, label}));
  };
  skip(kF32, {2, 3, 16}, true, "bias");
  skip(kF32, {5, 33}, false, "");
  skip(kF32, {1, 1, 896}, true, "decode");
  skip(kF32, {2, 4100}, true, "long_row");
  skip(kF16, {3, 2, 24}, true, "");
  skip(kBF16, {7, 40}, false, "");

  // SkipLayerNormalization: every optional input and output, 1-D to 4-D, rows long enough to
  // chunk, f16 / bf16, the default epsilon.
  auto skip_ln = [&](DType dt, Shape x, bool beta, bool bias, size_t outputs, Attrs a,
                     std::string label) {
    const Shape h = {x.back()};
    std::vector<InputSpec> ins = {in(dt, x), in(dt, x), in(dt, h, 0.5, 1.5)};
    ins.push_back(beta ? in(dt, h, -0.5, 0.5) : absent());
    if (bias) ins.push_back(in(dt, h, -0.5, 0.5));
    OpCase c = ms({"SkipLayerNormalization", 1, ins, a, label});
    c.num_outputs = outputs;
    v.push_back(c);
  };
  skip_ln(kF32, {2, 3, 16}, true, true, 4, {{"epsilon", 1e-5f}}, "all");
  skip_ln(kF32, {5, 33}, false, false, 1, {}, "plain");
  skip_ln(kF32, {1, 197, 768}, true, false, 4, {{"epsilon", 1e-6f}}, "vit");
  skip_ln(kF32, {2, 5000}, true, true, 4, {}, "long_row");
  skip_ln(kF32, {7}, true, true, 3, {}, "rank1");
  skip_ln(kF32, {2, 3, 4, 9}, false, true, 2, {}, "rank4");
  skip_ln(kF32, {0, 8}, true, true, 4, {}, "empty");
  skip_ln(kF16, {3, 2, 24}, true, true, 4, {}, "");
  skip_ln(kBF16, {7, 40}, true, false, 1, {}, "");
}

// RMSNormalization-23 (ai.onnx): the scale's dtype is Y's (f16 scale on f32 X too).
void add_rms_normalization(std::vector<OpCase>& v) {
  auto rms = [&](DType xt, DType st, Shape x, Shape scale, Attrs a, std::string label) {
    v.push_back({"RMSNormalization", 23, {in(xt, x), in(st, scale, 0.5, 1.5)}, a, label});
  };
  rms(kF32, kF32, {2, 5, 7}, {7}, {{"epsilon", 1e-6f}}, "");
  rms(kF32, kF32, {4, 3, 6}, {3, 6}, {{"axis", int64_t{-2}}}, "axis-2");
  rms(kF32, kF32, {3, 2, 5}, {1, 5}, {}, "scale_lead1");
  rms(kF32, kF32, {2, 4100}, {4100}, {}, "long_row");
  rms(DType::kF64, DType::kF64, {3, 9}, {9}, {}, "");
  rms(kF16, kF16, {3, 33}, {33}, {}, "");
  rms(kF32, kF16, {2, 17}, {17}, {}, "f16_scale");
  rms(kBF16, kF32, {2, 2, 65}, {65}, {}, "bf16_x");
}

// RotaryEmbedding-23 (ai.onnx): X, cos_cache, sin_cache, position_ids (optional: caches per
// token); 3-D X with num_heads, 4-D [B, N, S, H]; partial rotation.
void add_rotary23(std::vector<OpCase>& v) {
  auto rope = [&](DType dt, Shape x, Shape cache, InputSpec pos, Attrs a, std::string label) {
    std::vector<InputSpec> ins = {in(dt, x), in(dt, cache, -1, 1), in(dt, cache, -1, 1)};
    if (pos.dtype != DType::kUndefined) ins.push_back(pos);
    v.push_back({"RotaryEmbedding", 23, ins, a, label});
  };
  rope(kF32, {2, 3, 5, 8}, {10, 4}, in_int(kI64, {2, 5}, 0, 9), {}, "bnsh");
  rope(kF32, {2, 3, 5, 8}, {10, 4}, in_int(kI64, {2, 5}, 0, 9), {{"interleaved", int64_t{1}}},
       "bnsh_interleaved");
  rope(kF32, {2, 4, 24}, {2, 4, 4}, absent(), {{"num_heads", int64_t{3}}}, "bsd_per_token");
  rope(kF32, {1, 3, 2, 10}, {1, 2, 3}, absent(), {{"rotary_embedding_dim", int64_t{6}}},
       "partial_per_token");
  rope(kF32, {2, 3, 30}, {7, 2}, in_int(kI64, {2, 3}, 0, 6),
       {{"num_heads", int64_t{3}},
        {"rotary_embedding_dim", int64_t{4}},
        {"interleaved", int64_t{1}}},
       "partial_interleaved");
  rope(kF16, {1, 2, 3, 16}, {4, 8}, in_int(kI64, {1, 3}, 0, 3), {}, "");
  rope(kBF16, {2, 3, 16}, {2, 3, 8}, absent(), {{"num_heads", int64_t{1}}}, "");
}

void add_rotary(std::vector<OpCase>& v) {
  auto rope = [&](DType dt, Shape x, InputSpec pos, Shape cache, Attrs a, std::string label) {
    v.push_back(ms({"RotaryEmbedding",
                    1,
                    {in(dt, x), pos, in(dt, cache, -1, 1), in(dt, cache, -1, 1)},
                    a,
                    label}));
  };
  // 3-D, head = 2 * cache width (8), 4 heads; per-token positions.
  rope(kF32, {2, 3, 32}, in_int(kI64, {2, 3}, 0, 15), {16, 4}, {}, "");
  rope(kF32, {2, 3, 32}, in_int(kI64, {2, 3}, 0, 15), {16, 4}, {{"interleaved", int64_t{1}}},
       "interleaved");
  // One start position for every batch.
  rope(kF32, {3, 5, 24}, fixed_i64({4}), {9, 6}, {}, "start4");
  // 4-D [B, N, S, H] with odd sequence and heads.
  rope(kF32, {2, 3, 5, 10}, in_int(kI64, {2, 5}, 0, 6), {7, 5}, {}, "bnsh");
  // Partial rotation: rotary dim 4 of head 10 (num_heads 3); the rest passes through.
  rope(kF32, {1, 2, 30}, in_int(kI64, {1, 2}, 0, 4), {5, 2},
       {{"num_heads", int64_t{3}}, {"rotary_embedding_dim", int64_t{4}}}, "partial");
  rope(kF32, {1, 2, 30}, in_int(kI64, {1, 2}, 0, 4), {5, 2},
       {{"num_heads", int64_t{3}},
        {"rotary_embedding_dim", int64_t{4}},
        {"interleaved", int64_t{1}}},
       "partial_interleaved");
  rope(kF16, {2, 3, 32}, in_int(kI64, {2, 3}, 0, 15), {16, 4}, {}, "");
  rope(kBF16, {1, 2, 4, 16}, in_int(kI64, {1, 4}, 0, 7), {8, 8}, {{"interleaved", int64_t{1}}}, "");
}

// A GroupQueryAttention case: batch B, new tokens S, heads N / kv heads K, head size H, past
// buffer rows P (0: absent), per-batch seqlens_k and total_sequence_length.
struct Gqa {
  DType dt = kF32;
  int64_t B = 1, S = 1, N = 1, K = 1, H = 8, P = 0;
  std::vector<int64_t> seqlens;
  int64_t total = 1;
  bool packed = false;
  int64_t rotary_rows = 0;  // > 0: cos/sin caches [rows, H/2] and do_rotary
  Attrs attrs;
  std::string label;

  OpCase make() const {
    std::vector<InputSpec> ins;
    if (packed) {
      ins = {in(dt, {B, S, (N + 2 * K) * H}), absent(), absent()};
    } else {
      ins = {in(dt, {B, S, N * H}), in(dt, {B, S, K * H}), in(dt, {B, S, K * H})};
    }
    if (P > 0) {
      ins.push_back(in(dt, {B, K, P, H}));
      ins.push_back(in(dt, {B, K, P, H}));
    } else {
      ins.push_back(absent());
      ins.push_back(absent());
    }
    ins.push_back(i32s(seqlens, {B}));
    ins.push_back(i32s({total}, {}));
    Attrs a = attrs;
    a.set("num_heads", N);
    a.set("kv_num_heads", K);
    if (rotary_rows > 0) {
      ins.push_back(in(dt, {rotary_rows, H / 2}, -1, 1));
      ins.push_back(in(dt, {rotary_rows, H / 2}, -1, 1));
      a.set("do_rotary", int64_t{1});
    }
    return ms({"GroupQueryAttention", 1, ins, a, label});
  }
};

void add_gqa(std::vector<OpCase>& v) {
  auto add = [&](Gqa g) { v.push_back(g.make()); };
  // First prompt, no past, ratio 2, batch 2 (one sequence right-padded: seqlens 2 < S - 1).
  add({kF32, 2, 5, 4, 2, 16, 0, {4, 2}, 5, false, 0, {}, "prompt"});
  // Decode, ratio 7, batch 2 with ragged lengths in a past buffer of 6 rows.
  add({kF32, 2, 1, 7, 1, 16, 6, {6, 3}, 7, false, 0, {}, "decode_ratio7"});
  // Decode, ratio 1, odd head size, past buffer longer than the total (present keeps P rows).
  add({kF32, 2, 1, 3, 3, 5, 12, {9, 10}, 11, false, 0, {}, "decode_ratio1"});
  // Decode with past length 0 (first token).
  add({kF32, 3, 1, 2, 1, 8, 0, {0, 0, 0}, 1, false, 0, {}, "first_token"});
  // Rotary, plain and interleaved, prompt and decode.
  add({kF32, 2, 3, 4, 2, 16, 0, {2, 2}, 3, false, 8, {}, "prompt_rotary"});
  add({kF32,
       2,
       1,
       4,
       2,
       16,
       5,
       {5, 2},
       6,
       false,
       8,
       {{"rotary_interleaved", int64_t{1}}},
       "decode_rotary_interleaved"});
  // Packed QKV.
  add({kF32, 1, 3, 2, 1, 8, 0, {2}, 3, true, 0, {}, "packed"});
  add({kF32, 2, 1, 2, 2, 8, 4, {4, 1}, 5, true, 6, {}, "packed_decode_rotary"});
  // Local window and softcap, custom scale.
  add({kF32,
       1,
       6,
       2,
       1,
       8,
       0,
       {5},
       6,
       false,
       0,
       {{"local_window_size", int64_t{2}}, {"softcap", 3.0f}, {"scale", 0.7f}},
       "window_softcap"});
  add({kF32,
       1,
       1,
       2,
       1,
       8,
       9,
       {9},
       10,
       false,
       0,
       {{"local_window_size", int64_t{3}}},
       "decode_window"});
  add({kF32, 2, 4, 4, 2, 8, 0, {3, 1}, 4, false, 0, {{"smooth_softmax", int64_t{1}}}, "smooth"});
  add({kF32,
       1,
       1,
       4,
       2,
       8,
       70,
       {70},
       71,
       false,
       0,
       {{"smooth_softmax", int64_t{1}}},
       "smooth_decode"});
  // A later prompt chunk (batch 1): 3 new tokens after 4 past ones.
  add({kF32, 1, 3, 4, 2, 8, 4, {6}, 7, false, 8, {}, "chunk"});
  // Long prompt: several query blocks per KV head (present built in a pass of its own), keys in
  // several tiles.
  add({kF32, 1, 70, 2, 1, 8, 0, {69}, 70, false, 0, {}, "long_prompt"});
  add({kF32, 1, 1, 14, 2, 16, 150, {150}, 151, false, 0, {}, "decode_long_past"});
  // Head sizes through every vector path of the kernel: 64 (two 32-wide accumulator groups, the
  // Qwen2.5 shape), 44 (a 32 group, an 8 chunk and a scalar tail).
  add({kF32, 1, 1, 14, 2, 64, 100, {100}, 101, false, 0, {}, "qwen_decode"});
  add({kF32, 1, 2, 2, 1, 44, 9, {10}, 11, false, 0, {}, "chunk_h44"});
  // f16 / bf16.
  add({kF16, 2, 1, 4, 2, 16, 5, {5, 3}, 6, false, 8, {}, "decode"});
  add({kBF16, 1, 4, 2, 1, 16, 0, {3}, 4, false, 0, {}, "prompt"});
}

}  // namespace

std::vector<OpCase> cases_contrib() {
  std::vector<OpCase> v;
  add_norms(v);
  add_rotary(v);
  add_rotary23(v);
  add_rms_normalization(v);
  add_gqa(v);
  return v;
}

}  // namespace asc::test
