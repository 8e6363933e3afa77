// Every model of the ONNX backend test data either imports or throws asc::Error: never a crash.
// Counts are printed, not asserted (most ops are not implemented yet), except that no valid
// ONNX test model may be refused as malformed (ModelError).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "registry/error.h"
#include "tests/importers/onnx_builder.h"

namespace asc {
namespace {

void import_suite(const std::string& suite) {
  const std::filesystem::path root = "/usr/include/onnx/backend/test/data/" + suite;
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "libonnx-testdata not installed";
  std::vector<std::filesystem::path> models;
  for (const auto& e : std::filesystem::directory_iterator(root))
    if (std::filesystem::exists(e.path() / "model.onnx")) models.push_back(e.path() / "model.onnx");
  std::sort(models.begin(), models.end());
  int ok = 0, unsupported = 0, beyond_ops = 0;
  std::vector<std::string> malformed;
  for (const auto& m : models) {
    try {
      const Graph g = import_onnx_file(m.string());
      EXPECT_FALSE(g.outputs.empty()) << m;
      ++ok;
    } catch (const UnsupportedError& e) {
      ++unsupported;
      // Unsupported for a reason other than a missing op version (strings, sequences, graphs).
      const std::string msg = e.what();
      size_t lines = 0, op_lines = 0;
      for (size_t p = msg.find("\n  "); p != std::string::npos; p = msg.find("\n  ", p + 1)) {
        const std::string line = msg.substr(p, msg.find('\n', p + 1) - p);
        ++lines;
        if (line.find(": not implemented") != std::string::npos ||
            line.find(": no version for opset") != std::string::npos)
          ++op_lines;
      }
      if (lines == 0 || op_lines < lines) ++beyond_ops;
    } catch (const Error& e) {
      malformed.push_back(e.what());
    }
  }
  std::cout << suite << ": " << models.size() << " models, " << ok << " import, " << unsupported
            << " unsupported (" << beyond_ops << " for more than a missing op), "
            << malformed.size() << " refused as malformed\n";
  EXPECT_GT(models.size(), 0u);
  for (const auto& e : malformed) ADD_FAILURE() << e;
}

TEST(OnnxBackendSuite, Node) {
  import_suite("node");
}
TEST(OnnxBackendSuite, Simple) {
  import_suite("simple");
}
TEST(OnnxBackendSuite, PytorchConverted) {
  import_suite("pytorch-converted");
}
TEST(OnnxBackendSuite, PytorchOperator) {
  import_suite("pytorch-operator");
}

}  // namespace
}  // namespace asc
