// The bad-input matrix through asc-run: every malformed or unsafe model and every wrong input is
// exit code 1 with a message on stderr naming what is wrong — never a crash, a hang or a success.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "importers/onnx/tensor_proto.h"
#include "registry/tensor.h"
#include "tests/importers/onnx_builder.h"
#include "tests/tools/run_tool.h"

namespace {

namespace fs = std::filesystem;
using asc::DType;
using asc::test::ModelBuilder;

// x: f32[2,3] -> Relu -> y; the base every case breaks in one way.
ModelBuilder relu_model(int opset = 17) {
  ModelBuilder b(opset);
  b.input("x", DType::kF32, {"2", "3"});
  b.node("Relu", {"x"}, {"y"}, "relu");
  b.output("y", DType::kF32, {"2", "3"});
  return b;
}

struct BadCase {
  std::string name;
  std::string needle;  // must appear in stderr
  std::string args;    // extra asc-run arguments
};

class AscRunBadModel : public ::testing::Test {
 protected:
  // Writes `bytes` as NAME/model.onnx (a folder per case, so external data stays inside).
  std::string put(const std::string& name, const std::string& bytes) {
    fs::create_directories(dir.path() / name);
    const std::string p = dir / (name + "/model.onnx");
    asc::test::write_file(p, bytes);
    return p;
  }
  void expect_exit1(const std::string& model, const BadCase& c) {
    const auto r = asc::test::run_tool(ASC_RUN_EXE, "'" + model + "' " + c.args, dir.path());
    EXPECT_EQ(r.code, 1) << c.name << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("asc-run: ", 0), 0u) << c.name << "\n" << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.name << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << c.name << "\n" << r.out;
  }
  asc::test::TempDir dir;
};

TEST_F(AscRunBadModel, MalformedFiles) {
  const std::string good = relu_model().bytes();
  std::mt19937 rng(7);
  std::string noise(4096, '\0');
  for (char& ch : noise) ch = static_cast<char>(rng());
  expect_exit1(put("empty", ""), {"empty", "empty", ""});
  expect_exit1(put("random", noise), {"random", "model.onnx", ""});
  expect_exit1(put("truncated", good.substr(0, good.size() * 2 / 3)),
               {"truncated", "model.onnx", ""});
  expect_exit1((dir.path() / "missing/model.onnx").string(), {"missing", "missing", ""});
}

TEST_F(AscRunBadModel, GraphErrors) {
  ModelBuilder unknown = relu_model();
  unknown.node("FrobnicateV9", {"y"}, {"z"}, "frob");
  expect_exit1(put("unknown_op", unknown.bytes()), {"unknown op", "FrobnicateV9", ""});

  expect_exit1(put("future_opset", relu_model(99).bytes()), {"future opset", "99", ""});

  ModelBuilder cycle;
  cycle.node("Relu", {"b"}, {"a"}, "ra");
  cycle.node("Relu", {"a"}, {"b"}, "rb");
  cycle.output("a", DType::kF32, {"2"});
  expect_exit1(put("cycle", cycle.bytes()), {"cycle", "cycle", ""});

  ModelBuilder dangling;
  dangling.input("x", DType::kF32, {"2"});
  dangling.node("Add", {"x", "nowhere"}, {"y"}, "add");
  dangling.output("y", DType::kF32, {"2"});
  expect_exit1(put("dangling", dangling.bytes()), {"dangling", "nowhere", ""});
}

TEST_F(AscRunBadModel, DataErrors) {
  // External data escaping the model's folder, and past the end of its file.
  asc::test::write_file(dir / "outside.bin", std::string(64, '\0'));
  ModelBuilder escape;
  escape.external("W", DType::kF32, {4}, "../outside.bin", 0, 16);
  escape.output("W", DType::kF32, {"4"});
  expect_exit1(put("escape", escape.bytes()), {"escape", "outside.bin", ""});

  fs::create_directories(dir.path() / "past_eof");
  asc::test::write_file(dir / "past_eof/w.bin", std::string(16, '\0'));
  ModelBuilder past;
  past.external("W", DType::kF32, {4}, "w.bin", 8, 16);
  past.output("W", DType::kF32, {"4"});
  expect_exit1(put("past_eof", past.bytes()), {"past EOF", "w.bin", ""});

  ModelBuilder short_raw = relu_model();
  short_raw.initializer("b", DType::kF32, {2, 3}, std::string(8, '\0'));
  short_raw.node("Add", {"y", "b"}, {"z"}, "add");
  short_raw.output("z", DType::kF32, {"2", "3"});
  expect_exit1(put("short_raw", short_raw.bytes()), {"short raw_data", "'b'", ""});

  ModelBuilder absurd = relu_model();
  absurd.initializer("huge", DType::kF32, {1000000, 1000000000}, "");
  absurd.node("Add", {"y", "huge"}, {"z"}, "add");
  absurd.output("z", DType::kF32, {"?", "?"});
  expect_exit1(put("absurd", absurd.bytes()), {"absurd shape", "huge", ""});
}

TEST_F(AscRunBadModel, WrongInputs) {
  const std::string model = put("inputs", relu_model().bytes());
  asc::write_tensor_proto_file(dir / "i64.pb", "x", asc::Tensor(DType::kI64, {2, 3}));
  asc::write_tensor_proto_file(dir / "rank.pb", "x", asc::Tensor(DType::kF32, {2, 3, 1}));
  asc::write_tensor_proto_file(dir / "dims.pb", "x", asc::Tensor(DType::kF32, {3, 2}));
  expect_exit1(model, {"wrong dtype", "i64[2,3]", "--input x=" + (dir / "i64.pb")});
  expect_exit1(model, {"wrong rank", "f32[2,3,1]", "--input x=" + (dir / "rank.pb")});
  expect_exit1(model, {"wrong dims", "f32[3,2]", "--input x=" + (dir / "dims.pb")});
}

}  // namespace
