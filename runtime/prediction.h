// Predictors (docs/RUNTIME.md, "Devices"): a timing model of a device, apart from the device that
// executes. A Model with a predictor plans under the predictor's spec and predicts every launch of
// its plans, whichever device runs them (the cpu, or a kernel device whose spec is the same):
// `--device sim:910b` is the cpu under the 910B model, `--device ascend-emu --predict sim:910b`
// the emulator under it. Predictions depend on the plan only, so a plan can be predicted without
// being executed (ModelOptions::timing_only). The one predictor is sim:910b
// (runtime/devices/sim).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "registry/device_spec.h"

namespace asc {

struct Graph;
struct Plan;
struct PlanStep;
class Tensor;

// The pipes of an AI core a prediction accounts (Fixpipe's L0C -> GM writes count as MTE3; a
// mixed kernel's AIC and AIV pipes of one kind are summed in busy).
enum class Pipe : uint8_t { kMte2, kMte1, kMte3, kVector, kCube, kScalar };
constexpr int kPipeCount = 6;
std::string_view pipe_name(Pipe p);

// The predicted cost of one kernel launch.
struct KernelCost {
  bool valid = false;  // false: nothing predicted (no predictor)
  bool host = false;   // a host kernel (bandwidth-bound model), not a tile program
  bool cube = false;   // the program uses the cube (its cores are cube cores)
  bool view = false;   // a reshape-like host op: no data moves, no kernel is launched
  bool mixed = false;  // cube and vector work: AIC + 2 AIVs per AI core, hand-offs through GM
  int64_t cores = 0;   // cores the tiles ran on
  double cycles = 0;   // device time of the kernel: the slowest core, pipeline fill included
  double launch_cycles = 0;
  double busy[kPipeCount] = {};  // busy cycles per pipe, summed over the cores
  double gm_bytes = 0;           // bytes moved between GM and the cores (HBM and L2)
  double macs = 0;               // cube MACs issued (padded to the fractal)
  int64_t launches = 1;          // kernels this cost stands for (a control-flow node: its bodies')

  double total_cycles() const { return cycles + launch_cycles; }
  // Appends `k` run after this on the same stream (the kernels of a control-flow node's bodies).
  void then(const KernelCost& k);
  // Busy share of one pipe over the kernel's device time on its active cores.
  double utilization(Pipe p) const;
  // Cube busy cycles / (device time including the launch x every cube core of the chip).
  double cube_utilization(const DeviceSpec& spec) const;
};

// Sums over the kernels of a run (or of many runs): the timeline is one stream, kernels in plan
// order, each with its launch.
struct CostTotals {
  int64_t kernels = 0;
  double cycles = 0;  // device time plus launches
  double busy[kPipeCount] = {};
  double gm_bytes = 0;
  double macs = 0;

  void add(const KernelCost& k);
  void add(const CostTotals& t);
  double seconds(double clock_hz) const { return cycles / clock_hz; }
  // Cube busy cycles / (elapsed cycles x every cube core of the chip).
  double cube_utilization(const DeviceSpec& spec) const;
};

class Predictor {
 public:
  virtual ~Predictor() = default;
  virtual const std::string& name() const = 0;
  // The spec the plans it predicts are tiled for.
  virtual const DeviceSpec& spec() const = 0;
  // Cycles per second of the predicted device.
  virtual double clock_hz() const = 0;
  // One step of a plan of `g`: its tile program, or its host kernel's bytes in and out; `values`:
  // the inputs' values known while planning (an op launching a sequence of programs may need
  // them to list them).
  virtual KernelCost predict(const Graph& g, const PlanStep& s,
                             std::span<const Tensor* const> values = {}) const = 0;
  // One cost per step of the plan (empty for a dynamic plan).
  virtual std::vector<KernelCost> predict(const Graph& g, const Plan& p) const = 0;
};

// True for the names of predictors ("sim:910b"), which are also device names: the cpu under
// that predictor.
bool is_predictor(const std::string& name);
// The predictor called `name`; Error listing the predictors for another name.
std::unique_ptr<Predictor> make_predictor(const std::string& name);

}  // namespace asc
