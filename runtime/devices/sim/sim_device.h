// The sim:910b predictor (runtime/prediction.h): plans under the Ascend 910B DeviceSpec are
// predicted launch by launch with the cost model (cost_model.h, docs/SIM.md). As a device name,
// "sim:910b" is the cpu device under it (which runs any legal tiling, so results are the cpu's
// under those tilings); `--predict sim:910b` puts another device (ascend-emu) under it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "registry/device_spec.h"
#include "runtime/devices/sim/cost_model.h"
#include "runtime/plan.h"
#include "runtime/prediction.h"

namespace asc::sim {

// True for the simulated devices ("sim:910b").
bool is_sim_device(const std::string& name);

class SimDevice final : public Predictor {
 public:
  // Throws Error listing the devices when `name` is not a simulated device.
  explicit SimDevice(const std::string& name, CostConfig config = {});

  const std::string& name() const override { return name_; }
  const DeviceSpec& spec() const override { return spec_; }
  double clock_hz() const override { return config_.clock_hz; }
  const CostConfig& config() const { return config_; }

  // The cost of one step of a plan of `g`: its tile program, or its host kernel's bytes in and
  // out. A host op that moves data (trait kMovement) without changing its first input's dtype or
  // element count (Reshape, Unsqueeze, Flatten, ...) is a view on the device: it costs nothing;
  // another movement op (Gather, Slice) reads at most as many bytes of an input as it writes.
  // `values`: the inputs' values known while planning (LaunchContext::values), which an op
  // launching a sequence of programs may need to list them (Resize's scales / sizes).
  KernelCost predict(const Graph& g, const PlanStep& s,
                     std::span<const Tensor* const> values = {}) const override;
  // One cost per step of the plan (empty for a dynamic plan).
  std::vector<KernelCost> predict(const Graph& g, const Plan& p) const override;

 private:
  std::string name_;
  DeviceSpec spec_;
  CostConfig config_;
};

}  // namespace asc::sim
