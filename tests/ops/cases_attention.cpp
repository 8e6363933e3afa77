// Cases of FusedAttention (ai.asc): prompts and decode steps, past length 0 (absent) and odd,
// GQA ratios 1, 2 and 7, key counts around the key-block size (tails), rows past one tile, odd
// head sizes; masks broadcast [B,1,S,T], per head [B,N,S,T], 2-D [S,T] and none, with -inf and
// lowest-finite entries and fully masked rows; token-major output; f32, f16 and bf16. And the
// cases of Attention-23 (add_attention23).
#include <limits>
#include <random>

#include "ops/op_cases.h"
#include "registry/strings.h"

namespace asc::test {
namespace {

const DType kF32 = DType::kF32, kF16 = DType::kF16, kBF16 = DType::kBF16;

enum class Mask { kNone, kBroadcast, kPerHead, kTwoD };

struct Attn {
  DType dt = kF32;
  int64_t B = 1, N = 1, K = 1, S = 1, D = 8, P = 0;
  bool past = true;  // past inputs given (with P rows, possibly 0)
  Mask mask = Mask::kBroadcast;
  bool transpose = false;
  float scale = 0.f;
  std::string label;

  // Causal (key j visible to token i when j <= P + i), a few random keys blocked, token 0 of
  // batch 0 (every head) fully blocked by -inf and the last token's key 0 blocked by the lowest
  // finite value of the dtype.
  Tensor make_mask() const {
    const int64_t T = P + S;
    const int64_t mb = mask == Mask::kTwoD ? 1 : B, mh = mask == Mask::kPerHead ? N : 1;
    Tensor m(dt, mask == Mask::kTwoD ? Shape{S, T} : Shape{mb, mh, S, T});
    std::mt19937_64 rng(static_cast<uint64_t>(B * 131 + N * 31 + S * 7 + P));
    const double inf = std::numeric_limits<double>::infinity();
    const double lowest = dt == kF16 ? -65504.0 : std::numeric_limits<float>::lowest();
    int64_t at = 0;
    for (int64_t b = 0; b < mb; ++b)
      for (int64_t h = 0; h < mh; ++h)
        for (int64_t i = 0; i < S; ++i)
          for (int64_t j = 0; j < T; ++j, ++at) {
            double v = j > P + i ? -inf : 0.0;
            if (rng() % 7 == 0) v = -inf;
            if (b == 0 && i == 0 && S > 1) v = -inf;
            if (i == S - 1 && j == 0) v = lowest;
            if (v == 0.0 && rng() % 3 == 0) v = static_cast<double>(rng() % 5) * -0.5;
            m.set(at, v);
          }
    return m;
  }

