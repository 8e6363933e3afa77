// The emulator's Load3D v2 in its transposed forms: the im2col matrix M (positions x columns) as a
// transposed L0A operand (C = M^T x G) and as the L0B operand (C = H x M), against M computed
// directly.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

#include "kernel_operator.h"

namespace {

using AscendC::TPosition;

// A 32-channel (C1 = 2) 5 x 5 half map, 3 x 3 filter, padding 1, stride 1: P = 25 positions,
// K = 288 columns ordered (c1, kh, kw, c0).
constexpr uint32_t kC = 32, kH = 5, kW = 5, kP = 25, kPa = 32, kK = 288, kN = 16;

struct Map {
  std::vector<half> x = std::vector<half>(kC * kH * kW);  // NC1HWC0
  std::vector<float> im2col = std::vector<float>(kP * kK);
  Map() {
    for (uint32_t ci = 0; ci < kC; ++ci)
      for (uint32_t i = 0; i < kH * kW; ++i)
        x[((ci / 16) * kH * kW + i) * 16 + ci % 16] =
            half(static_cast<float>(static_cast<int>((ci * 3 + i * 5) % 7) - 3));
    for (uint32_t p = 0; p < kP; ++p)
      for (uint32_t q = 0; q < kK; ++q) {
        const uint32_t c0 = q % 16, kw = (q / 16) % 3, kh = (q / 48) % 3, c1 = q / 144;
        const int ih = static_cast<int>(p / kW + kh) - 1, iw = static_cast<int>(p % kW + kw) - 1;
        im2col[p * kK + q] =
            ih < 0 || iw < 0 || ih >= static_cast<int>(kH) || iw >= static_cast<int>(kW)
                ? 0.0f
                : static_cast<float>(x[((c1 * kH + ih) * kW + iw) * 16 + c0]);
      }
  }
};

AscendC::LoadData3DParamsV2<half> im2col_params(bool transpose) {
  const uint8_t pads[4] = {1, 1, 1, 1};
  return AscendC::LoadData3DParamsV2<half>(pads, kH, kW, kC, kK, kP, 0, 0, 1, 1, 3, 3, 1, 1,
                                           transpose, false, half(0));
}

template <typename T>
AscendC::GlobalTensor<T> gt(void* p, uint64_t n) {
  AscendC::GlobalTensor<T> t;
  t.SetGlobalBuffer(static_cast<T*>(p), n);
  return t;
}

void run(const std::function<void()>& body) {
  ascemu::Options o;
  o.stop_at_first_race = false;
  const ascemu::Result r = ascemu::run_cores(o, KERNEL_TYPE_AIC_ONLY, 1, body);
  EXPECT_TRUE(r.races.empty()) << r.races.front();
}

// Local buffers of one AIC.
struct Bufs {
  AscendC::TPipe pipe;
  AscendC::TBuf<TPosition::A1> l1;
  AscendC::TBuf<TPosition::A2> l0a;
  AscendC::TBuf<TPosition::B2> l0b;
  AscendC::TBuf<TPosition::CO1> l0c;
  Bufs() {
    pipe.InitBuffer(l1, 64 * 1024);
    pipe.InitBuffer(l0a, 32 * 1024);
    pipe.InitBuffer(l0b, 32 * 1024);
    pipe.InitBuffer(l0c, 32 * 1024);
  }
};

TEST(EmulatorCubeLoad3d, TransposedIntoL0AGivesIm2colTransposed) {
  Map mp;
  std::vector<half> g(kP * kN);
  for (uint32_t i = 0; i < g.size(); ++i) g[i] = half(static_cast<float>(int(i % 5) - 2));
  void* xg = AscendC::GmAlloc(mp.x.size() * 2);
  void* gg = AscendC::GmAlloc(g.size() * 2);
  void* cg = AscendC::GmAlloc(kK * kN * 4);
  std::memcpy(xg, mp.x.data(), mp.x.size() * 2);
  std::memcpy(gg, g.data(), g.size() * 2);
  run([&] {
    Bufs b;
    AscendC::LocalTensor<half> x1 = b.l1.Get<half>(), g1 = x1[kC * kH * kW];
    AscendC::DataCopy(x1, gt<half>(xg, mp.x.size()), kC * kH * kW);
    AscendC::DataCopy(g1, gt<half>(gg, g.size()),
                      AscendC::Nd2NzParams(1, kP, kN, 0, kN, kPa, 1, 0));
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::LoadData(b.l0a.Get<half>(), x1, im2col_params(true));  // A = M^T: K x P
    for (uint32_t i = 0; i < kPa / 16; ++i)
      AscendC::LoadData(b.l0b.Get<half>()[i * 256], g1[i * 256],
                        AscendC::LoadData2DParams(0, 1, kPa / 16, 0, 0, true, 0));
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::MmadParams p;
    p.m = kK;
    p.n = kN;
    p.k = kP;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), p);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Fixpipe(gt<float>(cg, kK * kN), b.l0c.Get<float>(),
                     AscendC::FixpipeParamsV220(kN, kK, kK, kN, false));
  });
  const float* c = static_cast<float*>(cg);
  for (uint32_t q = 0; q < kK; ++q)
    for (uint32_t j = 0; j < kN; ++j) {
      float ref = 0;
      for (uint32_t p = 0; p < kP; ++p)
        ref += mp.im2col[p * kK + q] * static_cast<float>(g[p * kN + j]);
      ASSERT_EQ(c[q * kN + j], ref) << q << "," << j;
    }
  for (void* p : {xg, gg, cg}) AscendC::GmFree(p);
}

