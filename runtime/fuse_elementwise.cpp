// Elementwise patterns: SwiGLU, and the generic pass that turns runs of elementwise nodes into
// one FusedElementwise whose tile program splices the nodes' own tile kernels.
//
// SwiGLU -> FusedSwiGLU:   s = Sigmoid(g); m = Mul(g, s); y = Mul(m, up)   (operands either order)
//
// Elementwise runs -> FusedElementwise. A node qualifies by its traits, not its name (spliceable():
// trait kElementwise, a tile kernel, inputs that broadcast numpy-style into its output, ...).
// Groups grow from a sink (the last node, in reverse topological order) towards its producers: a
// producer joins when every consumer of its output is already in the group (can_fuse's rule,
// checked again on the whole group), unless it makes one element and the sink more: the fused
// tile expands every operand to the output's tile, so that producer would run once per output
// element — Swin's Pow(head_dim, -0.5) per element of q — instead of once (at planning, when its
// inputs are known). A group of two or more nodes is fused; its operands may broadcast, since
// elementwise ops commute with broadcasting.
#include <algorithm>

#include "ops/fused.h"
#include "registry/error.h"
#include "runtime/fusion.h"

namespace asc {
namespace {

constexpr size_t kMaxSteps = 24;   // per fused chain
constexpr size_t kMaxInputs = 12;  // per fused chain (each a double-buffered tile in UB)

bool chain_candidate(const FuseGraph& fg, int n) {
  if (n < 0 || fg.removed(n)) return false;
  const Node& node = fg.graph().nodes[n];
  if (node.outputs.size() != 1 || node.outputs[0] < 0) return false;
  if (!node.domain.empty() && (node.domain != fused::kDomain || node.op_type == "FusedElementwise"))
    return false;
  std::vector<TensorType> in;
  for (int v : node.inputs) in.push_back(v >= 0 ? fg.type(v) : TensorType{});
  return spliceable(node, in, fg.type(node.outputs[0]));
}

// Dims equal for sure: the same known value or the same symbol.
bool same_dim(const Dim& a, const Dim& b) {
  return (a.known() && b.known() && a.value() == b.value()) || (a.symbolic() && a == b);
}

// One element for sure (every dim known 1, or rank 0).
bool one_element(const TensorType& t) {
  if (!t.shape) return false;
  for (const Dim& d : *t.shape)
    if (!d.known() || d.value() != 1) return false;
  return true;
}

}  // namespace

bool spliceable(const Node& n, const std::vector<TensorType>& inputs, const TensorType& output) {
  const OpDef* d = n.def;
  if (!d || !d->has(kElementwise) || d->kernel_kind() != KernelKind::kTile) return false;
  if (n.outputs.size() != 1 || output.dtype == DType::kUndefined ||
      dtype_is_host_object(output.dtype) || !output.shape)
    return false;
  if (!fused::chain_encodable(n.attrs) || n.attrs.has("to") || n.attrs.has("dtype")) return false;
  for (const TensorType& t : inputs) {
    if (t.dtype == DType::kUndefined) continue;  // an absent optional input
    if (dtype_is_host_object(t.dtype) || !t.shape) return false;
    if (d->has(kBroadcast)) continue;
    const SymShape &s = *t.shape, &o = *output.shape;
    bool same = s.size() == o.size(), one = s.size() <= o.size();
    for (size_t i = 0; i < s.size(); ++i) {
      same = same && same_dim(s[i], o[i]);
      one = one && s[i].known() && s[i].value() == 1;
    }
    if (!same && !one) return false;
  }
  return true;
}

namespace {

// Live nodes in an order where producers come first (levels from the graph inputs).
std::vector<int> live_order(const FuseGraph& fg) {
  const Graph& g = fg.graph();
  const int nn = static_cast<int>(g.nodes.size());
  std::vector<int> level(nn, -1), stack;
  for (int root = 0; root < nn; ++root) {
    if (fg.removed(root) || level[root] >= 0) continue;
    stack.push_back(root);
    while (!stack.empty()) {  // iterative DFS: a node's level once its producers have theirs
      const int n = stack.back();
      int lv = 0;
      bool ready = true;
      for (int v : g.nodes[n].inputs) {
        const int p = v >= 0 ? g.values[v].producer : -1;
        if (p < 0) continue;
        if (level[p] < 0) {
          stack.push_back(p);
          ready = false;
        } else {
          lv = std::max(lv, level[p] + 1);
        }
      }
      if (!ready) continue;
      level[n] = lv;
      stack.pop_back();
    }
  }
  std::vector<int> order;
  for (int n = 0; n < nn; ++n)
    if (!fg.removed(n)) order.push_back(n);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return level[a] < level[b]; });
  return order;
}

}  // namespace

