// The small models of bench/small_models_vs_ort.mjs (models/small_models.h): values against a
// double reference computed here from the models' own weights, each one a single static plan
// (control flow included) whose later runs make no plan and allocate no arena, and the Silero-like
// model's shape-check If planned for the branch its shapes choose.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "models/small_models.h"
#include "registry/error.h"
#include "tests/models/qwen_run.h"

namespace asc::test {
namespace {

const Tensor& weight(const Graph& g, const std::string& name) {
  const int v = g.find(name);
  if (v < 0 || !g.values[v].constant) throw Error("no constant " + name);
  return *g.values[v].constant;
}

// y[j] = sum_k x[k] w[k, j] (+ b[j]) for w [n, n].
std::vector<double> affine(const std::vector<double>& x, const Tensor& w, const Tensor* b) {
  const size_t n = x.size();
  std::vector<double> y(n, 0.0);
  for (size_t j = 0; j < n; ++j) {
    for (size_t k = 0; k < n; ++k) y[j] += x[k] * w.at(static_cast<int64_t>(k * n + j));
    if (b) y[j] += b->at(static_cast<int64_t>(j));
  }
  return y;
}

Tensor seeded(Shape shape, int seed) {
  Tensor t(DType::kF32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, std::sin(0.37 * double(i + 1) * seed));
  return t;
}

void expect_near(const Tensor& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got.at(static_cast<int64_t>(i)), want[i], tol * (1 + std::abs(want[i]))) << i;
}

const Node& node(const Model& m, const std::string& op) {
  for (const Node& n : m.graph().nodes)
    if (n.op_type == op) return n;
  throw Error("no " + op + " node");
}

// Runs `inputs` three times: every run gives the first's values bit for bit, and the runs after
// the first make no plan and allocate no arena (in `m` and in `body`, when given).
std::vector<NamedTensor> run_steady(const Model& m, const std::vector<NamedTensor>& inputs,
                                    const Model* body = nullptr) {
  const auto first = m.run(inputs);
  const size_t plans = m.plans_made(), arenas = m.arenas_allocated();
  const size_t body_arenas = body ? body->arenas_allocated() : 0;
  for (int r = 0; r < 2; ++r) {
    const auto again = m.run(inputs);
    for (size_t k = 0; k < first.size(); ++k)
      for (int64_t i = 0; i < first[k].tensor.numel(); ++i)
        EXPECT_EQ(again[k].tensor.at(i), first[k].tensor.at(i)) << first[k].name << " " << i;
  }
  EXPECT_EQ(m.plans_made(), plans);
  EXPECT_EQ(m.arenas_allocated(), arenas);
  if (body) {
    EXPECT_EQ(body->arenas_allocated(), body_arenas);
  }
  return first;
}

class SmallModels : public ::testing::Test {
 protected:
  std::string write(const std::string& name) {
    const std::string path = dir / (name + ".onnx");
    models::write_small_model(name, path);
    return path;
  }
  TempDir dir;
};

TEST_F(SmallModels, ChainMatchesItsReference) {
  const std::string path = write("chain");
  const Graph g = import_onnx_file(path);
  for (int threads : {1, 2}) {
    const Model m(import_onnx_file(path), ModelOptions{threads, "cpu", true});
    const Tensor x = seeded({1, 64}, 3);
    std::vector<double> h(64);
    for (int64_t i = 0; i < 64; ++i) h[static_cast<size_t>(i)] = x.at(i);
    for (int k = 0; k < 20; ++k) {
      const std::string p = "block" + std::to_string(k) + ".";
      const std::vector<double> a = affine(h, weight(g, p + "w"), &weight(g, p + "b"));
      for (size_t j = 0; j < 64; ++j) {
        const double r = k % 3 == 0   ? std::max(a[j], 0.0)
                         : k % 3 == 1 ? std::tanh(a[j])
                                      : 1 / (1 + std::exp(-a[j]));
        h[j] = (r + h[j]) * 0.5;
      }
    }
    const auto out = run_steady(m, {{"x", x}});
    EXPECT_TRUE(m.plan_for({x.desc()})->dynamic.empty());
    expect_near(out[0].tensor, h, 1e-5);
  }
}

TEST_F(SmallModels, LoopRnnPlansItsBodyOnceAndMatchesItsReference) {
  const std::string path = write("loop");
  const Graph g = import_onnx_file(path);
  const Graph& bg = *g.nodes[g.nodes.size() - 1].subgraphs.at("body");
  const Model m(import_onnx_file(path), ModelOptions{2, "cpu", true});
  const Model& body = m.subgraph(node(m, "Loop"), "body");
  const Tensor xs = seeded({32, 1, 64}, 5), h0 = seeded({1, 64}, 7);
  std::vector<double> h(64), ys;
  for (int64_t i = 0; i < 64; ++i) h[static_cast<size_t>(i)] = h0.at(i);
  for (int64_t t = 0; t < 32; ++t) {
    std::vector<double> x(64);
    for (int64_t i = 0; i < 64; ++i) x[static_cast<size_t>(i)] = xs.at(t * 64 + i);
    const std::vector<double> a = affine(x, weight(bg, "body.u"), nullptr);
    const std::vector<double> b = affine(h, weight(bg, "body.w"), &weight(bg, "body.b"));
    for (size_t j = 0; j < 64; ++j) h[j] = std::tanh(a[j] + b[j]);
    for (double v : affine(h, weight(bg, "body.v"), nullptr)) ys.push_back(1 / (1 + std::exp(-v)));
  }
  const auto out = run_steady(m, {{"xs", xs}, {"h0", h0}}, &body);
  expect_near(out[0].tensor, h, 1e-5);
  EXPECT_EQ(out[1].tensor.shape(), (Shape{32, 1, 64}));
  expect_near(out[1].tensor, ys, 1e-5);
  // 96 body runs: one plan, looked up once, when the Loop's node was planned.
  EXPECT_EQ(body.plans_made(), 1u);
  EXPECT_EQ(body.plan_lookups(), 1u);
  // Another length: a new plan of the model, and of the body (it reads xs of the new shape).
  m.run({{"xs", seeded({8, 1, 64}, 5)}, {"h0", h0}});
  EXPECT_EQ(m.plans_made(), 2u);
  EXPECT_EQ(body.plans_made(), 2u);
}

TEST_F(SmallModels, VadIsOneStaticPlanWithTheShapeCheckPlannedForItsBranch) {
  const Model m(import_onnx_file(write("vad")), ModelOptions{2, "cpu", true});
  const Tensor input = seeded({1, 576}, 11), state = seeded({2, 1, 128}, 13);
  Tensor sr(DType::kI64, {});
  const auto plan = m.plan_for({input.desc(), state.desc(), sr.desc()});
  ASSERT_TRUE(plan->dynamic.empty()) << plan->dynamic;
  // sr is not known while planning: both rate branches are planned. In each, the encoder leaves
  // 1 frame at 16 kHz (window 256) and 2 at 8 kHz (window 128) for 576 samples, so the shape
  // check's If, whose condition planning computes, is planned for Squeeze or ReduceMean only.
  const PlanStep* by_rate = nullptr;
  for (const PlanStep& s : plan->steps)
    if (!s.bodies.empty()) by_rate = &s;
  ASSERT_NE(by_rate, nullptr);
  ASSERT_EQ(by_rate->bodies.size(), 2u);
  for (int b = 0; b < 2; ++b) {
    const Plan& branch = *by_rate->bodies[b].plan;
    const PlanStep* check = nullptr;
    for (const PlanStep& s : branch.steps)
      if (!s.bodies.empty()) check = &s;
    ASSERT_NE(check, nullptr) << b;
    EXPECT_EQ(static_cast<bool>(check->bodies[0].plan), b == 0) << "then (Squeeze)";
    EXPECT_EQ(static_cast<bool>(check->bodies[1].plan), b == 1) << "else (ReduceMean)";
  }
  std::vector<double> prob;
  for (double rate_hz : {16000.0, 8000.0}) {
    sr.set(0, rate_hz);
    const auto out = run_steady(m, {{"input", input}, {"state", state}, {"sr", sr}});
    ASSERT_EQ(out[0].tensor.shape(), (Shape{1, 1}));
    ASSERT_EQ(out[1].tensor.shape(), (Shape{2, 1, 128}));
    prob.push_back(out[0].tensor.at(0));
    EXPECT_GT(prob.back(), 0.0);
    EXPECT_LT(prob.back(), 1.0);
  }
  EXPECT_NE(prob[0], prob[1]);  // the branches have their own weights
  EXPECT_EQ(m.plans_made(), 1u);
}

// On sim:910b the Loop's step carries its body's predicted kernels, every iteration's.
TEST_F(SmallModels, SimulatedLoopPredictsEveryIteration) {
  const Model m(import_onnx_file(write("loop")), ModelOptions{2, "sim:910b", true});
  RunStats stats;
  std::atomic<int64_t> kernels = 0;  // steps of one level report from their threads
  stats.on_step = [&](const Node&, const TileProgram* p) { kernels += p ? 1 : 0; };
  m.run({{"xs", seeded({4, 1, 64}, 5)}, {"h0", seeded({1, 64}, 7)}}, {}, &stats);
  const StepTiming* loop = nullptr;
  for (const StepTiming& st : stats.steps)
    if (m.graph().nodes[static_cast<size_t>(st.node)].op_type == "Loop") loop = &st;
  ASSERT_NE(loop, nullptr);
  ASSERT_TRUE(loop->cost.valid);
  EXPECT_GT(kernels, 0);
  EXPECT_EQ(kernels % 4, 0);  // the same kernels in each of the 4 iterations
  EXPECT_GE(loop->cost.launches, kernels);
  EXPECT_GT(loop->cost.cycles, 0.0);
}

}  // namespace
}  // namespace asc::test
