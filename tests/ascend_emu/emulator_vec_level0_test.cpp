// The vector unit's level-0 forms against a naive reference of the repeat addressing (repeat r,
// block b, element j at (r * repStride + b * blkStride) * 32 + j * sizeof(T)): bit and continuous
// masks, strides (0 included), counter mode, isSetMask = false with SetVectorMask; the mask
// registers' state across calls.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "vec_test_util.h"

namespace {

using AscendC::TPosition;
using vectest::Gm;

using vectest::at;
using vectest::bit;
using vectest::kRegion;
using vectest::Regions;

TEST(EmulatorVecLevel0, HalfAddWithBitMaskAndStrides) {
  Regions g(1);
  g.fill_half<half>();
  const uint64_t mask[2] = {0x69A569A5F00F0FF0ull, 0x8000000000000001ull};
  const AscendC::BinaryRepeatParams p(2, 1, 3, 20, 8, 24);
  const std::vector<uint8_t> out = g.run([&](auto a, auto b, auto d) {
    uint64_t m[2] = {mask[0], mask[1]};
    AscendC::Add(d.template ReinterpretCast<half>(), a.template ReinterpretCast<half>(),
                 b.template ReinterpretCast<half>(), m, 3, p);
  });
  std::vector<uint8_t> want = g.dst;
  for (uint32_t r = 0; r < 3; ++r)
    for (uint32_t j = 0; j < 128; ++j) {
      if (!bit(mask, j)) continue;
      const float x = g.get<half>(g.src0, at(r, j, 2, 1, 8));
      const float y = g.get<half>(g.src1, at(r, j, 2, 3, 24));
      const half z(x + y);
      std::memcpy(&want[at(r, j, 2, 2, 20)], &z, 2);
    }
  EXPECT_EQ(out, want);
}

TEST(EmulatorVecLevel0, FloatMulContinuousMaskAndZeroSourceStride) {
  Regions g(2);
  const AscendC::BinaryRepeatParams p(1, 0, 1, 9, 1, 8);  // src0: the first block of each repeat
  const std::vector<uint8_t> out = g.run([&](auto a, auto b, auto d) {
    AscendC::Mul(d.template ReinterpretCast<float>(), a.template ReinterpretCast<float>(),
                 b.template ReinterpretCast<float>(), 37, 4, p);
    AscendC::PipeBarrier<PIPE_V>();
    // A mask past 64 elements of float runs the whole repeat.
    AscendC::Sub(d.template ReinterpretCast<float>()[1024], a.template ReinterpretCast<float>(),
                 b.template ReinterpretCast<float>(), 100, 1, AscendC::BinaryRepeatParams());
  });
  std::vector<uint8_t> want = g.dst;
  for (uint32_t r = 0; r < 4; ++r)
    for (uint32_t j = 0; j < 37; ++j) {
      const float z =
          g.get<float>(g.src0, at(r, j, 4, 0, 1)) * g.get<float>(g.src1, at(r, j, 4, 1, 8));
      std::memcpy(&want[at(r, j, 4, 1, 9)], &z, 4);
    }
  for (uint32_t j = 0; j < 64; ++j) {
    const float z = g.get<float>(g.src0, j * 4) - g.get<float>(g.src1, j * 4);
    std::memcpy(&want[4096 + j * 4], &z, 4);
  }
  EXPECT_EQ(out, want);
}

TEST(EmulatorVecLevel0, CounterModeRunsTheCountAcrossRepeats) {
  Regions g(3);
  g.fill_half<half>();
  const std::vector<uint8_t> out = g.run([&](auto a, auto, auto d) {
    AscendC::SetMaskCount();
    uint64_t mask[2] = {130, 0};
    const AscendC::UnaryRepeatParams p{2, 2, 16, 16};
    AscendC::Adds(d.template ReinterpretCast<half>(), a.template ReinterpretCast<half>(),
                  static_cast<half>(1.0f), mask, 1, p);
    AscendC::SetMaskNorm();
    AscendC::ResetMask();
  });
  std::vector<uint8_t> want = g.dst;
  for (uint32_t i = 0; i < 130; ++i) {
    const uint32_t r = i / 128, j = i % 128;
    const half z(static_cast<float>(g.get<half>(g.src0, at(r, j, 2, 2, 16))) + 1.0f);
    std::memcpy(&want[at(r, j, 2, 2, 16)], &z, 2);
  }
  EXPECT_EQ(out, want);
}

TEST(EmulatorVecLevel0, MaskSetOutsideTheCallAndResetByLevel2Calls) {
  Regions g(4);
  const uint64_t lo = 0xF0F0F0F0F0F0F0F0ull;
  const std::vector<uint8_t> out = g.run([&](auto a, auto b, auto d) {
    auto fa = a.template ReinterpretCast<float>();
    auto fb = b.template ReinterpretCast<float>();
    auto fd = d.template ReinterpretCast<float>();
    AscendC::SetVectorMask<float>(0, lo);
    AscendC::Max<float, false>(fd, fa, fb, AscendC::MASK_PLACEHOLDER, 2, {1, 1, 1, 8, 8, 8});
    AscendC::PipeBarrier<PIPE_V>();
    // Counter mode set outside: a level-2 call with isSetMask = false runs the register's count.
    AscendC::SetMaskCount();
    AscendC::SetVectorMask<float, AscendC::MaskMode::COUNTER>(100);
    AscendC::Adds<float, false>(fd[256], fa[256], 2.0f, 1);
    AscendC::SetMaskNorm();
    AscendC::PipeBarrier<PIPE_V>();
    // A level-2 call leaves a full mask: the placeholder call then runs every element.
    AscendC::Muls(fd[512], fa[512], 3.0f, 8);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Min<float, false>(fd[768], fa[768], fb[768], AscendC::MASK_PLACEHOLDER, 1,
                               AscendC::BinaryRepeatParams());
  });
  std::vector<uint8_t> want = g.dst;
  auto put = [&](uint32_t i, float v) { std::memcpy(&want[i * 4], &v, 4); };
  auto fa = [&](uint32_t i) { return g.get<float>(g.src0, i * 4); };
  auto fb = [&](uint32_t i) { return g.get<float>(g.src1, i * 4); };
  for (uint32_t r = 0; r < 2; ++r)
    for (uint32_t j = 0; j < 64; ++j)
      if ((lo >> j) & 1u) put(r * 64 + j, std::max(fa(r * 64 + j), fb(r * 64 + j)));
  for (uint32_t i = 256; i < 356; ++i) put(i, fa(i) + 2.0f);
  for (uint32_t i = 512; i < 520; ++i) put(i, fa(i) * 3.0f);
  for (uint32_t i = 768; i < 832; ++i) put(i, std::min(fa(i), fb(i)));
  EXPECT_EQ(out, want);
}

TEST(EmulatorVecLevel0, UnaryScalarAndBitwiseForms) {
  Regions g(5);
  for (uint32_t i = 0; i < kRegion / 4; ++i) {  // positive floats for Sqrt/Ln
    const float v = std::fabs(g.get<float>(g.src0, i * 4)) + 0.5f;
    std::memcpy(&g.src0[i * 4], &v, 4);
  }
  const std::vector<uint8_t> out = g.run([&](auto a, auto b, auto d) {
    auto fa = a.template ReinterpretCast<float>();
    auto fd = d.template ReinterpretCast<float>();
    AscendC::Sqrt(fd, fa, 64, 2, AscendC::UnaryRepeatParams(1, 2, 8, 16));
    AscendC::Ln(fd[128], fa, 10, 1, AscendC::UnaryRepeatParams());
    auto ia = a.template ReinterpretCast<int16_t>()[1024];
    auto ib = b.template ReinterpretCast<int16_t>()[1024];
    auto id = d.template ReinterpretCast<int16_t>()[1024];
    uint64_t m[2] = {~0ull, 0xFFull};
    AscendC::And(id, ia, ib, m, 1, AscendC::BinaryRepeatParams());
    AscendC::Or(id[128], ia[128], ib[128], 128);
    AscendC::Not(id[256], ia[256], 128, 1, AscendC::UnaryRepeatParams());
    AscendC::ShiftRight(id[384], ia[384], int16_t{3}, 128);
    AscendC::ShiftLeft(id[512], ia[512], int16_t{5}, 128, 1, AscendC::UnaryRepeatParams());
    AscendC::Duplicate(fd[1536], 7.5f, 16, 2, 2, 8);
  });
  std::vector<uint8_t> want = g.dst;
  for (uint32_t r = 0; r < 2; ++r)
    for (uint32_t j = 0; j < 64; ++j) {
      const float v = std::sqrt(g.get<float>(g.src0, at(r, j, 4, 2, 16)));
      std::memcpy(&want[at(r, j, 4, 1, 8)], &v, 4);
    }
  for (uint32_t j = 0; j < 10; ++j) {
    const float v = std::log(g.get<float>(g.src0, j * 4));
    std::memcpy(&want[512 + j * 4], &v, 4);
  }
  auto i16 = [&](const std::vector<uint8_t>& v, uint32_t i) {
    return g.get<int16_t>(v, 2048 + i * 2);
  };
  auto put16 = [&](uint32_t i, int v) {
    const auto s = static_cast<int16_t>(v);
    std::memcpy(&want[2048 + i * 2], &s, 2);
  };
  for (uint32_t i = 0; i < 72; ++i) put16(i, i16(g.src0, i) & i16(g.src1, i));
  for (uint32_t i = 128; i < 256; ++i) put16(i, i16(g.src0, i) | i16(g.src1, i));
  for (uint32_t i = 256; i < 384; ++i) put16(i, ~i16(g.src0, i));
  for (uint32_t i = 384; i < 512; ++i) put16(i, i16(g.src0, i) >> 3);
  for (uint32_t i = 512; i < 640; ++i)
    put16(i, static_cast<int16_t>(static_cast<uint16_t>(i16(g.src0, i)) << 5));
  const float dup = 7.5f;
  for (uint32_t r = 0; r < 2; ++r)
    for (uint32_t j = 0; j < 16; ++j) std::memcpy(&want[6144 + at(r, j, 4, 2, 8)], &dup, 4);
  EXPECT_EQ(out, want);
}

TEST(EmulatorVecLevel0, AxpyAccumulatesHalfIntoFloat) {
  Regions g(6);
  g.fill_half<half>();
  const std::vector<uint8_t> out = g.run([&](auto a, auto, auto d) {
    auto fd = d.template ReinterpretCast<float>();
    AscendC::Duplicate(fd, 1.0f, 200);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Axpy(fd, a.template ReinterpretCast<half>(), static_cast<half>(0.5f), 200);
  });
  std::vector<uint8_t> want = g.dst;
  for (uint32_t i = 0; i < 200; ++i) {
    const float v = static_cast<float>(g.get<half>(g.src0, i * 2)) * 0.5f + 1.0f;
    std::memcpy(&want[i * 4], &v, 4);
  }
  EXPECT_EQ(out, want);
}

}  // namespace

