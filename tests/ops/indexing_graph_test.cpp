// The indexing family inside a model: data-dependent sizes (NonZero, Unique) of computed tensors
// and a TopK whose K is computed, planned while running; a Unique node asking for Y only.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "runtime/model.h"

namespace asc {
namespace {

Node node(const std::string& op, std::vector<int> in, std::vector<int> out, Attrs attrs = {}) {
  Node n;
  n.op_type = op;
  n.opset = 17;
  n.def = global_registry().find("", op, 17);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  return n;
}

Tensor f32s(Shape s, const std::vector<double>& v) {
  Tensor t(DType::kF32, std::move(s));
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return t;
}

Tensor i64s(std::vector<int64_t> v) {
  Tensor t(DType::kI64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data_as<int64_t>()[i] = v[i];
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.at(i));
  return v;
}

// r = Relu(x); nz = NonZero(r); u = Unique(r) (Y only); top = TopK(x, k + 0).Values.
Graph data_dependent_graph() {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(2), Dim(5)}});
  const int k = g.add_value("k", {DType::kI64, SymShape{Dim(1)}});
  const int zero = g.add_constant("zero", i64s({0}));
  const int r = g.add_value("r", {DType::kF32, std::nullopt});
  const int kk = g.add_value("kk", {DType::kI64, std::nullopt});
  const int nz = g.add_value("nz", {DType::kI64, std::nullopt});
  const int u = g.add_value("u", {DType::kF32, std::nullopt});
  const int top = g.add_value("top", {DType::kF32, std::nullopt});
  const int top_i = g.add_value("top_i", {DType::kI64, std::nullopt});
  g.inputs = {x, k};
  g.outputs = {nz, u, top};
  g.add_node(node("Relu", {x}, {r}));
  g.add_node(node("NonZero", {r}, {nz}));
  g.add_node(node("Unique", {r}, {u}));
  g.add_node(node("Add", {k, zero}, {kk}));
  g.add_node(node("TopK", {x, kk}, {top, top_i}));
  return g;
}

TEST(IndexingGraph, DataDependentSizesOfComputedTensors) {
  Model model(data_dependent_graph(), {2, "cpu", true});
  auto out = model.run({{"x", f32s({2, 5}, {-1, 2, 0, 3, 2, 0, -4, 5, 2, 0})}, {"k", i64s({2})}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].tensor.shape(), (Shape{2, 5}));
  EXPECT_EQ(values(out[0].tensor), (std::vector<double>{0, 0, 0, 1, 1, 1, 3, 4, 2, 3}));
  EXPECT_EQ(values(out[1].tensor), (std::vector<double>{0, 2, 3, 5}));
  EXPECT_EQ(values(out[2].tensor), (std::vector<double>{3, 2, 5, 2}));

  // Other values, other sizes: the same model plans again.
  out = model.run({{"x", f32s({2, 5}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1})}, {"k", i64s({1})}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].tensor.shape(), (Shape{2, 10}));
  EXPECT_EQ(values(out[1].tensor), (std::vector<double>{1}));
  EXPECT_EQ(out[2].tensor.shape(), (Shape{2, 1}));
}

}  // namespace
}  // namespace asc
