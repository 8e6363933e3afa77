// The advanced APIs' temporary space and refusals: the framework's temp is the UB after the
// TPipe's last allocation, refused when smaller than the Get*MaxMinTmpSize minimum; a
// sharedTmpBuffer too small or overlapping an operand, overlapping src/dst and element types the
// A2 lacks are refused with the numbers; the temp and the results are in the race checker's view.
#include "math_test_util.h"

namespace {

using AscendC::TPosition;
using vectest::refusal;

#define EXPECT_REFUSED(MSG, EXPR)                       \
  do {                                                  \
    const std::string got = (EXPR);                     \
    EXPECT_NE(got.find(MSG), std::string::npos) << got; \
  } while (0)

constexpr uint32_t kUB = 192 * 1024;  // the A2 AIV's UB

// A kernel whose TPipe hands out `used` bytes of UB: src (n elements) at 0, dst right after.
template <typename T, typename F>
std::string in_pipe(uint32_t used, F call) {
  return refusal([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, used);
    const AscendC::LocalTensor<T> t = b.Get<T>();
    call(t, t[1024 / sizeof(T)]);  // src: bytes [0, 1024), dst: [1024, ...)
  });
}

TEST(EmulatorVecMathTemp, FrameworkTempFitsInTheLeftOverUB) {
  // 2048 bytes left: exactly Erf's half minimum, and Power's half minimum.
  EXPECT_EQ(in_pipe<half>(kUB - 2048,
                          [](auto src, auto dst) {
                            AscendC::Erf(dst, src, 301);
                            AscendC::PipeBarrier<PIPE_V>();  // the two temps are one UB range
                            AscendC::Power(dst[512], src, half(2.0f), 301);
                          }),
            "(accepted)");
  // 1024 left: Tanh half (1024) fits, Erf half (2048) does not.
  EXPECT_EQ(in_pipe<half>(kUB - 1024, [](auto src, auto dst) { AscendC::Tanh(dst, src, 301); }),
            "(accepted)");
  EXPECT_REFUSED(
      "Erf: the framework takes its temporary space from the UB the TPipe left over: 1024 bytes "
      "after the TPipe's 195584 of 196608; half needs at least 2048 (InitBuffer less, or pass a "
      "sharedTmpBuffer)",
      in_pipe<half>(kUB - 1024, [](auto src, auto dst) { AscendC::Erf(dst, src, 301); }));
  // Sin on float needs 768: exactly that fits; InitBuffer's 32-byte rounding of 700 leaves 672.
  EXPECT_EQ(in_pipe<float>(kUB - 768, [](auto src, auto dst) { AscendC::Sin(dst, src, 64); }),
            "(accepted)");
  EXPECT_REFUSED(
      "Sin: the framework takes its temporary space from the UB the TPipe left over: 672 bytes "
      "after the TPipe's 195936 of 196608; float needs at least 768",
      in_pipe<float>(kUB - 700, [](auto src, auto dst) { AscendC::Sin(dst, src, 64); }));
  // A call needing no temp runs with no UB left (Silu; Round and Floor on float).
  EXPECT_EQ(in_pipe<float>(kUB,
                           [](auto src, auto dst) {
                             AscendC::Silu(dst, src, 255);
                             AscendC::PipeBarrier<PIPE_V>();
                             AscendC::Round(dst, src, 255);
                             AscendC::PipeBarrier<PIPE_V>();
                             AscendC::Floor(dst, src, 255);
                           }),
            "(accepted)");
  EXPECT_REFUSED(
      "Power: the framework takes its temporary space from the UB the TPipe left over: "
      "0 bytes after the TPipe's 196608 of 196608; int32_t needs at least 1536",
      in_pipe<int32_t>(kUB, [](auto src, auto dst) { AscendC::Power(dst, src, dst[512], 100); }));
}

