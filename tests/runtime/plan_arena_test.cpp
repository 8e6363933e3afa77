// The activation arena: elementwise kernels write over an input whose last reader they are (in
// place), views (Reshape, a Transpose moving only size-1 dims) take their input's memory and run
// nothing, and the result equals a naive evaluation for every dtype and shape, broadcast operands
// included.
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

// a = Relu(x); s = Sigmoid(a); m = a * s; n = m + s; y = Tanh(n). a and s are each read twice:
// Mul is a's last reader but not s's, so it writes over a (and Sigmoid, not a's last reader,
// writes a buffer of its own); Add is the last reader of both m and s and writes over m.
TEST(PlanArena, TheLastReaderWritesInPlace) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, std::nullopt});
  std::vector<int> v;
  for (const char* name : {"a", "s", "m", "n", "y"})
    v.push_back(g.add_value(name, {DType::kF32, std::nullopt}));
  g.inputs = {x};
  g.outputs = {v[4]};
  g.add_node(node("Relu", {x}, {v[0]}));
  g.add_node(node("Sigmoid", {v[0]}, {v[1]}));
  g.add_node(node("Mul", {v[0], v[1]}, {v[2]}));
  g.add_node(node("Add", {v[2], v[1]}, {v[3]}));
  g.add_node(node("Tanh", {v[3]}, {v[4]}));
  for (const Shape& shape : {Shape{3, 5}, Shape{40, 300}, Shape{0, 2}}) {
    SCOPED_TRACE(to_string(shape));
    std::mt19937 rng(static_cast<uint32_t>(numel(shape)));
    std::uniform_real_distribution<double> u(-2, 2);
    Tensor xt(DType::kF32, shape);
    for (int64_t i = 0; i < xt.numel(); ++i) xt.set(i, u(rng));
    Model model(g, {2, "cpu", false});
    const auto plan = model.plan_for({xt.desc()});
    EXPECT_EQ(plan->in_place, 2);
    EXPECT_EQ(plan->offset[v[2]], plan->offset[v[0]]);  // m over a
    EXPECT_EQ(plan->offset[v[3]], plan->offset[v[0]]);  // n over m
    EXPECT_NE(plan->offset[v[1]], plan->offset[v[0]]);  // s beside a
    const Tensor y = model.run({{"x", xt}})[0].tensor;
    ASSERT_EQ(y.shape(), shape);
    for (int64_t i = 0; i < xt.numel(); ++i) {
      const double a = std::max(0.0, xt.at(i)), s = 1.0 / (1.0 + std::exp(-a));
      ASSERT_NEAR(y.at(i), std::tanh(a * s + s), 1e-5) << i;
    }
  }
}

