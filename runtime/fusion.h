// Graph fusion: load-time passes that replace subgraphs by the fused ops of ops/fused.h. Model
// runs fuse() after constant folding and before precision conversion when ModelOptions::optimize
// is set (asc-run --optimize 0 turns it off). docs/RUNTIME.md "Fusion" describes the patterns.
//
// Every pattern decides with one predicate, can_fuse() below; nothing else makes a fusion legal.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "ops/fused.h"
#include "runtime/graph.h"

namespace asc {

struct FuseOptions {
  // Values that must survive (ModelOptions::expose, what asc-check reads): never fused away.
  std::vector<int> keep;
  // The patterns, in the order they run (each may be switched off, e.g. by tests).
  bool attention =
      true;  // the decoder attention block -> FusedAttention (runtime/fuse_attention.h)
  bool rms_norm =
      true;  // Pow, ReduceMean, Add, Sqrt, Div (or Reciprocal, Mul), Mul -> FusedRMSNorm
  bool skip_layer_norm = true;  // Add, LayerNormalization -> com.microsoft SkipLayerNormalization
  bool swiglu = true;           // Sigmoid(g), Mul(g, .), Mul(., up) -> FusedSwiGLU
  bool matmul_bias = true;      // MatMul, Add(bias), activation -> FusedMatMulBias
  bool conv = true;    // Conv (BatchNormalization, per-channel scale/shift folded), Add(residual),
                       // activation -> FusedConv
  bool rotary = true;  // Slice, Slice, Neg, Concat, Mul, Mul, Add -> FusedRotary
  bool elementwise = true;  // runs of elementwise nodes -> FusedElementwise (last: takes the rest)
};

// What fuse() did: fused nodes made per fused op type, node counts before and after.
struct FuseReport {
  std::map<std::string, int> counts;  // "FusedRMSNorm" -> 5
  int nodes_before = 0, nodes_after = 0;

  int fused() const;        // fused nodes made
  std::string str() const;  // "FusedRMSNorm 5, FusedSwiGLU 2; 130 -> 70 nodes"
};

FuseReport fuse(Graph& g, const FuseOptions& o = {});

// The graph as the patterns see it: each value's consumers and symbolic type (declared, or
// inferred through the registry's inference from the graph inputs and constants), the keep-set,
// and the nodes already fused away. replace() keeps it current, so patterns run one after another
// on one index; the graph is compacted when fuse() ends.
class FuseGraph {
 public:
  FuseGraph(Graph& g, const std::vector<int>& keep);

  Graph& graph() { return g_; }
  const Graph& graph() const { return g_; }
  const std::vector<int>& consumers(int v) const { return consumers_[v]; }
  const TensorType& type(int v) const { return types_[v]; }
  bool is_output(int v) const { return output_[v]; }
  bool kept(int v) const { return keep_[v]; }
  bool removed(int node) const { return removed_[node]; }
  // Nodes of the graph as it was when the pass started (fused nodes are appended after them).
  int num_nodes() const { return static_cast<int>(removed_.size()); }

  // The node producing v when it is a live node of ai.onnx op `type`; -1 otherwise.
  int producer(int v, std::string_view type) const;
  // The only consumer of v when there is exactly one and it is a live ai.onnx `type`; else -1.
  int sole_consumer(int v, std::string_view type) const;
  // The value of constant v when it has one element; nullptr otherwise.
  const Tensor* scalar(int v) const;
  // A new constant (a pattern's transformed weights); returns its value id.
  int add_constant(std::string name, Tensor t);

  // Replaces `nodes` by `fused`, whose outputs are values the nodes produced (the pattern's
  // outputs); returns the fused node's index. Call only after can_fuse() said yes.
  int replace(std::span<const int> nodes, Node fused);

 private:
  Graph& g_;
  std::vector<std::vector<int>> consumers_;
  std::vector<TensorType> types_;
  std::vector<bool> output_, keep_, removed_;
};

// True when node n is a live node of ai.onnx op `type` whose registered version is the one its
// opset selects (what every pattern step checks).
bool is_op(const FuseGraph& fg, int n, std::string_view type);

// THE legality predicate. A pattern — `nodes`, to be replaced by one fused node producing
// `outputs` — may be fused only when:
//   1. every node is live (not fused away by an earlier match), registered (def set), and in the
//      domain the pattern expects: ai.onnx, or ai.asc for fused nodes a later pattern takes in;
//      its def is the version the registry selects for the node's opset;
//   2. every output is produced by a node of the pattern and has a known dtype;
//   3. every other value the nodes produce (an interior value, removed by the fusion) is consumed
//      only by nodes of the pattern, is not a graph output, is not in the keep-set (values exposed
//      for asc-check), and has a known type (dtype and rank).
// Patterns check what their op needs (shapes, constants) before asking; this decides whether
// removing the interior values is safe.
bool can_fuse(const FuseGraph& fg, std::span<const int> nodes, std::span<const int> outputs);

// Whether node n, with these input types and output type, may be a step of a FusedElementwise:
// trait kElementwise, a tile kernel, one output of known dtype and rank, attributes the chain
// encoding holds and none naming a dtype (`to`, `dtype`: precision conversion rewrites those after
// fusion, which it cannot do inside a chain), and inputs that broadcast numpy-style into the
// output — by the op's trait kBroadcast, or else by having the output's shape or one element.
bool spliceable(const Node& n, const std::vector<TensorType>& inputs, const TensorType& output);

// The patterns (runtime/fuse_*.cpp); each returns the fused nodes it made.
int fuse_attention(FuseGraph& fg);  // first: the chain passes would take its scale and mask Add
int fuse_rms_norm(FuseGraph& fg);
int fuse_skip_layer_norm(FuseGraph& fg);
int fuse_swiglu(FuseGraph& fg);
int fuse_matmul_bias(FuseGraph& fg);
int fuse_conv(FuseGraph& fg);
int fuse_rotary(FuseGraph& fg);
int fuse_elementwise(FuseGraph& fg);

// The other operand of binary node n (v itself when both are v); -1 when v is not an operand.
int other_operand(const Graph& g, int n, int v);

// Shapes equal for every input: same rank, each dim the same known value or the same symbol.
bool same_shape(const TensorType& a, const TensorType& b);

// An activation reading value z, as the fused epilogues take it (FusedConv, FusedMatMulBias):
// the nodes computing it, its output (of z's shape and dtype), its name and parameters as
// ops/matmul.h's matmul_activation reads them. runtime/fuse_activation.cpp lists the spellings
// (single ops, and hard-swish, hard-sigmoid, SiLU, GELU and Relu6 written out in primitives).
// No nodes and name "none" when no activation reads z.
struct Activation {
  std::vector<int> nodes;
  int out = -1;
  std::string name = "none";
  float alpha = 0, beta = 0;
};
Activation activation_after(const FuseGraph& fg, int z);

// A fused node of op `type` (ai.asc, or `domain`; opset 1) named `name`, def looked up in the
// registry.
Node fused_node(const std::string& type, std::string name, std::vector<int> inputs,
                std::vector<int> outputs, Attrs attrs = {},
                const std::string& domain = fused::kDomain);

}  // namespace asc
