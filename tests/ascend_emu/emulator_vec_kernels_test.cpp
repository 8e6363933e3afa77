// Vector kernels written the way the public Ascend C samples write them (TPipe/TQue, CopyIn/
// Compute/CopyOut), run on the emulator and compared with a naive reference: LeakyRelu with double
// buffering and a DataCopyPad tail, a row reduction, a Cast round trip under every RoundMode, and
// ReLU / max by Compare + Select.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "vec_test_util.h"

namespace {

using AscendC::TPosition;
using vectest::Gm;

// ---- LeakyRelu: 3 cores x 1001 floats, tiles of 256 double-buffered, the tail by DataCopyPad ----
constexpr int32_t kLrCores = 3, kLrLen = 1001, kLrTile = 256, kLrBuffers = 2;
constexpr float kLrAlpha = 0.3f;

class KernelLeakyRelu {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {
    xGm.SetGlobalBuffer((__gm__ float*)x + kLrLen * AscendC::GetBlockIdx(), kLrLen);
    yGm.SetGlobalBuffer((__gm__ float*)y + kLrLen * AscendC::GetBlockIdx(), kLrLen);
    pipe.InitBuffer(inQueueX, kLrBuffers, kLrTile * sizeof(float));
    pipe.InitBuffer(outQueueY, kLrBuffers, kLrTile * sizeof(float));
  }
  __aicore__ inline void Process() {
    const int32_t tiles = (kLrLen + kLrTile - 1) / kLrTile;
    for (int32_t i = 0; i < tiles; i++) {
      const int32_t len = std::min(kLrTile, kLrLen - i * kLrTile);
      CopyIn(i, len);
      Compute(len);
      CopyOut(i, len);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t progress, int32_t len) {
    AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
    if (len == kLrTile) {
      AscendC::DataCopy(xLocal, xGm[progress * kLrTile], len);
    } else {
      AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
      AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0};
      AscendC::DataCopyPad(xLocal, xGm[progress * kLrTile], params, pad);
    }
    inQueueX.EnQue(xLocal);
  }
  __aicore__ inline void Compute(int32_t len) {
    AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
    AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
    AscendC::LeakyRelu(yLocal, xLocal, kLrAlpha, len);
    outQueueY.EnQue<float>(yLocal);
    inQueueX.FreeTensor(xLocal);
  }
  __aicore__ inline void CopyOut(int32_t progress, int32_t len) {
    AscendC::LocalTensor<float> yLocal = outQueueY.DeQue<float>();
    if (len == kLrTile) {
      AscendC::DataCopy(yGm[progress * kLrTile], yLocal, len);
    } else {
      AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
      AscendC::DataCopyPad(yGm[progress * kLrTile], yLocal, params);
    }
    outQueueY.FreeTensor(yLocal);
  }
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, kLrBuffers> inQueueX;
  AscendC::TQue<TPosition::VECOUT, kLrBuffers> outQueueY;
  AscendC::GlobalTensor<float> xGm, yGm;
};

extern "C" __global__ __aicore__ void leaky_relu_custom(GM_ADDR x, GM_ADDR y) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
  KernelLeakyRelu op;
  op.Init(x, y);
  op.Process();
}

TEST(EmulatorVecKernels, LeakyReluDoubleBufferedWithTail) {
  constexpr int32_t n = kLrCores * kLrLen;
  Gm x(n * 4), y(n * 4);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-8, 8);
  for (int32_t i = 0; i < n; ++i) x.as<float>()[i] = u(rng), y.as<float>()[i] = 12345;
  const ascemu::Result r = ascemu::Run(vectest::collect("leaky_relu_custom"), KERNEL_TYPE_AIV_ONLY,
                                       kLrCores, leaky_relu_custom, x.addr(), y.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int32_t i = 0; i < n; ++i) {
    const float v = x.as<float>()[i];
    ASSERT_EQ(y.as<float>()[i], v >= 0 ? v : v * kLrAlpha) << i;
  }
}

// ---- row sums: ReduceSum per row, and WholeReduceSum over repeats, a masked tail, then parts ----
constexpr int32_t kRows = 13, kCols = 203, kColsPad = 208, kRowsPad = 16;

