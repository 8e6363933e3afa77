// The Ascend C emulator's soft cross-core synchronisation: SyncAll with a GM workspace and the
// IBSet/IBWait mailbox, in vector-only launches (they need no hardware scheduler): they order one
// core's GM writes before another's reads, a wait nothing answers is a deadlock, and a workspace
// that was not zeroed is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "emu_test_util.h"

namespace {

using AscendC::TPosition;
using emutest::collect;
using emutest::error_of;
using emutest::Gm;
using emutest::has;

constexpr int32_t kN = 64, kCores = 4;

// One core's block of x through UB into GM, as value v.
__aicore__ void write_block(const AscendC::GlobalTensor<float>& dst,
                            const AscendC::LocalTensor<float>& a, float v) {
  AscendC::Duplicate(a, v, kN);
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::DataCopy(dst, a, kN);
}

// A block of GM into UB, times 10, out to y.
__aicore__ void scale_block(const AscendC::GlobalTensor<float>& y,
                            const AscendC::GlobalTensor<float>& src,
                            const AscendC::LocalTensor<float>& b) {
  AscendC::DataCopy(b, src, kN);
  AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
  AscendC::Muls(b, b, 10.0f, kN);
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
  AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
  AscendC::DataCopy(y, b, kN);
}

// Phase 1 writes this core's block of x; after the soft SyncAll, phase 2 reads the next core's.
template <int kSyncs>
__global__ __aicore__ void soft_rotate(GM_ADDR x, GM_ADDR y, GM_ADDR sync) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
  const int64_t me = AscendC::GetBlockIdx(), n = AscendC::GetBlockNum();
  AscendC::GlobalTensor<float> xg, yg;
  AscendC::GlobalTensor<int32_t> sg;
  xg.SetGlobalBuffer((__gm__ float*)x, n * kN);
  yg.SetGlobalBuffer((__gm__ float*)y, n * kN);
  sg.SetGlobalBuffer((__gm__ int32_t*)sync, n * 8);
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::VECCALC> buf, work;
  pipe.InitBuffer(buf, 2 * kN * sizeof(float));
  pipe.InitBuffer(work, n * 32);
  AscendC::LocalTensor<float> a = buf.Get<float>(), b = a[kN];
  write_block(xg[me * kN], a, static_cast<float>(me + 1));
  for (int i = 0; i < kSyncs; ++i) AscendC::SyncAll(sg, work.Get<int32_t>());
  scale_block(yg[me * kN], xg[(me + 1) % n * kN], b);
}

TEST(EmulatorSoftSync, SoftSyncAllOrdersOneCoresWritesBeforeAnothersReads) {
  Gm x(kCores * kN * 4), y(kCores * kN * 4), sync(kCores * 32);
  const ascemu::Result r = ascemu::Run(collect("soft_rotate"), KERNEL_TYPE_AIV_ONLY, kCores,
                                       soft_rotate<2>, x.addr(), y.addr(), sync.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int c = 0; c < kCores; ++c) {
    EXPECT_EQ(y.as<float>()[c * kN], static_cast<float>((c + 1) % kCores + 1) * 10);
    EXPECT_EQ(sync.as<int32_t>()[c * 8], 2);  // each slot counts its core's calls
  }
  const ascemu::Result bad = ascemu::Run(collect("soft_rotate"), KERNEL_TYPE_AIV_ONLY, kCores,
                                         soft_rotate<0>, x.addr(), y.addr(), sync.addr());
  EXPECT_TRUE(has(bad.races, "two cores")) << bad.races.size();
}

TEST(EmulatorSoftSync, AWorkspaceNotZeroedIsRefused) {
  Gm x(kCores * kN * 4), y(kCores * kN * 4), sync(kCores * 32);
  sync.as<int32_t>()[2 * 8] = 5;
  const std::string e = error_of([&] {
    ascemu::Run(ascemu::Options{}, KERNEL_TYPE_AIV_ONLY, kCores, soft_rotate<1>, x.addr(), y.addr(),
                sync.addr());
  });
  EXPECT_NE(e.find("SyncAll<true>(gmWorkspace, ubWorkspace): gmWorkspace slot 2 holds 5"),
            std::string::npos)
      << e;
}

