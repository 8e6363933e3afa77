// The sim:910b device on the tiny Qwen: the cpu's tokens under the 910B tilings, a prediction for
// every kernel of the prefill and of each decoding step, and --timing-only: the same prediction
// from shapes alone, with the weights' file removed (nothing reads it) or written shape-only.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "registry/error.h"
#include "runtime/generator.h"
#include "tests/models/qwen_run.h"
#include "tests/tools/run_tool.h"

namespace asc::test {
namespace {

std::unique_ptr<Model> load_on(const std::string& path, const std::string& device,
                               bool timing_only = false, bool optimize = true) {
  ModelOptions mo;
  mo.threads = 2;
  mo.device = device;
  mo.optimize = optimize;
  mo.timing_only = timing_only;
  ImportOptions io;
  io.shape_only_weights = timing_only;
  return std::make_unique<Model>(import_onnx_file(path, io), mo);
}

const std::vector<int64_t> kPrompt = {3, 17, 101, 42, 250, 7, 7, 64, 199};

struct Generated {
  std::vector<int64_t> tokens;
  std::vector<float> last_logits;
  GenerationStats stats;
};

Generated generate(const Model& m, int n) {
  Generator g(m, {32, {}});
  Generated r;
  r.tokens = g.generate(kPrompt, n);
  r.last_logits = g.last_logits();
  r.stats = g.stats();
  return r;
}

TEST(SimQwen, CpuTokensUnder910bTilings) {
  for (bool optimize : {true, false}) {
    const auto cpu = load_on(tiny_model_path(), "cpu", false, optimize);
    const auto sim = load_on(tiny_model_path(), "sim:910b", false, optimize);
    ASSERT_NE(sim->predictor(), nullptr);
    EXPECT_EQ(sim->spec().name, "ascend910b");
    EXPECT_EQ(cpu->predictor(), nullptr);
    const Generated a = generate(*cpu, 6), b = generate(*sim, 6);
    EXPECT_EQ(a.tokens, b.tokens) << "optimize " << optimize;
    ASSERT_EQ(a.last_logits.size(), b.last_logits.size());
    double top = 0, diff = 0;
    for (size_t i = 0; i < a.last_logits.size(); ++i) {
      top = std::max(top, std::abs(static_cast<double>(a.last_logits[i])));
      diff = std::max(diff, std::abs(static_cast<double>(a.last_logits[i] - b.last_logits[i])));
    }
    EXPECT_LE(diff, 1e-4 * top) << "optimize " << optimize;  // f32: only summation order moves

    // A prediction for every kernel: the prefill's and one per decoding step.
    EXPECT_GT(b.stats.predicted_prefill.kernels, 0);
    EXPECT_GT(b.stats.predicted_prefill.cycles, 0.0);
    ASSERT_EQ(b.stats.predicted_step_s.size(), 5u);
    for (double s : b.stats.predicted_step_s) EXPECT_GT(s, 0.0);
    EXPECT_EQ(a.stats.predicted_prefill.kernels, 0);  // the cpu predicts nothing
  }
}

TEST(SimQwen, RunStatsCarryPredictions) {
  const auto sim = load_on(tiny_model_path(), "sim:910b");
  const models::QwenOptions o = tiny_options(models::ElemType::kF32);
  QwenStep step;
  step.ids = {{1, 2, 3, 4}};
  step.positions = {{0, 1, 2, 3}};
  step.mask = {{1, 1, 1, 1}};
  RunStats stats;
  std::vector<NamedTensor> in = {{"input_ids", i64_tensor(step.ids)},
                                 {"attention_mask", i64_tensor(step.mask)},
                                 {"position_ids", i64_tensor(step.positions)}};
  for (int64_t l = 0; l < o.config.layers; ++l)
    for (const char* kv : {"key", "value"})
      in.push_back({models::str_cat("past_key_values.", l, ".", kv),
                    Tensor(DType::kF32, {1, o.config.kv_heads, 0, o.config.head_dim})});
  sim->run(in, {}, &stats);
  ASSERT_FALSE(stats.steps.empty());
  int views = 0;
  for (const StepTiming& s : stats.steps) {
    EXPECT_TRUE(s.cost.valid);
    for (double b : s.cost.busy) EXPECT_GE(b, 0.0);
    if (s.cost.view) {  // Reshape, Unsqueeze: no kernel on the device
      ++views;
      EXPECT_EQ(s.cost.total_cycles(), 0.0);
      EXPECT_TRUE(sim->graph().nodes[static_cast<size_t>(s.node)].def->has(kMovement));
    } else {
      EXPECT_GT(s.cost.total_cycles(), 0.0);
    }
  }
  EXPECT_GT(views, 0);
}

// Writes the tiny Qwen (f16) with its weights in `dir`/tiny.onnx.data.
std::string write_external(const TempDir& dir, bool shape_only) {
  models::QwenOptions o = tiny_options(models::ElemType::kF16);
  o.external = models::QwenOptions::External::kAlways;
  o.shape_only = shape_only;
  const std::string path = dir / "tiny.onnx";
  models::write_qwen(o, path);
  return path;
}

void expect_same_prediction(const GenerationStats& a, const GenerationStats& b) {
  EXPECT_EQ(a.predicted_prefill.kernels, b.predicted_prefill.kernels);
  EXPECT_DOUBLE_EQ(a.predicted_prefill.cycles, b.predicted_prefill.cycles);
  EXPECT_DOUBLE_EQ(a.predicted_decode.cycles, b.predicted_decode.cycles);
  for (int q = 0; q < kPipeCount; ++q)
    EXPECT_DOUBLE_EQ(a.predicted_decode.busy[q], b.predicted_decode.busy[q]);
  ASSERT_EQ(a.predicted_step_s.size(), b.predicted_step_s.size());
  for (size_t i = 0; i < a.predicted_step_s.size(); ++i)
    EXPECT_DOUBLE_EQ(a.predicted_step_s[i], b.predicted_step_s[i]);
}

TEST(SimQwen, TimingOnlyReadsNoWeight) {
  const TempDir dir;
  const std::string path = write_external(dir, false);
  const Generated real = generate(*load_on(path, "sim:910b"), 5);

  // Without its weights' file the model cannot load for real, but predicts the same.
  std::filesystem::remove(path + ".data");
  EXPECT_THROW(load_on(path, "sim:910b"), ModelError);
  const auto timing = load_on(path, "sim:910b", true);
  const Generated t = generate(*timing, 5);
  EXPECT_EQ(t.tokens.size(), 5u);
  expect_same_prediction(real.stats, t.stats);
}

TEST(SimQwen, ShapeOnlyModelPredicts) {
  const TempDir dir;
  const std::string path = write_external(dir, true);
  // The data file has the weights' size but holds no data blocks (sparse zeros).
  struct stat st {};
  ASSERT_EQ(::stat((path + ".data").c_str(), &st), 0);
  EXPECT_GT(st.st_size, 100000);
  EXPECT_LT(static_cast<int64_t>(st.st_blocks) * 512, st.st_size / 2);
  const Generated t = generate(*load_on(path, "sim:910b", true), 4);
  EXPECT_GT(t.stats.predicted_decode.cycles, 0.0);

  // Timing-only needs a simulated device.
  EXPECT_THROW(load_on(path, "cpu", true), Error);
}

class AscRunSim : public ::testing::Test {
 protected:
  Result run(const std::string& args) const {
    return run_tool(ASC_RUN_EXE, models::str_cat("'", tiny_model_path(), "' ", args), dir_ / "");
  }
  TempDir dir_;
};

TEST_F(AscRunSim, UnknownDeviceListsDevices) {
  const Result r = run("--device sim:foo");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("device 'sim:foo' is not available (devices: cpu, sim:910b, ascend-emu)"),
            std::string::npos)
      << r.err;
  const Result t = run("--timing-only");  // a usage error: only a predictor predicts
  EXPECT_EQ(t.code, 2);
  EXPECT_NE(t.err.find("--timing-only needs a predictor (--device sim:910b or --predict "
                       "sim:910b), not device 'cpu' alone"),
            std::string::npos)
      << t.err;
  const Result p = run("--predict sim:foo");
  EXPECT_EQ(p.code, 1);
  EXPECT_NE(p.err.find("predictor 'sim:foo' is not available (predictors: sim:910b)"),
            std::string::npos)
      << p.err;
}

TEST_F(AscRunSim, GenerateJsonPredictions) {
  for (const char* mode : {"", "--timing-only"}) {
    const Result r = run(models::str_cat("--device sim:910b ", mode,
                                         " --generate 4 --prompt-len 6 --json --profile"));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["device"], "sim:910b");
    EXPECT_GT(j["predicted_prefill_tok_s"].get<double>(), 0.0) << mode;
    EXPECT_GT(j["predicted_decode_tok_s"].get<double>(), 0.0) << mode;
    const double cube = j["cube_utilization"].get<double>();
    EXPECT_GT(cube, 0.0);
    EXPECT_LT(cube, 1.0);
    ASSERT_FALSE(j["predicted_profile"]["decode"].empty());
    EXPECT_TRUE(j["predicted_profile"]["decode"][0].contains("pipe_utilization"));
  }
}

