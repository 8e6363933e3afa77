// The sim:910b device runs what the cpu device runs under the 910B's tilings: a model's outputs
// are bit-identical to the same ops run one by one on the cpu device tiled for ascend910b(), and
// every step carries a prediction; timing-only returns zeros of the planned shapes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/sim/cost_model.h"
#include "runtime/devices/sim/sim_device.h"
#include "runtime/model.h"
#include "runtime/op_runner.h"
#include "tests/runtime/test_util.h"

namespace asc {
namespace {

using test::random;

using test::node;

// y = softmax(x @ w + b), x: f32[64, 96].
Graph graph(const Tensor& w, const Tensor& b) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(64), Dim(96)}});
  const int wv = g.add_constant("w", w);
  const int bv = g.add_constant("b", b);
  const int m = g.add_value("m", {DType::kF32, std::nullopt});
  const int s = g.add_value("s", {DType::kF32, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  g.inputs = {x};
  g.outputs = {y};
  g.add_node(node("MatMul", {x, wv}, {m}));
  g.add_node(node("Add", {m, bv}, {s}));
  g.add_node(node("Softmax", {s}, {y}, Attrs{{"axis", int64_t{-1}}}));
  return g;
}

TEST(SimDevice, BitIdenticalToCpuUnder910bTilings) {
  const Tensor x = random({64, 96}, 1), w = random({96, 80}, 2), b = random({80}, 3);
  ModelOptions mo;
  mo.threads = 2;
  mo.device = "sim:910b";
  mo.fusion = false;  // each node its own kernel, as run_op runs it
  const Model model(graph(w, b), mo);
  RunStats stats;
  const Tensor y = model.run({{"x", x}}, {}, &stats).at(0).tensor;

  const cpu::CpuDevice cpu(2);
  OpRunOptions o;
  o.spec = ascend910b();
  const Graph& g = model.graph();
  auto run = [&](const std::string& op, std::vector<Tensor> in, Attrs attrs = {}) {
    return run_op(*global_registry().find("", op, 17), attrs, in, cpu, o).at(0);
  };
  const Tensor m = run("MatMul", {x, w});
  const Tensor s = run("Add", {m, b});
  const Tensor want = run("Softmax", {s}, Attrs{{"axis", int64_t{-1}}});
  ASSERT_EQ(y.shape(), want.shape());
  EXPECT_EQ(std::memcmp(y.data(), want.data(), static_cast<size_t>(want.nbytes())), 0);

  ASSERT_EQ(stats.steps.size(), 3u);
  for (const StepTiming& st : stats.steps) {
    EXPECT_TRUE(st.cost.valid) << g.nodes[static_cast<size_t>(st.node)].op_type;
    EXPECT_GT(st.cost.cycles, 0.0);
  }
  EXPECT_TRUE(stats.steps[0].cost.cube);  // the MatMul runs on the cube cores
  EXPECT_GT(stats.steps[0].cost.busy[static_cast<int>(Pipe::kCube)], 0.0);
}

TEST(SimDevice, TimingOnlyExecutesNothing) {
  const Tensor w = random({96, 80}, 2), b = random({80}, 3);
  ModelOptions mo;
  mo.threads = 1;
  mo.device = "sim:910b";
  mo.timing_only = true;
  const Model model(graph(w, b), mo);
  RunStats stats;
  const auto out = model.run({{"x", random({64, 96}, 1)}}, {}, &stats);
  ASSERT_EQ(out.size(), 1u);
  const Tensor& y = out[0].tensor;
  EXPECT_EQ(y.shape(), (Shape{64, 80}));
  for (int64_t i = 0; i < y.numel(); ++i) ASSERT_EQ(y.at(i), 0.0);  // softmax rows would sum to 1
  ASSERT_FALSE(stats.steps.empty());
  for (const StepTiming& st : stats.steps) EXPECT_TRUE(st.cost.valid);

  ModelOptions cpu = mo;
  cpu.device = "cpu";
  EXPECT_THROW(Model(graph(w, b), cpu), Error);
}

// y = ReduceSum(x, axes = ReduceMax(big)): 5000 axis values are too many to key a plan by, so the
// ReduceSum is planned while running. On sim:910b it is still tiled for the 910B (the values of
// the ops run one by one under ascend910b(), bit for bit), predicted, and reported to on_step.
TEST(SimDevice, NodesPlannedWhileRunningAreTiledFor910bAndPredicted) {
  Graph g;
  g.opsets[""] = 17;
  const int x = g.add_value("x", {DType::kF32, SymShape{Dim(96), Dim(64), Dim(40)}});
  const int big = g.add_value("big", {DType::kI64, SymShape{Dim(5000)}});
  const int axes = g.add_value("axes", {DType::kI64, std::nullopt});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  g.inputs = {x, big};
  g.outputs = {y};
  g.add_node(node("ReduceMax", {big}, {axes}, Attrs{{"keepdims", int64_t{1}}}));
  g.add_node(node("ReduceSum", {x, axes}, {y}, Attrs{{"keepdims", int64_t{0}}}));
  ModelOptions mo;
  mo.threads = 2;
  mo.device = "sim:910b";
  const Model model(std::move(g), mo);
  const Tensor xv = random({96, 64, 40}, 4);
  Tensor b(DType::kI64, {5000});
  for (int64_t i = 0; i < 5000; ++i) b.data_as<int64_t>()[i] = i % 3 ? 2 : 0;
  RunStats stats;
  std::vector<int64_t> block_dims;
  stats.on_step = [&](const Node& n, const TileProgram* p) {
    if (n.op_type == "ReduceSum") block_dims.push_back(p ? p->block_dim : -1);
  };
  const Tensor got = model.run({{"x", xv}, {"big", b}}, {}, &stats).at(0).tensor;

  const cpu::CpuDevice cpu(2);
  OpRunOptions o;
  o.spec = ascend910b();
  Tensor ax(DType::kI64, {1});
  ax.data_as<int64_t>()[0] = 2;
  const Tensor want = run_op(*global_registry().find("", "ReduceSum", 17),
                             Attrs{{"keepdims", int64_t{0}}}, std::vector<Tensor>{xv, ax}, cpu, o)
                          .at(0);
  ASSERT_EQ(got.shape(), (Shape{96, 64}));
  ASSERT_EQ(want.shape(), got.shape());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), static_cast<size_t>(got.nbytes())), 0);
  ASSERT_EQ(stats.steps.size(), 2u);
  for (const StepTiming& st : stats.steps) EXPECT_TRUE(st.cost.valid);
  ASSERT_EQ(block_dims.size(), 1u);
  EXPECT_GT(block_dims[0], 2);  // spread over the 910B's cores, not the 2 host threads
}

