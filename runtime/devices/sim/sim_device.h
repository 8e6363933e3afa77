// The sim device ("sim:910b"): plans under the Ascend 910B DeviceSpec, executes on the cpu device
// (which runs any legal tiling, so results are the cpu's under those tilings) and predicts every
// kernel launch with the cost model (cost_model.h, docs/SIM.md). Predictions depend on the plan
// only, so a plan can be predicted without being executed (ModelOptions::timing_only).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "registry/device_spec.h"
#include "runtime/devices/sim/cost_model.h"
#include "runtime/plan.h"

namespace asc::sim {

// True for the simulated devices ("sim:910b").
bool is_sim_device(const std::string& name);

class SimDevice {
 public:
  // Throws Error listing the devices when `name` is not a simulated device.
  explicit SimDevice(const std::string& name, CostConfig config = {});

  const std::string& name() const { return name_; }
  const DeviceSpec& spec() const { return spec_; }
  const CostConfig& config() const { return config_; }

  // The cost of one step of a plan of `g`: its tile program, or its host kernel's bytes in and
  // out. A host op that moves data (trait kMovement) without changing its first input's dtype or
  // element count (Reshape, Unsqueeze, Flatten, ...) is a view on the device: it costs nothing;
  // another movement op (Gather, Slice) reads at most as many bytes of an input as it writes.
  // `values`: the inputs' values known while planning (LaunchContext::values), which an op
  // launching a sequence of programs may need to list them (Resize's scales / sizes).
  KernelCost predict(const Graph& g, const PlanStep& s,
                     std::span<const Tensor* const> values = {}) const;
  // One cost per step of the plan (empty for a dynamic plan).
  std::vector<KernelCost> predict(const Graph& g, const Plan& p) const;

 private:
  std::string name_;
  DeviceSpec spec_;
  CostConfig config_;
};

}  // namespace asc::sim
