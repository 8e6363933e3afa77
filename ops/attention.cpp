// Attention (ai.onnx 23): scaled dot-product attention, multi-head, grouped-query or multi-query,
// with an optional past key/value cache, mask, causal mask and softcap. A host kernel (rows of
// scores over the whole key sequence; the decoder fusion's FusedAttention is the tile-kernel path
// for the attention blocks exporters spell out in ops).
//
// Layouts: Q [B, Nq, Sq, H] or [B, Sq, Nq * H] (q_num_heads); K [B, Nkv, Skv, H] or
// [B, Skv, Nkv * H]; V likewise with head size Hv; past_key / past_value [B, Nkv, P, H / Hv].
// present_key / present_value [B, Nkv, T, H / Hv] = past then K / V along the sequence, T = P +
// Skv. Query head h reads kv head h / (Nq / Nkv). Scores: s[i, j] = (q_i . k_j) * scale (absent or
// 0: 1 / sqrt(H)); softcap c > 0: c tanh(s / c); then + mask (bool: false -> -inf; float: added;
// broadcast numpy-style to [B, Nq, Sq, T]) and the causal bias (j > i + P -> -inf); softmax over j,
// a row with every key masked gives zeros; Y = softmax @ V, [B, Nq, Sq, Hv] or [B, Sq, Nq * Hv].
// qk_matmul_output (output 3) is the scores after the matmul (mode 0), the softcap (1), the mask
// (2) or the softmax (3). f16/bf16 compute in f32, f64 in f64 (softmax_precision is accepted and
// not read).
#include <cmath>
#include <limits>
#include <vector>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/strings.h"

namespace asc {
namespace {

struct AttnGeom {
  int64_t b = 0, nq = 0, nkv = 0, sq = 0, skv = 0, h = 0, hv = 0, past = 0, total = 0;
  bool q3 = false, k3 = false, v3 = false;  // 3-D (hidden) layouts
  Shape mask;                               // empty: none
  bool mask_bool = false;
  double scale = 0, softcap = 0;
  bool causal = false;
  int64_t mode = 0;

