// asc-ops --coverage: ONNX's schema registry against asc's registry, per schema version.
#include "tools/ops_coverage.h"

#include <gtest/gtest.h>

#include <algorithm>
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
  // ONNX 1.12's registry up to opset 17, asc's table (importers/onnx/onnx_schemas.h) to 23.
  int newest = 0;
  for (const auto& o : c) {
    if (o.domain != "ai.onnx") continue;
    EXPECT_TRUE(std::is_sorted(o.versions.begin(), o.versions.end())) << o.op;
    EXPECT_EQ(std::adjacent_find(o.versions.begin(), o.versions.end()), o.versions.end()) << o.op;
    for (int v : o.versions) {
      EXPECT_LE(v, 23) << o.op;
      newest = std::max(newest, v);
    }
  }
  EXPECT_EQ(newest, 23);
  const OpCoverage* mean = find(c, "ai.onnx", "ReduceMean");
  ASSERT_NE(mean, nullptr);
  EXPECT_EQ(mean->versions, (std::vector<int>{1, 11, 13, 18}));
  const OpCoverage* cast = find(c, "ai.onnx", "Cast");
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->versions, (std::vector<int>{1, 6, 9, 13, 19, 21, 23}));
  // An op ONNX 1.12 does not know comes from the table alone.
  const OpCoverage* rms = find(c, "ai.onnx", "RMSNormalization");
  ASSERT_NE(rms, nullptr);
  EXPECT_EQ(rms->versions, (std::vector<int>{23}));
  // A version counts as implemented exactly when the registry serves it.
  for (const auto& o : c) {
    if (o.domain != "ai.onnx" || o.op == "Constant") continue;
    for (int v : o.versions) {
      const bool served = global_registry().find("", o.op, v) != nullptr;
      EXPECT_EQ(std::count(o.implemented.begin(), o.implemented.end(), v), served ? 1 : 0)
          << o.op << "-" << v;
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
