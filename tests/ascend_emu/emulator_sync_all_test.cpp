// The Ascend C emulator's SyncAll (the hard form) between the phases of all-core kernels, one flag
// id in different modes on different cores, and what the docs refuse of the cross-core calls.
#include <gtest/gtest.h>

#include <functional>
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
