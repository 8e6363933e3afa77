// Symbolic inference of a whole graph at load, for the passes that match on types (fusion).
//
// Each value gets its type from the registry's inference, run in topological order from the
// declared input types and the constants. Exporters with dynamic axes (torch's) compute shapes
// at run time: Shape -> Gather -> Unsqueeze -> Concat -> Reshape. So that the values after such
// a Reshape keep a rank and dims, the elements of small integer tensors computed from shapes
// are tracked too, as symbolic dims: a known integer, a product of symbols with a coefficient
// ("batch", "12*batch", "batch*sequence"), or unknown. Shape of [batch, sequence, 768] is
// {batch, sequence, 768}; Gather, Unsqueeze, Squeeze, Concat, Slice, Cast and the arithmetic of
// Add, Sub, Mul and Div carry those elements through (a product of symbols stays exact; a sum of
// different symbols, or a division that does not come out even, is unknown). A node whose
// inference needs such a value gets it as a constant when every element is a known integer;
// Reshape, Expand and ConstantOfShape also take symbolic elements.
//
// Invariant: a dim or element stated (known or a product of symbols) equals the run-time value
// whenever every symbol of the same name has one value throughout the graph (ONNX's meaning of a
// dim_param); anything not derivable is left unknown, never guessed.
#pragma once

#include <optional>
#include <vector>

#include "runtime/graph.h"

namespace asc {

struct SymInference {
  std::vector<TensorType> types;  // per value: declared, or inferred when it knows more
  std::vector<std::optional<SymShape>> elems;  // per value: a shape-like tensor's elements
};

SymInference infer_symbolic(const Graph& g);

// Products of symbols: Dim arithmetic of the inference above (unknown when not exact).
Dim dim_mul(const Dim& a, const Dim& b);
Dim dim_div(const Dim& a, const Dim& b);  // exact quotient, else unknown
Dim dim_add(const Dim& a, const Dim& b);
Dim dim_sub(const Dim& a, const Dim& b);

}  // namespace asc
