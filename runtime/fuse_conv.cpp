// Convolutions and their epilogues -> FusedConv (ops/fused_conv.cpp):
//
//   y = Conv(x, w[, b])
//   [y = BatchNormalization(y, scale, bias, mean, var)]   inference form, every parameter and w
//                                                          constant: folded into w and b
//   [z = Add(y, r) | Add(r, y)]                            r of y's shape, provably (a residual)
//   [act(z)]: Relu | Sigmoid | Tanh | LeakyRelu | HardSigmoid | HardSwish | Clip (constant
//             bounds) | SiLU spelled Mul(z, Sigmoid(z))
//
// Every Conv becomes a FusedConv (activation none when nothing follows), so the load-time weight
// packing (runtime/weight_pack.h) finds every convolution in one form. The longest legal form
// wins: an exposed y or z keeps what follows it out.
#include <cmath>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/fusion.h"

namespace asc {
namespace {

// Shapes equal for every input: same rank, each dim the same known value or the same symbol.
bool same_shape(const TensorType& a, const TensorType& b) {
  if (!a.shape || !b.shape || a.shape->size() != b.shape->size()) return false;
  for (size_t i = 0; i < a.shape->size(); ++i) {
    const Dim &x = (*a.shape)[i], &y = (*b.shape)[i];
    const bool same = (x.known() && y.known() && x.value() == y.value()) ||
                      (x.symbolic() && y.symbolic() && x.symbol() == y.symbol());
    if (!same) return false;
  }
  return true;
}

const Tensor* constant(const Graph& g, int v) {
  return v >= 0 && g.values[v].constant ? &*g.values[v].constant : nullptr;
}

// BatchNormalization after the conv folded into new constants w' and b' (as double, stored in
// w's dtype): s = scale / sqrt(var + eps), w' = w * s per output channel, b' = (b - mean) * s +
// bias. False when a parameter is not a constant of [M] or the node is in training mode.
bool fold_batch_norm(FuseGraph& fg, int conv, int bn, int& w, int& b) {
  Graph& g = fg.graph();
  const Node& n = g.nodes[bn];
  const Tensor* wt = constant(g, w);
  if (!wt || n.inputs.size() != 5 || (n.attrs.has("training_mode") && n.attrs.i("training_mode")))
    return false;
  for (size_t k = 1; k < n.outputs.size(); ++k)
    if (n.outputs[k] >= 0) return false;
  const int64_t m = wt->shape()[0], per = m > 0 ? wt->numel() / m : 0;
  const Tensor* p[4];
  for (int k = 0; k < 4; ++k) {
    p[k] = constant(g, n.inputs[k + 1]);
    if (!p[k] || p[k]->numel() != m) return false;
  }
  const Tensor* bt = b >= 0 ? constant(g, b) : nullptr;
  if (b >= 0 && (!bt || bt->numel() != m)) return false;
  const double eps = n.attrs.has("epsilon") ? n.attrs.f("epsilon") : 1e-5;
  Tensor nw(wt->dtype(), wt->shape()), nb(wt->dtype(), {m});
  for (int64_t c = 0; c < m; ++c) {
    const double s = p[0]->at(c) / std::sqrt(p[3]->at(c) + eps);
    for (int64_t i = 0; i < per; ++i) nw.set(c * per + i, wt->at(c * per + i) * s);
    nb.set(c, ((bt ? bt->at(c) : 0.0) - p[2]->at(c)) * s + p[1]->at(c));
  }
  const std::string& name = g.nodes[conv].name;
  w = fg.add_constant(cat(name, "/w_bn"), std::move(nw));
  b = fg.add_constant(cat(name, "/b_bn"), std::move(nb));
  return true;
}

struct Act {
  std::vector<int> nodes;
  int out = -1;
  std::string name = "none";
  float alpha = 0, beta = 0;
};

Act activation_after(const FuseGraph& fg, int z) {
  const Graph& g = fg.graph();
  const auto& users = fg.consumers(z);
  if (users.size() == 2)  // SiLU: Sigmoid(z) and Mul(z, sigmoid)
    for (int k = 0; k < 2; ++k) {
      const int sig = users[k], mul = users[1 - k];
      if (is_op(fg, sig, "Sigmoid") && is_op(fg, mul, "Mul") &&
          other_operand(g, mul, z) == g.nodes[sig].outputs[0])
        return {{sig, mul}, g.nodes[mul].outputs[0], "silu"};
    }
  if (users.size() != 1) return {};
  const int n = users[0];
  if (n < 0 || fg.removed(n) || !g.nodes[n].domain.empty()) return {};
  const Node& a = g.nodes[n];
  const Attrs& at = a.attrs;
  Act r{{n}, a.outputs[0]};
  if (is_op(fg, n, "Relu")) r.name = "relu";
  if (is_op(fg, n, "Sigmoid")) r.name = "sigmoid";
  if (is_op(fg, n, "Tanh")) r.name = "tanh";
  if (is_op(fg, n, "HardSwish")) r.name = "hardswish";
  if (is_op(fg, n, "LeakyRelu")) r = {{n}, a.outputs[0], "leakyrelu", at.f("alpha", 0.01f)};
  if (is_op(fg, n, "HardSigmoid"))
    r = {{n}, a.outputs[0], "hardsigmoid", at.f("alpha", 0.2f), at.f("beta", 0.5f)};
  if (is_op(fg, n, "Clip")) {
    // Clip-1/6 bounds are attributes, Clip-11+ optional constant inputs.
    float lo = -INFINITY, hi = INFINITY;
    if (a.opset < 11) {
      lo = at.f("min", lo);
      hi = at.f("max", hi);
    } else {
      for (size_t k = 1; k < a.inputs.size(); ++k) {
        if (a.inputs[k] < 0) continue;
        const Tensor* t = fg.scalar(a.inputs[k]);
        if (!t) return {};
        (k == 1 ? lo : hi) = static_cast<float>(t->at(0));
      }
    }
    r = {{n}, a.outputs[0], "clip", lo, hi};
  }
  return r.name == "none" ? Act{} : r;
}

}  // namespace

int fuse_conv(FuseGraph& fg) {
  Graph& g = fg.graph();
  int made = 0;
  const int before = fg.num_nodes();
  for (int cv = 0; cv < before; ++cv) {
    if (!is_op(fg, cv, "Conv")) continue;
    const Node& conv = g.nodes[cv];
    int x = conv.inputs[0], w = conv.inputs[1], b = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
    int y = conv.outputs[0];
    std::vector<int> nodes = {cv};
    const int bn = fg.sole_consumer(y, "BatchNormalization");
    if (bn >= 0 && g.nodes[bn].inputs[0] == y) {
      const std::vector<int> with = {cv, bn};
      const int out = g.nodes[bn].outputs[0];
      int nw = w, nb = b;
      if (can_fuse(fg, with, std::span<const int>(&out, 1)) &&
          fold_batch_norm(fg, cv, bn, nw, nb)) {
        nodes = with;
        y = out;
        w = nw;
        b = nb;
      }
    }
    // Forms, longest first: residual + activation, residual, activation, the conv alone.
    int z = y, r = -1;
    const int add = fg.sole_consumer(y, "Add");
    if (add >= 0) {
      const int other = other_operand(g, add, y);
      if (other >= 0 && other != y && same_shape(fg.type(other), fg.type(y)) &&
          fg.type(other).dtype == fg.type(y).dtype) {
        r = other;
        z = g.nodes[add].outputs[0];
      }
    }
    struct Form {
      std::vector<int> nodes;
      int residual, out;
      Act act;
    };
    std::vector<Form> forms;
    if (r >= 0) {
      std::vector<int> with = nodes;
      with.push_back(add);
      const Act act = activation_after(fg, z);
      if (!act.nodes.empty()) {
        std::vector<int> all = with;
        all.insert(all.end(), act.nodes.begin(), act.nodes.end());
        forms.push_back({all, r, act.out, act});
      }
      forms.push_back({with, r, z, Act{}});
    }
    const Act act = activation_after(fg, y);
    if (!act.nodes.empty()) {
      std::vector<int> with = nodes;
      with.insert(with.end(), act.nodes.begin(), act.nodes.end());
      forms.push_back({with, -1, act.out, act});
    }
    forms.push_back({nodes, -1, y, Act{}});
    for (const Form& f : forms) {
      if (!can_fuse(fg, f.nodes, std::span<const int>(&f.out, 1))) continue;
      Attrs attrs = conv.attrs;
      attrs.set("activation", f.act.name);
      attrs.set("alpha", f.act.alpha);
      attrs.set("beta", f.act.beta);
      std::vector<int> inputs = {x, w, b};
      if (f.residual >= 0) inputs.push_back(f.residual);
      const std::string name = g.nodes[g.values[f.out].producer].name;
      fg.replace(f.nodes, fused_node("FusedConv", name, inputs, {f.out}, attrs));
      ++made;
      break;
    }
  }
  return made;
}

}  // namespace asc
