// The emulator's launch scheduler and hardware cross-core flags (emu_sched.h, emu_cross.h).
#include <algorithm>

#include "emu_sched.h"

namespace ascemu {

const char* kernel_type_name(KernelMetaType type) {
  static const char* const kNames[] = {"KERNEL_TYPE_AIV_ONLY",    "KERNEL_TYPE_AIC_ONLY",
                                       "KERNEL_TYPE_MIX_AIV_1_0", "KERNEL_TYPE_MIX_AIC_1_0",
                                       "KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2",
                                       "KERNEL_TYPE_AICORE",      "KERNEL_TYPE_VECTORCORE",
                                       "KERNEL_TYPE_MIX_AICORE",  "KERNEL_TYPE_MIX_VECTOR_CORE"};
  const auto i = static_cast<size_t>(type);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "(not a kernel type)";
}

bool is_mixed(KernelMetaType type) {
  return type == KERNEL_TYPE_MIX_AIV_1_0 || type == KERNEL_TYPE_MIX_AIC_1_0 ||
         type == KERNEL_TYPE_MIX_AIC_1_1 || type == KERNEL_TYPE_MIX_AIC_1_2;
}

namespace {
// Thrown into a waiting core when the launch stops (an error in another core, a deadlock): it
// unwinds the core's kernel frames and is caught at the bottom of the core's thread.
struct Aborted {};
constexpr int kCaller = -1;  // the baton's holder when no core runs
}  // namespace

Cross::Cross(Launch& launch) : launch_(launch), dcaches_(launch.cores()) {
  const int n = launch.cores();
  for (int i = 0; i < n; ++i) {
    slots_.push_back(std::make_unique<Slot>());
    const Core& c = launch.core(i);
    who_.push_back(std::string(c.aic() ? "AIC " : "AIV ") + std::to_string(c.block_idx()));
    const auto g = static_cast<size_t>(c.group());
    if (c.aic()) {
      all_aic_.push_back(i);
      if (aic_of_.size() <= g) aic_of_.resize(g + 1, -1);
      aic_of_[g] = i;
    } else {
      all_aiv_.push_back(i);
      if (aivs_of_.size() <= g) aivs_of_.resize(g + 1);
      aivs_of_[g].push_back(i);
    }
  }
}

Cross::Sync& Cross::sync_of(const Core& c, int mode, int flag, size_t& part) {
  const int g = c.group();
  int scope = 0;  // mode 0: the core type; 1: the AI Core; 2: the AI Core and the direction
  if (mode == 0) scope = c.aic() ? 0 : 1;
  if (mode == 1) scope = g;
  if (mode == 2) scope = 2 * g + (c.aic() ? 0 : 1);
  auto [it, fresh] = syncs_.try_emplace(std::make_tuple(mode, scope, flag));
  Sync& s = it->second;
  if (fresh) {
    s.mode = mode;
    s.flag = flag;
    const auto gi = static_cast<size_t>(g);
    if (mode == 0) s.parts = s.targets = c.aic() ? all_aic_ : all_aiv_;
    if (mode == 1) s.parts = s.targets = aivs_of_[gi];
    if (mode == 2 && c.aic()) s.parts = {aic_of_[gi]}, s.targets = aivs_of_[gi];
    if (mode == 2 && !c.aic()) s.parts = aivs_of_[gi], s.targets = {aic_of_[gi]};
    s.sets.resize(s.parts.size());
  }
  part =
      static_cast<size_t>(std::find(s.parts.begin(), s.parts.end(), c.index()) - s.parts.begin());
  return s;
}

bool Cross::unfinished(const Sync& s, int core) {
  for (size_t p = 0; p < s.parts.size(); ++p)
    if (s.parts[p] == core && !s.sets[p].empty()) return true;  // its set has not completed
  for (const Count& k : counter(core, s.flag))
    if (k.from == &s) return true;  // a count it has not waited for
  return false;
}

void Cross::set(Core& c, int mode, int pipe, int flag, const char* name) {
  // The docs: on one core, a flag id changes mode only once every set and wait of the mode it
  // was used in has run.
  for (const auto& [key, other] : syncs_)
    if (other.flag == flag && other.mode != mode && unfinished(other, c.index()))
      fail(name, "flag " + std::to_string(flag) + " of " + who(c.index()) +
                     " is still in use in mode " + std::to_string(other.mode) +
                     " (sets or waits of it have not run); a flag id changes mode on a core "
                     "only once the synchronisations of its old mode are over");
  size_t part;
  Sync& s = sync_of(c, mode, flag, part);  // map nodes stay put: the pointer outlives the call
  Sync* sp = &s;
  c.issue_signal(pipe, name, [this, sp, part, name](const Clock& clk) {
    sp->sets[part].push_back(clk);
    deliver(*sp, name);
  });
}

void Cross::deliver(Sync& s, const char* name) {
  for (;;) {
    for (const auto& q : s.sets)
      if (q.empty()) return;
    Clock j(static_cast<size_t>(launch_.agents()), 0);
    for (auto& q : s.sets) {
      for (size_t i = 0; i < j.size(); ++i) j[i] = std::max(j[i], q.front()[i]);
      q.pop_front();
    }
    for (int t : s.targets) {
      auto& q = counter(t, s.flag);
      check(static_cast<int>(q.size()) < kCrossCount, name,
            "flag " + std::to_string(s.flag) + " of " + who(t) + " would count " +
                std::to_string(q.size() + 1) +
                " sets that no CrossCoreWaitFlag has taken (a flag's counter holds 0..15)");
      q.push_back(Count{j, &s});
      const Slot& sl = *slots_[static_cast<size_t>(t)];
      if (sl.st == St::kBlocked && sl.flag == s.flag) ready_.insert(t);
    }
  }
}

void Cross::wait(Core& c, int flag, const char* name) {
  const uint32_t seq = c.scalar_call();
  const int i = c.index();
  if (counter(i, flag).empty()) {
    // A wait reached while this core unwinds from an error: the launch is failing, do not block.
    if (std::uncaught_exceptions() > 0) return;
    Slot& sl = *slots_[static_cast<size_t>(i)];
    sl.flag = flag;
    sl.what = std::string(name) + " for flag " + std::to_string(flag) + " (call #" +
              std::to_string(seq) + ")";
    block(i);  // back with a count on the flag, or throws Aborted
    sl.flag = -1;
  }
  auto& q = counter(i, flag);
  const Clock got = std::move(q.front().clock);
  q.pop_front();
  c.join_all(got, name, seq);
}

bool Cross::poll(Core& c, const std::string& what, std::function<bool()> until) {
  if (until()) return true;
  if (std::uncaught_exceptions() > 0) return false;
  const int i = c.index();
  Slot& sl = *slots_[static_cast<size_t>(i)];
  sl.until = std::move(until);
  sl.what = what;
  polling_.insert(i);
  block(i);  // back once `until` holds, or throws Aborted
  sl.until = nullptr;
  return true;
}

// The next core to run: the lowest blocked core whose wait is over, else the next core not yet
// started; -1 when there is none.
int Cross::pick() {
  int best = ready_.empty() ? -1 : *ready_.begin();
  for (int i : polling_) {
    if (best >= 0 && i > best) break;
    if (slots_[static_cast<size_t>(i)]->until()) {
      best = i;
      break;
    }
  }
  if (best >= 0) {
    ready_.erase(best);
    polling_.erase(best);
    return best;
  }
  return next_idle_ < launch_.cores() ? next_idle_++ : -1;
}

// A core's thread gives the baton back to the caller and sleeps until it is handed back.
void Cross::block(int i) {
  Slot& sl = *slots_[static_cast<size_t>(i)];
  std::unique_lock<std::mutex> lk(mu_);
  sl.st = St::kBlocked;
  ++blocked_;
  turn_ = kCaller;
  caller_cv_.notify_one();
  sl.cv.wait(lk, [&] { return turn_ == i; });
  lk.unlock();
  if (abort_) throw Aborted{};
}

// The caller hands the baton to core i (starting its thread the first time) and sleeps until the
// core blocks or ends.
void Cross::resume(int i) {
  Slot& sl = *slots_[static_cast<size_t>(i)];
  std::unique_lock<std::mutex> lk(mu_);
  const St was = sl.st;
  if (was == St::kBlocked) --blocked_;
  // Everything the core reads is written before it holds the baton (a new thread starts
  // running at once, without the mutex).
  sl.st = St::kRunning;
  turn_ = i;
  if (was == St::kIdle) {
    try {
      sl.th = std::thread(&Cross::core_thread, this, i);
    } catch (...) {
      sl.st = St::kDone;
      turn_ = kCaller;
      throw;
    }
  } else {
    sl.cv.notify_one();
  }
  caller_cv_.wait(lk, [&] { return turn_ == kCaller; });
}

void Cross::core_thread(int i) {
  Core& c = launch_.core(i);
  set_current(&c);
  try {
    (*body_)();
    c.finish();
  } catch (const Aborted&) {
  } catch (...) {
    stop(std::current_exception());
  }
  set_current(nullptr);
  std::lock_guard<std::mutex> lk(mu_);
  slots_[static_cast<size_t>(i)]->st = St::kDone;
  turn_ = kCaller;
  caller_cv_.notify_one();
}

void Cross::stop(std::exception_ptr e) {
  if (!error_) error_ = e;
  abort_ = true;
}

Result Cross::run(const std::function<void()>& body) {
  body_ = &body;
  const int n = launch_.cores();
  try {
    while (!abort_) {
      const int next = pick();
      if (next < 0) break;
      resume(next);
      Slot& sl = *slots_[static_cast<size_t>(next)];
      if (sl.st == St::kDone && sl.th.joinable()) sl.th.join();
    }
    if (!abort_ && blocked_ > 0) stop(std::make_exception_ptr(Error(deadlock_text())));
  } catch (...) {
    stop(std::current_exception());
  }
  // The cores still waiting unwind (each throws Aborted from its wait); no thread outlives run.
  for (int i = 0; i < n; ++i) {
    Slot& sl = *slots_[static_cast<size_t>(i)];
    while (sl.st == St::kBlocked) resume(i);
    if (sl.th.joinable()) sl.th.join();
  }
  if (error_) std::rethrow_exception(error_);
  // Sets that no wait took: the docs call unpaired flags undefined. A launch with races returns
  // them instead (a missing wait leaves its set behind and is the race the caller looks for).
  const std::string left = leftovers();
  if (!left.empty() && launch_.result().races.empty())
    throw Error("cross-core flags: at the end of kernel " + launch_.options().kernel + ", " + left +
                " (each CrossCoreSetFlag needs one CrossCoreWaitFlag on every core it releases)");
  return launch_.result();
}

std::string Cross::pending_sets() const {
  std::string s;
  for (const auto& [key, sync] : syncs_) {
    std::string by, not_by;
    for (size_t p = 0; p < sync.parts.size(); ++p) {
      std::string& list = sync.sets[p].empty() ? not_by : by;
      list += (list.empty() ? "" : ", ") + who(sync.parts[p]);
    }
    if (by.empty()) continue;
    s += "; mode " + std::to_string(sync.mode) + " flag " + std::to_string(sync.flag) +
         " is set by " + by + " but not yet by " + not_by;
  }
  return s;
}

std::string Cross::deadlock_text() const {
  std::string s = "deadlock in kernel " + launch_.options().kernel +
                  ": every core that has not ended waits, and none is left to release it:";
  bool first = true;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& sl = *slots_[i];
    if (sl.st != St::kBlocked) continue;
    s += std::string(first ? " " : ", ") + who(static_cast<int>(i)) + " waits at " + sl.what;
    first = false;
  }
  return s + pending_sets();
}

