// The Ascend C emulator's mixed launches: an AIC and its AIVs hand data to each other through a
// GM workspace, ordered by CrossCoreSetFlag/CrossCoreWaitFlag; without the flags the handoff is a
// race naming both cores; a wait nothing sets is a deadlock naming the waiting cores; SyncAll
// orders the phases of an all-core kernel.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_operator.h"

namespace {

using AscendC::TPosition;

struct Gm {
  explicit Gm(size_t bytes) : p(AscendC::GmAlloc(bytes)) {}
  ~Gm() { AscendC::GmFree(p); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(p);
  }
  GM_ADDR addr() const { return static_cast<GM_ADDR>(p); }
  void* p;
};

ascemu::Options collect(const char* name) {
  ascemu::Options o;
  o.kernel = name;
  o.stop_at_first_race = false;
  return o;
}

// The message of the Error a launch throws, or "(accepted)".
template <typename F>
std::string error_of(F&& launch) {
  try {
    launch();
  } catch (const ascemu::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

bool has(const std::vector<std::string>& races, const std::string& what) {
  for (const std::string& m : races)
    if (m.find(what) != std::string::npos) return true;
  return false;
}

// ---- block indices in mixed launches ----
struct Seen {
  bool aic;
  int64_t idx, num, sub, ration, ratio, sub_num;
};

std::vector<Seen> indices(KernelMetaType type, int64_t block_dim) {
  std::vector<Seen> seen;
  ascemu::run_cores(ascemu::Options{}, type, block_dim, [&] {
    bool aic = false;
    if ASCEND_IS_AIC {
      aic = true;
    }
    EXPECT_NE(ASCEND_IS_AIV, aic);
    seen.push_back(Seen{aic, AscendC::GetBlockIdx(), AscendC::GetBlockNum(),
                        AscendC::GetSubBlockIdx(), AscendC::GetTaskRation(),
                        AscendC::GetTaskRatio(), AscendC::GetSubBlockNum()});
  });
  return seen;
}

TEST(EmulatorMix, BlockIndicesPerCoreType) {
  const std::vector<Seen> s = indices(KERNEL_TYPE_MIX_AIC_1_2, 3);
  ASSERT_EQ(s.size(), 9u);  // 3 AI Cores of 1 AIC + 2 AIVs
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(s[i].aic);
    EXPECT_EQ(s[i].idx, i);
    EXPECT_EQ(s[i].num, 3);
    EXPECT_EQ(s[i].sub, 0);
    EXPECT_EQ(s[i].ration, 1);
    EXPECT_EQ(s[i].ratio, 1);
    EXPECT_EQ(s[i].sub_num, 1);
  }
  for (int i = 0; i < 6; ++i) {
    const Seen& v = s[3 + i];
    EXPECT_FALSE(v.aic);
    EXPECT_EQ(v.idx, i);  // AI Core * 2 + sub-block
    EXPECT_EQ(v.num, 3);  // GetBlockNum counts AI Cores on both types
    EXPECT_EQ(v.sub, i % 2);
    EXPECT_EQ(v.ration, 2);
    EXPECT_EQ(v.ratio, 2);
    EXPECT_EQ(v.sub_num, 2);
  }
  const std::vector<Seen> one = indices(KERNEL_TYPE_MIX_AIC_1_1, 2);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_TRUE(one[1].aic);
  EXPECT_EQ(one[1].idx, 1);
  EXPECT_FALSE(one[3].aic);
  EXPECT_EQ(one[3].idx, 1);
  EXPECT_EQ(one[3].sub, 0);
  EXPECT_EQ(one[3].ration, 1);
  for (KernelMetaType t : {KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_AIV_ONLY}) {
    const std::vector<Seen> v = indices(t, 4);
    ASSERT_EQ(v.size(), 4u);
    EXPECT_FALSE(v[3].aic);
    EXPECT_EQ(v[3].idx, 3);
    EXPECT_EQ(v[3].num, 4);
    EXPECT_EQ(v[3].ration, 1);
  }
  const std::vector<Seen> c = indices(KERNEL_TYPE_MIX_AIC_1_0, 2);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_TRUE(c[1].aic);
  EXPECT_EQ(c[1].idx, 1);
}

// ---- the workspace handoff: the AIC writes a tile, its two AIVs take a half each ----
constexpr int32_t kHalf = 64, kTile = 2 * kHalf;

float produced(int64_t group, int32_t i) {
  return static_cast<float>(group * 1000 + i) * 0.5f;
}

// On an AIV: the half of a workspace tile that is its own, through UB, times 2 plus 1, to y.
__aicore__ void aiv_consume(const AscendC::GlobalTensor<float>& ws,
                            const AscendC::GlobalTensor<float>& y) {
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> in;
  AscendC::TQue<TPosition::VECOUT, 1> out;
  pipe.InitBuffer(in, 1, kHalf * sizeof(float));
  pipe.InitBuffer(out, 1, kHalf * sizeof(float));
  AscendC::LocalTensor<float> a = in.AllocTensor<float>();
  AscendC::DataCopy(a, ws, kHalf);
  in.EnQue(a);
  a = in.DeQue<float>();
  AscendC::LocalTensor<float> b = out.AllocTensor<float>();
  AscendC::Muls(b, a, 2.0f, kHalf);
  AscendC::PipeBarrier<PIPE_V>();
  AscendC::Adds(b, b, 1.0f, kHalf);
  out.EnQue(b);
  in.FreeTensor(a);
  b = out.DeQue<float>();
  AscendC::DataCopy(y, b, kHalf);
  out.FreeTensor(b);
}

// kWait: the AIVs wait for the AIC's flag; kScalarSync: the AIC orders its scalar writes before
// the MTE3 pipe that carries the set; kClean: the AIC writes its data cache back to GM.
template <bool kWait, bool kScalarSync, bool kClean = true>
__global__ __aicore__ void handoff(GM_ADDR ws, GM_ADDR y) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  AscendC::GlobalTensor<float> wg, yg;
  if ASCEND_IS_AIC {
    const int64_t g = AscendC::GetBlockIdx();
    wg.SetGlobalBuffer((__gm__ float*)ws + g * kTile, kTile);
    for (int32_t i = 0; i < kTile; ++i) wg.SetValue(i, produced(g, i));
    if (kClean)
      AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::ENTIRE_DATA_CACHE,
                                        AscendC::DcciDst::CACHELINE_OUT>(wg);
    if (kScalarSync) {
      AscendC::SetFlag<AscendC::HardEvent::S_MTE3>(EVENT_ID0);
      AscendC::WaitFlag<AscendC::HardEvent::S_MTE3>(EVENT_ID0);
    }
    AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(0);  // the tile is in GM: release both AIVs
  }
  if ASCEND_IS_AIV {
    const int64_t g = AscendC::GetBlockIdx() / AscendC::GetTaskRation();
    wg.SetGlobalBuffer((__gm__ float*)ws + g * kTile + AscendC::GetSubBlockIdx() * kHalf, kHalf);
    yg.SetGlobalBuffer((__gm__ float*)y + AscendC::GetBlockIdx() * kHalf, kHalf);
    if (kWait) AscendC::CrossCoreWaitFlag(0);
    aiv_consume(wg, yg);
  }
}

TEST(EmulatorMix, WorkspaceHandoffMatchesWithoutRace) {
  constexpr int kGroups = 3;
  Gm ws(kGroups * kTile * 4), y(kGroups * kTile * 4);
  const ascemu::Result r = ascemu::Run(collect("handoff"), KERNEL_TYPE_MIX_AIC_1_2, kGroups,
                                       handoff<true, true>, ws.addr(), y.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int g = 0; g < kGroups; ++g)
    for (int i = 0; i < kTile; ++i)
      ASSERT_EQ(y.as<float>()[g * kTile + i], produced(g, i) * 2 + 1) << g << "," << i;
}

TEST(EmulatorMix, HandoffWithoutTheWaitIsARaceNamingBothCores) {
  Gm ws(kTile * 4), y(kTile * 4);
  const std::string e = error_of([&] {
    ascemu::Options o;
    o.kernel = "handoff";
    ascemu::Run(o, KERNEL_TYPE_MIX_AIC_1_2, 1, handoff<false, true>, ws.addr(), y.addr());
  });
  EXPECT_NE(e.find("race in kernel handoff: GM block #"), std::string::npos) << e;
  EXPECT_NE(e.find("AIV 0 MTE2 `DataCopy` (call #"), std::string::npos) << e;
  EXPECT_NE(e.find("reads what AIC 0 S `GlobalTensor::SetValue`"), std::string::npos) << e;
  EXPECT_NE(e.find("only CrossCoreSetFlag/CrossCoreWaitFlag, SyncAll or IBSet/IBWait order them"),
            std::string::npos)
      << e;
  // Collected, both AIVs race with the AIC; the set left without its waits is not the error.
  const ascemu::Result r = ascemu::Run(collect("handoff"), KERNEL_TYPE_MIX_AIC_1_2, 1,
                                       handoff<false, true>, ws.addr(), y.addr());
  EXPECT_TRUE(has(r.races, "AIV 0 MTE2 `DataCopy`"));
  EXPECT_TRUE(has(r.races, "AIV 1 MTE2 `DataCopy`"));
}

TEST(EmulatorMix, TheSetRunsOnItsPipeAfterThatPipesEarlierWork) {
  // The scalar writes are not MTE3's: a set on PIPE_MTE3 does not order them without S_MTE3.
  Gm ws(kTile * 4), y(kTile * 4);
  const ascemu::Result r = ascemu::Run(collect("handoff"), KERNEL_TYPE_MIX_AIC_1_2, 1,
                                       handoff<true, false>, ws.addr(), y.addr());
  EXPECT_TRUE(has(r.races, "reads what AIC 0 S `GlobalTensor::SetValue`"));
}

TEST(EmulatorMix, OnTheA2AWaitHoldsBackEveryPipeWhateverItsTemplateArguments) {
  // CrossCoreWaitFlag's modeId and pipe have no effect on the Atlas A2: a wait named for FIX (a
  // pipe the AIV does not have) still orders the scalar unit's and MTE2's reads after it.
  Gm ws(kTile * 4);
  float seen = 0;
  const ascemu::Result r = ascemu::run_cores(collect("any_pipe"), KERNEL_TYPE_MIX_AIC_1_2, 1, [&] {
    AscendC::GlobalTensor<float> wg;
    wg.SetGlobalBuffer(ws.as<float>(), kTile);
    if ASCEND_IS_AIC {
      for (int32_t i = 0; i < kTile; ++i) wg.SetValue(i, 3.0f);
      AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::ENTIRE_DATA_CACHE,
                                        AscendC::DcciDst::CACHELINE_OUT>(wg);
      AscendC::SetFlag<AscendC::HardEvent::S_MTE3>(EVENT_ID0);
      AscendC::WaitFlag<AscendC::HardEvent::S_MTE3>(EVENT_ID0);
      AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(0);
    }
    if ASCEND_IS_AIV {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::VECCALC> b;
      pipe.InitBuffer(b, kHalf * sizeof(float));
      AscendC::CrossCoreWaitFlag<2, PIPE_FIX>(0);
      seen += wg.GetValue(5);
      AscendC::DataCopy(b.Get<float>(), wg, kHalf);
    }
  });
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  EXPECT_EQ(seen, 6.0f);
}

// Mode 1 orders the two AIVs of one AI Core, and no core of another.
TEST(EmulatorMix, ModeOneOrdersTheAivsOfOneAiCoreOnly) {
  constexpr int kAivs = 4;
  Gm x(kAivs * kHalf * 4), y(kAivs * kHalf * 4);
  auto body = [&](int64_t (*peer)(int64_t)) {
    if ASCEND_IS_AIV {
      const int64_t me = AscendC::GetBlockIdx();
      AscendC::GlobalTensor<float> xg, yg;
      xg.SetGlobalBuffer(x.as<float>(), kAivs * kHalf);
      yg.SetGlobalBuffer(y.as<float>(), kAivs * kHalf);
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, kHalf * sizeof(float));
      AscendC::LocalTensor<float> a = buf.Get<float>();
      AscendC::Duplicate(a, static_cast<float>(me), kHalf);
      AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
      AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
      AscendC::DataCopy(xg[me * kHalf], a, kHalf);
      AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(4);
      AscendC::CrossCoreWaitFlag(4);
      AscendC::DataCopy(a, xg[peer(me) * kHalf], kHalf);
      AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
      AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
      AscendC::DataCopy(yg[me * kHalf], a, kHalf);
    }
  };
  const ascemu::Result sibling =
      ascemu::run_cores(collect("mode1"), KERNEL_TYPE_MIX_AIC_1_2, kAivs / 2,
                        [&] { body([](int64_t me) -> int64_t { return me ^ 1; }); });
  EXPECT_TRUE(sibling.races.empty()) << sibling.races.front();
  for (int v = 0; v < kAivs; ++v) EXPECT_EQ(y.as<float>()[v * kHalf], static_cast<float>(v ^ 1));
  const ascemu::Result other =
      ascemu::run_cores(collect("mode1"), KERNEL_TYPE_MIX_AIC_1_2, kAivs / 2,
                        [&] { body([](int64_t me) -> int64_t { return (me + 2) % kAivs; }); });
  EXPECT_TRUE(has(other.races, "AIV 0 MTE2 `DataCopy`")) << other.races.size();
  EXPECT_TRUE(has(other.races, "AIV 2 MTE3 `DataCopy`")) << other.races.size();
}

