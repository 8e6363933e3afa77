// asc-check's second look at a node whose outputs are outside tolerance in the chained run
// (docs/CHECK.md, "Nodes judged alone"): the node alone, its inputs that are not constants fed
// ONNX Runtime's values of them, run in asc and compared again. The error carried in from
// upstream is then gone, and what is left is the node's own.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/model.h"

namespace asc::check {

// asc's outputs of node `n` of `g` run alone: the graph inputs it reads fed from `inputs`, the
// other values it reads (not constants) from `ort` (ONNX Runtime's values by name). nullopt where
// the node cannot run alone: a control-flow node, or an input neither side has.
std::optional<std::map<std::string, Tensor>> run_alone(const Graph& g, const Node& n,
                                                       const std::map<std::string, Tensor>& ort,
                                                       const std::vector<NamedTensor>& inputs,
                                                       ModelOptions mo);

}  // namespace asc::check