std::string Cross::leftovers() const {
  std::string s;
  for (const auto& [k, q] : counters_)
    if (!q.empty())
      s += (s.empty() ? "" : ", ") + std::string("flag ") + std::to_string(k % kCrossFlags) +
           " of " + who(k / kCrossFlags) + " holds " + std::to_string(q.size()) +
           " count(s) that no CrossCoreWaitFlag took";
  const std::string p = pending_sets();
  if (!p.empty()) s += s.empty() ? p.substr(2) : p;
  return s;
}

Result run_launch(Launch& launch, const std::function<void()>& body) {
  Cross cross(launch);
  launch.set_cross(&cross);
  struct Unset {
    Launch& l;
    ~Unset() { l.set_cross(nullptr); }
  } unset{launch};
  return cross.run(body);
}

// ---- the API calls ----
namespace {
std::string pipe_text(pipe_t p) {
  const int i = pipe_index(p);
  return std::string("PIPE_") + (i >= 0 ? pipe_name(i) : "ALL");
}
bool core_has_pipe(bool aic, int pipe) {
  if (pipe == kS || pipe == kMTE2 || pipe == kMTE3) return true;
  return aic ? pipe == kM || pipe == kMTE1 || pipe == kFIX : pipe == kV;
}
std::string no_scheduler(KernelMetaType t) {
  return std::string("a ") + kernel_type_name(t) +
         " launch runs without the scheduler that cross-core flags need: launch a vector-only "
         "kernel as KERNEL_TYPE_MIX_AIV_1_0 (__mix__(0, 1)), a cube-only one as "
         "KERNEL_TYPE_MIX_AIC_1_0 (__mix__(1, 0))";
}
// Checks what set and wait share; returns the launch's cross-core state.
Cross& cross_checks(Core& c, const std::string& call, int mode, uint16_t flag) {
  Cross* x = c.launch().cross();
  check(is_mixed(c.launch().type()), call.c_str(), no_scheduler(c.launch().type()));
  check(mode == 0 || mode == 1 || mode == 2, call.c_str(),
        "mode " + std::to_string(mode) + " is not on the Atlas A2 (it has modes 0, 1 and 2)");
  check(flag < kCrossFlags, call.c_str(),
        "flag id " + std::to_string(flag) + " outside 0..15 (the hardware would take its low 4 " +
            "bits, flag " + std::to_string(flag % kCrossFlags) + ")");
  return *x;
}
}  // namespace

