// asc-check end to end: the asc-check binary against ONNX Runtime (Node.js + onnxruntime-node,
// installed by scripts/install-deps.sh) on the bundled tiny_mlp model and ONNX backend-test
// models. A missing Node.js or onnxruntime-node fails these tests; it does not skip them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "importers/onnx/onnx_importer.h"
#include "importers/onnx/tensor_proto.h"
#include "importers/onnx_builder.h"
#include "registry/strings.h"
#include "tests/tools/run_tool.h"
#include "tools/check_ort.h"

namespace asc {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kNode = "/usr/include/onnx/backend/test/data/node/";

class AscCheck : public ::testing::Test {
 protected:
  test::Result check(const std::string& args) {
    return test::run_tool(ASC_CHECK_EXE, args + " --threads 2", dir.path());
  }
  // Runs with --json and parses stdout; a test failure when it is not JSON. want_code < 0: any
  // exit code.
  json check_json(const std::string& args, int want_code) {
    const test::Result r = check(args + " --json");
    if (want_code >= 0) {
      EXPECT_EQ(r.code, want_code) << r.err << r.out;
    }
    try {
      return json::parse(r.out);
    } catch (const json::exception& e) {
      ADD_FAILURE() << "not JSON: " << e.what() << "\n" << r.out << r.err;
      return json::object();
    }
  }
  // The node outputs of a model as asc imports it (Constant nodes become constants).
  static std::vector<std::string> node_outputs(const std::string& model) {
    const Graph g = import_onnx_file(model);
    std::vector<std::string> names;
    for (int i : g.topo_order())
      for (int v : g.nodes[i].outputs)
        if (v >= 0) names.push_back(g.values[v].name);
    return names;
  }
  // --input flags for a backend-test case's test_data_set_0.
  static std::string case_inputs(const std::string& dir, const std::vector<std::string>& names) {
    std::string s;
    for (size_t k = 0; k < names.size(); ++k)
      s += cat(" --input ", names[k], "=", dir, "/test_data_set_0/input_", k, ".pb");
    return s;
  }
  static void expect_all_pass(const json& j, const std::vector<std::string>& outputs) {
    ASSERT_EQ(j["nodes"].size(), outputs.size()) << j.dump(1);
    for (size_t k = 0; k < outputs.size(); ++k) {
      const json& n = j["nodes"][k];
      EXPECT_EQ(n["output"], outputs[k]);
      EXPECT_EQ(n["status"], "pass") << n.dump();
      EXPECT_TRUE(n.contains("max_abs_err") && n.contains("cosine") && n.contains("rmse"));
    }
    EXPECT_TRUE(j["first_failure"].is_null());
    EXPECT_EQ(j["passed"], true);
    EXPECT_EQ(j["compared"], outputs.size());
  }
  test::TempDir dir;
};

TEST(OrtBridge, IsInstalled) {
  const fs::path ort = fs::path(ASC_SOURCE_DIR) / "tools/ort";
  ASSERT_TRUE(fs::exists(ort / "bridge.mjs"));
  ASSERT_TRUE(fs::exists(ort / "node_modules/onnxruntime-node/package.json"))
      << "onnxruntime-node is not installed in " << ort << ": run scripts/install-deps.sh";
  test::TempDir d;
  const test::Result r = test::run_tool(
      "node",
      cat("-e 'console.log(require(\"", (ort / "node_modules/onnxruntime-node").string(),
          "\").env.versions.node)'"),
      d.path());
  ASSERT_EQ(r.code, 0) << "Node.js cannot load onnxruntime-node: " << r.err;
  EXPECT_EQ(r.out, "1.30.0\n");
}

TEST_F(AscCheck, TinyMlpPassesEveryNode) {
  const std::vector<std::string> outputs = node_outputs(ASC_TINY_MLP_ONNX);
  ASSERT_GE(outputs.size(), 8u);
  const json j = check_json(cat(ASC_TINY_MLP_ONNX, " --dim batch=3"), 0);
  expect_all_pass(j, outputs);
  EXPECT_EQ(j["ort_version"], "1.30.0");
  EXPECT_EQ(j["inputs"][0]["shape"][0], 3);
  // Node indices are the topological order.
  for (size_t k = 1; k < j["nodes"].size(); ++k)
    EXPECT_GE(j["nodes"][k]["index"].get<int>(), j["nodes"][k - 1]["index"].get<int>());

  const test::Result text = check(cat(ASC_TINY_MLP_ONNX, " --dim batch=3"));
  EXPECT_EQ(text.code, 0) << text.err;
  for (const auto& name : outputs) EXPECT_NE(text.out.find(name), std::string::npos) << name;
  EXPECT_NE(text.out.find("max abs"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(cat(outputs.size(), " node outputs: ", outputs.size(), " compared")),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("PASSED"), std::string::npos);
  EXPECT_EQ(text.out.find("first failure"), std::string::npos);
}

TEST_F(AscCheck, FusedRunComparesWhatSurvives) {
  const std::vector<std::string> outputs = node_outputs(ASC_TINY_MLP_ONNX);
  const json j = check_json(cat(ASC_TINY_MLP_ONNX, " --fused --seed 7"), 0);
  ASSERT_EQ(j["nodes"].size(), outputs.size());
  EXPECT_EQ(j["fused"], true);
  EXPECT_EQ(j["passed"], true);
  int compared = 0, fused_away = 0;
  for (const json& n : j["nodes"]) {
    if (n["status"] == "pass") {
      ++compared;
    } else {
      EXPECT_EQ(n["reason"], "fused away in asc") << n.dump();
      ++fused_away;
    }
  }
  EXPECT_EQ(j["compared"], compared);
  EXPECT_GT(compared, 0);
  EXPECT_GT(fused_away, 0);  // the MLP's MatMul + Add (+ activation) are one node
  EXPECT_NE(j["fusion"].get<std::string>().find("FusedMatMulBias"), std::string::npos) << j;
  EXPECT_EQ(j["nodes"].back()["status"], "pass");  // graph outputs always survive
  // Without --fused nothing is fused away.
  const json plain = check_json(cat(ASC_TINY_MLP_ONNX, " --seed 7"), 0);
  EXPECT_EQ(plain["compared"], outputs.size());
  EXPECT_FALSE(plain.contains("fusion"));
  const test::Result text = check(cat(ASC_TINY_MLP_ONNX, " --fused --seed 7"));
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find(cat(fused_away, " node outputs fused away in asc")), std::string::npos)
      << text.out;
}

TEST_F(AscCheck, LowPrecisionIsJudgedByCosineAndTheFirstFailureIsMarked) {
  const std::string model = ASC_TINY_MLP_ONNX;
  const json pass = check_json(cat(model, " --precision bf16"), 0);
  bool any_cosine = false;
  for (const json& n : pass["nodes"]) {
    if (n["rule"] != "cosine") continue;
    any_cosine = true;
    EXPECT_GE(n["cosine"].get<double>(), 0.99) << n.dump();
  }
  EXPECT_TRUE(any_cosine);
  // No bf16 rounding of a random tensor of several elements keeps a cosine of exactly 1: the
  // first float node fails, and it is the first failure in topological order.
  const json fail = check_json(cat(model, " --dim batch=3 --precision bf16 --min-cosine 1"), 1);
  EXPECT_EQ(fail["passed"], false);
  int first = -1;
  for (size_t k = 0; k < fail["nodes"].size(); ++k) {
    const json& n = fail["nodes"][k];
    if (n["status"] == "fail") {
      EXPECT_EQ(n["rule"], "cosine") << n.dump();
    }
    if (first < 0 && n["rule"] == "cosine") first = static_cast<int>(k);
  }
  ASSERT_GE(first, 0);
  EXPECT_EQ(fail["nodes"][first]["status"], "fail");
  EXPECT_EQ(fail["first_failure"]["output"], fail["nodes"][first]["output"]);
  EXPECT_EQ(fail["first_failure"]["index"], fail["nodes"][first]["index"]);
  EXPECT_NE(fail["first_failure"]["reason"].get<std::string>().find("cosine"), std::string::npos);
  const test::Result text = check(cat(model, " --dim batch=3 --precision bf16 --min-cosine 1"));
  EXPECT_EQ(text.code, 1);
  EXPECT_NE(text.out.find("<- first failure"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("FAILED"), std::string::npos);
}

// A float row passes exactly when its rules hold, by the numbers the JSON reports: tolerance, no
// element outside atol + rtol * (|ORT| + mean|ORT|); cosine, at least min_cosine.
void expect_rule_consistent(const json& n, double min_cosine) {
  const std::string rule = n["rule"];
  if (rule == "exact") return;
  EXPECT_GE(n["mismatches"].get<int64_t>(), 0) << n.dump();  // the strict count, always there
  bool ok = true;
  if (rule == "tolerance" || rule == "tolerance+cosine")
    ok = n["scaled_mismatches"].get<int64_t>() == 0;
  if (rule == "cosine" || rule == "tolerance+cosine")
    ok = ok && n["cosine"].get<double>() >= min_cosine;
  // Outside its rule in the chain: judged by its node run alone on ORT's inputs.
  EXPECT_EQ(n.contains("alone"), !ok) << n.dump();
  if (!ok) ok = n["alone"]["passed"].get<bool>();
  EXPECT_EQ(n["status"] == "pass", ok) << n.dump();
}

TEST_F(AscCheck, ExplicitTolerancesJudgeEveryPrecision) {
  const std::string model = cat(ASC_TINY_MLP_ONNX, " --dim batch=3 --precision bf16");
  // Without tolerances a bf16 run is judged by the cosine; the strict count is still reported.
  const json plain = check_json(model, 0);
  EXPECT_EQ(plain["explicit_tolerance"], false);
  int64_t strict = 0;
  for (const json& n : plain["nodes"]) {
    if (n["rule"] == "exact") continue;
    EXPECT_EQ(n["rule"], "cosine") << n.dump();
    expect_rule_consistent(n, 0.99);
    strict += n["mismatches"].get<int64_t>();
  }
  EXPECT_GT(strict, 0);  // bf16 rounding is over atol 1e-4 + rtol 1e-3 * |o| somewhere
  // --atol 1e-7 --rtol 1e-7 judge it too: every float node with a bf16-sized error fails.
  const json tight = check_json(model + " --atol 1e-7 --rtol 1e-7", 1);
  EXPECT_EQ(tight["explicit_tolerance"], true);
  EXPECT_EQ(tight["atol"], 1e-7);
  int failed = 0;
  for (const json& n : tight["nodes"]) {
    if (n["rule"] == "exact") continue;
    EXPECT_EQ(n["rule"], "tolerance+cosine") << n.dump();
    expect_rule_consistent(n, 0.99);
    if (n["max_abs_err"].get<double>() > 1e-5) {
      EXPECT_EQ(n["status"], "fail") << n.dump();
      ++failed;
    }
  }
  EXPECT_GT(failed, 0);
  EXPECT_NE(tight["first_failure"]["reason"].get<std::string>().find("atol + rtol"),
            std::string::npos)
      << tight["first_failure"];
  // --min-cosine given at fp32 is judged beside the tolerance rule.
  const json bar = check_json(cat(ASC_TINY_MLP_ONNX, " --dim batch=3 --min-cosine 0.999"), 0);
  EXPECT_EQ(bar["explicit_min_cosine"], true);
  for (const json& n : bar["nodes"]) {
    if (n["rule"] != "exact") {
      EXPECT_EQ(n["rule"], "tolerance+cosine") << n.dump();
    }
  }
}

TEST_F(AscCheck, TheNodeRuleScalesWithTheTensorAndTheStrictCountStays) {
  const std::string model = cat(ASC_TINY_MLP_ONNX, " --dim batch=3 --precision bf16");
  const json first = check_json(model, 0);
  // A node whose relative error peaks on an element small against the tensor: with atol 0 and
  // rtol between max_abs / mean|ORT| and max_rel, its strict count is positive and it passes.
  std::string output;
  double rtol = 0;
  for (const json& n : first["nodes"]) {
    if (n["rule"] == "exact") continue;
    const double e = n["max_abs_err"], r = n["max_rel_err"], s = n["ort_mean_abs"];
    if (e > 0 && s > 0 && r > 2 * e / s) {
      output = n["output"];
      rtol = 1.5 * e / s;
      break;
    }
  }
  ASSERT_FALSE(output.empty()) << first.dump(1);
  char r[32];
  std::snprintf(r, sizeof r, "%.17g", rtol);
  const json j = check_json(cat(model, " --atol 0 --rtol ", r), -1);
  bool found = false;
  for (const json& n : j["nodes"]) {
    if (n["output"] != output) continue;
    found = true;
    EXPECT_EQ(n["rule"], "tolerance+cosine");
    EXPECT_EQ(n["status"], "pass") << n.dump();
    EXPECT_GE(n["mismatches"].get<int64_t>(), 1) << n.dump();
    EXPECT_EQ(n["scaled_mismatches"], 0) << n.dump();
  }
  EXPECT_TRUE(found) << output;
  for (const json& n : j["nodes"]) expect_rule_consistent(n, 0.99);
}

// A residual conv net: `depth` blocks of x + Relu(Conv3x3(x) + bias), seeded He-scaled weights.
void write_deep_conv_net(const std::string& path, int64_t channels, int64_t size, int depth) {
  test::ModelBuilder b;
  const std::string c = cat(channels), hw = cat(size);
  b.input("x0", DType::kF32, {"1", c, hw, hw});
  std::mt19937 rng(17);
  std::normal_distribution<float> he(0.f, std::sqrt(2.f / static_cast<float>(9 * channels)));
  std::normal_distribution<float> bias(0.f, 0.1f);
  for (int l = 0; l < depth; ++l) {
    std::vector<float> w(static_cast<size_t>(channels * channels * 9)), bv(channels);
    for (float& v : w) v = he(rng);
    for (float& v : bv) v = bias(rng);
    b.initializer_f32(cat("w", l), {channels, channels, 3, 3}, w);
    b.initializer_f32(cat("b", l), {channels}, bv);
    auto& conv =
        b.node("Conv", {cat("x", l), cat("w", l), cat("b", l)}, {cat("conv", l)}, cat("conv", l));
    auto& pads = test::attr(conv, "pads");
    pads.set_type(onnx::AttributeProto::INTS);
    for (int k = 0; k < 4; ++k) pads.add_ints(1);
    b.node("Relu", {cat("conv", l)}, {cat("relu", l)}, cat("relu", l));
    b.node("Add", {cat("x", l), cat("relu", l)}, {cat("x", l + 1)}, cat("add", l));
  }
  b.output(cat("x", depth), DType::kF32, {"1", c, hw, hw});
  b.save(path);
}

TEST_F(AscCheck, DeepConvNetPassesTheNodeRule) {
  // 32 blocks: activations grow to ~1e5 and rounding, different in asc and ONNX Runtime, leaves
  // a few elements near zero outside their own atol + rtol * |ORT| in the deeper nodes.
  write_deep_conv_net(dir / "deep.onnx", 16, 32, 32);
  const json j = check_json(dir / "deep.onnx", 0);
  EXPECT_EQ(j["compared"], 3 * 32);
  int over_own_bound = 0;
  for (const json& n : j["nodes"]) {
    EXPECT_EQ(n["status"], "pass") << n.dump();
    expect_rule_consistent(n, 0.99);
    over_own_bound += n["mismatches"].get<int64_t>() > 0;
  }
  EXPECT_GT(over_own_bound, 0) << "no node with strict mismatches: the strict rule would pass too";
}

TEST_F(AscCheck, BackendTestModelsWithSeveralNodes) {
  for (const std::string name :
       {"test_layer_normalization_4d_axis1_expanded", "test_logsoftmax_axis_1_expanded",
        "test_nllloss_NCd1_weight_expanded"}) {
    SCOPED_TRACE(name);
    const std::string model = kNode + name + "/model.onnx";
    const Graph g = import_onnx_file(model);
    std::vector<std::string> ins;
    for (int v : g.inputs) ins.push_back(g.values[v].name);
    const std::vector<std::string> outputs = node_outputs(model);
    ASSERT_GE(outputs.size(), 5u);
    expect_all_pass(check_json(model + case_inputs(kNode + name, ins), 0), outputs);
  }
}

TEST_F(AscCheck, StringTensorsCrossTheBridge) {
  // StringNormalizer in the "C" locale (ONNX Runtime needs the named locale installed).
  test::ModelBuilder b;
  b.input("S", DType::kString, {"4"});
  auto& n = b.node("StringNormalizer", {"S"}, {"T"}, "upper");
  auto& action = test::attr(n, "case_change_action");
  action.set_type(onnx::AttributeProto::STRING);
  action.set_s("UPPER");
  auto& locale = test::attr(n, "locale");
  locale.set_type(onnx::AttributeProto::STRING);
  locale.set_s("C");
  b.output("T", DType::kString, {"?"});
  b.save(dir / "strings.onnx");
  Tensor s(DType::kString, {4});
  const char* words[] = {"monday", "Tuesday", "x1-y2", ""};
  for (int i = 0; i < 4; ++i) s.strings()[i] = words[i];
  write_tensor_proto_file(dir / "s.pb", "S", s);
  const json j = check_json(cat(dir / "strings.onnx", " --input S=", dir / "s.pb"), 0);
  expect_all_pass(j, {"T"});
  EXPECT_EQ(j["nodes"][0]["dtype"], "string");
  EXPECT_EQ(j["nodes"][0]["rule"], "exact");
}

TEST_F(AscCheck, Bfloat16ValuesAreFetchedThroughACast) {
  // onnxruntime-node has no bfloat16 tensors: B (an intermediate) and C (an output) come back
  // through exact casts to f32 and are compared as bf16.
  test::ModelBuilder b;
  b.input("X", DType::kF32, {"4", "5"});
  test::attr_i(b.node("Cast", {"X"}, {"B"}, "narrow"), "to", static_cast<int64_t>(DType::kBF16));
  b.node("Identity", {"B"}, {"C"}, "copy");
  test::attr_i(b.node("Cast", {"C"}, {"Y"}, "widen"), "to", static_cast<int64_t>(DType::kF32));
  b.output("Y", DType::kF32, {"4", "5"});
  b.output("C", DType::kBF16, {"4", "5"});
  b.save(dir / "bf16.onnx");
  const json j = check_json(dir / "bf16.onnx", 0);
  expect_all_pass(j, {"B", "C", "Y"});
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(j["nodes"][k]["dtype"], "bf16");
    EXPECT_EQ(j["nodes"][k]["ort_dtype"], "bf16");
    EXPECT_EQ(j["nodes"][k]["rule"], "cosine");
  }
}

TEST_F(AscCheck, ExternalDataModels) {
  test::ModelBuilder b;
  b.input("X", DType::kF32, {"2", "3"});
  std::vector<float> w(6);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(i) - 0.5f;
  fs::create_directory(dir.path() / "m");
  test::write_file(dir / "m/weights.bin", test::bytes_of(w));
  b.external("W", DType::kF32, {2, 3}, "weights.bin", 0);
  b.node("Mul", {"X", "W"}, {"T"}, "mul");
  b.node("Tanh", {"T"}, {"Y"}, "tanh");
  b.output("Y", DType::kF32, {"2", "3"});
  b.save(dir / "m/model.onnx");
  // ONNX Runtime reads the weights from the model's folder, not next to its rewritten copy.
  expect_all_pass(check_json(dir / "m/model.onnx", 0), {"T", "Y"});
}

TEST_F(AscCheck, ErrorsAndUsage) {
  const std::string model = ASC_TINY_MLP_ONNX;
  test::Result r = check(cat(model, " --bridge /nonexistent/bridge.mjs"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the ONNX Runtime bridge '/nonexistent/bridge.mjs' is missing"),
            std::string::npos)
      << r.err;
  r = check(cat(model, " --node /nonexistent/node"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cannot run '/nonexistent/node'"), std::string::npos) << r.err;
  r = check(cat(model, " --dim batch=x"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--dim 'batch=x'"), std::string::npos) << r.err;
  r = check(cat(model, " --precision fp8"));
  EXPECT_EQ(r.code, 2);
  r = check(cat(model, " --atol -1"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--atol"), std::string::npos) << r.err;
  r = check(cat(model, " --input nope=x.pb"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--input 'nope': the model has no input of that name"), std::string::npos)
      << r.err;
  r = check((dir / "missing.onnx"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.onnx"), std::string::npos) << r.err;
  // A model ONNX Runtime refuses: the bridge's message comes through.
  test::ModelBuilder b;
  b.input("X", DType::kF32, {"2"});
  b.node("Relu", {"X"}, {"Y"}, "relu");
  b.output("Y", DType::kF32, {"2"});
  b.m.set_ir_version(99);
  b.save(dir / "bad.onnx");
  r = check(dir / "bad.onnx");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad.onnx: ONNX Runtime failed ("), std::string::npos) << r.err;
}

TEST(MarkAll, WhatTheNodeBindingCannotReturnIsSkippedOrCast) {
  test::TempDir d;
  test::ModelBuilder b;
  b.input("X", DType::kF32, {"3"});
  b.node("SequenceConstruct", {"X", "X"}, {"S"}, "seq");
  b.node("SequenceAt", {"S", "I"}, {"E"}, "at");
  b.initializer("I", DType::kI64, {}, test::bytes_of(std::vector<int64_t>{1}));
  test::attr_i(b.node("Cast", {"E"}, {"H"}, "half"), "to", static_cast<int64_t>(DType::kBF16));
  b.output("H", DType::kBF16, {"3"});
  b.save(d / "m.onnx");
  const auto marked = check::write_marked_model(d / "m.onnx", d / "marked.onnx");
  EXPECT_EQ(marked.added, (std::vector<std::string>{"E"}));
  ASSERT_EQ(marked.skipped.count("S"), 1u);
  EXPECT_EQ(marked.skipped.at("S"), "not a tensor (a sequence, map or optional)");
  ASSERT_EQ(marked.via_f32.size(), 1u);  // the bf16 output H
  EXPECT_EQ(marked.via_f32.begin()->second, "H");
  EXPECT_FALSE(marked.external_data);
  onnx::ModelProto m;
  std::ifstream in(d / "marked.onnx", std::ios::binary);
  ASSERT_TRUE(m.ParseFromIstream(&in));
  std::vector<std::string> outs;
  for (const auto& o : m.graph().output()) outs.push_back(o.name());
  EXPECT_EQ(outs, (std::vector<std::string>{marked.via_f32.begin()->first, "E"}));
}

TEST(MarkAll, EveryNodeOutputBecomesAGraphOutput) {
  test::TempDir d;
  const std::string model = kNode + "test_layer_normalization_4d_axis1_expanded/model.onnx";
  const auto added = check::write_marked_model(model, d / "marked.onnx").added;
  const Graph original = import_onnx_file(model), marked = import_onnx_file(d / "marked.onnx");
  ASSERT_EQ(marked.outputs.size(), original.outputs.size() + added.size());
  for (size_t k = 0; k < original.outputs.size(); ++k)  // the model's own outputs stay first
    EXPECT_EQ(marked.values[marked.outputs[k]].name, original.values[original.outputs[k]].name);
  ASSERT_GE(added.size(), 20u);
  for (const Node& n : original.nodes) {
    const std::string& name = original.values[n.outputs[0]].name;
    bool found = false;
    for (int v : marked.outputs) found = found || marked.values[v].name == name;
    EXPECT_TRUE(found) << name;
  }
}

}  // namespace
}  // namespace asc
