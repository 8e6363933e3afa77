#include "runtime/graph.h"

#include "registry/error.h"
#include "registry/strings.h"

namespace asc {

std::string Node::label() const {
  return cat(name, " (", op_type, ")");
}

int Graph::add_value(std::string name, TensorType type) {
  if (!name.empty() && by_name_.count(name))
    throw ModelError(cat("value '", name, "' is defined twice"));
  const int id = static_cast<int>(values.size());
  if (!name.empty()) by_name_[name] = id;
  values.push_back(Value{std::move(name), std::move(type), std::nullopt, -1});
  return id;
}

int Graph::add_constant(std::string name, Tensor t) {
  const int id = add_value(std::move(name), TensorType{t.dtype(), to_sym(t.shape())});
  values[id].constant = std::move(t);
  return id;
}

int Graph::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

int Graph::add_node(Node n) {
  const int id = static_cast<int>(nodes.size());
  if (n.name.empty()) n.name = cat(n.op_type, "#", id);
  for (int o : n.outputs) {
    if (o < 0) continue;
    if (values[o].producer >= 0 || values[o].constant)
      throw ModelError(
          cat("node ", n.label(), ": output '", values[o].name, "' is already produced elsewhere"));
    values[o].producer = id;
  }
  nodes.push_back(std::move(n));
  return id;
}

std::vector<int> Graph::topo_order() const {
  // Kahn's algorithm over value availability; a value is available when it is a graph input, a
  // constant, or produced by an emitted node.
  const int nn = static_cast<int>(nodes.size());
  std::vector<int> missing(nn, 0);
  std::vector<std::vector<int>> users(values.size());
  std::vector<bool> available(values.size(), false);
  for (int v : inputs) available[v] = true;
  for (size_t v = 0; v < values.size(); ++v)
    if (values[v].constant) available[v] = true;
  for (int i = 0; i < nn; ++i)
    for (int v : nodes[i].inputs) {
      if (v < 0 || available[v]) continue;
      if (values[v].producer < 0)
        throw ModelError(cat("node ", nodes[i].label(), ": input '", values[v].name,
                             "' is not a graph input, an initializer or any node's output"));
      ++missing[i];
      users[v].push_back(i);
    }
  std::vector<int> order, ready;
  for (int i = nn - 1; i >= 0; --i)
    if (missing[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    const int i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (int o : nodes[i].outputs) {
      if (o < 0) continue;
      for (int u : users[o])
        if (--missing[u] == 0) ready.push_back(u);
      users[o].clear();
    }
  }
  if (static_cast<int>(order.size()) != nn) {
    std::string stuck;
    for (int i = 0; i < nn && stuck.size() < 200; ++i)
      if (missing[i] > 0) stuck += cat(stuck.empty() ? "" : ", ", nodes[i].label());
    throw ModelError(cat("the graph has a cycle through ", stuck));
  }
  return order;
}

}  // namespace asc
