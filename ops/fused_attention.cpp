// FusedAttention: schema, shape inference, geometry and the naive reference (semantics and
// layouts in fused_attention.h; the tile kernel is in fused_attention_kernel.cpp).
#include "ops/fused_attention.h"

#include <cmath>
#include <limits>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/op_def.h"
#include "registry/strings.h"

namespace asc {
namespace attention {

Shape Geom::output_shape() const {
  return transpose_output ? Shape{batch, seq, heads, head} : Shape{batch, heads, seq, head};
}

Shape Geom::present_shape() const {
  return {batch, kv_heads, total(), head};
}

Geom geom(const Attrs& a, std::span<const Shape* const> sh) {
  auto str = [&] {
    static const char* names[] = {"query", "key", "value", "past_key", "past_value", "mask"};
    std::string s;
    for (size_t i = 0; i < sh.size() && i < 6; ++i)
      if (sh[i]) s += cat(s.empty() ? "" : ", ", names[i], " ", to_string(*sh[i]));
    return s;
  };
  auto fail = [&](const std::string& why) {
    return ShapeError(cat("FusedAttention: ", why, " (", str(), ")"));
  };
  if (sh.size() < 3 || !sh[0] || !sh[1] || !sh[2]) throw fail("query, key and value are required");
  const Shape& q = *sh[0];
  if (q.size() != 4) throw fail("query must be [batch, heads, sequence, head_size]");
  Geom g;
  g.batch = q[0];
  g.heads = q[1];
  g.seq = q[2];
  g.head = q[3];
  const Shape& k = *sh[1];
  if (k.size() != 4 || k[0] != g.batch || k[2] != g.seq || k[3] != g.head || *sh[2] != k)
    throw fail(
        cat("key and value must be equal [", g.batch, ", kv_heads, ", g.seq, ", ", g.head, "]"));
  g.kv_heads = k[1];
  if (g.seq < 1 || g.head < 1) throw fail("the sequence and head size must be at least 1");
  if (g.kv_heads < 1 || g.heads % g.kv_heads != 0)
    throw fail(cat("query heads ", g.heads, " must be a multiple of kv heads ", g.kv_heads));
  const int64_t n_attr = a.i("num_heads"), k_attr = a.i("kv_num_heads");
  if ((n_attr > 0 && n_attr != g.heads) || (k_attr > 0 && k_attr != g.kv_heads))
    throw fail(cat("num_heads ", n_attr, " / kv_num_heads ", k_attr, " differ from the shapes"));
  const Shape* pk = sh.size() > 3 ? sh[3] : nullptr;
  const Shape* pv = sh.size() > 4 ? sh[4] : nullptr;
  if (static_cast<bool>(pk) != static_cast<bool>(pv))
    throw fail("past_key and past_value must be both present or both absent");
  if (pk) {
    if (pk->size() != 4 || (*pk)[0] != g.batch || (*pk)[1] != g.kv_heads || (*pk)[3] != g.head ||
        *pv != *pk)
      throw fail(cat("past_key and past_value must be equal [", g.batch, ", ", g.kv_heads,
                     ", past, ", g.head, "]"));
    g.has_past = true;
    g.past = (*pk)[2];
  }
  const Shape full = {g.batch, g.heads, g.seq, g.total()};
  if (sh.size() > 5 && sh[5]) {
    const Shape& m = *sh[5];
    if (m.size() > 4) throw fail("the mask must have rank <= 4");
    g.has_mask = true;
    g.mask_strides.assign(4, 0);
    int64_t stride = 1;
    for (size_t j = 0; j < m.size(); ++j) {
      const size_t md = m.size() - 1 - j, fd = 3 - j;  // right-aligned
      if (m[md] != 1 && m[md] != full[fd])
        throw fail(cat("the mask does not broadcast to ", to_string(full)));
      g.mask_strides[fd] = m[md] == 1 ? 0 : stride;
      stride *= m[md];
    }
  }
  const float scale = a.f("scale");
  g.scale = scale != 0.f ? scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(g.head)));
  g.transpose_output = a.i("transpose_output") != 0;
  return g;
}

