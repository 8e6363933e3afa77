// The cube unit's parameter structs and enums (include kernel_operator.h), with the field names,
// types, defaults and constructor argument orders of the Atlas A2 (NPU arch 2201) Ascend C API.
// Units are noted per field; emu_cube.h says how each call reads them.
#pragma once

#include <cstdint>

// The Fixpipe quantisation modes: a compiler builtin at global scope. The A2 has the first nine.
enum class QuantMode_t : uint8_t {
  NoQuant,       // float -> float, int32_t -> int32_t
  F322F16,       // float -> half, rounded to nearest even
  F322BF16,      // float -> bfloat16_t, rounded to nearest even
  DEQF16,        // int32_t -> half, one scale (deqScalar)
  VDEQF16,       // int32_t -> half, one scale per column (a uint64_t tensor in L1)
  QF322B8_PRE,   // float -> int8_t/uint8_t, one scale
  VQF322B8_PRE,  // float -> int8_t/uint8_t, one scale per column
  REQ8,          // int32_t -> int8_t/uint8_t, one scale
  VREQ8,         // int32_t -> int8_t/uint8_t, one scale per column
};

namespace AscendC {

// GM (ND) -> L1 (Nz). Counts in elements unless noted; C0_SIZE = 32 bytes.
struct Nd2NzParams {
  Nd2NzParams() {}
  Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn,
              const uint16_t srcNdMatrixStrideIn, const uint16_t srcDValueIn,
              const uint16_t dstNzC0StrideIn, const uint16_t dstNzNStrideIn,
              const uint16_t dstNzMatrixStrideIn)
      : ndNum(ndNumIn),
        nValue(nValueIn),
        dValue(dValueIn),
        srcNdMatrixStride(srcNdMatrixStrideIn),
        srcDValue(srcDValueIn),
        dstNzC0Stride(dstNzC0StrideIn),
        dstNzNStride(dstNzNStrideIn),
        dstNzMatrixStride(dstNzMatrixStrideIn) {}
  uint16_t ndNum = 0;              // ND matrices, 0..4095
  uint16_t nValue = 0;             // rows of each, 0..16384
  uint16_t dValue = 0;             // columns of each
  uint16_t srcNdMatrixStride = 0;  // elements between ND matrices in GM
  uint16_t srcDValue = 0;          // elements between rows in GM, >= 1
  uint16_t dstNzC0Stride = 0;      // C0_SIZE units between column blocks in L1, 1..16384
  uint16_t dstNzNStride = 0;       // C0_SIZE units between rows in L1, 1..16384
  uint16_t dstNzMatrixStride = 0;  // elements between Nz matrices in L1, 0..16384
};

// L1/GM -> L0A/L0B in 512-byte fractals.
using LoadData2dParams = struct LoadData2DParams;
struct LoadData2DParams {
  LoadData2DParams() {}
  LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                   const uint16_t srcStrideIn, const uint8_t sidIn, const uint16_t dstGapIn,
                   const bool ifTransposeIn, const uint8_t addrModeIn)
      : startIndex(startIndexIn),
        dstGap(dstGapIn),
        srcStride(srcStrideIn),
        ifTranspose(ifTransposeIn),
        repeatTimes(repeatTimesIn),
        sid(sidIn),
        addrMode(addrModeIn) {}
  uint16_t startIndex = 0;   // first source fractal
  uint16_t dstGap = 0;       // fractals between the end of one destination fractal and the next
  uint16_t srcStride = 0;    // fractals between source fractal starts (0: the same one again)
  bool ifTranspose = false;  // transpose each fractal (16-bit types, from L1)
  uint8_t repeatTimes = 0;   // fractals copied, 0 = NOP
  uint8_t sid = 0;           // reserved
  uint8_t addrMode = 0;      // 0: source index grows by srcStride, 1: shrinks
};

// L1 -> L0A/L0B with a transpose of square blocks (b8: 32x32, b16: 16x16, b32: 16x16).
struct LoadData2dTransposeParams {
  LoadData2dTransposeParams() {}
  LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                            const uint16_t srcStrideIn, const uint16_t dstGapIn,
                            const uint16_t dstfracGapIn, const uint8_t addrModeIn)
      : startIndex(startIndexIn),
        repeatTimes(repeatTimesIn),
        srcStride(srcStrideIn),
        dstGap(dstGapIn),
        dstFracGap(dstfracGapIn),
        addrMode(addrModeIn) {}
  LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                            const uint16_t srcStrideIn, const uint16_t dstGapIn,
                            const uint16_t dstfracGapIn)
      : startIndex(startIndexIn),
        repeatTimes(repeatTimesIn),
        srcStride(srcStrideIn),
        dstGap(dstGapIn),
        dstFracGap(dstfracGapIn) {}
  uint16_t startIndex = 0;  // first source square
  uint8_t repeatTimes = 0;  // squares, 0 = NOP
  uint16_t srcStride = 0;   // squares between source square starts
  uint16_t dstGap = 0;      // 512-byte fractals between iterations' first destination fractals
  uint16_t dstFracGap = 0;  // 512-byte fractals between the two fractals of one square (b8/b32)
  uint8_t addrMode = 0;
};