// a = x + b [B, 12]; r = Reshape(a, [-1, 1, 3, 4]); t = Transpose(r, [0, 2, 1, 3]) (moves only
// the size-1 dim); u = Transpose(t, [0, 3, 1, 2]) (moves data); m = Reshape(Sigmoid(u), [-1, 12]);
// x2 = x * x is read by Reshape(x2, [-1]) and by the final Add, so that Reshape copies;
// y = m + x2 + Reshape(Relu(Reshape(x2, [-1])), [-1, 12]).
Graph views(const Tensor& b) {
  Graph g;
  g.opsets[""] = 17;
  auto shape = [&](const char* name, std::vector<int64_t> dims) {
    Tensor t(DType::kI64, {static_cast<int64_t>(dims.size())});
    for (size_t i = 0; i < dims.size(); ++i) t.set(static_cast<int64_t>(i), dims[i]);
    return g.add_constant(name, t);
  };
  auto value = [&](const char* name) { return g.add_value(name, {DType::kF32, std::nullopt}); };
  const int x = value("x"), bv = g.add_constant("b", b);
  const int s4 = shape("s4", {-1, 1, 3, 4}), s2 = shape("s2", {-1, 12}), s1 = shape("s1", {-1});
  const int a = value("a"), r = value("r"), t = value("t"), u = value("u"), sg = value("sg"),
            m = value("m"), x2 = value("x2"), f = value("f"), fr = value("fr"), f2 = value("f2"),
            y1 = value("y1"), y = value("y");
  g.inputs = {x};
  g.outputs = {y};
  auto perm = [](std::vector<int64_t> p) {
    Attrs at;
    at.set("perm", std::move(p));
    return at;
  };
  g.add_node(node("Add", {x, bv}, {a}));
  g.add_node(node("Reshape", {a, s4}, {r}));
  g.add_node(node("Transpose", {r}, {t}, perm({0, 2, 1, 3})));
  g.add_node(node("Transpose", {t}, {u}, perm({0, 3, 1, 2})));
  g.add_node(node("Sigmoid", {u}, {sg}));
  g.add_node(node("Reshape", {sg, s2}, {m}));
  g.add_node(node("Mul", {x, x}, {x2}));
  g.add_node(node("Reshape", {x2, s1}, {f}));
  g.add_node(node("Relu", {f}, {fr}));
  g.add_node(node("Reshape", {fr, s2}, {f2}));
  g.add_node(node("Add", {m, x2}, {y1}));
  g.add_node(node("Add", {y1, f2}, {y}));
  return g;
}

TEST(PlanArena, ViewsTakeTheirInputsMemoryAndRunNothing) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-2, 2);
  Tensor b(DType::kF32, {12});
  for (int64_t i = 0; i < 12; ++i) b.set(i, dist(rng));
  const Graph g = views(b);
  for (int64_t batch : {2, 1, 0, 5}) {
    SCOPED_TRACE(batch);
    Tensor x(DType::kF32, {batch, 12});
    for (int64_t i = 0; i < x.numel(); ++i) x.set(i, dist(rng));
    Model model(g, {2, "cpu", true});
    const auto plan = model.plan_for({x.desc()});
    auto val = [&](const char* name) {
      for (size_t v = 0; v < g.values.size(); ++v)
        if (g.values[v].name == name) return static_cast<int>(v);
      return -1;
    };
    auto step_of = [&](const char* out) {
      for (const PlanStep& s : plan->steps)
        if (g.nodes[s.node].outputs[0] == val(out)) return s;
      ADD_FAILURE() << "no step makes " << out;
      return PlanStep{};
    };
    // r, t, m and f2 are views; u (moves data) and f (x2 is read twice) are not.
    EXPECT_EQ(plan->views, 4);
    for (const char* v : {"r", "t", "m", "f2"}) EXPECT_TRUE(step_of(v).view) << v;
    for (const char* v : {"u", "f"}) EXPECT_FALSE(step_of(v).view) << v;
    EXPECT_EQ(plan->offset[val("r")], plan->offset[val("a")]);
    EXPECT_EQ(plan->offset[val("t")], plan->offset[val("a")]);
    EXPECT_EQ(plan->offset[val("f2")], plan->offset[val("f")]);
    const Tensor out = model.run({{"x", x}})[0].tensor;
    ASSERT_EQ(out.shape(), (Shape{batch, 12}));
    for (int64_t i = 0; i < batch; ++i)
      for (int64_t j = 0; j < 12; ++j) {
        const int64_t d = j / 3, h = j % 3;  // m[i, d * 3 + h] = sigmoid(a[i, h * 4 + d])
        const double av = x.at(i * 12 + h * 4 + d) + b.at(h * 4 + d);
        const double x2v = x.at(i * 12 + j) * x.at(i * 12 + j);
        const double want = 1.0 / (1.0 + std::exp(-av)) + x2v + std::max(0.0, x2v);
        ASSERT_NEAR(out.at(i * 12 + j), want, 1e-5) << i << "," << j;
      }
  }
}

}  // namespace
}  // namespace asc