class KernelRowSum {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {
    xGm.SetGlobalBuffer((__gm__ float*)x, kRows * kCols);
    yGm.SetGlobalBuffer((__gm__ float*)y, 2 * kRowsPad);
    pipe.InitBuffer(inQueueX, 2, kColsPad * sizeof(float));
    pipe.InitBuffer(outQueueY, 1, 2 * kRowsPad * sizeof(float));
    pipe.InitBuffer(workBuf, 64 * sizeof(float));
    pipe.InitBuffer(partBuf, 8 * sizeof(float));
  }
  __aicore__ inline void Process() {
    AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
    for (int32_t r = 0; r < kRows; r++) {
      CopyIn(r);
      Compute(r, yLocal);
    }
    outQueueY.EnQue<float>(yLocal);
    yLocal = outQueueY.DeQue<float>();
    AscendC::DataCopy(yGm, yLocal, 2 * kRowsPad);
    outQueueY.FreeTensor(yLocal);
  }

 private:
  __aicore__ inline void CopyIn(int32_t r) {
    AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
    AscendC::DataCopyExtParams params{1, kCols * sizeof(float), 0, 0, 0};
    AscendC::DataCopyPad(xLocal, xGm[r * kCols], params,
                         AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
    inQueueX.EnQue(xLocal);
  }
  __aicore__ inline void Compute(int32_t r, const AscendC::LocalTensor<float>& yLocal) {
    AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
    AscendC::LocalTensor<float> work = workBuf.Get<float>();
    AscendC::LocalTensor<float> parts = partBuf.Get<float>();
    AscendC::ReduceSum(yLocal[r], xLocal, work, kCols);
    constexpr int32_t full = kCols / 64, tail = kCols % 64;
    AscendC::WholeReduceSum<float>(parts, xLocal, 64, full, 1, 1, 8);
    AscendC::WholeReduceSum<float>(parts[full], xLocal[full * 64], tail, 1, 1, 1, 8);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::WholeReduceSum<float>(yLocal[kRowsPad + r], parts, full + 1, 1, 1, 1, 8);
    AscendC::PipeBarrier<PIPE_V>();
    inQueueX.FreeTensor(xLocal);
  }
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 2> inQueueX;
  AscendC::TQue<TPosition::VECOUT, 1> outQueueY;
  AscendC::TBuf<TPosition::VECCALC> workBuf, partBuf;
  AscendC::GlobalTensor<float> xGm, yGm;
};

extern "C" __global__ __aicore__ void row_sum_custom(GM_ADDR x, GM_ADDR y) {
  KernelRowSum op;
  op.Init(x, y);
  op.Process();
}

TEST(EmulatorVecKernels, RowSumsByReduceSumAndWholeReduceSum) {
  Gm x(kRows * kCols * 4), y(2 * kRowsPad * 4);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int32_t i = 0; i < kRows * kCols; ++i) x.as<float>()[i] = u(rng);
  const ascemu::Result r = ascemu::Run(vectest::collect("row_sum_custom"), KERNEL_TYPE_AIV_ONLY, 1,
                                       row_sum_custom, x.addr(), y.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int32_t row = 0; row < kRows; ++row) {
    double want = 0;
    for (int32_t c = 0; c < kCols; ++c) want += x.as<float>()[row * kCols + c];
    EXPECT_NEAR(y.as<float>()[row], want, 1e-4) << row;
    EXPECT_NEAR(y.as<float>()[kRowsPad + row], want, 1e-4) << row;
  }
}

// ---- float -> half -> float under each RoundMode, 333 elements ----
constexpr int32_t kCastLen = 333;
constexpr AscendC::RoundMode kCastModes[] = {
    AscendC::RoundMode::CAST_RINT,  AscendC::RoundMode::CAST_FLOOR, AscendC::RoundMode::CAST_CEIL,
    AscendC::RoundMode::CAST_ROUND, AscendC::RoundMode::CAST_TRUNC, AscendC::RoundMode::CAST_ODD};
constexpr int32_t kCastModeCount = 6;

