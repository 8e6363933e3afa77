// The emulator's cross-core synchronisation (include kernel_operator.h): mixed launches, where one
// AI Core is an AIC with two AIVs (KERNEL_TYPE_MIX_AIC_1_2) or one (KERNEL_TYPE_MIX_AIC_1_1), and
// the Atlas A2 calls that order one core's work before another's: the hardware flags
// (CrossCoreSetFlag and CrossCoreWaitFlag in modes 0, 1 and 2, the hard SyncAll), which need a
// KERNEL_TYPE_MIX_* launch, and the soft ones that poll GM (SyncAll with a workspace, IBSet and
// IBWait), which any launch has. The soft calls' own GM and UB words are not race-checked: they
// order the cores as a release by the writer and an acquire by the core that sees the value.
//
// As the hardware's scheduler does it, every core has 16 flags, each a counter (0..15). A set
// in mode m runs on its pipe once that pipe's earlier instructions are done; once every core
// that mode asks for has set the flag, each core the mode releases counts one more on it:
//   mode 0: all AICs (or all AIVs) of the launch set; each of them counts;
//   mode 1: the AIVs of one AI Core set; each of them counts;
//   mode 2: an AI Core's AIC sets and each of its AIVs counts, or its AIVs all set and the AIC
//           counts.
// CrossCoreWaitFlag takes one count of its own core's flag, the core stopping until there is one;
// on the Atlas A2 its modeId and pipe have no effect and it holds back every instruction issued
// after it, on every pipe (instructions issued before it run on). The race checker sees the same:
// a count carries the vector clocks of the sets' pipes to every pipe of the waiting core.
//
// Refused as the docs have it: any hardware flag outside a KERNEL_TYPE_MIX_* launch (the
// hardware starts no scheduler), modes other than 0, 1, 2, modes 1 and 2 outside MIX_AIC_1_1 and
// _1_2, flag ids past 15 (the hardware would keep the low 4 bits), a set on PIPE_S, PIPE_ALL or a
// pipe the core lacks, a 16th count no wait took, a flag id changing mode on a core before that
// core's sets and waits of the old mode ran, and counts left when the launch ends.
#pragma once

#include <functional>

#include "emu_tensor.h"

// Core-type guards, written `if ASCEND_IS_AIC { ... }`: true on the running core's type.
#define ASCEND_IS_AIC (::ascemu::current().aic())
#define ASCEND_IS_AIV (!::ascemu::current().aic())
#define ASCEND_IS_NOT_AIC (!::ascemu::current().aic())
#define ASCEND_IS_NOT_AIV (::ascemu::current().aic())

namespace ascemu {

constexpr int kCrossFlags = 16;  // flag ids of modes 0, 1, 2: 0..15 on every core
constexpr int kCrossCount = 15;  // the most a flag's counter holds

const char* kernel_type_name(KernelMetaType type);  // "KERNEL_TYPE_MIX_AIC_1_2"
bool is_mixed(KernelMetaType type);                 // the KERNEL_TYPE_MIX_* kinds of the Atlas A2

// Runs body once on every core of the launch, each core on a thread of its own and one at a time
// (a baton passed between the caller and the cores, so runs are deterministic): the lowest core
// whose wait is over resumes first, else the next core not yet started. When every core left
// waits, the launch is a deadlock. The first error in any core stops the launch: the cores still
// waiting unwind, every thread is joined, and the error is rethrown here.
Result run_launch(Launch& launch, const std::function<void()>& body);

void cross_set(int mode, pipe_t pipe, uint16_t flag);
void cross_wait(int mode, pipe_t pipe, uint16_t flag);
void sync_all(bool aiv_only);
void soft_sync_all(bool aiv_only, const AscendC::GlobalTensor<int32_t>& gm,
                   const AscendC::LocalTensor<int32_t>& ub, int32_t used_cores);
void ib_sync(bool set, bool aiv_only, const AscendC::GlobalTensor<int32_t>& gm,
             const AscendC::LocalTensor<int32_t>& ub, int32_t block_idx, int32_t event);

}  // namespace ascemu

namespace AscendC {

// The trailing defaulted arguments (not the API's) name the call's site for the mutation test.
template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId, const char* file = __builtin_FILE(),
                             int line = __builtin_LINE()) {
  if (ascemu::sync_kept(file, line)) ascemu::cross_set(modeId, pipe, flagId);
}

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(uint16_t flagId, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  if (ascemu::sync_kept(file, line)) ascemu::cross_wait(modeId, pipe, flagId);
}

// The hard SyncAll of the Atlas A2 (no workspace): every earlier instruction of the core
// completes, then isAIVOnly = true synchronises all cores of the running core's type (mode 0,
// flag 14); false, a mixed kernel's AIVs, then all AICs, then the AIVs again (flags 11..13).
template <bool isAIVOnly = true>
inline void SyncAll() {
  ascemu::sync_all(isAIVOnly);
}

// The soft SyncAll (vector cores only; an AIC returns at once): every AIV counts its arrival in
// its 32-byte slot of gmWorkspace (zeroed before the launch) and polls GM until the first
// usedCores AIVs (all of them when 0) have arrived as often; ubWorkspace is its scratch.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace,
                    const LocalTensor<int32_t>& ubWorkspace, const int32_t usedCores = 0) {
  ascemu::soft_sync_all(isAIVOnly, gmWorkspace, ubWorkspace, usedCores);
}

// A one-slot mailbox in GM between AIVs (an AIC returns at once): IBSet waits for the slot of
// (blockIdx, eventID) to hold 0 and writes 1; IBWait waits for 1 and writes 0.
template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                  int32_t blockIdx, int32_t eventID) {
  ascemu::ib_sync(true, isAIVOnly, gmWorkspace, ubWorkspace, blockIdx, eventID);
}
template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace,
                   const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx, int32_t eventID) {
  ascemu::ib_sync(false, isAIVOnly, gmWorkspace, ubWorkspace, blockIdx, eventID);
}

int64_t GetTaskRatio();    // AIC: 1; AIV: 2 in a MIX_AIC_1_2 launch, else 1
int64_t GetSubBlockNum();  // the same, as cores of the type per AI Core

}  // namespace AscendC
