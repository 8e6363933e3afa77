// Devices by name (runtime/device.h).
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/device.h"
#include "runtime/devices/ascend/emu_device.h"
#include "runtime/devices/sim/sim_device.h"
#ifdef ASC_WITH_CANN
#include "runtime/devices/ascend/acl_device.h"
#endif

namespace asc {

std::string device_names() {
#ifdef ASC_WITH_CANN
  return "cpu, sim:910b, ascend-emu, ascend";
#else
  return "cpu, sim:910b, ascend-emu";
#endif
}

std::shared_ptr<Device> make_kernel_device(const std::string& name) {
  if (name == "cpu" || sim::is_sim_device(name)) return nullptr;
  if (name == "ascend-emu") return std::make_shared<ascend::EmuDevice>();
  if (name == "ascend") {
#ifdef ASC_WITH_CANN
    return std::make_shared<ascend::AclDevice>();
#else
    throw Error(
        cat("device 'ascend' is not available: asc was built without CANN (configure with "
            "-DASC_WITH_CANN=ON and ASCEND_HOME_PATH set to the CANN toolkit; devices: ",
            device_names(), ")"));
#endif
  }
  throw Error(cat("device '", name, "' is not available (devices: ", device_names(), ")"));
}

}  // namespace asc