struct MmadParams {
  MmadParams() {}
  MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const bool isBiasIn,
             const int32_t fmOffsetIn, const bool enSsparseIn, const bool enWinogradAIn,
             const bool enWinogradBIn)
      : m(mIn),
        n(nIn),
        k(kIn),
        isBias(isBiasIn),
        fmOffset(fmOffsetIn),
        enSsparse(enSsparseIn),
        enWinogradA(enWinogradAIn),
        enWinogradB(enWinogradBIn) {}
  MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const uint8_t unitFlagIn,
             const bool cmatrixSourceIn, const bool cmatrixInitValIn)
      : m(mIn),
        n(nIn),
        k(kIn),
        unitFlag(unitFlagIn),
        cmatrixSource(cmatrixSourceIn),
        cmatrixInitVal(cmatrixInitValIn) {}
  uint16_t m = 0;
  uint16_t n = 0;
  uint16_t k = 0;
  bool isBias = false;   // deprecated: true accumulates onto L0C
  int32_t fmOffset = 0;  // unused from the A2 on
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  uint8_t unitFlag = 0;          // 0, 2 or 3
  bool kDirectionAlign = false;  // float: K of L0A aligned to 16 instead of 8
  bool cmatrixSource = false;    // C starts from the bias table (when not initialised to 0)
  bool cmatrixInitVal = true;    // C starts from 0
};

// L1/L0A/L0B fill (InitConstValue), repeatTimes blocks of blockNum 512-byte fractals.
template <typename T>
struct InitConstValueParams {
  InitConstValueParams() {}
  InitConstValueParams(const uint16_t repeatTimesIn, const uint16_t blockNumIn,
                       const uint16_t dstGapIn, const T initValueIn)
      : repeatTimes(repeatTimesIn),
        blockNum(blockNumIn),
        dstGap(dstGapIn),
        initValue(initValueIn) {}
  InitConstValueParams(const uint16_t repeatTimesIn, const T initValueIn)
      : repeatTimes(repeatTimesIn), initValue(initValueIn) {}
  uint16_t repeatTimes = 0;
  uint16_t blockNum = 0;
  uint16_t dstGap = 0;
  T initValue = 0;
};

// Load3D v2: image-to-column of an NC1HWC0 feature map in L1 into L0A/L0B.
constexpr uint8_t PAD_SIZE = 4;
template <typename T>
struct LoadData3DParamsV2 {
  LoadData3DParamsV2() {
    for (int32_t i = 0; i < PAD_SIZE; ++i) padList[i] = 0;
  }
  LoadData3DParamsV2(const uint8_t padListIn[PAD_SIZE], const uint16_t l1HIn, const uint16_t l1WIn,
                     const uint16_t channelSizeIn, const uint16_t kExtensionIn,
                     const uint16_t mExtensionIn, const uint16_t kStartPtIn,
                     const uint16_t mStartPtIn, const uint8_t strideWIn, const uint8_t strideHIn,
                     const uint8_t filterWIn, const uint8_t filterHIn,
                     const uint8_t dilationFilterWIn, const uint8_t dilationFilterHIn,
                     const bool enTransposeIn, const bool enSmallKIn, const T padValueIn)
      : l1H(l1HIn),
        l1W(l1WIn),
        channelSize(channelSizeIn),
        kExtension(kExtensionIn),
        mExtension(mExtensionIn),
        kStartPt(kStartPtIn),
        mStartPt(mStartPtIn),
        strideW(strideWIn),
        strideH(strideHIn),
        filterW(filterWIn),
        filterH(filterHIn),
        dilationFilterW(dilationFilterWIn),
        dilationFilterH(dilationFilterHIn),
        enTranspose(enTransposeIn),
        enSmallK(enSmallKIn),
        padValue(padValueIn) {
    for (int32_t i = 0; i < PAD_SIZE; ++i) padList[i] = padListIn[i];
  }
  LoadData3DParamsV2(const uint8_t padListIn[PAD_SIZE], const uint16_t l1HIn, const uint16_t l1WIn,
                     const uint16_t channelSizeIn, const uint16_t kExtensionIn,
                     const uint16_t mExtensionIn, const uint16_t kStartPtIn,
                     const uint16_t mStartPtIn, const uint8_t strideWIn, const uint8_t strideHIn,
                     const uint8_t filterWIn, const uint8_t filterHIn,
                     const uint8_t dilationFilterWIn, const uint8_t dilationFilterHIn,
                     const bool enTransposeIn, const bool enSmallKIn, const T padValueIn,
                     const bool filterSizeWIn, const bool filterSizeHIn, const bool fMatrixCtrlIn)
      : LoadData3DParamsV2(padListIn, l1HIn, l1WIn, channelSizeIn, kExtensionIn, mExtensionIn,
                           kStartPtIn, mStartPtIn, strideWIn, strideHIn, filterWIn, filterHIn,
                           dilationFilterWIn, dilationFilterHIn, enTransposeIn, enSmallKIn,
                           padValueIn) {
    filterSizeW = filterSizeWIn;
    filterSizeH = filterSizeHIn;
    fMatrixCtrl = fMatrixCtrlIn;
  }
  uint8_t padList[PAD_SIZE] = {0};  // left, right, top, bottom
  uint16_t l1H = 0;                 // feature map height, 0 = NOP
  uint16_t l1W = 0;                 // feature map width, 0 = NOP
  uint16_t channelSize = 0;         // channels (C1 * C0 when whole), 0 = NOP
  uint16_t kExtension = 0;          // columns of the im2col matrix copied
  uint16_t mExtension = 0;          // rows (output positions) copied
  uint16_t kStartPt = 0;            // first column, a multiple of C0
  uint16_t mStartPt = 0;            // first row
  uint8_t strideW = 1;
  uint8_t strideH = 1;
  uint8_t filterW = 1;
  uint8_t filterH = 1;
  uint8_t dilationFilterW = 1;
  uint8_t dilationFilterH = 1;
  bool enTranspose = false;  // L0A only, 16-bit types: the whole matrix transposed
  bool enSmallK = false;     // no longer supported
  T padValue = 0;
  bool filterSizeW = false;  // filterW + 256
  bool filterSizeH = false;  // filterH + 256
  bool fMatrixCtrl = false;  // only false
};

