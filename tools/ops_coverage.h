// asc-ops --coverage: every operator in ONNX's own schema registry (libonnx, ONNX 1.12: ai.onnx up
// to opset 17, ai.onnx.ml, ai.onnx.preview.training) and in asc's table of the ai.onnx versions of
// opsets 18..23 (importers/onnx/onnx_schemas.h) against what asc's registry implements, per schema
// version.
#pragma once

#include <string>
#include <vector>

#include "registry/registry.h"

namespace asc {

struct OpCoverage {
  std::string domain;  // "ai.onnx", "ai.onnx.ml", ...
  std::string op;
  std::vector<int> versions;     // ONNX's schema versions (since_version of each)
  std::vector<int> implemented;  // those asc has a definition for
  bool deprecated = false;       // the newest schema is deprecated
};

std::vector<OpCoverage> ops_coverage(const Registry& reg);

// The table (or JSON with --json) and totals: ops with every version, with some, with none.
std::string coverage_report(const std::vector<OpCoverage>& c, bool json);

}  // namespace asc