TEST(EmulatorVecMathTemp, SharedTmpBufferRefusals) {
  auto with_tmp = [](uint32_t tmp_bytes, auto call) {
    return refusal([&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::VECCALC> b, t;
      pipe.InitBuffer(b, 8192);
      pipe.InitBuffer(t, tmp_bytes);
      call(b.Get<half>(), t.Get<uint8_t>());
    });
  };
  EXPECT_REFUSED(
      "Fmod: sharedTmpBuffer holds 1024 bytes; half needs at least 2048",
      with_tmp(1024, [](auto x, auto tmp) { AscendC::Fmod(x[2048], x, x[1024], tmp, 99); }));
  EXPECT_REFUSED("Sign: sharedTmpBuffer holds 512 bytes; half needs at least 768",
                 with_tmp(512, [](auto x, auto tmp) { AscendC::Sign(x[2048], x, tmp, 99); }));
  EXPECT_REFUSED("Sin: sharedTmpBuffer UB bytes [0, 2048) overlap dst [0, 198)",
                 with_tmp(32, [](auto x, auto tmp) {
                   (void)tmp;
                   AscendC::Sin(x, x[2048], x.template ReinterpretCast<uint8_t>(), 99);
                 }));
  EXPECT_REFUSED("Cos: source UB bytes [0, 198) overlap dst [128, 326) (the API does not allow it)",
                 with_tmp(4096, [](auto x, auto tmp) { AscendC::Cos(x[64], x, tmp, 99); }));
  // Round's docs do not forbid src == dst.
  EXPECT_EQ(with_tmp(4096, [](auto x, auto tmp) { AscendC::Round(x, x, tmp, 99); }), "(accepted)");
  EXPECT_REFUSED(
      "Power: src0Tensor holds 3072 elements, src1Tensor 1024 (the form without calCount needs "
      "equal shapes)",
      with_tmp(4096, [](auto x, auto tmp) {
        AscendC::LocalTensor<half> b = x[3072];
        AscendC::Power(x, x[1024], b, tmp);
      }));
}

// isReuseSource on float Sin/Cos lowers the minimum to 512 bytes (the call may overwrite src);
// on half it has no effect (8 * 256 either way).
TEST(EmulatorVecMathTemp, IsReuseSourceOnFloatSinCos) {
  auto with_tmp = [](uint32_t tmp_bytes, auto call) {
    return refusal([&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::VECCALC> b, t;
      pipe.InitBuffer(b, 8192);
      pipe.InitBuffer(t, tmp_bytes);
      call(b.Get<float>(), t.Get<uint8_t>());
    });
  };
  EXPECT_EQ(with_tmp(512, [](auto x, auto tmp) { AscendC::Sin<float, true>(x[1024], x, tmp, 77); }),
            "(accepted)");
  EXPECT_REFUSED("Cos: sharedTmpBuffer holds 512 bytes; float needs at least 768",
                 with_tmp(512, [](auto x, auto tmp) { AscendC::Cos(x[1024], x, tmp, 77); }));
  EXPECT_REFUSED("Sin: sharedTmpBuffer holds 1024 bytes; half needs at least 2048",
                 with_tmp(1024, [](auto x, auto tmp) {
                   const auto h = x.template ReinterpretCast<half>();
                   AscendC::Sin<half, true>(h[2048], h, tmp, 77);
                 }));
}

// Sin/Cos inputs outside [-65504, 65504] are undefined on the A2: NaN marks them.
TEST(EmulatorVecMathTemp, SinOutsideItsDomainIsNaN) {
  const std::vector<float> x = {65504.0f, -65504.0f, 65600.0f, -1e30f, 0.0f, 1.0f, 2.0f, 3.0f};
  const std::vector<float> out = mathtest::run<float>(
      x, x, 8, [](const mathtest::Ops<float>& o) { AscendC::Sin(o.d, o.a, 8); });
  EXPECT_FALSE(std::isnan(out[0]) || std::isnan(out[1]));
  EXPECT_TRUE(std::isnan(out[2]) && std::isnan(out[3]));
  EXPECT_EQ(out[4], 0.0f);
}

