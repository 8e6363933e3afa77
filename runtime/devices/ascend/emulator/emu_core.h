// The emulator's machine (include kernel_operator.h): one launch of a kernel over AI cores, each
// with its local memories and seven pipes. A call on a tensor becomes an instruction queued on its
// pipe (MTE2 GM->UB/L1, MTE1 L1->L0A/L0B, M Mmad, V vector, MTE3 UB->GM, FIX L0C->GM/L1,
// S scalar); a pipe runs its instructions in order and stops at a WaitFlag until the matching
// SetFlag has run. Every access to local memory and GM is checked against the happens-before
// order that queues, flags and barriers give (vector clocks per pipe): a conflicting access that
// they do not order is a race, reported with both calls. docs/ASCENDC.md, "The emulator".
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "emu_base.h"
#include "emu_vec_regs.h"

namespace ascemu {

enum class Mem : uint8_t { kGM, kUB, kL1, kL0A, kL0B, kL0C, kBT, kFB, kCount };
const char* mem_name(Mem m);
// The Atlas A2 capacities (bytes) of one core's local memories; 0 where the core has none.
uint32_t mem_capacity(Mem m, bool aic);

enum Pipe : uint8_t { kS, kV, kM, kMTE1, kMTE2, kMTE3, kFIX, kPipes };
const char* pipe_name(int pipe);
int pipe_index(pipe_t p);  // -1 for PIPE_ALL
// The pipes of a HardEvent (src, dst).
void event_pipes(AscendC::HardEvent e, int& src, int& dst);
const char* event_name(AscendC::HardEvent e);

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Refuses what the hardware or the API refuses: "<call>: <detail>".
[[noreturn]] void fail(const char* call, const std::string& detail);
inline void check(bool ok, const char* call, const std::string& detail) {
  if (!ok) fail(call, detail);
}

struct Options {
  std::string kernel = "kernel";  // named in every message
  // Model bisheng's --cce-auto-sync on the vector cores (S<->V, S<->MTE2, S<->MTE3, V->V are
  // synchronised by the compiler); off, every dependency needs the program's own sync.
  bool cce_auto_sync = false;
  bool stop_at_first_race = true;  // else collect every race in Result::races
  // Mutation testing (docs/ASCENDC.md, "Mutation test"): the synchronisation calls made from line
  // `drop_line` of file `drop_file` (__builtin_FILE's spelling) are left out: SetFlag/WaitFlag,
  // PipeBarrier, TQueSync, the cross-core flags and a queue's EnQue/DeQue ordering (the queue
  // still hands its buffers over). Null: nothing is left out.
  const char* drop_file = nullptr;
  int drop_line = 0;
  // When set, receives the (file, line) of every synchronisation call the launch makes.
  std::set<std::pair<std::string, int>>* sync_sites = nullptr;
};
struct Result {
  std::vector<std::string> races;
  uint64_t instructions = 0;
};

// A byte range one instruction touches: GM by host address, local memory by offset.
struct Access {
  Mem mem;
  uint64_t begin, end;
  bool write;
};

using Clock = std::vector<uint32_t>;  // one entry per agent (core * kPipes + pipe)

// A FIFO of released clocks: a hardware flag (src, dst, id) or a queue buffer's handoff.
struct Token {
  std::deque<Clock> q;
};

class Launch;
class Cross;  // a mixed launch's cross-core flags and scheduler (emu_cross.cpp)

class Core {
 public:
  Core(Launch& launch, int index, bool aic, int64_t block_idx, int64_t block_num);
  bool aic() const { return aic_; }
  Launch& launch() { return launch_; }
  int index() const { return index_; }  // in the launch: AICs first, then AIVs
  int64_t block_idx() const { return block_idx_; }
  int64_t block_num() const { return block_num_; }
  // The core's place in a mixed launch: its AI Core (group), its index among that group's cores
  // of its type (AIV: 0..ration-1; AIC: 0) and the ratio of its type's cores to AI Cores.
  int group() const { return group_; }
  int64_t sub_block_idx() const { return sub_block_; }
  int64_t task_ration() const { return ration_; }
  void set_split(int group, int64_t sub_block, int64_t ration) {
    group_ = group;
    sub_block_ = sub_block;
    ration_ = ration;
  }
  uint8_t* base(Mem m);
  uint32_t capacity(Mem m) const { return mem_capacity(m, aic_); }
  // The memory of a pointer into this core's local memories (kCount if none).
  Mem mem_of(const void* p, uint64_t& offset) const;

  // Queue an instruction on a pipe; fn runs when the pipe reaches it, after its accesses are
  // checked. The scalar pipe runs it at once.
  void issue(int pipe, const char* name, std::vector<Access> acc, std::function<void()> fn);
  void issue_set(int pipe, Token* t, const char* name);   // release pipe's clock into t
  void issue_wait(int pipe, Token* t, const char* name);  // pipe waits for t's oldest clock
  // A cross-core set: queued on a pipe like SetFlag; when the pipe runs it, fn gets the pipe's
  // release clock (what every earlier instruction of the pipe knows, and the pipe itself).
  void issue_signal(int pipe, const char* name, std::function<void(const Clock&)> fn);
  // What the pipe knows has completed, its own instructions included: after barrier(-1), the
  // scalar unit's clock covers every earlier instruction of the core.
  Clock release_clock(int pipe) const {
    Clock c = vc_[pipe];
    c[static_cast<size_t>(agent(pipe))] = clock_[pipe];
    return c;
  }
  // A call that the scalar unit runs without an instruction (CrossCoreWaitFlag): its number.
  uint32_t scalar_call() { return ++seq_; }
  // The scalar unit stops issuing until c's releases completed: every instruction issued from
  // now on, on any pipe, is ordered after c. A pipe still holding earlier instructions takes c
  // after them (those are ordered only by whatever releases them).
  void join_all(const Clock& c, const char* name, uint32_t seq);
  Token& flag(int src, int dst, int id);
  void barrier(int pipe);  // PipeBarrier<pipe>; -1 = PIPE_ALL (the scalar unit waits too)
  void finish();           // end of the kernel: every pipe runs dry, or a deadlock is reported

