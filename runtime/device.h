// The device interface (docs/RUNTIME.md, "Devices"): what the runtime holds a device through.
// A device says which tile programs it runs, compiles a plan's programs into executables of its
// own (cached by the device, never stored in the IR) and launches plan steps on host buffers.
// The cpu device runs everything; a kernel device (ascend-emu, ascend) runs what its hardware
// has, and the runtime runs the rest on the cpu device, as ONNX Runtime falls back to its CPU
// provider. Kernel devices are made by name with make_kernel_device (runtime/devices/devices.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "registry/device_spec.h"
#include "registry/tile_program.h"

namespace asc {

struct Plan;

class Device {
 public:
  virtual ~Device() = default;

  virtual const std::string& name() const = 0;
  // The spec plans for this device are tiled for.
  virtual const DeviceSpec& spec() const = 0;
  // Empty when the device runs `p` itself; otherwise why it does not (the step then runs on the
  // cpu device). Deterministic: the same program gets the same answer.
  virtual std::string unsupported(const TileProgram& p) const = 0;
  // Plan time: compiles and loads the kernels of the plan's supported steps; the state is kept in
  // Plan::device and freed with the plan. Null when the device keeps nothing per plan.
  virtual std::shared_ptr<void> prepare(const Plan& plan) = 0;
  // Step k of `plan` (prepared by this device) on host buffers `args` (inputs, then outputs, as
  // TileProgram::args). False when the step is not this device's: the caller runs it on the cpu.
  virtual bool launch(const Plan& plan, size_t k, std::span<void* const> args) const = 0;
  // Whether launches may run concurrently from several threads.
  virtual bool concurrent() const = 0;
};

// Every device name a Model accepts, for messages: "cpu, sim:910b, ascend-emu" (+ ", ascend"
// when built with CANN).
std::string device_names();

// The kernel device called `name`: null for "cpu" and the simulated devices (they execute on the
// cpu device); Error naming the devices for an unknown name or one this build lacks.
std::shared_ptr<Device> make_kernel_device(const std::string& name);

}  // namespace asc
