// Control-flow nodes as plan steps (runtime/control_flow_plan.cpp): which nodes are planned with
// their subgraphs and which leave the plan dynamic, values either way, a body planned once
// however often it runs, and no arena allocated by runs in the steady state.
#include <gtest/gtest.h>

#include <cmath>

#include "registry/error.h"
#include "runtime/model.h"
#include "tests/importers/onnx_builder.h"

namespace asc::test {
namespace {

Tensor f32(std::vector<float> v, Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  Tensor t(DType::kF32, shape);
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return t;
}

Tensor scalar(DType dt, double v) {
  Tensor t(dt, {});
  t.set(0, v);
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.at(i));
  return v;
}

const Node& node(const Model& m, const std::string& op) {
  for (const Node& n : m.graph().nodes)
    if (n.op_type == op) return n;
  throw Error("no " + op + " node");
}

const PlanStep& step_of(const Plan& p, const Model& m, const std::string& op) {
  for (const PlanStep& s : p.steps)
    if (m.graph().nodes[static_cast<size_t>(s.node)].op_type == op) return s;
  throw Error("no " + op + " step");
}

// y = x * w; out = If(c, then: y + x, else: `else_op`(y, w) (Concat: [6]), or y reshaped to
// [2, 2] when `else_reshapes`).
Graph if_graph(const std::string& else_op = "Sub", bool else_reshapes = false) {
  ModelBuilder b;
  b.input("x", DType::kF32, {"3"});
  b.input("c", DType::kBool, {});
  b.initializer_f32("w", {3}, {1, 2, 3});
  b.node("Mul", {"x", "w"}, {"y"}, "mul");
  onnx::GraphProto then_g, else_g;
  add_node(then_g, "Add", {"y", "x"}, {"t_out"});
  then_g.add_output()->set_name("t_out");
  if (else_reshapes) {  // [3] -> [2, 2]: does not fit
    b.initializer("shape", DType::kI64, {2}, bytes_of(std::vector<int64_t>{2, 2}));
    add_node(else_g, "Reshape", {"y", "shape"}, {"e_out"});
  } else {
    auto& e = add_node(else_g, else_op, {"y", "w"}, {"e_out"});
    if (else_op == "Concat") attr_i(e, "axis", 0);  // [6]
  }
  else_g.add_output()->set_name("e_out");
  auto& n = b.node("If", {"c"}, {"out"}, "if");
  set_graph(n, "then_branch", then_g);
  set_graph(n, "else_branch", else_g);
  b.output("out", DType::kF32, {"?"});
  return b.import();
}

TEST(ControlFlowPlan, IfWithAnUnknownConditionPlansBothBranches) {
  const Model m(if_graph(), ModelOptions{2, "cpu", true});
  const auto plan = m.plan_for({{DType::kF32, {3}}, {DType::kBool, {}}});
  ASSERT_TRUE(plan->dynamic.empty()) << plan->dynamic;
  const PlanStep& s = step_of(*plan, m, "If");
  ASSERT_EQ(s.bodies.size(), 2u);
  EXPECT_TRUE(s.bodies[0].plan && s.bodies[1].plan);
  // The initializer w is a constant of the else branch, not a value fed to it.
  const Node& n = node(m, "If");
  EXPECT_EQ(m.subgraph(n, "then_branch").graph().outer, (std::vector<std::string>{"y", "x"}));
  EXPECT_EQ(m.subgraph(n, "else_branch").graph().outer, (std::vector<std::string>{"y"}));
  const std::vector<float> x = {0.5f, -2, 4};
  for (int r = 0; r < 2; ++r)
    for (bool c : {true, false}) {
      const auto out = m.run({{"x", f32(x)}, {"c", scalar(DType::kBool, c)}});
      std::vector<double> want;
      for (int i = 0; i < 3; ++i) want.push_back(x[i] * (i + 1.0) + (c ? x[i] : -(i + 1.0)));
      EXPECT_EQ(values(out[0].tensor), want) << c;
    }
  EXPECT_EQ(m.plans_made(), 1u);
  EXPECT_EQ(m.subgraph(n, "then_branch").plans_made(), 1u);
  EXPECT_EQ(m.subgraph(n, "else_branch").plans_made(), 1u);
}

TEST(ControlFlowPlan, IfWhoseBranchesDifferInShapeRunsNodeByNode) {
  const Model m(if_graph("Concat"), ModelOptions{2, "cpu", true});
  EXPECT_NE(m.plan_for({{DType::kF32, {3}}, {DType::kBool, {}}})->dynamic.find("different types"),
            std::string::npos);
  for (bool c : {true, false})
    EXPECT_EQ(m.run({{"x", f32({1, 2, 3})}, {"c", scalar(DType::kBool, c)}})[0].tensor.shape(),
              (Shape{c ? 3 : 6}));
}

TEST(ControlFlowPlan, ABranchThatDoesNotFitIsLeftToRunTimeAndFailsOnlyWhenTaken) {
  const Model m(if_graph("", /*else_reshapes=*/true), ModelOptions{2, "cpu", true});
  const auto plan = m.plan_for({{DType::kF32, {3}}, {DType::kBool, {}}});
  ASSERT_TRUE(plan->dynamic.empty()) << plan->dynamic;
  const PlanStep& s = step_of(*plan, m, "If");
  EXPECT_TRUE(s.bodies[0].plan);
  EXPECT_FALSE(s.bodies[1].plan);
  EXPECT_EQ(values(m.run({{"x", f32({1, 2, 3})}, {"c", scalar(DType::kBool, 1)}})[0].tensor),
            (std::vector<double>{2, 6, 12}));
  const std::string e = error_of<Error>([&] {
    m.run({{"x", f32({1, 2, 3})}, {"c", scalar(DType::kBool, 0)}});
  });
  EXPECT_NE(e.find("if (If)"), std::string::npos) << e;
  EXPECT_NE(e.find("else_branch"), std::string::npos) << e;
  EXPECT_NE(e.find("Reshape"), std::string::npos) << e;
}

// v = v * 0.5 + x, M = 16 and cond = true as initializers, the body's cond passed through, v after
// each iteration scanned.
Graph counted_loop() {
  ModelBuilder b;
  b.input("x", DType::kF32, {"3"});
  b.input("v0", DType::kF32, {"3"});
  b.initializer("M", DType::kI64, {}, bytes_of(std::vector<int64_t>{16}));
  b.initializer("yes", DType::kBool, {}, std::string(1, '\1'));
  b.initializer_f32("half", {}, {0.5f});
  onnx::GraphProto body;
  add_input(body, "i", DType::kI64, {});
  add_input(body, "cond_in", DType::kBool, {});
  add_input(body, "v_in", DType::kF32, {"3"});
  add_node(body, "Mul", {"v_in", "half"}, {"h"});
  add_node(body, "Add", {"h", "x"}, {"v_out"});
  add_node(body, "Identity", {"v_out"}, {"scan"});
  add_node(body, "Identity", {"cond_in"}, {"cond_out"});
  for (const char* o : {"cond_out", "v_out", "scan"}) body.add_output()->set_name(o);
  set_graph(b.node("Loop", {"M", "yes", "v0"}, {"v", "vs"}, "loop"), "body", body);
  b.output("v", DType::kF32, {"3"});
  b.output("vs", DType::kF32, {"16", "3"});
  return b.import();
}

TEST(ControlFlowPlan, ALoopBodyIsPlannedOnceAndItsRunsAllocateNoArena) {
  const Model m(counted_loop(), ModelOptions{2, "cpu", true});
  const Model& body = m.subgraph(node(m, "Loop"), "body");
  const std::vector<float> x = {1, -2, 0.25f}, v0 = {8, 0, -4};
  std::vector<double> v(v0.begin(), v0.end()), rows;
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 3; ++k) rows.push_back(v[k] = float(float(v[k]) * 0.5f + x[k]));
  size_t arenas = 0, body_arenas = 0;
  for (int r = 0; r < 3; ++r) {
    const auto out = m.run({{"x", f32(x)}, {"v0", f32(v0)}});
    EXPECT_EQ(values(out[0].tensor), v);
    ASSERT_EQ(out[1].tensor.shape(), (Shape{16, 3}));
    EXPECT_EQ(values(out[1].tensor), rows);
    if (r == 0) {
      arenas = m.arenas_allocated();
      body_arenas = body.arenas_allocated();
    }
  }
  EXPECT_EQ(m.plans_made(), 1u);
  EXPECT_EQ(body.plans_made(), 1u);    // 48 body runs, one plan,
  EXPECT_EQ(body.plan_lookups(), 1u);  // found once, when the loop's node was planned
  EXPECT_EQ(m.arenas_allocated(), arenas);
  EXPECT_EQ(body.arenas_allocated(), body_arenas);
  const auto plan = m.plan_for({{DType::kF32, {3}}, {DType::kF32, {3}}});
  ASSERT_TRUE(plan->dynamic.empty()) << plan->dynamic;
  EXPECT_EQ(plan->frames->idle(), 1u);  // one frame, reused by every run
  EXPECT_EQ(step_of(*plan, m, "Loop").bodies[0].plan->frames->idle(), 1u);
}

