// The Ascend C emulator's machine: kernels written the way the public Ascend C samples write
// them run unchanged and match a reference; a missing synchronisation is a reported race; what
// the hardware refuses is refused with the call and the numbers (docs/ASCENDC.md, "The emulator").
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "emu_test_util.h"
#include "kernel_operator.h"

namespace {

using emutest::collect;
using emutest::Gm;

using AscendC::TPosition;

// ---- a double-buffered vector add over 8 cores, as the TPipe/TQue samples write it ----
constexpr int32_t kTotal = 8 * 2048, kCores = 8, kBlock = kTotal / kCores, kTiles = 8, kBuffers = 2,
                  kTile = kBlock / kTiles / kBuffers;

class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    xGm.SetGlobalBuffer((__gm__ float*)x + kBlock * AscendC::GetBlockIdx(), kBlock);
    yGm.SetGlobalBuffer((__gm__ float*)y + kBlock * AscendC::GetBlockIdx(), kBlock);
    zGm.SetGlobalBuffer((__gm__ float*)z + kBlock * AscendC::GetBlockIdx(), kBlock);
    pipe.InitBuffer(inQueueX, kBuffers, kTile * sizeof(float));
    pipe.InitBuffer(inQueueY, kBuffers, kTile * sizeof(float));
    pipe.InitBuffer(outQueueZ, kBuffers, kTile * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (int32_t i = 0; i < kTiles * kBuffers; i++) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t progress) {
    AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
    AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
    AscendC::DataCopy(xLocal, xGm[progress * kTile], kTile);
    AscendC::DataCopy(yLocal, yGm[progress * kTile], kTile);
    inQueueX.EnQue(xLocal);
    inQueueY.EnQue(yLocal);
  }
  __aicore__ inline void Compute() {
    AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
    AscendC::LocalTensor<float> yLocal = inQueueY.DeQue<float>();
    AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
    AscendC::Add(zLocal, xLocal, yLocal, kTile);
    outQueueZ.EnQue<float>(zLocal);
    inQueueX.FreeTensor(xLocal);
    inQueueY.FreeTensor(yLocal);
  }
  __aicore__ inline void CopyOut(int32_t progress) {
    AscendC::LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
    AscendC::DataCopy(zGm[progress * kTile], zLocal, kTile);
    outQueueZ.FreeTensor(zLocal);
  }
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, kBuffers> inQueueX, inQueueY;
  AscendC::TQue<TPosition::VECOUT, kBuffers> outQueueZ;
  AscendC::GlobalTensor<float> xGm, yGm, zGm;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
  KernelAdd op;
  op.Init(x, y, z);
  op.Process();
}

TEST(EmulatorCore, SampleVectorAddMatchesAndHasNoRace) {
  Gm x(kTotal * 4), y(kTotal * 4), z(kTotal * 4);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-4, 4);
  for (int i = 0; i < kTotal; ++i) x.as<float>()[i] = u(rng), y.as<float>()[i] = u(rng);
  const ascemu::Result r = ascemu::Run(collect("add_custom"), KERNEL_TYPE_AIV_ONLY, kCores,
                                       add_custom, x.addr(), y.addr(), z.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  EXPECT_EQ(r.instructions, uint64_t{kCores} * kTiles * kBuffers * 4);
  for (int i = 0; i < kTotal; ++i)
    ASSERT_EQ(z.as<float>()[i], x.as<float>()[i] + y.as<float>()[i]) << i;
}

TEST(EmulatorCore, KernelTypeIsCheckedAgainstTheLaunch) {
  Gm x(kTotal * 4), y(kTotal * 4), z(kTotal * 4);
  EXPECT_THROW(
      {
        try {
          ascemu::Run(ascemu::Options{}, KERNEL_TYPE_AIC_ONLY, 1, add_custom, x.addr(), y.addr(),
                      z.addr());
        } catch (const ascemu::Error& e) {
          EXPECT_NE(std::string(e.what()).find("launched as type"), std::string::npos) << e.what();
          throw;
        }
      },
      ascemu::Error);
}

