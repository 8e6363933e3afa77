// asc-run MODEL: loads an ONNX model, runs it on seeded random inputs (or TensorProto files),
// prints the outputs and timings; optionally a per-op profile, a Chrome trace, the outputs as
// TensorProto files, or everything as one JSON object.
//
// Exit codes: 0 success; 1 an error in the model, the inputs or the run; 2 a usage error.
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "importers/onnx/onnx_importer.h"
#include "importers/onnx/tensor_proto.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "registry/tile_ops.h"
#include "runtime/model.h"
#include "runtime/precision.h"
#include "runtime/weight_pack.h"
#include "tools/run_emit.h"
#include "tools/run_generate.h"
#include "tools/run_inputs.h"
#include "tools/run_profile.h"
#include "tools/run_sim.h"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

using asc::cli::UsageError;

struct Options {
  std::string model;
  std::vector<std::string> inputs;  // NAME=FILE.pb
  std::vector<std::string> dims;    // NAME=VALUE
  uint64_t seed = 0;
  std::string output_dir;
  int iterations = 10;
  int warmup = 2;
  int threads = 0;
  std::string device = "cpu";
  std::string predict;
  std::string precision = "fp32";
  std::string weight_cache;
  int optimize = 1;
  int pack_weights = 1;
  std::string conv_layout = "5hd";
  bool no_fusion = false;
  bool timing_only = false;
  bool profile = false;
  std::string trace;
  bool json = false;
  int values = 6;  // first values printed per output
  // --generate N (decoder-with-past models)
  asc::GenerateArgs gen;
  std::string prompt_ids;
  bool all_logits = false;
  bool warmup_given = false;
  std::string emit_ascendc;  // --emit-ascendc DIR
};

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// While alive, shows "loading MODEL (N MiB)  3.2 s" on stderr (a TTY) once the load takes over a
// second; the line is erased when done.
class LoadProgress {
 public:
  explicit LoadProgress(const std::string& what) {
    if (!isatty(STDERR_FILENO)) return;
    thread_ = std::thread([this, what] {
      const auto t0 = Clock::now();
      static const char kSpin[] = "|/-\\";
      std::unique_lock<std::mutex> lock(mutex_);
      if (cv_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) return;
      for (int i = 0; !done_; ++i) {
        std::fprintf(stderr, "\r%c loading %s  %.1f s", kSpin[i % 4], what.c_str(),
                     ms_between(t0, Clock::now()) / 1000.0);
        std::fflush(stderr);
        cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_; });
      }
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
    });
  }
  ~LoadProgress() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  LoadProgress(const LoadProgress&) = delete;
  LoadProgress& operator=(const LoadProgress&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

struct Summary {
  double min = 0, max = 0, mean = 0;
  std::vector<double> first;
};

Summary summarize(const asc::Tensor& t, int first) {
  Summary s;
  if (asc::dtype_size(t.dtype()) == 0 || t.numel() == 0) return s;
  s.min = s.max = t.at(0);
  double sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double x = t.at(i);
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
    sum += x;
    if (i < first) s.first.push_back(x);
  }
  s.mean = sum / static_cast<double>(t.numel());
  return s;
}

// Sequences and optionals: their elements' types ("2 elements: f32[3], f32[2]"); strings: the
// first few values. These have no min, max or mean.
std::string describe_object(const asc::Tensor& t, int first) {
  std::string s;
  if (const asc::TensorList* l = t.list()) {
    s = asc::cat(l->items.size(), l->items.size() == 1 ? " element" : " elements");
    for (size_t k = 0; k < l->items.size() && k < static_cast<size_t>(first); ++k)
      s += asc::cat(k ? ", " : ": ", l->items[k].desc().str());
    if (l->items.size() > static_cast<size_t>(first)) s += ", ...";
    return s;
  }
  for (int64_t i = 0; i < t.numel() && i < first; ++i)
    s += asc::cat(i ? ", " : "[", "'", t.strings()[i], "'");
  return s.empty() ? "[]" : s + (t.numel() > first ? ", ...]" : "]");
}

std::string fmt_values(const std::vector<double>& v, int64_t numel) {
  std::string s = "[";
  char buf[32];
  for (size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.6g", i ? ", " : "", v[i]);
    s += buf;
  }
  if (numel > static_cast<int64_t>(v.size())) s += ", ...";
  return s + "]";
}