class KernelCastRoundTrip {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {
    xGm.SetGlobalBuffer((__gm__ float*)x, kCastLen);
    yGm.SetGlobalBuffer((__gm__ float*)y, kCastLen * kCastModeCount);
    pipe.InitBuffer(inQueueX, 1, kCastLen * sizeof(float));
    pipe.InitBuffer(outQueueY, 2, kCastLen * sizeof(float));
    pipe.InitBuffer(halfBuf, kCastLen * sizeof(half));
  }
  __aicore__ inline void Process() {
    AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
    AscendC::DataCopyExtParams params{1, kCastLen * sizeof(float), 0, 0, 0};
    AscendC::DataCopyPad(xLocal, xGm, params, AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
    inQueueX.EnQue(xLocal);
    xLocal = inQueueX.DeQue<float>();
    AscendC::LocalTensor<half> hLocal = halfBuf.Get<half>();
    for (int32_t m = 0; m < kCastModeCount; m++) {
      AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
      AscendC::Cast(hLocal, xLocal, kCastModes[m], kCastLen);
      AscendC::PipeBarrier<PIPE_V>();
      AscendC::Cast(yLocal, hLocal, AscendC::RoundMode::CAST_NONE, kCastLen);
      outQueueY.EnQue<float>(yLocal);
      yLocal = outQueueY.DeQue<float>();
      AscendC::DataCopyPad(yGm[m * kCastLen], yLocal, params);
      outQueueY.FreeTensor(yLocal);
    }
    inQueueX.FreeTensor(xLocal);
  }

 private:
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> inQueueX;
  AscendC::TQue<TPosition::VECOUT, 2> outQueueY;
  AscendC::TBuf<TPosition::VECCALC> halfBuf;
  AscendC::GlobalTensor<float> xGm, yGm;
};

extern "C" __global__ __aicore__ void cast_round_trip(GM_ADDR x, GM_ADDR y) {
  KernelCastRoundTrip op;
  op.Init(x, y);
  op.Process();
}

// The half nearest x under the mode, found among all finite halves and 65536 standing for the
// overflow (IEEE 754, the A2's default Inf/NaN mode: a pick of 65536 is inf); NaN and inf kept.
float half_reference(float x, AscendC::RoundMode mode) {
  static const std::vector<float> halves = [] {
    std::vector<float> v;
    for (uint32_t b = 0; b <= 0x7bffu; ++b)
      v.push_back(ascemu::f16_to_f32(static_cast<uint16_t>(b)));
    v.push_back(65536.0f);
    return v;
  }();
  if (std::isnan(x) || std::isinf(x)) return x;
  const float a = std::min(std::fabs(x), 65536.0f);
  const bool neg = std::signbit(x);
  const float inf = std::numeric_limits<float>::infinity();
  const auto hi =
      static_cast<size_t>(std::lower_bound(halves.begin(), halves.end(), a) - halves.begin());
  if (halves[hi] == 65536.0f && std::fabs(x) >= 65536.0f) {  // past 65536: toward zero or inf
    const bool down = mode == AscendC::RoundMode::CAST_TRUNC ||
                      mode == AscendC::RoundMode::CAST_ODD ||
                      (mode == AscendC::RoundMode::CAST_FLOOR && !neg) ||
                      (mode == AscendC::RoundMode::CAST_CEIL && neg);
    return down ? (neg ? -65504.0f : 65504.0f) : (neg ? -inf : inf);
  }
  if (halves[hi] == a) return x;
  const size_t lo = hi - 1;  // halves[lo] < a < halves[hi]; index = the half's bits
  const double dlo = a - halves[lo], dhi = halves[hi] - a;
  size_t pick = lo;
  switch (mode) {
    case AscendC::RoundMode::CAST_RINT:
      pick = dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi);
      break;
    case AscendC::RoundMode::CAST_FLOOR:
      pick = neg ? hi : lo;
      break;
    case AscendC::RoundMode::CAST_CEIL:
      pick = neg ? lo : hi;
      break;
    case AscendC::RoundMode::CAST_ROUND:
      pick = dlo < dhi ? lo : hi;
      break;
    case AscendC::RoundMode::CAST_ODD:
      pick = lo % 2 == 1 ? lo : hi;
      break;
    default:
      pick = lo;
  }
  const float h = halves[pick] == 65536.0f ? inf : halves[pick];
  return neg ? -h : h;
}