TEST(EmulatorMix, ScalarWritesReachGmOnlyWhenTheDataCacheIsWrittenBack) {
  // Without DataCacheCleanAndInvalid the AIC's SetValue writes stay in its data cache: the
  // AIVs' DMA reads GM without them, however the flags order the cores.
  Gm ws(kTile * 4), y(kTile * 4);
  const ascemu::Result r = ascemu::Run(collect("handoff"), KERNEL_TYPE_MIX_AIC_1_2, 1,
                                       handoff<true, true, false>, ws.addr(), y.addr());
  EXPECT_TRUE(has(r.races, "race in kernel handoff (data cache): GM block #"))
      << (r.races.empty() ? std::string("no race") : r.races.front());
  EXPECT_TRUE(has(r.races,
                  "AIV 0 MTE2 `DataCopy` (call #2) reads what AIC 0 S "
                  "`GlobalTensor::SetValue` (call #1) left in its data cache"));
  EXPECT_TRUE(has(r.races, "AIV 1 MTE2 `DataCopy`"));
}

TEST(EmulatorMix, DataCachesHoldLinesAsTheDocsSay) {
  Gm g(4 * 64);
  auto lines = [&](const std::function<void(AscendC::GlobalTensor<float>&)>& body) {
    return ascemu::run_cores(collect("lines"), KERNEL_TYPE_MIX_AIV_1_0, 2,
                             [&] {
                               AscendC::GlobalTensor<float> t;
                               t.SetGlobalBuffer(g.as<float>(), 64);
                               body(t);
                             })
        .races;
  };
  using AscendC::CacheLine;
  using AscendC::DcciDst;
  // Two cores' scalar writes into one 64-byte line: each write-back undoes the other's.
  const std::vector<std::string> shared = lines([](AscendC::GlobalTensor<float>& t) {
    t.SetValue(static_cast<uint64_t>(AscendC::GetBlockIdx()), 1.0f);
  });
  EXPECT_TRUE(has(shared,
                  "AIV 1 S `GlobalTensor::SetValue` (call #1) writes a 64-byte GM line "
                  "that AIV 0 S `GlobalTensor::SetValue` (call #1) left written"));
  // A line apart, they are fine.
  EXPECT_TRUE(lines([](AscendC::GlobalTensor<float>& t) {
                t.SetValue(static_cast<uint64_t>(AscendC::GetBlockIdx()) * 16, 1.0f);
              }).empty());
  // A line cached before another core changed GM is stale until it is dropped; a SyncAll
  // orders the cores, the cache still needs DataCacheCleanAndInvalid.
  auto stale = [](bool drop) {
    return [drop](AscendC::GlobalTensor<float>& t) {
      if (AscendC::GetBlockIdx() == 0) t.GetValue(16);  // caches line 1
      AscendC::SyncAll();
      if (AscendC::GetBlockIdx() == 1) {
        t.SetValue(16, 2.0f);
        AscendC::DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE,
                                          DcciDst::CACHELINE_OUT>(t[16]);
      }
      AscendC::SyncAll();
      if (AscendC::GetBlockIdx() == 0) {
        if (drop)
          AscendC::DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE,
                                            DcciDst::CACHELINE_OUT>(t);
        t.GetValue(16);
      }
    };
  };
  const std::vector<std::string> old = lines(stale(false));
  EXPECT_TRUE(has(old,
                  "AIV 0 S `GlobalTensor::GetValue` (call #6) reads a copy of the line its data "
                  "cache took before AIV 1 S `GlobalTensor::SetValue` (call #3) wrote GM"));
  const std::vector<std::string> fresh = lines(stale(true));
  EXPECT_TRUE(fresh.empty()) << fresh.front();
  // A copy is stale only in the bytes GM changed: a DMA write of the line's second half leaves
  // the first half's cached bytes right.
  const std::vector<std::string> half = lines([](AscendC::GlobalTensor<float>& t) {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 32);
    if (AscendC::GetBlockIdx() == 0) t.GetValue(0);
    AscendC::SyncAll();
    if (AscendC::GetBlockIdx() == 1) {
      AscendC::Duplicate(b.Get<float>(), 5.0f, 8);
      AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
      AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
      AscendC::DataCopy(t[8], b.Get<float>(), 8);  // bytes [32, 64) of line 0
    }
    AscendC::SyncAll();
    if (AscendC::GetBlockIdx() == 0) {
      t.GetValue(1);  // unchanged bytes
      t.GetValue(9);  // changed ones
    }
  });
  ASSERT_EQ(half.size(), 1u);
  EXPECT_NE(half[0].find("GM block #"), std::string::npos);
  EXPECT_NE(half[0].find("bytes [36, 40): AIV 0 S `GlobalTensor::GetValue` (call #7) reads a copy"),
            std::string::npos)
      << half[0];
}

