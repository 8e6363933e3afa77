// The emulator's soft cross-core synchronisation: SyncAll with a workspace, IBSet and IBWait
// (emu_cross.h). On the hardware they write and poll GM words; here a core that must wait gives
// the baton away until the words hold what it waits for (emu_sched.h, Cross::poll). A core that
// writes a word releases its clock to it (after PipeBarrier<PIPE_ALL>, so the clock covers every
// earlier instruction of the core); a core that sees the value it waited for acquires it.
#include <algorithm>

#include "emu_sched.h"

namespace ascemu {

namespace {

// The host address of int32 `index` of a GM workspace, checked inside it and its GmAlloc block.
int32_t* gm_word(const char* call, const AscendC::GlobalTensor<int32_t>& gm, uint64_t index) {
  check(index < gm.GetSize(), call,
        "the workspace slot at int32 " + std::to_string(index) + " is past a gmWorkspace of " +
            std::to_string(gm.GetSize()) + " int32");
  check_gm(call, gm.GetPhyAddr(index), 32);
  return gm.GetPhyAddr(index);
}

// The host address of a UB workspace of at least `ints` int32, checked.
int32_t* ub_words(const char* call, Core& c, const AscendC::LocalTensor<int32_t>& ub,
                  uint64_t ints) {
  check(ub.HostMem() == Mem::kUB, call,
        std::string("ubWorkspace in ") + mem_name(ub.HostMem()) + ", not UB");
  check(ub.HostOffset() % 32 == 0, call,
        "UB address " + std::to_string(ub.HostOffset()) + " is not 32-byte aligned");
  check(ints <= ub.GetSize(), call,
        "a ubWorkspace of " + std::to_string(ub.GetSize()) + " int32, not the " +
            std::to_string(ints) + " it needs");
  return reinterpret_cast<int32_t*>(c.base(Mem::kUB) + ub.HostOffset());
}

void acquire(Core& c, const Clock& got, const char* call, uint32_t seq) {
  if (!got.empty()) c.join_all(got, call, seq);
}

}  // namespace

void soft_sync_all(bool aiv_only, const AscendC::GlobalTensor<int32_t>& gm,
                   const AscendC::LocalTensor<int32_t>& ub, int32_t used_cores) {
  Core& c = current();
  if (c.aic()) return;  // the hardware's AICs return at once
  const char* call = aiv_only ? "SyncAll<true>(gmWorkspace, ubWorkspace)"
                              : "SyncAll<false>(gmWorkspace, ubWorkspace)";
  const int64_t blocks = c.block_num(), ration = c.task_ration();
  check(!aiv_only || ration == 1, call,
        "with isAIVOnly = true both AIVs of an AI Core take the AI Core's workspace slot; a "
        "KERNEL_TYPE_MIX_AIC_1_2 kernel takes SyncAll<false>");
  check(used_cores >= 0 && used_cores <= blocks * ration, call,
        "usedCores " + std::to_string(used_cores) + " outside 0.." +
            std::to_string(blocks * ration) + " (the launch's AIVs)");
  const int64_t total = used_cores ? used_cores : blocks * ration;
  const int64_t me = c.block_idx();
  const uint64_t slots = static_cast<uint64_t>(std::max(total, me + 1));
  int32_t* mine = gm_word(call, gm, static_cast<uint64_t>(me) * 8);
  gm_word(call, gm, (slots - 1) * 8);
  int32_t* scratch = ub_words(call, c, ub, slots * 8);
  Cross& x = *c.launch().cross();
  c.barrier(-1);  // every earlier instruction of the core completes first
  const uint32_t seq = c.scalar_call();

  // Arrive: the slot counts this core's SyncAll calls.
  std::vector<Clock>& arrivals = x.gm_word(reinterpret_cast<uint64_t>(mine));
  check(*mine == static_cast<int32_t>(arrivals.size()), call,
        "gmWorkspace slot " + std::to_string(me) + " holds " + std::to_string(*mine) +
            " where this launch's SyncAll calls left " + std::to_string(arrivals.size()) +
            " (zero gmWorkspace before the launch and leave it to SyncAll)");
  const int32_t cur = *mine + 1;
  *mine = cur;
  scratch[me * 8] = cur;
  arrivals.push_back(c.release_clock(kS));

  // Poll: the first `total` slots have counted as many arrivals.
  const int32_t* base = gm.GetPhyAddr();
  auto all_in = [base, total, cur] {
    for (int64_t i = 0; i < total; ++i)
      if (base[i * 8] < cur) return false;
    return true;
  };
  const std::string what = std::string(call) + " for the first " + std::to_string(total) +
                           " AIVs to arrive " + std::to_string(cur) + " time(s) (call #" +
                           std::to_string(seq) + ")";
  if (!x.poll(c, what, all_in)) return;
  for (int64_t i = 0; i < total; ++i) {
    scratch[i * 8] = base[i * 8];
    const std::vector<Clock>& in = x.gm_word(reinterpret_cast<uint64_t>(base + i * 8));
    if (static_cast<size_t>(cur) <= in.size())
      acquire(c, in[static_cast<size_t>(cur - 1)], call, seq);
  }
}

void ib_sync(bool set, bool aiv_only, const AscendC::GlobalTensor<int32_t>& gm,
             const AscendC::LocalTensor<int32_t>& ub, int32_t block_idx, int32_t event) {
  Core& c = current();
  if (c.aic()) return;  // the hardware's AICs return at once
  const char* call = set ? "IBSet" : "IBWait";
  // The workspace has a row of 32-byte slots per event, one slot per core.
  const int64_t cores = aiv_only ? c.block_num() : c.block_num() * 2;
  check(block_idx >= 0 && block_idx < cores, call,
        "blockIdx " + std::to_string(block_idx) + " outside 0.." + std::to_string(cores - 1));
  check(event >= 0, call, "negative eventID " + std::to_string(event));
  int32_t* word = gm_word(call, gm, static_cast<uint64_t>(cores * 8 * event + block_idx * 8));
  int32_t* scratch = ub_words(call, c, ub, 8);
  Cross& x = *c.launch().cross();
  c.barrier(-1);
  const uint32_t seq = c.scalar_call();
  const int32_t want = set ? 0 : 1;  // IBSet waits for an empty slot, IBWait for a full one
  const std::string what = std::string(call) + "(blockIdx " + std::to_string(block_idx) +
                           ", eventID " + std::to_string(event) + ") for its GM word to hold " +
                           std::to_string(want) + " (call #" + std::to_string(seq) + ")";
  if (!x.poll(c, what, [word, want] { return *word == want; })) return;
  std::vector<Clock>& last = x.gm_word(reinterpret_cast<uint64_t>(word));
  if (!last.empty()) acquire(c, last.back(), call, seq);  // what the word's last writer did
  *word = 1 - want;
  *scratch = 1 - want;
  last.assign(1, c.release_clock(kS));
  c.barrier(-1);
}

}  // namespace ascemu
