// The emulator's cube unit with int8: B [k, n] through LoadDataWithTranspose's 32 x 32 squares,
// Fixpipe's per-column dequantisation (VDEQF16) and its ND conversion of several matrices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kernel_operator.h"

namespace {

using AscendC::TPosition;

constexpr uint32_t kM = 20, kN = 40, kK = 64, kMa = 32, kNa = 64;  // n aligned to 32 for b8

struct Data {
  void* a = AscendC::GmAlloc(kM * kK);
  void* b = AscendC::GmAlloc(kK * kN);
  void* scale = AscendC::GmAlloc(kN * 8);
  void* c32 = AscendC::GmAlloc(kM * kN * 4);
  void* c16 = AscendC::GmAlloc(kM * kN * 2);
  void* nd2 = AscendC::GmAlloc(2 * 16 * 16 * 4);
  void* nz8 = AscendC::GmAlloc(48 * kM);
  std::vector<int64_t> ref = std::vector<int64_t>(kM * kN, 0);
  Data() {
    auto* ap = static_cast<int8_t*>(a);
    auto* bp = static_cast<int8_t*>(b);
    for (uint32_t i = 0; i < kM * kK; ++i) ap[i] = static_cast<int8_t>(int(i * 29 % 251) - 125);
    for (uint32_t i = 0; i < kK * kN; ++i) bp[i] = static_cast<int8_t>(int(i * 53 % 241) - 120);
    for (uint32_t i = 0; i < kM; ++i)
      for (uint32_t j = 0; j < kN; ++j)
        for (uint32_t k = 0; k < kK; ++k)
          ref[i * kN + j] += int64_t{ap[i * kK + k]} * bp[k * kN + j];
    // Column j's scale 2^-(8 + j % 4): exact in the (1, 8, 10) format.
    for (uint32_t j = 0; j < kN; ++j)
      static_cast<uint64_t*>(scale)[j] = ascemu::f32_bits(std::ldexp(1.0f, -8 - int(j % 4)));
  }
  ~Data() {
    for (void* p : {a, b, scale, c32, c16, nd2, nz8}) AscendC::GmFree(p);
  }
};

template <typename T>
AscendC::GlobalTensor<T> gt(void* p, uint64_t n) {
  AscendC::GlobalTensor<T> t;
  t.SetGlobalBuffer(static_cast<T*>(p), n);
  return t;
}

void kernel(const Data& d) {
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::A1> l1;
  AscendC::TBuf<TPosition::A2> l0a;
  AscendC::TBuf<TPosition::B2> l0b;
  AscendC::TBuf<TPosition::CO1> l0c;
  pipe.InitBuffer(l1, 64 * 1024);
  pipe.InitBuffer(l0a, kMa * kK);
  pipe.InitBuffer(l0b, kK * kNa);
  pipe.InitBuffer(l0c, kMa * kNa * 4);
  AscendC::LocalTensor<int8_t> a1 = l1.Get<int8_t>(), b1 = a1[kMa * kK];
  AscendC::LocalTensor<uint64_t> s1 = l1.Get<uint64_t>()[(kMa + kNa) * kK / 8];
  AscendC::DataCopy(a1, gt<int8_t>(d.a, kM * kK),
                    AscendC::Nd2NzParams(1, kM, kK, 0, kK, kMa, 1, 0));
  // B as Nz of k rows (aligned to 32: two fractals one over the other make a square).
  AscendC::DataCopy(b1, gt<int8_t>(d.b, kK * kN), AscendC::Nd2NzParams(1, kK, kN, 0, kN, kK, 1, 0));
  AscendC::DataCopy(s1, gt<uint64_t>(d.scale, kN), kN);
  AscendC::PipeBarrier<PIPE_ALL>();
  const uint32_t k1 = kK / 32, m1 = kMa / 16;
  for (uint32_t i = 0; i < m1; ++i)
    AscendC::LoadData(l0a.Get<int8_t>()[i * k1 * 512], a1[i * 512],
                      AscendC::LoadData2DParams(0, k1, m1, 0, 0, false, 0));
  // Nz -> Zn: per 32 rows of k, the squares of the n blocks (k / 32 squares apart), each split into
  // two 16-column Zn fractals.
  AscendC::LoadData2dTransposeParams tp(0, kNa / 32, kK / 32, 1, 0);
  for (uint32_t i = 0; i < kK / 32; ++i)
    AscendC::LoadDataWithTranspose(l0b.Get<int8_t>()[i * (kNa / 16) * 512], b1[i * 1024], tp);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::MmadParams mp;
  mp.m = kM;
  mp.n = kNa;
  mp.k = kK;
  AscendC::Mmad(l0c.Get<int32_t>(), l0a.Get<int8_t>(), l0b.Get<int8_t>(), mp);
  AscendC::PipeBarrier<PIPE_ALL>();
  AscendC::LocalTensor<int32_t> c = l0c.Get<int32_t>();
  AscendC::Fixpipe(gt<int32_t>(d.c32, kM * kN), c,
                   AscendC::FixpipeParamsV220(kN, kM, kMa, kN, false));
  AscendC::FixpipeParamsV220 dq(kN, kM, kMa, kN, true);  // ReLU on
  dq.quantPre = QuantMode_t::VDEQF16;
  AscendC::Fixpipe(gt<half>(d.c16, kM * kN), c, s1, dq);
  // Two 16 x 16 ND matrices from the first two column blocks (one 1024-byte fractal apart).
  AscendC::FixpipeParamsV220 two(16, 16, kMa, 16, false);
  two.ndNum = 2;
  two.srcNdStride = kMa / 16;
  two.dstNdStride = 256;
  AscendC::Fixpipe(gt<int32_t>(d.nd2, 512), c, two);
  // int8 NZ output of 48 columns: columns 0..31 merge into one 16 x 32 block per 16 rows, 32..47
  // stay a 16 x 16 block; blocks kM rows of 32 bytes (dstStride kM) apart.
  AscendC::FixpipeParamsV220 nz(48, kM, kMa, kM, false);
  nz.quantPre = QuantMode_t::REQ8;
  nz.deqScalar = ascemu::f32_bits(1.0f / 1024) | (uint64_t{1} << 46);
  AscendC::Fixpipe<int8_t, int32_t, AscendC::CFG_NZ>(gt<int8_t>(d.nz8, 48 * kM), c, nz);
}

TEST(EmulatorCubeInt8, TransposedSquaresVectorDequantAndSeveralNdMatrices) {
  Data d;
  ascemu::Options o;
  o.kernel = "int8";
  o.stop_at_first_race = false;
  const ascemu::Result r = ascemu::run_cores(o, KERNEL_TYPE_AIC_ONLY, 1, [&] { kernel(d); });
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  const auto* c32 = static_cast<int32_t*>(d.c32);
  const auto* c16 = static_cast<half*>(d.c16);
  const auto* nd2 = static_cast<int32_t*>(d.nd2);
  for (uint32_t i = 0; i < kM; ++i)
    for (uint32_t j = 0; j < kN; ++j) {
      const int64_t want = d.ref[i * kN + j];
      ASSERT_EQ(c32[i * kN + j], want) << i << "," << j;
      const float scaled = want < 0 ? 0.f : std::ldexp(static_cast<float>(want), -8 - int(j % 4));
      ASSERT_EQ(static_cast<float>(c16[i * kN + j]), static_cast<float>(half(scaled)))
          << i << "," << j;
    }
  const auto* nz8 = static_cast<int8_t*>(d.nz8);
  for (uint32_t i = 0; i < kM; ++i)
    for (uint32_t j = 0; j < 48; ++j) {
      const double v = j < kN ? static_cast<double>(d.ref[i * kN + j]) / 1024 : 0.0;
      const double want = std::min(127.0, std::max(-128.0, std::nearbyint(v)));
      const uint32_t at = (j / 32) * kM * 32 + (j < 32 ? i * 32 + j % 32 : i * 16 + j % 16);
      ASSERT_EQ(nz8[at], want) << i << "," << j;
    }
  for (uint32_t m = 0; m < 2; ++m)
    for (uint32_t i = 0; i < 16; ++i)
      for (uint32_t j = 0; j < 16; ++j)
        ASSERT_EQ(nd2[m * 256 + i * 16 + j], d.ref[i * kN + m * 16 + j])
            << m << "," << i << "," << j;
}

}  // namespace
