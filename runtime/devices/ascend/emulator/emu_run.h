// Launching a kernel on the emulator (include kernel_operator.h), the ICPU_RUN_KF of asc:
//   ascemu::Run(ascemu::Options{}, KERNEL_TYPE_AIV_ONLY, blockDim, my_kernel, x, y, z);
// runs my_kernel(x, y, z) on blockDim vector cores; GM arguments come from AscendC::GmAlloc.
#pragma once

#include <functional>

#include "emu_core.h"

// Inside a kernel: the type it is compiled as; the emulator checks it against the launch.
#define KERNEL_TASK_TYPE_DEFAULT(type) ascemu::expect_kernel_type(type)

namespace ascemu {

void expect_kernel_type(KernelMetaType type);

template <typename... Params, typename... Args>
Result Run(const Options& opt, KernelMetaType type, int64_t block_dim, void (*kernel)(Params...),
           Args... args) {
  return run_cores(opt, type, block_dim, [&] { kernel(static_cast<Params>(args)...); });
}

}  // namespace ascemu