  int64_t q_at(int64_t bi, int64_t hi, int64_t i) const {
    return q3 ? ((bi * sq + i) * nq + hi) * h : ((bi * nq + hi) * sq + i) * h;
  }
  // Offsets in K / V themselves (head size w, 3-D or not).
  int64_t kv_at(bool three, int64_t w, int64_t bi, int64_t hi, int64_t j) const {
    return three ? ((bi * skv + j) * nkv + hi) * w : ((bi * nkv + hi) * skv + j) * w;
  }
};

std::string shapes_of(const std::vector<TensorType>& in) {
  std::string s;
  for (size_t k = 0; k < in.size(); ++k) s += cat(k ? ", " : "", in[k].str());
  return s;
}

// Dims of the inputs (absent optional ones empty) -> geometry; ShapeError names every shape.
AttnGeom attn_geom(const Attrs& a, const std::vector<Shape>& s, const std::vector<DType>& dt,
                   const std::string& shapes) {
  auto fail = [&](const std::string& why) {
    return ShapeError(cat("Attention: ", why, " (inputs ", shapes, ")"));
  };
  const Shape &q = s[0], &k = s[1], &v = s[2];
  AttnGeom g;
  if ((q.size() != 3 && q.size() != 4) || k.size() != q.size() || v.size() != q.size())
    throw fail("Q, K and V must all be 3-D or all 4-D");
  g.q3 = g.k3 = g.v3 = q.size() == 3;
  g.b = q[0];
  if (k[0] != g.b || v[0] != g.b) throw fail("Q, K and V differ in batch");
  if (g.q3) {
    const int64_t nq = a.i("q_num_heads"), nkv = a.i("kv_num_heads");
    if (nq <= 0 || nkv <= 0) throw fail("3-D inputs need q_num_heads and kv_num_heads");
    if (q[2] % nq || k[2] % nkv || v[2] % nkv)
      throw fail(
          cat("hidden sizes must be multiples of q_num_heads ", nq, " and kv_num_heads ", nkv));
    g.nq = nq;
    g.nkv = nkv;
    g.sq = q[1];
    g.skv = k[1];
    g.h = q[2] / nq;
    g.hv = v[2] / nkv;
    if (k[2] / nkv != g.h) throw fail("Q and K differ in head size");
    if (v[1] != g.skv) throw fail("K and V differ in sequence length");
  } else {
    g.nq = q[1];
    g.sq = q[2];
    g.h = q[3];
    g.nkv = k[1];
    g.skv = k[2];
    g.hv = v[3];
    if (k[3] != g.h) throw fail("Q and K differ in head size");
    if (v[1] != g.nkv || v[2] != g.skv) throw fail("K and V differ in heads or sequence length");
  }
  if (g.nkv <= 0 || g.nq % g.nkv != 0)
    throw fail(cat("q heads ", g.nq, " are not a multiple of kv heads ", g.nkv));
  const bool pk = !s[4].empty() || dt[4] != DType::kUndefined;
  const bool pv = !s[5].empty() || dt[5] != DType::kUndefined;
  if (pk != pv) throw fail("past_key and past_value come together");
  if (pk) {
    if (s[4].size() != 4 || s[4][0] != g.b || s[4][1] != g.nkv || s[4][3] != g.h)
      throw fail(cat("past_key must be [", g.b, ", ", g.nkv, ", past, ", g.h, "]"));
    if (s[5].size() != 4 || s[5][0] != g.b || s[5][1] != g.nkv || s[5][2] != s[4][2] ||
        s[5][3] != g.hv)
      throw fail(cat("past_value must be [", g.b, ", ", g.nkv, ", ", s[4][2], ", ", g.hv, "]"));
    g.past = s[4][2];
  }
  g.total = g.past + g.skv;
  if (dt[3] != DType::kUndefined) {
    g.mask = s[3];
    g.mask_bool = dt[3] == DType::kBool;
    const Shape full = {g.b, g.nq, g.sq, g.total};
    bool ok = g.mask.size() <= 4;
    for (size_t i = 0; ok && i < g.mask.size(); ++i) {
      const int64_t m = g.mask[g.mask.size() - 1 - i], f = full[3 - i];
      ok = m == f || m == 1;
    }
    if (!ok)
      throw fail(cat("attn_mask ", to_string(g.mask), " does not broadcast to ", to_string(full)));
  }
  g.scale = a.f("scale") != 0 ? a.f("scale") : 1.0 / std::sqrt(static_cast<double>(g.h));
  g.softcap = a.f("softcap");
  g.causal = a.i("is_causal") != 0;
  g.mode = a.i("qk_matmul_output_mode");
  if (g.mode < 0 || g.mode > 3) throw fail(cat("qk_matmul_output_mode ", g.mode, " is not 0..3"));
  return g;
}

AttnGeom attn_geom(const Attrs& a, std::span<const Tensor> in) {
  std::vector<Shape> s(6);
  std::vector<DType> dt(6, DType::kUndefined);
  std::vector<TensorType> types;
  for (size_t k = 0; k < in.size() && k < 6; ++k) {
    if (!in[k].defined()) continue;
    s[k] = in[k].shape();
    dt[k] = in[k].dtype();
    types.push_back(TensorType{in[k].dtype(), to_sym(in[k].shape())});
  }
  return attn_geom(a, s, dt, shapes_of(types));
}

std::vector<TensorType> infer_attention(const InferContext& c) {
  const TensorType &q = c.inputs[0], &v = c.inputs[2];
  std::vector<Shape> s(6);
  std::vector<DType> dt(6, DType::kUndefined);
  bool known = true;
  for (size_t k = 0; k < c.inputs.size() && k < 6; ++k) {
    dt[k] = c.inputs[k].dtype;
    if (dt[k] == DType::kUndefined) continue;
    const auto cs = c.inputs[k].shape ? to_concrete(*c.inputs[k].shape) : std::nullopt;
    if (!cs) known = false;
    if (cs) s[k] = *cs;
  }
  const DType kv = c.inputs.size() > 4 && dt[4] != DType::kUndefined ? dt[4] : q.dtype;
  const DType vv = c.inputs.size() > 5 && dt[5] != DType::kUndefined ? dt[5] : v.dtype;
  if (!known)
    return {
        {q.dtype, std::nullopt}, {kv, std::nullopt}, {vv, std::nullopt}, {q.dtype, std::nullopt}};
  const AttnGeom g = attn_geom(c.attrs, s, dt, shapes_of(c.inputs));
  const Shape y = g.q3 ? Shape{g.b, g.sq, g.nq * g.hv} : Shape{g.b, g.nq, g.sq, g.hv};
  return {{q.dtype, to_sym(y)},
          {q.dtype, to_sym({g.b, g.nkv, g.total, g.h})},
          {v.dtype, to_sym({g.b, g.nkv, g.total, g.hv})},
          {q.dtype, to_sym({g.b, g.nq, g.sq, g.total})}};
}

std::vector<double> doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = t.at(i);
  return v;
}

// present = past then new rows, [B, Nkv, T, w], from K or V (3-D or 4-D) and the past.
template <class C>
std::vector<C> present_of(const AttnGeom& g, bool three, int64_t w, const std::vector<C>& x,
                          const std::vector<C>* past) {
  std::vector<C> p(static_cast<size_t>(g.b * g.nkv * g.total * w));
  for (int64_t bi = 0; bi < g.b; ++bi)
    for (int64_t hi = 0; hi < g.nkv; ++hi)
      for (int64_t t = 0; t < g.total; ++t) {
        C* dst = p.data() + ((bi * g.nkv + hi) * g.total + t) * w;
        const C* src = t < g.past ? past->data() + ((bi * g.nkv + hi) * g.past + t) * w
                                  : x.data() + g.kv_at(three, w, bi, hi, t - g.past);
        std::copy(src, src + w, dst);
      }
  return p;
}

// The mask bias of (b, h, i, j): 0, a float, or -inf for a false bool.
double mask_bias(const AttnGeom& g, const std::vector<double>& mask, int64_t bi, int64_t hi,
                 int64_t i, int64_t j) {
  if (g.mask.empty()) return 0.0;
  const int64_t idx[4] = {bi, hi, i, j};
  int64_t off = 0;
  const size_t r = g.mask.size();
  for (size_t d = 0; d < r; ++d) {
    const int64_t m = g.mask[d];
    off = off * m + (m == 1 ? 0 : idx[4 - r + d]);
  }
  const double v = mask[static_cast<size_t>(off)];
  if (g.mask_bool) return v != 0 ? 0.0 : -std::numeric_limits<double>::infinity();
  return v;
}

template <class C>
void attention_run(const LaunchContext& ctx, const AttnGeom& g, std::span<const Tensor> in,
                   std::span<Tensor> out) {
  auto load = [](const Tensor& t) {
    std::vector<C> v(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) v[i] = static_cast<C>(t.at(i));
    return v;
  };
  const std::vector<C> q = load(in[0]), kx = load(in[1]), vx = load(in[2]);
  std::vector<C> pk, pv;
  if (g.past > 0 || (in.size() > 4 && in[4].defined())) {
    pk = load(in[4]);
    pv = load(in[5]);
  }
  const std::vector<C> k = present_of(g, g.k3, g.h, kx, &pk);
  const std::vector<C> v = present_of(g, g.v3, g.hv, vx, &pv);
  const std::vector<double> mask = g.mask.empty() ? std::vector<double>{} : doubles(in[3]);
  const bool qk_out = out.size() > 3 && out[3].defined();
  std::vector<C> y(static_cast<size_t>(out[0].numel()));
  std::vector<C> qk(qk_out ? static_cast<size_t>(out[3].numel()) : 0);
  const int64_t group = g.nq / g.nkv;
  ctx.parallel(g.b * g.nq * g.sq, [&](int64_t begin, int64_t end) {
    std::vector<C> s(static_cast<size_t>(g.total));
    const C neg_inf = -std::numeric_limits<C>::infinity();
    for (int64_t row = begin; row < end; ++row) {
      const int64_t i = row % g.sq, hi = (row / g.sq) % g.nq, bi = row / (g.sq * g.nq);
      const int64_t kvh = hi / group;
      const C* qr = q.data() + g.q_at(bi, hi, i);
      C* qkr = qk_out ? qk.data() + row * g.total : nullptr;
      C m = neg_inf;
      for (int64_t j = 0; j < g.total; ++j) {
        const C* kr = k.data() + ((bi * g.nkv + kvh) * g.total + j) * g.h;
        C dot = 0;
        for (int64_t d = 0; d < g.h; ++d) dot += qr[d] * kr[d];
        C sc = dot * static_cast<C>(g.scale);
        if (qkr && g.mode == 0) qkr[j] = sc;
        if (g.softcap > 0)
          sc = static_cast<C>(g.softcap) * std::tanh(sc / static_cast<C>(g.softcap));
        if (qkr && g.mode == 1) qkr[j] = sc;
        sc += static_cast<C>(mask_bias(g, mask, bi, hi, i, j));
        if (g.causal && j > i + g.past) sc = neg_inf;
        if (qkr && g.mode == 2) qkr[j] = sc;
        s[j] = sc;
        m = std::max(m, sc);
      }
      C* yr = y.data() + (g.q3 ? ((bi * g.sq + i) * g.nq + hi) * g.hv : row * g.hv);
      std::fill(yr, yr + g.hv, C(0));
      if (m == neg_inf) {  // every key masked: a zero row
        if (qkr && g.mode == 3) std::fill(qkr, qkr + g.total, C(0));
        continue;
      }
      C sum = 0;
      for (int64_t j = 0; j < g.total; ++j) sum += (s[j] = std::exp(s[j] - m));
      for (int64_t j = 0; j < g.total; ++j) {
        const C p = s[j] / sum;
        if (qkr && g.mode == 3) qkr[j] = p;
        const C* vr = v.data() + ((bi * g.nkv + kvh) * g.total + j) * g.hv;
        for (int64_t d = 0; d < g.hv; ++d) yr[d] += p * vr[d];
      }
    }
  });
  auto store = [](Tensor& t, const std::vector<C>& src) {
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, static_cast<double>(src[i]));
  };
  store(out[0], y);
  if (out.size() > 1 && out[1].defined()) store(out[1], k);
  if (out.size() > 2 && out[2].defined()) store(out[2], v);
  if (qk_out) store(out[3], qk);
}

