// asc-run --generate: greedy (or sampled) generation on a decoder-with-past model with a
// llama-bench-style report (pp P and tg N in tokens/s) or JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/generator.h"

namespace asc {

struct GenerateArgs {
  int new_tokens = 0;               // N
  std::vector<int64_t> prompt_ids;  // --prompt-ids; empty: prompt_len seeded ids
  int64_t prompt_len = 16;
  int64_t max_len = 0;  // 0: prompt + N
  int repetitions = 1;  // prefill + decode runs; the report gives mean and spread
  int warmup = 1;       // untimed generations first (plans every signature once)
  SamplingOptions sampling;
  uint64_t seed = 0;     // of the prompt ids
  bool profile = false;  // keep the step timings of the last repetition
};

// The process's peak resident set so far, in MiB.
double peak_rss_mb();

struct GenerateReport {
  std::vector<int64_t> prompt, tokens;              // tokens of the last repetition
  std::vector<double> prefill_tok_s, decode_tok_s;  // per repetition
  GenerationStats last;                             // of the last repetition
};

// Runs the repetitions; throws Error when the model is not a decoder with past or a run fails.
GenerateReport run_generation(const Model& model, const GenerateArgs& a);

// "1,2,3" -> ids; throws std::invalid_argument naming the bad item.
std::vector<int64_t> parse_ids(const std::string& s);

// The text table (llama-bench style) and the JSON object of a report.
// On a simulated device (`sim` not null) both add the predicted figures (docs/SIM.md).
std::string generation_table(const GenerateReport& r, const std::string& model_name,
                             const std::string& precision, int threads,
                             const Predictor* sim = nullptr);
// With GenerateArgs::profile: per-op tables of the prefill (ms) and decode (ms per token).
// On a simulated device (`sim` not null) each is followed by its predicted pipe table.
std::string generation_profile(const GenerateReport& r, const Graph& g,
                               const Predictor* sim = nullptr);

// `profile_graph`, when given, adds "profile": {"prefill": [...], "decode": [...]} (ms per token).
std::string generation_json(const GenerateReport& r, const std::string& model, double load_ms,
                            const std::string& precision, int threads,
                            const Graph* profile_graph = nullptr, const Predictor* sim = nullptr);

}  // namespace asc
