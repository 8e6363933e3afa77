// What the Atlas A2 vector unit and its API refuse, refused with the call and the numbers; and the
// race checker seeing exactly the blocks a level-0 call touches.
#include <string>

#include "vec_test_util.h"

namespace {

using AscendC::TPosition;
using vectest::refusal;

// A UB buffer of 8 KiB as T, for a refused call.
template <typename T, typename F>
std::string on_ub(F call) {
  return refusal([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 8192);
    call(b.Get<T>());
  });
}

#define EXPECT_REFUSED(MSG, EXPR) EXPECT_NE((EXPR).find(MSG), std::string::npos) << (EXPR)

TEST(EmulatorVecRefusals, ElementTypesNotOnTheA2) {
  EXPECT_REFUSED("Exp: the Atlas A2 vector unit has no Exp on int32_t (it has half, float)",
                 on_ub<int32_t>([](auto t) { AscendC::Exp(t, t, 64); }));
  EXPECT_REFUSED("Add: the Atlas A2 vector unit has no Add on bfloat16_t",
                 on_ub<bfloat16_t>([](auto t) { AscendC::Add(t, t, t, 64); }));
  EXPECT_REFUSED("And: the Atlas A2 vector unit has no And on int32_t (it has int16_t, uint16_t)",
                 on_ub<int32_t>([](auto t) { AscendC::And(t, t, t, 64); }));
  EXPECT_REFUSED(
      "Compare: the Atlas A2 vector unit has no Compare on int32_t with a CMPMODE other "
      "than EQ",
      on_ub<int32_t>([](auto t) {
        AscendC::Compare(t.template ReinterpretCast<uint8_t>()[4096], t, t, AscendC::CMPMODE::LT,
                         64);
      }));
  EXPECT_REFUSED("Cast: half -> float takes CAST_NONE, not CAST_RINT", on_ub<half>([](auto t) {
                   AscendC::Cast(t.template ReinterpretCast<float>()[1024], t,
                                 AscendC::RoundMode::CAST_RINT, 64);
                 }));
  EXPECT_REFUSED(
      "Cast: the Atlas A2 has no Cast float -> int8_t (from float it casts to int16_t, "
      "half, bfloat16_t, int32_t, float, int64_t)",
      on_ub<float>([](auto t) {
        AscendC::Cast(t.template ReinterpretCast<int8_t>()[4096], t, AscendC::RoundMode::CAST_RINT,
                      64);
      }));
  EXPECT_REFUSED(
      "Cast: float -> bfloat16_t takes CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, "
      "CAST_TRUNC, not CAST_NONE",
      on_ub<float>([](auto t) {
        AscendC::Cast(t.template ReinterpretCast<bfloat16_t>()[2048], t,
                      AscendC::RoundMode::CAST_NONE, 64);
      }));
  EXPECT_REFUSED("Select: the Atlas A2 vector unit has no Select on int16_t",
                 on_ub<int16_t>([](auto t) {
                   AscendC::Select(t, t.template ReinterpretCast<uint8_t>(), t, t,
                                   AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, 128);
                 }));
}