// What a node's first launch ran: "grid [..] on N cores; UB x f32[..]; L1 ..", the tiling
// auto_tiling chose and the local buffers it placed. Nothing for a host kernel.
std::string kernel_summary(const asc::TileProgram& p) {
  std::string s = asc::cat("grid ", asc::to_string(p.grid), " on ", p.block_dim, " core",
                           p.block_dim == 1 ? "" : "s");
  for (const asc::BufferDecl& b : p.buffers)
    s += asc::cat("; ", asc::pos_name(b.pos), " ", b.name, " ", asc::dtype_name(b.dtype),
                  asc::to_string(b.dims), b.slots > 1 ? asc::cat(" x", b.slots) : "");
  return s;
}

// Chrome trace event format: one "X" slice per kernel launch (cat "op") on the thread that
// launched it, with the node's label and its kernel's tiling (kernel_summary) as args; one per
// run (cat "run") on the main thread; times in microseconds from `t0`. On a simulated device,
// process 2 holds the predicted timeline: one track per pipe.
void write_trace(const std::string& path, const asc::Graph& g, const asc::RunStats& stats,
                 const std::vector<std::pair<Clock::time_point, Clock::time_point>>& runs,
                 Clock::time_point t0, const asc::Predictor* sim,
                 const std::map<std::string, std::string>& kernels) {
  auto us = [&](Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(t - t0).count();
  };
  std::map<std::thread::id, int> tids;
  tids[std::this_thread::get_id()] = 1;
  json events = json::array();
  for (size_t r = 0; r < runs.size(); ++r)
    events.push_back({{"name", asc::cat("run ", r)},
                      {"cat", "run"},
                      {"ph", "X"},
                      {"ts", us(runs[r].first)},
                      {"dur", us(runs[r].second) - us(runs[r].first)},
                      {"pid", 1},
                      {"tid", 1}});
  for (const auto& s : stats.steps) {
    const int tid = tids.emplace(s.thread, static_cast<int>(tids.size()) + 1).first->second;
    const asc::Node& n = g.nodes[s.node];
    json args = {{"node", n.label()}};
    if (auto k = kernels.find(n.label()); k != kernels.end()) args["kernel"] = k->second;
    events.push_back({{"name", n.op_type},
                      {"cat", "op"},
                      {"ph", "X"},
                      {"ts", us(s.start)},
                      {"dur", us(s.end) - us(s.start)},
                      {"pid", 1},
                      {"tid", tid},
                      {"args", args}});
  }
  for (const auto& [id, tid] : tids)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", tid},
                      {"args", {{"name", tid == 1 ? "main" : asc::cat("worker ", tid - 1)}}}});
  if (sim) asc::sim_trace_events(events, g, stats, *sim);
  std::ofstream f(path, std::ios::trunc);
  f << json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() << "\n";
  if (!f.flush()) throw asc::Error(asc::cat("cannot write the trace '", path, "'"));
}

json shape_json(const asc::Shape& s) {
  return json(std::vector<int64_t>(s.begin(), s.end()));
}

