// The optimum form: standard ONNX ops, spelled the way torch.onnx exports of Hugging Face's
// Qwen2 spell them. Shapes in comments: b batch, s sequence, p past, T = p + s, h hidden,
// n heads, k kv heads, d head_dim, r = n / k.
#include <cmath>
#include <limits>
#include <set>

#include "models/qwen_builder.h"
#include "models/qwen_internal.h"

namespace asc::models {

namespace {

class Optimum {
 public:
  Optimum(OnnxWriter& w, const QwenOptions& o) : w_(w), o_(o), c_(o.config), t_(o.dtype) {}

  void build() {
    qwen::add_io(w_, o_, true);
    const std::string emb = qwen::embedding(w_, o_);
    std::string h = w_.op("Gather", "/model/embed_tokens/Gather", {emb, "input_ids"});  // [b,s,h]
    make_mask();
    make_rope();
    for (int64_t i = 0; i < c_.layers; ++i) h = layer(h, i);
    const std::string x =
        rms_norm("/model/norm", h, qwen::norm_weight(w_, o_, "model.norm.weight"));
    w_.op_to("MatMul", "/lm_head/MatMul", {x, qwen::lm_head(w_, o_)}, {"logits"});
  }

 private:
  // A shared int64 constant "/model/constants/NAME" (made on first use).
  std::string i64(const std::string& name, std::vector<int64_t> v, bool scalar = false) {
    const std::string full = str_cat("/model/constants/", name);
    if (consts_.insert(full).second) w_.const_i64(full, v, scalar);
    return full;
  }

  // Casts f32 -> the model dtype (no node for f32).
  std::string to_dtype(const std::string& name, const std::string& x) {
    if (t_ == ElemType::kF32) return x;
    return w_.op("Cast", name, {x}, {Attr::i("to", elem_onnx(t_))});
  }

  // mask [b,1,s,T]: 0 where query i (absolute position p + i) may see key j (j <= p + i and
  // attention_mask[b, j] != 0), a large negative finite value elsewhere (one that adding a score
  // cannot round to -inf: a fully masked row must not become NaN).
  void make_mask() {
    const std::string ids_shape = w_.op("Shape", "/model/Shape", {"input_ids"});
    const std::string seq = w_.op("Gather", "/model/Gather_seq", {ids_shape, i64("one", {1}, true)},
                                  {Attr::i("axis", 0)});
    const std::string mask_shape = w_.op("Shape", "/model/Shape_mask", {"attention_mask"});
    const std::string total = w_.op("Gather", "/model/Gather_total",
                                    {mask_shape, "/model/constants/one"}, {Attr::i("axis", 0)});
    const std::string past = w_.op("Sub", "/model/Sub_past", {total, seq});
    const std::string zero = i64("zero", {0}, true);
    const std::string kpos =
        w_.op("Range", "/model/Range_key", {zero, total, "/model/constants/one"});
    const std::string qpos =
        w_.op("Range", "/model/Range_query", {past, total, "/model/constants/one"});
    const std::string qcol =
        w_.op("Unsqueeze", "/model/Unsqueeze_query", {qpos, i64("axes_1", {1})});
    const std::string future = w_.op("Greater", "/model/Greater_causal", {kpos, qcol});    // [s,T]
    const std::string pad = w_.op("Equal", "/model/Equal_pad", {"attention_mask", zero});  // [b,T]
    const std::string pad4 =
        w_.op("Unsqueeze", "/model/Unsqueeze_pad", {pad, i64("axes_1_2", {1, 2})});
    const std::string blocked = w_.op("Or", "/model/Or_mask", {future, pad4});  // [b,1,s,T]
    // bf16's lowest finite value (-3.39e38, exact in f32 too, so a runtime that stores this f32
    // model's constants in bf16 keeps it finite); for f16 half its lowest.
    float lowest = bf16_to_f32(0xff7fu);
    if (t_ == ElemType::kF16) lowest = -32752.0f;
    const std::string min_v = w_.const_scalar("/model/constants/mask_min", t_, lowest);
    const std::string zero_v = w_.const_scalar("/model/constants/mask_zero", t_, 0.0f);
    mask_ = w_.op("Where", "/model/Where_mask", {blocked, min_v, zero_v});
  }

