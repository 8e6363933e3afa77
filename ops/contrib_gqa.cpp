// GroupQueryAttention (com.microsoft 1): schema, shape inference, geometry and the naive
// reference. The flash kernel is in contrib_gqa_kernel.cpp; layouts are in contrib.h.
//
// ONNX Runtime's semantics. Per batch b: total_b = seqlens_k[b] + 1; past_b = 0 on the first
// prompt (S == total_sequence_length), else total_b - S. present rows [0, past_b) are past rows,
// rows [past_b, past_b + S) the new keys/values, rows past that zeros. Query token s (query head
// h uses KV head h / (N / K)) attends keys [lo, hi) (contrib.h, gqa_keys):
//   score_j = scale * q . k_j      (scale default 1 / sqrt(H))
//   score_j = softcap * tanh(score_j / softcap) when softcap > 0
//   out = sum_j softmax(score)_j v_j
// (smooth_softmax: the softmax has one more term e^0 in its denominator, a key of score 0 and
// value 0).
// With do_rotary, query and new key heads are rotated (contrib.h, rotate) at position past_b + s
// with the caches' rotary dim R = 2 * cos_cache.shape[1]. S > 1 with S != total_sequence_length
// (a later prompt chunk) needs batch 1, as in ONNX Runtime.
#include <cmath>
#include <limits>

#include "ops/contrib.h"
#include "registry/infer.h"
#include "registry/op_def.h"

namespace asc::contrib {

int64_t GqaGeom::q_at(int64_t b, int64_t s, int64_t h) const {
  const int64_t row = packed ? (heads + 2 * kv_heads) * head : heads * head;
  return (b * seq + s) * row + h * head;
}
int64_t GqaGeom::k_at(int64_t b, int64_t s, int64_t kh) const {
  if (packed) return q_at(b, s, heads + kh);
  return (b * seq + s) * kv_heads * head + kh * head;
}
int64_t GqaGeom::v_at(int64_t b, int64_t s, int64_t kh) const {
  if (packed) return q_at(b, s, heads + kv_heads + kh);
  return k_at(b, s, kh);
}

GqaGeom gqa_geom(const Attrs& a, const std::vector<const Shape*>& sh, int64_t total) {
  auto str = [&] {
    std::string s;
    const char* names[] = {"query",     "key",           "value", "past_key", "past_value",
                           "seqlens_k", "total_seq_len", "cos",   "sin"};
    for (size_t i = 0; i < sh.size() && i < 9; ++i)
      if (sh[i]) s += cat(s.empty() ? "" : ", ", names[i], " ", to_string(*sh[i]));
    return s;
  };
  auto fail = [&](const std::string& why) {
    return ShapeError(cat("GroupQueryAttention: ", why, " (", str(), ")"));
  };
  GqaGeom g;
  g.heads = a.i("num_heads");
  g.kv_heads = a.i("kv_num_heads");
  if (g.heads <= 0 || g.kv_heads <= 0 || g.heads % g.kv_heads != 0)
    throw fail(
        cat("num_heads ", g.heads, " must be a positive multiple of kv_num_heads ", g.kv_heads));
  const Shape& q = *sh[0];
  if (q.size() != 3) throw fail("query must be [batch, sequence, hidden]");
  g.batch = q[0];
  g.seq = q[1];
  if (g.seq < 1) throw fail("query must have at least one token");
  if (static_cast<bool>(sh[1]) != static_cast<bool>(sh[2]))
    throw fail("key and value must be both present or both absent");
  g.packed = sh[1] == nullptr;
  const int64_t per = g.packed ? g.heads + 2 * g.kv_heads : g.heads;
  if (q[2] % per != 0 || q[2] == 0)
    throw fail(cat("query hidden size ", q[2], " is not a multiple of ", per, " heads"));
  g.head = q[2] / per;
  const Shape kv = {g.batch, g.seq, g.kv_heads * g.head};
  if (!g.packed && (*sh[1] != kv || *sh[2] != kv))
    throw fail(cat("key and value must be ", to_string(kv)));
  if (static_cast<bool>(sh[3]) != static_cast<bool>(sh[4]))
    throw fail("past_key and past_value must be both present or both absent");
  if (sh[3]) {
    const Shape& p = *sh[3];
    if (p.size() != 4 || p[0] != g.batch || p[1] != g.kv_heads || p[3] != g.head || *sh[4] != p)
      throw fail(cat("past_key and past_value must be [", g.batch, ", ", g.kv_heads, ", past, ",
                     g.head, "]"));
    g.past = p[2];
  }
  if (*sh[5] != Shape{g.batch}) throw fail(cat("seqlens_k must be [", g.batch, "]"));
  if (numel(*sh[6]) != 1 || sh[6]->size() > 1)
    throw fail("total_sequence_length must have one element");
  if (total < 1) throw fail(cat("total_sequence_length ", total, " must be >= 1"));
  g.total = total;
  g.present = std::max(total, g.past);
  g.first_prompt = g.seq == total;
  if (g.seq > 1 && !g.first_prompt && g.batch != 1)
    throw fail(cat("sequence length ", g.seq, " != total_sequence_length ", total,
                   " (a later prompt chunk) needs batch 1"));
  if (g.seq > total) throw fail(cat("sequence length ", g.seq, " > total_sequence_length ", total));
  g.rotary = a.i("do_rotary") != 0;
  g.interleaved = a.i("rotary_interleaved") != 0;
  if (static_cast<bool>(sh[7]) != static_cast<bool>(sh[8]))
    throw fail("cos_cache and sin_cache must be both present or both absent");
  if (g.rotary && !sh[7]) throw fail("do_rotary needs cos_cache and sin_cache");
  if (sh[7]) {
    const Shape& c = *sh[7];
    if (c.size() != 2 || *sh[8] != c || 2 * c[1] > g.head || c[1] == 0)
      throw fail(
          cat("cos_cache and sin_cache must be equal [max_pos, R/2] with R <= head size ", g.head));
    g.rot = 2 * c[1];
    g.cache_rows = c[0];
  }
  const float scale = a.f("scale");
  g.scale = scale != 0.f ? scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(g.head)));
  g.softcap = a.f("softcap");
  g.window = a.i("local_window_size");
  g.smooth = a.i("smooth_softmax") != 0;
  return g;
}

