// The emulator's Load3D v2 in its transposed forms, half and float: the im2col matrix M
// (positions x columns) as a transposed L0A operand (C = M^T x G) and as the L0B operand
// (C = H x M), against M computed directly.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

#include "kernel_operator.h"

namespace {

using AscendC::TPosition;

// A 32-channel 6 x 6 map, 3 x 3 filter, padding 1, stride 1: P = 36 positions (48 rounded up),
// K = 288 columns ordered (c1, kh, kw, c0), C0 = 32 bytes of T.
constexpr uint32_t kC = 32, kH = 6, kW = 6, kP = 36, kPa = 48, kK = 288, kN = 16;

template <typename T>
struct Map {
  static constexpr uint32_t c0 = 32 / sizeof(T);
  std::vector<T> x = std::vector<T>(kC * kH * kW);  // NC1HWC0
  std::vector<float> im2col = std::vector<float>(kP * kK);
  Map() {
    for (uint32_t ci = 0; ci < kC; ++ci)
      for (uint32_t i = 0; i < kH * kW; ++i)
        x[((ci / c0) * kH * kW + i) * c0 + ci % c0] =
            T(static_cast<float>(static_cast<int>((ci * 3 + i * 5) % 7) - 3));
    for (uint32_t p = 0; p < kP; ++p)
      for (uint32_t q = 0; q < kK; ++q) {
        const uint32_t c = q % c0, kw = (q / c0) % 3, kh = (q / c0 / 3) % 3, c1 = q / c0 / 9;
        const int ih = static_cast<int>(p / kW + kh) - 1, iw = static_cast<int>(p % kW + kw) - 1;
        im2col[p * kK + q] =
            ih < 0 || iw < 0 || ih >= static_cast<int>(kH) || iw >= static_cast<int>(kW)
                ? 0.0f
                : static_cast<float>(x[((c1 * kH + ih) * kW + iw) * c0 + c]);
      }
  }
};

template <typename T>
AscendC::LoadData3DParamsV2<T> im2col_params(bool transpose) {
  const uint8_t pads[4] = {1, 1, 1, 1};
  return AscendC::LoadData3DParamsV2<T>(pads, kH, kW, kC, kK, kP, 0, 0, 1, 1, 3, 3, 1, 1, transpose,
                                        false, T(0));
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
    pipe.InitBuffer(l1, 128 * 1024);
    pipe.InitBuffer(l0a, 64 * 1024);
    pipe.InitBuffer(l0b, 64 * 1024);
    pipe.InitBuffer(l0c, 32 * 1024);
  }
};

// G [P x 16] from GM into L0B as the Zn of K = P: half transposes each Nz fractal; float goes
// through Zz in L1 (one Nz matrix per 16 rows) and LoadDataWithTranspose's 16 x 16 squares.
template <typename T>
void load_g(Bufs& b, void* gg, AscendC::LocalTensor<T> g1) {
  if constexpr (sizeof(T) == 2) {
    AscendC::DataCopy(g1, gt<T>(gg, kP * kN), AscendC::Nd2NzParams(1, kP, kN, 0, kN, kPa, 1, 0));
    AscendC::PipeBarrier<PIPE_ALL>();
    for (uint32_t i = 0; i < kPa / 16; ++i)
      AscendC::LoadData(b.l0b.Get<T>()[i * 256], g1[i * 256],
                        AscendC::LoadData2DParams(0, 1, kPa / 16, 0, 0, true, 0));
  } else {
    for (uint32_t r = 0; r < kPa / 16; ++r) {
      const uint16_t rows = kP - r * 16 < 16 ? kP - r * 16 : 16;
      AscendC::DataCopy(g1[r * 256], gt<T>(gg, kP * kN)[r * 16 * kN],
                        AscendC::Nd2NzParams(1, rows, kN, 0, kN, 16, 1, 0));
    }
    AscendC::PipeBarrier<PIPE_ALL>();
    for (uint32_t i = 0; i < kPa / 16; ++i)
      AscendC::LoadDataWithTranspose(b.l0b.Get<T>()[i * 256], g1[i * 256],
                                     AscendC::LoadData2dTransposeParams(0, 1, 1, 0, 0));
  }
}

template <typename T>
void transposed_into_l0a() {
  Map<T> mp;
  std::vector<T> g(kP * kN);
  for (uint32_t i = 0; i < g.size(); ++i) g[i] = T(static_cast<float>(int(i % 5) - 2));
  void* xg = AscendC::GmAlloc(mp.x.size() * sizeof(T));
  void* gg = AscendC::GmAlloc(g.size() * sizeof(T));
  void* cg = AscendC::GmAlloc(kK * kN * 4);
  std::memcpy(xg, mp.x.data(), mp.x.size() * sizeof(T));
  std::memcpy(gg, g.data(), g.size() * sizeof(T));
  run([&] {
    Bufs b;
    AscendC::LocalTensor<T> x1 = b.l1.Get<T>(), g1 = x1[kC * kH * kW];
    AscendC::DataCopy(x1, gt<T>(xg, mp.x.size()), kC * kH * kW);
    load_g<T>(b, gg, g1);
    AscendC::LoadData(b.l0a.Get<T>(), x1, im2col_params<T>(true));  // A = M^T: K x P
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::MmadParams p;
    p.m = kK;
    p.n = kN;
    p.k = kP;
    p.kDirectionAlign = sizeof(T) == 4;  // the transposed float A has K (= P) rounded up to 16
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<T>(), b.l0b.Get<T>(), p);
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

template <typename T>
void into_l0b() {
  Map<T> mp;
  constexpr uint32_t c0 = 32 / sizeof(T), k1 = (kP + c0 - 1) / c0;
  std::vector<T> h(kN * kP);
  for (uint32_t i = 0; i < h.size(); ++i) h[i] = T(static_cast<float>(int(i % 7) - 3));
  void* xg = AscendC::GmAlloc(mp.x.size() * sizeof(T));
  void* hg = AscendC::GmAlloc(h.size() * sizeof(T));
  void* cg = AscendC::GmAlloc(kN * kK * 4);
  std::memcpy(xg, mp.x.data(), mp.x.size() * sizeof(T));
  std::memcpy(hg, h.data(), h.size() * sizeof(T));
  run([&] {
    Bufs b;
    AscendC::LocalTensor<T> x1 = b.l1.Get<T>(), h1 = x1[kC * kH * kW];
    AscendC::DataCopy(x1, gt<T>(xg, mp.x.size()), kC * kH * kW);
    AscendC::DataCopy(h1, gt<T>(hg, h.size()), AscendC::Nd2NzParams(1, kN, kP, 0, kP, 16, 1, 0));
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::LoadData(b.l0a.Get<T>(), h1, AscendC::LoadData2DParams(0, k1, 1, 0, 0, false, 0));
    AscendC::LoadData(b.l0b.Get<T>(), x1, im2col_params<T>(false));  // B = M: P x K
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::MmadParams p;
    p.m = kN;
    p.n = kK;
    p.k = kP;
    AscendC::Mmad(b.l0c.Get<float>(), b.l0a.Get<T>(), b.l0b.Get<T>(), p);
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

TEST(EmulatorCubeLoad3d, TransposedIntoL0AGivesIm2colTransposed) {
  transposed_into_l0a<half>();
  transposed_into_l0a<float>();
}

TEST(EmulatorCubeLoad3d, IntoL0BGivesIm2colAsTheRightMatrix) {
  into_l0b<half>();
  into_l0b<float>();
}

}  // namespace