// ---- ping-pong: two workspace slots, the AIVs tell the AIC when a slot is free again ----
constexpr int32_t kTiles = 6;

template <bool kFreeWait>
__aicore__ void ping_pong_aic(const AscendC::GlobalTensor<float>& wg) {
  for (int32_t t = 0; t < kTiles; ++t) {
    const int32_t slot = t % 2;
    if (kFreeWait && t >= 2) AscendC::CrossCoreWaitFlag(2 + slot);  // both AIVs read it
    for (int32_t i = 0; i < kTile; ++i) wg.SetValue(slot * kTile + i, produced(t, i));
    AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::ENTIRE_DATA_CACHE,
                                      AscendC::DcciDst::CACHELINE_OUT>(wg);
    AscendC::SetFlag<AscendC::HardEvent::S_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::S_MTE3>(EVENT_ID0);
    AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(slot);
  }
}

__aicore__ void ping_pong_aiv(const AscendC::GlobalTensor<float>& wg,
                              const AscendC::GlobalTensor<float>& yg) {
  const int64_t sub = AscendC::GetSubBlockIdx();
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> in;
  AscendC::TQue<TPosition::VECOUT, 1> out;
  pipe.InitBuffer(in, 1, kHalf * sizeof(float));
  pipe.InitBuffer(out, 1, kHalf * sizeof(float));
  for (int32_t t = 0; t < kTiles; ++t) {
    const int32_t slot = t % 2;
    AscendC::CrossCoreWaitFlag(slot);
    AscendC::LocalTensor<float> a = in.AllocTensor<float>();
    AscendC::DataCopy(a, wg[slot * kTile + sub * kHalf], kHalf);
    // The slot is read once MTE2 has run the copy: the AIC may refill it.
    if (t + 2 < kTiles) AscendC::CrossCoreSetFlag<2, PIPE_MTE2>(2 + slot);
    in.EnQue(a);
    a = in.DeQue<float>();
    AscendC::LocalTensor<float> b = out.AllocTensor<float>();
    AscendC::Muls(b, a, 2.0f, kHalf);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Adds(b, b, 1.0f, kHalf);
    out.EnQue(b);
    in.FreeTensor(a);
    b = out.DeQue<float>();
    AscendC::DataCopy(yg[t * kTile + sub * kHalf], b, kHalf);
    out.FreeTensor(b);
  }
}

