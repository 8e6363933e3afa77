// asc's Ascend C emulator: the Atlas A2 (910B) Ascend C API on the host, so that a kernel written
// for the NPU compiles unchanged with g++ (#include "kernel_operator.h") and runs here, its calls
// checked as the hardware and the API check them and its pipes checked for races. Launch with
// ascemu::Run (emu_run.h). docs/ASCENDC.md, "The emulator".
#pragma once

#include "emu_base.h"    // qualifiers, pipe_t/event_t, half/bfloat16_t, AscendC enums
#include "emu_copy.h"    // DataCopy, DataCopyPad
#include "emu_core.h"    // the machine: cores, pipes, the race checker
#include "emu_cross.h"   // mixed launches, CrossCoreSetFlag/WaitFlag, SyncAll, ASCEND_IS_AIC/AIV
#include "emu_cube.h"    // the cube unit: ND2NZ, LoadData, Mmad, Fixpipe
#include "emu_dcache.h"  // the scalar unit's data cache, DataCacheCleanAndInvalid
#include "emu_run.h"     // ascemu::Run
#include "emu_sync.h"    // SetFlag/WaitFlag, PipeBarrier, TQueSync
#include "emu_tensor.h"  // GlobalTensor, LocalTensor, TPipe, TQue, TBuf
#include "emu_vec.h"     // the vector unit
