// The emulator's cube unit (include kernel_operator.h): GM -> L1 with ND -> Nz conversion
// (DataCopy with Nd2NzParams, MTE2), L1 -> L0A/L0B in 512-byte fractals (LoadData,
// LoadDataWithTranspose, MTE1), L1 -> bias table (DataCopy, MTE1), the matrix multiply (Mmad, M)
// and L0C -> GM/L1 with Nz -> ND conversion, casts, quantisation and ReLU (Fixpipe, FIX), on an
// AIC. Every call stores and reads the memories in the hardware's fractal layouts, so a kernel
// that assumes a wrong layout computes a wrong result here as on the NPU.
//
// Layouts. C0 = 32 bytes / sizeof(T) elements: 16 (half, bfloat16_t), 8 (float, int32_t), 32
// (int8_t). A fractal is 16 rows of C0 elements, 512 bytes, row-major inside ("z"); L0C's
// fractal is 16 x 16 elements of float/int32_t, 1024 bytes. For an R x C matrix,
// R1 = ceil(R / 16), C1 = ceil(C / C0), element (r, c) lies in fractal (r / 16, c / C0) at
// (r % 16, c % C0), and the fractals are ordered:
//   Nz (L1, and L0C with C0 = 16): column-major, fractal (r1, c1) at (c1 * R1 + r1) * 512 bytes
//       (ND2NZ's dstNzC0Stride is the padded row count, R1 * 16, in 32-byte units);
//   Zz (L0A, A is M x K): row-major, fractal (m1, k1) at (m1 * K1 + k1) * 512 bytes, element
//       (m % 16) * C0 + k % C0 inside;
//   Zn (L0B, B is K x N): row-major over (k1, n1), fractal at (k1 * N1 + n1) * 512 bytes, each
//       fractal holding 16 columns n of C0 values k: element (n % 16) * C0 + k % C0 inside;
//   Nz (L0C, C is M x N): fractal (m1, n1) at (n1 * M1 + m1) * 1024 bytes, element
//       (m % 16) * 16 + n % 16 inside.
// So L1 Nz -> L0A Zz is a copy of fractals in another order (LoadData, one call per 16-row
// block, srcStride = R1), and L1 Nz (K x N) -> L0B Zn transposes each fractal (ifTranspose for
// 16-bit types; LoadDataWithTranspose joins two 16 x 8 float fractals side by side, or two
// 16 x 32 int8 fractals one over the other, into a square, transposes it and splits it again).
// Mmad with kDirectionAlign (float only) reads L0A with K1 = ceil(K / 16) * 2; with m == 1 (GEMV)
// it reads A as K contiguous elements. Padding rows and columns are stored (and computed) like the
// rest; K past k is not read.
//
// Refused as the hardware or the API refuses it: a call on an AIV, an operand in the wrong memory
// or unaligned (L1 32 bytes, L0A/L0B 512, L0C 1024 for Mmad and 64 for Fixpipe, bias table 64),
// ranges past an operand or its memory, dtype combinations the A2 lacks, parameters out of range.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "emu_copy.h"
#include "emu_cube_params.h"
#include "emu_tensor.h"

