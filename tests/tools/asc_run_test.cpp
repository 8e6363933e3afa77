// asc-run end to end: runs the binary on the bundled tiny MLP (and on models written here) and
// checks exit codes, --json, --output-dir and --trace.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "importers/onnx/onnx_importer.h"
#include "importers/onnx/tensor_proto.h"
#include "registry/strings.h"
#include "runtime/model.h"
#include "tests/tools/run_tool.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using asc::test::Result;
using asc::test::slurp;

// A fresh temporary folder per test.
fs::path temp_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path d = fs::temp_directory_path() /
               (std::string("asc_run_test_") + info->name() + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Runs `ENV asc-run ARGS` with stdout and stderr captured in files of `dir`.
Result run_asc(const std::string& args, const fs::path& dir, const std::string& env = "") {
  return asc::test::run_tool(ASC_RUN_EXE, args, dir, env);
}

const std::string kModel = std::string("'") + ASC_TINY_MLP_ONNX + "'";

TEST(AscRun, RunsTheBundledModel) {
  const fs::path d = temp_dir();
  const Result r = run_asc(kModel + " --dim batch=3 --iterations 2 --warmup 1 --profile", d);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("probs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("f32[3,8]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("median"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MatMul"), std::string::npos) << "profile table:\n" << r.out;
}

// Sequence inputs read from SequenceProto files; a sequence output is described by its
// elements (no min/max/mean) and written as a SequenceProto.
TEST(AscRun, SequencesInAndOut) {
  const fs::path d = temp_dir();
  const fs::path c = "/usr/include/onnx/backend/test/data/node/test_sequence_map_add_2_sequences";
  ASSERT_TRUE(fs::exists(c)) << "libonnx-testdata (scripts/install-deps.sh) is missing";
  const std::string data = (c / "test_data_set_0").string();
  const Result r = run_asc(asc::cat("'", (c / "model.onnx").string(), "' --input x0='", data,
                                    "/input_0.pb' --input x1='", data,
                                    "/input_1.pb' --output-dir '", (d / "out").string(), "'"),
                           d);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 elements: f32[6], f32[1], f32[4]"), std::string::npos) << r.out;
  const asc::Tensor y =
      asc::read_value_proto_file((d / "out" / "output_0.pb").string(), asc::DType::kSequence);
  const asc::Tensor want = asc::read_value_proto_file(data + "/output_0.pb", asc::DType::kSequence);
  ASSERT_EQ(y.list()->items.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    const asc::Tensor& a = y.list()->items[k];
    const asc::Tensor& b = want.list()->items[k];
    ASSERT_EQ(a.shape(), b.shape());
    for (int64_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.at(i), b.at(i), 1e-6);
  }
}

TEST(AscRun, JsonHasTheKeysAndNothingElseOnStdout) {
  const fs::path d = temp_dir();
  // Debug logging (every plan) goes to stderr, never into the JSON.
  const Result r =
      run_asc(kModel + " --json --dim batch=5 --iterations 3", d, "SPDLOG_LEVEL=debug");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);  // throws if anything else was printed
  EXPECT_NE(r.err.find("[debug]"), std::string::npos) << r.err;
  for (const char* k : {"load_ms", "first_run_ms", "median_ms", "outputs"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_GE(j["median_ms"].get<double>(), 0.0);
  ASSERT_EQ(j["outputs"].size(), 3u);
  EXPECT_EQ(j["outputs"][0]["name"], "probs");
  EXPECT_EQ(j["outputs"][0]["shape"], json({5, 8}));
  EXPECT_EQ(j["outputs"][0]["dtype"], "f32");
  EXPECT_EQ(j["outputs"][1]["shape"], json({5}));
  EXPECT_EQ(j["outputs"][2]["name"], "logits_t");
  EXPECT_EQ(j["outputs"][2]["shape"], json({8, 5}));
}

// The outputs written to --output-dir equal the printed ones and an in-process run of the same
// model on the same input (given as a TensorProto file).
TEST(AscRun, OutputDirMatchesPrintedAndInProcessOutputs) {
  const fs::path d = temp_dir();
  asc::Tensor x(asc::DType::kF32, {2, 16});
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, std::sin(0.37 * static_cast<double>(i)));
  asc::write_tensor_proto_file((d / "x.pb").string(), "x", x);
  const Result r = run_asc(kModel + " --json --values 100 --input x=" + (d / "x.pb").string() +
                               " --output-dir " + (d / "out").string(),
                           d);
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);

  asc::Model model(asc::import_onnx_file(ASC_TINY_MLP_ONNX), asc::ModelOptions{});
  const auto expected = model.run({{"x", x}});
  ASSERT_EQ(expected.size(), 3u);
  for (size_t k = 0; k < expected.size(); ++k) {
    const fs::path file = d / "out" / ("output_" + std::to_string(k) + ".pb");
    ASSERT_TRUE(fs::exists(file)) << file;
    std::string name;
    const asc::Tensor got = asc::read_tensor_proto_file(file.string(), &name);
    const asc::Tensor& want = expected[k].tensor;
    EXPECT_EQ(name, expected[k].name);
    ASSERT_EQ(got.desc().str(), want.desc().str()) << name;
    double sum = 0;
    for (int64_t i = 0; i < want.numel(); ++i) {
      EXPECT_EQ(got.at(i), want.at(i)) << name << "[" << i << "]";
      sum += got.at(i);
    }
    const json& printed = j["outputs"][k];
    EXPECT_EQ(printed["name"], name);
    ASSERT_EQ(printed["first"].size(), static_cast<size_t>(got.numel()));
    for (int64_t i = 0; i < got.numel(); ++i)
      EXPECT_EQ(printed["first"][static_cast<size_t>(i)].get<double>(), got.at(i));
    EXPECT_NEAR(printed["mean"].get<double>(), sum / static_cast<double>(got.numel()), 1e-12);
  }
}

TEST(AscRun, TraceHasOneSlicePerNodePerRun) {
  const fs::path d = temp_dir();
  const fs::path trace = d / "trace.json";
  const Result r =
      run_asc(kModel + " --warmup 1 --iterations 3 --trace " + trace.string() + " --threads 2", d);
  ASSERT_EQ(r.code, 0) << r.err;
  const json t = json::parse(slurp(trace));
  ASSERT_TRUE(t["traceEvents"].is_array());

  asc::Model model(asc::import_onnx_file(ASC_TINY_MLP_ONNX), asc::ModelOptions{});
  asc::RunStats stats;
  model.run({{"x", asc::Tensor(asc::DType::kF32, {1, 16})}}, {}, &stats);
  const size_t steps = stats.steps.size();
  ASSERT_GT(steps, 0u);

  const int runs = 1 + 1 + 3;  // first, warm-up, timed
  std::map<std::string, int> per_node;
  size_t ops = 0;
  for (const json& e : t["traceEvents"]) {
    if (e.value("cat", "") != "op") continue;
    ++ops;
    EXPECT_EQ(e["ph"], "X");
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    EXPECT_TRUE(e["ts"].is_number() && e["pid"].is_number() && e["tid"].is_number());
    ++per_node[e["args"]["node"].get<std::string>()];
    // tiny_mlp's nodes are all tile kernels: each slice names its grid and local buffers.
    const std::string kernel = e["args"].value("kernel", "");
    EXPECT_EQ(kernel.rfind("grid [", 0), 0u) << e.dump();
    EXPECT_NE(kernel.find(" f32["), std::string::npos) << e.dump();
  }
  EXPECT_EQ(ops, steps * runs);
  EXPECT_EQ(per_node.size(), steps);
  for (const auto& [node, n] : per_node) EXPECT_EQ(n, runs) << node;
}

TEST(AscRun, PrecisionKeepsF32OutputsCloseToTheF32Run) {
  const fs::path d = temp_dir();
  const Result f32 = run_asc(kModel + " --dim batch=3 --json --iterations 1", d);
  ASSERT_EQ(f32.code, 0) << f32.err;
  for (const char* p : {"bf16", "fp16"}) {
    const Result low = run_asc(kModel +
                                   " --dim batch=3 --json --iterations 1 --optimize 0 "
                                   "--precision " +
                                   p,
                               d);
    ASSERT_EQ(low.code, 0) << low.err;
    const json a = json::parse(f32.out), b = json::parse(low.out);
    EXPECT_EQ(b["precision"], p);
    ASSERT_EQ(a["outputs"].size(), b["outputs"].size());
    for (size_t i = 0; i < a["outputs"].size(); ++i) {
      EXPECT_EQ(b["outputs"][i]["dtype"], a["outputs"][i]["dtype"]) << p;
      EXPECT_EQ(b["outputs"][i]["shape"], a["outputs"][i]["shape"]) << p;
      const auto& fa = a["outputs"][i]["first"];
      const auto& fb = b["outputs"][i]["first"];
      ASSERT_EQ(fa.size(), fb.size());
      for (size_t k = 0; k < fa.size(); ++k)
        EXPECT_NEAR(fb[k].get<double>(), fa[k].get<double>(),
                    0.02 * std::fabs(fa[k].get<double>()) + 2e-3)
            << p << " output " << i << " value " << k;
    }
  }
}

// --weight-cache: the first bf16 load writes one file there, the second maps it; both print what
// a load without the cache prints.
TEST(AscRun, WeightCacheRunsGiveTheConvertingRunsOutputs) {
  const fs::path d = temp_dir();
  const std::string args = kModel + " --dim batch=3 --json --iterations 1 --precision bf16";
  const Result plain = run_asc(args, d);
  ASSERT_EQ(plain.code, 0) << plain.err;
  for (int run = 0; run < 2; ++run) {
    const Result r = run_asc(args + " --weight-cache " + (d / "cache").string(), d);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["outputs"], json::parse(plain.out)["outputs"]) << run;
    int files = 0;
    for (const auto& e : fs::directory_iterator(d / "cache"))
      files += e.path().extension() == ".ascw";
    EXPECT_EQ(files, 1) << run;
  }
}

TEST(AscRun, MissingModelFileIsExit1) {
  const fs::path d = temp_dir();
  const Result r = run_asc((d / "nope.onnx").string(), d);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("asc-run: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("nope.onnx"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(AscRun, UnknownOpIsExit1NamingTheOp) {
  const fs::path d = temp_dir();
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto& g = *m.mutable_graph();
  onnx::NodeProto* n = g.add_node();
  n->set_op_type("FrobnicateV9");
  n->set_name("frob");
  n->add_input("x");
  n->add_output("y");
  for (auto* list : {g.mutable_input(), g.mutable_output()}) {
    onnx::ValueInfoProto* vi = list->Add();
    vi->set_name(list == g.mutable_input() ? "x" : "y");
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(4);
  }
  std::ofstream((d / "frob.onnx").string(), std::ios::binary) << m.SerializeAsString();
  const Result r = run_asc((d / "frob.onnx").string(), d);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("asc-run: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("FrobnicateV9"), std::string::npos) << r.err;
}

TEST(AscRun, BadInputsAreExit1) {
  const fs::path d = temp_dir();
  asc::write_tensor_proto_file((d / "i.pb").string(), "x", asc::Tensor(asc::DType::kI64, {1, 16}));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {" --input x=" + (d / "i.pb").string(), "i64"},         // wrong dtype
      {" --input y=" + (d / "i.pb").string(), "no input"},    // unknown input name
      {" --input x=" + (d / "none.pb").string(), "none.pb"},  // missing file
      {" --dim batch=1000000000000000", "does not fit"},      // absurd size, refused early
      {" --device sim:foo",
       "device 'sim:foo' is not available (devices: cpu, sim:910b, ascend-emu)"},
#ifndef ASC_WITH_CANN
      {" --device ascend",
       "device 'ascend' is not available: asc was built without CANN "
       "(configure with -DASC_WITH_CANN=ON and ASCEND_HOME_PATH set"},
#endif
  };
  for (const auto& [args, needle] : cases) {
    const Result r = run_asc(kModel + args, d);
    EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("asc-run: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  }
}

TEST(AscRun, UsageErrorsAreExit2) {
  const fs::path d = temp_dir();
  for (const std::string& args :
       {std::string(""), kModel + " --bogus", kModel + " --dim batch", kModel + " --dim batch=x",
        kModel + " --input x", kModel + " --iterations 0", kModel + " --warmup -1",
        kModel + " --precision int4", kModel + " --optimize 2"}) {
    const Result r = run_asc(args, d);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("asc-run: ", 0), 0u) << r.err;
  }
  const Result help = run_asc("--help", d);
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--output-dir"), std::string::npos);
}

}  // namespace