template <bool kFreeWait>
__global__ __aicore__ void ping_pong(GM_ADDR ws, GM_ADDR y) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  AscendC::GlobalTensor<float> wg, yg;
  wg.SetGlobalBuffer((__gm__ float*)ws, 2 * kTile);
  yg.SetGlobalBuffer((__gm__ float*)y, kTiles * kTile);
  if ASCEND_IS_AIC {
    ping_pong_aic<kFreeWait>(wg);
  }
  if ASCEND_IS_AIV {
    ping_pong_aiv(wg, yg);
  }
}

TEST(EmulatorMix, PingPongBothWaysMatchesWithoutRace) {
  Gm ws(2 * kTile * 4), y(kTiles * kTile * 4);
  const ascemu::Result r = ascemu::Run(collect("ping_pong"), KERNEL_TYPE_MIX_AIC_1_2, 1,
                                       ping_pong<true>, ws.addr(), y.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int t = 0; t < kTiles; ++t)
    for (int i = 0; i < kTile; ++i)
      ASSERT_EQ(y.as<float>()[t * kTile + i], produced(t, i) * 2 + 1) << t << "," << i;
}

TEST(EmulatorMix, RefillingASlotBeforeTheAivsFreedItIsARace) {
  Gm ws(2 * kTile * 4), y(kTiles * kTile * 4);
  const ascemu::Result r = ascemu::Run(collect("ping_pong"), KERNEL_TYPE_MIX_AIC_1_2, 1,
                                       ping_pong<false>, ws.addr(), y.addr());
  // The AIC never waits, so it runs all its tiles first: the AIVs' reads of the slots come after
  // the refills, which nothing orders before them.
  ASSERT_FALSE(r.races.empty());
  EXPECT_TRUE(has(r.races,
                  "AIV 0 MTE2 `DataCopy` (call #2) reads what AIC 0 S "
                  "`GlobalTensor::SetValue`"))
      << r.races.front();
  EXPECT_TRUE(has(r.races, "AIV 1 MTE2 `DataCopy`")) << r.races.front();
}