namespace ascemu {
namespace cube {

enum class Dt : uint8_t { kF16, kBF16, kF32, kS8, kU8, kS16, kU16, kS32, kU32, kOther };
const char* dt_name(Dt d);
template <typename T>
constexpr Dt dt_of() {
  if constexpr (std::is_same_v<T, half>) return Dt::kF16;
  if constexpr (std::is_same_v<T, bfloat16_t>) return Dt::kBF16;
  if constexpr (std::is_same_v<T, float>) return Dt::kF32;
  if constexpr (std::is_same_v<T, int8_t>) return Dt::kS8;
  if constexpr (std::is_same_v<T, uint8_t>) return Dt::kU8;
  if constexpr (std::is_same_v<T, int16_t>) return Dt::kS16;
  if constexpr (std::is_same_v<T, uint16_t>) return Dt::kU16;
  if constexpr (std::is_same_v<T, int32_t>) return Dt::kS32;
  if constexpr (std::is_same_v<T, uint32_t>) return Dt::kU32;
  return Dt::kOther;
}
uint32_t dt_size(Dt d);

// A local operand: its memory, byte offset, bytes from there to the tensor's end, position.
struct Opnd {
  Mem mem;
  uint64_t off, bytes;
  AscendC::TPosition pos;
};
template <typename T>
Opnd opnd(const AscendC::LocalTensor<T>& t) {
  return Opnd{t.HostMem(), t.HostOffset(), uint64_t{t.GetSize()} * sizeof(T), t.GetPosition()};
}
// A GM operand: host address and bytes of its GlobalTensor (UINT64_MAX / sizeof(T) unbounded).
struct Gm {
  uint64_t addr, bytes;
};
template <typename T>
Gm gm(const AscendC::GlobalTensor<T>& g) {
  const uint64_t n = g.GetSize();
  return Gm{reinterpret_cast<uint64_t>(g.GetPhyAddr()),
            n >= UINT64_MAX / sizeof(T) ? UINT64_MAX : n * sizeof(T)};
}

void nd2nz(const Opnd& dst, const Gm& src, Dt t, const AscendC::Nd2NzParams& p);
void load2d(const Opnd& dst, const Opnd* src_l1, const Gm* src_gm, Dt t,
            const AscendC::LoadData2DParams& p);
void load2d_transpose(const Opnd& dst, const Opnd& src, Dt t,
                      const AscendC::LoadData2dTransposeParams& p);
// Load3D v2 with its parameters widened (pad value as bits).
struct Load3d {
  uint8_t pad[4];
  uint32_t l1h, l1w, channels, k_ext, m_ext, k_start, m_start, stride_w, stride_h, filter_w,
      filter_h, dil_w, dil_h;
  bool transpose, small_k, fmatrix_ctrl;
  uint32_t pad_bits;
};
void load3d(const Opnd& dst, const Opnd& src, Dt t, const Load3d& p);
void l1_to_bias(const Opnd& dst, Dt dt, const Opnd& src, Dt st, const AscendC::DataCopyParams& p);
void fill(const Opnd& dst, Dt t, uint32_t value_bits, uint16_t repeat, uint16_t blocks,
          uint16_t gap);
void mmad(const Opnd& c, Dt ct, const Opnd& a, Dt at, const Opnd& b, Dt bt, const Opnd* bias,
          Dt biast, const AscendC::MmadParams& p);
void fixpipe(const Opnd* dst_l1, const Gm* dst_gm, Dt dt, const Opnd& src, Dt st,
             const Opnd* quant_l1, const AscendC::FixpipeParamsV220& p, AscendC::CO2Layout format);

}  // namespace cube
}  // namespace ascemu

namespace AscendC {

// GM (ND) -> L1 (Nz) on MTE2: for ND matrix i, row r, column c, the source element at
// i * srcNdMatrixStride + r * srcDValue + c goes to element
// i * dstNzMatrixStride + (c / C0) * dstNzC0Stride * C0 + r * dstNzNStride * C0 + c % C0 of L1;
// columns from dValue to the next multiple of C0 are written 0; rows past nValue are not written.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                     const Nd2NzParams& intriParams) {
  ascemu::cube::nd2nz(ascemu::cube::opnd(dst), ascemu::cube::gm(src), ascemu::cube::dt_of<T>(),
                      intriParams);
}

// L1 -> L0A/L0B (MTE1), or GM -> L0A/L0B (MTE2), repeatTimes 512-byte fractals.
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const LoadData2DParams& loadDataParams) {
  const ascemu::cube::Opnd s = ascemu::cube::opnd(src);
  ascemu::cube::load2d(ascemu::cube::opnd(dst), &s, nullptr, ascemu::cube::dt_of<T>(),
                       loadDataParams);
}
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                     const LoadData2DParams& loadDataParams) {
  const ascemu::cube::Gm g = ascemu::cube::gm(src);
  ascemu::cube::load2d(ascemu::cube::opnd(dst), nullptr, &g, ascemu::cube::dt_of<T>(),
                       loadDataParams);
}

// L1 -> L0A/L0B (MTE1), repeatTimes transposed squares.
template <typename T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                  const LoadData2dTransposeParams& loadDataParams) {
  ascemu::cube::load2d_transpose(ascemu::cube::opnd(dst), ascemu::cube::opnd(src),
                                 ascemu::cube::dt_of<T>(), loadDataParams);
}