int run(const Options& o) {
  if (o.timing_only && !asc::is_predictor(o.device) && o.predict.empty())
    throw UsageError(
        asc::cat("--timing-only needs a predictor (--device sim:910b or --predict "
                 "sim:910b), not device '",
                 o.device, "' alone"));
  const auto files = asc::cli::parse_inputs(o.inputs);
  const auto dims = asc::cli::parse_dims(o.dims);
  const auto t0 = Clock::now();

  // Load: import, then the Model (passes and the device).
  std::unique_ptr<asc::Model> model;
  {
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(o.model, ec);
    LoadProgress progress(asc::cat(std::filesystem::path(o.model).filename().string(),
                                   ec ? std::string() : asc::cat(" (", bytes >> 20, " MiB)")));
    asc::ModelOptions mo;
    mo.threads = o.threads;
    mo.device = o.device;
    mo.predict = o.predict;
    // Emission plans for the 910B: the cpu device's run becomes sim:910b's (the same values).
    if (!o.emit_ascendc.empty() && o.device == "cpu") mo.device = "sim:910b";
    mo.precision = asc::parse_precision(o.precision);
    mo.optimize = o.optimize != 0;
    mo.fusion = !o.no_fusion;
    mo.pack_weights = o.pack_weights != 0;
    mo.conv_layout = o.conv_layout;
    mo.timing_only = o.timing_only;
    mo.last_logits_only = o.gen.new_tokens > 0 && !o.all_logits;
    mo.kv_cache_precision = o.gen.new_tokens > 0;
    if (!o.weight_cache.empty() && (mo.precision != asc::DType::kF32 || mo.pack_weights))
      mo.weight_cache = asc::weight_cache_for(o.weight_cache, o.model, mo.precision);
    asc::ImportOptions io;
    io.shape_only_weights = o.timing_only;  // no weight is read: its pages are never touched
    model = std::make_unique<asc::Model>(asc::import_onnx_file(o.model, io), mo);
  }
  const double load_ms = ms_between(t0, Clock::now());
  // Generating from row-major weights that a weight cache would hold packed: say so.
  if (o.gen.new_tokens > 0 && o.weight_cache.empty() && o.pack_weights && o.device == "cpu" &&
      !asc::plan_weight_packing(model->graph(), asc::parse_precision(o.precision), true).empty())
    spdlog::info(
        "the MatMul weights stay row-major, mapped from the model file; with --weight-cache DIR "
        "they are packed for the cpu kernels once (written to DIR) and decode faster");
  if (o.gen.new_tokens > 0) {
    asc::GenerateArgs a = o.gen;
    try {
      if (!o.prompt_ids.empty()) a.prompt_ids = asc::parse_ids(o.prompt_ids);
    } catch (const std::invalid_argument& e) {
      throw UsageError(asc::cat("--prompt-ids: ", e.what()));
    }
    a.seed = o.seed;
    a.warmup = o.warmup_given ? o.warmup : o.timing_only ? 0 : 1;  // nothing to warm up
    a.profile = o.profile;
    const asc::GenerateReport r = asc::run_generation(*model, a);
    const int threads = model->device().threads();
    // --precision fp32 keeps the model's own dtypes: report those (a bf16 model runs in bf16).
    std::string precision = o.precision;
    const asc::Graph& g = model->graph();
    for (int v : g.outputs)
      if (precision == "fp32" && g.values[v].name == "logits") {
        const asc::DType dt = g.values[v].type.dtype;
        precision = dt == asc::DType::kBF16 ? "bf16" : dt == asc::DType::kF16 ? "fp16" : precision;
      }
    const asc::Predictor* sim = model->predictor();
    std::cout << (o.json
                      ? asc::generation_json(r, o.model, load_ms, precision, threads,
                                             o.profile ? &g : nullptr, sim)
                      : asc::generation_table(r, std::filesystem::path(o.model).filename().string(),
                                              precision, threads, sim));
    if (!o.json) {
      std::printf("load %.2f ms, peak RSS %.0f MiB\n", load_ms, asc::peak_rss_mb());
      if (o.profile) std::cout << asc::generation_profile(r, g, sim);
    }
    return 0;
  }
  const asc::Graph& g = model->graph();
  const std::vector<asc::NamedTensor> inputs = asc::cli::make_inputs(g, files, dims, o.seed);
  if (!o.emit_ascendc.empty()) {  // Ascend C source of every kernel instead of a run
    std::cout << asc::emit_ascendc_dir(*model, inputs, o.emit_ascendc);
    std::printf("wrote Ascend C kernels to %s\n", o.emit_ascendc.c_str());
    return 0;
  }

  // Runs: the first (plans), warm-ups, then the timed iterations.
  const asc::Predictor* sim = model->predictor();
  const bool want_stats = o.profile || !o.trace.empty() || sim;
  asc::RunStats all_stats, timed_stats;
  std::vector<std::pair<Clock::time_point, Clock::time_point>> runs;
  std::vector<double> times;
  std::vector<asc::NamedTensor> outputs;
  std::mutex kernels_mu;
  std::map<std::string, std::string> kernels;  // node label -> kernel_summary, for --trace
  for (int r = 0; r < 1 + o.warmup + o.iterations; ++r) {
    const bool timed = r > o.warmup;
    asc::RunStats stats;
    if (!o.trace.empty() && r == 0)
      stats.on_step = [&](const asc::Node& n, const asc::TileProgram* p) {
        if (!p) return;
        const std::lock_guard<std::mutex> lock(kernels_mu);
        kernels.try_emplace(n.label(), kernel_summary(*p));
      };
    const auto a = Clock::now();
    outputs = model->run(inputs, {}, want_stats ? &stats : nullptr);
    const auto b = Clock::now();
    runs.emplace_back(a, b);
    times.push_back(ms_between(a, b));
    for (const auto& s : stats.steps) {
      all_stats.steps.push_back(s);
      if (timed) timed_stats.steps.push_back(s);
    }
  }
  const double first_ms = times.front();
  std::vector<double> timed_ms(times.begin() + 1 + o.warmup, times.end());
  std::sort(timed_ms.begin(), timed_ms.end());
  const size_t n = timed_ms.size();
  const double median_ms = n % 2 ? timed_ms[n / 2] : (timed_ms[n / 2 - 1] + timed_ms[n / 2]) / 2;

  if (!o.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.output_dir, ec);
    if (ec) throw asc::Error(asc::cat("cannot create '", o.output_dir, "': ", ec.message()));
    for (size_t k = 0; k < outputs.size(); ++k)
      asc::write_value_proto_file(
          (std::filesystem::path(o.output_dir) / asc::cat("output_", k, ".pb")).string(),
          outputs[k].name, outputs[k].tensor);
  }
  if (!o.trace.empty()) write_trace(o.trace, g, all_stats, runs, t0, sim, kernels);
  // Predicted figures per run (every run of one signature predicts the same).
  const asc::CostTotals predicted = asc::sim_totals(timed_stats);
  const double predicted_ms = sim ? 1e3 * predicted.seconds(sim->clock_hz()) / o.iterations : 0.0;
  const auto sim_rows = sim && o.profile ? asc::sim_profile_ops(g, timed_stats)
                                         : std::vector<std::pair<std::string, asc::SimOpTotal>>{};
  const auto profile = o.profile ? asc::profile_ops(g, timed_stats)
                                 : std::vector<std::pair<std::string, asc::OpTotal>>{};
  double profile_total = 0;
  for (const auto& [op, t] : profile) profile_total += t.ms;

  if (o.json) {
    json j;
    j["model"] = o.model;
    j["device"] = o.device;
    j["precision"] = o.precision;
    j["threads"] = model->device().threads();
    j["nodes"] = g.nodes.size();
    if (o.optimize != 0 && !o.no_fusion) {
      j["fusion"] = {{"nodes_before", model->fusion().nodes_before},
                     {"nodes_after", model->fusion().nodes_after}};
      for (const auto& [op, count] : model->fusion().counts) j["fusion"][op] = count;
    }
    j["load_ms"] = load_ms;
    if (sim) {
      j["timing_only"] = o.timing_only;
      j["predicted_latency_ms"] = predicted_ms;
      j["predicted_kernels"] = predicted.kernels / o.iterations;
      j["cube_utilization"] = predicted.cube_utilization(sim->spec());
    }
    j["first_run_ms"] = first_ms;
    j["median_ms"] = median_ms;
    j["warmup"] = o.warmup;
    j["iterations"] = o.iterations;
    j["inputs"] = json::array();
    for (const auto& in : inputs)
      j["inputs"].push_back({{"name", in.name},
                             {"shape", shape_json(in.tensor.shape())},
                             {"dtype", std::string(asc::dtype_name(in.tensor.dtype()))}});
    j["outputs"] = json::array();
    for (const auto& out : outputs) {
      if (asc::dtype_is_host_object(out.tensor.dtype())) {
        j["outputs"].push_back({{"name", out.name},
                                {"dtype", std::string(asc::dtype_name(out.tensor.dtype()))},
                                {"value", describe_object(out.tensor, o.values)}});
        continue;
      }
      const Summary s = summarize(out.tensor, o.values);
      j["outputs"].push_back({{"name", out.name},
                              {"shape", shape_json(out.tensor.shape())},
                              {"dtype", std::string(asc::dtype_name(out.tensor.dtype()))},
                              {"min", s.min},
                              {"max", s.max},
                              {"mean", s.mean},
                              {"first", s.first}});
    }
    if (o.profile) {
      j["profile"] = json::array();
      for (const auto& [op, t] : profile)
        j["profile"].push_back({{"op", op},
                                {"calls", t.calls},
                                {"total_ms", t.ms},
                                {"share", profile_total > 0 ? t.ms / profile_total : 0}});
      if (sim) j["predicted_profile"] = asc::sim_profile_json(sim_rows, *sim, o.iterations);
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }

  std::printf("model   %s (%zu nodes), device %s, precision %s, %d threads\n", o.model.c_str(),
              g.nodes.size(), o.device.c_str(), o.precision.c_str(), model->device().threads());
  if (o.optimize != 0 && !o.no_fusion) std::printf("fusion  %s\n", model->fusion().str().c_str());
  for (const auto& in : inputs)
    std::printf("input   %-20s %s%s\n", in.name.c_str(), in.tensor.desc().str().c_str(),
                files.count(in.name) ? asc::cat("  from ", files.at(in.name)).c_str()
                                     : asc::cat("  random, seed ", o.seed).c_str());
  for (const auto& out : outputs) {
    if (asc::dtype_is_host_object(out.tensor.dtype())) {
      std::printf("output  %-20s %-16s %s\n", out.name.c_str(), out.tensor.desc().str().c_str(),
                  describe_object(out.tensor, o.values).c_str());
      continue;
    }
    const Summary s = summarize(out.tensor, o.values);
    std::printf("output  %-20s %-16s min %-11.5g max %-11.5g mean %-11.5g %s\n", out.name.c_str(),
                out.tensor.desc().str().c_str(), s.min, s.max, s.mean,
                fmt_values(s.first, out.tensor.numel()).c_str());
  }
  std::printf("load %.2f ms, first run %.3f ms, median %.3f ms of %d runs (after %d warm-up)%s\n",
              load_ms, first_ms, median_ms, o.iterations, o.warmup,
              o.timing_only ? " (timing only: nothing executed)" : "");
  if (sim)
    std::printf("predicted on %s: %.3f ms per run, %lld kernels, cube utilisation %.1f %%\n",
                sim->name().c_str(), predicted_ms,
                static_cast<long long>(predicted.kernels / o.iterations),
                100 * predicted.cube_utilization(sim->spec()));
  if (o.profile)
    std::cout << asc::profile_table(
        profile, asc::cat("ms per run over ", o.iterations, " timed runs"), o.iterations);
  if (o.profile && sim)
    std::cout << asc::sim_profile_table(
        sim_rows, *sim, asc::cat("per run over ", o.iterations, " runs"), o.iterations);
  if (!o.output_dir.empty())
    std::printf("wrote %zu outputs to %s\n", outputs.size(), o.output_dir.c_str());
  if (!o.trace.empty()) std::printf("wrote trace %s\n", o.trace.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"asc-run: runs an ONNX model on asc with seeded random inputs or TensorProto files"};
  Options o;
  app.add_option("MODEL", o.model, "the .onnx file")->required();
  app.add_option("--input", o.inputs, "NAME=FILE.pb: a TensorProto for an input (repeatable)")
      ->allow_extra_args(false);  // one value per flag: `--input a=x.pb MODEL` keeps MODEL
  app.add_option("--dim", o.dims, "NAME=VALUE: a symbolic dim for random inputs (default 1)")
      ->allow_extra_args(false);
  app.add_option("--seed", o.seed, "seed of the random inputs (default 0)");
  app.add_option(
      "--output-dir", o.output_dir,
      "write the outputs as DIR/output_K.pb (TensorProto, SequenceProto, OptionalProto)");
  app.add_option("--iterations", o.iterations, "timed runs (default 10)")
      ->check(CLI::Range(1, 1 << 30));
  app.add_option("--warmup", o.warmup,
                 "untimed runs after the first (default 2; with --generate: untimed generations, "
                 "default 1)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--threads", o.threads, "worker threads (default 0: all)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--device", o.device,
                 "cpu (default) | sim:910b: run on the cpu with the 910B's tilings and predict "
                 "every kernel's cycles per pipe (docs/SIM.md) | ascend-emu: the emitted Ascend "
                 "C kernels on the emulator, race-checked | ascend: the kernels on the NPU "
                 "through ACL (builds with -DASC_WITH_CANN=ON; docs/ASCENDC.md)");
  app.add_option("--predict", o.predict,
                 "sim:910b: predict every kernel's cycles per pipe of the device the run is on "
                 "(--device ascend-emu; --device sim:910b is the cpu with it)");
  app.add_flag("--timing-only", o.timing_only,
               "with a predictor: plan and predict without executing (no weight is read; "
               "outputs are zeros)");
  app.add_option("--precision", o.precision,
                 "fp32 | fp16 | bf16: store f32 weights and activations in that dtype, computing "
                 "in f32 (default fp32)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  app.add_option("--weight-cache", o.weight_cache,
                 "directory for the weights --precision converts and packs (weights that need "
                 "no conversion: packs): the first load writes them there, later loads of the "
                 "same model file map them");
  app.add_option("--pack-weights", o.pack_weights,
                 "1: store MatMul weights in the cpu kernels' packed layout as --precision bf16 "
                 "converts them, or, needing no conversion (an fp32 or a bf16 model's), into "
                 "--weight-cache (default); 0: row-major")
      ->check(CLI::Range(0, 1));
  app.add_option("--conv-layout", o.conv_layout,
                 "5hd: feature maps between convolutions as NC1HWC0, 16 channels per position "
                 "innermost (Ascend's conv layout), where enough convolutions feed one another "
                 "(default); nchw: as the model has them")
      ->check(CLI::IsMember({"nchw", "5hd"}));
  app.add_option("--optimize", o.optimize, "1: double buffering and fusion (default); 0: off")
      ->check(CLI::Range(0, 1));
  app.add_flag("--no-fusion", o.no_fusion, "no graph fusion (double buffering stays)");
  app.add_flag("--profile", o.profile, "print a per-op table over the timed runs");
  app.add_option("--trace", o.trace, "write a Chrome trace (Perfetto) of every run to FILE.json");
  app.add_flag("--json", o.json, "print one JSON object on stdout instead of the text report");
  app.add_option("--generate", o.gen.new_tokens,
                 "N: generate N new tokens on a decoder-with-past model (prefill, then greedy "
                 "decoding) and report pp/tg tokens/s")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--prompt-ids", o.prompt_ids, "the prompt for --generate: ids 1,2,3");
  app.add_option("--prompt-len", o.gen.prompt_len,
                 "a seeded random prompt of P tokens for --generate (default 16)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app.add_option("--max-len", o.gen.max_len, "KV cache length (default: prompt + N)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 30));
  app.add_flag("--all-logits", o.all_logits,
               "with --generate: compute the logits of every prompt position, as the model "
               "says (default: only the last position's, which is all generation reads)");
  app.add_option("--repetitions", o.gen.repetitions, "generation runs to average (default 1)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--temperature", o.gen.sampling.temperature,
                 "sampling temperature (default 0: greedy)")
      ->check(CLI::Range(0.0f, 100.0f));
  app.add_option("--top-k", o.gen.sampling.top_k, "sample from the k most likely tokens")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--top-p", o.gen.sampling.top_p, "nucleus sampling threshold (default 1)")
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--sample-seed", o.gen.sampling.seed, "seed of the sampler (default 0)");
  app.add_option("--values", o.values, "first values shown per output (default 6)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--emit-ascendc", o.emit_ascendc,
                 "run once on sim:910b and write the Ascend C source of every kernel launched "
                 "(control-flow bodies included), host stubs and a CANN CMake project to DIR");
  try {
    app.parse(argc, argv);
    o.warmup_given = app.count("--warmup") > 0;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::cerr << "asc-run: " << e.what() << "\nRun with --help for more information.\n";
    return 2;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("asc"));  // stdout is the report (--json)
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug shows every plan
  try {
    return run(o);
  } catch (const UsageError& e) {
    std::cerr << "asc-run: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {  // asc::Error and children, std::bad_alloc, ...
    std::cerr << "asc-run: " << e.what() << "\n";
    return 1;
  }
}
