// MatMul epilogues -> FusedMatMulBias:
//
//   y = MatMul(a, b)                   (b of rank >= 2 when a bias follows)
//   z = Add(y, bias) | Add(bias, y)    (bias [.., N] with leading 1s, or one element: z has y's
//                                       shape)
//   act(z)                             activation_after (runtime/fuse_activation.cpp) without
//                                      parameters: Relu, Sigmoid, Tanh, Gelu, HardSwish, SiLU,
//                                      GELU in erf form as torch exports nn.GELU before opset 20,
//                                      hard-swish written out
//
// At least one of bias and activation; the longest legal form wins (an exposed z keeps the
// activation out). The q/k/v projections of Qwen2 are MatMul + bias. A Gemm with a constant B
// (a Linear layer) becomes a FusedMatMulBias too (gemm_as_matmul below).
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

// The activation reading z that FusedMatMulBias takes: one without parameters (it has no
// alpha / beta attributes).
Activation activation_of(const FuseGraph& fg, int z) {
  Activation a = activation_after(fg, z);
  if (a.name == "clip" || a.name == "hardsigmoid" || a.name == "leakyrelu") return {};
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
