// The ascend-emu device (docs/ASCENDC.md, "Whole models on the emulator"): plans are tiled for the
// 910B spec; every tile-kernel step's program is emitted as Ascend C, compiled with the host C++
// compiler against the Ascend C emulator (runtime/devices/ascend/emulator) into a shared object,
// cached on disk by source hash, and launched there with concurrent pipes and the race checker,
// as the ascend device launches the same source through ACL. A step the Atlas A2 cannot run (a
// dtype its units lack, a form the emitter does not handle) runs on the cpu device instead;
// `unsupported` says why. A race or a refused call fails the run with the emulator's message.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/device.h"

namespace asc::ascend {

class EmuDevice : public Device {
 public:
  // Entry of a compiled kernel: copies the host arguments into emulated GM, runs the kernel on
  // min(blockDim, tiles) emulated cores and copies the outputs back; nonzero with `err` filled
  // on a refusal or a race.
  using Entry = int (*)(void* const* host, const size_t* bytes, int num_args, int num_inputs,
                        char* err, size_t err_size);

  EmuDevice();
  ~EmuDevice() override;
  EmuDevice(const EmuDevice&) = delete;
  EmuDevice& operator=(const EmuDevice&) = delete;

  const std::string& name() const override { return name_; }
  const DeviceSpec& spec() const override { return spec_; }
  std::string unsupported(const TileProgram& p) const override;
  std::shared_ptr<void> prepare(const Plan& plan) override;
  bool launch(const Plan& plan, size_t k, std::span<void* const> args) const override;
  bool concurrent() const override { return false; }

  // Steps launched as emitted kernels, and steps of prepared plans left to the cpu device.
  int64_t launches() const { return launches_; }
  int64_t host_steps() const { return host_steps_; }

 private:
  std::string name_ = "ascend-emu";
  DeviceSpec spec_;
  std::string cache_dir_;
  std::string stamp_;         // the compiler and the emulator's files: part of every kernel's key
  mutable std::mutex mutex_;  // loads, and one launch at a time
  std::map<std::string, void*> so_;       // dlopen handles by file name
  std::map<std::string, Entry> entries_;  // loaded kernels by source hash
  mutable std::atomic<int64_t> launches_{0}, host_steps_{0};
};

}  // namespace asc::ascend