// ---- explicit flags: exp(x) + x, with or without the synchronisation it needs ----
template <bool kSync>
__aicore__ void exp_add(GM_ADDR x, GM_ADDR z) {
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 2 * 256 * 4);
  AscendC::GlobalTensor<float> xg, zg;
  xg.SetGlobalBuffer((__gm__ float*)x + 256 * AscendC::GetBlockIdx(), 256);
  zg.SetGlobalBuffer((__gm__ float*)z + 256 * AscendC::GetBlockIdx(), 256);
  AscendC::LocalTensor<float> a = buf.Get<float>(), b = a[256];
  AscendC::DataCopy(a, xg, 256);
  if (kSync) {
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
  }
  AscendC::Exp(b, a, 256);
  if (kSync) AscendC::PipeBarrier<PIPE_V>();
  AscendC::Add(b, b, a, 256);
  if (kSync) {
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
  }
  AscendC::DataCopy(zg, b, 256);
}

TEST(EmulatorCore, SynchronisedFlagsGiveNoRace) {
  Gm x(2 * 1024), z(2 * 1024);
  for (int i = 0; i < 512; ++i) x.as<float>()[i] = static_cast<float>(i % 7) * 0.25f;
  const ascemu::Result r =
      ascemu::Run(collect("exp_add"), KERNEL_TYPE_AIV_ONLY, 2, exp_add<true>, x.addr(), z.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int i = 0; i < 512; ++i)
    EXPECT_FLOAT_EQ(z.as<float>()[i], std::exp(x.as<float>()[i]) + x.as<float>()[i]);
}

TEST(EmulatorCore, EveryMissingSyncIsARaceNamingBothCalls) {
  Gm x(2 * 1024), z(2 * 1024);
  const ascemu::Result r =
      ascemu::Run(collect("exp_add"), KERNEL_TYPE_AIV_ONLY, 1, exp_add<false>, x.addr(), z.addr());
  auto has = [&](const std::string& what) {
    for (const std::string& m : r.races)
      if (m.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("V `Exp` (call #2) reads what AIV 0 MTE2 `DataCopy` (call #1) wrote"));
  EXPECT_TRUE(has("HardEvent::MTE2_V"));
  EXPECT_TRUE(has("V `Add` (call #3) reads what AIV 0 V `Exp` (call #2) wrote"));
  EXPECT_TRUE(has("PipeBarrier<PIPE_V>"));
  EXPECT_TRUE(has("MTE3 `DataCopy` (call #4) reads what AIV 0 V `Add` (call #3) wrote"));
  EXPECT_TRUE(has("HardEvent::V_MTE3"));
  EXPECT_TRUE(has("kernel exp_add: UB bytes [0, 1024) of TBuf<VECCALC> #0"));
  // The first race stops the run by default.
  ascemu::Options stop;
  stop.kernel = "exp_add";
  EXPECT_THROW(ascemu::Run(stop, KERNEL_TYPE_AIV_ONLY, 1, exp_add<false>, x.addr(), z.addr()),
               ascemu::Error);
}

TEST(EmulatorCore, CceAutoSyncOrdersTheVectorPipeButNotTheDmas) {
  Gm x(2 * 1024), z(2 * 1024);
  ascemu::Options o = collect("exp_add");
  o.cce_auto_sync = true;
  const ascemu::Result r =
      ascemu::Run(o, KERNEL_TYPE_AIV_ONLY, 1, exp_add<false>, x.addr(), z.addr());
  bool v_v = false, mte2_v = false;
  for (const std::string& m : r.races) {
    v_v |= m.find("PipeBarrier<PIPE_V>") != std::string::npos;
    mte2_v |= m.find("MTE2_V") != std::string::npos;
  }
  EXPECT_FALSE(v_v);
  EXPECT_TRUE(mte2_v);
}

// Two cores writing the same GM: only cross-core synchronisation could order them.
__aicore__ void same_gm(GM_ADDR x, GM_ADDR z) {
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 256);
  AscendC::GlobalTensor<float> xg, zg;
  xg.SetGlobalBuffer((__gm__ float*)x, 64);
  zg.SetGlobalBuffer((__gm__ float*)z, 64);
  AscendC::LocalTensor<float> t = q.AllocTensor<float>();
  AscendC::DataCopy(t, xg, 64);
  q.EnQue(t);
  t = q.DeQue<float>();
  AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);  // V did nothing: orders the DeQue
  AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
  AscendC::DataCopy(zg, t, 64);
  q.FreeTensor(t);
}

