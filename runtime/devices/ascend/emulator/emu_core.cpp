// The emulator's machine: pipes, flags, the race checker and the runner (emu_core.h).
#include "emu_core.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

#include "emu_run.h"
#include "emu_sched.h"
#include "emu_tensor.h"

namespace ascemu {

uint16_t f32_to_f16(float f) {
  const uint32_t x = f32_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (ax < 0x38800000u) {                                               // subnormal or zero
    const float scaled = bits_f32(ax) * 16777216.0f;  // units of the smallest subnormal
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  const uint32_t mant = ax + 0xfffu + ((ax >> 13) & 1u);  // round to nearest even
  return static_cast<uint16_t>(sign | ((mant - 0x38000000u) >> 13));
}
float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = static_cast<float>(m) / 16777216.0f;
    return sign ? -v : v;
  }
  if (e == 31) return bits_f32(sign | 0x7f800000u | (m << 13));
  return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

const char* mem_name(Mem m) {
  static const char* const kNames[] = {"GM", "UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
  return kNames[static_cast<int>(m)];
}
uint32_t mem_capacity(Mem m, bool aic) {
  switch (m) {
    case Mem::kUB:
      return aic ? 0 : 196608;
    case Mem::kL1:
      return aic ? 524288 : 0;
    case Mem::kL0A:
    case Mem::kL0B:
      return aic ? 65536 : 0;
    case Mem::kL0C:
      return aic ? 131072 : 0;
    case Mem::kBT:
      return aic ? 1024 : 0;
    case Mem::kFB:
      return aic ? 7168 : 0;
    default:
      return 0;
  }
}

const char* pipe_name(int pipe) {
  static const char* const kNames[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
  return pipe >= 0 && pipe < kPipes ? kNames[pipe] : "ALL";
}
int pipe_index(pipe_t p) {
  switch (p) {
    case PIPE_S:
      return kS;
    case PIPE_V:
      return kV;
    case PIPE_M:
      return kM;
    case PIPE_MTE1:
      return kMTE1;
    case PIPE_MTE2:
      return kMTE2;
    case PIPE_MTE3:
      return kMTE3;
    case PIPE_FIX:
      return kFIX;
    default:
      return -1;
  }
}

namespace {
struct EventInfo {
  const char* name;
  int src, dst;
};
const EventInfo& event_info(AscendC::HardEvent e) {
  static const EventInfo kTable[] = {
      {"MTE2_MTE1", kMTE2, kMTE1},
      {"MTE1_MTE2", kMTE1, kMTE2},
      {"MTE1_M", kMTE1, kM},
      {"M_MTE1", kM, kMTE1},
      {"MTE2_V", kMTE2, kV},
      {"V_MTE2", kV, kMTE2},
      {"MTE3_V", kMTE3, kV},
      {"V_MTE3", kV, kMTE3},
      {"M_V", kM, kV},
      {"V_M", kV, kM},
      {"V_V", kV, kV},
      {"MTE3_MTE1", kMTE3, kMTE1},
      {"MTE1_MTE3", kMTE1, kMTE3},
      {"MTE1_V", kMTE1, kV},
      {"MTE2_M", kMTE2, kM},
      {"M_MTE2", kM, kMTE2},
      {"V_MTE1", kV, kMTE1},
      {"M_FIX", kM, kFIX},
      {"FIX_M", kFIX, kM},
      {"MTE3_MTE2", kMTE3, kMTE2},
      {"MTE2_MTE3", kMTE2, kMTE3},
      {"S_V", kS, kV},
      {"V_S", kV, kS},
      {"S_MTE2", kS, kMTE2},
      {"MTE2_S", kMTE2, kS},
      {"S_MTE3", kS, kMTE3},
      {"MTE3_S", kMTE3, kS},
      {"MTE2_FIX", kMTE2, kFIX},
      {"FIX_MTE2", kFIX, kMTE2},
      {"FIX_S", kFIX, kS},
      {"M_S", kM, kS},
      {"FIX_MTE3", kFIX, kMTE3},
      {"MTE1_FIX", kMTE1, kFIX},
      {"FIX_MTE1", kFIX, kMTE1},
      {"FIX_FIX", kFIX, kFIX},
  };
  const auto i = static_cast<size_t>(e);
  if (i >= sizeof kTable / sizeof kTable[0]) fail("SetFlag/WaitFlag", "not a HardEvent");
  return kTable[i];
}
}  // namespace

void event_pipes(AscendC::HardEvent e, int& src, int& dst) {
  const EventInfo& i = event_info(e);
  src = i.src;
  dst = i.dst;
}
const char* event_name(AscendC::HardEvent e) {
  return event_info(e).name;
}

void fail(const char* call, const std::string& detail) {
  throw Error(std::string(call) + ": " + detail);
}

// ---- the current core and GM blocks ----
namespace {
thread_local Core* g_current = nullptr;
std::mutex g_gm_mu;
std::map<uint64_t, GmBlock>& gm_blocks() {
  static std::map<uint64_t, GmBlock> m;
  return m;
}
}  // namespace

Core& current() {
  if (!g_current)
    fail("Ascend C call", "no kernel is running on this thread (launch it with ascemu::Run)");
  return *g_current;
}
bool sync_kept(const char* file, int line) {
  const Options& o = current().launch().options();
  if (o.sync_sites) {
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    o.sync_sites->emplace(file, line);
  }
  return !(o.drop_file && line == o.drop_line && std::strcmp(file, o.drop_file) == 0);
}
void set_current(Core* c) {
  g_current = c;
}

const GmBlock* gm_block_of(const void* p) {
  const auto a = reinterpret_cast<uint64_t>(p);
  std::lock_guard<std::mutex> lock(g_gm_mu);
  auto& m = gm_blocks();
  auto it = m.upper_bound(a);
  if (it == m.begin()) return nullptr;
  --it;
  return a < it->second.end ? &it->second : nullptr;
}

}  // namespace ascemu

namespace AscendC {
void* GmAlloc(size_t size) {
  static int next = 0;
  void* p = std::calloc(size ? size : 1, 1);
  if (!p) ascemu::fail("GmAlloc", "out of host memory");
  const auto a = reinterpret_cast<uint64_t>(p);
  std::lock_guard<std::mutex> lock(ascemu::g_gm_mu);
  ascemu::gm_blocks()[a] = ascemu::GmBlock{a, a + size, next++};
  return p;
}
void GmFree(void* p) {
  if (!p) return;
  {
    std::lock_guard<std::mutex> lock(ascemu::g_gm_mu);
    ascemu::gm_blocks().erase(reinterpret_cast<uint64_t>(p));
  }
  std::free(p);
}
}  // namespace AscendC

namespace ascemu {

// ---- Core ----
Core::Core(Launch& launch, int index, bool aic, int64_t block_idx, int64_t block_num)
    : launch_(launch), index_(index), aic_(aic), block_idx_(block_idx), block_num_(block_num) {
  for (int p = 0; p < kPipes; ++p) {
    vc_[p].assign(static_cast<size_t>(launch.agents()), 0);
    clock_[p] = 0;
  }
}

uint8_t* Core::base(Mem m) {
  auto& slot = mem_[static_cast<int>(m)];
  if (!slot) {
    const uint32_t cap = capacity(m);
    if (cap == 0)
      fail("local memory", std::string(aic_ ? "an AIC (cube core)" : "an AIV (vector core)") +
                               " has no " + mem_name(m));
    slot.reset(new uint8_t[cap]());
  }
  return slot.get();
}

Mem Core::mem_of(const void* p, uint64_t& offset) const {
  const auto* b = static_cast<const uint8_t*>(p);
  for (int m = 1; m < static_cast<int>(Mem::kCount); ++m) {
    const uint8_t* s = mem_[m].get();
    if (s && b >= s && b < s + capacity(static_cast<Mem>(m))) {
      offset = static_cast<uint64_t>(b - s);
      return static_cast<Mem>(m);
    }
  }
  return Mem::kCount;
}

void Core::reset_memories() {
  regions_.clear();
  ub_end = 0;
}

void Core::name_region(Mem m, uint64_t begin, uint64_t end, std::string label) {
  regions_.push_back(Region{m, begin, end, std::move(label)});
}

std::string Core::describe(Mem m, uint64_t begin, uint64_t end) const {
  std::string s = std::string(mem_name(m)) + " bytes [" + std::to_string(begin) + ", " +
                  std::to_string(end) + ")";
  for (const Region& r : regions_)
    if (r.mem == m && begin < r.end && r.begin < end) {
      s += " of " + r.label;
      break;
    }
  return s;
}

Token& Core::flag(int src, int dst, int id) {
  return flags_[(src * kPipes + dst) * 64 + id];
}

void Core::issue(int pipe, const char* name, std::vector<Access> acc, std::function<void()> fn) {
  Instr in{Instr::kOp, name, ++seq_, std::move(acc), std::move(fn)};
  if (pipe == kS) {
    execute(kS, in);
    return;
  }
  q_[pipe].push_back(std::move(in));
  pump();
}

void Core::issue_set(int pipe, Token* t, const char* name) {
  Instr in{Instr::kSet, name, ++seq_, {}, {}, t};
  if (pipe == kS) {
    execute(kS, in);
    return;
  }
  q_[pipe].push_back(std::move(in));
  pump();
}

void Core::issue_wait(int pipe, Token* t, const char* name) {
  if (pipe == kS) {
    wait_scalar(t, name);
    return;
  }
  q_[pipe].push_back(Instr{Instr::kWait, name, ++seq_, {}, {}, t});
  pump();
}

void Core::issue_signal(int pipe, const char* name, std::function<void(const Clock&)> fn) {
  Instr in{Instr::kSignal, name, ++seq_, {}, {}, nullptr, std::move(fn)};
  q_[pipe].push_back(std::move(in));
  pump();
}

void Core::join_all(const Clock& c, const char* name, uint32_t seq) {
  auto merge = [&](Clock& into) {
    for (size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], c[i]);
  };
  for (int p = 0; p < kPipes; ++p) {
    if (p == kS || q_[p].empty())
      merge(vc_[p]);  // nothing issued earlier is still queued: the pipe's clock takes it now
    else
      q_[p].push_back(Instr{Instr::kJoin, name, seq, {}, {}, nullptr, {}, c});
  }
}

void Core::wait_scalar(Token* t, const char* name) {
  pump();
  if (t->q.empty())
    fail(name, "the scalar unit waits for a flag that nothing set (deadlock) in kernel " +
                   launch_.options().kernel);
  Instr in{Instr::kWait, name, ++seq_, {}, {}, t};
  execute(kS, in);
}

void Core::barrier(int pipe) {
  if (pipe >= 0) {
    q_[pipe].push_back(Instr{Instr::kBarrier, "PipeBarrier", ++seq_, {}, {}});
    pump();
    return;
  }
  pump();
  for (int p = 0; p < kPipes; ++p)
    if (!q_[p].empty())
      fail("PipeBarrier<PIPE_ALL>",
           std::string("pipe ") + pipe_name(p) + " waits at " + q_[p].front().name + " (call #" +
               std::to_string(q_[p].front().seq) + ") for a flag that nothing set (deadlock)");
  Clock all(static_cast<size_t>(launch_.agents()), 0);
  for (int p = 0; p < kPipes; ++p) {
    for (size_t i = 0; i < all.size(); ++i) all[i] = std::max(all[i], vc_[p][i]);
    all[static_cast<size_t>(agent(p))] = clock_[p];
  }
  for (int p = 0; p < kPipes; ++p) vc_[p] = all;
}

void Core::finish() {
  pump();
  for (int p = 0; p < kPipes; ++p)
    if (!q_[p].empty())
      fail(q_[p].front().name, std::string("at the end of kernel ") + launch_.options().kernel +
                                   ", pipe " + pipe_name(p) + " still waits (call #" +
                                   std::to_string(q_[p].front().seq) +
                                   ") for a SetFlag that never ran (deadlock)");
}

bool Core::step(int pipe) {
  auto& q = q_[pipe];
  if (q.empty()) return false;
  Instr& in = q.front();
  if (in.kind == Instr::kWait && in.token->q.empty()) return false;
  execute(pipe, in);
  q.pop_front();
  return true;
}

void Core::pump() {
  for (bool progress = true; progress;) {
    progress = false;
    for (int p = 1; p < kPipes; ++p)
      while (step(p)) progress = true;
  }
}

void Core::execute(int pipe, Instr& in) {
  const auto me = static_cast<size_t>(agent(pipe));
  switch (in.kind) {
    case Instr::kOp: {
      const uint32_t c = ++clock_[pipe];
      ++launch_.result().instructions;
      for (const Access& a : in.acc)
        if (a.end > a.begin) launch_.access(*this, pipe, a, vc_[pipe], c, in.name, in.seq);
      if (pipe == kS) vc_[kS][me] = c;  // the scalar unit is in order
      if (in.fn) in.fn();
      break;
    }
    case Instr::kSet: {
      Clock snap = vc_[pipe];
      snap[me] = clock_[pipe];  // SetFlag runs once every earlier instruction of the pipe is done
      in.token->q.push_back(std::move(snap));
      break;
    }
    case Instr::kWait: {
      const Clock& got = in.token->q.front();
      for (size_t i = 0; i < got.size(); ++i) vc_[pipe][i] = std::max(vc_[pipe][i], got[i]);
      in.token->q.pop_front();
      break;
    }
    case Instr::kBarrier:
      vc_[pipe][me] = clock_[pipe];
      break;
    case Instr::kSignal: {
      Clock snap = vc_[pipe];
      snap[me] = clock_[pipe];  // runs once every earlier instruction of the pipe is done
      in.signal(snap);
      break;
    }
    case Instr::kJoin:
      for (size_t i = 0; i < in.clock.size(); ++i)
        vc_[pipe][i] = std::max(vc_[pipe][i], in.clock[i]);
      break;
  }
}

// ---- Launch ----
Launch::Launch(Options opt, KernelMetaType type, int aic, int aiv)
    : opt_(std::move(opt)), type_(type), agents_((aic + aiv) * kPipes) {
  local_.resize(static_cast<size_t>(aic + aiv) * static_cast<size_t>(Mem::kCount));
  // With both types, blockDim counts AI Cores (one AIC each): an AIV's block index is its AI
  // Core's times the ratio plus its sub-block, and GetBlockNum gives the AI Cores on both.
  const int ration = aic > 0 && aiv > 0 ? aiv / aic : 1;
  const int blocks = aic > 0 ? aic : aiv;
  for (int i = 0; i < aic; ++i) {
    cores_.push_back(std::make_unique<Core>(*this, i, true, i, blocks));
    cores_.back()->set_split(i, 0, 1);
  }
  for (int i = 0; i < aiv; ++i) {
    cores_.push_back(std::make_unique<Core>(*this, aic + i, false, i, blocks));
    cores_.back()->set_split(i / ration, i % ration, ration);
  }
}

Launch::Shadow& Launch::shadow(int core, Mem m) {
  if (m == Mem::kGM) return gm_;
  return local_[static_cast<size_t>(core) * static_cast<size_t>(Mem::kCount) +
                static_cast<size_t>(m)];
}

bool Launch::ordered(const Epoch& prior, bool prior_write, int agent, bool write,
                     const Clock& vc) const {
  if (prior.agent < 0) return true;
  const int pp = prior.agent % kPipes, cp = agent % kPipes;
  if (opt_.cce_auto_sync && prior.agent / kPipes == agent / kPipes &&
      !cores_[static_cast<size_t>(agent / kPipes)]->aic()) {
    // bisheng orders S<->V/MTE2/MTE3 both ways and V->V on the vector core.
    if ((pp == kS && (cp == kV || cp == kMTE2 || cp == kMTE3)) ||
        (cp == kS && (pp == kV || pp == kMTE2 || pp == kMTE3)) || (pp == kV && cp == kV))
      return true;
  }
  if (prior.agent == agent) {
    if (cp == kS) return true;               // the scalar unit is in order
    if (!prior_write && write) return true;  // an in-order pipe reads before later writes
    return prior.clock <= vc[static_cast<size_t>(agent)];  // PipeBarrier
  }
  return prior.clock <= vc[static_cast<size_t>(prior.agent)];
}

std::string Launch::race_text(Core& core, const Access& a, int pipe, const char* name, uint32_t seq,
                              const Epoch& prior, bool prior_write) const {
  const int pcore = prior.agent / kPipes, ppipe = prior.agent % kPipes;
  std::string where;
  if (a.mem == Mem::kGM) {
    const GmBlock* b = gm_block_of(reinterpret_cast<const void*>(a.begin));
    where = b ? "GM block #" + std::to_string(b->index) + " bytes [" +
                    std::to_string(a.begin - b->begin) + ", " + std::to_string(a.end - b->begin) +
                    ")"
              : "GM bytes at " + std::to_string(a.begin);
  } else {
    where = core.describe(a.mem, a.begin, a.end);
  }
  auto who = [&](int c, int p, const char* n, uint32_t s) {
    const Core& k = *cores_[static_cast<size_t>(c)];
    return std::string(k.aic() ? "AIC " : "AIV ") + std::to_string(k.block_idx()) + " " +
           pipe_name(p) + " `" + n + "` (call #" + std::to_string(s) + ")";
  };
  std::string msg = "race in kernel " + opt_.kernel + ": " + where + ": " +
                    who(core.index_, pipe, name, seq) + (a.write ? " writes" : " reads") +
                    " what " + who(pcore, ppipe, prior.name, prior.seq) +
                    (prior_write ? " wrote" : " read") + ", and nothing orders them (";
  if (pcore != core.index_)
    msg +=
        "two cores: only CrossCoreSetFlag/CrossCoreWaitFlag, SyncAll or IBSet/IBWait order them)";
  else if (ppipe == pipe)
    msg += std::string("PipeBarrier<PIPE_") + pipe_name(pipe) + ">)";
  else
    msg += std::string("SetFlag/WaitFlag<HardEvent::") + pipe_name(ppipe) + "_" + pipe_name(pipe) +
           "> or a queue's EnQue/DeQue)";
  return msg;
}

void Launch::report_race(const std::string& msg) {
  result_.races.push_back(msg);
  if (opt_.stop_at_first_race) throw Error(msg);
}

void Launch::access(Core& core, int pipe, const Access& a, const Clock& vc, uint32_t c,
                    const char* name, uint32_t seq) {
  if (a.mem == Mem::kGM && cross_) cross_->dcaches().access(*this, core, pipe, a, name, seq);
  Shadow& sh = shadow(core.index_, a.mem);
  const int me = core.index_ * kPipes + pipe;
  auto split = [&](uint64_t x) {
    auto it = sh.upper_bound(x);
    if (it == sh.begin()) return;
    --it;
    if (it->first < x && x < it->second.end) {
      Seg tail = it->second;
      it->second.end = x;
      sh.emplace(x, std::move(tail));
    }
  };
  split(a.begin);
  split(a.end);
  // Fill the gaps so every byte of [begin, end) has a segment.
  uint64_t at = a.begin;
  for (auto it = sh.lower_bound(a.begin); at < a.end;) {
    const uint64_t next = it == sh.end() ? a.end : std::min(it->first, a.end);
    if (at < next) it = sh.emplace_hint(it, at, Seg{next, {}, {}});
    at = it->second.end;
    ++it;
  }
  std::set<std::pair<uint32_t, int>> reported;
  auto conflict = [&](const Epoch& e, bool prior_write) {
    if (ordered(e, prior_write, me, a.write, vc)) return;
    if (!reported.insert({e.seq, e.agent}).second) return;
    report_race(race_text(core, a, pipe, name, seq, e, prior_write));
  };
  const Epoch cur{me, c, name, seq};
  auto it = sh.lower_bound(a.begin);
  if (a.write) {
    for (; it != sh.end() && it->first < a.end; it = sh.erase(it)) {
      conflict(it->second.w, true);
      for (const Epoch& r : it->second.r) conflict(r, false);
    }
    sh.emplace(a.begin, Seg{a.end, cur, {}});
    return;
  }
  for (; it != sh.end() && it->first < a.end; ++it) {
    conflict(it->second.w, true);
    auto& r = it->second.r;
    auto same = std::find_if(r.begin(), r.end(), [&](const Epoch& e) { return e.agent == me; });
    if (same != r.end())
      *same = cur;
    else
      r.push_back(cur);
  }
}

// ---- running ----
void expect_kernel_type(KernelMetaType type) {
  const KernelMetaType launched = current().launch().type();
  check(type == launched, "KERNEL_TASK_TYPE_DEFAULT",
        std::string("the kernel is compiled as type ") + kernel_type_name(type) +
            " but launched as type " + kernel_type_name(launched));
}

Result run_cores(const Options& opt, KernelMetaType type, int64_t block_dim,
                 const std::function<void()>& body) {
  check(block_dim >= 1 && block_dim <= 65535, "launch",
        "blockDim " + std::to_string(block_dim) + " outside 1..65535");
  const int n = static_cast<int>(block_dim);
  int aic = 0, aiv = 0;
  switch (type) {
    case KERNEL_TYPE_AIV_ONLY:
    case KERNEL_TYPE_MIX_AIV_1_0:
      aiv = n;
      break;
    case KERNEL_TYPE_AIC_ONLY:
    case KERNEL_TYPE_MIX_AIC_1_0:
      aic = n;
      break;
    case KERNEL_TYPE_MIX_AIC_1_1:
      aic = aiv = n;
      break;
    case KERNEL_TYPE_MIX_AIC_1_2:
      aic = n;
      aiv = 2 * n;
      break;
    default:
      fail("launch", std::string("kernel type ") + kernel_type_name(type) +
                         " is not an Atlas A2 (split cube/vector cores) kernel type");
  }
  Launch launch(opt, type, aic, aiv);
  return run_launch(launch, body);
}

}  // namespace ascemu
