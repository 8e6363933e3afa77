// MatMul epilogues -> FusedMatMulBias:
//
//   y = MatMul(a, b)                   (b of rank >= 2 when a bias follows)
//   z = Add(y, bias) | Add(bias, y)    (bias [.., N] with leading 1s, or one element: z has y's
//   shape) act(z): Relu | Sigmoid | Tanh | Gelu (opset 20) | HardSwish | SiLU spelled
//   Mul(z, Sigmoid(z)) | GELU spelled in erf form, as torch exports nn.GELU before opset 20:
//     e = Erf(Div(z, sqrt 2) | Mul(z, 1 / sqrt 2)),  p = Add(e, 1),
//     Mul(Mul(z, p), 0.5)  or  Mul(Mul(z, 0.5), p)        (operands of Add and Mul either way)
//
// At least one of bias and activation; the longest legal form wins (an exposed z keeps the
// activation out). The q/k/v projections of Qwen2 are MatMul + bias. A Gemm with a constant B
// (a Linear layer) becomes a FusedMatMulBias too (gemm_as_matmul below).
#include <cctype>
#include <cmath>
#include <numbers>
#include <optional>

#include "registry/error.h"
#include "runtime/fusion.h"

namespace asc {
namespace {

// bias adds along y's last dim only: rank <= y's, leading dims 1, last dim N or 1 — so the sum
// has y's shape.
bool last_dim_bias(const TensorType& bias, const TensorType& y) {
  if (!bias.shape || !y.shape || y.shape->empty() || bias.shape->size() > y.shape->size())
    return false;
  for (size_t i = 0; i + 1 < bias.shape->size(); ++i)
    if (!((*bias.shape)[i].known() && (*bias.shape)[i].value() == 1)) return false;
  if (bias.shape->empty()) return true;
  const Dim &n = bias.shape->back(), &yn = y.shape->back();
  return (n.known() && n.value() == 1) || (n.known() && yn.known() && n.value() == yn.value()) ||
         (n.symbolic() && n == yn);
}

struct Activation {
  std::vector<int> nodes;
  int out = -1;
  std::string name;
};

// Whether binary node n reads v and, as its other operand, a one-element float constant
// within 1e-6 (relative) of `value`.
bool with_scalar(const FuseGraph& fg, int n, int v, double value) {
  const Tensor* c = fg.scalar(other_operand(fg.graph(), n, v));
  return c && dtype_is_float(c->dtype()) && std::fabs(c->at(0) - value) <= 1e-6 * value;
}

// The erf-form GELU reading z (two users: the scaling into Erf and a Mul), if it is one.
Activation gelu_erf_of(const FuseGraph& fg, int z) {
  const Graph& g = fg.graph();
  const auto& users = fg.consumers(z);
  for (int k = 0; k < 2; ++k) {
    const int d = users[k], u = users[1 - k];
    const bool div = is_op(fg, d, "Div") && g.nodes[d].inputs[0] == z &&
                     with_scalar(fg, d, z, std::numbers::sqrt2);
    const bool mul = is_op(fg, d, "Mul") && with_scalar(fg, d, z, 1 / std::numbers::sqrt2);
    if ((!div && !mul) || !is_op(fg, u, "Mul")) continue;
    const int e = fg.sole_consumer(g.nodes[d].outputs[0], "Erf");
    const int p = e < 0 ? -1 : fg.sole_consumer(g.nodes[e].outputs[0], "Add");
    if (p < 0 || !with_scalar(fg, p, g.nodes[e].outputs[0], 1.0)) continue;
    const int pv = g.nodes[p].outputs[0], uv = g.nodes[u].outputs[0];
    const int last = fg.sole_consumer(other_operand(g, u, z) == pv ? uv : pv, "Mul");
    if (last < 0) continue;
    const bool torch = other_operand(g, u, z) == pv && with_scalar(fg, last, uv, 0.5);
    const bool half_first = with_scalar(fg, u, z, 0.5) && other_operand(g, last, pv) == uv;
    if (torch || half_first) return {{d, e, p, u, last}, g.nodes[last].outputs[0], "gelu"};
  }
  return {};
}

// The activation reading z, if any.
Activation activation_of(const FuseGraph& fg, int z) {
  const Graph& g = fg.graph();
  const auto& users = fg.consumers(z);
  Activation a;
  if (users.size() == 2) {  // SiLU: Sigmoid(z) and Mul(z, sigmoid); GELU in erf form
    if (Activation gelu = gelu_erf_of(fg, z); !gelu.nodes.empty()) return gelu;
    for (int k = 0; k < 2; ++k) {
      const int sig = users[k], mul = users[1 - k];
      if (!is_op(fg, sig, "Sigmoid") || !is_op(fg, mul, "Mul") ||
          other_operand(g, mul, z) != g.nodes[sig].outputs[0])
        continue;
      return {{sig, mul}, g.nodes[mul].outputs[0], "silu"};
    }
    return a;
  }
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Gelu", "HardSwish"}) {
    const int n = fg.sole_consumer(z, op);
    if (n < 0) continue;
    std::string name = op;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "gelu" && g.nodes[n].attrs.has("approximate") &&
        g.nodes[n].attrs.s("approximate") == "tanh")
      name = "gelu_tanh";
    return {{n}, g.nodes[n].outputs[0], name};
  }
  return a;
}

}  // namespace

