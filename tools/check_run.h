// asc-check: runs a model in ONNX Runtime (every intermediate exposed) and in asc on the same
// inputs, and compares every node output in topological order (docs/CHECK.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/check_compare.h"
#include "tools/check_ort.h"

namespace asc::check {

struct CheckOptions {
  std::string model;
  std::vector<std::string> inputs;  // NAME=FILE.pb
  std::vector<std::string> dims;    // NAME=VALUE
  uint64_t seed = 0;
  int threads = 0;                 // asc workers and ORT intra-op threads; 0: defaults
  std::string precision = "fp32";  // asc's precision: fp32 | fp16 | bf16
  bool fused = false;              // asc with optimisation (fusion) on
  Tolerance tol;
  OrtOptions ort;
};

enum class Status : uint8_t { kPass, kFail, kNotCompared };

// One node output.
struct Row {
  int node = -1;  // position in topological order
  std::string node_name, op, output;
  Status status = Status::kNotCompared;
  std::string note;  // why not compared ("fused away in asc" with --fused)
  DType dtype = DType::kUndefined, ort_dtype = DType::kUndefined;
  Shape shape;  // ONNX Runtime's
  Metrics metrics;
  // Outside its rule in the chained run: the node was run alone on ONNX Runtime's inputs
  // (check_alone.h), and these are that run's metrics; the row passes when they pass.
  bool alone = false;
  Metrics alone_metrics;
};

struct InputInfo {
  std::string name, source;  // source: "FILE" or "random"
  std::string declared;      // the model's type, symbolic dims by name: "[batch,16]"
  TensorDesc desc;
};

struct Report {
  std::string model, ort_version;
  std::vector<InputInfo> inputs;
  std::vector<Row> rows;   // topological order of nodes, each node's outputs in order
  int threads = 0;         // asc's worker threads
  std::string fusion;      // with --fused: what fusion did (FuseReport::str)
  int first_failure = -1;  // index into rows
  int compared = 0, failed = 0;
  // Every compared output passed, and something was compared (unless the model has no nodes).
  bool passed() const { return failed == 0 && (compared > 0 || rows.empty()); }
};

// Runs both sides and compares. Throws cli::UsageError for bad --dim / --input syntax, Error for
// a model, input or ONNX Runtime failure (the message names node, op and shapes).
Report run_check(const CheckOptions& o);

// Counts the compared and failed rows and marks the first failure (in row order).
void tally(Report& r);

// The text report: a header, one table line per row, the failures, a summary.
void print_report(const Report& r, const CheckOptions& o, std::FILE* out);
// One JSON object: nodes (the rows), first_failure (null when none), passed.
nlohmann::ordered_json report_json(const Report& r, const CheckOptions& o);

}  // namespace asc::check