// ---- deadlocks and errors stop the launch with every thread joined ----
TEST(EmulatorMix, AWaitNothingSetsIsADeadlockNamingTheWaitingCores) {
  const std::string e = error_of([] {
    ascemu::Options o;
    o.kernel = "stuck";
    ascemu::run_cores(o, KERNEL_TYPE_MIX_AIC_1_2, 1, [] {
      if ASCEND_IS_AIV {
        AscendC::CrossCoreWaitFlag(5);
      }
    });
  });
  EXPECT_NE(e.find("deadlock in kernel stuck"), std::string::npos) << e;
  EXPECT_NE(e.find("AIV 0 waits at CrossCoreWaitFlag(5) for flag 5"), std::string::npos) << e;
  EXPECT_NE(e.find("AIV 1 waits at CrossCoreWaitFlag(5)"), std::string::npos) << e;
  EXPECT_EQ(e.find("AIC 0 waits"), std::string::npos) << e;

  // Half a mode-1 synchronisation: the message says which AIV has not set.
  const std::string half = error_of([] {
    ascemu::run_cores(ascemu::Options{}, KERNEL_TYPE_MIX_AIC_1_2, 1, [] {
      if ASCEND_IS_AIV {
        if (AscendC::GetSubBlockIdx() == 0) AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(3);
        AscendC::CrossCoreWaitFlag(3);
      }
    });
  });
  EXPECT_NE(half.find("mode 1 flag 3 is set by AIV 0 but not yet by AIV 1"), std::string::npos)
      << half;
}