// A while loop on a scalar: v = v * 2 while v < stop (no M, no scan output): the count of
// iterations depends on data, the types do not.
Graph doubling_loop(bool with_scan) {
  ModelBuilder b;
  b.input("v0", DType::kF32, {});
  b.input("stop", DType::kF32, {});
  b.initializer("yes", DType::kBool, {}, std::string(1, '\1'));
  b.initializer_f32("two", {}, {2.0f});
  onnx::GraphProto body;
  add_input(body, "i", DType::kI64, {});
  add_input(body, "cond_in", DType::kBool, {});
  add_input(body, "v_in", DType::kF32, {});
  add_node(body, "Mul", {"v_in", "two"}, {"v_out"});
  add_node(body, "Less", {"v_out", "stop"}, {"cond_out"});
  for (const char* o : {"cond_out", "v_out"}) body.add_output()->set_name(o);
  if (with_scan) {
    add_node(body, "Identity", {"v_out"}, {"scan"});
    body.add_output()->set_name("scan");
  }
  std::vector<std::string> outs = {"v"};
  if (with_scan) outs.push_back("vs");
  set_graph(b.node("Loop", {"", "yes", "v0"}, outs, "loop"), "body", body);
  b.output("v", DType::kF32, {});
  if (with_scan) b.output("vs", DType::kF32, {"?"});
  return b.import();
}