TEST(EmulatorCubeLoad3d, IntoL0BGivesIm2colAsTheRightMatrix) {
  Map mp;
  std::vector<half> h(kN * kP);
  for (uint32_t i = 0; i < h.size(); ++i) h[i] = half(static_cast<float>(int(i % 7) - 3));
  void* xg = AscendC::GmAlloc(mp.x.size() * 2);
  void* hg = AscendC::GmAlloc(h.size() * 2);
  void* cg = AscendC::GmAlloc(kN * kK * 4);
  std::memcpy(xg, mp.x.data(), mp.x.size() * 2);
  std::memcpy(hg, h.data(), h.size() * 2);
  run([&] {
    Bufs b;
    AscendC::LocalTensor<half> x1 = b.l1.Get<half>(), h1 = x1[kC * kH * kW];
    AscendC::DataCopy(x1, gt<half>(xg, mp.x.size()), kC * kH * kW);
    AscendC::DataCopy(h1, gt<half>(hg, h.size()), AscendC::Nd2NzParams(1, kN, kP, 0, kP, 16, 1, 0));
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::LoadData(b.l0a.Get<half>(), h1,
                      AscendC::LoadData2DParams(0, kPa / 16, 1, 0, 0, false, 0));
    AscendC::LoadData(b.l0b.Get<half>(), x1, im2col_params(false));  // B = M: P x K
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::MmadParams p;
    p.m = kN;
    p.n = kK;
    p.k = kP;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<half>(), b.l0b.Get<half>(), p);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Fixpipe(gt<float>(cg, kN * kK), b.l0c.Get<float>(),
                     AscendC::FixpipeParamsV220(kK, kN, 16, kK, false));
  });
  const float* c = static_cast<float*>(cg);
  for (uint32_t i = 0; i < kN; ++i)
    for (uint32_t q = 0; q < kK; ++q) {
      float ref = 0;
      for (uint32_t p = 0; p < kP; ++p)
        ref += static_cast<float>(h[i * kP + p]) * mp.im2col[p * kK + q];
      ASSERT_EQ(c[i * kK + q], ref) << i << "," << q;
    }
  for (void* p : {xg, hg, cg}) AscendC::GmFree(p);
}

}  // namespace
