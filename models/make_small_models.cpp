// asc-make-small-models DIR [--seed S] [--chain-blocks N]
// Writes DIR/small_vad.onnx, DIR/small_loop.onnx and DIR/small_chain.onnx (models/small_models.h),
// the models of bench/small_models_vs_ort.mjs. Exit codes: 0 written, 1 a write error, 2 bad
// command line.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "models/onnx_writer.h"
#include "models/small_models.h"

int main(int argc, char** argv) {
  CLI::App app{"Writes the small models of bench/small_models_vs_ort.mjs (seeded weights)"};
  std::string dir;
  asc::models::SmallModelOptions o;
  app.add_option("dir", dir, "the folder to write small_<name>.onnx into (created)")->required();
  app.add_option("--seed", o.seed, "weight seed")->capture_default_str();
  app.add_option("--chain-blocks", o.chain_blocks, "blocks of 5 nodes in small_chain.onnx")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    std::filesystem::create_directories(dir);
    for (const std::string& name : asc::models::small_model_names()) {
      const std::string path =
          (std::filesystem::path(dir) / asc::models::str_cat("small_", name, ".onnx")).string();
      asc::models::write_small_model(name, path, o);
      std::printf("wrote %s\n", path.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asc-make-small-models: %s\n", e.what());
    return 1;
  }
  return 0;
}
