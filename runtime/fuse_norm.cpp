// RMSNorm as exported from PyTorch (Qwen2RMSNorm, LlamaRMSNorm) -> FusedRMSNorm:
//
//   sq = Pow(x, 2) | Mul(x, x)
//   mean = ReduceMean(sq, axes = [-1], keepdims = 1)      (axes an attribute, or an input from 18)
//   var = Add(mean, eps)                                  (eps: a one-element constant)
//   root = Sqrt(var)
//   normed = Div(x, root) | Mul(x, Reciprocal(root))
//   y = Mul(weight, normed)                               (optional; weight [.., H] along the last
//                                                          axis, either operand)
//
// When the weight's Mul cannot be taken in (normed is exposed or read elsewhere), the norm without
// it is fused.
//
// A residual Add and the LayerNormalization after it (over the last axis; scale and bias [H];
// Mean and InvStdDev unread) -> com.microsoft SkipLayerNormalization (ops/contrib_skip_norm.cpp),
// as ONNX Runtime fuses them; the Add's sum is its input_skip_bias_sum where anything else reads
// it (a pre-norm block's residual stream).
#include "registry/error.h"
#include "registry/infer.h"
#include "runtime/fusion.h"

namespace asc {
namespace {

bool float_storage(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
}

// ReduceMean over exactly the last axis with keepdims, on an input of known rank.
bool mean_of_last_axis(const FuseGraph& fg, int n) {
  const Node& node = fg.graph().nodes[n];
  const TensorType& x = fg.type(node.inputs[0]);
  if (!x.shape || x.shape->empty() || node.attrs.i("keepdims", 1) != 1) return false;
  std::vector<int64_t> axes;
  if (node.attrs.has("axes")) {
    axes = node.attrs.ints("axes");
  } else if (node.inputs.size() > 1 && node.inputs[1] >= 0 &&
             fg.graph().values[node.inputs[1]].constant) {
    axes = to_int64s(*fg.graph().values[node.inputs[1]].constant);
  }
  const auto rank = static_cast<int64_t>(x.shape->size());
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

// weight broadcasts along the last axis of x only: [.., H] with leading 1s, H = x's last dim.
bool last_axis_weight(const TensorType& w, const TensorType& x) {
  if (!w.shape || !x.shape || w.shape->empty() || w.shape->size() > x.shape->size()) return false;
  for (size_t i = 0; i + 1 < w.shape->size(); ++i)
    if (!((*w.shape)[i].known() && (*w.shape)[i].value() == 1)) return false;
  const Dim &h = w.shape->back(), &xh = x.shape->back();
  return (h.known() && xh.known() && h.value() == xh.value()) || (h.symbolic() && h == xh);
}

// v is [H] of dtype dt, H the last dim of x.
bool hidden_vector(const TensorType& v, DType dt, const TensorType& x) {
  if (v.dtype != dt || !v.shape || v.shape->size() != 1) return false;
  const Dim &h = v.shape->front(), &xh = x.shape->back();
  return (h.known() && xh.known() && h.value() == xh.value()) || (h.symbolic() && h == xh);
}

}  // namespace

int fuse_skip_layer_norm(FuseGraph& fg) {
  Graph& g = fg.graph();
  int made = 0;
  for (int ln = 0; ln < fg.num_nodes(); ++ln) {
    if (!is_op(fg, ln, "LayerNormalization")) continue;
    const Node& n = g.nodes[ln];
    const int s = n.inputs[0], add = fg.producer(s, "Add");
    if (add < 0) continue;
    const int a = g.nodes[add].inputs[0], b = g.nodes[add].inputs[1];
    const TensorType& ts = fg.type(s);
    if (!float_storage(ts.dtype) || !ts.shape || ts.shape->empty() ||
        fg.type(a).dtype != ts.dtype || fg.type(b).dtype != ts.dtype ||
        !same_shape(fg.type(a), ts) || !same_shape(fg.type(b), ts))
      continue;  // (a broadcast Add is no skip)
    const auto rank = static_cast<int64_t>(ts.shape->size());
    const int64_t axis = n.attrs.i("axis", -1);
    if ((axis != -1 && axis != rank - 1) || n.attrs.i("stash_type", 1) != 1) continue;
    const int gamma = n.inputs[1], beta = n.inputs.size() > 2 ? n.inputs[2] : -1;
    if (!hidden_vector(fg.type(gamma), ts.dtype, ts) ||
        (beta >= 0 && !hidden_vector(fg.type(beta), ts.dtype, ts)))
      continue;
    bool stats = false;  // LayerNormalization's Mean / InvStdDev read: the op has other ones
    for (size_t k = 1; k < n.outputs.size(); ++k) {
      const int o = n.outputs[k];
      stats = stats || (o >= 0 && (!fg.consumers(o).empty() || fg.is_output(o) || fg.kept(o)));
    }
    if (stats) continue;
    // The sum is an output too where something else reads it (a pre-norm block's residual).
    const bool sum_read = fg.consumers(s).size() > 1 || fg.is_output(s) || fg.kept(s);
    std::vector<int> outs = {n.outputs[0]};
    if (sum_read) outs.push_back(s);
    const int nodes[] = {add, ln};
    if (!can_fuse(fg, nodes, outs)) continue;
    Attrs attrs;
    attrs.set("epsilon", n.attrs.has("epsilon") ? n.attrs.f("epsilon") : 1e-5f);
    std::vector<int> f_outs = {n.outputs[0]};
    if (sum_read) f_outs.insert(f_outs.end(), {-1, -1, s});
    Node f = fused_node("SkipLayerNormalization", n.name, {a, b, gamma, beta}, std::move(f_outs),
                        std::move(attrs), "com.microsoft");
    fg.replace(nodes, std::move(f));
    ++made;
  }
  return made;
}

int fuse_rms_norm(FuseGraph& fg) {
  Graph& g = fg.graph();
  int made = 0;
  for (int rm = 0; rm < fg.num_nodes(); ++rm) {
    if (!is_op(fg, rm, "ReduceMean") || !mean_of_last_axis(fg, rm)) continue;
    const int sq = g.nodes[rm].inputs[0];
    int sq_node = fg.producer(sq, "Pow"), x = -1;
    if (sq_node >= 0) {
      const Tensor* e = fg.scalar(g.nodes[sq_node].inputs[1]);
      if (e && e->at(0) == 2.0) x = g.nodes[sq_node].inputs[0];
    } else if ((sq_node = fg.producer(sq, "Mul")) >= 0 &&
               g.nodes[sq_node].inputs[0] == g.nodes[sq_node].inputs[1]) {
      x = g.nodes[sq_node].inputs[0];
    }
    if (x < 0 || !float_storage(fg.type(x).dtype)) continue;
    const int add = fg.sole_consumer(g.nodes[rm].outputs[0], "Add");
    if (add < 0) continue;
    const Tensor* eps = fg.scalar(other_operand(g, add, g.nodes[rm].outputs[0]));
    if (!eps || !dtype_is_float(eps->dtype())) continue;
    const int sqrt = fg.sole_consumer(g.nodes[add].outputs[0], "Sqrt");
    if (sqrt < 0) continue;
    const int root = g.nodes[sqrt].outputs[0];
    std::vector<int> nodes = {sq_node, rm, add, sqrt};
    int div = fg.sole_consumer(root, "Div");
    if (div >= 0 && g.nodes[div].inputs[0] == x && g.nodes[div].inputs[1] == root) {
      nodes.push_back(div);
    } else if (const int rec = fg.sole_consumer(root, "Reciprocal"); rec >= 0) {
      div = fg.sole_consumer(g.nodes[rec].outputs[0], "Mul");
      if (div < 0 || other_operand(g, div, g.nodes[rec].outputs[0]) != x) continue;
      nodes.push_back(rec);
      nodes.push_back(div);
    } else {
      continue;
    }
    const int normed = g.nodes[div].outputs[0];
    Attrs attrs;
    attrs.set("epsilon", static_cast<float>(eps->at(0)));
    attrs.set("axis", int64_t{-1});
    // With the weight's Mul when it can be taken in, else the norm alone.
    const int mul = fg.sole_consumer(normed, "Mul");
    const int weight = mul >= 0 ? other_operand(g, mul, normed) : -1;
    if (weight >= 0 && weight != normed && fg.type(weight).dtype == fg.type(x).dtype &&
        last_axis_weight(fg.type(weight), fg.type(x))) {
      std::vector<int> with = nodes;
      with.push_back(mul);
      const int y = g.nodes[mul].outputs[0];
      if (can_fuse(fg, with, std::span<const int>(&y, 1))) {
        fg.replace(with, fused_node("FusedRMSNorm", g.nodes[mul].name, {x, weight}, {y}, attrs));
        ++made;
        continue;
      }
    }
    if (!can_fuse(fg, nodes, std::span<const int>(&normed, 1))) continue;
    fg.replace(nodes, fused_node("FusedRMSNorm", g.nodes[div].name, {x}, {normed}, attrs));
    ++made;
  }
  return made;
}

}  // namespace asc