void cross_set(int mode, pipe_t pipe, uint16_t flag) {
  Core& c = current();
  const std::string call = "CrossCoreSetFlag<" + std::to_string(mode) + ", " + pipe_text(pipe) +
                           ">(" + std::to_string(flag) + ")";
  Cross& x = cross_checks(c, call, mode, flag);
  const KernelMetaType t = c.launch().type();
  check(mode == 0 || t == KERNEL_TYPE_MIX_AIC_1_1 || t == KERNEL_TYPE_MIX_AIC_1_2, call.c_str(),
        "mode " + std::to_string(mode) +
            " synchronises the cores of an AI Core: it needs a KERNEL_TYPE_MIX_AIC_1_1 or _1_2 "
            "launch, not " +
            kernel_type_name(t));
  check(mode != 1 || !c.aic(), call.c_str(),
        "mode 1 synchronises the AIVs of an AI Core; its AIC takes no part");
  const int p = pipe_index(pipe);
  check(p >= 0 && p != kS, call.c_str(),
        pipe_text(pipe) +
            " is not a pipe of a set (PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX)");
  check(core_has_pipe(c.aic(), p), call.c_str(),
        std::string(c.aic() ? "an AIC (cube core)" : "an AIV (vector core)") + " has no " +
            pipe_name(p) + " pipe");
  x.set(c, mode, p, flag, x.intern(call));
}