// Naive reference in double, the spec's graph step by step on materialised 4-D tensors.
void attention_reference(const Attrs& a, std::span<const Tensor> in, std::span<Tensor> out) {
  const AttnGeom g = attn_geom(a, in);
  const double inf = std::numeric_limits<double>::infinity();
  // Q, K, V as [B, N, S, w] (4-D view of 3-D inputs), K and V with the past prepended.
  auto q4 = [&](int64_t bi, int64_t hi, int64_t i, int64_t d) {
    return in[0].at(g.q_at(bi, hi, i) + d);
  };
  auto kv4 = [&](int which, int64_t bi, int64_t hi, int64_t t, int64_t d) {
    const int64_t w = which == 1 ? g.h : g.hv;
    if (t < g.past) return in[3 + which].at(((bi * g.nkv + hi) * g.past + t) * w + d);
    return in[which].at(g.kv_at(which == 1 ? g.k3 : g.v3, w, bi, hi, t - g.past) + d);
  };
  const std::vector<double> mask = g.mask.empty() ? std::vector<double>{} : doubles(in[3]);
  std::vector<double> scores(static_cast<size_t>(g.total));
  for (int64_t bi = 0; bi < g.b; ++bi)
    for (int64_t hi = 0; hi < g.nq; ++hi) {
      const int64_t kvh = hi * g.nkv / g.nq;
      for (int64_t i = 0; i < g.sq; ++i) {
        const int64_t row = (bi * g.nq + hi) * g.sq + i;
        double mx = -inf;
        for (int64_t j = 0; j < g.total; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < g.h; ++d) dot += q4(bi, hi, i, d) * kv4(1, bi, kvh, j, d);
          double s = dot * g.scale;
          if (g.mode == 0 && out.size() > 3 && out[3].defined()) out[3].set(row * g.total + j, s);
          if (g.softcap > 0) s = g.softcap * std::tanh(s / g.softcap);
          if (g.mode == 1 && out.size() > 3 && out[3].defined()) out[3].set(row * g.total + j, s);
          s += mask_bias(g, mask, bi, hi, i, j) + (g.causal && j > i + g.past ? -inf : 0.0);
          if (g.mode == 2 && out.size() > 3 && out[3].defined()) out[3].set(row * g.total + j, s);
          scores[j] = s;
          mx = std::max(mx, s);
        }
        double sum = 0;
        for (int64_t j = 0; j < g.total; ++j) sum += mx == -inf ? 0.0 : std::exp(scores[j] - mx);
        for (int64_t d = 0; d < g.hv; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < g.total; ++j)
            if (mx != -inf) acc += std::exp(scores[j] - mx) / sum * kv4(2, bi, kvh, j, d);
          const int64_t at = g.q3 ? ((bi * g.sq + i) * g.nq + hi) * g.hv + d : row * g.hv + d;
          out[0].set(at, acc);
        }
        if (g.mode == 3 && out.size() > 3 && out[3].defined())
          for (int64_t j = 0; j < g.total; ++j)
            out[3].set(row * g.total + j, mx == -inf ? 0.0 : std::exp(scores[j] - mx) / sum);
      }
    }
  for (int which : {1, 2}) {
    if (out.size() <= static_cast<size_t>(which) || !out[which].defined()) continue;
    const int64_t w = which == 1 ? g.h : g.hv;
    for (int64_t bi = 0; bi < g.b; ++bi)
      for (int64_t hi = 0; hi < g.nkv; ++hi)
        for (int64_t t = 0; t < g.total; ++t)
          for (int64_t d = 0; d < w; ++d)
            out[which].set(((bi * g.nkv + hi) * g.total + t) * w + d, kv4(which, bi, hi, t, d));
  }
}

}  // namespace