struct IsResetLoad3dConfig {
  bool isSetFMatrix = true;
  bool isSetPadding = true;
};
constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
  CO2Layout format;
  constexpr FixpipeConfig(CO2Layout format_) : format(format_) {}
  constexpr FixpipeConfig(CO2Layout format_, bool) : format(format_) {}
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};
constexpr FixpipeConfig CFG_COLUMN_MAJOR = {CO2Layout::COLUMN_MAJOR};

// L0C -> GM/L1.
struct FixpipeParamsV220 {
  FixpipeParamsV220() {}
  FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                    const uint32_t dstStrideIn, const bool reluEnIn)
      : nSize(nSizeIn),
        mSize(mSizeIn),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        reluEn(reluEnIn) {}
  FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                    const uint32_t dstStrideIn, const bool reluEnIn, const QuantMode_t quantPreIn,
                    const int64_t deqScalarIn, const uint16_t ndNumIn, const uint16_t srcNdStrideIn,
                    const uint16_t dstNdStrideIn, const uint8_t unitFlagIn)
      : nSize(nSizeIn),
        mSize(mSizeIn),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        quantPre(quantPreIn),
        deqScalar(static_cast<uint64_t>(deqScalarIn)),
        ndNum(ndNumIn),
        srcNdStride(srcNdStrideIn),
        dstNdStride(dstNdStrideIn),
        reluEn(reluEnIn),
        unitFlag(unitFlagIn) {}
  FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                    const uint32_t dstStrideIn, const bool reluEnIn, const QuantMode_t quantPreIn,
                    const int64_t deqScalarIn, const uint16_t ndNumIn, const uint16_t srcNdStrideIn,
                    const uint16_t dstNdStrideIn, const uint8_t unitFlagIn,
                    const bool isChannelSplitIn)
      : FixpipeParamsV220(nSizeIn, mSizeIn, srcStrideIn, dstStrideIn, reluEnIn, quantPreIn,
                          deqScalarIn, ndNumIn, srcNdStrideIn, dstNdStrideIn, unitFlagIn) {
    isChannelSplit = isChannelSplitIn;
  }
  uint16_t nSize = 0;      // columns (N) of the source Nz matrix
  uint16_t mSize = 0;      // rows (M)
  uint16_t srcStride = 0;  // rows of 16 elements (C0) between the source's column blocks
  uint32_t dstStride = 0;  // ND: elements per destination row; NZ: 32-byte units between blocks
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint64_t deqScalar = 0;    // scalar modes: bits 31..13 a float scale (1, 8, 10), see emu_cube.h
  uint16_t ndNum = 1;        // ND: matrices converted
  uint16_t srcNdStride = 0;  // ND: 16x16 fractals between source matrices, 0..512
  uint16_t dstNdStride = 0;  // ND: elements between destination matrices
  bool reluEn = false;
  uint8_t unitFlag = 0;
  bool isChannelSplit = false;  // NZ float -> float to GM: 16x8 destination fractals
};

}  // namespace AscendC
