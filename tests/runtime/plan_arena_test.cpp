// The activation arena: elementwise kernels write over an input only they read (in place), and the
// result equals a naive evaluation for every dtype and shape, broadcast operands included.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/ops.h"
#include "runtime/model.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::node;

// y = tanh(sigmoid(relu(x + b)) * x2) with b broadcast along rows; x2 = x * x is read twice.
Graph chain(DType dt, const Tensor& b) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {dt, std::nullopt});
  const int bv = g.add_constant("b", b);
  std::vector<int> v;
  for (const char* name : {"x2", "s", "r", "g", "m", "y"})
    v.push_back(g.add_value(name, {dt, std::nullopt}));
  g.inputs = {x};
  g.outputs = {v[5]};
  g.add_node(node("Mul", {x, x}, {v[0]}));
  g.add_node(node("Add", {v[0], bv}, {v[1]}));
  g.add_node(node("Relu", {v[1]}, {v[2]}));
  g.add_node(node("Sigmoid", {v[2]}, {v[3]}));
  g.add_node(node("Mul", {v[3], v[0]}, {v[4]}));
  g.add_node(node("Tanh", {v[4]}, {v[5]}));
  return g;
}

TEST(PlanArena, ElementwiseChainsRunInPlace) {
  for (DType dt : {DType::kF32, DType::kF16}) {
    for (const Shape& shape : {Shape{5, 7}, Shape{64, 300}, Shape{0, 3}, Shape{1, 1}}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + to_string(shape));
      std::mt19937 rng(static_cast<uint32_t>(numel(shape)));
      std::uniform_real_distribution<double> u(-2, 2);
      Tensor b(dt, {shape[1]}), x(dt, shape);
      for (int64_t i = 0; i < b.numel(); ++i) b.set(i, u(rng));
      for (int64_t i = 0; i < x.numel(); ++i) x.set(i, u(rng));
      Model model(chain(dt, b), {2, "cpu", true});
      const auto plan = model.plan_for({x.desc()});
      // s, r, g over x2 ... : Add cannot (x2 is read twice), Relu/Sigmoid/Mul write over their
      // input; the graph output y has its own buffer.
      EXPECT_EQ(plan->in_place, 3);
      const int64_t one = (numel(shape) * static_cast<int64_t>(dtype_size(dt)) + 63) / 64 * 64;
      EXPECT_LE(plan->arena_bytes, 2 * std::max<int64_t>(one, 64));
      const Tensor y = model.run({{"x", x}})[0].tensor;
      ASSERT_EQ(y.shape(), shape);
      const double tol = dt == DType::kF16 ? 4e-3 : 1e-5;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double xi = x.at(i), x2 = xi * xi;
        const double r = std::max(0.0, x2 + b.at(i % shape[1]));
        const double want = std::tanh(1.0 / (1.0 + std::exp(-r)) * x2);
        ASSERT_NEAR(y.at(i), want, tol) << i;
      }
    }
  }
}

}  // namespace
}  // namespace asc
