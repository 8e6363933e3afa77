#include "runtime/graph_passes.h"

#include "registry/error.h"
#include "runtime/op_runner.h"

namespace asc {

void compact(Graph& g, const std::vector<bool>& keep) {
  std::vector<Node> kept;
  for (auto& v : g.values) v.producer = -1;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!keep[i]) continue;
    for (int o : g.nodes[i].outputs)
      if (o >= 0) g.values[o].producer = static_cast<int>(kept.size());
    kept.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(kept);
}

int fold_constants(Graph& g, const cpu::CpuDevice& device, int64_t max_bytes) {
  std::vector<bool> keep(g.nodes.size(), true);
  int folded = 0;
  for (int i : g.topo_order()) {
    Node& n = g.nodes[i];
    if (!n.def || n.inputs.empty() || n.def->has(kRandom)) continue;
    bool all_const = true;
    std::vector<Tensor> ins;
    for (int v : n.inputs) {
      if (v >= 0 && !g.values[v].constant) all_const = false;
      ins.push_back(v >= 0 && g.values[v].constant ? *g.values[v].constant : Tensor());
    }
    if (!all_const) continue;
    std::vector<Tensor> outs;
    try {
      const Attrs resolved = n.def->resolve(n.attrs);
      int64_t bytes = 0;
      for (const auto& d : infer_outputs(*n.def, resolved, ins, n.outputs.size()))
        bytes += numel(d.shape) * static_cast<int64_t>(dtype_size(d.dtype));
      if (bytes > max_bytes) continue;
      OpRunOptions o;
      o.num_outputs = n.outputs.size();
      outs = run_op(*n.def, n.attrs, ins, device, o);
    } catch (const Error&) {
      continue;  // left for run time, where the error names the node and shapes
    }
    for (size_t k = 0; k < n.outputs.size() && k < outs.size(); ++k)
      if (n.outputs[k] >= 0) {
        Value& out = g.values[n.outputs[k]];
        out.type = TensorType{outs[k].dtype(), to_sym(outs[k].shape())};
        out.constant = std::move(outs[k]);
      }
    keep[i] = false;
    ++folded;
  }
  compact(g, keep);
  return folded;
}

int eliminate_dead_nodes(Graph& g, const std::vector<int>& keep_values) {
  std::vector<bool> live_value(g.values.size(), false), keep(g.nodes.size(), false);
  for (int v : g.outputs) live_value[v] = true;
  for (int v : keep_values) live_value[v] = true;
  const std::vector<int> order = g.topo_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& n = g.nodes[*it];
    for (int o : n.outputs) keep[*it] = keep[*it] || (o >= 0 && live_value[o]);
    if (!keep[*it]) continue;
    for (int v : n.inputs)
      if (v >= 0) live_value[v] = true;
  }
  int removed = 0;
  for (bool k : keep) removed += !k;
  compact(g, keep);
  return removed;
}

}  // namespace asc
