// The ascend device (docs/ASCENDC.md, "The ascend device"): tile programs planned for the 910B
// spec, emitted as Ascend C (emit_ascendc.h), compiled with CANN's kernel compiler and launched
// through ACL. Compiled only with -DASC_WITH_CANN=ON; never compiled where asc is developed (no
// CANN there), so nothing here has run.
//
// One device, one stream, synchronous: every launch copies its GM arguments in, runs, waits and
// copies the outputs back, so host memory holds every value between steps and host kernels run on
// the host unchanged.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "registry/device_spec.h"
#include "registry/tile_program.h"
#include "runtime/plan.h"

namespace asc::ascend {

class AclDevice {
 public:
  // A loaded kernel binary (aclrtBinaryLoadFromFile) and its entry (aclrtBinaryGetFunction).
  struct Kernel {
    aclrtBinHandle bin = nullptr;
    aclrtFuncHandle func = nullptr;
  };

  // aclInit, aclrtSetDevice(device), aclrtCreateStream. Throws Error naming the failing call.
  explicit AclDevice(int device = 0);
  ~AclDevice();
  AclDevice(const AclDevice&) = delete;
  AclDevice& operator=(const AclDevice&) = delete;

  const DeviceSpec& spec() const { return spec_; }  // ascend910b(): plans are tiled for it

  // Plan time: every tile-kernel step's program is emitted, compiled (once per distinct source,
  // cached on disk) and loaded (once per device), and its GM arguments and tiling struct get
  // device memory. The result goes into Plan::device and is freed with the plan.
  std::shared_ptr<void> prepare(const Plan& plan);

  // Run time: step k of `plan` (prepared by this device) on host buffers `args` (inputs, then
  // outputs, as TileProgram::args). Copies in, launches, synchronises, copies the outputs out.
  void launch(const Plan& plan, size_t k, const std::vector<void*>& args) const;

 private:
  // The kernel of `p`, emitted, compiled and loaded on first use. Called under mutex_.
  const Kernel& load(const TileProgram& p);
  // Makes this device's context current on the calling thread (runs may come from any thread).
  void bind() const;

  int device_ = 0;
  aclrtContext context_ = nullptr;
  aclrtStream stream_ = nullptr;
  DeviceSpec spec_;
  std::string cache_dir_;
  mutable std::mutex mutex_;               // one launch (copy in, run, copy out) at a time
  std::map<std::string, Kernel> kernels_;  // by source hash
};

}  // namespace asc::ascend
