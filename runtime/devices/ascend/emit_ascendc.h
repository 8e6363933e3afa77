// TileProgram -> Ascend C source (docs/ASCENDC.md): one kernel per placed program, its tiling
// struct and a host launch stub through ACL. The emitted kernels compile against CANN's
// kernel_operator.h, and against runtime/devices/ascend/host_api/kernel_operator.h on the host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "registry/tile_program.h"

namespace asc::ascend {

// The kernel source: `struct <name>TilingData`, a kernel class (Init/Process) and
// `extern "C" __global__ __aicore__ void name(GM_ADDR a0, ..., GM_ADDR tiling)`. Throws Error
// naming the op and the instruction for a form the emitter does not handle.
std::string emit_kernel(const TileProgram& p, const std::string& name);

// `<name>_host.cpp`: allocates the arguments with aclrtMalloc, copies inputs in, launches
// through aclrtlaunch_<name> on a stream, synchronises and copies the outputs back.
std::string emit_host_stub(const TileProgram& p, const std::string& name);

// For the host verification only: `void <name>_cpu_run(uint8_t* const* args)` running the kernel
// on blocks 0..blockDim-1 with AscendC::RunKernel and the program's tiling.
std::string emit_cpu_runner(const TileProgram& p, const std::string& name);

// The tiling struct's contents as the kernel's last GM argument reads them: grid (rank >= 1,
// padded with 1), numTiles, blockDim; `<name>TilingData` is exactly these int64_t words.
std::vector<int64_t> tiling_words(const TileProgram& p);

// CMakeLists.txt for the CANN toolchain building every kernel (ascendc_library) and the stubs.
std::string emit_cmake(const std::vector<std::string>& kernel_names);

// A C identifier from an op type: "com.microsoft.Rotary" -> "com_microsoft_rotary".
std::string kernel_ident(const std::string& op);

}  // namespace asc::ascend