TEST(EmulatorMix, AnErrorInOneCoreStopsTheLaunchWhileOthersWait) {
  Gm g(4096);
  const std::string e = error_of([&] {
    ascemu::run_cores(ascemu::Options{}, KERNEL_TYPE_MIX_AIC_1_2, 2, [&] {
      if ASCEND_IS_AIC {
        AscendC::CrossCoreWaitFlag(1);  // never released: the AIVs fail first
      }
      if ASCEND_IS_AIV {
        if (AscendC::GetBlockIdx() == 3) {
          AscendC::TPipe pipe;
          AscendC::TBuf<TPosition::VECCALC> b;
          pipe.InitBuffer(b, 4096);
          AscendC::GlobalTensor<float> t;
          t.SetGlobalBuffer(g.as<float>(), 1024);
          AscendC::DataCopy(b.Get<float>(), t, 25);
        }
        AscendC::CrossCoreWaitFlag(2);
      }
    });
  });
  EXPECT_NE(e.find("DataCopy: 100 bytes is not a multiple of 32"), std::string::npos) << e;
}

TEST(EmulatorMix, SetsNoWaitTookAreRefusedAtTheEnd) {
  const std::string e = error_of([] {
    ascemu::run_cores(ascemu::Options{}, KERNEL_TYPE_MIX_AIC_1_2, 1, [] {
      if ASCEND_IS_AIC {
        AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(7);
      }
      if ASCEND_IS_AIV {
        if (AscendC::GetSubBlockIdx() == 0) AscendC::CrossCoreWaitFlag(7);
      }
    });
  });
  EXPECT_NE(e.find("flag 7 of AIV 1 holds 1 count(s) that no CrossCoreWaitFlag took"),
            std::string::npos)
      << e;
}

// ---- SyncAll between two phases ----
constexpr int32_t kCores = 4;

template <bool kSync>
__global__ __aicore__ void rotate(GM_ADDR x, GM_ADDR y) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
  const int64_t me = AscendC::GetBlockIdx(), n = AscendC::GetBlockNum();
  AscendC::GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x, n * kHalf);
  yg.SetGlobalBuffer((__gm__ float*)y, n * kHalf);
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 2 * kHalf * sizeof(float));
  AscendC::LocalTensor<float> a = buf.Get<float>(), b = a[kHalf];
  // Phase 1: every core writes its block of x.
  AscendC::Duplicate(a, static_cast<float>(me + 1), kHalf);
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::DataCopy(xg[me * kHalf], a, kHalf);
  if (kSync) AscendC::SyncAll();
  // Phase 2: every core reads its neighbour's block.
  AscendC::DataCopy(b, xg[(me + 1) % n * kHalf], kHalf);
  AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
  AscendC::Muls(b, b, 10.0f, kHalf);
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
  AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
  AscendC::DataCopy(yg[me * kHalf], b, kHalf);
}

TEST(EmulatorMix, SyncAllOrdersOneCoresWritesBeforeAnothersReads) {
  Gm x(kCores * kHalf * 4), y(kCores * kHalf * 4);
  const ascemu::Result r = ascemu::Run(collect("rotate"), KERNEL_TYPE_MIX_AIV_1_0, kCores,
                                       rotate<true>, x.addr(), y.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int c = 0; c < kCores; ++c)
    for (int i = 0; i < kHalf; ++i)
      ASSERT_EQ(y.as<float>()[c * kHalf + i], static_cast<float>((c + 1) % kCores + 1) * 10);
  const ascemu::Result bad = ascemu::Run(collect("rotate"), KERNEL_TYPE_MIX_AIV_1_0, kCores,
                                         rotate<false>, x.addr(), y.addr());
  // AIV 0 runs first: AIV 1's write comes after AIV 0 read, unordered either way.
  EXPECT_TRUE(has(bad.races, "AIV 1 MTE3 `DataCopy` (call #4) writes what AIV 0 MTE2 `DataCopy`"))
      << bad.races.front();
  // The hard SyncAll needs the scheduler: not in a vector-only launch.
  const std::string e = error_of([&] {
    ascemu::run_cores(ascemu::Options{}, KERNEL_TYPE_AIV_ONLY, 2, [] { AscendC::SyncAll(); });
  });
  EXPECT_NE(e.find("SyncAll<true>: a KERNEL_TYPE_AIV_ONLY launch runs without the scheduler"),
            std::string::npos)
      << e;
}

