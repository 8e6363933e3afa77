// The runtime on hand-built graphs: planning, the activation arena, plan caching, caller-owned
// buffers, errors, and concurrent runs of one shared model.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/model.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

Node make_node(const Graph& g, const std::string& op, std::vector<int> in, std::vector<int> out,
               Attrs attrs = {}) {
  Node n;
  n.op_type = op;
  n.opset = 17;
  n.def = global_registry().find("", op, 17);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  (void)g;
  return n;
}

// y = softmax(relu(x + b) @ w), x: f32[batch, 8] with a symbolic batch.
Graph mlp_graph(const Tensor& b, const Tensor& w) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(std::string("batch")), Dim(8)}});
  const int bv = g.add_constant("b", b);
  const int wv = g.add_constant("w", w);
  const int s = g.add_value("s", {DType::kF32, std::nullopt});
  const int r = g.add_value("r", {DType::kF32, std::nullopt});
  const int m = g.add_value("m", {DType::kF32, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  g.inputs = {x};
  g.outputs = {y};
  g.add_node(make_node(g, "Add", {x, bv}, {s}));
  g.add_node(make_node(g, "Relu", {s}, {r}));
  g.add_node(make_node(g, "MatMul", {r, wv}, {m}));
  g.add_node(make_node(g, "Softmax", {m}, {y}, Attrs{{"axis", int64_t{-1}}}));
  return g;
}

using test::random;

// The same computation, naively in double.
std::vector<double> expected(const Tensor& x, const Tensor& b, const Tensor& w) {
  const int64_t n = x.shape()[0], k = 8, o = w.shape()[1];
  std::vector<double> y(static_cast<size_t>(n * o));
  for (int64_t i = 0; i < n; ++i) {
    double mx = -1e300;
    for (int64_t j = 0; j < o; ++j) {
      double acc = 0;
      for (int64_t q = 0; q < k; ++q)
        acc += std::max(0.0, x.at(i * k + q) + b.at(q)) * w.at(q * o + j);
      y[i * o + j] = acc;
      mx = std::max(mx, acc);
    }
    double sum = 0;
    for (int64_t j = 0; j < o; ++j) sum += (y[i * o + j] = std::exp(y[i * o + j] - mx));
    for (int64_t j = 0; j < o; ++j) y[i * o + j] /= sum;
  }
  return y;
}

void expect_close(const Tensor& got, const std::vector<double>& want) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < got.numel(); ++i) ASSERT_NEAR(got.at(i), want[i], 1e-5) << i;
}

TEST(Model, RunsAGraphAndCachesPlansPerShape) {
  const Tensor b = random({8}, 1), w = random({8, 5}, 2);
  Model model(mlp_graph(b, w), {2, "cpu", true});
  for (int64_t batch : {3, 1, 3, 17}) {
    const Tensor x = random({batch, 8}, static_cast<uint32_t>(batch));
    const auto out = model.run({{"x", x}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].name, "y");
    EXPECT_EQ(out[0].tensor.shape(), (Shape{batch, 5}));
    expect_close(out[0].tensor, expected(x, b, w));
  }
  // Three signatures, each planned once.
  EXPECT_EQ(model.plan_for({{DType::kF32, {3, 8}}}), model.plan_for({{DType::kF32, {3, 8}}}));
}

// y = Relu(x + b) for x [4, 8]; z = Relu(k) for k [n]: signatures differing in n share y's nodes.
Graph two_branches(const Tensor& b) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(4), Dim(8)}});
  const int k = g.add_value("k", {DType::kF32, SymShape{Dim(std::string("n"))}});
  const int bv = g.add_constant("b", b);
  const int s = g.add_value("s", {DType::kF32, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  const int z = g.add_value("z", {DType::kF32, std::nullopt});
  g.inputs = {x, k};
  g.outputs = {y, z};
  g.add_node(make_node(g, "Add", {x, bv}, {s}));
  g.add_node(make_node(g, "Relu", {s}, {y}));
  g.add_node(make_node(g, "Relu", {k}, {z}));
  return g;
}

TEST(Model, PlansShareTileProgramsOfUnchangedNodesAndEvictOldSignatures) {
  ModelOptions o{2, "cpu", false};  // unoptimised: Add and Relu stay apart (no fusion)
  o.plan_cache = 2;
  Model model(two_branches(random({8}, 3)), o);
  auto plan = [&](int64_t n) {
    return model.plan_for({{DType::kF32, {4, 8}}, {DType::kF32, {n}}});
  };
  const auto p5 = plan(5), p6 = plan(6);
  ASSERT_EQ(p5->steps.size(), 3u);
  ASSERT_EQ(p6->steps.size(), 3u);
  int shared = 0;
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(p5->steps[i].program && p6->steps[i].program);
    shared += p5->steps[i].program == p6->steps[i].program;
    if (p5->steps[i].in[0].shape == p6->steps[i].in[0].shape)
      EXPECT_EQ(p5->steps[i].program, p6->steps[i].program) << i;
    else
      EXPECT_NE(p5->steps[i].program, p6->steps[i].program) << i;
  }
  EXPECT_EQ(shared, 2);    // Add and the first Relu
  EXPECT_EQ(plan(6), p6);  // cached
  plan(7);                 // evicts n = 5, the least recently used
  EXPECT_EQ(plan(6), p6);
  EXPECT_NE(plan(5), p5);
  // Results stay right through the shared programs.
  const Tensor x = random({4, 8}, 4), k = random({6}, 5);
  const auto out = model.run({{"x", x}, {"k", k}});
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out[1].tensor.at(i), std::max(0.0, k.at(i)));
}