TEST(EmulatorCore, CoresWritingTheSameGmRace) {
  Gm x(256), z(256);
  const ascemu::Result r =
      ascemu::Run(collect("same_gm"), KERNEL_TYPE_AIV_ONLY, 2, same_gm, x.addr(), z.addr());
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_NE(r.races[0].find("GM block #"), std::string::npos) << r.races[0];
  EXPECT_NE(r.races[0].find("AIV 1 MTE3 `DataCopy`"), std::string::npos) << r.races[0];
  EXPECT_NE(r.races[0].find("two cores"), std::string::npos) << r.races[0];
}

// ---- refusals ----
template <typename F>
std::string refusal(F body, KernelMetaType type = KERNEL_TYPE_AIV_ONLY) {
  try {
    ascemu::run_cores(ascemu::Options{}, type, 1, body);
  } catch (const ascemu::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(EmulatorCore, RefusesWhatTheHardwareRefuses) {
  Gm g(4096);
  auto gm = [&] {
    AscendC::GlobalTensor<float> t;
    t.SetGlobalBuffer(g.as<float>(), 1024);
    return t;
  };
  auto ub = [](AscendC::TPipe& pipe, AscendC::TBuf<TPosition::VECCALC>& b) {
    pipe.InitBuffer(b, 4096);
    return b.Get<float>();
  };
  EXPECT_NE(refusal([&] {
              AscendC::TPipe pipe;
              AscendC::TBuf<TPosition::VECCALC> b;
              AscendC::DataCopy(ub(pipe, b), gm(), 25);
            }).find("DataCopy: 100 bytes is not a multiple of 32 (the hardware would copy 96"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              AscendC::TPipe pipe;
              AscendC::TBuf<TPosition::VECCALC> b;
              AscendC::DataCopy(ub(pipe, b)[3], gm(), 8);
            }).find("UB address 12 is not 32-byte aligned"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              AscendC::TPipe pipe;
              AscendC::TBuf<TPosition::VECCALC> b;
              AscendC::DataCopy(ub(pipe, b), gm()[1000], 64);
            }).find("256 bytes past a GlobalTensor of 96"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              AscendC::TPipe pipe;
              AscendC::TBuf<TPosition::VECCALC> b;
              AscendC::GlobalTensor<float> whole;  // no size: GmAlloc's block bounds it
              whole.SetGlobalBuffer(g.as<float>());
              AscendC::DataCopy(ub(pipe, b), whole[1000], 64);
            }).find("GM bytes [4000, 4256) past GM block #"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              AscendC::TPipe pipe;
              AscendC::TBuf<TPosition::VECCALC> b;
              AscendC::LocalTensor<int32_t> t = ub(pipe, b).ReinterpretCast<int32_t>();
              AscendC::Div(t, t, t, 8);
            }).find("has no Div on int32_t"),
            std::string::npos);
  EXPECT_NE(
      refusal([&] { AscendC::SetFlag<AscendC::HardEvent::M_V>(EVENT_ID0); }).find("has no M pipe"),
      std::string::npos);
  EXPECT_NE(refusal([&] {
              AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(8);
            }).find("event id 8 outside 0..7"),
            std::string::npos);
  EXPECT_NE(refusal(
                [&] {
                  AscendC::TPipe pipe;
                  AscendC::TBuf<TPosition::A1> b;
                  pipe.InitBuffer(b, 4096);
                  AscendC::LocalTensor<float> t = b.Get<float>();
                  AscendC::Exp(t, t, 8);
                },
                KERNEL_TYPE_AIC_ONLY)
                .find("run on an AIV"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              AscendC::TPipe pipe;
              AscendC::TBuf<TPosition::VECCALC> b;
              pipe.InitBuffer(b, 200000);
            }).find("past its 196608 bytes"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              AscendC::TPipe pipe;
              AscendC::TQue<TPosition::VECIN, 1> q;
              pipe.InitBuffer(q, 2, 256);
              q.AllocTensor<float>();
              q.AllocTensor<float>();
              q.AllocTensor<float>();
            }).find("a FreeTensor is missing"),
            std::string::npos);
  EXPECT_NE(
      refusal([&] { AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0); }).find("deadlock"),
      std::string::npos);
  EXPECT_NE(refusal([&] {
              AscendC::TPipe pipe;
              AscendC::TQue<TPosition::VECIN, 1> q;
              pipe.InitBuffer(q, 1, 256);
              AscendC::LocalTensor<float> t = q.AllocTensor<float>();
              AscendC::DataCopy(t, gm(), 64);
              q.EnQue(t);
              q.DeQue<float>();
              q.DeQue<float>();
            }).find("nothing is enqueued"),
            std::string::npos);
}

