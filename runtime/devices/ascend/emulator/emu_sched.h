// The emulator's launch scheduler and cross-core flags (internal: emu_cross.cpp, emu_soft.cpp).
// Every core of a launch runs on a thread of its own; a baton passed between the caller and the
// cores lets exactly one run at a time, so every run of a kernel is the same. A core gives the
// baton back when it ends or when it must wait for another core: for a count on one of its
// hardware flags (CrossCoreWaitFlag), or for a condition on GM (the soft synchronisation calls,
// which poll GM on the hardware). All state below is read and written only by the baton's holder.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "emu_cross.h"
#include "emu_dcache.h"

namespace ascemu {

class Cross {
 public:
  explicit Cross(Launch& launch);
  // Runs body on every core (emu_cross.h, run_launch); rethrows the first error of any core.
  Result run(const std::function<void()>& body);
  // A hardware flag set, queued on `pipe` of core c (mode, flag checked by the caller).
  void set(Core& c, int mode, int pipe, int flag, const char* name);
  // Takes one count of c's flag, the core giving the baton away until there is one; every
  // instruction c issues afterwards is ordered after the sets that made the count.
  void wait(Core& c, int flag, const char* name);
  // The core gives the baton away until `until` holds (checked whenever the scheduler picks the
  // next core); `what` names the wait in a deadlock report. Returns false, without waiting, when
  // the core is unwinding from an error.
  bool poll(Core& c, const std::string& what, std::function<bool()> until);
  const char* intern(const std::string& s) { return names_.insert(s).first->c_str(); }
  // The release clocks of a soft synchronisation's GM word (emu_soft.cpp), by its host address.
  std::vector<Clock>& gm_word(uint64_t addr) { return gm_words_[addr]; }
  DataCaches& dcaches() { return dcaches_; }
  const std::string& who(int core) const { return who_[static_cast<size_t>(core)]; }

 private:
  // One synchronisation of a mode and flag: when each participant has a set pending, one set of
  // each completes and every target counts one more, with the join of those sets' clocks.
  struct Sync {
    int mode = 0, flag = 0;
    std::vector<int> parts, targets;      // core indices
    std::vector<std::deque<Clock>> sets;  // per participant, its sets not yet complete
  };
  // One count of a flag: the clock it carries and the synchronisation that made it.
  struct Count {
    Clock clock;
    const Sync* from;
  };
  enum class St : uint8_t { kIdle, kRunning, kBlocked, kDone };
  struct Slot {
    St st = St::kIdle;
    std::thread th;
    std::condition_variable cv;
    int flag = -1;                // a flag wait's flag
    std::function<bool()> until;  // a poll's condition
    std::string what;             // the wait, for a deadlock report
  };
  Sync& sync_of(const Core& c, int mode, int flag, size_t& part);
  void deliver(Sync& s, const char* name);
  // Whether core's part in a synchronisation is not over: its set has not completed (others
  // have not set yet), or the core has not waited for a count it made.
  bool unfinished(const Sync& s, int core);
  std::deque<Count>& counter(int core, int flag) { return counters_[core * kCrossFlags + flag]; }
  int pick();
  void core_thread(int i);
  void block(int i);
  void resume(int i);
  void stop(std::exception_ptr e);
  std::string pending_sets() const;
  std::string deadlock_text() const;
  std::string leftovers() const;

  Launch& launch_;
  const std::function<void()>* body_ = nullptr;
  std::vector<int> aic_of_;                // AI Core -> its AIC's core index
  std::vector<std::vector<int>> aivs_of_;  // AI Core -> its AIVs' core indices
  std::vector<int> all_aic_, all_aiv_;
  std::vector<std::string> who_;               // core index -> "AIC 0", "AIV 3" (block indices)
  std::map<int, std::deque<Count>> counters_;  // core * 16 + flag, made when first used
  std::map<std::tuple<int, int, int>, Sync> syncs_;  // (mode, scope, flag)
  std::set<std::string> names_;
  std::map<uint64_t, std::vector<Clock>> gm_words_;
  DataCaches dcaches_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::set<int> ready_;    // cores blocked at a flag that now has a count
  std::set<int> polling_;  // cores blocked in poll
  int next_idle_ = 0, blocked_ = 0;
  bool abort_ = false;
  std::exception_ptr error_;
  std::mutex mu_;  // hands the baton over: turn_ and the condition variables
  std::condition_variable caller_cv_;
  int turn_ = -1;  // the core holding the baton, -1 for the caller
};

}  // namespace ascemu