namespace {

TEST(EmulatorVecLevel0, CastRepeatsSpanTheWiderType) {
  Regions g(7);
  // float -> half, 64 elements a repeat: the half side's repeat is 4 blocks (dstRepStride 4).
  const std::vector<uint8_t> out = g.run([&](auto a, auto, auto d) {
    uint64_t m[2] = {0xFFFFFFFF0000FFFFull, 0};
    AscendC::Cast(d.template ReinterpretCast<half>(), a.template ReinterpretCast<float>(),
                  AscendC::RoundMode::CAST_TRUNC, m, 3, AscendC::UnaryRepeatParams(1, 1, 4, 8));
    // half -> float with a gap block after each float repeat.
    AscendC::Cast(d.template ReinterpretCast<float>()[1024], a.template ReinterpretCast<half>(),
                  AscendC::RoundMode::CAST_NONE, 64, 2, AscendC::UnaryRepeatParams(1, 1, 9, 4));
  });
  std::vector<uint8_t> want = g.dst;
  const uint64_t m0 = 0xFFFFFFFF0000FFFFull;
  for (uint32_t r = 0; r < 3; ++r)
    for (uint32_t j = 0; j < 64; ++j) {
      if (!((m0 >> j) & 1u)) continue;
      const float x = [&] {
        float v;
        std::memcpy(&v, &g.src0[at(r, j, 4, 1, 8)], 4);
        return v;
      }();
      // TRUNC: the half nearest zero, found by stepping down from round-to-nearest.
      half h(x);
      if (std::fabs(static_cast<float>(h)) > std::fabs(x))
        h.bits = static_cast<uint16_t>(h.bits - 1);
      std::memcpy(&want[at(r, j, 2, 1, 4)], &h, 2);
    }
  for (uint32_t r = 0; r < 2; ++r)
    for (uint32_t j = 0; j < 64; ++j) {
      half h;
      std::memcpy(&h, &g.src0[at(r, j, 2, 1, 4)], 2);
      const float v = h;
      std::memcpy(&want[4096 + at(r, j, 4, 1, 9)], &v, 4);
    }
  EXPECT_EQ(out, want);
}

TEST(EmulatorVecLevel0, CounterModeFromSetVectorMaskAndCompareLeavesTheMask) {
  Regions g(8);
  const std::vector<uint8_t> out = g.run([&](auto a, auto b, auto d) {
    auto fa = a.template ReinterpretCast<float>();
    auto fb = b.template ReinterpretCast<float>();
    auto fd = d.template ReinterpretCast<float>();
    AscendC::SetMaskCount();
    AscendC::SetVectorMask<float, AscendC::MaskMode::COUNTER>(150);
    // The repeat count is ignored: 150 elements, 3 repeats, 2 blocks apart in dst.
    AscendC::Sub<float, false>(fd, fa, fb, AscendC::MASK_PLACEHOLDER, 1, {2, 1, 1, 16, 8, 8});
    AscendC::SetMaskNorm();
    AscendC::ResetMask();
    AscendC::SetVectorMask<float>(0, 0xFFull);
    AscendC::Compare(d[4096], fa, fb, AscendC::CMPMODE::GT, 3, 1, AscendC::BinaryRepeatParams());
    AscendC::Abs<float, false>(fd[1536], fa, AscendC::MASK_PLACEHOLDER, 1,
                               AscendC::UnaryRepeatParams());  // still the 8-element mask
  });
  std::vector<uint8_t> want = g.dst;
  auto f = [&](const std::vector<uint8_t>& v, uint64_t off) {
    float x;
    std::memcpy(&x, &v[off], 4);
    return x;
  };
  for (uint32_t i = 0; i < 150; ++i) {
    const uint32_t r = i / 64, j = i % 64;
    const float v = f(g.src0, i * 4) - f(g.src1, i * 4);
    std::memcpy(&want[at(r, j, 4, 2, 16)], &v, 4);
  }
  uint8_t bits[8] = {};
  for (uint32_t j = 0; j < 64; ++j)
    if (f(g.src0, j * 4) > f(g.src1, j * 4)) bits[j / 8] |= static_cast<uint8_t>(1u << (j % 8));
  std::memcpy(&want[4096], bits, 8);
  for (uint32_t j = 0; j < 8; ++j) {
    const float v = std::fabs(f(g.src0, j * 4));
    std::memcpy(&want[6144 + j * 4], &v, 4);
  }
  EXPECT_EQ(out, want);
}

}  // namespace