TEST_F(AscRunSim, ProfileTraceAndLatency) {
  const std::string trace = dir_ / "trace.json";
  const Result r = run(models::str_cat(
      "--device sim:910b --dim batch_size=1 --dim sequence_length=8 --dim past_sequence_length=0 "
      "--dim total_sequence_length=8 --iterations 2 --warmup 0 --profile --trace '",
      trace, "'"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("predicted on sim:910b:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MTE2"), std::string::npos) << r.out;
  const auto t = nlohmann::json::parse(slurp(trace));
  std::set<std::string> tracks;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "M" && e["pid"] == 2 && e["name"] == "thread_name")
      tracks.insert(e["args"]["name"].get<std::string>());
  for (const char* p : {"kernels", "MTE2", "MTE1", "MTE3", "Vector", "Cube", "Scalar"})
    EXPECT_TRUE(tracks.count(p)) << p;

  const Result j =
      run("--device sim:910b --timing-only --dim batch_size=1 --dim sequence_length=8 "
          "--dim past_sequence_length=0 --dim total_sequence_length=8 --json");
  ASSERT_EQ(j.code, 0) << j.err;
  const auto k = nlohmann::json::parse(j.out);
  EXPECT_GT(k["predicted_latency_ms"].get<double>(), 0.0);
  EXPECT_TRUE(k["timing_only"].get<bool>());
}

}  // namespace
}  // namespace asc::test
