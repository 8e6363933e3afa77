// The genai form: the com.microsoft contrib ops onnxruntime-genai's model builder emits for
// Qwen2 on CPU. Shapes: b batch, s sequence, T total (past + s), h hidden, n heads, k kv heads,
// d head_dim.
//
//   seqlens_k [b] i32  = ReduceSum(attention_mask, axis 1) - 1
//   total_seq_len i32  = attention_mask.shape[1]
//   layer 0:   x = SimplifiedLayerNormalization(embed)
//   layer i:   x, residual = SkipSimplifiedLayerNormalization(mlp_out(i-1), residual)
//   attention: q/k/v = MatMul + bias Add [b,s,*]; GroupQueryAttention(q, k, v, past_k, past_v,
//              seqlens_k, total_seq_len, cos_cache, sin_cache) with do_rotary=1 — or, with
//              genai_rotary_in_attention off, RotaryEmbedding(q|k, position_ids, cos, sin) first
//              and do_rotary=0
//   post-attn: x, residual = SkipSimplifiedLayerNormalization(o_proj, residual)
//   mlp:       down(silu(gate(x)) * up(x)), silu as Sigmoid * Mul
//   final:     SkipSimplifiedLayerNormalization(mlp_out, residual) -> lm_head MatMul -> logits
#include <cmath>

#include "models/qwen_builder.h"
#include "models/qwen_internal.h"

namespace asc::models {

namespace {

constexpr const char* kMs = "com.microsoft";

class Genai {
 public:
  Genai(OnnxWriter& w, const QwenOptions& o) : w_(w), o_(o), c_(o.config), t_(o.dtype) {}

  void build() {
    w_.add_opset(kMs, 1);
    qwen::add_io(w_, o_, !o_.genai_rotary_in_attention);
    make_seqlens();
    make_caches();
    const std::string emb = qwen::embedding(w_, o_);
    std::string residual = w_.op("Gather", "/model/embed_tokens/Gather", {emb, "input_ids"});
    std::string x =
        w_.op("SimplifiedLayerNormalization", "/model/layers.0/input_layernorm/LayerNorm",
              {residual, qwen::norm_weight(w_, o_, "model.layers.0.input_layernorm.weight")},
              norm_attrs(), kMs);
    for (int64_t i = 0; i < c_.layers; ++i) {
      const std::string p = str_cat("/model/layers.", i), wp = qwen_layer_prefix(i);
      const std::string attn = attention(p + "/attn", x, i);
      skip_norm(p + "/post_attention_layernorm", attn, residual,
                wp + "post_attention_layernorm.weight", x, residual);
      const std::string mlp_out = mlp(p + "/mlp", x, wp);
      if (i + 1 < c_.layers)
        skip_norm(str_cat("/model/layers.", i + 1, "/input_layernorm"), mlp_out, residual,
                  str_cat(qwen_layer_prefix(i + 1), "input_layernorm.weight"), x, residual);
      else
        skip_norm("/model/layers.final_norm_layernorm", mlp_out, residual, "model.norm.weight", x,
                  residual);
    }
    w_.op_to("MatMul", "/lm_head/MatMul", {x, qwen::lm_head(w_, o_)}, {"logits"});
  }

 private:
  std::vector<Attr> norm_attrs() const {
    return {Attr::i("axis", -1), Attr::f("epsilon", static_cast<float>(c_.rms_eps)),
            Attr::i("stash_type", 1)};
  }

  void make_seqlens() {
    const std::string axes = w_.const_i64("/model/constants/axes_1", {1});
    const std::string one = w_.const_i64("/model/constants/one", {1}, true);
    const std::string sum = w_.op("ReduceSum", "/model/attn_mask_reformat/ReduceSum",
                                  {"attention_mask", axes}, {Attr::i("keepdims", 0)});
    const std::string minus = w_.op("Sub", "/model/attn_mask_reformat/Sub", {sum, one});
    seqlens_k_ = w_.op("Cast", "/model/attn_mask_reformat/Cast_seqlens", {minus},
                       {Attr::i("to", onnx::TensorProto::INT32)});
    const std::string shape = w_.op("Shape", "/model/attn_mask_reformat/Shape", {"attention_mask"});
    const std::string total =
        w_.op("Gather", "/model/attn_mask_reformat/Gather", {shape, one}, {Attr::i("axis", 0)});
    total_len_ = w_.op("Cast", "/model/attn_mask_reformat/Cast_total", {total},
                       {Attr::i("to", onnx::TensorProto::INT32)});
  }

