// asc-ops --coverage: ONNX's schema registry against asc's registry, per schema version.
#include "tools/ops_coverage.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ops/ops.h"

namespace asc {
namespace {

const OpCoverage* find(const std::vector<OpCoverage>& c, const std::string& domain,
                       const std::string& op) {
  for (const auto& o : c)
    if (o.domain == domain && o.op == op) return &o;
  return nullptr;
}

TEST(OpsCoverage, ListsOnnxSchemasWithTheVersionsAscImplements) {
  const auto c = ops_coverage(global_registry());
  const OpCoverage* add = find(c, "ai.onnx", "Add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->versions, (std::vector<int>{1, 6, 7, 13, 14}));
  EXPECT_EQ(add->implemented, add->versions);
  // ONNX 1.12 ends at opset 17: no later schema is listed.
  for (const auto& o : c) {
    if (o.domain != "ai.onnx") continue;
    for (int v : o.versions) {
      EXPECT_LE(v, 17) << o.op;
    }
  }
  // An op asc does not register at all is listed as missing.
  const OpCoverage* loop = find(c, "ai.onnx", "Loop");
  ASSERT_NE(loop, nullptr);
  if (!global_registry().find("", "Loop", 16)) {
    EXPECT_TRUE(loop->implemented.empty());
  }
  EXPECT_NE(find(c, "ai.onnx.preview.training", "Adam"), nullptr);
  EXPECT_NE(find(c, "ai.onnx.ml", "LinearClassifier"), nullptr);
}

TEST(OpsCoverage, ReportTotalsAddUp) {
  const auto c = ops_coverage(global_registry());
  const auto j = nlohmann::json::parse(coverage_report(c, true));
  const auto& t = j["total"];
  EXPECT_EQ(t["ops"].get<size_t>(), c.size());
  EXPECT_EQ(t["full"].get<int>() + t["partial"].get<int>() + t["none"].get<int>(),
            static_cast<int>(c.size()));
  EXPECT_LE(t["versions_implemented"].get<int>(), t["versions"].get<int>());
  const std::string text = coverage_report(c, false);
  EXPECT_NE(text.find(" ONNX operators: "), std::string::npos);
  EXPECT_NE(text.find("\nai.onnx "), std::string::npos);
}

}  // namespace
}  // namespace asc