// Load3D v2 (MTE1): image-to-column of the NC1HWC0 map at src (batch 0) into L0A or L0B. The
// im2col matrix has a row per output position p = oh * Wout + ow and a column per
// q = ((c1 * Hk + kh) * Wk + kw) * C0 + c0, holding the map at (c1, oh * strideH + kh * dilationH
// - padTop, ow * strideW + kw * dilationW - padLeft, c0), or padValue outside it. Rows
// [mStartPt, + mExtension) and columns [kStartPt, + kExtension) go to L0A as a Zz matrix (rows M,
// columns K), transposed with enTranspose (16- and 32-bit types: the Zz of M = columns, K = rows
// rounded up to 16); to L0B (16- and 32-bit types) as the Zn matrix of K = rows, N = columns.
template <typename T, const IsResetLoad3dConfig& defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG,
          typename U = T, typename std::enable_if<std::is_same<T, U>::value, bool>::type = true>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const LoadData3DParamsV2<U>& p) {
  ascemu::check(defaultConfig.isSetFMatrix && defaultConfig.isSetPadding,
                "LoadData(LoadData3DParamsV2)",
                "SetFmatrix/SetLoadDataPaddingValue (IsResetLoad3dConfig false) are not emulated");
  ascemu::cube::Load3d q{};
  for (int i = 0; i < 4; ++i) q.pad[i] = p.padList[i];
  q.l1h = p.l1H, q.l1w = p.l1W, q.channels = p.channelSize, q.k_ext = p.kExtension;
  q.m_ext = p.mExtension, q.k_start = p.kStartPt, q.m_start = p.mStartPt;
  q.stride_w = p.strideW, q.stride_h = p.strideH;
  q.filter_w = p.filterW + (p.filterSizeW ? 256u : 0u),
  q.filter_h = p.filterH + (p.filterSizeH ? 256u : 0u);
  q.dil_w = p.dilationFilterW, q.dil_h = p.dilationFilterH;
  q.transpose = p.enTranspose, q.small_k = p.enSmallK, q.fmatrix_ctrl = p.fMatrixCtrl;
  static_assert(sizeof(T) <= 4, "Load3D: 8-, 16- or 32-bit elements");
  std::memcpy(&q.pad_bits, &p.padValue, sizeof(T));
  ascemu::cube::load3d(ascemu::cube::opnd(dst), ascemu::cube::opnd(src), ascemu::cube::dt_of<T>(),
                       q);
}

// L1 (C1) -> bias table (C2) on MTE1: blockCount blocks of blockLen 64-byte units (counted in the
// destination's float/int32_t), source gaps in 32-byte units, destination gaps in 64-byte units;
// half converts to float on the way.
template <typename T, typename U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                     const DataCopyParams& repeatParams) {
  ascemu::cube::l1_to_bias(ascemu::cube::opnd(dst), ascemu::cube::dt_of<T>(),
                           ascemu::cube::opnd(src), ascemu::cube::dt_of<U>(), repeatParams);
}

// Fills repeatTimes blocks of blockNum 512-byte fractals of L1/L0A/L0B with initValue, dstGap
// fractals between blocks (MTE2 for L1, MTE1 for L0A/L0B).
template <typename T, typename U = T>
inline void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<U>& params) {
  static_assert(sizeof(U) == sizeof(T) && sizeof(T) <= 4, "InitConstValue: 16- or 32-bit values");
  uint32_t bits = 0;
  const T v = static_cast<T>(params.initValue);
  std::memcpy(&bits, &v, sizeof(T));
  ascemu::cube::fill(ascemu::cube::opnd(dst), ascemu::cube::dt_of<T>(), bits, params.repeatTimes,
                     params.blockNum, params.dstGap);
}
template <typename T, typename U = T>
inline void Fill(const LocalTensor<T>& dst, const InitConstValueParams<U>& params) {
  InitConstValue(dst, params);
}

