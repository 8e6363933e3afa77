// asc-run --generate on the tiny Qwen model, end to end through the binary: the JSON report
// (tokens, prompt, speeds, the per-op profile of prefill and decode), the text profile, the
// precision column, and a bad prompt.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runtime/generator.h"
#include "tests/models/qwen_run.h"
#include "tests/tools/run_tool.h"

namespace asc::test {
namespace {

class AscRunGenerate : public ::testing::Test {
 protected:
  Result run(const std::string& args) const {
    return run_tool(ASC_RUN_EXE, models::str_cat("'", tiny_model_path(), "' ", args), dir_ / "");
  }
  TempDir dir_;
};

TEST_F(AscRunGenerate, JsonReportWithProfile) {
  const Result r = run("--generate 5 --prompt-len 9 --seed 3 --threads 2 --json --profile");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["tokens"].size(), 5u);
  ASSERT_EQ(j["prompt"].size(), 9u);
  EXPECT_GT(j["prefill_tok_s"].get<double>(), 0.0);
  EXPECT_GT(j["decode_tok_s"].get<double>(), 0.0);
  EXPECT_GT(j["peak_rss_mb"].get<double>(), 0.0);

  // The same tokens as the Generator in process, from the same prompt.
  const auto model = load(tiny_model_path());
  const std::vector<int64_t> prompt = j["prompt"].get<std::vector<int64_t>>();
  EXPECT_EQ(j["tokens"].get<std::vector<int64_t>>(),
            Generator(*model, {14, {}}).generate(prompt, 5));

  // Profiles: the fused ops by name; the decode rows are per token (4 steps, 2 layers: 2
  // FusedAttention calls per token).
  for (const char* phase : {"prefill", "decode"}) {
    const auto& rows = j["profile"][phase];
    ASSERT_FALSE(rows.empty()) << phase;
    double calls = -1;
    for (const auto& row : rows) {
      EXPECT_GE(row["ms"].get<double>(), 0.0);
      if (row["op"] == "FusedAttention") calls = row["calls"].get<double>();
    }
    EXPECT_EQ(calls, 2.0) << phase;
  }
}

TEST_F(AscRunGenerate, TextProfileAndPrecision) {
  const Result r = run("--generate 3 --prompt-len 4 --precision bf16 --profile");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| bf16 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| pp4 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| tg2 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("prefill of 4 tokens"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("decode, ms per token over 2 tokens"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FusedAttention"), std::string::npos) << r.out;
}

TEST_F(AscRunGenerate, BadPromptIdsAreAUsageError) {
  const Result r = run("--generate 2 --prompt-ids 1,x,3");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("'x' is not a token id"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace asc::test
