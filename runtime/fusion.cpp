// The fusion driver, its graph index and the legality predicate (runtime/fusion.h).
#include "runtime/fusion.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "ops/fused.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/graph_passes.h"
#include "runtime/sym_infer.h"

namespace asc {

FuseGraph::FuseGraph(Graph& g, const std::vector<int>& keep)
    : g_(g),
      consumers_(g.values.size()),
      types_(infer_symbolic(g).types),
      output_(g.values.size(), false),
      keep_(g.values.size(), false),
      removed_(g.nodes.size(), false) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].inputs)
      if (v >= 0 && (consumers_[v].empty() || consumers_[v].back() != static_cast<int>(i)))
        consumers_[v].push_back(static_cast<int>(i));
  for (int v : g.outputs) output_[v] = true;
  for (int v : keep) keep_[v] = true;
}

int FuseGraph::producer(int v, std::string_view type) const {
  if (v < 0) return -1;
  const int p = g_.values[v].producer;
  return p >= 0 && is_op(*this, p, type) ? p : -1;
}

int FuseGraph::sole_consumer(int v, std::string_view type) const {
  if (v < 0 || consumers_[v].size() != 1) return -1;
  const int c = consumers_[v][0];
  return is_op(*this, c, type) ? c : -1;
}

const Tensor* FuseGraph::scalar(int v) const {
  if (v < 0 || !g_.values[v].constant || g_.values[v].constant->numel() != 1) return nullptr;
  return &*g_.values[v].constant;
}

int FuseGraph::add_constant(std::string name, Tensor t) {
  for (int k = 0; g_.find(name) >= 0; ++k) name = cat(name, "_", k);
  TensorType type{t.dtype(), to_sym(t.shape())};
  const int v = g_.add_constant(std::move(name), std::move(t));
  consumers_.resize(g_.values.size());
  types_.resize(g_.values.size());
  output_.resize(g_.values.size(), false);
  keep_.resize(g_.values.size(), false);
  types_[v] = type;
  return v;
}

int FuseGraph::replace(std::span<const int> nodes, Node fused) {
  const int id = static_cast<int>(g_.nodes.size());
  for (int n : nodes) {
    removed_[n] = true;
    for (int v : g_.nodes[n].inputs)
      if (v >= 0) std::erase(consumers_[v], n);
    for (int v : g_.nodes[n].outputs)
      if (v >= 0) g_.values[v].producer = -1;
  }
  for (int v : fused.inputs)
    if (v >= 0 && std::find(consumers_[v].begin(), consumers_[v].end(), id) == consumers_[v].end())
      consumers_[v].push_back(id);
  g_.add_node(std::move(fused));
  removed_.push_back(false);
  return id;
}

bool is_op(const FuseGraph& fg, int n, std::string_view type) {
  if (n < 0 || fg.removed(n)) return false;
  const Node& node = fg.graph().nodes[n];
  return node.domain.empty() && node.op_type == type && node.def;
}

bool can_fuse(const FuseGraph& fg, std::span<const int> nodes, std::span<const int> outputs) {
  const Graph& g = fg.graph();
  auto in_pattern = [&](int n) { return std::find(nodes.begin(), nodes.end(), n) != nodes.end(); };
  // 1. live, registered, expected domain, the version its opset selects.
  for (int n : nodes) {
    if (n < 0 || fg.removed(n)) return false;
    const Node& node = g.nodes[n];
    if (!node.def || (!node.domain.empty() && node.domain != fused::kDomain)) return false;
    if (global_registry().find(node.domain, node.op_type, node.opset) != node.def) return false;
  }
  // 2. outputs produced inside, dtype known.
  for (int v : outputs)
    if (v < 0 || !in_pattern(g.values[v].producer) || fg.type(v).dtype == DType::kUndefined)
      return false;
  // 3. interior values: consumed only inside, not a graph output, not kept, type known.
  for (int n : nodes)
    for (int v : g.nodes[n].outputs) {
      if (v < 0 || std::find(outputs.begin(), outputs.end(), v) != outputs.end()) continue;
      if (fg.is_output(v) || fg.kept(v)) return false;
      if (fg.type(v).dtype == DType::kUndefined || !fg.type(v).shape) return false;
      for (int c : fg.consumers(v))
        if (!in_pattern(c)) return false;
    }
  return true;
}

int other_operand(const Graph& g, int n, int v) {
  const auto& in = g.nodes[n].inputs;
  if (in.size() != 2) return -1;
  if (in[0] == v) return in[1];
  if (in[1] == v) return in[0];
  return -1;
}

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

Node fused_node(const std::string& type, std::string name, std::vector<int> inputs,
                std::vector<int> outputs, Attrs attrs, const std::string& domain) {
  Node n;
  n.name = std::move(name);
  n.op_type = type;
  n.domain = domain;
  n.opset = 1;
  n.def = global_registry().find(n.domain, type, n.opset);
  if (!n.def) throw UnsupportedError(cat("fusion: op ", domain, ".", type, " is not registered"));
  n.attrs = std::move(attrs);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

int FuseReport::fused() const {
  int s = 0;
  for (const auto& [op, c] : counts) s += c;
  return s;
}

std::string FuseReport::str() const {
  std::string s;
  for (const auto& [op, c] : counts)
    if (c > 0) s += cat(s.empty() ? "" : ", ", op, " ", c);
  return cat(s.empty() ? "nothing fused" : s, "; ", nodes_before, " -> ", nodes_after, " nodes");
}

FuseReport fuse(Graph& g, const FuseOptions& o) {
  FuseReport r;
  r.nodes_before = static_cast<int>(g.nodes.size());
  FuseGraph fg(g, o.keep);
  struct Pass {
    bool on;
    const char* op;
    int (*run)(FuseGraph&);
  };
  // Specific patterns first; the generic elementwise pass takes what is left.
  const Pass passes[] = {{o.attention, "FusedAttention", fuse_attention},
                         {o.rms_norm, "FusedRMSNorm", fuse_rms_norm},
                         {o.skip_layer_norm, "SkipLayerNormalization", fuse_skip_layer_norm},
                         {o.swiglu, "FusedSwiGLU", fuse_swiglu},
                         {o.matmul_bias, "FusedMatMulBias", fuse_matmul_bias},
                         {o.conv, "FusedConv", fuse_conv},
                         {o.rotary, "FusedRotary", fuse_rotary},
                         {o.elementwise, "FusedElementwise", fuse_elementwise}};
  for (const Pass& p : passes)
    if (p.on) r.counts[p.op] = p.run(fg);
  std::vector<bool> keep(g.nodes.size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = !fg.removed(static_cast<int>(i));
  compact(g, keep);
  r.nodes_after = static_cast<int>(g.nodes.size());
  spdlog::debug("fusion: {}", r.str());
  return r;
}

}  // namespace asc
