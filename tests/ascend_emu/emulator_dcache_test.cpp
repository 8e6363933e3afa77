// The Ascend C emulator's data caches: the scalar unit's GM writes reach GM when
// DataCacheCleanAndInvalid writes them back, its cached lines go stale when GM changes, and two
// cores' written copies of one line undo each other.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "emu_test_util.h"

namespace {

using AscendC::TPosition;
using emutest::collect;
using emutest::error_of;
using emutest::Gm;
using emutest::has;
using emutest::kHalf;
using emutest::kTile;
using emutest::produced;

TEST(EmulatorDataCache, ScalarWritesReachGmOnlyWhenTheDataCacheIsWrittenBack) {
  // Without DataCacheCleanAndInvalid the AIC's SetValue writes stay in its data cache: the
  // AIVs' DMA reads GM without them, however the flags order the cores.
  Gm ws(kTile * 4);
  auto body = [&](bool clean) {
    AscendC::GlobalTensor<float> wg;
    wg.SetGlobalBuffer(ws.as<float>(), kTile);
    if ASCEND_IS_AIC {
      for (int32_t i = 0; i < kTile; ++i) wg.SetValue(i, produced(0, i));
      if (clean)
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
      AscendC::CrossCoreWaitFlag(0);
      AscendC::DataCopy(b.Get<float>(), wg[AscendC::GetSubBlockIdx() * kHalf], kHalf);
    }
  };
  const ascemu::Result r =
      ascemu::run_cores(collect("handoff"), KERNEL_TYPE_MIX_AIC_1_2, 1, [&] { body(false); });
  EXPECT_TRUE(has(r.races, "race in kernel handoff (data cache): GM block #"))
      << (r.races.empty() ? std::string("no race") : r.races.front());
  EXPECT_TRUE(has(r.races,
                  "AIV 0 MTE2 `DataCopy` (call #2) reads what AIC 0 S "
                  "`GlobalTensor::SetValue` (call #1) left in its data cache"));
  EXPECT_TRUE(has(r.races, "AIV 1 MTE2 `DataCopy`"));
  const ascemu::Result ok =
      ascemu::run_cores(collect("handoff"), KERNEL_TYPE_MIX_AIC_1_2, 1, [&] { body(true); });
  EXPECT_TRUE(ok.races.empty()) << ok.races.front();
}

TEST(EmulatorDataCache, LinesBehaveAsTheDocsSay) {
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

}  // namespace