  // cos_, sin_ [b,1,s,d] from position_ids: emb = concat(pos * inv_freq, pos * inv_freq).
  void make_rope() {
    const std::string inv = w_.const_values("/model/rotary_emb/inv_freq", ElemType::kF32,
                                            {c_.head_dim / 2}, qwen::inv_freq(c_));
    const std::string pos = w_.op("Cast", "/model/rotary_emb/Cast", {"position_ids"},
                                  {Attr::i("to", onnx::TensorProto::FLOAT)});
    const std::string pos3 =
        w_.op("Unsqueeze", "/model/rotary_emb/Unsqueeze", {pos, i64("axes_2", {2})});
    const std::string freqs = w_.op("Mul", "/model/rotary_emb/Mul", {pos3, inv});  // [b,s,d/2]
    const std::string emb =
        w_.op("Concat", "/model/rotary_emb/Concat", {freqs, freqs}, {Attr::i("axis", -1)});
    const std::string cos =
        to_dtype("/model/rotary_emb/Cast_cos", w_.op("Cos", "/model/rotary_emb/Cos", {emb}));
    const std::string sin =
        to_dtype("/model/rotary_emb/Cast_sin", w_.op("Sin", "/model/rotary_emb/Sin", {emb}));
    cos_ = w_.op("Unsqueeze", "/model/rotary_emb/Unsqueeze_cos", {cos, "/model/constants/axes_1"});
    sin_ = w_.op("Unsqueeze", "/model/rotary_emb/Unsqueeze_sin", {sin, "/model/constants/axes_1"});
    const int64_t half = c_.head_dim / 2;
    i64("half_start", {0});
    i64("half_end", {half});
    i64("half_end2", {std::numeric_limits<int64_t>::max()});
    i64("last_axis", {-1});
  }

  // x * cos + rotate_half(x) * sin, rotate_half(x) = concat(-x[..., d/2:], x[..., :d/2]).
  std::string rope(const std::string& p, const std::string& x) {
    const std::string x1 = w_.op("Slice", p + "/Slice",
                                 {x, "/model/constants/half_start", "/model/constants/half_end",
                                  "/model/constants/last_axis"});
    const std::string x2 = w_.op("Slice", p + "/Slice_1",
                                 {x, "/model/constants/half_end", "/model/constants/half_end2",
                                  "/model/constants/last_axis"});
    const std::string neg = w_.op("Neg", p + "/Neg", {x2});
    const std::string rot = w_.op("Concat", p + "/Concat", {neg, x1}, {Attr::i("axis", -1)});
    const std::string a = w_.op("Mul", p + "/Mul", {x, cos_});
    const std::string b = w_.op("Mul", p + "/Mul_1", {rot, sin_});
    return w_.op("Add", p + "/Add", {a, b});
  }

  // Qwen2RMSNorm: in f32 (Cast around it for f16/bf16), x / sqrt(mean(x^2) + eps) * weight.
  std::string rms_norm(const std::string& p, const std::string& x, const std::string& weight) {
    std::string xf = x;
    if (t_ != ElemType::kF32)
      xf = w_.op("Cast", p + "/Cast", {x}, {Attr::i("to", onnx::TensorProto::FLOAT)});
    if (!have_norm_consts_) {
      w_.const_scalar("/model/constants/two", ElemType::kF32, 2.0f);
      w_.const_scalar("/model/constants/eps", ElemType::kF32, static_cast<float>(c_.rms_eps));
      have_norm_consts_ = true;
    }
    const std::string sq = w_.op("Pow", p + "/Pow", {xf, "/model/constants/two"});
    const std::string mean = w_.op("ReduceMean", p + "/ReduceMean", {sq},
                                   {Attr::ints("axes", {-1}), Attr::i("keepdims", 1)});
    const std::string var = w_.op("Add", p + "/Add", {mean, "/model/constants/eps"});
    const std::string root = w_.op("Sqrt", p + "/Sqrt", {var});
    const std::string normed = w_.op("Div", p + "/Div", {xf, root});
    return w_.op("Mul", p + "/Mul", {weight, to_dtype(p + "/Cast_1", normed)});
  }

  // x [b,s,h] @ W [in,out] (+ bias)
  std::string proj(const std::string& p, const std::string& x, const std::string& wname, int64_t in,
                   int64_t out, bool with_bias) {
    std::string y =
        w_.op("MatMul", p + "/MatMul", {x, qwen::linear(w_, o_, wname + ".weight", in, out)});
    if (with_bias) y = w_.op("Add", p + "/Add", {qwen::bias(w_, o_, wname + ".bias", out), y});
    return y;
  }

  // [b,s,heads*d] -> [b,heads,s,d]
  std::string to_heads(const std::string& p, const std::string& x, int64_t heads) {
    const std::string shape = i64(str_cat("heads_shape_", heads), {0, 0, heads, c_.head_dim});
    const std::string r = w_.op("Reshape", p + "/Reshape", {x, shape});
    return w_.op("Transpose", p + "/Transpose", {r}, {Attr::ints("perm", {0, 2, 1, 3})});
  }

  // [b,k,T,d] -> [b,n,T,d]: Unsqueeze, Expand by r, Reshape (repeat_kv).
  std::string repeat_kv(const std::string& p, const std::string& x) {
    const int64_t r = c_.heads / c_.kv_heads;
    if (r == 1) return x;
    const std::string u = w_.op("Unsqueeze", p + "/Unsqueeze", {x, i64("axes_2", {2})});
    const std::string e = w_.op("Expand", p + "/Expand", {u, i64("repeat_shape", {1, 1, r, 1, 1})});
    return w_.op("Reshape", p + "/Reshape", {e, i64("rep_shape", {0, c_.heads, -1, c_.head_dim})});
  }