// ---- IBSet/IBWait: core `from` hands its block to core `to` through slot (from, event 0) ----
template <bool kWait>
void mailbox(Gm& x, Gm& y, Gm& sync, int64_t from, int64_t to) {
  const int64_t me = AscendC::GetBlockIdx();
  AscendC::GlobalTensor<float> xg, yg;
  AscendC::GlobalTensor<int32_t> sg;
  xg.SetGlobalBuffer(x.as<float>(), 2 * kN);
  yg.SetGlobalBuffer(y.as<float>(), 2 * kN);
  sg.SetGlobalBuffer(sync.as<int32_t>(), 2 * 8);
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::VECCALC> buf, work;
  pipe.InitBuffer(buf, kN * sizeof(float));
  pipe.InitBuffer(work, 32);
  if (me == from) {
    write_block(xg, buf.Get<float>(), 7.0f);
    AscendC::IBSet(sg, work.Get<int32_t>(), static_cast<int32_t>(from), 0);
  }
  if (me == to) {
    if (kWait) AscendC::IBWait(sg, work.Get<int32_t>(), static_cast<int32_t>(from), 0);
    scale_block(yg, xg, buf.Get<float>());
  }
}

TEST(EmulatorSoftSync, IbSetAndIbWaitOrderTheHandoffEitherWay) {
  for (int64_t from : {0, 1}) {  // the waiting core runs first when from is 1
    Gm x(2 * kN * 4), y(2 * kN * 4), sync(2 * 32);
    const ascemu::Result r = ascemu::run_cores(collect("mailbox"), KERNEL_TYPE_AIV_ONLY, 2,
                                               [&] { mailbox<true>(x, y, sync, from, 1 - from); });
    EXPECT_TRUE(r.races.empty()) << r.races.front();
    EXPECT_EQ(y.as<float>()[0], 70.0f);
    EXPECT_EQ(sync.as<int32_t>()[from * 8], 0);  // IBWait emptied the slot
  }
  Gm x(2 * kN * 4), y(2 * kN * 4), sync(2 * 32);
  const ascemu::Result bad = ascemu::run_cores(collect("mailbox"), KERNEL_TYPE_AIV_ONLY, 2,
                                               [&] { mailbox<false>(x, y, sync, 1, 0); });
  EXPECT_TRUE(has(bad.races, "AIV 1 MTE3 `DataCopy` (call #4) writes what AIV 0 MTE2 `DataCopy`"))
      << (bad.races.empty() ? std::string("no race") : bad.races.front());
}

TEST(EmulatorSoftSync, AMailboxNobodyAnswersIsADeadlock) {
  Gm sync(2 * 32);
  auto body = [&](bool twice) {
    AscendC::GlobalTensor<int32_t> sg;
    sg.SetGlobalBuffer(sync.as<int32_t>(), 2 * 8);
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> work;
    pipe.InitBuffer(work, 32);
    if (AscendC::GetBlockIdx() == 0) {
      if (twice) {
        AscendC::IBSet(sg, work.Get<int32_t>(), 0, 0);
        AscendC::IBSet(sg, work.Get<int32_t>(), 0, 0);  // the slot is still full
      } else {
        AscendC::IBWait(sg, work.Get<int32_t>(), 1, 0);
      }
    }
  };
  const std::string never = error_of([&] {
    ascemu::run_cores(collect("mailbox"), KERNEL_TYPE_AIV_ONLY, 2, [&] { body(false); });
  });
  EXPECT_NE(never.find("deadlock in kernel mailbox"), std::string::npos) << never;
  EXPECT_NE(never.find("AIV 0 waits at IBWait(blockIdx 1, eventID 0) for its GM word to hold 1"),
            std::string::npos)
      << never;
  sync.as<int32_t>()[0] = 0;
  const std::string full = error_of(
      [&] { ascemu::run_cores(collect("mailbox"), KERNEL_TYPE_AIV_ONLY, 2, [&] { body(true); }); });
  EXPECT_NE(full.find("AIV 0 waits at IBSet(blockIdx 0, eventID 0) for its GM word to hold 0"),
            std::string::npos)
      << full;
}

}  // namespace