// An op run as a sequence of tile programs (Einsum of three operands: two EinsumMatMul launches)
// runs them under the 910B's tilings and is predicted from them, one after the other.
TEST(SimDevice, EinsumPredictedFromItsLaunches) {
  Graph g;
  g.opsets[""] = 17;
  const int a = g.add_value("a", {DType::kF32, SymShape{Dim(3), Dim(40)}});
  const int b = g.add_value("b", {DType::kF32, SymShape{Dim(5), Dim(40), Dim(24)}});
  const int c = g.add_value("c", {DType::kF32, SymShape{Dim(3), Dim(24)}});
  const int y = g.add_value("y", {DType::kF32, std::nullopt});
  g.inputs = {a, b, c};
  g.outputs = {y};
  const Attrs eq{{"equation", std::string("bn,anm,bm->ba")}};
  g.add_node(node("Einsum", {a, b, c}, {y}, eq));
  ModelOptions mo;
  mo.threads = 2;
  mo.device = "sim:910b";
  const Model model(std::move(g), mo);
  const std::vector<Tensor> in{random({3, 40}, 5), random({5, 40, 24}, 6), random({3, 24}, 7)};
  RunStats stats;
  const Tensor got = model.run({{"a", in[0]}, {"b", in[1]}, {"c", in[2]}}, {}, &stats).at(0).tensor;

  const OpDef& op = *global_registry().find("", "Einsum", 17);
  const cpu::CpuDevice cpu(2);
  OpRunOptions o;
  o.spec = ascend910b();
  const Tensor want = run_op(op, eq, in, cpu, o).at(0);
  ASSERT_EQ(got.shape(), (Shape{3, 5}));
  ASSERT_EQ(want.shape(), got.shape());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), static_cast<size_t>(got.nbytes())), 0);

  ASSERT_EQ(stats.steps.size(), 1u);
  const KernelCost& cost = stats.steps[0].cost;
  EXPECT_TRUE(cost.valid);
  EXPECT_FALSE(cost.host);
  EXPECT_GT(cost.busy[static_cast<int>(Pipe::kCube)], 0.0);
  const Attrs resolved = op.resolve(eq);
  const DeviceSpec spec = ascend910b();
  LaunchContext ctx;
  ctx.op = &op;
  for (const Tensor& t : in) ctx.inputs.push_back(t.desc());
  ctx.outputs = {got.desc()};
  ctx.attrs = &resolved;
  ctx.spec = &spec;
  const auto launches = op.launches_fn(ctx);
  ASSERT_EQ(launches.size(), 2u);
  KernelCost sum;
  for (const ProgramLaunches& l : launches)
    sum.then(predict_program(*l.program, spec, sim::SimDevice("sim:910b").config()));
  EXPECT_DOUBLE_EQ(cost.cycles, sum.cycles);
  EXPECT_GT(cost.cycles, 0.0);
}

}  // namespace
}  // namespace asc
