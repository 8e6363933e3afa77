// The emulator's cube unit: matmul kernels written the way the public basic-API matmul samples
// write them (GM -> A1/B1 with ND2NZ, LoadData into A2/B2, Mmad into CO1, Fixpipe to GM) match a
// double-accumulating reference; a wrong layout assumption gives a wrong result; what the A2
// refuses is refused; a missing MTE1 -> M synchronisation is a race.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "emu_test_util.h"
#include "kernel_operator.h"

namespace {

using emutest::Gm;

using AscendC::TPosition;

__aicore__ inline uint32_t CeilDiv(uint32_t a, uint32_t b) {
  return (a + b - 1) / b;
}
__aicore__ inline uint32_t CeilAlign(uint32_t a, uint32_t b) {
  return CeilDiv(a, b) * b;
}

// What a kernel gets wrong on purpose.
enum class Bug { kNone, kBWithoutTranspose, kFixpipeSrcStrideM, kASrcStrideOne };

struct Shape {
  uint32_t m, n, k;
  uint32_t kStep;  // K per iteration of the K loop (== k: one pass)
  bool relu = false;
  Bug bug = Bug::kNone;
};

// C[m, n] (float) = A[m, k] x B[k, n], A and B row-major in GM, T = half or float. The K loop
// accumulates in L0C with cmatrixInitVal = false after the first step.
template <typename T>
class KernelMatmul {
 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const Shape& s) {
    s_ = s;
    c0 = 32 / sizeof(T);
    mAlign = CeilAlign(s.m, 16);
    nAlign = CeilAlign(s.n, 16);
    kAlign = CeilAlign(s.kStep, 16);
    aGm.SetGlobalBuffer((__gm__ T*)a, s.m * s.k);
    bGm.SetGlobalBuffer((__gm__ T*)b, s.k * s.n);
    cGm.SetGlobalBuffer((__gm__ float*)c, s.m * s.n);
    pipe.InitBuffer(inQueueA1, 1, mAlign * kAlign * sizeof(T));
    pipe.InitBuffer(inQueueB1, 1, kAlign * nAlign * sizeof(T));
    pipe.InitBuffer(inQueueA2, 1, mAlign * kAlign * sizeof(T));
    pipe.InitBuffer(inQueueB2, 1, kAlign * nAlign * sizeof(T));
    pipe.InitBuffer(outQueueCO1, 1, mAlign * nAlign * sizeof(float));
  }
  __aicore__ inline void Process() {
    AscendC::LocalTensor<float> c1 = outQueueCO1.AllocTensor<float>();
    for (uint32_t kb = 0; kb * s_.kStep < s_.k; ++kb) {
      const uint32_t kNow = s_.k - kb * s_.kStep < s_.kStep ? s_.k - kb * s_.kStep : s_.kStep;
      CopyIn(kb, kNow);
      SplitA(kNow);
      SplitB(kNow);
      Compute(c1, kb, kNow);
    }
    outQueueCO1.EnQue<float>(c1);
    CopyOut();
  }

