// If: subgraph import (outer-scope values captured by name, nested scopes) and execution by the
// runtime (each branch a nested Model), against values computed here; bad conditions and
// branches that disagree get clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "registry/error.h"
#include "runtime/model.h"
#include "tests/importers/onnx_builder.h"

namespace asc::test {
namespace {

Tensor f32(std::vector<float> v) {
  Tensor t(DType::kF32, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.set(static_cast<int64_t>(i), v[i]);
  return t;
}

Tensor flag(bool b, int64_t n = 1) {
  Tensor t(DType::kBool, n == 1 ? Shape{} : Shape{n});
  for (int64_t i = 0; i < n; ++i) t.set(i, b ? 1.0 : 0.0);
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.at(i));
  return v;
}

// y = x * w; out = If(c, then: y + x, else: y - w [, 2 outputs when `extra_else`]).
ModelBuilder if_model(bool extra_else = false) {
  ModelBuilder b;
  b.input("x", DType::kF32, {"3"});
  b.input("c", DType::kBool, {});
  b.initializer_f32("w", {3}, {1, 2, 3});
  b.node("Mul", {"x", "w"}, {"y"}, "mul");
  onnx::GraphProto then_g, else_g;
  then_g.set_name("then");
  add_node(then_g, "Add", {"y", "x"}, {"t_out"});
  add_output(then_g, "t_out", 3);
  else_g.set_name("else");
  add_node(else_g, "Sub", {"y", "w"}, {"e_out"});
  add_output(else_g, "e_out", 3);
  if (extra_else) {
    add_node(else_g, "Neg", {"y"}, {"e_neg"});
    add_output(else_g, "e_neg", 3);
  }
  auto& n = b.node("If", {"c"}, {"out"}, "if");
  set_graph(n, "then_branch", then_g);
  set_graph(n, "else_branch", else_g);
  b.output("out", DType::kF32, {"?"});
  return b;
}

TEST(ControlFlow, IfCapturesOuterValuesAndRunsTheChosenBranch) {
  const Graph g = if_model().import();
  const Node* n = nullptr;
  for (const Node& x : g.nodes)
    if (x.op_type == "If") n = &x;
  ASSERT_NE(n, nullptr);
  ASSERT_EQ(n->subgraphs.size(), 2u);
  EXPECT_EQ(n->subgraphs.at("then_branch")->outer, (std::vector<std::string>{"y", "x"}));
  EXPECT_EQ(n->subgraphs.at("else_branch")->outer, (std::vector<std::string>{"y", "w"}));
  EXPECT_EQ(n->captured, 3);  // y, x, w once each, after cond
  ASSERT_EQ(n->inputs.size(), 4u);

  const Model m(g, ModelOptions{2, "cpu", true});
  const std::vector<float> x = {0.5f, -2.0f, 4.0f};
  for (bool c : {true, false}) {
    const auto out = m.run({{"x", f32(x)}, {"c", flag(c)}});
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> want;
    for (int i = 0; i < 3; ++i) {
      const double y = x[i] * (i + 1.0);
      want.push_back(c ? y + x[i] : y - (i + 1.0));
    }
    EXPECT_EQ(values(out[0].tensor), want) << "cond " << c;
  }
}

// The then branch holds another If whose branches read `x` (two scopes up) and a value of the
// middle scope: the middle graph captures x to pass it down.
TEST(ControlFlow, NestedIfReadsValuesTwoScopesUp) {
  ModelBuilder b;
  b.input("x", DType::kF32, {"3"});
  b.input("c", DType::kBool, {});
  b.input("d", DType::kBool, {});
  onnx::GraphProto inner_then, inner_else, outer_then, outer_else;
  add_node(inner_then, "Add", {"x", "m"}, {"it"});
  add_output(inner_then, "it", 3);
  add_node(inner_else, "Neg", {"x"}, {"ie"});
  add_output(inner_else, "ie", 3);
  add_node(outer_then, "Mul", {"x", "x"}, {"m"});
  auto& inner = add_node(outer_then, "If", {"d"}, {"ot"});
  set_graph(inner, "then_branch", inner_then);
  set_graph(inner, "else_branch", inner_else);
  add_output(outer_then, "ot", 3);
  add_node(outer_else, "Identity", {"x"}, {"oe"});
  add_output(outer_else, "oe", 3);
  auto& n = b.node("If", {"c"}, {"out"}, "outer");
  set_graph(n, "then_branch", outer_then);
  set_graph(n, "else_branch", outer_else);
  b.output("out", DType::kF32, {"3"});
  const Graph g = b.import();
  const Graph& mid = *g.nodes.back().subgraphs.at("then_branch");
  EXPECT_EQ(mid.outer, (std::vector<std::string>{"x", "d"}));

  const Model m(g, ModelOptions{2, "cpu", true});
  const std::vector<float> x = {1.5f, -1.0f, 3.0f};
  for (bool c : {true, false})
    for (bool d : {true, false}) {
      const auto out = m.run({{"x", f32(x)}, {"c", flag(c)}, {"d", flag(d)}});
      std::vector<double> want;
      for (float v : x) want.push_back(!c ? v : d ? v + v * v : -v);
      EXPECT_EQ(values(out[0].tensor), want) << c << d;
    }
}

TEST(ControlFlow, BadConditionOrBranchesAreErrors) {
  {
    ModelBuilder b = if_model();
    b.g()
        .mutable_input(1)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->add_dim()
        ->set_dim_value(2);
    const Model m(b.import(), ModelOptions{2, "cpu", true});
    const std::string e = error_of<Error>([&] {
      m.run({{"x", f32({1, 2, 3})}, {"c", flag(true, 2)}});
    });
    EXPECT_NE(e.find("cond must be one bool element"), std::string::npos) << e;
    EXPECT_NE(e.find("if (If)"), std::string::npos) << e;
  }
  {
    const Model m(if_model(true).import(), ModelOptions{2, "cpu", true});
    EXPECT_NO_THROW(m.run({{"x", f32({1, 2, 3})}, {"c", flag(true)}}));
    const std::string e = error_of<Error>([&] {
      m.run({{"x", f32({1, 2, 3})}, {"c", flag(false)}});
    });
    EXPECT_NE(e.find("else_branch has 2 outputs, the node 1"), std::string::npos) << e;
  }
  {  // a branch reading a name no scope defines
    ModelBuilder b = if_model();
    auto* then_g = b.g().mutable_node(1)->mutable_attribute(0)->mutable_g();
    then_g->mutable_node(0)->set_input(1, "nowhere");
    const std::string e = error_of<ModelError>([&] { b.import(); });
    EXPECT_NE(e.find("subgraph 'then_branch' of node 'if'"), std::string::npos) << e;
    EXPECT_NE(e.find("nowhere"), std::string::npos) << e;
  }
}

// Loop with a body reading the outer x: v += x * i per iteration, scan output = v after each;
// cond_out = i + 1 < stop (a while loop when M is empty). `bad_cond` makes cond_out a float.
ModelBuilder loop_model(bool with_m, bool bad_cond = false) {
  ModelBuilder b;
  b.input("x", DType::kF32, {"3"});
  b.input("v0", DType::kF32, {"3"});
  if (with_m) b.input("M", DType::kI64, {});
  b.input("stop", DType::kF32, {});
  b.input("c", DType::kBool, {});
  onnx::GraphProto body;
  add_input(body, "i", DType::kI64, {});
  add_input(body, "cond_in", DType::kBool, {});
  add_input(body, "v_in", DType::kF32, {"3"});
  attr_i(add_node(body, "Cast", {"i"}, {"i_f"}), "to", 1);
  add_node(body, "Mul", {"x", "i_f"}, {"p"});
  add_node(body, "Add", {"v_in", "p"}, {"v_out"});
  add_node(body, "Identity", {"v_out"}, {"scan"});
  b.initializer_f32("one", {}, {1.0f});
  add_node(body, "Add", {"i_f", "one"}, {"next"});
  if (bad_cond)
    add_node(body, "Identity", {"next"}, {"cond_out"});
  else
    add_node(body, "Less", {"next", "stop"}, {"cond_out"});
  for (const char* o : {"cond_out", "v_out", "scan"}) body.add_output()->set_name(o);
  auto& n = b.node("Loop", {with_m ? "M" : "", "c", "v0"}, {"v_final", "scans"}, "loop");
  set_graph(n, "body", body);
  b.output("v_final", DType::kF32, {"3"});
  b.output("scans", DType::kF32, {"?", "3"});
  return b;
}

TEST(ControlFlow, LoopCarriesValuesAndStacksScanOutputs) {
  const std::vector<float> x = {1.0f, -2.0f, 0.5f}, v0 = {10.0f, 20.0f, 30.0f};
  auto i64 = [](int64_t v) {
    Tensor t(DType::kI64, {});
    t.set(0, static_cast<double>(v));
    return t;
  };
  auto f32s = [](float v) {
    Tensor t(DType::kF32, {});
    t.set(0, v);
    return t;
  };
  // Expected: iterations run while i < M (when given) and cond; cond_out = i + 1 < stop.
  auto expect = [&](const std::vector<NamedTensor>& out, int iterations) {
    ASSERT_EQ(out.size(), 2u);
    std::vector<double> v(v0.begin(), v0.end()), scans;
    for (int i = 0; i < iterations; ++i)
      for (int k = 0; k < 3; ++k) {
        v[k] += x[k] * i;
        scans.push_back(v[k]);
      }
    // the scan rows are v after each iteration, in order
    std::vector<double> rows;
    std::vector<double> w(v0.begin(), v0.end());
    for (int i = 0; i < iterations; ++i)
      for (int k = 0; k < 3; ++k) rows.push_back(w[k] += x[k] * i);
    EXPECT_EQ(values(out[0].tensor), v);
    EXPECT_EQ(out[1].tensor.shape(), (Shape{iterations, 3}));
    EXPECT_EQ(values(out[1].tensor), rows);
  };
  const Model for_m(loop_model(true).import(), ModelOptions{2, "cpu", true});
  expect(
      for_m.run(
          {{"x", f32(x)}, {"v0", f32(v0)}, {"M", i64(4)}, {"stop", f32s(100)}, {"c", flag(true)}}),
      4);
  expect(for_m.run(
             {{"x", f32(x)}, {"v0", f32(v0)}, {"M", i64(9)}, {"stop", f32s(3)}, {"c", flag(true)}}),
         3);  // cond stops it first
  expect(for_m.run(
             {{"x", f32(x)}, {"v0", f32(v0)}, {"M", i64(0)}, {"stop", f32s(3)}, {"c", flag(true)}}),
         0);  // no iteration: the initial values, an empty scan
  expect(
      for_m.run(
          {{"x", f32(x)}, {"v0", f32(v0)}, {"M", i64(5)}, {"stop", f32s(3)}, {"c", flag(false)}}),
      0);
  const Model loop_while(loop_model(false).import(), ModelOptions{2, "cpu", true});
  expect(loop_while.run({{"x", f32(x)}, {"v0", f32(v0)}, {"stop", f32s(6)}, {"c", flag(true)}}), 6);

  const Model bad(loop_model(true, true).import(), ModelOptions{2, "cpu", true});
  const std::string e = error_of<Error>([&] {
    bad.run({{"x", f32(x)}, {"v0", f32(v0)}, {"M", i64(2)}, {"stop", f32s(3)}, {"c", flag(true)}});
  });
  EXPECT_NE(e.find("the body's cond output must be one bool element"), std::string::npos) << e;
  EXPECT_NE(e.find("loop (Loop)"), std::string::npos) << e;
}

// A run's on_step sees the kernels launched inside a Loop body, once per iteration (asc-run
// --emit-ascendc emits them); on sim:910b the Loop's own step carries the body's predicted
// kernels, and the values are the cpu device's.
TEST(ControlFlow, RunStatsSeeBodyKernelsAndTheirPredictedCost) {
  const Graph g = loop_model(true).import();
  const Model cpu(g, ModelOptions{2, "cpu", true});
  const Model sim(g, ModelOptions{2, "sim:910b", true});
  Tensor m(DType::kI64, {}), stop(DType::kF32, {});
  m.set(0, 4);
  stop.set(0, 100);
  const std::vector<NamedTensor> in = {{"x", f32({1.0f, -2.0f, 0.5f})},
                                       {"v0", f32({10.0f, 20.0f, 30.0f})},
                                       {"M", m},
                                       {"stop", stop},
                                       {"c", flag(true)}};
  std::mutex mu;
  std::map<std::string, int> kernels;  // per body node: launches
  std::vector<std::string> seen;
  RunStats stats;
  stats.on_step = [&](const Node& n, const TileProgram* p) {
    const std::lock_guard<std::mutex> lock(mu);
    seen.push_back(n.op_type);
    if (p) ++kernels[n.label()];
  };
  const auto want = cpu.run(in);
  const auto got = sim.run(in, {}, &stats);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k)
    EXPECT_EQ(values(got[k].tensor), values(want[k].tensor)) << got[k].name;

