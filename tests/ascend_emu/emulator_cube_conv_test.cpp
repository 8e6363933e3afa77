// The emulator's Load3D v2: a convolution as im2col (Load3D into L0A) x weights (ND2NZ + LoadData
// into L0B) matches a direct convolution.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "kernel_operator.h"

namespace {

using AscendC::TPosition;

struct Conv {
  uint32_t h, w, pad, stride, dil;
};

// y[oh * Wout + ow][co] = sum over ci, kh, kw of x[ci][ih][iw] * wt[co][ci][kh][kw], half in,
// float out; Cin = 32 (C1 = 2, C0 = 16), Cout = 16, 3 x 3 filter.
void run_conv(const Conv& cv) {
  constexpr uint32_t cin = 32, cout = 16, c0 = 16, kh = 3, kw = 3;
  const uint32_t hout = (cv.h + 2 * cv.pad - ((kh - 1) * cv.dil + 1)) / cv.stride + 1;
  const uint32_t wout = (cv.w + 2 * cv.pad - ((kw - 1) * cv.dil + 1)) / cv.stride + 1;
  const uint32_t m = hout * wout, k = cin * kh * kw, ma = (m + 15) / 16 * 16;
  std::vector<half> x(cin * cv.h * cv.w), wt(k * cout);  // x as NC1HWC0, wt as [k][cout]
  std::vector<float> xf(x.size()), wf(cout * cin * kh * kw);
  for (uint32_t ci = 0; ci < cin; ++ci)
    for (uint32_t i = 0; i < cv.h * cv.w; ++i) {
      const float v = static_cast<float>(static_cast<int>((ci * 5 + i * 3) % 7) - 3);
      x[((ci / c0) * cv.h * cv.w + i) * c0 + ci % c0] = half(v);
      xf[ci * cv.h * cv.w + i] = v;
    }
  for (uint32_t co = 0; co < cout; ++co)
    for (uint32_t ci = 0; ci < cin; ++ci)
      for (uint32_t r = 0; r < kh * kw; ++r) {
        const float v = static_cast<float>(static_cast<int>((co * 3 + ci * 7 + r) % 5) - 2);
        wf[(co * cin + ci) * kh * kw + r] = v;
        wt[(((ci / c0) * kh * kw + r) * c0 + ci % c0) * cout + co] = half(v);  // (c1, kh, kw, c0)
      }
  void* xg = AscendC::GmAlloc(x.size() * 2);
  void* wg = AscendC::GmAlloc(wt.size() * 2);
  void* yg = AscendC::GmAlloc(m * cout * 4);
  std::memcpy(xg, x.data(), x.size() * 2);
  std::memcpy(wg, wt.data(), wt.size() * 2);
  ascemu::Options o;
  o.kernel = "conv";
  o.stop_at_first_race = false;
  const ascemu::Result r = ascemu::run_cores(o, KERNEL_TYPE_AIC_ONLY, 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::A1, 1> qa1;
    AscendC::TQue<TPosition::B1, 1> qb1;
    AscendC::TQue<TPosition::A2, 1> qa2;
    AscendC::TQue<TPosition::B2, 1> qb2;
    AscendC::TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qa1, 1, x.size() * 2);
    pipe.InitBuffer(qb1, 1, k * cout * 2);
    pipe.InitBuffer(qa2, 1, ma * k * 2);
    pipe.InitBuffer(qb2, 1, k * cout * 2);
    pipe.InitBuffer(qc, 1, ma * cout * 4);
    AscendC::GlobalTensor<half> xt, wtt;
    AscendC::GlobalTensor<float> yt;
    xt.SetGlobalBuffer(static_cast<half*>(xg), x.size());
    wtt.SetGlobalBuffer(static_cast<half*>(wg), wt.size());
    yt.SetGlobalBuffer(static_cast<float*>(yg), m * cout);
    AscendC::LocalTensor<half> a1 = qa1.AllocTensor<half>(), b1 = qb1.AllocTensor<half>();
    AscendC::DataCopy(a1, xt, static_cast<uint32_t>(x.size()));
    AscendC::DataCopy(b1, wtt, AscendC::Nd2NzParams(1, k, cout, 0, cout, k, 1, 0));
    qa1.EnQue(a1);
    qb1.EnQue(b1);
    a1 = qa1.DeQue<half>();
    b1 = qb1.DeQue<half>();
    AscendC::LocalTensor<half> a2 = qa2.AllocTensor<half>(), b2 = qb2.AllocTensor<half>();
    const uint8_t pads[4] = {static_cast<uint8_t>(cv.pad), static_cast<uint8_t>(cv.pad),
                             static_cast<uint8_t>(cv.pad), static_cast<uint8_t>(cv.pad)};
    AscendC::LoadData3DParamsV2<half> p(pads, cv.h, cv.w, cin, k, m, 0, 0, cv.stride, cv.stride, kw,
                                        kh, cv.dil, cv.dil, false, false, half(0));
    AscendC::LoadData(a2, a1, p);
    for (uint32_t i = 0; i < k / 16; ++i)
      AscendC::LoadData(b2[i * 256], b1[i * 256],
                        AscendC::LoadData2DParams(0, 1, k / 16, 0, 0, true, 0));
    qa2.EnQue(a2);
    qb2.EnQue(b2);
    qa1.FreeTensor(a1);
    qb1.FreeTensor(b1);
    a2 = qa2.DeQue<half>();
    b2 = qb2.DeQue<half>();
    AscendC::LocalTensor<float> c = qc.AllocTensor<float>();
    AscendC::MmadParams mp;
    mp.m = m;
    mp.n = cout;
    mp.k = k;
    AscendC::Mmad(c, a2, b2, mp);
    qc.EnQue(c);
    qa2.FreeTensor(a2);
    qb2.FreeTensor(b2);
    c = qc.DeQue<float>();
    AscendC::Fixpipe(yt, c, AscendC::FixpipeParamsV220(cout, m, ma, cout, false));
    qc.FreeTensor(c);
  });
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  const float* y = static_cast<float*>(yg);
  for (uint32_t oh = 0; oh < hout; ++oh)
    for (uint32_t ow = 0; ow < wout; ++ow)
      for (uint32_t co = 0; co < cout; ++co) {
        float ref = 0;
        for (uint32_t ci = 0; ci < cin; ++ci)
          for (uint32_t i = 0; i < kh; ++i)
            for (uint32_t j = 0; j < kw; ++j) {
              const int ih =
                  static_cast<int>(oh * cv.stride + i * cv.dil) - static_cast<int>(cv.pad);
              const int iw =
                  static_cast<int>(ow * cv.stride + j * cv.dil) - static_cast<int>(cv.pad);
              if (ih < 0 || iw < 0 || ih >= static_cast<int>(cv.h) || iw >= static_cast<int>(cv.w))
                continue;
              ref +=
                  xf[(ci * cv.h + static_cast<uint32_t>(ih)) * cv.w + static_cast<uint32_t>(iw)] *
                  wf[(co * cin + ci) * kh * kw + i * kw + j];
            }
        ASSERT_EQ(y[(oh * wout + ow) * cout + co], ref) << oh << "," << ow << "," << co;
      }
  AscendC::GmFree(xg);
  AscendC::GmFree(wg);
  AscendC::GmFree(yg);
}

TEST(EmulatorCubeConv, Load3dIm2colConvolutionMatchesADirectOne) {
  run_conv(Conv{6, 6, 1, 1, 1});  // same padding: 36 positions, the last fractal covered
  run_conv(Conv{9, 7, 0, 2, 1});  // stride 2: 4 x 3 positions
  run_conv(Conv{8, 8, 2, 1, 2});  // dilation 2 with padding 2
}

}  // namespace