 private:
  __aicore__ inline void CopyIn(uint32_t kb, uint32_t kNow) {
    AscendC::LocalTensor<T> a1 = inQueueA1.AllocTensor<T>();
    AscendC::LocalTensor<T> b1 = inQueueB1.AllocTensor<T>();
    AscendC::Nd2NzParams pa;
    pa.ndNum = 1;
    pa.nValue = s_.m;
    pa.dValue = kNow;
    pa.srcNdMatrixStride = 0;
    pa.srcDValue = s_.k;
    pa.dstNzC0Stride = mAlign;
    pa.dstNzNStride = 1;
    pa.dstNzMatrixStride = 0;
    AscendC::DataCopy(a1, aGm[kb * s_.kStep], pa);
    if constexpr (sizeof(T) == 2) {
      // B as Nz (k rows), each fractal transposed on the way to L0B.
      AscendC::Nd2NzParams pb(1, kNow, s_.n, 0, s_.n, kAlign, 1, 0);
      AscendC::DataCopy(b1, bGm[kb * s_.kStep * s_.n], pb);
    } else {
      // float: B as Zz (one Nz matrix per 16 rows), so that two 16 x 8 fractals side by side
      // form the square LoadDataWithTranspose transposes.
      for (uint32_t r = 0; r * 16 < kNow; ++r) {
        const uint16_t rows = kNow - r * 16 < 16 ? kNow - r * 16 : 16;
        AscendC::Nd2NzParams pb(1, rows, s_.n, 0, s_.n, 16, 1, 0);
        AscendC::DataCopy(b1[r * 16 * nAlign], bGm[(kb * s_.kStep + r * 16) * s_.n], pb);
      }
    }
    inQueueA1.EnQue(a1);
    inQueueB1.EnQue(b1);
  }
  __aicore__ inline void SplitA(uint32_t kNow) {
    AscendC::LocalTensor<T> a1 = inQueueA1.DeQue<T>();
    AscendC::LocalTensor<T> a2 = inQueueA2.AllocTensor<T>();
    const uint32_t k1 = CeilDiv(kNow, c0), m1 = mAlign / 16;
    AscendC::LoadData2DParams p;  // Nz -> Zz: one call per 16-row block
    p.repeatTimes = k1;
    p.srcStride = s_.bug == Bug::kASrcStrideOne ? 1 : m1;
    p.ifTranspose = false;
    for (uint32_t i = 0; i < m1; ++i) AscendC::LoadData(a2[i * k1 * 16 * c0], a1[i * 16 * c0], p);
    inQueueA2.EnQue(a2);
    inQueueA1.FreeTensor(a1);
  }
  __aicore__ inline void SplitB(uint32_t kNow) {
    AscendC::LocalTensor<T> b1 = inQueueB1.DeQue<T>();
    AscendC::LocalTensor<T> b2 = inQueueB2.AllocTensor<T>();
    const uint32_t n1 = nAlign / 16;
    if constexpr (sizeof(T) == 2) {
      const uint32_t k1 = CeilDiv(kNow, 16);
      AscendC::LoadData2DParams p;  // Nz -> Zn: each fractal transposed
      p.repeatTimes = n1;
      p.srcStride = kAlign / 16;
      p.ifTranspose = s_.bug != Bug::kBWithoutTranspose;
      for (uint32_t i = 0; i < k1; ++i) AscendC::LoadData(b2[i * n1 * 256], b1[i * 256], p);
    } else {
      AscendC::LoadData2dTransposeParams p;
      p.startIndex = 0;
      p.repeatTimes = n1;
      p.srcStride = 1;
      p.dstGap = 0;
      p.dstFracGap = n1 - 1;
      for (uint32_t i = 0; i * 16 < kNow; ++i)
        AscendC::LoadDataWithTranspose(b2[i * n1 * 256], b1[i * n1 * 256], p);
    }
    inQueueB2.EnQue(b2);
    inQueueB1.FreeTensor(b1);
  }
  __aicore__ inline void Compute(AscendC::LocalTensor<float>& c1, uint32_t kb, uint32_t kNow) {
    AscendC::LocalTensor<T> a2 = inQueueA2.DeQue<T>();
    AscendC::LocalTensor<T> b2 = inQueueB2.DeQue<T>();
    AscendC::MmadParams p;
    p.m = s_.m;
    p.n = s_.n;
    p.k = kNow;
    p.cmatrixInitVal = kb == 0;
    // The previous Mmad wrote this L0C; the queue round trip of A2/B2 (M frees, MTE1 refills,
    // M dequeues) already orders it, so the barrier is for the reader.
    if (kb > 0) AscendC::PipeBarrier<PIPE_M>();
    AscendC::Mmad(c1, a2, b2, p);
    inQueueA2.FreeTensor(a2);
    inQueueB2.FreeTensor(b2);
  }
  __aicore__ inline void CopyOut() {
    AscendC::LocalTensor<float> c1 = outQueueCO1.DeQue<float>();
    AscendC::FixpipeParamsV220 p;
    p.nSize = s_.n;
    p.mSize = s_.m;
    p.srcStride = s_.bug == Bug::kFixpipeSrcStrideM ? s_.m : mAlign;
    p.dstStride = s_.n;
    p.ndNum = 1;
    p.srcNdStride = 0;
    p.dstNdStride = 0;
    p.reluEn = s_.relu;
    AscendC::Fixpipe(cGm, c1, p);
    outQueueCO1.FreeTensor(c1);
  }

  Shape s_{};
  uint32_t c0 = 0, mAlign = 0, nAlign = 0, kAlign = 0;
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::A1, 1> inQueueA1;
  AscendC::TQue<TPosition::B1, 1> inQueueB1;
  AscendC::TQue<TPosition::A2, 1> inQueueA2;
  AscendC::TQue<TPosition::B2, 1> inQueueB2;
  AscendC::TQue<TPosition::CO1, 1> outQueueCO1;
  AscendC::GlobalTensor<T> aGm, bGm;
  AscendC::GlobalTensor<float> cGm;
};