void cross_wait(int mode, pipe_t pipe, uint16_t flag) {
  Core& c = current();
  std::string call = "CrossCoreWaitFlag";
  if (mode != 0 || pipe != PIPE_S)
    call.append("<").append(std::to_string(mode)).append(", ").append(pipe_text(pipe)).append(">");
  call.append("(").append(std::to_string(flag)).append(")");
  Cross& x = cross_checks(c, call, mode, flag);
  check(pipe_index(pipe) >= 0, call.c_str(), "PIPE_ALL is not a pipe of a wait");
  x.wait(c, flag, x.intern(call));
}

void sync_all(bool aiv_only) {
  Core& c = current();
  const char* call = aiv_only ? "SyncAll<true>" : "SyncAll<false>";
  const KernelMetaType t = c.launch().type();
  Cross* x = c.launch().cross();
  check(is_mixed(t), call, no_scheduler(t));
  check(aiv_only || t == KERNEL_TYPE_MIX_AIC_1_1 || t == KERNEL_TYPE_MIX_AIC_1_2, call,
        std::string("SyncAll<false> synchronises the AICs and AIVs of a mixed kernel; a ") +
            kernel_type_name(t) + " kernel takes SyncAll<true> (the hardware would hang)");
  c.barrier(-1);  // every earlier instruction of the core completes first
  if (aiv_only) {
    x->set(c, 0, kMTE3, 14, call);
    x->wait(c, 14, call);
  } else if (c.aic()) {
    x->wait(c, 12, call);  // the AI Core's AIVs arrived
    x->set(c, 0, kFIX, 11, call);
    x->wait(c, 11, call);  // every AIC arrived
    x->set(c, 2, kMTE3, 13, call);
  } else {
    x->set(c, 2, kMTE3, 12, call);
    x->wait(c, 13, call);  // the AIC saw every AI Core arrive
  }
}

}  // namespace ascemu

namespace AscendC {
int64_t GetTaskRatio() {
  return ascemu::current().task_ration();
}
int64_t GetSubBlockNum() {
  return ascemu::current().task_ration();
}
}  // namespace AscendC