// Gemm(a, b, c) with a 2-D A, a constant B and C absent or a bias along N (a classifier's
// Linear as torch exports it, transB = 1) -> FusedMatMulBias(a, b', c') with b' = alpha * B' a
// new constant (B transposed when transB) and c' = beta * C: the MatMul forms then stream B
// row by row, and an activation after it fuses too.
int gemm_as_matmul(FuseGraph& fg, int n, int& b, int& c) {
  Graph& g = fg.graph();
  const Node& node = g.nodes[n];
  const Attrs& a = node.attrs;
  const int av = node.inputs[0], bv = node.inputs[1];
  c = node.inputs.size() > 2 ? node.inputs[2] : -1;
  // Handles, not pointers into g.values: adding constants below grows it.
  const std::optional<Tensor> bh = bv >= 0 ? g.values[bv].constant : std::nullopt;
  const std::optional<Tensor> ch = c >= 0 ? g.values[c].constant : std::nullopt;
  const Tensor* bt = bh ? &*bh : nullptr;
  const Tensor* ct = ch ? &*ch : nullptr;
  const TensorType& at = fg.type(av);
  if (!bt || bt->shape().size() != 2 || a.i("transA", 0) != 0 || !at.shape ||
      at.shape->size() != 2 || !dtype_is_float(bt->dtype()) || node.opset < 7)
    return -1;
  const bool tb = a.i("transB", 0) != 0;
  const int64_t k = tb ? bt->shape()[1] : bt->shape()[0], nn = tb ? bt->shape()[0] : bt->shape()[1];
  const double alpha = a.f("alpha", 1.f), beta = a.f("beta", 1.f);
  if (c >= 0 && (!ct || !(ct->numel() == nn || ct->numel() == 1) ||
                 (ct->shape().size() == 2 && ct->shape()[0] != 1)))
    return -1;
  Tensor nb = *bt;
  if (tb || alpha != 1.0) {
    nb = Tensor(bt->dtype(), {k, nn});
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < nn; ++j)
        nb.set(i * nn + j, alpha * bt->at(tb ? j * k + i : i * nn + j));
  }
  b = tb || alpha != 1.0 ? fg.add_constant(g.values[bv].name + "/kn", std::move(nb)) : bv;
  if (c >= 0 && beta != 1.0) {
    Tensor nc(ct->dtype(), ct->shape());
    for (int64_t i = 0; i < ct->numel(); ++i) nc.set(i, beta * ct->at(i));
    c = fg.add_constant(g.values[c].name + "/beta", std::move(nc));
  }
  if (beta == 0.0) c = -1;
  return av;
}

int fuse_matmul_bias(FuseGraph& fg) {
  Graph& g = fg.graph();
  int made = 0;
  for (int n = 0; n < fg.num_nodes(); ++n) {  // Gemm first: it may take an activation
    if (!is_op(fg, n, "Gemm")) continue;
    int b = -1, c = -1;
    const int a = gemm_as_matmul(fg, n, b, c);
    if (a < 0) continue;
    const int y = g.nodes[n].outputs[0];
    const Activation act = activation_of(fg, y);
    std::vector<std::pair<std::vector<int>, Activation>> forms;
    if (!act.nodes.empty()) {
      std::vector<int> with = {n};
      with.insert(with.end(), act.nodes.begin(), act.nodes.end());
      forms.push_back({with, act});
    }
    forms.push_back({{n}, Activation{{}, y, "none"}});
    for (const auto& [pattern, form] : forms) {
      const int out = form.out;
      if (!can_fuse(fg, pattern, std::span<const int>(&out, 1))) continue;
      Attrs attrs;
      attrs.set("activation", form.name);
      std::vector<int> inputs = {a, b};
      if (c >= 0) inputs.push_back(c);
      fg.replace(pattern, fused_node("FusedMatMulBias", g.nodes[g.values[out].producer].name,
                                     inputs, {out}, attrs));
      ++made;
      break;
    }
  }
  for (int mm = 0; mm < fg.num_nodes(); ++mm) {
    if (!is_op(fg, mm, "MatMul")) continue;
    const int a = g.nodes[mm].inputs[0], b = g.nodes[mm].inputs[1], y = g.nodes[mm].outputs[0];
    const TensorType& yt = fg.type(y);
    int bias = -1, z = y;
    std::vector<int> nodes = {mm};
    const int add = fg.sole_consumer(y, "Add");
    if (add >= 0 && fg.type(b).shape && fg.type(b).shape->size() >= 2) {
      const int c = other_operand(g, add, y);
      if (c != y && fg.type(c).dtype == yt.dtype && last_dim_bias(fg.type(c), yt)) {
        bias = c;
        z = g.nodes[add].outputs[0];
        nodes.push_back(add);
      }
    }
    const Activation act = activation_of(fg, z);
    // Candidates, longest first: bias + activation, bias alone, activation alone.
    std::vector<std::pair<std::vector<int>, Activation>> forms;
    if (!act.nodes.empty()) {
      std::vector<int> with = nodes;
      with.insert(with.end(), act.nodes.begin(), act.nodes.end());
      forms.push_back({with, act});
    }
    if (bias >= 0) forms.push_back({nodes, Activation{{}, z, "none"}});
    for (const auto& [pattern, form] : forms) {
      const int out = form.out;
      if (!can_fuse(fg, pattern, std::span<const int>(&out, 1))) continue;
      Attrs attrs;
      attrs.set("activation", form.name);
      std::vector<int> inputs = {a, b};
      if (bias >= 0) inputs.push_back(bias);
      fg.replace(pattern, fused_node("FusedMatMulBias", g.nodes[g.values[out].producer].name,
                                     inputs, {out}, attrs));
      ++made;
      break;
    }
  }
  return made;
}

}  // namespace asc
