// The Ascend C emulator's mixed launches: an AIC and its AIVs hand data to each other through a
// GM workspace, ordered by CrossCoreSetFlag/CrossCoreWaitFlag; without the flags the handoff is a
// race naming both cores; a wait nothing sets is a deadlock naming the waiting cores.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "emu_test_util.h"

namespace {

using AscendC::TPosition;
using emutest::aiv_consume;
using emutest::collect;
using emutest::error_of;
using emutest::Gm;
using emutest::has;
using emutest::kHalf;
using emutest::kTile;
using emutest::produced;

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

TEST(EmulatorMix, AnyExceptionOfAKernelReachesTheCaller) {
  // Not only the emulator's own errors: whatever a core throws stops the launch as it is.
  try {
    ascemu::run_cores(ascemu::Options{}, KERNEL_TYPE_MIX_AIC_1_2, 1, [] {
      if ASCEND_IS_AIC {
        AscendC::CrossCoreWaitFlag(3);
      }
      if (AscendC::GetBlockIdx() == 1 && !ASCEND_IS_AIC) throw std::logic_error("boom in AIV 1");
    });
    ADD_FAILURE() << "accepted";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "boom in AIV 1");
  }
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

}  // namespace