  std::string layer(const std::string& h, int64_t i) {
    const std::string p = str_cat("/model/layers.", i);
    const std::string wp = qwen_layer_prefix(i);
    const std::string a = p + "/self_attn";
    const int64_t qd = c_.heads * c_.head_dim, kd = c_.kv_heads * c_.head_dim;

    const std::string x = rms_norm(p + "/input_layernorm", h,
                                   qwen::norm_weight(w_, o_, wp + "input_layernorm.weight"));
    std::string q = proj(a + "/q_proj", x, wp + "self_attn.q_proj", c_.hidden, qd, true);
    std::string k = proj(a + "/k_proj", x, wp + "self_attn.k_proj", c_.hidden, kd, true);
    std::string v = proj(a + "/v_proj", x, wp + "self_attn.v_proj", c_.hidden, kd, true);
    q = rope(a + "/rotary_q", to_heads(a + "/q", q, c_.heads));
    k = rope(a + "/rotary_k", to_heads(a + "/k", k, c_.kv_heads));
    v = to_heads(a + "/v", v, c_.kv_heads);

    const std::string n = std::to_string(i);
    const std::string pk = str_cat("present.", n, ".key"), pv = str_cat("present.", n, ".value");
    w_.op_to("Concat", a + "/Concat_k", {str_cat("past_key_values.", n, ".key"), k}, {pk},
             {Attr::i("axis", 2)});
    w_.op_to("Concat", a + "/Concat_v", {str_cat("past_key_values.", n, ".value"), v}, {pv},
             {Attr::i("axis", 2)});
    const std::string kr = repeat_kv(a + "/repeat_k", pk), vr = repeat_kv(a + "/repeat_v", pv);

    const std::string kt =
        w_.op("Transpose", a + "/Transpose_kt", {kr}, {Attr::ints("perm", {0, 1, 3, 2})});
    const std::string scores = w_.op("MatMul", a + "/MatMul_qk", {q, kt});  // [b,n,s,T]
    if (scale_.empty())
      scale_ =
          w_.const_scalar("/model/constants/attn_scale", t_,
                          static_cast<float>(1.0 / std::sqrt(static_cast<double>(c_.head_dim))));
    const std::string scaled = w_.op("Mul", a + "/Mul_scale", {scores, scale_});
    const std::string masked = w_.op("Add", a + "/Add_mask", {scaled, mask_});
    const std::string probs = w_.op("Softmax", a + "/Softmax", {masked}, {Attr::i("axis", -1)});
    const std::string ctx = w_.op("MatMul", a + "/MatMul_pv", {probs, vr});  // [b,n,s,d]
    const std::string ctx_t =
        w_.op("Transpose", a + "/Transpose_ctx", {ctx}, {Attr::ints("perm", {0, 2, 1, 3})});
    const std::string ctx3 =
        w_.op("Reshape", a + "/Reshape_ctx", {ctx_t, i64("ctx_shape", {0, 0, qd})});
    const std::string attn =
        proj(a + "/o_proj", ctx3, wp + "self_attn.o_proj", qd, c_.hidden, false);
    const std::string h1 = w_.op("Add", p + "/Add_attn", {h, attn});

    const std::string m = p + "/mlp";
    const std::string x2 =
        rms_norm(p + "/post_attention_layernorm", h1,
                 qwen::norm_weight(w_, o_, wp + "post_attention_layernorm.weight"));
    const std::string gate =
        proj(m + "/gate_proj", x2, wp + "mlp.gate_proj", c_.hidden, c_.intermediate, false);
    const std::string sig = w_.op("Sigmoid", m + "/act_fn/Sigmoid", {gate});
    const std::string silu = w_.op("Mul", m + "/act_fn/Mul", {gate, sig});
    const std::string up =
        proj(m + "/up_proj", x2, wp + "mlp.up_proj", c_.hidden, c_.intermediate, false);
    const std::string prod = w_.op("Mul", m + "/Mul", {silu, up});
    const std::string down =
        proj(m + "/down_proj", prod, wp + "mlp.down_proj", c_.intermediate, c_.hidden, false);
    return w_.op("Add", p + "/Add_mlp", {h1, down});
  }

  OnnxWriter& w_;
  const QwenOptions& o_;
  const QwenConfig& c_;
  const ElemType t_;
  std::string mask_, cos_, sin_, scale_;
  bool have_norm_consts_ = false;
  std::set<std::string> consts_;
};

}  // namespace

void build_qwen_optimum(OnnxWriter& w, const QwenOptions& o) {
  Optimum(w, o).build();
}

}  // namespace asc::models
