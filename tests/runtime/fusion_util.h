// Shared pieces of the fusion tests: a graph builder and the fused-against-unfused comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/ops.h"
#include "runtime/graph.h"
#include "runtime/model.h"

namespace asc::test {

// Builds graphs value by value: op(name, inputs, attrs) returns the output value.
class Builder {
 public:
  Builder() { g.opsets[""] = 17; }
  int input(const std::string& name, Shape s) {
    const int v = g.add_value(name, {DType::kF32, to_sym(s)});
    g.inputs.push_back(v);
    return v;
  }
  int constant(const std::string& name, Tensor t) { return g.add_constant(name, std::move(t)); }
  int op(const std::string& type, const std::string& name, std::vector<int> in, Attrs a = {}) {
    const int out = g.add_value(name, {});
    Node n;
    n.name = name;
    n.op_type = type;
    n.opset = 17;
    n.def = global_registry().find("", type, 17);
    n.attrs = std::move(a);
    n.inputs = std::move(in);
    n.outputs = {out};
    g.add_node(std::move(n));
    return out;
  }
  Graph g;
};

// A float tensor of shape s (rank 0 by default) filled with v.
inline Tensor scalar(double v, Shape s = {}) {
  Tensor t(DType::kF32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, v);
  return t;
}

// Binary node `op` named `name` reading v and a new constant c (constant first when c_first).
inline int with_const(Builder& b, const std::string& op, const std::string& name, int v, Tensor c,
                      bool c_first = false) {
  const int k = b.constant(name + "_c", std::move(c));
  return b.op(op, name, c_first ? std::vector<int>{k, v} : std::vector<int>{v, k});
}

// Outputs of the graph with fusion on and off (same precision), compared within rtol of the
// largest magnitude.
inline void expect_same_outputs(const Graph& g, const std::vector<NamedTensor>& in, double rtol,
                                DType precision = DType::kF32) {
  ModelOptions on, off;
  on.threads = off.threads = 2;
  on.precision = off.precision = precision;
  off.optimize = false;
  const auto a = Model(g, on).run(in), b = Model(g, off).run(in);
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].tensor.shape(), b[k].tensor.shape()) << a[k].name;
    double peak = 0, diff = 0;
    for (int64_t i = 0; i < b[k].tensor.numel(); ++i) {
      peak = std::max(peak, std::abs(b[k].tensor.at(i)));
      diff = std::max(diff, std::abs(a[k].tensor.at(i) - b[k].tensor.at(i)));
    }
    EXPECT_LE(diff, rtol * peak) << a[k].name;
  }
}

inline int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op_type == op;
  return n;
}

}  // namespace asc::test
