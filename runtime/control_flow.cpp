// Control flow in the runtime: every subgraph of a control-flow node is a nested Model, planned
// and executed like the top-level one (its plans cached per input shapes); the node's kernel is
// the loop here that feeds it. Supported: If. Subgraphs run at the model's own dtypes (the
// precision conversion does not reach into them).
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/model.h"

namespace asc {

void Model::load_subgraphs() {
  for (const Node& n : graph_.nodes)
    for (const auto& [attr, sub] : n.subgraphs) {
      if (subgraphs_.count(sub.get())) continue;
      ModelOptions o = options_;
      o.expose = {};
      o.last_logits_only = false;
      o.kv_cache_precision = false;
      o.precision = DType::kF32;
      o.plan_cache = 8;
      try {
        subgraphs_.emplace(sub.get(), std::make_unique<const Model>(Graph(*sub), o));
      } catch (const Error& e) {
        throw ModelError(cat("subgraph '", attr, "' of node ", n.label(), ": ", e.what()));
      }
    }
}

std::vector<Tensor> Model::run_control_flow(const Node& n, const std::vector<Tensor>& ins) const {
  if (n.op_type != "If")
    throw UnsupportedError(cat(n.op_type, " is not supported by the runtime's control flow yet"));
  const size_t own = ins.size() - static_cast<size_t>(n.captured);
  if (own != 1 || !ins[0].defined() || ins[0].numel() != 1 || ins[0].dtype() != DType::kBool)
    throw ShapeError(cat("If: cond must be one bool element, got ",
                         own >= 1 && ins[0].defined() ? ins[0].desc().str() : std::string("none")));
  const char* branch = ins[0].at(0) != 0.0 ? "then_branch" : "else_branch";
  const auto it = n.subgraphs.find(branch);
  if (it == n.subgraphs.end()) throw ModelError(cat("If: the node has no ", branch));
  const Model& sub = *subgraphs_.at(it->second.get());
  const Graph& sg = sub.graph();
  // The branch reads enclosing values by name: they are this node's captured inputs.
  std::vector<NamedTensor> feed;
  for (int v : sg.inputs) {
    const std::string& name = sg.values[v].name;
    bool found = false;
    for (size_t k = own; k < ins.size() && !found; ++k)
      if (graph_.values[n.inputs[k]].name == name) {
        feed.push_back({name, ins[k]});
        found = true;
      }
    if (!found)
      throw ModelError(cat("If: ", branch, " reads '", name, "', which the node does not capture"));
  }
  std::vector<NamedTensor> out;
  try {
    out = sub.run(feed);
  } catch (const Error& e) {
    throw Error(cat(branch, ": ", e.what()));
  }
  if (out.size() != n.outputs.size())
    throw ShapeError(
        cat("If: ", branch, " has ", out.size(), " outputs, the node ", n.outputs.size()));
  std::vector<Tensor> result;
  for (auto& o : out) result.push_back(std::move(o.tensor));
  return result;
}

}  // namespace asc