  ASSERT_FALSE(kernels.empty());
  int64_t launched = 0;
  for (const auto& [name, count] : kernels) {
    EXPECT_EQ(count, 4) << name;  // one launch per iteration
    launched += count;
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "Loop"), 0);  // the node itself launches none
  const StepTiming* loop = nullptr;
  for (const StepTiming& st : stats.steps)
    if (sim.graph().nodes[static_cast<size_t>(st.node)].op_type == "Loop") loop = &st;
  ASSERT_NE(loop, nullptr);
  ASSERT_TRUE(loop->cost.valid);
  EXPECT_GE(loop->cost.launches, launched);
  EXPECT_GT(loop->cost.cycles, 0.0);
}

// Scan over xs [2, 4] along axis 1 in reverse: s += xs[:, step]; y = s * b (b read from the outer
// graph) stacked along output axis 1, forward or reversed.
TEST(ControlFlow, ScanSlicesAlongAxesInEitherDirection) {
  for (bool out_reversed : {false, true}) {
    ModelBuilder b;
    b.input("s0", DType::kF32, {"2"});
    b.input("xs", DType::kF32, {"2", "4"});
    b.input("b", DType::kF32, {"2"});
    onnx::GraphProto body;
    add_input(body, "s_in", DType::kF32, {"2"});
    add_input(body, "x_t", DType::kF32, {"2"});
    add_node(body, "Add", {"s_in", "x_t"}, {"s_out"});
    add_node(body, "Mul", {"s_out", "b"}, {"y"});
    for (const char* o : {"s_out", "y"}) body.add_output()->set_name(o);
    auto& n = b.node("Scan", {"s0", "xs"}, {"s_final", "ys"}, "scan");
    set_graph(n, "body", body);
    attr_i(n, "num_scan_inputs", 1);
    auto ints = [&](const char* name, int64_t v) {
      auto& a = attr(n, name);
      a.set_type(onnx::AttributeProto::INTS);
      a.add_ints(v);
    };
    ints("scan_input_axes", 1);
    ints("scan_input_directions", 1);
    ints("scan_output_axes", -1);
    ints("scan_output_directions", out_reversed ? 1 : 0);
    b.output("s_final", DType::kF32, {"2"});
    b.output("ys", DType::kF32, {"2", "4"});
    const Model m(b.import(), ModelOptions{2, "cpu", true});

    const std::vector<float> s0 = {1, -1}, bias = {2, 0.5f};
    Tensor xs(DType::kF32, {2, 4});
    for (int64_t i = 0; i < 8; ++i) xs.set(i, 0.25 * static_cast<double>(i * i) - 3.0);
    const auto out = m.run({{"s0", f32(s0)}, {"xs", xs}, {"b", f32(bias)}});
    std::vector<double> s(s0.begin(), s0.end()), ys(8);
    for (int t = 0; t < 4; ++t) {
      const int at = 3 - t, slot = out_reversed ? 3 - t : t;
      for (int r = 0; r < 2; ++r) {
        s[r] += xs.at(r * 4 + at);
        ys[r * 4 + slot] = s[r] * bias[r];
      }
    }
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(values(out[0].tensor), s);
    EXPECT_EQ(out[1].tensor.shape(), (Shape{2, 4}));
    EXPECT_EQ(values(out[1].tensor), ys) << "reversed output " << out_reversed;
  }
}

