// TileProgram -> Ascend C source (docs/ASCENDC.md): one kernel per placed program, its tiling
// struct and a host launch stub through ACL. The emitted kernels compile against CANN's
// kernel_operator.h, and on the host against the Ascend C emulator (emulator/kernel_operator.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "registry/error.h"
#include "registry/tile_program.h"

namespace asc::ascend {

// What emit_kernel throws for an operation the Atlas A2's units do not have in the dtype the
// program computes it in (Div on int32_t, Compare on int64_t, Duplicate on double, ...): such a
// program is not an emitter gap but one a device runs on the host (a2_unsupported).
class Unsupported : public Error {
 public:
  using Error::Error;
};

// The kernel source: `struct <name>TilingData`, a kernel class (Init/Process) and
// `extern "C" __global__ __aicore__ void name(GM_ADDR a0, ..., [GM_ADDR ws,] GM_ADDR tiling)`.
// Throws Error naming the op and the instruction for a form the emitter does not handle.
std::string emit_kernel(const TileProgram& p, const std::string& name);

// `<name>_host.cpp`: allocates the arguments with aclrtMalloc, copies inputs in, launches
// through aclrtlaunch_<name> on a stream, synchronises and copies the outputs back.
std::string emit_host_stub(const TileProgram& p, const std::string& name);

// The kernel type KERNEL_TASK_TYPE_DEFAULT declares: "KERNEL_TYPE_AIV_ONLY" (UB buffers only),
// "KERNEL_TYPE_AIC_ONLY" (L1/L0 only) or "KERNEL_TYPE_MIX_AIC_1_2" (both: the AIC hands L0C
// results to the AIVs through a GM workspace, an argument between the outputs and the tiling);
// throws Error for a program whose vector results feed the cube.
const char* kernel_type(const TileProgram& p);

// The GM workspace a mixed kernel takes, in bytes (0 for the others).
int64_t workspace_bytes(const TileProgram& p);

// For the emulator only: `void <name>_emu_run(uint8_t* const* args, ascemu::Options o,
// std::vector<std::string>* races)` launching the kernel with ascemu::Run under `o` (its kernel
// name set) on min(blockDim, tiles) cores with the program's tiling; the emulator's refusals
// throw.
std::string emit_emu_runner(const TileProgram& p, const std::string& name);

// The tiling struct's contents as the kernel's last GM argument reads them: grid (rank >= 1,
// padded with 1), numTiles, blockDim; `<name>TilingData` is exactly these int64_t words.
std::vector<int64_t> tiling_words(const TileProgram& p);

// Bytes a GM argument spans from its first element (a strided view: up to its last element).
size_t gm_arg_bytes(const TensorDesc& d);

// Empty when the Atlas A2 units have every operation `p` computes, in the dtypes it computes them
// in (emit_kernel throws no Unsupported); otherwise which one they lack. A device runs such a
// program on the host: ascend-emu and ascend on the cpu device, as CANN would on the AI CPU.
std::string a2_unsupported(const TileProgram& p);

// Empty when emit_kernel emits `p`; otherwise why not: a unit the A2 lacks (Unsupported) or a
// form the emitter does not handle yet. What the Ascend devices' `unsupported` answer.
std::string emission_refusal(const TileProgram& p);

// CMakeLists.txt for the CANN toolchain building every kernel (ascendc_library) and the stubs.
std::string emit_cmake(const std::vector<std::string>& kernel_names);

// A C identifier from an op type: "com.microsoft.Rotary" -> "com_microsoft_rotary".
std::string kernel_ident(const std::string& op);

}  // namespace asc::ascend