std::vector<GqaSpan> gqa_spans(const GqaGeom& g, const Tensor& seqlens_k) {
  std::vector<GqaSpan> spans(static_cast<size_t>(g.batch));
  for (int64_t b = 0; b < g.batch; ++b) {
    GqaSpan& sp = spans[static_cast<size_t>(b)];
    sp.total = static_cast<int64_t>(seqlens_k.at(b)) + 1;
    sp.past = g.first_prompt ? 0 : sp.total - g.seq;
    auto fail = [&](const std::string& why) {
      return ShapeError(
          cat("GroupQueryAttention: batch ", b, ": seqlens_k ", sp.total - 1, " ", why));
    };
    if (sp.total < 1 || sp.total > g.present)
      throw fail(cat("gives a total length outside [1, ", g.present, "]"));
    if (sp.past < 0) throw fail(cat("is shorter than the ", g.seq, " new tokens"));
    if (sp.past > g.past) throw fail(cat("needs ", sp.past, " past rows, past_key has ", g.past));
    if (sp.past + g.seq > g.present)
      throw fail(cat("puts the new tokens past the present length ", g.present));
    if (g.rotary && sp.past + g.seq > g.cache_rows)
      throw fail(cat("needs rotary positions up to ", sp.past + g.seq - 1, ", the caches have ",
                     g.cache_rows, " rows"));
  }
  return spans;
}

