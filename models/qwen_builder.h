// Qwen2 / Qwen2.5 decoders with past as ONNX, with seeded random weights (docs/MODELS.md).
//
// Two forms:
// - kOptimum: standard ONNX ops in the layout Hugging Face optimum exports ("decoder with past"):
//     inputs  input_ids [batch_size, sequence_length] i64,
//             attention_mask [batch_size, total_sequence_length] i64,
//             position_ids [batch_size, sequence_length] i64,
//             past_key_values.N.key/.value [batch_size, kv_heads, past_sequence_length, head_dim]
//     outputs logits [batch_size, sequence_length, vocab],
//             present.N.key/.value [batch_size, kv_heads, total_sequence_length, head_dim]
//   where total_sequence_length = past_sequence_length + sequence_length.
// - kGenai: the com.microsoft contrib ops onnxruntime-genai emits (SimplifiedLayerNormalization,
//   SkipSimplifiedLayerNormalization, GroupQueryAttention, RotaryEmbedding) with genai's inputs:
//   input_ids, attention_mask, past_key_values.N.key/.value (plus position_ids when the rotary
//   embedding is a separate RotaryEmbedding node), same outputs.
//
// Weights of a linear layer are stored [in, out] (MatMul's B), named as in Hugging Face
// ("model.layers.0.self_attn.q_proj.weight"). Tied embeddings: "lm_head.weight" is a second
// initializer holding the transpose of "model.embed_tokens.weight" (what torch.onnx.export's
// constant folding writes), so the lm_head is a plain MatMul.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/onnx_writer.h"

namespace asc::models {

struct QwenConfig {
  std::string name;
  int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0;
  int64_t vocab = 0;
  bool tied = false;  // lm_head = embed_tokens^T
  double rms_eps = 1e-6;
  double rope_theta = 1e6;
  int64_t max_positions = 0;  // rows of the genai cos/sin caches
};

// "tiny", "0.5b", "1.5b", "7b"; throws std::invalid_argument listing the known names.
QwenConfig qwen_config(const std::string& name);
std::vector<std::string> qwen_config_names();

enum class QwenForm { kOptimum, kGenai };

struct QwenOptions {
  QwenConfig config;
  QwenForm form = QwenForm::kOptimum;
  ElemType dtype = ElemType::kF32;
  int opset = 17;  // 14..17 (ReduceMean's axes is an attribute before 18)
  uint64_t seed = 0;
  enum class External { kAuto, kAlways, kNever } external = External::kAuto;
  bool genai_rotary_in_attention = true;  // GQA do_rotary=1, else separate RotaryEmbedding nodes
  // Weights external with no values (a sparse data file of zeros): the graph and shapes only,
  // for asc-run --timing-only on configs too large to generate (OnnxWriter::Options).
  bool shape_only = false;
};

struct QwenWritten {
  uint64_t weight_bytes = 0;
  bool external = false;
  std::string data_path;  // the external data file, when external
  size_t nodes = 0;
};

// Above this many weight bytes kAuto stores weights externally (protobuf's 2 GiB limit, less a
// margin for the graph).
constexpr uint64_t kQwenInlineLimit = (uint64_t{2} << 30) - (uint64_t{64} << 20);

// Checks the options (std::invalid_argument naming the bad value).
void qwen_validate(const QwenOptions& o);
// Writes the model to `path` (and `path`.data when external). Throws std::invalid_argument for
// bad options, std::runtime_error for I/O failures.
QwenWritten write_qwen(const QwenOptions& o, const std::string& path);

// The graph of each form, written through `w` (internal to the builder; exposed for tests).
void build_qwen_optimum(OnnxWriter& w, const QwenOptions& o);
void build_qwen_genai(OnnxWriter& w, const QwenOptions& o);

// Hugging Face names of the weights of layer `i`.
std::string qwen_layer_prefix(int64_t i);  // "model.layers.i."

}  // namespace asc::models
