// Host API (kernel_operator.h): LoadData, Mmad, Fixpipe and the L0C -> UB copy, with L0A/L0B/L0C
// kept row-major (ND), not in the hardware's fractal layouts (docs/ASCENDC.md).
#pragma once

#include "kernel_operator_core.h"

namespace AscendC {

// ---- cube (ND layouts here, see the header comment) ----
struct LoadData2DParams {
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;  // 512-byte fractals
  uint16_t srcStride = 1;
  uint8_t sid = 0;
  uint16_t dstGap = 0;
  bool ifTranspose = false;
  uint8_t addrMode = 0;
};
// L1 (A1/B1; a UB source stands for UB -> GM -> L1 on the 910B) -> L0A/L0B: repeatTimes * 512
// bytes (the last fractal may be partial when the tensors end first).
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const LoadData2DParams& p) {
  HostCheck(dst.GetPosition() == TPosition::A2 || dst.GetPosition() == TPosition::B2, "LoadData",
            "destination is not L0A/L0B");
  HostCheck(dst.HostOffset() % 512 == 0, "LoadData", "L0 address not 512-byte aligned");
  const size_t bytes = std::min<size_t>(static_cast<size_t>(p.repeatTimes) * 512,
                                        std::min(dst.GetSize(), src.GetSize()) * sizeof(T));
  std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), bytes);
}
// Load3D (v2): the image-to-column expansion of a feature map in L1 [channelSize, l1H, l1W]
// into L0A ([mExtension, kExtension]) or L0B ([kExtension, mExtension]), row-major here. Column
// k = (c, kh, kw) (row-major over channelSize x filterH x filterW), position m = (oh, ow) over
// the output width wo = (l1W + padL + padR - dilated filterW) / strideW + 1, starting at
// kStartPt / mStartPt; a window element in the padding reads padValue. (The hardware orders K by
// C0-channel blocks and needs fractal-aligned L0 addresses; this ND emulation takes any offset,
// which a 3-D window's per-plane calls use.)
template <typename T>
struct LoadData3DParamsV2 {
  uint8_t padList[4] = {0, 0, 0, 0};  // left, right, top, bottom
  uint16_t l1H = 0, l1W = 0, channelSize = 0;
  uint16_t kExtension = 0, mExtension = 0, kStartPt = 0, mStartPt = 0;
  uint8_t strideW = 1, strideH = 1, filterW = 1, filterH = 1;
  uint8_t dilationFilterW = 1, dilationFilterH = 1;
  bool enTranspose = false, enSmallK = false;
  T padValue = T(0);
  bool filterSizeW = false, filterSizeH = false, fMatrixCtrl = false;
};
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const LoadData3DParamsV2<T>& p) {
  const bool to_a = dst.GetPosition() == TPosition::A2;
  HostCheck(to_a || dst.GetPosition() == TPosition::B2, "LoadData", "destination is not L0A/L0B");
  HostCheck(src.GetPosition() == TPosition::A1 || src.GetPosition() == TPosition::B1, "LoadData",
            "Load3D source is not L1");
  const int64_t ekw = (p.filterW - 1) * p.dilationFilterW + 1;
  const int64_t ekh = (p.filterH - 1) * p.dilationFilterH + 1;
  const int64_t wo = (int64_t{p.l1W} + p.padList[0] + p.padList[1] - ekw) / p.strideW + 1;
  const int64_t ho = (int64_t{p.l1H} + p.padList[2] + p.padList[3] - ekh) / p.strideH + 1;
  const int64_t kk = int64_t{p.channelSize} * p.filterH * p.filterW;
  HostCheck(p.strideW > 0 && p.strideH > 0 && wo > 0 && ho > 0, "LoadData",
            "Load3D window larger than the feature map");
  HostCheck(p.mStartPt + p.mExtension <= ho * wo, "LoadData", "Load3D positions past the output");
  HostCheck(static_cast<uint64_t>(p.channelSize) * p.l1H * p.l1W <= src.GetSize(), "LoadData",
            "Load3D feature map past the L1 tensor");
  HostCheck(p.kStartPt + p.kExtension <= kk, "LoadData", "Load3D k range past the columns");
  HostCheck(static_cast<uint64_t>(p.kExtension) * p.mExtension <= dst.GetSize(), "LoadData",
            "Load3D columns past the L0 tensor");
  const T* map = src.GetPhyAddr();
  T* out = dst.GetPhyAddr();
  for (int64_t k = 0; k < p.kExtension; ++k) {
    const int64_t kc = p.kStartPt + k;
    const int64_t c = kc / (p.filterH * p.filterW), b = kc / p.filterW % p.filterH,
                  e = kc % p.filterW;
    for (int64_t m = 0; m < p.mExtension; ++m) {
      const int64_t pos = p.mStartPt + m, oh = pos / wo, ow = pos % wo;
      const int64_t ih = oh * p.strideH - p.padList[2] + b * p.dilationFilterH;
      const int64_t iw = ow * p.strideW - p.padList[0] + e * p.dilationFilterW;
      const T v = ih >= 0 && ih < p.l1H && iw >= 0 && iw < p.l1W
                      ? map[(c * p.l1H + ih) * p.l1W + iw]
                      : p.padValue;
      out[to_a ? m * p.kExtension + k : k * p.mExtension + m] = v;
    }
  }
}
// L0C (CO1) -> UB: blockCount blocks of blockLen 1 KiB units (16 x 16 f32). On the 910B this
// stands for Fixpipe to a GM workspace and a copy back into UB (docs/ASCENDC.md).
struct DataCopyCO12DstParams {
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
};
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyCO12DstParams& p) {
  HostCheck(src.GetPosition() == TPosition::CO1 && MemOf(dst.GetPosition()) == MemKind::kUB,
            "DataCopy", "not L0C -> UB");
  HostCheck(dst.HostOffset() % 32 == 0, "DataCopy", "UB address not 32-byte aligned");
  const size_t bytes = std::min<size_t>(static_cast<size_t>(p.blockCount) * p.blockLen * 1024,
                                        std::min(dst.GetSize(), src.GetSize()) * sizeof(T));
  std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), bytes);
}
struct MmadParams {
  uint16_t m = 0, n = 0, k = 0;
  bool isBias = false;
  bool cmatrixInitVal = true;  // true: C = A x B; false: C += A x B
};
// C[m, n] (f32, L0C) (+)= A[m, k] (L0A) x B[k, n] (L0B), row-major; products and sums in float.
template <typename C, typename A, typename B>
inline void Mmad(const LocalTensor<C>& c, const LocalTensor<A>& a, const LocalTensor<B>& b,
                 const MmadParams& p) {
  HostCheck(c.GetPosition() == TPosition::CO1 && a.GetPosition() == TPosition::A2 &&
                b.GetPosition() == TPosition::B2,
            "Mmad", "operands not in L0C/L0A/L0B");
  HostCheck(c.HostOffset() % 1024 == 0, "Mmad", "L0C address not 1 KiB aligned");
  HostCheck(static_cast<uint64_t>(p.m) * p.n <= c.GetSize() &&
                static_cast<uint64_t>(p.m) * p.k <= a.GetSize() &&
                static_cast<uint64_t>(p.k) * p.n <= b.GetSize(),
            "Mmad", "m/n/k past the operands");
  C* cp = c.GetPhyAddr();
  const A* ap = a.GetPhyAddr();
  const B* bp = b.GetPhyAddr();
  for (uint32_t i = 0; i < p.m; ++i) {
    C* row = cp + static_cast<size_t>(i) * p.n;
    if (p.cmatrixInitVal)
      for (uint32_t j = 0; j < p.n; ++j) row[j] = C(0);
    for (uint32_t l = 0; l < p.k; ++l) {
      const float av = static_cast<float>(ap[static_cast<size_t>(i) * p.k + l]);
      const B* brow = bp + static_cast<size_t>(l) * p.n;
      for (uint32_t j = 0; j < p.n; ++j) row[j] += av * static_cast<float>(brow[j]);
    }
  }
}
struct FixpipeParamsV220 {
  uint16_t nSize = 0;      // columns written
  uint16_t mSize = 0;      // rows written
  uint16_t srcStride = 0;  // L0C row stride (elements)
  uint32_t dstStride = 0;  // GM row stride (elements)
  QuantMode_t quantPre = QuantMode_t::NoQuant;
};
// L0C (f32) -> GM with conversion to D (the quantPre mode).
template <typename D, typename S>
inline void Fixpipe(const GlobalTensor<D>& dst, const LocalTensor<S>& src,
                    const FixpipeParamsV220& p) {
  HostCheck(src.GetPosition() == TPosition::CO1, "Fixpipe", "source is not L0C");
  HostCheck((std::is_same_v<D, float> && p.quantPre == QuantMode_t::NoQuant) ||
                (std::is_same_v<D, half> && p.quantPre == QuantMode_t::F322F16) ||
                (std::is_same_v<D, bfloat16_t> && p.quantPre == QuantMode_t::F322BF16),
            "Fixpipe", "quantPre does not match the destination type");
  HostCheck(
      p.mSize == 0 || static_cast<uint64_t>(p.mSize - 1) * p.srcStride + p.nSize <= src.GetSize(),
      "Fixpipe", "rows past the L0C tensor");
  for (uint32_t r = 0; r < p.mSize; ++r)
    for (uint32_t c = 0; c < p.nSize; ++c)
      dst.GetPhyAddr()[static_cast<size_t>(r) * p.dstStride + c] = static_cast<D>(
          static_cast<float>(src.GetPhyAddr()[static_cast<size_t>(r) * p.srcStride + c]));
}

}  // namespace AscendC
