// asc-check MODEL: per-node accuracy of asc against ONNX Runtime 1.30 (tools/ort/bridge.mjs):
// every node output of the model is compared in topological order and the first one out of
// tolerance is marked (docs/CHECK.md).
//
// Exit codes: 0 every node passes; 1 a node fails, or an error in the model, the inputs or either
// run; 2 a usage error.
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "tools/check_run.h"
#include "tools/run_inputs.h"

int main(int argc, char** argv) {
  CLI::App app{"asc-check: compares every node output of an ONNX model in asc with ONNX Runtime"};
  asc::check::CheckOptions o;
  bool json = false;
  app.add_option("MODEL", o.model, "the .onnx file")->required();
  app.add_option("--input", o.inputs, "NAME=FILE.pb: a TensorProto for an input (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--dim", o.dims, "NAME=VALUE: a symbolic dim for random inputs (default 1)")
      ->allow_extra_args(false);
  app.add_option("--seed", o.seed, "seed of the random inputs (default 0)");
  app.add_option("--threads", o.threads, "asc workers and ORT intra-op threads (default 0: all)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--precision", o.precision,
                 "fp32 | fp16 | bf16: asc stores f32 weights and activations in that dtype "
                 "(default fp32); ONNX Runtime runs the model as it is")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  app.add_flag("--fused", o.fused,
               "run asc with optimisation (fusion) on; compare the tensors that survive");
  app.add_option("--atol", o.tol.atol,
                 "absolute tolerance (default 1e-4); given, it applies under every precision")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--rtol", o.tol.rtol,
                 "relative tolerance (default 1e-3); given, it applies under every precision")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--min-cosine", o.tol.min_cosine,
                 "f16/bf16 values and --precision fp16/bf16 pass at this cosine (default 0.99); "
                 "given, it applies under every precision")
      ->check(CLI::Range(-1.0, 1.0));
  app.add_flag("--json", json, "print one JSON object on stdout instead of the table");
  app.add_option("--node", o.ort.node, "the Node.js executable (default: node on PATH)");
  app.add_option("--bridge", o.ort.bridge,
                 "tools/ort/bridge.mjs (default: $ASC_ORT_BRIDGE, else the source tree's)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::cerr << "asc-check: " << e.what() << "\nRun with --help for more information.\n";
    return 2;
  }
  o.ort.threads = o.threads;
  o.tol.explicit_tolerance = app.count("--atol") + app.count("--rtol") > 0;
  o.tol.explicit_cosine = app.count("--min-cosine") > 0;
  spdlog::set_default_logger(spdlog::stderr_color_mt("asc"));  // stdout is the report (--json)
  spdlog::cfg::load_env_levels();
  try {
    const asc::check::Report r = asc::check::run_check(o);
    if (json)
      std::cout << asc::check::report_json(r, o).dump(2) << "\n";
    else
      asc::check::print_report(r, o, stdout);
    return r.passed() ? 0 : 1;
  } catch (const asc::cli::UsageError& e) {
    std::cerr << "asc-check: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {  // asc::Error and children, std::bad_alloc, ...
    std::cerr << "asc-check: " << e.what() << "\n";
    return 1;
  }
}
