#include "runtime/fuse_attention.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "ops/fused_attention.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/fusion.h"

namespace asc {
namespace {

struct Match {
  std::vector<int> nodes;  // replaced by the fused node
  int q = -1, k = -1, v = -1, past_k = -1, past_v = -1, mask = -1;
  int out = -1, present_k = -1, present_v = -1;
  double scale = 1.0;
  int64_t heads = 0, kv_heads = 0;
  bool transpose = false;
};

// One repeat_kv chain (or none) down to its Concat.
struct KvChain {
  int present = -1, past = -1, fresh = -1;
  int64_t repeat = 1, heads = 0, head = 0, kv_heads = 0;
};

class Matcher {
 public:
  explicit Matcher(const FuseGraph& fg) : fg_(fg), g_(fg.graph()) {}

  // The block ending in this Softmax, with the trailing Transpose absorbed when `transpose`.
  std::optional<Match> match(int softmax, bool transpose) const;

 private:
  int producer(int v, const char* type) const { return fg_.producer(v, type); }
  const Tensor* constant(int v) const {
    return v >= 0 && g_.values[v].constant ? &*g_.values[v].constant : nullptr;
  }
  std::optional<std::vector<int64_t>> ints(int v) const {
    const Tensor* t = constant(v);
    if (!t || !dtype_is_integer(t->dtype())) return std::nullopt;
    std::vector<int64_t> r;
    for (int64_t i = 0; i < t->numel(); ++i) r.push_back(static_cast<int64_t>(t->at(i)));
    return r;
  }
  // The node's attributes with schema defaults; nullopt when they do not resolve.
  std::optional<Attrs> attrs(int node) const {
    try {
      return g_.nodes[node].def->resolve(g_.nodes[node].attrs);
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  bool perm_is(int node, const std::vector<int64_t>& perm) const {
    const auto a = attrs(node);
    return a && a->has("perm") && a->ints("perm") == perm;
  }
  std::optional<KvChain> kv_chain(int kr, Match& m) const;
  std::optional<double> scale_of(int scaled, int& scores, Match& m) const;

  const FuseGraph& fg_;
  const Graph& g_;
};

// kr = [Reshape(Expand(Unsqueeze(present, [2]), [1,1,r,1,1]), [0, N, -1, D])], present =
// Concat(past, fresh, axis 2); kv heads and head size from past's declared type.
std::optional<KvChain> Matcher::kv_chain(int kr, Match& m) const {
  KvChain c;
  c.present = kr;
  if (const int rs = producer(kr, "Reshape"); rs >= 0) {
    const auto ra = attrs(rs);
    const auto shape = ints(g_.nodes[rs].inputs.size() > 1 ? g_.nodes[rs].inputs[1] : -1);
    if (!ra || ra->i("allowzero", 0) != 0 || !shape || shape->size() != 4 || (*shape)[0] != 0 ||
        (*shape)[1] < 1 || (*shape)[2] != -1 || (*shape)[3] < 1)
      return std::nullopt;
    const int ex = producer(g_.nodes[rs].inputs[0], "Expand");
    const auto rep = ex < 0 ? std::nullopt : ints(g_.nodes[ex].inputs[1]);
    if (!rep || rep->size() != 5 || (*rep)[2] < 1) return std::nullopt;
    for (size_t i : {0, 1, 3, 4})
      if ((*rep)[i] != 1) return std::nullopt;
    const int un = producer(g_.nodes[ex].inputs[0], "Unsqueeze");
    if (un < 0) return std::nullopt;
    const Node& u = g_.nodes[un];
    std::optional<std::vector<int64_t>> axes;
    if (u.inputs.size() > 1) {
      axes = ints(u.inputs[1]);
    } else if (const auto ua = attrs(un); ua && ua->has("axes")) {
      axes = ua->ints("axes");
    }
    if (!axes || *axes != std::vector<int64_t>{2}) return std::nullopt;
    c.present = u.inputs[0];
    c.repeat = (*rep)[2];
    c.heads = (*shape)[1];
    c.head = (*shape)[3];
    m.nodes.insert(m.nodes.end(), {un, ex, rs});
  }
  const int cc = producer(c.present, "Concat");
  const auto ca = cc < 0 ? std::nullopt : attrs(cc);
  if (!ca || g_.nodes[cc].inputs.size() != 2 || (ca->i("axis") != 2 && ca->i("axis") != -2))
    return std::nullopt;
  c.past = g_.nodes[cc].inputs[0];
  c.fresh = g_.nodes[cc].inputs[1];
  m.nodes.push_back(cc);
  // The past's declared [batch, kv_heads, past, head] gives the repeat's meaning.
  const TensorType& pt = g_.values[c.past].type;
  if (!pt.shape || pt.shape->size() != 4 || !(*pt.shape)[1].known() || !(*pt.shape)[3].known())
    return std::nullopt;
  c.kv_heads = (*pt.shape)[1].value();
  const int64_t head = (*pt.shape)[3].value();
  if (c.repeat == 1 && c.heads == 0) c.heads = c.kv_heads, c.head = head;
  if (c.heads != c.kv_heads * c.repeat || c.head != head) return std::nullopt;
  return c;
}

// scaled = Mul(scores, c) | Mul(c, scores) | Div(scores, c), c a finite non-zero scalar constant.
std::optional<double> Matcher::scale_of(int scaled, int& scores, Match& m) const {
  auto scalar = [&](int v) -> std::optional<double> {
    const Tensor* t = constant(v);
    if (!t || t->numel() != 1 || !dtype_is_float(t->dtype())) return std::nullopt;
    const double x = t->at(0);
    if (!std::isfinite(x) || x == 0.0) return std::nullopt;
    return x;
  };
  if (const int mul = producer(scaled, "Mul"); mul >= 0) {
    const auto& in = g_.nodes[mul].inputs;
    for (int side : {1, 0})
      if (const auto c = scalar(in[side])) {
        scores = in[1 - side];
        m.nodes.push_back(mul);
        return *c;
      }
  }
  if (const int div = producer(scaled, "Div"); div >= 0)
    if (const auto c = scalar(g_.nodes[div].inputs[1])) {
      scores = g_.nodes[div].inputs[0];
      m.nodes.push_back(div);
      return 1.0 / *c;
    }
  return std::nullopt;
}

std::optional<Match> Matcher::match(int softmax, bool transpose) const {
  Match m;
  const Node& sm = g_.nodes[softmax];
  const auto sa = attrs(softmax);
  if (!sa || (sa->i("axis") != -1 && sa->i("axis") != 3)) return std::nullopt;
  m.nodes.push_back(softmax);
  const int probs = sm.outputs[0];
  // Add(scaled, mask) in either order.
  const int add = producer(sm.inputs[0], "Add");
  if (add < 0) return std::nullopt;
  m.nodes.push_back(add);
  int scores = -1;
  std::optional<double> scale;
  for (int side : {0, 1}) {
    Match trial = m;
    if ((scale = scale_of(g_.nodes[add].inputs[side], scores, trial))) {
      m = trial;
      m.mask = g_.nodes[add].inputs[1 - side];
      break;
    }
  }
  if (!scale) return std::nullopt;
  m.scale = *scale;
  const int qk = producer(scores, "MatMul");
  if (qk < 0) return std::nullopt;
  m.nodes.push_back(qk);
  m.q = g_.nodes[qk].inputs[0];
  const int tk = producer(g_.nodes[qk].inputs[1], "Transpose");
  if (tk < 0 || !perm_is(tk, {0, 1, 3, 2})) return std::nullopt;
  m.nodes.push_back(tk);
  const auto kc = kv_chain(g_.nodes[tk].inputs[0], m);
  // probs x vr, the only use of probs.
  const int pv = fg_.sole_consumer(probs, "MatMul");
  if (!kc || pv < 0 || g_.nodes[pv].inputs[0] != probs) return std::nullopt;
  m.nodes.push_back(pv);
  const Node& pvn = g_.nodes[pv];
  const auto vc = kv_chain(pvn.inputs[1], m);
  if (!vc || vc->heads != kc->heads || vc->kv_heads != kc->kv_heads || vc->head != kc->head)
    return std::nullopt;
  m.k = kc->fresh, m.past_k = kc->past, m.present_k = kc->present;
  m.v = vc->fresh, m.past_v = vc->past, m.present_v = vc->present;
  m.heads = kc->heads;
  m.kv_heads = kc->kv_heads;
  m.out = pvn.outputs[0];
  if (transpose) {  // Transpose(ctx, [0,2,1,3]) as ctx's only use
    const int tr = fg_.sole_consumer(m.out, "Transpose");
    if (tr < 0 || !perm_is(tr, {0, 2, 1, 3})) return std::nullopt;
    m.nodes.push_back(tr);
    m.out = g_.nodes[tr].outputs[0];
    m.transpose = true;
  }
  return m;
}

}  // namespace

int fuse_attention(FuseGraph& fg) {
  if (!global_registry().find(fused::kDomain, "FusedAttention", 1)) return 0;
  const Matcher matcher(fg);
  int count = 0;
  for (int i = 0; i < fg.num_nodes(); ++i) {
    if (!is_op(fg, i, "Softmax")) continue;
    // With the trailing Transpose absorbed when that is legal, else without it.
    std::optional<Match> m;
    for (bool transpose : {true, false}) {
      m = matcher.match(i, transpose);
      if (m && can_fuse(fg, m->nodes, std::vector<int>{m->out, m->present_k, m->present_v})) break;
      m.reset();
    }
    if (!m) continue;
    const std::string& name = fg.graph().nodes[i].name;
    const size_t slash = name.rfind('/');
    Attrs a;
    a.set("scale", static_cast<float>(m->scale));
    a.set("num_heads", m->heads);
    a.set("kv_num_heads", m->kv_heads);
    a.set("transpose_output", int64_t{m->transpose ? 1 : 0});
    fg.replace(m->nodes,
               fused_node("FusedAttention",
                          cat(slash == std::string::npos ? name + "/" : name.substr(0, slash + 1),
                              "FusedAttention"),
                          {m->q, m->k, m->v, m->past_k, m->past_v, m->mask},
                          {m->out, m->present_k, m->present_v}, std::move(a)));
    ++count;
  }
  return count;
}

int fuse_attention(Graph& g, const std::vector<int>& keep) {
  FuseOptions o;
  o.keep = keep;
  o.rms_norm = o.swiglu = o.matmul_bias = o.rotary = o.elementwise = false;
  return fuse(g, o).counts["FusedAttention"];
}

}  // namespace asc