TEST(EmulatorVecMathTemp, ElementTypesNotOnTheA2) {
  auto on = [](auto call) { return in_pipe<int32_t>(8192, call); };
  EXPECT_REFUSED("Xor: the Atlas A2 vector unit has no Xor on int32_t (it has int16_t, uint16_t)",
                 on([](auto s, auto d) { AscendC::Xor(d, s, s, 8); }));
  EXPECT_REFUSED("Sin: the Atlas A2 vector unit has no Sin on int32_t (it has half, float)",
                 on([](auto s, auto d) { AscendC::Sin(d, s, 8); }));
  EXPECT_REFUSED("Fmod: the Atlas A2 vector unit has no Fmod on int32_t (it has half, float)",
                 on([](auto s, auto d) { AscendC::Fmod(d, s, s, 8); }));
  EXPECT_REFUSED(
      "Power: the Atlas A2 vector unit has no Power on int16_t (it has half, float, "
      "int32_t)",
      in_pipe<int16_t>(8192, [](auto s, auto d) { AscendC::Power(d, s, s, 8); }));
  EXPECT_REFUSED("Xor: the Atlas A2 vector unit has no Xor on half",
                 in_pipe<half>(8192, [](auto s, auto d) { AscendC::Xor(d, s, s, 8); }));
}

// Two calls without a sharedTmpBuffer take the same left-over UB: unordered, their temps race.
TEST(EmulatorVecMathTemp, TwoFrameworkTempsWithoutABarrierRace) {
  EXPECT_REFUSED(
      "race in kernel kernel: UB bytes [194560, 196608): AIV 0 V `Power` (call #2) writes what "
      "AIV 0 V `Erf` (call #1) wrote, and nothing orders them",
      in_pipe<half>(kUB - 2048, [](auto src, auto dst) {
        AscendC::Erf(dst, src, 301);
        AscendC::Power(dst[512], src, half(2.0f), 301);
      }));
}

// An MTE3 DataCopy of a Sin result without a V_MTE3 flag: a race naming both calls.
TEST(EmulatorVecMathTemp, RaceOnASinResultWithoutAFlag) {
  vectest::Gm gx(1024), gy(1024);
  const ascemu::Result r = ascemu::run_cores(vectest::collect("sin"), KERNEL_TYPE_AIV_ONLY, 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    AscendC::LocalTensor<float> x = b.Get<float>(), y = x[256];
    vectest::load(x, gx.as<float>(), 256);
    AscendC::Sin(y, x, 256);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(gy.as<float>(), 256);
    AscendC::DataCopy(g, y, 256);  // no SetFlag/WaitFlag<V_MTE3>
  });
  ASSERT_FALSE(r.races.empty());
  EXPECT_NE(r.races.front().find("MTE3 `DataCopy`"), std::string::npos) << r.races.front();
  EXPECT_NE(r.races.front().find("V `Sin`"), std::string::npos) << r.races.front();
}

// The framework's temp is written by the call: an MTE2 copy into the left-over UB that no flag
// orders against the Sin races with it; with the MTE2_V flag, no race.
TEST(EmulatorVecMathTemp, TheFrameworkTempIsInTheAccesses) {
  vectest::Gm gx(4096);
  for (bool flag : {false, true}) {
    const ascemu::Result r =
        ascemu::run_cores(vectest::collect("temp"), KERNEL_TYPE_AIV_ONLY, 1, [&] {
          AscendC::TPipe pipe;
          AscendC::TBuf<TPosition::VECCALC> b;
          pipe.InitBuffer(b, 2048);
          AscendC::LocalTensor<float> x = b.Get<float>(), y = x[256];
          // UB the TPipe did not hand out, as a kernel might address it by hand.
          AscendC::LocalTensor<float> stray(ascemu::Mem::kUB, 4096, 256, TPosition::VECCALC);
          AscendC::GlobalTensor<float> g;
          g.SetGlobalBuffer(gx.as<float>(), 256);
          AscendC::DataCopy(stray, g, 256);
          if (flag) {
            AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID1);
            AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID1);
          }
          AscendC::Sin(y, x, 256);  // temp: UB [2048, 2048 + 3 * 1024)
        });
    if (flag) {
      EXPECT_TRUE(r.races.empty()) << r.races.front();
    } else {
      ASSERT_FALSE(r.races.empty());
      EXPECT_NE(r.races.front().find("V `Sin`"), std::string::npos) << r.races.front();
      EXPECT_NE(r.races.front().find("`DataCopy`"), std::string::npos) << r.races.front();
    }
  }
}

}  // namespace
