#include "tools/check_alone.h"

namespace asc::check {

std::optional<std::map<std::string, Tensor>> run_alone(const Graph& g, const Node& n,
                                                       const std::map<std::string, Tensor>& ort,
                                                       const std::vector<NamedTensor>& inputs,
                                                       ModelOptions mo) {
  if (!n.subgraphs.empty() || n.captured > 0) return std::nullopt;
  Graph one;
  one.opsets = g.opsets;
  one.name = g.name;
  Node m = n;
  m.inputs.clear();
  m.outputs.clear();
  std::vector<NamedTensor> feeds;
  for (int v : n.inputs) {
    if (v < 0) {
      m.inputs.push_back(-1);
      continue;
    }
    const Value& val = g.values[v];
    int id = one.find(val.name);
    if (id < 0 && val.constant) {
      id = one.add_constant(val.name, *val.constant);
    } else if (id < 0) {
      const Tensor* t = nullptr;
      for (const NamedTensor& in : inputs)
        if (in.name == val.name) t = &in.tensor;
      if (auto it = ort.find(val.name); !t && it != ort.end()) t = &it->second;
      if (!t) return std::nullopt;
      id = one.add_value(val.name, TensorType{t->dtype(), to_sym(t->shape())});
      one.inputs.push_back(id);
      feeds.push_back({val.name, *t});
    }
    m.inputs.push_back(id);
  }
  for (int v : n.outputs) {
    if (v < 0) {
      m.outputs.push_back(-1);
      continue;
    }
    const int id = one.add_value(g.values[v].name, g.values[v].type);
    m.outputs.push_back(id);
    one.outputs.push_back(id);
  }
  one.add_node(std::move(m));
  mo.optimize = false;
  mo.expose.clear();
  const Model model(std::move(one), mo);
  std::map<std::string, Tensor> out;
  for (NamedTensor& t : model.run(feeds)) out.emplace(std::move(t.name), std::move(t.tensor));
  return out;
}

}  // namespace asc::check
