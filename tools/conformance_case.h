// One ONNX backend-test case folder (model.onnx + test_data_set_*/{input,output}_K.pb): what ops
// its model uses, and running it in this process against the expected outputs.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/model.h"

namespace asc::conformance {

// How a case ended, in onnx_test_runner's categories.
enum class Outcome {
  kPassed,
  kNotImplemented,  // UnsupportedError: an op, version, dtype or value kind asc lacks
  kLoad,            // any other error importing the model or reading its test data
  kRun,             // an exception, crash or timeout while running
  kResult,          // ran, but an output differs from the expected one
};

// "passed", "not_implemented", "load", "run", "result".
std::string_view outcome_name(Outcome o);
// Inverse of outcome_name; throws Error for an unknown name.
Outcome outcome_from_name(std::string_view name);

struct CaseResult {
  Outcome outcome = Outcome::kRun;
  std::string reason;      // one line; empty when passed
  double max_abs_err = 0;  // the worst output's largest error, when outcome is kResult
  int data_sets = 0;       // test_data_set_* folders run
};

// An op type a model uses (its nodes and their subgraphs'), with its domain ("" = ai.onnx).
struct OpUse {
  std::string domain;
  std::string type;
  std::string label() const;  // "Add", or "com.microsoft.Gelu" outside ai.onnx
  auto operator<=>(const OpUse&) const = default;
};

// The distinct op types in `model_path`, sorted, from the ModelProto alone (no import, so it
// works for models asc cannot load). Throws Error when the file cannot be parsed.
std::vector<OpUse> read_op_uses(const std::filesystem::path& model_path);

// Imports `dir`/model.onnx, builds a Model and runs every test_data_set_* in it, comparing each
// output with the official rule. Never throws: every error becomes the result.
CaseResult run_case(const std::filesystem::path& dir, const ModelOptions& options);

}  // namespace asc::conformance