void register_attention(Registry& r) {
  std::vector<DType> mask_types = float_types();
  mask_types.push_back(DType::kBool);
  r.add(def_op("Attention", 23)
            .input("Q", "T1")
            .input("K", "T1")
            .input("V", "T2")
            .input("attn_mask", "U", Arity::kOptional)
            .input("past_key", "T1", Arity::kOptional)
            .input("past_value", "T2", Arity::kOptional)
            .output("Y", "T1")
            .output("present_key", "T1", Arity::kOptional)
            .output("present_value", "T2", Arity::kOptional)
            .output("qk_matmul_output", "T1", Arity::kOptional)
            .attr("is_causal", AttrKind::kInt, int64_t{0})
            .attr("kv_num_heads", AttrKind::kInt, int64_t{0})
            .attr("q_num_heads", AttrKind::kInt, int64_t{0})
            .attr("qk_matmul_output_mode", AttrKind::kInt, int64_t{0})
            .attr("scale", AttrKind::kFloat, 0.0f)  // 0: 1 / sqrt(head size)
            .attr("softcap", AttrKind::kFloat, 0.0f)
            .attr("softmax_precision", AttrKind::kInt, int64_t{0})
            .type_constraint("T1", float_types())
            .type_constraint("T2", float_types())
            .type_constraint("U", mask_types)
            .describe("Y = softmax(softcap(Q K^T * scale) + mask + causal) V, multi-head / "
                      "grouped-query, with a past key/value cache")
            .infer(infer_attention)
            .host_kernel(
                [](const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
                  const AttnGeom g = attn_geom(ctx.attr(), in);
                  if (in[0].dtype() == DType::kF64)
                    attention_run<double>(ctx, g, in, out);
                  else
                    attention_run<float>(ctx, g, in, out);
                })
            .reference(attention_reference));
}

}  // namespace asc
