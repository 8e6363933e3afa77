// What the runtime's two ways of running control flow share: node by node
// (runtime/control_flow.cpp) and as plan steps (runtime/control_flow_plan.cpp,
// control_flow_run.cpp).
#pragma once

#include <span>
#include <vector>

#include "runtime/graph.h"

namespace asc {

// Scan (opset 9+): per scan input its axis (non-negative) and direction, per scan output its
// axis as given (negative from the end; scan_output_axis) and direction.
struct ScanAxes {
  size_t states = 0, scans = 0;  // states, then scan inputs; outputs: states, then scan outputs
  std::vector<int64_t> in_axis, out_axis;
  std::vector<bool> in_rev, out_rev;
};

// From Scan node n's attributes and its own inputs (not the captured ones; defined where given).
// Throws ModelError / ShapeError naming the attribute.
ScanAxes scan_axes(const Node& n, std::span<const Tensor> own);

// A scan output's axis for a stacked rank `rank` (negative from the end); ShapeError when out of
// range.
int64_t scan_output_axis(int64_t axis, size_t rank);

// Element t along `axis` of x: a strided view of x's memory (read-only use). Host objects:
// UnsupportedError.
Tensor along(const Tensor& x, int64_t axis, int64_t t);

}  // namespace asc
