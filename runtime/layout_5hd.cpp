#include "runtime/layout_5hd.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "ops/fused.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/fusion.h"
#include "runtime/sym_infer.h"

namespace asc {
namespace {

constexpr int64_t kC0 = 16;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// A FusedConv the pass can rewrite: X [N, C >= 16, H, W] f32, W a constant [M, C, kH, kW] not
// yet packed, one group, pads given (NOTSET) or none (VALID), no scalar map after the activation.
bool convertible(const Graph& g, const std::vector<TensorType>& types, const Node& n) {
  if (n.domain != fused::kDomain || n.op_type != "FusedConv" || n.inputs.size() < 2 ||
      n.outputs.size() != 1 || n.attrs.i("panel", 0) != 0 || n.attrs.i("group", 1) != 1 ||
      n.attrs.f("post_scale", 1.f) != 1.f || n.attrs.f("post_shift", 0.f) != 0.f)
    return false;
  const std::string pad = n.attrs.has("auto_pad") ? n.attrs.s("auto_pad") : "NOTSET";
  if (pad != "NOTSET" && pad != "VALID") return false;
  const int x = n.inputs[0], w = n.inputs[1];
  if (x < 0 || w < 0 || !g.values[w].constant) return false;
  const Tensor& wt = *g.values[w].constant;
  const TensorType& xt = types[x];
  return wt.dtype() == DType::kF32 && xt.dtype == DType::kF32 && wt.shape().size() == 4 &&
         xt.shape && xt.shape->size() == 4 && wt.shape()[1] >= kC0 && wt.shape()[0] > 0 &&
         (*xt.shape)[1] == Dim(wt.shape()[1]);
}

// W [M, C, kH, kW] as FusedConv5HD's packed [K, Mp] (ops/fused_conv_5hd.cpp).
Tensor pack_5hd(const Tensor& w, int64_t panel, int64_t k_pack) {
  const Shape& s = w.shape();
  const int64_t m = s[0], c = s[1], win = s[2] * s[3], c1 = ceil_div(c, kC0);
  const int64_t mp = ceil_div(m, kC0) * kC0, k = c1 * win * kC0;
  std::vector<float> kxm(static_cast<size_t>(k * mp), 0.f);
  const float* src = w.data_as<float>();
  for (int64_t o = 0; o < m; ++o)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t t = 0; t < win; ++t)
        kxm[static_cast<size_t>(((ci / kC0 * win + t) * kC0 + ci % kC0) * mp + o)] =
            src[(o * c + ci) * win + t];
  const int64_t kp = ceil_div(k, k_pack) * k_pack, panels = ceil_div(mp, panel);
  Tensor p(DType::kF32, {panels, kp * panel});
  float* dst = p.data_as<float>();
  std::fill(dst, dst + panels * kp * panel, 0.f);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t o = 0; o < mp; ++o)
      dst[o / panel * kp * panel + kk / k_pack * panel * k_pack + o % panel * k_pack +
          kk % k_pack] = kxm[static_cast<size_t>(kk * mp + o)];
  return p;
}

TensorType blocked_type(const TensorType& t) {
  if (!t.shape || t.shape->size() != 4 || !(*t.shape)[1].known()) return {t.dtype, std::nullopt};
  const SymShape& s = *t.shape;
  return {t.dtype, SymShape{s[0], Dim(ceil_div(s[1].value(), kC0)), s[2], s[3], Dim(kC0)}};
}

}  // namespace