TEST(EmulatorVecKernels, CastRoundTripUnderEveryMode) {
  Gm x(kCastLen * 4), y(kCastLen * kCastModeCount * 4);
  std::mt19937 rng(3);
  std::uniform_int_distribution<uint32_t> bits(0, 0x7bfeu);
  std::uniform_real_distribution<float> u(-3, 3);
  float* xs = x.as<float>();
  for (int32_t i = 0; i < kCastLen; ++i) {
    const float h0 = ascemu::f16_to_f32(static_cast<uint16_t>(bits(rng)));
    switch (i % 5) {
      case 0:  // exactly between two halves
        xs[i] = (h0 + ascemu::f16_to_f32(static_cast<uint16_t>(ascemu::f32_to_f16(h0) + 1))) / 2;
        break;
      case 1:
        xs[i] = u(rng);
        break;
      case 2:
        xs[i] = u(rng) * 1e-6f;  // half subnormals
        break;
      case 3:
        xs[i] = h0;  // exact
        break;
      default:
        xs[i] = u(rng) * 3e4f;
    }
    if (i % 2) xs[i] = -xs[i];
  }
  xs[7] = 70000.0f;  // past half: inf, or 65504 rounding toward zero
  xs[8] = -1e9f;
  xs[9] = -std::numeric_limits<float>::infinity();  // the Inf/NaN mode keeps inf and NaN
  xs[10] = std::numeric_limits<float>::quiet_NaN();
  xs[11] = 65519.0f;  // rounds to 65504 or 65536 (inf) by the mode
  xs[12] = -65520.0f;
  const ascemu::Result r = ascemu::Run(vectest::collect("cast_round_trip"), KERNEL_TYPE_AIV_ONLY, 1,
                                       cast_round_trip, x.addr(), y.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int32_t m = 0; m < kCastModeCount; ++m)
    for (int32_t i = 0; i < kCastLen; ++i)
      if (std::isnan(xs[i]))
        ASSERT_TRUE(std::isnan(y.as<float>()[m * kCastLen + i])) << "mode " << m;
      else
        ASSERT_EQ(y.as<float>()[m * kCastLen + i], half_reference(xs[i], kCastModes[m]))
            << "mode " << m << " x " << xs[i] << " at " << i;
}

// ---- ReLU by CompareScalar + Select (scalar mode), max by Compare + Select (tensor mode) ----
constexpr int32_t kSelLen = 64 * 31;

class KernelReluBySelect {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR y) {
    xGm.SetGlobalBuffer((__gm__ float*)x, kSelLen);
    zGm.SetGlobalBuffer((__gm__ float*)z, kSelLen);
    yGm.SetGlobalBuffer((__gm__ float*)y, 2 * kSelLen);
    pipe.InitBuffer(inQueue, 2, kSelLen * sizeof(float));
    pipe.InitBuffer(outQueue, 2, kSelLen * sizeof(float));
    pipe.InitBuffer(maskBuf, kSelLen / 8);
  }
  __aicore__ inline void Process() {
    AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    AscendC::LocalTensor<float> zLocal = inQueue.AllocTensor<float>();
    AscendC::DataCopy(xLocal, xGm, kSelLen);
    AscendC::DataCopy(zLocal, zGm, kSelLen);
    inQueue.EnQue(xLocal);
    inQueue.EnQue(zLocal);
    xLocal = inQueue.DeQue<float>();
    zLocal = inQueue.DeQue<float>();
    AscendC::LocalTensor<uint8_t> bits = maskBuf.Get<uint8_t>();
    AscendC::LocalTensor<float> relu = outQueue.AllocTensor<float>();
    AscendC::CompareScalar(bits, xLocal, 0.0f, AscendC::CMPMODE::GT, kSelLen);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Select(relu, bits, xLocal, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, kSelLen);
    AscendC::PipeBarrier<PIPE_V>();
    outQueue.EnQue<float>(relu);
    AscendC::LocalTensor<float> mx = outQueue.AllocTensor<float>();
    AscendC::Compare(bits, xLocal, zLocal, AscendC::CMPMODE::GE, kSelLen);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Select(mx, bits, xLocal, zLocal, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, kSelLen);
    outQueue.EnQue<float>(mx);
    inQueue.FreeTensor(xLocal);
    inQueue.FreeTensor(zLocal);
    for (int32_t k = 0; k < 2; k++) {
      AscendC::LocalTensor<float> out = outQueue.DeQue<float>();
      AscendC::DataCopy(yGm[k * kSelLen], out, kSelLen);
      outQueue.FreeTensor(out);
    }
  }

 private:
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 2> inQueue;
  AscendC::TQue<TPosition::VECOUT, 2> outQueue;
  AscendC::TBuf<TPosition::VECCALC> maskBuf;
  AscendC::GlobalTensor<float> xGm, zGm, yGm;
};

extern "C" __global__ __aicore__ void relu_by_select(GM_ADDR x, GM_ADDR z, GM_ADDR y) {
  KernelReluBySelect op;
  op.Init(x, z, y);
  op.Process();
}