TEST(ControlFlowPlan, ALoopStoppedByDataIsPlannedUnlessItStacksScanOutputs) {
  for (bool with_scan : {false, true}) {
    const Model m(doubling_loop(with_scan), ModelOptions{2, "cpu", true});
    const auto plan = m.plan_for({{DType::kF32, {}}, {DType::kF32, {}}});
    EXPECT_EQ(plan->dynamic.empty(), !with_scan) << plan->dynamic;
    // 7 iterations (1 -> 128), 6 (1 -> 64), none (cond false after the first is still one run).
    for (const auto& [stop, want, trips] :
         {std::tuple{100.0, 128.0, 7}, {50.0, 64.0, 6}, {1.5, 2.0, 1}}) {
      const auto out = m.run({{"v0", scalar(DType::kF32, 1)}, {"stop", scalar(DType::kF32, stop)}});
      EXPECT_EQ(out[0].tensor.at(0), want) << stop;
      if (with_scan) {
        EXPECT_EQ(out[1].tensor.shape(), (Shape{trips})) << stop;
      }
    }
  }
}

// Scan along axis 0 (contiguous slices and slots; ScanSlicesAlongAxesInEitherDirection takes
// strided ones): s += xs[t]; ys[t] = s * s.
TEST(ControlFlowPlan, AScanBodyIsPlannedOnce) {
  ModelBuilder b;
  b.input("s0", DType::kF32, {"2"});
  b.input("xs", DType::kF32, {"5", "2"});
  onnx::GraphProto body;
  add_input(body, "s_in", DType::kF32, {"2"});
  add_input(body, "x_t", DType::kF32, {"2"});
  add_node(body, "Add", {"s_in", "x_t"}, {"s_out"});
  add_node(body, "Mul", {"s_out", "s_out"}, {"y"});
  for (const char* o : {"s_out", "y"}) body.add_output()->set_name(o);
  auto& n = b.node("Scan", {"s0", "xs"}, {"s", "ys"}, "scan");
  set_graph(n, "body", body);
  attr_i(n, "num_scan_inputs", 1);
  b.output("s", DType::kF32, {"2"});
  b.output("ys", DType::kF32, {"5", "2"});
  const Model m(b.import(), ModelOptions{1, "cpu", true});
  Tensor xs(DType::kF32, {5, 2});
  for (int64_t i = 0; i < 10; ++i) xs.set(i, 0.5 * static_cast<double>(i) - 2);
  std::vector<double> s = {1, -1}, ys;
  for (int t = 0; t < 5; ++t)
    for (int j = 0; j < 2; ++j) {
      s[j] += xs.at(t * 2 + j);
      ys.push_back(s[j] * s[j]);
    }
  for (int r = 0; r < 2; ++r) {
    const auto out = m.run({{"s0", f32({1, -1})}, {"xs", xs}});
    EXPECT_EQ(values(out[0].tensor), s);
    EXPECT_EQ(values(out[1].tensor), ys);
  }
  EXPECT_EQ(m.subgraph(node(m, "Scan"), "body").plans_made(), 1u);
  EXPECT_TRUE(m.plan_for({{DType::kF32, {2}}, {DType::kF32, {5, 2}}})->dynamic.empty());
}

}  // namespace
}  // namespace asc::test