// C (L0C, Nz) = A (L0A, Zz) x B (L0B, Zn) + initial C, on the M pipe, for rows m and columns n
// rounded up to 16 and k exactly. The initial C is 0 with cmatrixInitVal (and not the deprecated
// isBias); else the 1 x n bias row from the bias table (at the bias tensor, or at address 0 with
// cmatrixSource); else L0C's own contents (accumulation). half/bfloat16_t/float products add up in
// float in k order, int8_t in int32_t. Mmads with (m / 16) * (n / 16) >= 10 follow the previous
// ones on M without a PipeBarrier (the hardware orders them); smaller ones need PIPE_M barriers.
// unitFlag 3 hands the result to the Fixpipes with unitFlag 2/3 without an M_FIX flag.
template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const MmadParams& mmadParams) {
  using namespace ascemu::cube;
  mmad(opnd(dst), dt_of<T>(), opnd(fm), dt_of<U>(), opnd(filter), dt_of<S>(), nullptr, Dt::kOther,
       mmadParams);
}
template <typename T, typename U, typename S, typename V>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const LocalTensor<V>& bias, const MmadParams& mmadParams) {
  using namespace ascemu::cube;
  const Opnd b = opnd(bias);
  mmad(opnd(dst), dt_of<T>(), opnd(fm), dt_of<U>(), opnd(filter), dt_of<S>(), &b, dt_of<V>(),
       mmadParams);
}

// L0C -> GM (FIX). Source element (row r, column j) of ND matrix i is L0C float/int32_t
// i * srcNdStride * 256 + (j / 16) * srcStride * 16 + r * 16 + j % 16 (srcNdStride counts
// 1024-byte fractals). CFG_ROW_MAJOR (the default) writes it to destination element
// i * dstNdStride + r * dstStride + j; CFG_NZ to byte (j / 16) * dstStride * 32 +
// (r * 16 + j % 16) * sizeof(T), in blocks of 8 columns with isChannelSplit, and for 8-bit outputs
// in merged blocks of 32 columns, (j / 32) * dstStride * 32 + r * 32 + j % 32 (an odd last 16
// staying 16 wide). On the way quantPre converts: NoQuant; F322F16/F322BF16 rounding to nearest
// even; DEQF16/REQ8/QF322B8_PRE with the word deqScalar and the V* modes with one word per column
// from cbufWorkspace in L1 (bits 31..13 a float scale, 35..32 a shift N - 1 and bit 36 to apply
// it first, 45..37 an offset and bit 46 a signed result for the 8-bit modes). reluEn zeroes
// negatives (M2 = 0 in the scale modes).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
                    const FixpipeParamsV220& intriParams) {
  using namespace ascemu::cube;
  const Gm g = gm(dst);
  fixpipe(nullptr, &g, dt_of<T>(), opnd(src), dt_of<U>(), nullptr, intriParams, config.format);
}
// L0C -> GM with one quantisation word per column (V* modes) read from an L1 tensor.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR,
          typename S = uint64_t,
          typename std::enable_if<std::is_same<S, uint64_t>::value, bool>::type = true>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
                    const LocalTensor<S>& cbufWorkspace, const FixpipeParamsV220& intriParams) {
  using namespace ascemu::cube;
  const Gm g = gm(dst);
  const Opnd q = opnd(cbufWorkspace);
  fixpipe(nullptr, &g, dt_of<T>(), opnd(src), dt_of<U>(), &q, intriParams, config.format);
}
// L0C -> L1 (FIX): NZ only (Fixpipe<T, U, CFG_NZ>), into half, bfloat16_t, int8_t or uint8_t.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                    const FixpipeParamsV220& intriParams) {
  using namespace ascemu::cube;
  const Opnd d = opnd(dst);
  fixpipe(&d, nullptr, dt_of<T>(), opnd(src), dt_of<U>(), nullptr, intriParams, config.format);
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR,
          typename S = uint64_t,
          typename std::enable_if<std::is_same<S, uint64_t>::value, bool>::type = true>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                    const LocalTensor<S>& cbufWorkspace, const FixpipeParamsV220& intriParams) {
  using namespace ascemu::cube;
  const Opnd d = opnd(dst);
  const Opnd q = opnd(cbufWorkspace);
  fixpipe(&d, nullptr, dt_of<T>(), opnd(src), dt_of<U>(), &q, intriParams, config.format);
}

}  // namespace AscendC