namespace {

std::vector<TensorType> infer(const InferContext& c) {
  const DType dt = c.inputs[0].dtype;
  std::vector<std::optional<Shape>> conc(6);
  std::vector<const Shape*> sh(6, nullptr);
  for (size_t i = 0; i < 6 && i < c.inputs.size(); ++i) {
    if (c.inputs[i].dtype == DType::kUndefined) continue;
    if (c.inputs[i].shape) conc[i] = to_concrete(*c.inputs[i].shape);
    if (!conc[i]) return {{dt, std::nullopt}, {dt, std::nullopt}, {dt, std::nullopt}};
    sh[i] = &*conc[i];
  }
  const Geom g = geom(c.attrs, sh);
  return {{dt, to_sym(g.output_shape())},
          {dt, to_sym(g.present_shape())},
          {dt, to_sym(g.present_shape())}};
}

// Naive reference in double: present = concat(past, new); per (b, h, i) the scores over every
// key, the softmax and the weighted sum of values.
void reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  std::vector<const Shape*> sh(6, nullptr);
  for (size_t i = 0; i < in.size() && i < 6; ++i)
    if (in[i].defined()) sh[i] = &in[i].shape();
  const Geom g = geom(a, sh);
  const int64_t B = g.batch, N = g.heads, K = g.kv_heads, S = g.seq, D = g.head, P = g.past;
  const int64_t T = g.total();
  // present[b, kh, j, d] in double, then written to outputs 1 and 2.
  std::vector<double> pk(static_cast<size_t>(B * K * T * D)), pv(pk.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t kh = 0; kh < K; ++kh)
      for (int64_t j = 0; j < T; ++j)
        for (int64_t d = 0; d < D; ++d) {
          const size_t at = static_cast<size_t>(((b * K + kh) * T + j) * D + d);
          const bool old = j < P;
          const int64_t src =
              old ? ((b * K + kh) * P + j) * D + d : ((b * K + kh) * S + j - P) * D + d;
          pk[at] = old ? in[3].at(src) : in[1].at(src);
          pv[at] = old ? in[4].at(src) : in[2].at(src);
        }
  const Shape& ms = g.mask_strides;
  std::vector<double> score(static_cast<size_t>(T));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < N; ++h)
      for (int64_t i = 0; i < S; ++i) {
        const int64_t kh = h / g.group();
        const int64_t qat = ((b * N + h) * S + i) * D;
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < T; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += in[0].at(qat + d) * pk[static_cast<size_t>(((b * K + kh) * T + j) * D + d)];
          double s = static_cast<double>(g.scale) * dot;
          if (g.has_mask) s += in[5].at(b * ms[0] + h * ms[1] + i * ms[2] + j * ms[3]);
          score[static_cast<size_t>(j)] = s;
          m = std::max(m, s);
        }
        double sum = 0;
        for (double& s : score)
          sum += (s = m == -std::numeric_limits<double>::infinity() ? 0.0 : std::exp(s - m));
        const int64_t oat = g.transpose_output ? ((b * S + i) * N + h) * D : qat;
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < T; ++j)
            acc += score[static_cast<size_t>(j)] *
                   pv[static_cast<size_t>(((b * K + kh) * T + j) * D + d)];
          out[0].set(oat + d, sum > 0 ? acc / sum : 0.0);
        }
      }
  for (size_t i = 0; i < pk.size(); ++i) {
    if (out.size() > 1 && out[1].defined()) out[1].set(static_cast<int64_t>(i), pk[i]);
    if (out.size() > 2 && out[2].defined()) out[2].set(static_cast<int64_t>(i), pv[i]);
  }
}

}  // namespace

void add_fused_attention(Registry& r) {
  r.add(def_op("FusedAttention", 1, INT_MAX, kDomain)
            .input("query", "T")
            .input("key", "T")
            .input("value", "T")
            .input("past_key", "T", Arity::kOptional)
            .input("past_value", "T", Arity::kOptional)
            .input("mask", "T", Arity::kOptional)
            .output("output", "T")
            .output("present_key", "T")
            .output("present_value", "T")
            .attr("scale", AttrKind::kFloat, 0.0f)
            .attr("num_heads", AttrKind::kInt, int64_t{0})
            .attr("kv_num_heads", AttrKind::kInt, int64_t{0})
            .attr("transpose_output", AttrKind::kInt, int64_t{0})
            .strided("past_key")
            .strided("past_value")
            .strided("present_key")
            .strided("present_value")
            .type_constraint("T", {DType::kF32, DType::kF16, DType::kBF16})
            .trait(kContraction)
            .describe(
                "grouped-query attention with an additive mask and a KV-cache append, flash-style "
                "(online softmax over key tiles, K/V never repeated)")
            .infer(infer)
            .tiling(tiling)
            .kernel(kernel)
            .reference(reference));
}

}  // namespace attention

void register_fused_attention(Registry& r) {
  attention::add_fused_attention(r);
}

}  // namespace asc