TEST(EmulatorMix, MixedSyncAllOrdersAicWritesBeforeAivReads) {
  Gm ws(2 * kTile * 4), y(2 * kTile * 4);
  auto body = [&] {
    AscendC::GlobalTensor<float> wg, yg;
    if ASCEND_IS_AIC {
      wg.SetGlobalBuffer(ws.as<float>() + AscendC::GetBlockIdx() * kTile, kTile);
      for (int32_t i = 0; i < kTile; ++i) wg.SetValue(i, produced(AscendC::GetBlockIdx(), i));
      AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::ENTIRE_DATA_CACHE,
                                        AscendC::DcciDst::CACHELINE_OUT>(wg);
    }
    AscendC::SyncAll<false>();
    if ASCEND_IS_AIV {
      // Each AIV reads the other AI Core's tile: ordered through every AIC.
      const int64_t other = 1 - AscendC::GetBlockIdx() / 2;
      wg.SetGlobalBuffer(ws.as<float>() + other * kTile + AscendC::GetSubBlockIdx() * kHalf, kHalf);
      yg.SetGlobalBuffer(y.as<float>() + AscendC::GetBlockIdx() * kHalf, kHalf);
      aiv_consume(wg, yg);
    }
  };
  const ascemu::Result r =
      ascemu::run_cores(collect("sync_mixed"), KERNEL_TYPE_MIX_AIC_1_2, 2, body);
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int v = 0; v < 4; ++v)
    for (int i = 0; i < kHalf; ++i)
      ASSERT_EQ(y.as<float>()[v * kHalf + i], produced(1 - v / 2, v % 2 * kHalf + i) * 2 + 1);
}

TEST(EmulatorMix, TwentyFourAiCoresPassSyncAllRepeatedly) {
  // 72 cores, each on its thread, most of them waiting at once; each round reads what another
  // AI Core's AIC wrote in the round before.
  constexpr int kGroups = 24, kRounds = 3;
  Gm ws(kGroups * 32 * 4);
  std::vector<float> got(kGroups * 2 * kRounds, -1);
  const ascemu::Result r =
      ascemu::run_cores(collect("rounds"), KERNEL_TYPE_MIX_AIC_1_2, kGroups, [&] {
        AscendC::GlobalTensor<float> wg;
        wg.SetGlobalBuffer(ws.as<float>(), kGroups * 32);
        for (int round = 0; round < kRounds; ++round) {
          if ASCEND_IS_AIC {
            wg.SetValue(AscendC::GetBlockIdx() * 32,
                        static_cast<float>(round * 100 + AscendC::GetBlockIdx()));
            // The scalar write reaches GM when its cache line is written back.
            AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                              AscendC::DcciDst::CACHELINE_OUT>(
                wg[AscendC::GetBlockIdx() * 32]);
          }
          AscendC::SyncAll<false>();
          if ASCEND_IS_AIV {
            const int64_t from = (AscendC::GetBlockIdx() / 2 + 1) % kGroups;
            // Drop the copy of the line cached in the round before.
            AscendC::DataCacheCleanAndInvalid<float, AscendC::CacheLine::SINGLE_CACHE_LINE,
                                              AscendC::DcciDst::CACHELINE_OUT>(wg[from * 32]);
            got[static_cast<size_t>(round * kGroups * 2 + AscendC::GetBlockIdx())] =
                wg.GetValue(from * 32);
          }
          AscendC::SyncAll<false>();  // the reads end before the next round's writes
        }
      });
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int round = 0; round < kRounds; ++round)
    for (int v = 0; v < kGroups * 2; ++v)
      ASSERT_EQ(got[static_cast<size_t>(round * kGroups * 2 + v)],
                static_cast<float>(round * 100 + (v / 2 + 1) % kGroups));
}

