// Host-side implementation of the subset of the Ascend C API that asc's emitter uses
// (runtime/devices/ascend/emit_*.cpp), written from the documented semantics, in the spirit of
// CANN's CPU debug mode: the same kernel source compiles with g++ and runs block 0..blockDim-1 on
// the host (AscendC::RunKernel, like ICPU_RUN_KF). See docs/ASCENDC.md for the mapping and what
// differs.
//
// Hardware rules asserted (a violation aborts with a message naming the call, or calls the
// handler set in AscendC::HostFailHook()):
// - local memory capacity per position against the Atlas A2 / 910B sizes (UB 192 KiB, L1 512 KiB,
//   L0A/L0B 64 KiB, L0C 128 KiB), checked by TPipe::InitBuffer;
// - TQue/TBuf buffers start 32-byte aligned (UB, L1), 512 B (L0A/L0B), 1 KiB (L0C);
// - DataCopy between GM and UB/L1: local address 32-byte aligned and byte count a multiple of 32;
// - DataCopyPad: the local address aligned to its element size (rows of a dense box inside a
//   buffer; counted in UnalignedPadRows(), see the docs);
// - vector calls: count > 0 and every operand inside its buffer; TQue: no AllocTensor beyond the
//   buffers given to InitBuffer, DeQue only after EnQue.
//
// Layout simplification: L0A/L0B/L0C hold row-major (ND) matrices, not the zZ/zN/nZ fractal
// layouts the real MTE1/Cube use; LoadData copies, Mmad multiplies ND, Fixpipe writes ND rows.
#pragma once

#include "kernel_operator_core.h"  // macros, half/bfloat16_t, memories, tensors, queues, DMA
#include "kernel_operator_cube.h"  // LoadData, Mmad, Fixpipe
#include "kernel_operator_vec.h"   // vector calls

namespace AscendC {

// ---- the host runner (ICPU_RUN_KF-like): blocks 0..blockDim-1 in order ----
template <typename F, typename... Args>
inline void RunKernel(F kernel, int64_t blockDim, Args... args) {
  HostBlockNum() = blockDim;
  for (int64_t b = 0; b < blockDim; ++b) {
    HostBlockIdx() = b;
    kernel(args...);
  }
  HostBlockIdx() = 0;
}

}  // namespace AscendC
