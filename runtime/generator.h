// Generator: autoregressive decoding on a decoder-with-past model (the layout Hugging Face optimum
// and onnxruntime-genai export: input_ids, attention_mask, optional position_ids,
// past_key_values.N.key/.value in; logits, present.N.key/.value out), batch 1.
//
// The KV cache is one buffer per layer and key/value, [1, kv_heads, max_len, head_dim],
// preallocated. A step of s tokens after P cached ones binds past = rows [0, P) and present =
// rows [0, P + s) of the same buffer as strided views (head stride max_len * head_dim). With
// attention fusion (ModelOptions::optimize) the FusedAttention node reads the past and writes the
// present through those views: the past rows are already in place, so a step writes only its s
// new rows and never copies the past. Without fusion, Model::run makes a dense copy of each past
// view before the step and copies each present into its view after it (correct, O(P) per step).
// docs/RUNTIME.md, "Attention fusion and the KV cache".
#pragma once

#include <chrono>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "runtime/model.h"

namespace asc {

struct SamplingOptions {
  float temperature = 0.0f;  // 0: greedy (argmax)
  int top_k = 0;             // keep the k most likely tokens (0: all)
  float top_p = 1.0f;        // keep the smallest set whose probability reaches top_p
  uint64_t seed = 0;
};

struct GeneratorOptions {
  int64_t max_len = 2048;  // prompt + new tokens the cache holds
  SamplingOptions sampling;
  bool step_timings = false;  // fill GenerationStats::prefill_steps / decode_steps
};

struct GenerationStats {
  int64_t prompt_tokens = 0;
  double prefill_ms = 0;
  std::vector<double> step_ms;  // one per decoding step
  // With GeneratorOptions::step_timings: the plan steps of the prefill and of all decoding steps.
  RunStats prefill_steps, decode_steps;
  // Under a predictor (Model::predictor()): the predicted kernels of the prefill and of every
  // decoding step, and each step's predicted seconds.
  CostTotals predicted_prefill, predicted_decode;
  std::vector<double> predicted_step_s;
};

class Generator {
 public:
  // Throws Error naming what is missing when the model is not a decoder with past.
  Generator(const Model& model, GeneratorOptions options);

  // True when the graph's inputs and outputs have the decoder-with-past names.
  static bool is_decoder_with_past(const Graph& g);

  // Runs the prompt and returns the first new token (sampled from its last logits).
  int64_t prefill(std::span<const int64_t> prompt);
  // Feeds the last token and returns the next.
  int64_t step();
  // prefill, then n_new - 1 steps: the n_new new tokens.
  std::vector<int64_t> generate(std::span<const int64_t> prompt, int n_new);

  int64_t length() const { return length_; }  // tokens in the cache
  int64_t vocab() const { return vocab_; }
  const GenerationStats& stats() const { return stats_; }
  // The logits row the last token was chosen from.
  const std::vector<float>& last_logits() const { return logits_; }

 private:
  // Runs s tokens; adds the run's predicted kernels to `predicted` under a predictor.
  int64_t run(std::span<const int64_t> ids, RunStats* stats, CostTotals& predicted);
  int64_t choose();

  const Model& model_;
  GeneratorOptions options_;
  int64_t layers_ = 0, kv_heads_ = 0, head_dim_ = 0, vocab_ = 0;
  DType kv_dtype_ = DType::kF32;
  bool has_mask_ = false, has_positions_ = false;
  // Per layer and key/value (index 2 * layer + kv): [1, kv_heads, max_len, head_dim].
  std::vector<Tensor> cache_;
  int64_t length_ = 0, last_token_ = -1;
  std::vector<float> logits_;
  std::mt19937_64 rng_;
  GenerationStats stats_;
};

// Picks a token from a logits row by the sampling options (greedy when temperature is 0).
int64_t sample_token(std::span<const float> logits, const SamplingOptions& o, std::mt19937_64& rng);

}  // namespace asc
