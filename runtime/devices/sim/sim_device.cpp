#include "runtime/devices/sim/sim_device.h"

#include <algorithm>

#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/device.h"

namespace asc::sim {

bool is_sim_device(const std::string& name) {
  return name == "sim:910b";
}

SimDevice::SimDevice(const std::string& name, CostConfig config) : name_(name), config_(config) {
  if (!is_sim_device(name))
    throw Error(cat("device '", name, "' is not available (devices: ", device_names(), ")"));
  spec_ = ascend910b();
}

KernelCost SimDevice::predict(const Graph& g, const PlanStep& s,
                              std::span<const Tensor* const> values) const {
  const Node& n = g.nodes[static_cast<size_t>(s.node)];
  const bool host_view = !s.program && n.def && n.def->has(kMovement) && !s.in.empty() &&
                         s.out.size() == 1 && s.in[0].dtype == s.out[0].dtype &&
                         numel(s.in[0].shape) == numel(s.out[0].shape);
  if (s.view || host_view) {  // the plan aliases it, or a host copy the device would not make
    KernelCost view;
    view.valid = view.host = view.view = true;
    return view;
  }
  if (s.program) return predict_program(*s.program, spec_, config_);
  if (n.def && n.def->launches_fn) {  // a sequence of tile programs: each launch, in order
    const Attrs attrs = n.def->resolve(n.attrs);
    LaunchContext ctx;
    ctx.op = n.def;
    ctx.inputs = s.in;
    ctx.outputs = s.out;
    ctx.attrs = &attrs;
    ctx.spec = &spec_;
    ctx.values.assign(values.begin(), values.end());
    KernelCost total;
    for (const ProgramLaunches& l : n.def->launches_fn(ctx)) {
      const KernelCost k = predict_program(*l.program, spec_, config_);
      for (int64_t i = 0; i < l.count; ++i) total.then(k);
    }
    if (total.valid) return total;
  }
  auto bytes = [](const TensorDesc& d) {
    return numel(d.shape) * static_cast<int64_t>(dtype_size(d.dtype));
  };
  int64_t in = 0, out = 0;
  for (const TensorDesc& d : s.out) out += bytes(d);
  // A movement op (Gather, Slice, ...) reads at most as many bytes of an input as it writes.
  const bool movement = n.def && n.def->has(kMovement);
  for (const TensorDesc& d : s.in) in += movement ? std::min(bytes(d), out) : bytes(d);
  return predict_host_kernel(in, out, config_);
}

std::vector<KernelCost> SimDevice::predict(const Graph& g, const Plan& p) const {
  std::vector<KernelCost> costs;
  if (!p.dynamic.empty()) return costs;
  costs.reserve(p.steps.size());
  std::vector<const Tensor*> values;
  for (const PlanStep& s : p.steps) {
    values.clear();
    for (int v : g.nodes[static_cast<size_t>(s.node)].inputs)
      values.push_back(v >= 0 && static_cast<size_t>(v) < p.known.size() && p.known[v].defined()
                           ? &p.known[static_cast<size_t>(v)]
                           : nullptr);
    costs.push_back(predict(g, s, values));
  }
  return costs;
}

}  // namespace asc::sim