int convert_to_5hd(Graph& g, const std::vector<int>& keep, int64_t panel, int64_t k_pack) {
  if (global_registry().find(fused::kDomain, "FusedConv5HD", 1) == nullptr) return 0;
  const std::vector<TensorType> types = infer_symbolic(g).types;
  const int nn = static_cast<int>(g.nodes.size());
  std::vector<bool> cand(static_cast<size_t>(nn), false);
  for (int i = 0; i < nn; ++i) cand[i] = convertible(g, types, g.nodes[i]);
  // Groups of candidates joined where one's output is another's X or Z (union-find).
  std::vector<int> root(static_cast<size_t>(nn));
  std::iota(root.begin(), root.end(), 0);
  std::function<int(int)> find = [&](int i) { return root[i] == i ? i : root[i] = find(root[i]); };
  for (int i = 0; i < nn; ++i) {
    if (!cand[i]) continue;
    const Node& n = g.nodes[i];
    for (size_t k : {size_t{0}, size_t{3}}) {
      if (k >= n.inputs.size() || n.inputs[k] < 0) continue;
      const int p = g.values[n.inputs[k]].producer;
      if (p >= 0 && cand[p]) root[find(p)] = find(i);
    }
  }
  std::map<int, int> size;
  for (int i = 0; i < nn; ++i)
    if (cand[i]) ++size[find(i)];
  std::vector<bool> kept(g.values.size(), false);
  for (int v : keep) kept[v] = true;
  std::vector<bool> output(g.values.size(), false);
  for (int v : g.outputs) kept[v] = output[v] = true;
  std::vector<bool> foreign(g.values.size(), false);  // read by a node that is not rewritten
  auto find_foreign = [&] {
    std::fill(foreign.begin(), foreign.end(), false);
    for (int i = 0; i < nn; ++i)
      for (size_t k = 0; k < g.nodes[i].inputs.size(); ++k) {
        const int v = g.nodes[i].inputs[k];
        if (v >= 0 && (!cand[i] || (k != 0 && k != 3))) foreign[v] = true;
      }
  };
  find_foreign();
  // A group is worth its layout changes where its convolutions outnumber them four to one (a
  // ResNet: one To5HD and one From5HD around 19 or 52 convolutions), not a MobileNet's pairs of
  // 1x1 convolutions between depthwise ones, each pair with its own changes. (Groups are closed
  // under X and Z edges, so one group's changes do not depend on another's.)
  std::map<int, std::set<int>> changes;  // per group: values it converts in and out
  for (int i = 0; i < nn; ++i) {
    if (!cand[i]) continue;
    const Node& n = g.nodes[i];
    for (size_t k : {size_t{0}, size_t{3}})
      if (k < n.inputs.size() && n.inputs[k] >= 0) {
        const int p = g.values[n.inputs[k]].producer;
        if (p < 0 || !cand[p]) changes[find(i)].insert(n.inputs[k]);
      }
    // (Values kept only for a checker, `keep`, get their From5HD without counting: a model whose
    // values asc-check reads still runs its convolutions on 5HD maps.)
    if (foreign[n.outputs[0]] || output[n.outputs[0]]) changes[find(i)].insert(n.outputs[0]);
  }
  for (int i = 0; i < nn; ++i)
    cand[i] = cand[i] && size[find(i)] >= 4 &&
              4 * static_cast<int64_t>(changes[find(i)].size()) <= size[find(i)];
  find_foreign();

  std::map<int, int> blocked;  // NCHW value -> its 5HD value
  std::map<int, int> packed;   // weight value -> its packed constant
  int made = 0;
  // The rewritten convs' outputs first, so every X or Z finds its producer's 5HD value.
  for (int i = 0; i < nn; ++i) {
    if (!cand[i]) continue;
    const int v = g.nodes[i].outputs[0];
    const int b = g.add_value(cat(g.values[v].name, "/5hd"), blocked_type(types[v]));
    blocked[v] = b;
  }
  auto blocked_of = [&](int v) {
    auto it = blocked.find(v);
    if (it != blocked.end()) return it->second;
    const int b = g.add_value(cat(g.values[v].name, "/5hd"), blocked_type(types[v]));
    g.add_node(fused_node("To5HD", cat(g.values[v].name, "/to_5hd"), {v}, {b}));
    blocked[v] = b;
    return b;
  };
  for (int i = 0; i < nn; ++i) {
    if (!cand[i]) continue;
    const int w = g.nodes[i].inputs[1];
    auto pk = packed.find(w);
    if (pk == packed.end())
      pk = packed
               .emplace(w, g.add_constant(cat(g.values[w].name, "/5hd"),
                                          pack_5hd(*g.values[w].constant, panel, k_pack)))
               .first;
    const Shape ws = g.values[w].constant->shape();
    Node& n = g.nodes[i];
    Attrs a;
    a.set("m", ws[0]);
    a.set("kernel_shape", std::vector<int64_t>{ws[2], ws[3]});
    for (const char* name : {"strides", "dilations"})
      if (n.attrs.has(name)) a.set(name, n.attrs.ints(name));
    if ((!n.attrs.has("auto_pad") || n.attrs.s("auto_pad") == "NOTSET") && n.attrs.has("pads"))
      a.set("pads", n.attrs.ints("pads"));
    a.set("panel", panel);
    a.set("k_pack", k_pack);
    for (const char* name : {"activation"})
      if (n.attrs.has(name)) a.set(name, n.attrs.s(name));
    for (const char* name : {"alpha", "beta"})
      if (n.attrs.has(name)) a.set(name, n.attrs.f(name));
    std::vector<int> ins = {-1, pk->second, n.inputs.size() > 2 ? n.inputs[2] : -1, -1};
    const int x = n.inputs[0], z = n.inputs.size() > 3 ? n.inputs[3] : -1;
    const int v = n.outputs[0];
    ins[0] = blocked_of(x);
    if (z >= 0) ins[3] = blocked_of(z);
    Node& m = g.nodes[i];  // (blocked_of may have grown g.nodes)
    m.op_type = "FusedConv5HD";
    m.def = global_registry().find(fused::kDomain, "FusedConv5HD", 1);
    m.attrs = std::move(a);
    m.inputs = std::move(ins);
    m.outputs = {blocked[v]};
    g.values[blocked[v]].producer = i;
    g.values[v].producer = -1;
    if (kept[v] || foreign[v])
      g.add_node(fused_node("From5HD", cat(g.values[v].name, "/from_5hd"), {blocked[v]}, {v},
                            Attrs{{"channels", ws[0]}}));
    ++made;
  }
  return made;
}

}  // namespace asc
