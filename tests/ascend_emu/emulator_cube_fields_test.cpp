// The emulator's cube data movement field by field: where ND2NZ and LoadData put each element,
// checked against the documented formulas by reading the local memories back.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

#include "kernel_operator.h"

namespace {

using AscendC::TPosition;

void run(const std::function<void()>& body) {
  ascemu::run_cores(ascemu::Options{}, KERNEL_TYPE_AIC_ONLY, 1, body);
}

template <typename T>
const T* mem(ascemu::Mem m) {
  return reinterpret_cast<const T*>(ascemu::current().base(m));
}

// The documented non-contiguous example: 2 ND matrices of 8 x 23 halves, 384 elements apart in GM
// with rows of 32; in L1 column blocks 37 C0 apart, rows 2 C0 apart, matrices 320 elements apart.
TEST(EmulatorCubeFields, Nd2NzPlacesEveryElement) {
  std::vector<half> src(2 * 384);
  for (size_t i = 0; i < src.size(); ++i) src[i] = half(static_cast<float>(i % 2000));
  void* g = AscendC::GmAlloc(src.size() * 2);
  std::memcpy(g, src.data(), src.size() * 2);
  run([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> l1;
    pipe.InitBuffer(l1, 8192);
    AscendC::Fill(l1.Get<half>(), AscendC::InitConstValueParams<half>(1, 256, 0, half(-1.0f)));
    AscendC::PipeBarrier<PIPE_MTE2>();
    AscendC::GlobalTensor<half> gt;
    gt.SetGlobalBuffer(static_cast<half*>(g), src.size());
    AscendC::DataCopy(l1.Get<half>(), gt, AscendC::Nd2NzParams(2, 8, 23, 384, 32, 37, 2, 320));
    AscendC::PipeBarrier<PIPE_ALL>();
    std::vector<float> want(4096, -1.0f);
    for (uint32_t i = 0; i < 2; ++i)
      for (uint32_t r = 0; r < 8; ++r)
        for (uint32_t c = 0; c < 32; ++c)
          want[i * 320 + (c / 16) * 37 * 16 + r * 2 * 16 + c % 16] =
              c < 23 ? static_cast<float>(src[i * 384 + r * 32 + c]) : 0.0f;
    const half* l1p = mem<half>(ascemu::Mem::kL1);
    for (uint32_t e = 0; e < 4096; ++e) ASSERT_EQ(static_cast<float>(l1p[e]), want[e]) << e;
  });
  AscendC::GmFree(g);
}

// LoadData2D: startIndex, srcStride, dstGap, addrMode and the 16 x 16 transpose.
TEST(EmulatorCubeFields, LoadData2DFollowsItsStridesAndTransposes) {
  run([] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> l1;
    AscendC::TBuf<TPosition::A2> l0a;
    AscendC::TBuf<TPosition::B2> l0b;
    pipe.InitBuffer(l1, 8 * 512);
    pipe.InitBuffer(l0a, 16 * 512);
    pipe.InitBuffer(l0b, 4 * 512);
    AscendC::LocalTensor<float> f = l1.Get<float>();
    for (uint32_t e = 0; e < 8 * 128; ++e) f.SetValue(e, static_cast<float>(e));
    AscendC::PipeBarrier<PIPE_ALL>();
    // Fractals 1, 3, 5, 7 to L0A fractals 0, 3, 6, 9; then 6, 4, 2, 0 (addrMode 1) to 12..15.
    AscendC::LoadData(l0a.Get<float>(), f, AscendC::LoadData2DParams(1, 4, 2, 0, 2, false, 0));
    AscendC::LoadData(l0a.Get<float>()[12 * 128], f,
                      AscendC::LoadData2DParams(6, 4, 2, 0, 0, false, 1));
    AscendC::LoadData(l0b.Get<half>(), l1.Get<half>(),
                      AscendC::LoadData2DParams(0, 1, 0, 0, 0, true, 0));
    AscendC::PipeBarrier<PIPE_ALL>();
    const float* a = mem<float>(ascemu::Mem::kL0A);
    for (uint32_t i = 0; i < 4; ++i)
      for (uint32_t e = 0; e < 128; ++e) {
        ASSERT_EQ(a[i * 3 * 128 + e], static_cast<float>((1 + 2 * i) * 128 + e)) << i << "," << e;
        ASSERT_EQ(a[(12 + i) * 128 + e], static_cast<float>((6 - 2 * i) * 128 + e))
            << i << "," << e;
      }
    const uint16_t* b = mem<uint16_t>(ascemu::Mem::kL0B);
    const uint16_t* s = mem<uint16_t>(ascemu::Mem::kL1);
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t c = 0; c < 16; ++c) ASSERT_EQ(b[r * 16 + c], s[c * 16 + r]) << r << "," << c;
  });
}

// LoadData from GM (MTE2) copies fractals as from L1; Fill writes 512-byte blocks of L0A (MTE1).
TEST(EmulatorCubeFields, LoadDataFromGmAndFillOfL0A) {
  std::vector<float> src(4 * 128);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
  void* g = AscendC::GmAlloc(src.size() * 4);
  std::memcpy(g, src.data(), src.size() * 4);
  run([&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> l0a;
    AscendC::TBuf<TPosition::B2> l0b;
    pipe.InitBuffer(l0a, 4 * 512);
    pipe.InitBuffer(l0b, 4 * 512);
    AscendC::GlobalTensor<float> gt;
    gt.SetGlobalBuffer(static_cast<float*>(g), src.size());
    // Fractals 3, 2, 1, 0 (addrMode 1) into L0B fractals 0..3.
    AscendC::LoadData(l0b.Get<float>(), gt, AscendC::LoadData2DParams(3, 4, 1, 0, 0, false, 1));
    // Blocks 0 and 2 of L0A to 2.5 (one 512-byte block, then a gap of one).
    AscendC::Fill(l0a.Get<float>(), AscendC::InitConstValueParams<float>(2, 1, 1, 2.5f));
    AscendC::PipeBarrier<PIPE_ALL>();
    const float* b = mem<float>(ascemu::Mem::kL0B);
    for (uint32_t i = 0; i < 4; ++i)
      for (uint32_t e = 0; e < 128; ++e) ASSERT_EQ(b[i * 128 + e], src[(3 - i) * 128 + e]);
    const float* a = mem<float>(ascemu::Mem::kL0A);
    for (uint32_t e = 0; e < 4 * 128; ++e) ASSERT_EQ(a[e], (e / 128) % 2 == 0 ? 2.5f : 0.0f) << e;
  });
  AscendC::GmFree(g);
}

}  // namespace