int fuse_swiglu(FuseGraph& fg) {
  Graph& g = fg.graph();
  int made = 0;
  for (int sig = 0; sig < fg.num_nodes(); ++sig) {
    if (!is_op(fg, sig, "Sigmoid")) continue;
    const int gate = g.nodes[sig].inputs[0], s = g.nodes[sig].outputs[0];
    const int m1 = fg.sole_consumer(s, "Mul");
    if (m1 < 0 || other_operand(g, m1, s) != gate) continue;
    const int m = g.nodes[m1].outputs[0];
    const int m2 = fg.sole_consumer(m, "Mul");
    const int up = m2 >= 0 ? other_operand(g, m2, m) : -1;
    const DType dt = fg.type(gate).dtype;
    if (up < 0 || up == m || fg.type(up).dtype != dt ||
        (dt != DType::kF32 && dt != DType::kF16 && dt != DType::kBF16 && dt != DType::kF64))
      continue;
    const int y = g.nodes[m2].outputs[0];
    const int nodes[] = {sig, m1, m2};
    if (!can_fuse(fg, nodes, std::span<const int>(&y, 1))) continue;
    fg.replace(nodes, fused_node("FusedSwiGLU", g.nodes[m2].name, {gate, up}, {y}));
    ++made;
  }
  return made;
}

int fuse_elementwise(FuseGraph& fg) {
  Graph& g = fg.graph();
  const std::vector<int> order = live_order(fg);
  std::vector<int> pos(g.nodes.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int>(i);
  std::vector<bool> grouped(g.nodes.size(), false);
  int made = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int sink = *it;
    if (grouped[sink] || !chain_candidate(fg, sink)) continue;
    std::vector<int> group = {sink};
    grouped[sink] = true;
    auto member = [&](int n) { return std::find(group.begin(), group.end(), n) != group.end(); };
    for (bool grew = true; grew && group.size() < kMaxSteps;) {
      grew = false;
      for (size_t i = 0; i < group.size() && group.size() < kMaxSteps; ++i)
        for (int v : g.nodes[group[i]].inputs) {
          const int p = v >= 0 ? g.values[v].producer : -1;
          if (p < 0 || grouped[p] || !chain_candidate(fg, p) || fg.is_output(v) || fg.kept(v) ||
              (one_element(fg.type(v)) && !one_element(fg.type(g.nodes[sink].outputs[0]))))
            continue;
          const auto& users = fg.consumers(v);
          if (!std::all_of(users.begin(), users.end(), member)) continue;
          group.push_back(p);
          grouped[p] = true;
          grew = true;
        }
    }
    if (group.size() < 2) continue;
    std::sort(group.begin(), group.end(), [&](int a, int b) { return pos[a] < pos[b]; });
    // The chain: external operands in order of first use, earlier steps by their codes.
    std::vector<int> inputs;
    std::vector<fused::ChainStep> steps;
    for (size_t k = 0; k < group.size(); ++k) {
      const Node& n = g.nodes[group[k]];
      fused::ChainStep s{n.domain, n.op_type, n.opset, {}, n.attrs};
      for (int v : n.inputs) {
        const int p = v >= 0 ? g.values[v].producer : -1;
        const auto at = std::find(group.begin(), group.end(), p);
        if (v < 0) {
          s.args.push_back(-1);
        } else if (p >= 0 && at != group.end()) {
          s.args.push_back(fused::chain_step_code(static_cast<size_t>(at - group.begin())));
        } else {
          auto in = std::find(inputs.begin(), inputs.end(), v);
          if (in == inputs.end()) in = inputs.insert(inputs.end(), v);
          s.args.push_back(in - inputs.begin());
        }
      }
      steps.push_back(std::move(s));
    }
    const int y = g.nodes[group.back()].outputs[0];
    if (inputs.size() > kMaxInputs || !can_fuse(fg, group, std::span<const int>(&y, 1))) continue;
    fg.replace(group, fused_node("FusedElementwise", g.nodes[group.back()].name, inputs, {y},
                                 fused::encode_chain(steps)));
    ++made;
  }
  return made;
}

}  // namespace asc