namespace {

std::vector<const Shape*> shapes_of(std::span<const Tensor> in) {
  std::vector<const Shape*> sh(9, nullptr);
  for (size_t i = 0; i < in.size() && i < 9; ++i)
    if (in[i].defined()) sh[i] = &in[i].shape();
  return sh;
}

int64_t total_of(const Tensor& t) {
  if (t.numel() != 1)
    throw ShapeError(cat("GroupQueryAttention: total_sequence_length ", to_string(t.shape()),
                         " must have one element"));
  return static_cast<int64_t>(t.at(0));
}

std::vector<TensorType> gqa_infer(const InferContext& c) {
  const TensorType& q = c.inputs[0];
  std::vector<std::optional<Shape>> conc(9);
  std::vector<const Shape*> sh(9, nullptr);
  bool all = true;
  for (size_t i = 0; i < 9; ++i) {
    if (i >= c.inputs.size() || c.inputs[i].dtype == DType::kUndefined) continue;
    if (c.inputs[i].shape) conc[i] = to_concrete(*c.inputs[i].shape);
    if (conc[i])
      sh[i] = &*conc[i];
    else
      all = false;
  }
  const int64_t total = total_of(need_value(c, 6));
  if (all) {
    const GqaGeom g = gqa_geom(c.attrs, sh, total);
    const SymShape out = {Dim(g.batch), Dim(g.seq), Dim(g.heads * g.head)};
    const SymShape pres = {Dim(g.batch), Dim(g.kv_heads), Dim(g.present), Dim(g.head)};
    return {{q.dtype, out}, {q.dtype, pres}, {q.dtype, pres}};
  }
  return {{q.dtype, std::nullopt}, {q.dtype, std::nullopt}, {q.dtype, std::nullopt}};
}

// Naive reference in double: present buffers, then per (b, h, s) scores, softmax, weighted sum.
void gqa_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const GqaGeom g = gqa_geom(a, shapes_of(in), total_of(in[6]));
  const auto spans = gqa_spans(g, in[5]);
  const Tensor& q = in[0];
  const Tensor& k = g.packed ? in[0] : in[1];
  const Tensor& v = g.packed ? in[0] : in[2];
  const int64_t H = g.head, T = g.present;
  std::vector<double> pk(static_cast<size_t>(g.batch * g.kv_heads * T * H), 0.0), pv(pk.size());
  std::vector<double> x(static_cast<size_t>(H)), cs, sn;
  auto rope = [&](int64_t pos) {  // x rotated at pos in place
    if (!g.rotary) return;
    const int64_t half = g.rot / 2;
    cs.resize(static_cast<size_t>(half));
    sn.resize(cs.size());
    for (int64_t i = 0; i < half; ++i) {
      cs[static_cast<size_t>(i)] = in[7].at(pos * half + i);
      sn[static_cast<size_t>(i)] = in[8].at(pos * half + i);
    }
    std::vector<double> y(x.size());
    rotate_ref(x.data(), cs.data(), sn.data(), g.rot, H, g.interleaved, y.data());
    x = y;
  };
  for (int64_t b = 0; b < g.batch; ++b) {
    const GqaSpan sp = spans[static_cast<size_t>(b)];
    for (int64_t kh = 0; kh < g.kv_heads; ++kh) {
      const int64_t base = (b * g.kv_heads + kh) * T * H;
      const int64_t past_base = (b * g.kv_heads + kh) * g.past * H;
      for (int64_t j = 0; j < sp.past; ++j)
        for (int64_t d = 0; d < H; ++d) {
          pk[static_cast<size_t>(base + j * H + d)] = in[3].at(past_base + j * H + d);
          pv[static_cast<size_t>(base + j * H + d)] = in[4].at(past_base + j * H + d);
        }
      for (int64_t s = 0; s < g.seq; ++s) {
        for (int64_t d = 0; d < H; ++d) x[static_cast<size_t>(d)] = k.at(g.k_at(b, s, kh) + d);
        rope(sp.past + s);
        for (int64_t d = 0; d < H; ++d) {
          pk[static_cast<size_t>(base + (sp.past + s) * H + d)] = x[static_cast<size_t>(d)];
          pv[static_cast<size_t>(base + (sp.past + s) * H + d)] = v.at(g.v_at(b, s, kh) + d);
        }
      }
    }
    for (int64_t h = 0; h < g.heads; ++h)
      for (int64_t s = 0; s < g.seq; ++s) {
        for (int64_t d = 0; d < H; ++d) x[static_cast<size_t>(d)] = q.at(g.q_at(b, s, h) + d);
        rope(sp.past + s);
        const int64_t base = (b * g.kv_heads + h / g.group()) * T * H;
        std::vector<int64_t> keys;  // visible: causal, within the total, within the window
        for (int64_t j = 0; j < T; ++j)
          if (j <= sp.past + s && j < sp.total && (g.window <= 0 || j >= sp.past + s - g.window))
            keys.push_back(j);
        std::vector<double> score;
        double m = g.smooth ? 0.0 : -std::numeric_limits<double>::infinity(), sum = 0;
        for (int64_t j : keys) {
          double dot = 0;
          for (int64_t d = 0; d < H; ++d)
            dot += x[static_cast<size_t>(d)] * pk[static_cast<size_t>(base + j * H + d)];
          dot *= g.scale;
          if (g.softcap > 0) dot = g.softcap * std::tanh(dot / g.softcap);
          score.push_back(dot);
          m = std::max(m, dot);
        }
        for (double& e : score) sum += (e = std::exp(e - m));
        if (g.smooth) sum += std::exp(-m);  // the sink: score 0, value 0
        for (int64_t d = 0; d < H; ++d) {
          double acc = 0;
          for (size_t i = 0; i < keys.size(); ++i)
            acc += score[i] * pv[static_cast<size_t>(base + keys[i] * H + d)];
          out[0].set(((b * g.seq + s) * g.heads + h) * H + d, sum > 0 ? acc / sum : 0.0);
        }
      }
  }
  for (size_t i = 0; i < pk.size(); ++i) {
    if (out.size() > 1) out[1].set(static_cast<int64_t>(i), pk[i]);
    if (out.size() > 2) out[2].set(static_cast<int64_t>(i), pv[i]);
  }
}

}  // namespace