TEST(EmulatorVecKernels, ReluAndMaxByCompareAndSelect) {
  Gm x(kSelLen * 4), z(kSelLen * 4), y(2 * kSelLen * 4);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-2, 2);
  for (int32_t i = 0; i < kSelLen; ++i) {
    x.as<float>()[i] = u(rng);
    z.as<float>()[i] = i % 7 ? u(rng) : x.as<float>()[i];
  }
  const ascemu::Result r = ascemu::Run(vectest::collect("relu_by_select"), KERNEL_TYPE_AIV_ONLY, 1,
                                       relu_by_select, x.addr(), z.addr(), y.addr());
  EXPECT_TRUE(r.races.empty()) << r.races.front();
  for (int32_t i = 0; i < kSelLen; ++i) {
    const float a = x.as<float>()[i], b = z.as<float>()[i];
    ASSERT_EQ(y.as<float>()[i], a > 0 ? a : 0.0f) << i;
    ASSERT_EQ(y.as<float>()[kSelLen + i], a >= b ? a : b) << i;
  }
}

}  // namespace

namespace {

// ---- Sigmoid, Tanh and Erf with a sharedTmpBuffer, half, 300 elements ----
constexpr uint32_t kActLen = 320, kActCount = 300;

template <int kFn>  // 0 Sigmoid, 1 Tanh, 2 Erf
__aicore__ void activation(GM_ADDR x, GM_ADDR y) {
  AscendC::TPipe pipe;
  AscendC::TQue<TPosition::VECIN, 1> inQueue;
  AscendC::TQue<TPosition::VECOUT, 1> outQueue;
  AscendC::TBuf<TPosition::VECCALC> tmpBuf;
  pipe.InitBuffer(inQueue, 1, kActLen * sizeof(half));
  pipe.InitBuffer(outQueue, 1, kActLen * sizeof(half));
  pipe.InitBuffer(tmpBuf, 2048);
  AscendC::GlobalTensor<half> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ half*)x, kActLen);
  yGm.SetGlobalBuffer((__gm__ half*)y, kActLen);
  AscendC::LocalTensor<half> xLocal = inQueue.AllocTensor<half>();
  AscendC::DataCopy(xLocal, xGm, kActLen);
  inQueue.EnQue(xLocal);
  xLocal = inQueue.DeQue<half>();
  AscendC::LocalTensor<half> yLocal = outQueue.AllocTensor<half>();
  AscendC::LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
  if (kFn == 1)
    AscendC::Tanh(yLocal, xLocal, tmp, kActCount);
  else if (kFn == 2)
    AscendC::Erf(yLocal, xLocal, tmp, kActCount);
  else
    AscendC::Sigmoid(yLocal, xLocal, tmp, kActCount);
  outQueue.EnQue(yLocal);
  inQueue.FreeTensor(xLocal);
  yLocal = outQueue.DeQue<half>();
  AscendC::DataCopy(yGm, yLocal, kActLen);
  outQueue.FreeTensor(yLocal);
}

TEST(EmulatorVecKernels, SigmoidTanhErfWithSharedTmpBuffer) {
  vectest::Gm x(kActLen * 2), y(kActLen * 2);
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(-6, 6);
  for (uint32_t i = 0; i < kActLen; ++i) x.as<half>()[i] = half(u(rng));
  void (*const kernels[])(GM_ADDR, GM_ADDR) = {activation<0>, activation<1>, activation<2>};
  for (int fn = 0; fn < 3; ++fn) {
    const ascemu::Result r = ascemu::Run(vectest::collect("activation"), KERNEL_TYPE_AIV_ONLY, 1,
                                         kernels[fn], x.addr(), y.addr());
    EXPECT_TRUE(r.races.empty()) << r.races.front();
    for (uint32_t i = 0; i < kActCount; ++i) {
      const float v = x.as<half>()[i];
      const float want = fn == 1   ? std::tanh(v)
                         : fn == 2 ? std::erf(v)
                                   : 1.0f / (1.0f + std::exp(-v));
      ASSERT_NEAR(static_cast<float>(y.as<half>()[i]), want, 1e-3) << i;
    }
  }
  EXPECT_NE(vectest::refusal([] {
              AscendC::TPipe pipe;
              AscendC::TBuf<TPosition::VECCALC> b;
              pipe.InitBuffer(b, 4096);
              AscendC::LocalTensor<half> t = b.Get<half>();
              AscendC::Tanh(t[1024], t, b.Get<uint8_t>()[3584].ReinterpretCast<uint8_t>(), 256);
            }).find("Tanh: sharedTmpBuffer holds 512 bytes; half needs at least 1024"),
            std::string::npos);
}

}  // namespace
