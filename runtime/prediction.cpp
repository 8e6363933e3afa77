#include "runtime/prediction.h"

#include <algorithm>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/devices/sim/sim_device.h"

namespace asc {
namespace {

constexpr int kCube = static_cast<int>(Pipe::kCube);

}  // namespace

std::string_view pipe_name(Pipe p) {
  switch (p) {
    case Pipe::kMte2:
      return "MTE2";
    case Pipe::kMte1:
      return "MTE1";
    case Pipe::kMte3:
      return "MTE3";
    case Pipe::kVector:
      return "Vector";
    case Pipe::kCube:
      return "Cube";
    case Pipe::kScalar:
      return "Scalar";
  }
  return "?";
}

double KernelCost::utilization(Pipe p) const {
  const double denom = cycles * static_cast<double>(cores);
  return denom > 0 ? busy[static_cast<int>(p)] / denom : 0.0;
}

double KernelCost::cube_utilization(const DeviceSpec& spec) const {
  const double denom = total_cycles() * static_cast<double>(std::max(1, spec.cube_cores));
  return denom > 0 ? busy[kCube] / denom : 0.0;
}

void KernelCost::then(const KernelCost& k) {
  if (!k.valid || k.view) return;
  if (!valid) {
    launches = 0;
    host = true;
  }
  valid = true;
  host = host && k.host;
  cube = cube || k.cube;
  cores = std::max(cores, k.cores);
  cycles += k.cycles;
  launch_cycles += k.launch_cycles;
  for (int q = 0; q < kPipeCount; ++q) busy[q] += k.busy[q];
  gm_bytes += k.gm_bytes;
  macs += k.macs;
  launches += k.launches;
}

void CostTotals::add(const KernelCost& k) {
  if (!k.valid || k.view) return;
  kernels += k.launches;
  cycles += k.total_cycles();
  for (int q = 0; q < kPipeCount; ++q) busy[q] += k.busy[q];
  gm_bytes += k.gm_bytes;
  macs += k.macs;
}

void CostTotals::add(const CostTotals& t) {
  kernels += t.kernels;
  cycles += t.cycles;
  for (int q = 0; q < kPipeCount; ++q) busy[q] += t.busy[q];
  gm_bytes += t.gm_bytes;
  macs += t.macs;
}

double CostTotals::cube_utilization(const DeviceSpec& spec) const {
  const double denom = cycles * static_cast<double>(std::max(1, spec.cube_cores));
  return denom > 0 ? busy[kCube] / denom : 0.0;
}

bool is_predictor(const std::string& name) {
  return sim::is_sim_device(name);
}

std::unique_ptr<Predictor> make_predictor(const std::string& name) {
  if (!is_predictor(name))
    throw Error(cat("predictor '", name, "' is not available (predictors: sim:910b)"));
  return std::make_unique<sim::SimDevice>(name);
}

}  // namespace asc
