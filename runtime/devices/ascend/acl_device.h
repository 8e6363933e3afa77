// The ascend device (docs/ASCENDC.md, "The ascend device"): tile programs planned for the 910B
// spec, emitted as Ascend C (emit_ascendc.h), compiled with CANN's kernel compiler and launched
// through ACL. Compiled only with -DASC_WITH_CANN=ON; never compiled where asc is developed (no
// CANN there), so nothing here has run.
//
// One device, one stream, synchronous: every launch copies its GM arguments in, runs, waits and
// copies the outputs back, so host memory holds every value between steps and host kernels, and
// the steps the A2 cannot run (EmuDevice::unsupported's rule), run on the cpu device unchanged.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "registry/device_spec.h"
#include "registry/tile_program.h"
#include "runtime/device.h"
#include "runtime/plan.h"

namespace asc::ascend {

class AclDevice : public Device {
 public:
  // A loaded kernel binary (aclrtBinaryLoadFromFile) and its entry (aclrtBinaryGetFunction).
  struct Kernel {
    aclrtBinHandle bin = nullptr;
    aclrtFuncHandle func = nullptr;
  };

  // aclInit, aclrtSetDevice(device), aclrtCreateStream. Throws Error naming the failing call.
  explicit AclDevice(int device = 0);
  ~AclDevice() override;
  AclDevice(const AclDevice&) = delete;
  AclDevice& operator=(const AclDevice&) = delete;

  const std::string& name() const override { return name_; }
  const DeviceSpec& spec() const override { return spec_; }  // ascend910b()
  std::string unsupported(const TileProgram& p) const override;

  // Plan time: every supported tile-kernel step's program is emitted, compiled (once per
  // distinct source, cached on disk) and loaded (once per device), and its GM arguments and
  // tiling struct get device memory. The result goes into Plan::device and is freed with it.
  std::shared_ptr<void> prepare(const Plan& plan) override;

  // Run time: copies in, launches, synchronises, copies the outputs out.
  bool launch(const Plan& plan, size_t k, std::span<void* const> args) const override;
  bool concurrent() const override { return false; }

 private:
  // The kernel of `p`, emitted, compiled and loaded on first use. Called under mutex_.
  const Kernel& load(const TileProgram& p);
  // Makes this device's context current on the calling thread (runs may come from any thread).
  void bind() const;

  std::string name_ = "ascend";
  int device_ = 0;
  aclrtContext context_ = nullptr;
  aclrtStream stream_ = nullptr;
  DeviceSpec spec_;
  std::string cache_dir_;
  mutable std::mutex mutex_;               // one launch (copy in, run, copy out) at a time
  std::map<std::string, Kernel> kernels_;  // by source hash
};

}  // namespace asc::ascend
