// asc-run on a simulated device (--device sim:910b): the predicted kernels of runs as a per-op
// pipe table beside the measured host times, their totals for the JSON report, and a Perfetto
// track per pipe. docs/SIM.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "runtime/model.h"
#include "runtime/prediction.h"

namespace asc {

struct SimOpTotal {
  int64_t calls = 0;
  double host_ms = 0;        // measured on the host
  CostTotals predicted;      // cycles include the launches
  double core_cycles = 0;    // sum of kernel device cycles x active cores (utilisation base)
  bool host_kernel = false;  // some launch was a host kernel
};

// Op type -> totals over the steps with a prediction (views excluded: no kernel), largest
// predicted time first.
std::vector<std::pair<std::string, SimOpTotal>> sim_profile_ops(const Graph& g,
                                                                const RunStats& stats);
// The predicted kernels of the steps (only those with a prediction).
CostTotals sim_totals(const RunStats& stats);

// The text table: op, calls, host ms, predicted us, share, per-pipe utilisation, cube
// utilisation; every figure divided by `per` (runs or tokens).
std::string sim_profile_table(const std::vector<std::pair<std::string, SimOpTotal>>& rows,
                              const Predictor& dev, const std::string& title, double per);
nlohmann::json sim_profile_json(const std::vector<std::pair<std::string, SimOpTotal>>& rows,
                                const Predictor& dev, double per);

// Appends trace events (process 2, "sim:910b predicted"): the steps' kernels back to back on a
// "kernels" track and, per kernel, each pipe's average busy time per core on its own track.
void sim_trace_events(nlohmann::json& events, const Graph& g, const RunStats& stats,
                      const Predictor& dev);

}  // namespace asc