// ---- DataCopyPad: each block padded to 32 bytes in UB, exactly blockLen bytes back in GM ----
TEST(EmulatorCore, DataCopyPadPadsEachBlockAndWritesBackOnlyTheData) {
  Gm src(64 * 4), dst(64 * 4);
  for (int i = 0; i < 64; ++i) src.as<float>()[i] = static_cast<float>(i + 1);
  for (int i = 0; i < 64; ++i) dst.as<float>()[i] = -1;
  std::vector<float> ub(3 * 16);
  auto body = [&] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 3 * 64);
    AscendC::GlobalTensor<float> s, d;
    s.SetGlobalBuffer(src.as<float>(), 64);
    d.SetGlobalBuffer(dst.as<float>(), 64);
    AscendC::LocalTensor<float> t = q.AllocTensor<float>();
    // 3 rows of 5 floats, 7 floats apart in GM; row 0 with one left pad of 9.
    AscendC::DataCopyPad(t, s, AscendC::DataCopyExtParams(3, 20, 8, 0, 0),
                         AscendC::DataCopyPadExtParams<float>(true, 1, 0, 9.0f));
    q.EnQue(t);
    t = q.DeQue<float>();
    for (uint32_t i = 0; i < 3 * 8; ++i) ub[i] = t.GetValue(i);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopyPad(d, t, AscendC::DataCopyExtParams(3, 24, 0, 4, 0));
    q.FreeTensor(t);
  };
  ascemu::Options o = collect("pad");
  o.cce_auto_sync = true;  // the GetValue reads after DeQue (V), ordered by the compiler
  ascemu::run_cores(o, KERNEL_TYPE_AIV_ONLY, 1, body);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(ub[r * 8], 9.0f);
    for (int c = 0; c < 5; ++c) EXPECT_EQ(ub[r * 8 + 1 + c], static_cast<float>(r * 7 + c + 1));
    EXPECT_EQ(ub[r * 8 + 6], 9.0f);  // the rounding to 32 bytes holds the pad value
  }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 7; ++c) {
      const float want = c < 6 ? ub[r * 8 + c] : -1.0f;  // 24 bytes per row, 4 bytes of gap
      EXPECT_EQ(dst.as<float>()[r * 7 + c], want) << r << "," << c;
    }
}

}  // namespace