namespace {

TEST(EmulatorVecLevel0, CompoundCallsReadDstAsAnOperand) {
  Regions g(9);
  const std::vector<uint8_t> out = g.run([&](auto a, auto b, auto d) {
    auto fa = a.template ReinterpretCast<float>();
    auto fb = b.template ReinterpretCast<float>();
    auto fd = d.template ReinterpretCast<float>();
    AscendC::Duplicate(fd, 0.5f, 640);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::FusedMulAdd(fd, fa, fb, 100);                   // a * d + b
    AscendC::MulAddRelu(fd[128], fa[128], fb[128], 100);     // relu(a * d + b)
    AscendC::AddRelu(fd[256], fa[256], fb[256], 100);        // relu(a + b)
    AscendC::SubRelu(fd[384], fa[384], fb[384], 30, 1, {});  // relu(a - b), 30 elements
    AscendC::MulAddDst(fd[512], a.template ReinterpretCast<half>()[2048],
                       b.template ReinterpretCast<half>()[2048], 100);  // float += half * half
  });
  std::vector<uint8_t> want = g.dst;
  auto f = [&](const std::vector<uint8_t>& v, uint32_t i) {
    float x;
    std::memcpy(&x, &v[i * 4], 4);
    return x;
  };
  auto h = [&](const std::vector<uint8_t>& v, uint32_t i) {
    half x;
    std::memcpy(&x, &v[4096 + i * 2], 2);
    return static_cast<float>(x);
  };
  auto put = [&](uint32_t i, float v) { std::memcpy(&want[i * 4], &v, 4); };
  for (uint32_t i = 0; i < 640; ++i) put(i, 0.5f);
  for (uint32_t i = 0; i < 100; ++i) {
    put(i, f(g.src0, i) * 0.5f + f(g.src1, i));
    put(128 + i, std::max(0.0f, f(g.src0, 128 + i) * 0.5f + f(g.src1, 128 + i)));
    put(256 + i, std::max(0.0f, f(g.src0, 256 + i) + f(g.src1, 256 + i)));
    put(512 + i, h(g.src0, i) * h(g.src1, i) + 0.5f);
  }
  for (uint32_t i = 0; i < 30; ++i)
    put(384 + i, std::max(0.0f, f(g.src0, 384 + i) - f(g.src1, 384 + i)));
  EXPECT_EQ(out, want);
}

}  // namespace
