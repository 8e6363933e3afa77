// A Concat whose inputs each fill one contiguous, arena-aligned block of its output and are read
// by nothing else runs nothing: the planner places its inputs in those blocks, so their
// producers write the concatenation (nested Concats too). Where that does not hold (a batch
// before the axis, an input read elsewhere, an input given twice, blocks off the arena's
// alignment) it copies as before. Values against a naive evaluation either way.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/ops.h"
#include "runtime/model.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::node;

Attrs axis(int64_t a) {
  Attrs at;
  at.set("axis", a);
  return at;
}

double relu(double v) {
  return v > 0 ? v : 0;
}
double sigm(double v) {
  return 1 / (1 + std::exp(-v));
}

struct Built {
  Graph g;
  int views = 0;  // Concats expected to run nothing
};

// Inputs x [n, c, hw]; parts: Relu(x), Sigmoid(x), Neg(x) (Relu(x) twice where `twice`).
// nested: y = Tanh(Concat(Concat(r, s), m)); else y = Tanh(Concat(r, s, m)). extra: a second
// output Exp(s), so s is read twice.
Built concat_graph(bool nested, bool extra, bool twice) {
  Built b;
  Graph& g = b.g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, std::nullopt});
  g.inputs = {x};
  const int r = g.add_value("r", {DType::kF32, std::nullopt});
  const int s = g.add_value("s", {DType::kF32, std::nullopt});
  const int m = g.add_value("m", {DType::kF32, std::nullopt});
  const int c = g.add_value("c", {DType::kF32, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  g.add_node(node("Relu", {x}, {r}));
  g.add_node(node("Sigmoid", {x}, {s}));
  g.add_node(node("Neg", {x}, {m}));
  const int second = twice ? r : s;
  if (nested) {
    const int c1 = g.add_value("c1", {DType::kF32, std::nullopt});
    g.add_node(node("Concat", {r, second}, {c1}, axis(1)));
    g.add_node(node("Concat", {c1, m}, {c}, axis(-2)));
  } else {
    g.add_node(node("Concat", {r, second, m}, {c}, axis(1)));
  }
  g.add_node(node("Tanh", {c}, {y}));
  g.outputs = {y};
  if (extra) {
    const int e = g.add_value("e", {DType::kF32, std::nullopt});
    g.add_node(node("Exp", {s}, {e}));
    g.outputs.push_back(e);
  }
  return b;
}

void check(int64_t n, int64_t hw, bool nested, bool extra, bool twice, int views) {
  SCOPED_TRACE(testing::Message() << "n " << n << " hw " << hw << (nested ? " nested" : "")
                                  << (extra ? " extra" : "") << (twice ? " twice" : ""));
  const int64_t c = 3;
  std::mt19937 rng(static_cast<uint32_t>(n * 100 + hw));
  std::uniform_real_distribution<double> u(-2, 2);
  Tensor x(DType::kF32, {n, c, hw});
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, u(rng));
  Model model(concat_graph(nested, extra, twice).g, {2, "cpu", true});
  EXPECT_EQ(model.plan_for({x.desc()})->views, views);
  const auto out = model.run({{"x", x}});
  const Tensor& y = out[0].tensor;
  ASSERT_EQ(y.shape(), (Shape{n, 3 * c, hw}));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t part = 0; part < 3; ++part)
      for (int64_t i = 0; i < c * hw; ++i) {
        const double xi = x.at(b * c * hw + i);
        const double v = part == 0 ? relu(xi) : part == 2 ? -xi : twice ? relu(xi) : sigm(xi);
        ASSERT_NEAR(y.at((b * 3 + part) * c * hw + i), std::tanh(v), 1e-5)
            << "batch " << b << " part " << part << " element " << i;
      }
  if (extra) {
    for (int64_t i = 0; i < x.numel(); ++i)
      ASSERT_NEAR(out[1].tensor.at(i), std::exp(sigm(x.at(i))), 1e-5 * std::exp(1.0));
  }
}

TEST(PlanConcat, InputsWriteTheirBlocksOfTheOutput) {
  check(1, 16, false, false, false, 1);  // blocks of 3 x 16 floats: 192 bytes each
  check(1, 16, true, false, false, 2);   // nested
  check(1, 1024, false, false, false, 1);
}

TEST(PlanConcat, CopiesWhereTheBlocksCannotBeShared) {
  check(2, 16, false, false, false, 0);  // a batch before the axis: blocks not contiguous
  check(1, 16, false, true, false, 0);   // s is read by Exp too
  check(1, 16, false, false, true, 0);   // r given twice
  check(1, 5, false, false, false, 0);   // 60-byte blocks: off the arena's alignment
}

}  // namespace
}  // namespace asc