  OpCase make() const {
    std::vector<InputSpec> ins = {in(dt, {B, N, S, D}), in(dt, {B, K, S, D}), in(dt, {B, K, S, D})};
    if (past) {
      ins.push_back(in(dt, {B, K, P, D}));
      ins.push_back(in(dt, {B, K, P, D}));
    } else {
      ins.push_back(absent());
      ins.push_back(absent());
    }
    ins.push_back(mask == Mask::kNone ? absent() : fixed_tensor(make_mask()));
    Attrs a;
    if (transpose) a.set("transpose_output", int64_t{1});
    if (scale != 0.f) a.set("scale", scale);
    a.set("num_heads", N);
    OpCase c{"FusedAttention", 1, ins, a, label};
    c.domain = "ai.asc";
    return c;
  }
};

}  // namespace

// A bool mask of `shape` [.., S, T]: key j hidden from query i when (i + 2 j) % 3 == 0, except key
// 0 (no row fully masked), or, with `empty_row`, every key of query 0.
InputSpec bool_mask(const Shape& shape, bool empty_row = false) {
  Tensor m(DType::kBool, shape);
  const int64_t t = shape.back(), s = shape[shape.size() - 2];
  for (int64_t e = 0; e < m.numel(); ++e) {
    const int64_t j = e % t, i = (e / t) % s;
    m.set(e, (empty_row && i == 0) ? 0.0 : (j == 0 || (i + 2 * j) % 3 != 0) ? 1.0 : 0.0);
  }
  return fixed_tensor(std::move(m));
}

// Attention-23 (ai.onnx): 4-D and 3-D layouts, MHA / GQA / MQA, cross attention with another
// value head size, past caches with causal masking, bool and float masks of every rank, softcap,
// scale, each qk_matmul_output mode, a fully masked row; f64 and f16.
void add_attention23(std::vector<OpCase>& v) {
  auto attn = [&](std::vector<InputSpec> ins, Attrs a, std::string label) {
    v.push_back({"Attention", 23, std::move(ins), std::move(a), std::move(label)});
  };
  attn({in(kF32, {2, 3, 4, 8}), in(kF32, {2, 3, 6, 8}), in(kF32, {2, 3, 6, 5})}, {}, "cross");
  attn({in(kF32, {1, 4, 3, 8}), in(kF32, {1, 2, 3, 8}), in(kF32, {1, 2, 3, 8}), absent(),
        in(kF32, {1, 2, 5, 8}), in(kF32, {1, 2, 5, 8})},
       {{"is_causal", int64_t{1}}}, "gqa_past_causal");
  attn({in(kF32, {2, 3, 4 * 6}), in(kF32, {2, 5, 2 * 6}), in(kF32, {2, 5, 2 * 4}),
        bool_mask({3, 5})},
       {{"q_num_heads", int64_t{4}}, {"kv_num_heads", int64_t{2}}, {"softcap", 2.0f}},
       "3d_bool2d_softcap");
  attn({in(kF32, {2, 4, 3, 8}), in(kF32, {2, 1, 3, 8}), in(kF32, {2, 1, 3, 8}),
        in(kF32, {2, 1, 3, 7}, -2, 0), in(kF32, {2, 1, 4, 8}), in(kF32, {2, 1, 4, 8})},
       {{"scale", 0.5f}, {"is_causal", int64_t{1}}}, "mqa_floatmask_past");
  for (int64_t mode : {0, 1, 2, 3})
    attn({in(kF32, {1, 2, 3, 4}), in(kF32, {1, 2, 5, 4}), in(kF32, {1, 2, 5, 4}),
          bool_mask({1, 2, 3, 5})},
         {{"qk_matmul_output_mode", mode}, {"softcap", 1.5f}}, cat("qk_mode", mode));
  attn({in(kF32, {1, 2, 3, 4}), in(kF32, {1, 2, 4, 4}), in(kF32, {1, 2, 4, 4}),
        bool_mask({3, 4}, true)},
       {}, "masked_row");
  attn(
      {in(DType::kF64, {1, 2, 2, 6}), in(DType::kF64, {1, 2, 3, 6}), in(DType::kF64, {1, 2, 3, 6})},
      {{"is_causal", int64_t{1}}}, "f64");
  attn({in(kF16, {2, 2, 3, 8}), in(kF16, {2, 2, 3, 8}), in(kF16, {2, 2, 3, 8})}, {}, "f16");
}

std::vector<OpCase> cases_attention() {
  std::vector<OpCase> v;
  add_attention23(v);
  auto add = [&](Attn a) { v.push_back(a.make()); };
  // Decode steps: Qwen2.5-0.5B's heads (14 / 2, head 64), past 100 and past 130 (> a key block).
  add({kF32, 1, 14, 2, 1, 64, 100, true, Mask::kBroadcast, false, 0.f, "qwen_decode"});
  add({kF32, 1, 14, 2, 1, 64, 130, true, Mask::kBroadcast, true, 0.f, "qwen_decode_bsnd"});
  // The first prompt: past of 0 rows, and no past inputs at all.
  add({kF32, 2, 4, 2, 5, 16, 0, true, Mask::kBroadcast, false, 0.f, "prompt_past0"});
  add({kF32, 1, 4, 2, 3, 16, 0, false, Mask::kNone, false, 0.f, "prompt_nopast_nomask"});
  // A later chunk with odd sizes everywhere, GQA ratio 1, per-head mask, odd head size.
  add({kF32, 2, 3, 3, 7, 5, 6, true, Mask::kPerHead, false, 0.f, "chunk_ratio1"});
  // 2-D mask, custom scale, token-major output.
  add({kF32, 1, 6, 2, 4, 12, 9, true, Mask::kTwoD, true, 0.3f, "mask2d_scale"});
  // Long prompt: rows past one tile, keys in several blocks with a tail.
  add({kF32, 1, 2, 1, 150, 8, 0, true, Mask::kBroadcast, false, 0.f, "long_prompt"});
  add({kF32, 1, 14, 2, 33, 64, 70, true, Mask::kBroadcast, true, 0.f, "qwen_chunk"});
  // No mask with a past (every key visible), decode with ratio 7.
  add({kF32, 2, 7, 1, 1, 16, 67, true, Mask::kNone, false, 0.f, "decode_nomask"});
  // f16 / bf16.
  add({kF16, 1, 4, 2, 1, 32, 21, true, Mask::kBroadcast, false, 0.f, "decode"});
  add({kF16, 2, 2, 1, 6, 16, 3, true, Mask::kPerHead, true, 0.f, "chunk"});
  add({kBF16, 1, 4, 2, 5, 16, 0, true, Mask::kBroadcast, false, 0.f, "prompt"});
  add({kBF16, 1, 14, 2, 1, 64, 40, true, Mask::kBroadcast, true, 0.f, "decode"});
  // Whole 16 x 16 fractals everywhere (query rows, key blocks, head size): the 910B's cube takes
  // these without padding, P x V included (a vector result the cube loads: docs/ASCENDC.md).
  add({kF16, 1, 8, 2, 16, 16, 16, true, Mask::kBroadcast, false, 0.f, "fractal"});
  add({kF32, 1, 4, 1, 16, 32, 32, true, Mask::kBroadcast, false, 0.f, "fractal"});
  return v;
}

}  // namespace asc::test
