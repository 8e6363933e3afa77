// Graph: what an importer produces and the runtime plans. Values are SSA (one producer each);
// nodes refer to values by index; -1 is an absent optional input.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "registry/op_def.h"
#include "registry/tensor.h"

namespace asc {

struct Value {
  std::string name;
  TensorType type;                 // what is known: dtype, and rank/dims when known
  std::optional<Tensor> constant;  // initializers, Constant nodes, folded values
  int producer = -1;               // node index, -1 for graph inputs and constants
};

class Graph;

struct Node {
  std::string name;  // the model's node name (may be empty; then "<op_type>#<index>")
  std::string op_type;
  std::string domain;  // "" for ai.onnx
  int opset = 0;       // the model's opset for this domain
  const OpDef* def = nullptr;
  Attrs attrs;               // as given by the model; the OpDef fills defaults at plan time
  std::vector<int> inputs;   // value ids, -1 where an optional input is absent
  std::vector<int> outputs;  // value ids, -1 where an optional output is not wanted
  // Control flow (If, Loop, Scan): the graph attributes by name. A subgraph reads values of the
  // enclosing graphs by name (Graph::outer); the node lists those values as its last `captured`
  // inputs, after the op's own, so ordering, liveness and the passes see the dependency.
  std::map<std::string, std::shared_ptr<const Graph>> subgraphs;
  int captured = 0;

  std::string label() const;  // "name (op_type)"
};

class Graph {
 public:
  // A new value; throws ModelError on a duplicate name.
  int add_value(std::string name, TensorType type);
  // A constant value (initializer, Constant node).
  int add_constant(std::string name, Tensor t);
  // Index of the value with this name, or -1.
  int find(const std::string& name) const;
  // Adds a node and sets its outputs' producer; throws ModelError when an output already has one.
  int add_node(Node n);

  // Nodes in an order where every input is produced before use; throws ModelError naming the
  // nodes on a cycle or the input nothing produces.
  std::vector<int> topo_order() const;

  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs;            // graph inputs that are not constants (the caller feeds them)
  std::vector<int> outputs;           // graph outputs, in order
  std::map<std::string, int> opsets;  // domain ("" = ai.onnx) -> opset version
  std::string name;
  // A subgraph's values from enclosing scopes, by name: each is also in `inputs`, after the
  // formal inputs (the node running the subgraph feeds them from its captured inputs).
  std::vector<std::string> outer;

 private:
  std::map<std::string, int> by_name_;
};

}  // namespace asc
