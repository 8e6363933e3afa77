// asc-conformance end to end on a suite written here: one case per outcome (passed, not
// implemented, load, run by timeout, result differs), the --json report and the baseline check.
#ifdef ASC_CONFORMANCE_EXE

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "importers/onnx/tensor_proto.h"
#include "registry/strings.h"
#include "tests/tools/run_tool.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// model.onnx: c = op(a, b) over f32[n, n] (opset 17); with chain > 1, c = op(..op(op(a, b), b)..,
// b).
void write_model(const fs::path& dir, const std::string& op, int64_t n, int chain = 1) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  for (int k = 0; k < chain; ++k) {
    onnx::NodeProto* node = g->add_node();
    node->set_op_type(op);
    const std::string names[3] = {k == 0 ? std::string("a") : asc::cat("t", k - 1),
                                  std::string("b"),
                                  k + 1 == chain ? std::string("c") : asc::cat("t", k)};
    *node->mutable_input()->Add() = names[0];
    *node->mutable_input()->Add() = names[1];
    *node->mutable_output()->Add() = names[2];
  }
  auto declare = [n](onnx::ValueInfoProto* vi, const std::string& name) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(n);
    tt->mutable_shape()->add_dim()->set_dim_value(n);
  };
  declare(g->add_input(), "a");
  declare(g->add_input(), "b");
  declare(g->add_output(), "c");
  fs::create_directories(dir / "test_data_set_0");
  std::ofstream out(dir / "model.onnx", std::ios::binary);
  ASSERT_TRUE(m.SerializeToOstream(&out));
}

asc::Tensor filled(int64_t n, float v) {
  asc::Tensor t(asc::DType::kF32, {n, n});
  for (int64_t i = 0; i < n * n; ++i) t.data_as<float>()[i] = v;
  return t;
}

// A MatMul case: a = 1, b = 2, expected c = 2n, plus `error` on element 0. chain > 1 multiplies
// by b that many times (the slow case: it must time out, its expected values do not matter).
void write_matmul_case(const fs::path& dir, int64_t n, float error, int chain = 1) {
  write_model(dir, "MatMul", n, chain);
  const fs::path set = dir / "test_data_set_0";
  asc::write_tensor_proto_file((set / "input_0.pb").string(), "a", filled(n, 1));
  asc::write_tensor_proto_file((set / "input_1.pb").string(), "b", filled(n, 2));
  asc::Tensor c = filled(n, 2.0f * static_cast<float>(n));
  c.data_as<float>()[0] += error;
  asc::write_tensor_proto_file((set / "output_0.pb").string(), "c", c);
}

using asc::test::Result;

Result run_conformance(const std::string& args, const fs::path& dir) {
  return asc::test::run_tool(ASC_CONFORMANCE_EXE, args, dir);
}

class ConformanceRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("asc_conformance_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    suite_ = root_ / "mini";
    write_matmul_case(suite_ / "test_ok", 4, 0);
    write_matmul_case(suite_ / "test_wrong", 4, 0.5f);
    write_matmul_case(suite_ / "test_slow", 1024, 0, 400);  // ~860 GFLOP: seconds on any host
    write_model(suite_ / "test_unknown_op", "NoSuchOp", 2);
    fs::create_directories(suite_ / "test_garbage");
    std::ofstream(suite_ / "test_garbage" / "model.onnx") << "not a model";
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_, suite_;
};

TEST_F(ConformanceRunner, EachOutcomeIsReportedAndNothingEscapes) {
  const Result r = run_conformance("--json --timeout-s 0.5 '" + suite_.string() + "'", root_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  const json& s = j.at("suites").at("mini");
  EXPECT_EQ(s.at("total"), 5);
  EXPECT_EQ(s.at("passed"), 1);
  EXPECT_EQ(s.at("not_implemented"), 1);
  EXPECT_EQ(s.at("failed"), 3);
  EXPECT_EQ(s.at("failed_by_reason"), (json{{"load", 1}, {"run", 1}, {"result", 1}}));
  EXPECT_EQ(j.at("passed"), json::array({"mini/test_ok"}));
  EXPECT_EQ(j.at("not_implemented").at(0).at("test"), "mini/test_unknown_op");

  std::map<std::string, json> failed;
  for (const auto& f : j.at("failed")) failed[f.at("test")] = f;
  EXPECT_EQ(failed.at("mini/test_garbage").at("reason"), "load");
  EXPECT_EQ(failed.at("mini/test_slow").at("reason"), "run");
  EXPECT_EQ(failed.at("mini/test_slow").at("message"), "timed out after 0.5 s");
  EXPECT_EQ(failed.at("mini/test_wrong").at("reason"), "result");
  EXPECT_DOUBLE_EQ(failed.at("mini/test_wrong").at("max_abs_err").get<double>(), 0.5);
  EXPECT_NE(failed.at("mini/test_wrong").at("message").get<std::string>().find("worst [0]"),
            std::string::npos);

  for (const auto& op : j.at("op_types")) {
    if (op.at("op") == "MatMul") {
      EXPECT_EQ(op.at("cases"), 3);
    }
    if (op.at("op") == "NoSuchOp") {
      EXPECT_FALSE(op.at("implemented").get<bool>());
    }
  }
}

TEST_F(ConformanceRunner, BaselineCheckNamesTheSuiteThatDropped) {
  std::ofstream(root_ / "above.json") << R"({"suites": {"mini": 2}})";
  std::ofstream(root_ / "met.json") << R"({"suites": {"mini": 1, "other": 50}})";
  const std::string args = asc::cat(" --timeout-s 0.5 '", suite_.string(), "'");
  const Result drop =
      run_conformance("--check-baseline '" + (root_ / "above.json").string() + "'" + args, root_);
  EXPECT_EQ(drop.code, 1);
  EXPECT_NE(drop.err.find("suite 'mini' dropped: 1 pass, baseline 2"), std::string::npos)
      << drop.err;
  const Result met =
      run_conformance("--check-baseline '" + (root_ / "met.json").string() + "'" + args, root_);
  EXPECT_EQ(met.code, 0) << met.err;
}

TEST_F(ConformanceRunner, UsageErrorsExitTwo) {
  EXPECT_EQ(run_conformance(asc::cat("'", (root_ / "missing").string(), "'"), root_).code, 2);
  EXPECT_EQ(run_conformance(asc::cat("--filter ok --check-baseline '",
                                     (root_ / "mini" / "test_ok" / "model.onnx").string(), "' '",
                                     suite_.string(), "'"),
                            root_)
                .code,
            2);
}

}  // namespace

#endif  // ASC_CONFORMANCE_EXE
