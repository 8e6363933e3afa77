// Runs one registered op on concrete tensors: resolve attributes, infer output shapes, tile,
// trace, place and launch (or call the host kernel). The graph executor and the tests use it.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "registry/op_def.h"
#include "registry/tile_program.h"
#include "runtime/devices/cpu/cpu_device.h"

namespace asc {

struct OpRunOptions {
  bool optimize = true;              // double buffering, prefetch
  std::optional<TilingData> tiling;  // override the op's tiling function (tiling tests)
  std::optional<DeviceSpec> spec;    // tile for this spec instead of the device's own
  size_t num_outputs = 0;            // the node's output count (InferContext::num_outputs)
  // Called by run_op with the placed program just before launching it (not for host kernels).
  std::function<void(const TileProgram&)> on_program;
};

// Output dtypes and concrete shapes from the op's inference; throws ShapeError naming the op and
// the input shapes when inference cannot give concrete shapes. `num_outputs` is the node's output
// count where there is a node (0: unknown).
std::vector<TensorDesc> infer_outputs(const OpDef& op, const Attrs& resolved,
                                      std::span<const Tensor> inputs, size_t num_outputs = 0);

// The placed program the op would run for these inputs (for dumps and tests); `values` are the
// host-visible input values (LaunchContext::values), empty when none are known.
TileProgram plan_tile_program(const OpDef& op, const Attrs& resolved,
                              std::span<const TensorDesc> inputs,
                              std::span<const TensorDesc> outputs, const DeviceSpec& spec,
                              const OpRunOptions& opts = {},
                              std::span<const Tensor* const> values = {});

// Runs the op; `attrs` are the node's attributes (defaults are filled in here).
std::vector<Tensor> run_op(const OpDef& op, const Attrs& attrs, std::span<const Tensor> inputs,
                           const cpu::CpuDevice& device, const OpRunOptions& opts = {});

// Runs the op's naive reference for the same inputs.
std::vector<Tensor> run_reference(const OpDef& op, const Attrs& attrs,
                                  std::span<const Tensor> inputs, size_t num_outputs = 0);

}  // namespace asc
