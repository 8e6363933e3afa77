// asc-demo: plans and runs a few registered ops on the cpu device with seeded inputs, times
// warm launches (median of 10) and checks each result against the op's double reference.
#include <spdlog/cfg/env.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace {

asc::Tensor random_tensor(asc::DType dt, asc::Shape shape, std::mt19937& rng) {
  asc::Tensor t(dt, std::move(shape));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, u(rng));
  return t;
}

double max_abs_diff(const asc::Tensor& a, const asc::Tensor& b) {
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) m = std::max(m, std::fabs(a.at(i) - b.at(i)));
  return m;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Step {
  const char* op;
  std::vector<asc::Shape> shapes;
  asc::Attrs attrs;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"asc-demo: registered ops on the cpu device vs their references"};
  int threads = 0;
  app.add_option("--threads", threads, "worker threads (default: all)");
  CLI11_PARSE(app, argc, argv);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug shows every plan
  try {
    const asc::Registry& reg = asc::global_registry();
    asc::cpu::CpuDevice dev(threads);
    std::mt19937 rng(42);
    const std::vector<Step> steps = {
        {"MatMul", {{64, 896}, {896, 4864}}, {}},
        {"Add", {{64, 4864}, {4864}}, {}},
        {"Sigmoid", {{64, 4864}}, {}},
        {"Softmax", {{64, 4864}}, {{"axis", int64_t{-1}}}},
        {"ReduceMean", {{64, 4864}}, {{"axes", std::vector<int64_t>{1}}}},
        {"Transpose", {{64, 4864}}, {}},
    };
    std::printf("device %s, %d threads\n", dev.spec().str().c_str(), dev.threads());
    std::printf("%-12s %-24s %-12s %9s %9s %10s\n", "op", "inputs", "output", "plan ms", "run ms",
                "max |err|");
    int failures = 0;
    for (const Step& s : steps) {
      const asc::OpDef* op = reg.find("", s.op, 17);
      if (!op) continue;
      std::vector<asc::Tensor> in;
      std::string desc;
      for (const auto& sh : s.shapes) {
        in.push_back(random_tensor(asc::DType::kF32, sh, rng));
        desc += (desc.empty() ? "" : " ") + asc::to_string(sh);
      }
      // Plan once (tiling, trace, placement), as the runtime does per shape signature, then
      // time warm launches.
      const asc::Attrs attrs = op->resolve(s.attrs);
      const auto out_desc = asc::infer_outputs(*op, attrs, in);
      std::vector<asc::TensorDesc> in_desc;
      for (const auto& t : in) in_desc.push_back(t.desc());
      const auto t0 = std::chrono::steady_clock::now();
      const asc::TileProgram prog =
          asc::plan_tile_program(*op, attrs, in_desc, out_desc, dev.spec());
      const double plan_ms = ms_since(t0);
      std::vector<asc::Tensor> out;
      std::vector<void*> args;
      for (auto& t : in) args.push_back(t.data());
      for (const auto& d : out_desc) {
        out.emplace_back(d.dtype, d.shape);
        args.push_back(out.back().data());
      }
      std::vector<double> times;
      for (int rep = 0; rep < 12; ++rep) {
        const auto t1 = std::chrono::steady_clock::now();
        dev.launch(prog, args);
        if (rep >= 2) times.push_back(ms_since(t1));  // two warm-up launches
      }
      std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
      const double ms = times[times.size() / 2];
      const auto ref = asc::run_reference(*op, s.attrs, in);
      const double err = max_abs_diff(out[0], ref[0]);
      const bool ok = err <= 1e-3;
      failures += !ok;
      std::printf("%-12s %-24s %-12s %9.3f %9.3f %10.2e %s\n", s.op, desc.c_str(),
                  asc::to_string(out[0].shape()).c_str(), plan_ms, ms, err, ok ? "ok" : "MISMATCH");
    }
    return failures ? 1 : 0;
  } catch (const asc::Error& e) {
    std::fprintf(stderr, "asc-demo: %s\n", e.what());
    return 1;
  }
}
