// asc-make-qwen OUT.onnx [--config tiny|0.5b|1.5b|7b] [--dtype fp32|fp16|bf16] [--form
// optimum|genai]
//   [--layers N] [--opset 14..17] [--seed S] [--external-data] [--max-positions N]
//   [--genai-rotary attention|separate] [--shape-only]
// Writes a Qwen2.5-architecture decoder with past and seeded random weights (docs/MODELS.md).
// Exit codes: 0 written, 1 a write or option error, 2 bad command line.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include "models/qwen_builder.h"

int main(int argc, char** argv) {
  using asc::models::ElemType;
  using asc::models::QwenForm;
  using asc::models::QwenOptions;

  CLI::App app{"Writes a Qwen2/Qwen2.5 decoder with past as ONNX, with seeded random weights"};
  std::string out, config = "tiny", dtype = "fp32", form = "optimum", rotary = "attention";
  int64_t layers = 0, max_positions = 0;
  int opset = 17;
  uint64_t seed = 0;
  bool external = false, inline_only = false, shape_only = false;
  app.add_option("output", out, "the .onnx file to write (weights over 2 GB go to OUTPUT.data)")
      ->required();
  app.add_option("--config", config, "tiny | 0.5b | 1.5b | 7b")->capture_default_str();
  app.add_option("--dtype", dtype, "fp32 | fp16 | bf16 (weights and activations)")
      ->capture_default_str();
  app.add_option("--form", form, "optimum (standard ONNX ops) | genai (com.microsoft contrib ops)")
      ->capture_default_str();
  app.add_option("--layers", layers, "override the number of decoder layers");
  app.add_option("--opset", opset, "ai.onnx opset, 14..17")->capture_default_str();
  app.add_option("--seed", seed, "weight seed")->capture_default_str();
  app.add_option("--max-positions", max_positions, "rows of the genai cos/sin caches");
  app.add_option("--genai-rotary", rotary,
                 "attention (GroupQueryAttention do_rotary=1, no position_ids input) | separate "
                 "(RotaryEmbedding nodes, position_ids input)")
      ->capture_default_str();
  app.add_flag("--external-data", external, "weights in OUTPUT.data even when under 2 GB");
  app.add_flag("--no-external-data", inline_only, "refuse to write external data");
  app.add_flag("--shape-only", shape_only,
               "weights external with no values (a sparse file of zeros): for asc-run "
               "--timing-only on configs too large to generate");
  CLI11_PARSE(app, argc, argv);

  const std::map<std::string, ElemType> dtypes = {
      {"fp32", ElemType::kF32}, {"fp16", ElemType::kF16}, {"bf16", ElemType::kBF16}};
  const auto usage = [](const std::string& msg) {
    std::fprintf(stderr, "asc-make-qwen: %s\n", msg.c_str());
    return 2;
  };
  if (!dtypes.count(dtype))
    return usage(asc::models::str_cat("--dtype '", dtype, "': choose fp32, fp16 or bf16"));
  if (form != "optimum" && form != "genai")
    return usage(asc::models::str_cat("--form '", form, "': choose optimum or genai"));
  if (rotary != "attention" && rotary != "separate")
    return usage(
        asc::models::str_cat("--genai-rotary '", rotary, "': choose attention or separate"));
  if (external && inline_only) return usage("--external-data and --no-external-data conflict");
  if (shape_only && inline_only) return usage("--shape-only needs external data");

  try {
    QwenOptions o;
    o.config = asc::models::qwen_config(config);
    if (layers != 0) o.config.layers = layers;
    if (max_positions != 0) o.config.max_positions = max_positions;
    o.form = form == "genai" ? QwenForm::kGenai : QwenForm::kOptimum;
    o.dtype = dtypes.at(dtype);
    o.opset = opset;
    o.seed = seed;
    o.genai_rotary_in_attention = rotary == "attention";
    o.shape_only = shape_only;
    o.external = external      ? QwenOptions::External::kAlways
                 : inline_only ? QwenOptions::External::kNever
                               : QwenOptions::External::kAuto;
    const auto t0 = std::chrono::steady_clock::now();
    const asc::models::QwenWritten w = asc::models::write_qwen(o, out);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "wrote %s: qwen %s %s %s, %lld layers, %zu nodes, %.1f MB of weights%s%s%s in %.2f s\n",
        out.c_str(), o.config.name.c_str(), form.c_str(), dtype.c_str(),
        static_cast<long long>(o.config.layers), w.nodes, static_cast<double>(w.weight_bytes) / 1e6,
        o.shape_only ? " (shape only: zeros)" : "", w.external ? " in " : " inline",
        w.external ? w.data_path.c_str() : "", s);
    return 0;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "asc-make-qwen: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asc-make-qwen: %s\n", e.what());
    return 1;
  }
}
