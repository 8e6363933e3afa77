// A naive Qwen2 forward pass in double, independent of ONNX graphs: weights are read by their
// Hugging Face names from an fp32 model file's initializers, then every step of the
// architecture (RMSNorm, q/k/v with bias, RoPE rotate_half, GQA with past, causal + padding
// mask, SwiGLU MLP, tied or untied lm_head) is written out as loops.
#pragma once

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/qwen_builder.h"

namespace asc::test {

struct QwenWeights {
  std::map<std::string, std::vector<double>> w;
  const std::vector<double>& at(const std::string& name) const {
    auto it = w.find(name);
    if (it == w.end()) throw std::runtime_error("no weight " + name);
    return it->second;
  }
};

// fp32 initializers with raw_data (an inline model).
inline QwenWeights read_qwen_weights(const std::string& path) {
  onnx::ModelProto m;
  std::ifstream f(path, std::ios::binary);
  if (!m.ParseFromIstream(&f)) throw std::runtime_error("cannot parse " + path);
  QwenWeights out;
  for (const auto& t : m.graph().initializer()) {
    if (t.data_type() != onnx::TensorProto::FLOAT || t.raw_data().empty()) continue;
    std::vector<float> v(t.raw_data().size() / 4);
    std::memcpy(v.data(), t.raw_data().data(), v.size() * 4);
    out.w[t.name()] = std::vector<double>(v.begin(), v.end());
  }
  return out;
}

// One sequence (batch row). past_k/past_v per layer: [kv_heads][past][head_dim] flattened.
struct QwenRefSeq {
  std::vector<int64_t> ids, positions;  // [s]
  std::vector<int64_t> mask;            // [past + s]
  std::vector<std::vector<double>> past_k, past_v;
  int64_t past = 0;
};

// logits [s][vocab]; rows whose query sees no key are left at 0.
inline std::vector<double> qwen_reference(const models::QwenConfig& c, const QwenWeights& W,
                                          const QwenRefSeq& in) {
  const int64_t s = static_cast<int64_t>(in.ids.size()), H = c.hidden, d = c.head_dim;
  const int64_t n = c.heads, k = c.kv_heads, r = n / k, T = in.past + s, half = d / 2;
  const auto norm = [&](const std::vector<double>& x, const std::string& wname) {
    const auto& g = W.at(wname);
    std::vector<double> y(x.size());
    for (int64_t t = 0; t < s; ++t) {
      double ss = 0;
      for (int64_t j = 0; j < H; ++j) ss += x[t * H + j] * x[t * H + j];
      const double inv = 1.0 / std::sqrt(ss / static_cast<double>(H) + c.rms_eps);
      for (int64_t j = 0; j < H; ++j) y[t * H + j] = x[t * H + j] * inv * g[j];
    }
    return y;
  };
  // x [s][in] @ w [in][out] (+ b)
  const auto linear = [&](const std::vector<double>& x, int64_t in_dim, const std::string& name,
                          int64_t out_dim, bool bias) {
    const auto& w = W.at(name + ".weight");
    std::vector<double> y(static_cast<size_t>(s * out_dim), 0.0);
    for (int64_t t = 0; t < s; ++t)
      for (int64_t i = 0; i < in_dim; ++i) {
        const double a = x[t * in_dim + i];
        for (int64_t o = 0; o < out_dim; ++o) y[t * out_dim + o] += a * w[i * out_dim + o];
      }
    if (bias) {
      const auto& b = W.at(name + ".bias");
      for (int64_t t = 0; t < s; ++t)
        for (int64_t o = 0; o < out_dim; ++o) y[t * out_dim + o] += b[o];
    }
    return y;
  };
  // In place on [s][heads*d]: rotate_half RoPE at in.positions.
  const auto rope = [&](std::vector<double>& x, int64_t heads) {
    for (int64_t t = 0; t < s; ++t)
      for (int64_t hd = 0; hd < heads; ++hd) {
        double* v = &x[(t * heads + hd) * d];
        for (int64_t j = 0; j < half; ++j) {
          const double f =
              std::pow(c.rope_theta, -2.0 * static_cast<double>(j) / static_cast<double>(d));
          const double a = static_cast<double>(in.positions[t]) * f;
          const double x1 = v[j], x2 = v[j + half];
          v[j] = x1 * std::cos(a) - x2 * std::sin(a);
          v[j + half] = x2 * std::cos(a) + x1 * std::sin(a);
        }
      }
  };

  const auto& emb = W.at("model.embed_tokens.weight");
  std::vector<double> h(static_cast<size_t>(s * H));
  for (int64_t t = 0; t < s; ++t)
    for (int64_t j = 0; j < H; ++j) h[t * H + j] = emb[in.ids[t] * H + j];

  for (int64_t l = 0; l < c.layers; ++l) {
    const std::string p = models::qwen_layer_prefix(l);
    const auto x = norm(h, p + "input_layernorm.weight");
    auto q = linear(x, H, p + "self_attn.q_proj", n * d, true);
    auto kk = linear(x, H, p + "self_attn.k_proj", k * d, true);
    const auto vv = linear(x, H, p + "self_attn.v_proj", k * d, true);
    rope(q, n);
    rope(kk, k);
    // K/V over all T positions: [kv][T][d]
    std::vector<double> K(static_cast<size_t>(k * T * d)), V(K.size());
    for (int64_t g = 0; g < k; ++g)
      for (int64_t j = 0; j < T; ++j)
        for (int64_t e = 0; e < d; ++e) {
          const size_t dst = static_cast<size_t>((g * T + j) * d + e);
          if (j < in.past) {
            K[dst] = in.past_k[l][(g * in.past + j) * d + e];
            V[dst] = in.past_v[l][(g * in.past + j) * d + e];
          } else {
            K[dst] = kk[((j - in.past) * k + g) * d + e];
            V[dst] = vv[((j - in.past) * k + g) * d + e];
          }
        }
    std::vector<double> ctx(static_cast<size_t>(s * n * d), 0.0);
    for (int64_t t = 0; t < s; ++t)
      for (int64_t hq = 0; hq < n; ++hq) {
        const int64_t g = hq / r;
        std::vector<double> sc(static_cast<size_t>(T));
        double mx = -1e300;
        bool any = false;
        for (int64_t j = 0; j < T; ++j) {
          if (j > in.past + t || in.mask[j] == 0) continue;
          double dot = 0;
          for (int64_t e = 0; e < d; ++e) dot += q[(t * n + hq) * d + e] * K[(g * T + j) * d + e];
          sc[j] = dot / std::sqrt(static_cast<double>(d));
          mx = std::max(mx, sc[j]);
          any = true;
        }
        if (!any) continue;
        double sum = 0;
        for (int64_t j = 0; j < T; ++j)
          if (j <= in.past + t && in.mask[j] != 0) sum += (sc[j] = std::exp(sc[j] - mx));
        for (int64_t j = 0; j < T; ++j)
          if (j <= in.past + t && in.mask[j] != 0)
            for (int64_t e = 0; e < d; ++e)
              ctx[(t * n + hq) * d + e] += sc[j] / sum * V[(g * T + j) * d + e];
      }
    const auto o = linear(ctx, n * d, p + "self_attn.o_proj", H, false);
    for (size_t i = 0; i < h.size(); ++i) h[i] += o[i];
    const auto x2 = norm(h, p + "post_attention_layernorm.weight");
    const auto gate = linear(x2, H, p + "mlp.gate_proj", c.intermediate, false);
    auto up = linear(x2, H, p + "mlp.up_proj", c.intermediate, false);
    for (size_t i = 0; i < up.size(); ++i) up[i] *= gate[i] / (1.0 + std::exp(-gate[i]));
    const auto down = linear(up, c.intermediate, p + "mlp.down_proj", H, false);
    for (size_t i = 0; i < h.size(); ++i) h[i] += down[i];
  }
  const auto x = norm(h, "model.norm.weight");
  return linear(x, H, "lm_head", c.vocab, false);
}

}  // namespace asc::test