TEST(EmulatorVecRefusals, RepeatsStridesCountsAndOperands) {
  EXPECT_REFUSED(
      "Add: repeatTime 300 outside [0, 255] (a uint8_t: the hardware would run 44 "
      "repeats)",
      on_ub<float>([](auto t) {
        const int repeats = 300;
        AscendC::Add(t, t, t, 64, repeats, AscendC::BinaryRepeatParams(1, 1, 1, 0, 0, 0));
      }));
  EXPECT_REFUSED(
      "Compare: count 100 is 400 bytes, not whole 256-byte repeats (the Atlas A2 would "
      "compare only the first 64 elements)",
      on_ub<float>([](auto t) {
        AscendC::Compare(t.template ReinterpretCast<uint8_t>()[4096], t, t, AscendC::CMPMODE::LT,
                         100);
      }));
  EXPECT_REFUSED("CompareScalar: count 200 is 400 bytes, not whole 256-byte repeats",
                 on_ub<half>([](auto t) {
                   AscendC::CompareScalar(t.template ReinterpretCast<uint8_t>()[4096], t, half(0),
                                          AscendC::CMPMODE::GT, 200);
                 }));
  EXPECT_REFUSED("Compares: count 100 is 200 bytes, not whole 256-byte repeats",
                 on_ub<half>([](auto t) {
                   AscendC::Compares(t.template ReinterpretCast<uint8_t>()[4096], t, half(0),
                                     AscendC::CMPMODE::LE, 100);
                 }));
  EXPECT_REFUSED("Add: UB address 12 is not 32-byte aligned",
                 on_ub<float>([](auto t) { AscendC::Add(t, t[3], t, 16); }));
  EXPECT_REFUSED("Mul: dstBlkStride 0 is undefined on the hardware", on_ub<float>([](auto t) {
                   AscendC::Mul(t, t, t, 64, 1, AscendC::BinaryRepeatParams(0, 1, 1, 8, 8, 8));
                 }));
  EXPECT_REFUSED(
      "Adds: dst reaches UB byte 8224 (repeat 8, block 0), past its tensor's end at 8192",
      on_ub<float>([](auto t) {
        AscendC::Adds(t, t[1024], 1.0f, 64, 9, AscendC::UnaryRepeatParams(1, 1, 32, 0));
      }));
  EXPECT_REFUSED("Sub: count 3000 past an operand of 2048 elements",
                 on_ub<float>([](auto t) { AscendC::Sub(t, t, t, 3000); }));
  EXPECT_REFUSED("ShiftLeft: shift 17 outside [0, 16] for int16_t",
                 on_ub<int16_t>([](auto t) { AscendC::ShiftLeft(t, t, int16_t{17}, 128); }));
  EXPECT_REFUSED("ReduceMax: sharedTmpBuffer holds 8 elements; the call needs 16",
                 on_ub<float>([](auto t) {
                   auto small = t[2048];
                   small.SetSize(8);
                   AscendC::ReduceMax(t, t[64], small, 512);
                 }));
  EXPECT_REFUSED(
      "WholeReduceMax: dst reaches UB byte 8200 (repeat 1), past its tensor's end at 8192",
      on_ub<float>([](auto t) {
        auto dst = t[2040];
        AscendC::WholeReduceMax<float>(dst, t, 64, 2, 4, 1, 8);
      }));
  EXPECT_REFUSED("Adds: in counter mode (SetMaskCount) the continuous mask 130",
                 on_ub<half>([](auto t) {
                   AscendC::SetMaskCount();
                   AscendC::Adds(t, t, half(1), 130, 1, AscendC::UnaryRepeatParams());
                 }));
  EXPECT_REFUSED("Select: VSEL_TENSOR_SCALAR_MODE takes a scalar src1", on_ub<float>([](auto t) {
                   AscendC::Select(t, t.template ReinterpretCast<uint8_t>(), t, t,
                                   AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
                 }));
}

// ---- races: Add with dstBlkStride 2 writes the even 32-byte blocks of 512 bytes ----
template <int kReadBlock>
void strided_add(GM_ADDR out) {
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 2048);
  AscendC::LocalTensor<float> src = b.Get<float>(), dst = src[256];
  AscendC::Duplicate(src, 1.0f, 64);
  AscendC::PipeBarrier<PIPE_V>();
  AscendC::Adds(dst, src, 1.0f, 64, 1, AscendC::UnaryRepeatParams(2, 1, 16, 8));
  AscendC::GlobalTensor<float> g;
  g.SetGlobalBuffer((__gm__ float*)out, 8);
  AscendC::DataCopy(g, dst[8 * kReadBlock], 8);  // no V_MTE3 flag
}

TEST(EmulatorVecRaces, LevelZeroBlocksAreWhatTheCheckerSees) {
  vectest::Gm out(64);
  ascemu::Result r = ascemu::Run(vectest::collect("strided_add"), KERNEL_TYPE_AIV_ONLY, 1,
                                 strided_add<2>, out.addr());
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_NE(r.races[0].find("kernel strided_add: UB bytes [1088, 1120) of TBuf<VECCALC> #0: AIV 0 "
                            "MTE3 `DataCopy` (call #4) reads what AIV 0 V `Adds` (call #3) wrote"),
            std::string::npos)
      << r.races[0];
  EXPECT_NE(r.races[0].find("HardEvent::V_MTE3"), std::string::npos) << r.races[0];
  // Block 1 lies in the stride's gap: nothing wrote it.
  r = ascemu::Run(vectest::collect("strided_add"), KERNEL_TYPE_AIV_ONLY, 1, strided_add<1>,
                  out.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
}

// A level-0 read of blocks the MTE2 pipe wrote, without MTE2_V.
void unsynced_reduce(GM_ADDR in) {
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::VECCALC> b;
  pipe.InitBuffer(b, 4096);
  AscendC::LocalTensor<float> x = b.Get<float>();
  AscendC::GlobalTensor<float> g;
  g.SetGlobalBuffer((__gm__ float*)in, 64);
  AscendC::DataCopy(x[512], g, 64);
  AscendC::BlockReduceSum<float>(x, x[448], 2, 64, 1, 1, 8);  // its 2nd repeat reads [512, 576)
}

TEST(EmulatorVecRaces, LevelZeroReadOfUnsyncedDma) {
  vectest::Gm in(256);
  const ascemu::Result r = ascemu::Run(vectest::collect("unsynced_reduce"), KERNEL_TYPE_AIV_ONLY, 1,
                                       unsynced_reduce, in.addr());
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_NE(r.races[0].find("UB bytes [1792, 2304) of TBuf<VECCALC> #0: AIV 0 V `BlockReduceSum` "
                            "(call #2) reads what AIV 0 MTE2 `DataCopy` (call #1) wrote"),
            std::string::npos)
      << r.races[0];
}

}  // namespace
