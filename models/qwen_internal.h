// Shared by the two Qwen forms: the weights (same names, shapes and draws in both) and the
// symbolic dim names.
#pragma once

#include <string>

#include "models/onnx_writer.h"
#include "models/qwen_builder.h"

namespace asc::models::qwen {

inline constexpr const char* kBatch = "batch_size";
inline constexpr const char* kSeq = "sequence_length";
inline constexpr const char* kPast = "past_sequence_length";
inline constexpr const char* kTotal = "total_sequence_length";

// Normal draws: std 0.02 for projections, biases and the embedding; norm weights around 1.
inline constexpr float kWeightStd = 0.02f;
inline constexpr float kNormStd = 0.05f;

// A linear layer's weight, stored [in, out] for MatMul.
std::string linear(OnnxWriter& w, const QwenOptions& o, const std::string& name, int64_t in,
                   int64_t out);
std::string bias(OnnxWriter& w, const QwenOptions& o, const std::string& name, int64_t n);
std::string norm_weight(OnnxWriter& w, const QwenOptions& o, const std::string& name);
std::string embedding(OnnxWriter& w, const QwenOptions& o);  // [vocab, hidden]
std::string lm_head(OnnxWriter& w, const QwenOptions& o);    // [hidden, vocab]

// inv_freq[j] = theta^(-2j/head_dim), j < head_dim/2, computed in double.
std::vector<float> inv_freq(const QwenConfig& c);

// The graph inputs (input_ids, attention_mask, position_ids when asked, past_key_values.N.*)
// and outputs (logits, present.N.*).
void add_io(OnnxWriter& w, const QwenOptions& o, bool position_ids);

}  // namespace asc::models::qwen