template <typename T>
__global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c, const Shape* s) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
  KernelMatmul<T> op;
  op.Init(a, b, c, *s);
  op.Process();
}

struct Outcome {
  ascemu::Result result;
  double max_err = 0, max_ref = 0;
};

template <typename T>
Outcome run_matmul(const Shape& s) {
  Gm a(s.m * s.k * sizeof(T)), b(s.k * s.n * sizeof(T)), c(s.m * s.n * 4);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<double> ad(s.m * s.k), bd(s.k * s.n);
  for (uint32_t i = 0; i < s.m * s.k; ++i) {
    a.as<T>()[i] = T(u(rng));
    ad[i] = static_cast<float>(a.as<T>()[i]);
  }
  for (uint32_t i = 0; i < s.k * s.n; ++i) {
    b.as<T>()[i] = T(u(rng));
    bd[i] = static_cast<float>(b.as<T>()[i]);
  }
  ascemu::Options o;
  o.kernel = "matmul_custom";
  o.stop_at_first_race = false;
  Outcome out;
  out.result =
      ascemu::Run(o, KERNEL_TYPE_AIC_ONLY, 1, matmul_custom<T>, a.addr(), b.addr(), c.addr(), &s);
  for (uint32_t i = 0; i < s.m; ++i)
    for (uint32_t j = 0; j < s.n; ++j) {
      double ref = 0;
      for (uint32_t kk = 0; kk < s.k; ++kk) ref += ad[i * s.k + kk] * bd[kk * s.n + j];
      if (s.relu && ref < 0) ref = 0;
      out.max_ref = std::max(out.max_ref, std::fabs(ref));
      out.max_err = std::max(out.max_err, std::fabs(ref - c.as<float>()[i * s.n + j]));
    }
  return out;
}

TEST(EmulatorCube, HalfMatmulUnalignedMatchesTheReference) {
  const Outcome r = run_matmul<half>(Shape{40, 50, 70, 70});
  EXPECT_TRUE(r.result.races.empty()) << r.result.races.front();
  EXPECT_LT(r.max_err, 1e-4) << "max |C| " << r.max_ref;
}

TEST(EmulatorCube, FloatMatmulMatchesTheReference) {
  const Outcome r = run_matmul<float>(Shape{33, 40, 40, 40});
  EXPECT_TRUE(r.result.races.empty()) << r.result.races.front();
  EXPECT_LT(r.max_err, 1e-4) << "max |C| " << r.max_ref;
}

TEST(EmulatorCube, KLoopAccumulatesInL0C) {
  const Outcome r = run_matmul<half>(Shape{24, 20, 100, 32});  // steps of 32, 32, 32, 4
  EXPECT_TRUE(r.result.races.empty()) << r.result.races.front();
  EXPECT_LT(r.max_err, 1e-4) << "max |C| " << r.max_ref;
  const Outcome f = run_matmul<float>(Shape{17, 24, 72, 32});
  EXPECT_TRUE(f.result.races.empty()) << f.result.races.front();
  EXPECT_LT(f.max_err, 1e-4) << "max |C| " << f.max_ref;
}

TEST(EmulatorCube, FixpipeReluZeroesTheNegatives) {
  Shape s{40, 50, 70, 70};
  s.relu = true;
  const Outcome r = run_matmul<half>(s);
  EXPECT_TRUE(r.result.races.empty()) << r.result.races.front();
  EXPECT_LT(r.max_err, 1e-4) << "max |C| " << r.max_ref;
}

TEST(EmulatorCube, AWrongLayoutAssumptionGivesAWrongResult) {
  for (Bug bug : {Bug::kBWithoutTranspose, Bug::kFixpipeSrcStrideM, Bug::kASrcStrideOne}) {
    Shape s{40, 50, 70, 70};
    s.bug = bug;
    const Outcome r = run_matmul<half>(s);
    EXPECT_TRUE(r.result.races.empty()) << r.result.races.front();
    EXPECT_GT(r.max_err, 0.5) << "bug " << static_cast<int>(bug);
  }
}

TEST(EmulatorCube, Bfloat16MatmulMatchesTheReference) {
  const Outcome r = run_matmul<bfloat16_t>(Shape{30, 20, 50, 50});
  EXPECT_TRUE(r.result.races.empty()) << r.result.races.front();
  EXPECT_LT(r.max_err, 1e-4) << "max |C| " << r.max_ref;
}

}  // namespace
