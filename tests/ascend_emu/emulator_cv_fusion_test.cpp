// The Ascend C emulator's cube-vector fusion, the way the CV-fusion guide has it: in each AI Core
// of a KERNEL_TYPE_MIX_AIC_1_2 launch the AIC computes a matmul tile and Fixpipes it to a GM
// workspace, then CrossCoreSetFlag on the FIX pipe; each AIV waits, takes its half of the tile
// into UB, applies LeakyRelu and writes it out. A set on a pipe other than the one that wrote the
// workspace, or no wait, is a race naming both cores.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "emu_test_util.h"

namespace {

using AscendC::TPosition;
using emutest::collect;
using emutest::Gm;
using emutest::has;

constexpr uint32_t kM = 32, kN = 32, kK = 32, kRows = kM / 2;  // an AIV takes kRows rows
constexpr float kAlpha = 0.1f;

enum class Variant { kRight, kSetOnMte3, kNoWait };

// On the AIC: C[kM, kN] = A[kM, kK] x B[kK, kN] (half in, float out) into the workspace.
__aicore__ void aic_matmul(const AscendC::GlobalTensor<half>& a,
                           const AscendC::GlobalTensor<half>& b,
                           const AscendC::GlobalTensor<float>& c) {
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::A1, 1> qa1;
  AscendC::TQue<TPosition::B1, 1> qb1;
  AscendC::TQue<TPosition::A2, 1> qa2;
  AscendC::TQue<TPosition::B2, 1> qb2;
  AscendC::TQue<TPosition::CO1, 1> qc;
  pipe.InitBuffer(qa1, 1, kM * kK * sizeof(half));
  pipe.InitBuffer(qb1, 1, kK * kN * sizeof(half));
  pipe.InitBuffer(qa2, 1, kM * kK * sizeof(half));
  pipe.InitBuffer(qb2, 1, kK * kN * sizeof(half));
  pipe.InitBuffer(qc, 1, kM * kN * sizeof(float));
  // GM -> L1 as Nz.
  AscendC::LocalTensor<half> a1 = qa1.AllocTensor<half>(), b1 = qb1.AllocTensor<half>();
  AscendC::DataCopy(a1, a, AscendC::Nd2NzParams(1, kM, kK, 0, kK, kM, 1, 0));
  AscendC::DataCopy(b1, b, AscendC::Nd2NzParams(1, kK, kN, 0, kN, kK, 1, 0));
  qa1.EnQue(a1);
  qb1.EnQue(b1);
  // L1 -> L0A (zZ, one call per 16 rows) and L0B (each fractal transposed).
  a1 = qa1.DeQue<half>();
  AscendC::LocalTensor<half> a2 = qa2.AllocTensor<half>();
  AscendC::LoadData2DParams pa;
  pa.repeatTimes = kK / 16;
  pa.srcStride = kM / 16;
  for (uint32_t i = 0; i < kM / 16; ++i) AscendC::LoadData(a2[i * kK * 16], a1[i * 256], pa);
  qa2.EnQue(a2);
  qa1.FreeTensor(a1);
  b1 = qb1.DeQue<half>();
  AscendC::LocalTensor<half> b2 = qb2.AllocTensor<half>();
  AscendC::LoadData2DParams pb;
  pb.repeatTimes = kN / 16;
  pb.srcStride = kK / 16;
  pb.ifTranspose = true;
  for (uint32_t i = 0; i < kK / 16; ++i) AscendC::LoadData(b2[i * kN * 16], b1[i * 256], pb);
  qb2.EnQue(b2);
  qb1.FreeTensor(b1);
  // Mmad into L0C, Fixpipe (nZ -> ND) to GM.
  a2 = qa2.DeQue<half>();
  b2 = qb2.DeQue<half>();
  AscendC::LocalTensor<float> c1 = qc.AllocTensor<float>();
  AscendC::MmadParams pm;
  pm.m = kM;
  pm.n = kN;
  pm.k = kK;
  pm.cmatrixInitVal = true;
  AscendC::Mmad(c1, a2, b2, pm);
  qa2.FreeTensor(a2);
  qb2.FreeTensor(b2);
  qc.EnQue(c1);
  c1 = qc.DeQue<float>();
  AscendC::FixpipeParamsV220 pf;
  pf.nSize = kN;
  pf.mSize = kM;
  pf.srcStride = kM;
  pf.dstStride = kN;
  pf.ndNum = 1;
  AscendC::Fixpipe(c, c1, pf);
  qc.FreeTensor(c1);
}

// On an AIV: LeakyRelu of its rows of the workspace tile, to y.
__aicore__ void aiv_leaky_relu(const AscendC::GlobalTensor<float>& ws,
                               const AscendC::GlobalTensor<float>& y) {
  constexpr uint32_t kCount = kRows * kN;
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> in;
  AscendC::TQue<TPosition::VECOUT, 1> out;
  pipe.InitBuffer(in, 1, kCount * sizeof(float));
  pipe.InitBuffer(out, 1, kCount * sizeof(float));
  AscendC::LocalTensor<float> x = in.AllocTensor<float>();
  AscendC::DataCopy(x, ws, kCount);
  in.EnQue(x);
  x = in.DeQue<float>();
  AscendC::LocalTensor<float> r = out.AllocTensor<float>();
  AscendC::LeakyRelu(r, x, kAlpha, kCount);
  out.EnQue(r);
  in.FreeTensor(x);
  r = out.DeQue<float>();
  AscendC::DataCopy(y, r, kCount);
  out.FreeTensor(r);
}

template <Variant kVariant>
__global__ __aicore__ void matmul_leaky_relu(GM_ADDR a, GM_ADDR b, GM_ADDR ws, GM_ADDR y) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  AscendC::GlobalTensor<float> wg, yg;
  if ASCEND_IS_AIC {
    const int64_t g = AscendC::GetBlockIdx();  // each AI Core: its own A rows
    AscendC::GlobalTensor<half> ag, bg;
    ag.SetGlobalBuffer((__gm__ half*)a + g * kM * kK, kM * kK);
    bg.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    wg.SetGlobalBuffer((__gm__ float*)ws + g * kM * kN, kM * kN);
    aic_matmul(ag, bg, wg);
    if (kVariant == Variant::kSetOnMte3)
      AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(0);  // MTE3 did not write the workspace
    else
      AscendC::CrossCoreSetFlag<2, PIPE_FIX>(0);  // after the Fixpipe
  }
  if ASCEND_IS_AIV {
    const int64_t row0 = AscendC::GetBlockIdx() * kRows;  // AI Core * kM + sub-block * kRows
    wg.SetGlobalBuffer((__gm__ float*)ws + row0 * kN, kRows * kN);
    yg.SetGlobalBuffer((__gm__ float*)y + row0 * kN, kRows * kN);
    if (kVariant != Variant::kNoWait) AscendC::CrossCoreWaitFlag(0);
    aiv_leaky_relu(wg, yg);
  }
}

