#include "runtime/graph_passes.h"

#include <limits>
#include <optional>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
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
    if (!n.def || n.inputs.empty() || n.def->has(kRandom) || n.def->has(kControlFlow)) continue;
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

namespace {

bool inference_dropout(const Graph& g, const Node& n) {
  if (n.op_type != "Dropout" || !n.domain.empty() || n.inputs.empty() || n.inputs[0] < 0 ||
      n.outputs.empty() || n.outputs[0] < 0)
    return false;
  if (n.opset < 7) return n.attrs.i("is_test", 0) != 0;
  if (n.opset < 12 || n.inputs.size() < 3 || n.inputs[2] < 0) return true;
  const auto constant_is = [&](int v, double value) {
    const std::optional<Tensor>& c = g.values[v].constant;
    return c && c->numel() == 1 && c->at(0) == value;
  };
  // Training with ratio 0 keeps every element too (torch exports nn.Dropout(p=0) so).
  return constant_is(n.inputs[2], 0.0) || (n.inputs[1] >= 0 && constant_is(n.inputs[1], 0.0));
}

}  // namespace

int bypass_inference_dropouts(Graph& g, const std::vector<int>& keep_values) {
  std::vector<bool> pinned(g.values.size(), false), read(g.values.size(), false);
  for (int v : g.outputs) pinned[v] = true;
  for (int v : keep_values) pinned[v] = true;
  for (const Node& n : g.nodes)
    for (int v : n.inputs)
      if (v >= 0) {
        read[v] = true;
        if (!n.subgraphs.empty()) pinned[v] = true;
      }
  std::vector<int> source(g.values.size(), -1);
  std::vector<bool> keep(g.nodes.size(), true);
  int removed = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!inference_dropout(g, n) || pinned[n.outputs[0]]) continue;
    bool mask_free = true;
    for (size_t o = 1; o < n.outputs.size(); ++o)
      mask_free = mask_free && (n.outputs[o] < 0 || (!read[n.outputs[o]] && !pinned[n.outputs[o]]));
    if (!mask_free) continue;
    source[n.outputs[0]] = n.inputs[0];
    keep[i] = false;
    ++removed;
  }
  if (removed == 0) return 0;
  for (Node& n : g.nodes)
    for (int& v : n.inputs)
      while (v >= 0 && source[v] >= 0) v = source[v];
  compact(g, keep);
  return removed;
}

bool keep_last_position(Graph& g, const std::string& output) {
  const int out = g.find(output);
  if (out < 0 || std::find(g.outputs.begin(), g.outputs.end(), out) == g.outputs.end())
    return false;
  const int p = g.values[out].producer;
  if (p < 0) return false;
  const Node& mm = g.nodes[p];
  if (mm.op_type != "MatMul" || !mm.domain.empty() || mm.inputs.size() != 2 || mm.inputs[0] < 0 ||
      mm.inputs[1] < 0 || !g.values[mm.inputs[1]].constant ||
      g.values[mm.inputs[1]].constant->shape().size() != 2)
    return false;
  // With a 2-D B, the output's rank is A's: A's rows (axis -2) are the positions.
  if (!g.values[out].type.shape || g.values[out].type.shape->size() < 2) return false;
  // Copies: adding values below may move g.values.
  const std::string a_name = g.values[mm.inputs[0]].name;
  const TensorType a_type = g.values[mm.inputs[0]].type;
  const OpDef* slice = global_registry().find("", "Slice", 13);
  if (!slice) return false;
  auto i64 = [&g](const std::string& name, int64_t v) {
    Tensor t(DType::kI64, {1});
    t.data_as<int64_t>()[0] = v;
    return g.add_constant(name, std::move(t));
  };
  const std::string base = cat(a_name, "/last_position");
  const int starts = i64(cat(base, "/starts"), -1);
  const int ends = i64(cat(base, "/ends"), std::numeric_limits<int64_t>::max());
  const int axes = i64(cat(base, "/axes"), -2);
  std::optional<SymShape> rows = a_type.shape;
  if (rows && rows->size() >= 2) (*rows)[rows->size() - 2] = Dim(int64_t{1});
  const int last = g.add_value(base, TensorType{a_type.dtype, rows});
  Node s;
  s.name = base;
  s.op_type = "Slice";
  s.opset = 13;
  s.def = slice;
  s.inputs = {g.nodes[p].inputs[0], starts, ends, axes};
  s.outputs = {last};
  g.nodes[p].inputs[0] = last;
  g.add_node(std::move(s));
  SymShape& ys = *g.values[out].type.shape;
  ys[ys.size() - 2] = Dim(int64_t{1});
  return true;
}

}  // namespace asc