  // cos_cache / sin_cache [max_positions, d/2]: cos/sin(pos * inv_freq), in the model dtype.
  void make_caches() {
    const std::vector<float> inv = qwen::inv_freq(c_);
    const int64_t half = c_.head_dim / 2;
    std::vector<float> cos(static_cast<size_t>(c_.max_positions * half)), sin(cos.size());
    for (int64_t p = 0; p < c_.max_positions; ++p)
      for (int64_t j = 0; j < half; ++j) {
        const double a = static_cast<double>(p) * static_cast<double>(inv[static_cast<size_t>(j)]);
        cos[static_cast<size_t>(p * half + j)] = static_cast<float>(std::cos(a));
        sin[static_cast<size_t>(p * half + j)] = static_cast<float>(std::sin(a));
      }
    cos_ = w_.const_values("cos_cache", t_, {c_.max_positions, half}, cos);
    sin_ = w_.const_values("sin_cache", t_, {c_.max_positions, half}, sin);
  }

  void skip_norm(const std::string& p, const std::string& input, const std::string& skip,
                 const std::string& weight, std::string& out, std::string& sum) {
    const std::string o0 = p + "/output_0", o3 = p + "/output_3";
    w_.op_to("SkipSimplifiedLayerNormalization", p + "/SkipLayerNorm",
             {input, skip, qwen::norm_weight(w_, o_, weight)}, {o0, "", "", o3},
             {Attr::f("epsilon", static_cast<float>(c_.rms_eps))}, kMs);
    out = o0;
    sum = o3;
  }

  std::string proj(const std::string& p, const std::string& x, const std::string& wname, int64_t in,
                   int64_t out, bool with_bias) {
    std::string y =
        w_.op("MatMul", p + "/MatMul", {x, qwen::linear(w_, o_, wname + ".weight", in, out)});
    if (with_bias) y = w_.op("Add", p + "/Add", {y, qwen::bias(w_, o_, wname + ".bias", out)});
    return y;
  }

  std::string attention(const std::string& p, const std::string& x, int64_t i) {
    const std::string wp = qwen_layer_prefix(i);
    const int64_t qd = c_.heads * c_.head_dim, kd = c_.kv_heads * c_.head_dim;
    std::string q = proj(p + "/q_proj", x, wp + "self_attn.q_proj", c_.hidden, qd, true);
    std::string k = proj(p + "/k_proj", x, wp + "self_attn.k_proj", c_.hidden, kd, true);
    const std::string v = proj(p + "/v_proj", x, wp + "self_attn.v_proj", c_.hidden, kd, true);
    const bool rotary_in_attn = o_.genai_rotary_in_attention;
    if (!rotary_in_attn) {
      const std::vector<Attr> rot = {Attr::i("interleaved", 0)};
      q = w_.op("RotaryEmbedding", p + "/q_rotary/RotaryEmbedding", {q, "position_ids", cos_, sin_},
                rot, kMs);
      k = w_.op("RotaryEmbedding", p + "/k_rotary/RotaryEmbedding", {k, "position_ids", cos_, sin_},
                rot, kMs);
    }
    const std::string out = p + "/GroupQueryAttention/output_0";
    w_.op_to(
        "GroupQueryAttention", p + "/GroupQueryAttention",
        {q, k, v, str_cat("past_key_values.", i, ".key"), str_cat("past_key_values.", i, ".value"),
         seqlens_k_, total_len_, rotary_in_attn ? cos_ : "", rotary_in_attn ? sin_ : ""},
        {out, str_cat("present.", i, ".key"), str_cat("present.", i, ".value")},
        {Attr::i("num_heads", c_.heads), Attr::i("kv_num_heads", c_.kv_heads),
         Attr::i("do_rotary", rotary_in_attn ? 1 : 0), Attr::i("rotary_interleaved", 0),
         Attr::i("local_window_size", -1),
         Attr::f("scale", static_cast<float>(1.0 / std::sqrt(static_cast<double>(c_.head_dim))))},
        kMs);
    return proj(p + "/o_proj", out, wp + "self_attn.o_proj", qd, c_.hidden, false);
  }

  std::string mlp(const std::string& p, const std::string& x, const std::string& wp) {
    const std::string gate =
        proj(p + "/gate_proj", x, wp + "mlp.gate_proj", c_.hidden, c_.intermediate, false);
    const std::string sig = w_.op("Sigmoid", p + "/act_fn/Sigmoid", {gate});
    const std::string silu = w_.op("Mul", p + "/act_fn/Mul", {gate, sig});
    const std::string up =
        proj(p + "/up_proj", x, wp + "mlp.up_proj", c_.hidden, c_.intermediate, false);
    const std::string prod = w_.op("Mul", p + "/Mul", {silu, up});
    return proj(p + "/down_proj", prod, wp + "mlp.down_proj", c_.intermediate, c_.hidden, false);
  }

  OnnxWriter& w_;
  const QwenOptions& o_;
  const QwenConfig& c_;
  const ElemType t_;
  std::string seqlens_k_, total_len_, cos_, sin_;
};

}  // namespace

void build_qwen_genai(OnnxWriter& w, const QwenOptions& o) {
  Genai(w, o).build();
}

}  // namespace asc::models