struct Fusion {
  static constexpr int kGroups = 2;
  Gm a{kGroups * kM * kK * 2}, b{kK * kN * 2}, ws{kGroups * kM * kN * 4}, y{kGroups * kM * kN * 4};
  std::vector<double> want;

  Fusion() {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    for (uint32_t i = 0; i < kGroups * kM * kK; ++i) a.as<half>()[i] = half(u(rng));
    for (uint32_t i = 0; i < kK * kN; ++i) b.as<half>()[i] = half(u(rng));
    for (uint32_t i = 0; i < kGroups * kM; ++i)
      for (uint32_t j = 0; j < kN; ++j) {
        double c = 0;
        for (uint32_t k = 0; k < kK; ++k)
          c += static_cast<float>(a.as<half>()[i * kK + k]) *
               static_cast<float>(b.as<half>()[k * kN + j]);
        want.push_back(c >= 0 ? c : c * kAlpha);
      }
  }
  template <Variant kVariant>
  ascemu::Result run() {
    return ascemu::Run(collect("matmul_leaky_relu"), KERNEL_TYPE_MIX_AIC_1_2, kGroups,
                       matmul_leaky_relu<kVariant>, a.addr(), b.addr(), ws.addr(), y.addr());
  }
};

TEST(EmulatorCvFusion, MatmulThenLeakyReluOnTheAivsMatchesWithoutRace) {
  Fusion f;
  const ascemu::Result r = f.run<Variant::kRight>();
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (size_t i = 0; i < f.want.size(); ++i) ASSERT_NEAR(f.y.as<float>()[i], f.want[i], 1e-4) << i;
}

TEST(EmulatorCvFusion, ASetOnAPipeThatDidNotWriteTheWorkspaceIsARace) {
  Fusion f;
  const ascemu::Result r = f.run<Variant::kSetOnMte3>();
  EXPECT_TRUE(has(r.races, "AIV 0 MTE2 `DataCopy` (call #2) reads what AIC 0 FIX `Fixpipe`"))
      << (r.races.empty() ? std::string("no race") : r.races.front());
  EXPECT_TRUE(has(r.races, "reads what AIC 1 FIX `Fixpipe`"));
}

TEST(EmulatorCvFusion, NoWaitIsARaceNamingBothCores) {
  Fusion f;
  const ascemu::Result r = f.run<Variant::kNoWait>();
  EXPECT_TRUE(has(r.races, "AIV 3 MTE2 `DataCopy` (call #1) reads what AIC 1 FIX `Fixpipe`"))
      << (r.races.empty() ? std::string("no race") : r.races.front());
}

}  // namespace