  // Local buffers named for race reports (TQue/TBuf regions given by TPipe::InitBuffer).
  void name_region(Mem m, uint64_t begin, uint64_t end, std::string label);
  std::string describe(Mem m, uint64_t begin, uint64_t end) const;
  void reset_memories();  // a new TPipe
  VecRegs vec;            // the vector unit's mask and compare-mask registers
  // UB bytes [0, ub_end) the current TPipe has handed out (0 without one): the advanced APIs
  // without a sharedTmpBuffer take their temporary space from [ub_end, UB capacity).
  uint64_t ub_end = 0;

 private:
  struct Instr {
    enum Kind : uint8_t { kOp, kSet, kWait, kBarrier, kSignal, kJoin } kind;
    const char* name;
    uint32_t seq;
    std::vector<Access> acc;
    std::function<void()> fn;
    Token* token = nullptr;
    std::function<void(const Clock&)> signal = {};  // kSignal
    Clock clock = {};                               // kJoin: merged into the pipe's clock
  };
  bool step(int pipe);  // run the head of a pipe; false if empty or waiting
  void pump();          // run every pipe until each is empty or waiting
  void execute(int pipe, Instr& in);
  void wait_scalar(Token* t, const char* name);
  int agent(int pipe) const { return index_ * kPipes + pipe; }

  Launch& launch_;
  int index_;
  bool aic_;
  int64_t block_idx_, block_num_;
  int group_ = 0;
  int64_t sub_block_ = 0, ration_ = 1;
  std::unique_ptr<uint8_t[]> mem_[static_cast<int>(Mem::kCount)];
  std::deque<Instr> q_[kPipes];
  Clock vc_[kPipes];        // what each pipe knows has completed
  uint32_t clock_[kPipes];  // instructions each pipe has run
  uint32_t seq_ = 0;        // calls issued, for messages
  std::map<int, Token> flags_;
  struct Region {
    Mem mem;
    uint64_t begin, end;
    std::string label;
  };
  std::vector<Region> regions_;
  friend class Launch;
};

// One kernel launch: its cores, the race shadow of every memory, and GM allocations.
class Launch {
 public:
  Launch(Options opt, KernelMetaType type, int aic, int aiv);
  KernelMetaType type() const { return type_; }
  Core& core(int i) { return *cores_[static_cast<size_t>(i)]; }
  int cores() const { return static_cast<int>(cores_.size()); }
  int agents() const { return agents_; }
  const Options& options() const { return opt_; }
  Result& result() { return result_; }
  // The launch's scheduler and cross-core flags (emu_sched.h), while it runs.
  Cross* cross() const { return cross_; }
  void set_cross(Cross* c) { cross_ = c; }
  // Check one access of agent `who` (its pipe's clock vc, instruction clock c) and record it.
  void access(Core& core, int pipe, const Access& a, const Clock& vc, uint32_t c, const char* name,
              uint32_t seq);
  void report_race(const std::string& msg);

 private:
  struct Epoch {
    int agent = -1;
    uint32_t clock = 0;
    const char* name = nullptr;
    uint32_t seq = 0;
  };
  struct Seg {
    uint64_t end;
    Epoch w;
    std::vector<Epoch> r;
  };
  using Shadow = std::map<uint64_t, Seg>;
  Shadow& shadow(int core, Mem m);
  bool ordered(const Epoch& prior, bool prior_write, int agent, bool write, const Clock& vc) const;
  std::string race_text(Core& core, const Access& a, int pipe, const char* name, uint32_t seq,
                        const Epoch& prior, bool prior_write) const;

  Options opt_;
  KernelMetaType type_;
  std::vector<std::unique_ptr<Core>> cores_;
  int agents_;
  Shadow gm_;
  std::vector<Shadow> local_;  // core * Mem::kCount + mem
  Result result_;
  Cross* cross_ = nullptr;
};

// The core the calling code runs on (set by the runner).
Core& current();
// A synchronisation call made from (file, line): recorded in Options::sync_sites; false when the
// launch's Options leave it out.
bool sync_kept(const char* file, int line);
void set_current(Core* c);

// GM as the kernel sees it: AscendC::GmAlloc'd blocks are bounds-checked by DMA calls.
struct GmBlock {
  uint64_t begin, end;
  int index;
};
const GmBlock* gm_block_of(const void* p);

// Runs kernel(args...) on the launch's cores: block_dim AIVs (vector-only, MIX_AIV_1_0), block_dim
// AICs (cube-only, MIX_AIC_1_0), or block_dim AI Cores of one AIC and two (MIX_AIC_1_2) or one
// (MIX_AIC_1_1) AIVs; each core's pipes run dry at its end. Each core runs on a thread of its own,
// one at a time, so that cores can wait for each other (emu_cross.h, run_launch). Throws Error on
// a refused call, a deadlock or, with stop_at_first_race, the first race.
Result run_cores(const Options& opt, KernelMetaType type, int64_t block_dim,
                 const std::function<void()>& body);

}  // namespace ascemu
