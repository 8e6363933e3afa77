#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "models/qwen_builder.h"
#include "models/qwen_internal.h"

namespace asc::models {

namespace {

QwenConfig make(std::string name, int64_t hidden, int64_t layers, int64_t heads, int64_t kv_heads,
                int64_t head_dim, int64_t intermediate, int64_t vocab, bool tied,
                int64_t max_positions) {
  QwenConfig c;
  c.name = std::move(name);
  c.hidden = hidden;
  c.layers = layers;
  c.heads = heads;
  c.kv_heads = kv_heads;
  c.head_dim = head_dim;
  c.intermediate = intermediate;
  c.vocab = vocab;
  c.tied = tied;
  c.max_positions = max_positions;
  return c;
}

}  // namespace

std::vector<std::string> qwen_config_names() {
  return {"tiny", "0.5b", "1.5b", "7b"};
}

QwenConfig qwen_config(const std::string& name) {
  if (name == "tiny") return make("tiny", 64, 2, 4, 2, 16, 128, 256, true, 1024);
  if (name == "0.5b") return make("0.5b", 896, 24, 14, 2, 64, 4864, 151936, true, 32768);
  if (name == "1.5b") return make("1.5b", 1536, 28, 12, 2, 128, 8960, 151936, true, 32768);
  if (name == "7b") return make("7b", 3584, 28, 28, 4, 128, 18944, 152064, false, 32768);
  std::string known;
  for (const auto& n : qwen_config_names()) known += str_cat(known.empty() ? "" : ", ", n);
  throw std::invalid_argument(str_cat("unknown Qwen config '", name, "' (known: ", known, ")"));
}

std::string qwen_layer_prefix(int64_t i) {
  return str_cat("model.layers.", i, ".");
}

void qwen_validate(const QwenOptions& o) {
  const QwenConfig& c = o.config;
  const auto bad = [&](const std::string& what) {
    throw std::invalid_argument(str_cat("Qwen config '", c.name, "': ", what));
  };
  if (o.opset < 14 || o.opset > 17)
    throw std::invalid_argument(str_cat("opset ", o.opset, " is not supported; choose 14..17"));
  if (c.layers < 1) bad(str_cat("layers must be >= 1, got ", c.layers));
  if (c.hidden < 1 || c.heads < 1 || c.kv_heads < 1 || c.head_dim < 2 || c.intermediate < 1 ||
      c.vocab < 1)
    bad("every dim must be positive");
  if (c.head_dim % 2 != 0) bad(str_cat("head_dim ", c.head_dim, " must be even (RoPE)"));
  if (c.heads % c.kv_heads != 0)
    bad(str_cat("heads ", c.heads, " must be a multiple of kv_heads ", c.kv_heads));
  if (o.form == QwenForm::kGenai && c.max_positions < 1) bad("max_positions must be >= 1");
}

QwenWritten write_qwen(const QwenOptions& o, const std::string& path) {
  qwen_validate(o);
  const auto build = [&](OnnxWriter& w) {
    if (o.form == QwenForm::kOptimum)
      build_qwen_optimum(w, o);
    else
      build_qwen_genai(w, o);
  };
  // A dry run counts the weight bytes, which decide between inline and external weights.
  OnnxWriter::Options dry;
  dry.opset = o.opset;
  dry.dry_run = true;
  OnnxWriter counter(dry);
  build(counter);

  QwenWritten out;
  out.weight_bytes = counter.weight_bytes();
  out.external =
      o.shape_only || o.external == QwenOptions::External::kAlways ||
      (o.external == QwenOptions::External::kAuto && out.weight_bytes > kQwenInlineLimit);
  if (o.shape_only && o.external == QwenOptions::External::kNever)
    throw std::invalid_argument("shape-only weights need external data");
  if (o.external == QwenOptions::External::kNever && out.weight_bytes > kQwenInlineLimit)
    throw std::invalid_argument(str_cat("the weights take ", out.weight_bytes,
                                        " bytes, over the 2 GiB an ONNX file can hold inline; "
                                        "allow external data"));

  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  OnnxWriter::Options opt;
  opt.opset = o.opset;
  opt.seed = o.seed;
  if (out.external) {
    out.data_path = path + ".data";
    opt.data_path = out.data_path;
    opt.data_location = p.filename().string() + ".data";
    opt.shape_only = o.shape_only;
  }
  OnnxWriter w(opt);
  build(w);
  out.nodes = static_cast<size_t>(w.graph().node_size());
  w.save(path);
  if (!out.external) std::filesystem::remove(path + ".data");  // a stale file of an earlier run
  return out;
}

namespace qwen {

std::string linear(OnnxWriter& w, const QwenOptions& o, const std::string& name, int64_t in,
                   int64_t out) {
  return w.weight(name, o.dtype, {in, out}, 0.0f, kWeightStd);
}

std::string bias(OnnxWriter& w, const QwenOptions& o, const std::string& name, int64_t n) {
  return w.weight(name, o.dtype, {n}, 0.0f, kWeightStd);
}

std::string norm_weight(OnnxWriter& w, const QwenOptions& o, const std::string& name) {
  return w.weight(name, o.dtype, {o.config.hidden}, 1.0f, kNormStd);
}

std::string embedding(OnnxWriter& w, const QwenOptions& o) {
  return w.weight("model.embed_tokens.weight", o.dtype, {o.config.vocab, o.config.hidden}, 0.0f,
                  kWeightStd);
}

std::string lm_head(OnnxWriter& w, const QwenOptions& o) {
  if (o.config.tied)
    return w.weight_transposed("lm_head.weight", "model.embed_tokens.weight", o.dtype,
                               o.config.vocab, o.config.hidden, 0.0f, kWeightStd);
  return w.weight("lm_head.weight", o.dtype, {o.config.hidden, o.config.vocab}, 0.0f, kWeightStd);
}

std::vector<float> inv_freq(const QwenConfig& c) {
  std::vector<float> f(static_cast<size_t>(c.head_dim / 2));
  for (size_t j = 0; j < f.size(); ++j)
    f[j] = static_cast<float>(1.0 / std::pow(c.rope_theta, 2.0 * static_cast<double>(j) /
                                                               static_cast<double>(c.head_dim)));
  return f;
}

void add_io(OnnxWriter& w, const QwenOptions& o, bool position_ids) {
  const QwenConfig& c = o.config;
  const int32_t i64 = onnx::TensorProto::INT64, t = elem_onnx(o.dtype);
  w.input("input_ids", i64, {kBatch, kSeq});
  w.input("attention_mask", i64, {kBatch, kTotal});
  if (position_ids) w.input("position_ids", i64, {kBatch, kSeq});
  for (int64_t i = 0; i < c.layers; ++i) {
    w.input(str_cat("past_key_values.", i, ".key"), t, {kBatch, c.kv_heads, kPast, c.head_dim});
    w.input(str_cat("past_key_values.", i, ".value"), t, {kBatch, c.kv_heads, kPast, c.head_dim});
  }
  w.output("logits", t, {kBatch, kSeq, c.vocab});
  for (int64_t i = 0; i < c.layers; ++i) {
    w.output(str_cat("present.", i, ".key"), t, {kBatch, c.kv_heads, kTotal, c.head_dim});
    w.output(str_cat("present.", i, ".value"), t, {kBatch, c.kv_heads, kTotal, c.head_dim});
  }
}

}  // namespace qwen
}  // namespace asc::models