void add_gqa(Registry& r) {
  r.add(def_op("GroupQueryAttention", 1, INT_MAX, kDomain)
            .input("query", "T")
            .input("key", "T", Arity::kOptional)
            .input("value", "T", Arity::kOptional)
            .input("past_key", "T", Arity::kOptional)
            .input("past_value", "T", Arity::kOptional)
            .input("seqlens_k", "M")
            .input("total_sequence_length", "M", Arity::kSingle, /*value_needed=*/true)
            .input("cos_cache", "T", Arity::kOptional)
            .input("sin_cache", "T", Arity::kOptional)
            .output("output", "T")
            .output("present_key", "T")
            .output("present_value", "T")
            .attr("num_heads", AttrKind::kInt)
            .attr("kv_num_heads", AttrKind::kInt)
            .attr("scale", AttrKind::kFloat, 0.0f)
            .attr("softcap", AttrKind::kFloat, 0.0f)
            .attr("do_rotary", AttrKind::kInt, int64_t{0})
            .attr("rotary_interleaved", AttrKind::kInt, int64_t{0})
            .attr("local_window_size", AttrKind::kInt, int64_t{-1})
            .attr("smooth_softmax", AttrKind::kInt, int64_t{0})
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .type_constraint("M", {DType::kI32})
            .describe("causal grouped-query attention with a BNSH KV cache (flash kernel)")
            .infer(gqa_infer)
            .host_kernel(gqa_kernel)
            .reference(gqa_reference));
}

}  // namespace asc::contrib