TEST(EmulatorMix, OneFlagIdServesDifferentModesOnDifferentCores) {
  // As the docs allow: all AICs synchronise on flag 0 (mode 0) while each AI Core's AIVs
  // synchronise on flag 0 (mode 1); then, its mode-1 waits over, an AIV reuses flag 0 in mode 2.
  const ascemu::Result r = ascemu::run_cores(collect("flag0"), KERNEL_TYPE_MIX_AIC_1_2, 2, [] {
    if ASCEND_IS_AIC {
      AscendC::CrossCoreSetFlag<0, PIPE_FIX>(0);
      AscendC::CrossCoreWaitFlag(0);
      AscendC::CrossCoreWaitFlag(0);  // the AIVs' mode-2 set
    }
    if ASCEND_IS_AIV {
      AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(0);
      AscendC::CrossCoreWaitFlag(0);
      AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(0);
    }
  });
  EXPECT_TRUE(r.races.empty());
}

// ---- refusals, as the docs give them ----
std::string refused(KernelMetaType type, const std::function<void()>& body) {
  return error_of([&] { ascemu::run_cores(ascemu::Options{}, type, 1, body); });
}

TEST(EmulatorMix, RefusesWhatTheDocsRefuse) {
  EXPECT_NE(refused(KERNEL_TYPE_MIX_AIC_1_2, [] { AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(16); })
                .find("CrossCoreSetFlag<2, PIPE_MTE3>(16): flag id 16 outside 0..15"),
            std::string::npos);
  EXPECT_NE(refused(KERNEL_TYPE_MIX_AIC_1_2, [] { AscendC::CrossCoreWaitFlag(31); })
                .find("CrossCoreWaitFlag(31): flag id 31 outside 0..15"),
            std::string::npos);
  EXPECT_NE(refused(KERNEL_TYPE_MIX_AIC_1_2, [] { AscendC::CrossCoreSetFlag<4, PIPE_MTE3>(0); })
                .find("mode 4 is not on the Atlas A2"),
            std::string::npos);
  EXPECT_NE(refused(KERNEL_TYPE_MIX_AIV_1_0, [] { AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(0); })
                .find("needs a KERNEL_TYPE_MIX_AIC_1_1 or _1_2 launch"),
            std::string::npos);
  EXPECT_NE(refused(KERNEL_TYPE_MIX_AIC_1_2, [] { AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(0); })
                .find("its AIC takes no part"),
            std::string::npos);
  EXPECT_NE(refused(KERNEL_TYPE_MIX_AIC_1_2, [] { AscendC::CrossCoreSetFlag<2, PIPE_S>(0); })
                .find("PIPE_S is not a pipe of a set"),
            std::string::npos);
  EXPECT_NE(refused(KERNEL_TYPE_MIX_AIC_1_2,
                    [] {
                      if ASCEND_IS_AIV {
                        AscendC::CrossCoreSetFlag<2, PIPE_FIX>(0);
                      }
                    })
                .find("an AIV (vector core) has no FIX pipe"),
            std::string::npos);
  EXPECT_NE(refused(KERNEL_TYPE_AIV_ONLY, [] { AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(0); })
                .find("launch a vector-only kernel as KERNEL_TYPE_MIX_AIV_1_0"),
            std::string::npos);
  EXPECT_NE(refused(KERNEL_TYPE_MIX_AIV_1_0, [] { AscendC::SyncAll<false>(); })
                .find("takes SyncAll<true>"),
            std::string::npos);
  // A counter holds 0..15: the 16th set no wait took overflows it.
  EXPECT_NE(refused(KERNEL_TYPE_MIX_AIC_1_2,
                    [] {
                      if ASCEND_IS_AIC {
                        for (int i = 0; i < 16; ++i) AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(9);
                      }
                    })
                .find("flag 9 of AIV 0 would count 16 sets"),
            std::string::npos);
  // On one core a flag id changes mode only once its old mode's sets and waits have run.
  EXPECT_NE(
      refused(KERNEL_TYPE_MIX_AIC_1_2,
              [] {
                if ASCEND_IS_AIC {
                  AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(0);
                }
                if ASCEND_IS_AIV {
                  AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(0);  // the mode-2 count is not taken
                  AscendC::CrossCoreWaitFlag(0);
                  AscendC::CrossCoreWaitFlag(0);
                }
              })
          .find("CrossCoreSetFlag<1, PIPE_MTE3>(0): flag 0 of AIV 0 is still in use in mode 2"),
      std::string::npos);
  // The kernel type is checked against the launch's.
  EXPECT_NE(
      refused(KERNEL_TYPE_MIX_AIC_1_1, [] { KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2); })
          .find("compiled as type KERNEL_TYPE_MIX_AIC_1_2 but launched as type "
                "KERNEL_TYPE_MIX_AIC_1_1"),
      std::string::npos);
}

}  // namespace