TEST(Model, ArenaReusesDeadActivations) {
  const Tensor b = random({8}, 1), w = random({8, 5}, 2);
  Model model(mlp_graph(b, w), {1, "cpu", false});  // unoptimised: every node has a step
  const auto plan = model.plan_for({{DType::kF32, {64, 8}}});
  EXPECT_LT(plan->arena_bytes, plan->arena_bytes_no_reuse);
  EXPECT_EQ(plan->steps.size(), 4u);
}

TEST(Model, WritesIntoCallerOutputBuffers) {
  const Tensor b = random({8}, 1), w = random({8, 5}, 2);
  Model model(mlp_graph(b, w), {2, "cpu", true});
  const Tensor x = random({4, 8}, 9);
  std::vector<float> mine(20, -1.f);
  Tensor y = Tensor::wrap(DType::kF32, {4, 5}, mine.data());
  const auto out = model.run({{"x", x}}, {{"y", y}});
  EXPECT_EQ(out[0].tensor.data(), mine.data());
  expect_close(out[0].tensor, expected(x, b, w));
}

TEST(Model, BadInputsNameWhatIsWrong) {
  const Tensor b = random({8}, 1), w = random({8, 5}, 2);
  Model model(mlp_graph(b, w), {1, "cpu", true});
  try {
    model.run({{"x", random({4, 7}, 1)}});
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(), "input 'x' expects f32[batch,8], got f32[4,7]");
  }
  EXPECT_THROW(model.run({{"x", Tensor(DType::kI64, {4, 8})}}), ShapeError);
  EXPECT_THROW(model.run({{"nope", random({4, 8}, 1)}}), ShapeError);
  EXPECT_THROW(model.run({}), ShapeError);
  try {
    Model bad(mlp_graph(b, w), {1, "sim:foo", true});
    FAIL() << "sim:foo accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "device 'sim:foo' is not available (devices: cpu, sim:910b, ascend-emu)");
  }
#ifndef ASC_WITH_CANN  // a plain build names what it lacks and how to build with it
  try {
    Model bad(mlp_graph(b, w), {1, "ascend", true});
    FAIL() << "ascend accepted without CANN";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "device 'ascend' is not available: asc was built without CANN (configure with "
                 "-DASC_WITH_CANN=ON and ASCEND_HOME_PATH set to the CANN toolkit; devices: cpu, "
                 "sim:910b, ascend-emu)");
  }
#endif
}

TEST(Model, EightThreadsShareOneModel) {
  const Tensor b = random({8}, 1), w = random({8, 5}, 2);
  const Model model(mlp_graph(b, w), {2, "cpu", true});
  std::vector<std::thread> threads;
  std::atomic<int> bad{0}, checked{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 100; ++r) {
        const int64_t batch = 1 + (t + r) % 5;
        const Tensor x = random({batch, 8}, static_cast<uint32_t>(t * 1000 + r));
        const auto want = expected(x, b, w);
        const auto out = model.run({{"x", x}});
        for (int64_t i = 0; i < out[0].tensor.numel(); ++i)
          if (std::fabs(out[0].tensor.at(i) - want[i]) > 1e-5) ++bad;
        checked += out[0].tensor.numel() == batch * 5;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(checked.load(), 800);
}

TEST(Graph, RefusesCyclesAndDanglingInputs) {
  Graph g;
  const int a = g.add_value("a", {DType::kF32, std::nullopt});
  const int c = g.add_value("c", {DType::kF32, std::nullopt});
  g.add_node(make_node(g, "Relu", {c}, {a}));
  g.add_node(make_node(g, "Relu", {a}, {c}));
  try {
    g.topo_order();
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(), "the graph has a cycle through Relu#0 (Relu), Relu#1 (Relu)");
  }
  Graph h;
  const int x = h.add_value("x", {DType::kF32, std::nullopt});
  const int y = h.add_value("y", {DType::kF32, std::nullopt});
  h.add_node(make_node(h, "Relu", {x}, {y}));
  try {
    h.topo_order();
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(),
                 "node Relu#0 (Relu): input 'x' is not a graph input, an initializer or any "
                 "node's output");
  }
}

}  // namespace
}  // namespace asc