// Scan-8: a leading batch axis on every input and output, the scan along axis 1 of each entry;
// sequence_lens equal to the full length is accepted, a shorter one refused by name.
TEST(ControlFlow, Scan8RunsEachBatchEntry) {
  ModelBuilder b(8);
  b.input("lens", DType::kI64, {"2"});
  b.input("s0", DType::kF32, {"2", "2"});
  b.input("xs", DType::kF32, {"2", "3", "2"});
  onnx::GraphProto body;
  add_input(body, "s_in", DType::kF32, {"2"});
  add_input(body, "x_t", DType::kF32, {"2"});
  add_node(body, "Add", {"s_in", "x_t"}, {"s_out"});
  add_node(body, "Mul", {"s_out", "s_out"}, {"y"});
  for (const char* o : {"s_out", "y"}) body.add_output()->set_name(o);
  auto& n = b.node("Scan", {"lens", "s0", "xs"}, {"s_final", "ys"}, "scan8");
  set_graph(n, "body", body);
  attr_i(n, "num_scan_inputs", 1);
  b.output("s_final", DType::kF32, {"2", "2"});
  b.output("ys", DType::kF32, {"2", "3", "2"});
  const Model m(b.import(), ModelOptions{2, "cpu", true});
  Tensor s0(DType::kF32, {2, 2}), xs(DType::kF32, {2, 3, 2}), lens(DType::kI64, {2});
  for (int64_t i = 0; i < 4; ++i) s0.set(i, 0.5 * static_cast<double>(i) - 1.0);
  for (int64_t i = 0; i < 12; ++i) xs.set(i, static_cast<double>((i * 7) % 5) - 2.0);
  lens.set(0, 3);
  lens.set(1, 3);
  const auto out = m.run({{"lens", lens}, {"s0", s0}, {"xs", xs}});
  std::vector<double> s(4), ys(12);
  for (int bi = 0; bi < 2; ++bi)
    for (int j = 0; j < 2; ++j) {
      double acc = s0.at(bi * 2 + j);
      for (int t = 0; t < 3; ++t) {
        acc += xs.at(bi * 6 + t * 2 + j);
        ys[bi * 6 + t * 2 + j] = acc * acc;
      }
      s[bi * 2 + j] = acc;
    }
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values(out[0].tensor), s);
  EXPECT_EQ(out[1].tensor.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values(out[1].tensor), ys);
  lens.set(1, 2);
  const std::string e = error_of<Error>([&] { m.run({{"lens", lens}, {"s0", s0}, {"xs", xs}}); });
  EXPECT_NE(e.find("sequence_lens[1] = 2 is shorter than the 3 steps"), std::string::npos) << e;
}

// Slicing and stacking go through memory: a string scan input is refused by name, not sliced
// wrongly.
TEST(ControlFlow, ScanOverStringsIsRefused) {
  ModelBuilder b;
  b.input("xs", DType::kString, {"2"});
  onnx::GraphProto body;
  add_input(body, "x_t", DType::kString, {});
  add_node(body, "Identity", {"x_t"}, {"y"});
  body.add_output()->set_name("y");
  auto& n = b.node("Scan", {"xs"}, {"ys"}, "scan_s");
  set_graph(n, "body", body);
  attr_i(n, "num_scan_inputs", 1);
  b.output("ys", DType::kString, {"2"});
  const Model m(b.import(), ModelOptions{2, "cpu", true});
  Tensor xs(DType::kString, {2});
  xs.strings()[0] = "a";
  xs.strings()[1] = "b";
  const std::string e = error_of<Error>([&] { m.run({{"xs", xs}}); });
  EXPECT_NE(e.find("a scan over string values is not supported"), std::string::npos) << e;
  EXPECT_NE(e.find("scan_s (Scan)"), std::string::npos) << e;
}

}  // namespace
}  // namespace asc::test
