// The emulator's DMA calls (include kernel_operator.h): DataCopy between GM and UB/L1 (counts
// and DataCopyParams in 32-byte blocks), UB -> UB, and DataCopyPad between GM and UB
// (DataCopyExtParams in bytes, each block padded to 32 bytes in UB). GM -> local runs on MTE2,
// UB -> GM on MTE3, UB -> UB on V. Refused as the hardware refuses it: a local address not
// 32-byte aligned, a DataCopy of bytes not a multiple of 32 (the hardware drops the rest), a
// memory the core does not have, ranges past a tensor or its GM block.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "emu_tensor.h"

namespace AscendC {

constexpr uint16_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint16_t DEFAULT_DATA_COPY_STRIDE = 0;

struct DataCopyParams {
  DataCopyParams() {}
  DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn,
                 const uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint16_t blockLen = 0;                          // 32-byte blocks per burst
  uint16_t srcStride = DEFAULT_DATA_COPY_STRIDE;  // 32-byte blocks between bursts
  uint16_t dstStride = DEFAULT_DATA_COPY_STRIDE;
};

struct DataCopyExtParams {
  DataCopyExtParams() {}
  DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                    const uint32_t dstStrideIn, const uint32_t rsvIn)
      : blockCount(count),
        blockLen(len),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        rsv(rsvIn) {}
  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint32_t blockLen = 0;                          // bytes
  uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;  // GM side: bytes; UB side: 32-byte blocks
  uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
  uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
  DataCopyPadExtParams() {}
  DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue,
                       const uint8_t rightPadValue, T padValue)
      : isPad(isPadValue),
        leftPadding(leftPadValue),
        rightPadding(rightPadValue),
        paddingValue(padValue) {}
  bool isPad = false;
  uint8_t leftPadding = 0;   // elements
  uint8_t rightPadding = 0;  // elements
  T paddingValue = T();
};

}  // namespace AscendC

namespace ascemu {

// A local operand's memory, checked for the call: 32-byte aligned start, [0, elems) inside it.
template <typename T>
inline Mem dma_local(const char* call, const AscendC::LocalTensor<T>& t, uint64_t elems) {
  Core& c = current();
  const Mem m = t.HostMem();
  check(c.capacity(m) > 0, call,
        std::string(c.aic() ? "an AIC (cube core)" : "an AIV (vector core)") + " has no " +
            mem_name(m));
  check(t.HostOffset() % 32 == 0, call,
        std::string(mem_name(m)) + " address " + std::to_string(t.HostOffset()) +
            " is not 32-byte aligned");
  check(elems <= t.GetSize(), call,
        std::to_string(elems) + " elements past a local tensor of " + std::to_string(t.GetSize()));
  return m;
}

inline void dma_bytes32(const char* call, uint64_t bytes) {
  check(bytes % 32 == 0, call,
        std::to_string(bytes) + " bytes is not a multiple of 32 (the hardware would copy " +
            std::to_string(bytes / 32 * 32) + "; use DataCopyPad)");
}

// Bursts of `len` bytes: source bursts every `sstep` bytes, destination bursts every `dstep`.
void dma_bursts(const char* call, int pipe, Mem dmem, uint64_t dbase, Mem smem, uint64_t sbase,
                uint32_t count, uint64_t len, uint64_t sstep, uint64_t dstep);

// The byte range of a GM tensor's first `bytes` bytes, checked.
template <typename T>
inline uint64_t gm_at(const char* call, const AscendC::GlobalTensor<T>& g, uint64_t bytes) {
  check(bytes <= g.GetSize() * sizeof(T) || g.GetSize() >= UINT64_MAX / sizeof(T), call,
        std::to_string(bytes) + " bytes past a GlobalTensor of " +
            std::to_string(g.GetSize() * sizeof(T)));
  check_gm(call, g.GetPhyAddr(), bytes);
  return reinterpret_cast<uint64_t>(g.GetPhyAddr());
}

}  // namespace ascemu

namespace AscendC {

// GM -> UB (vector core) or L1 (cube core), count elements.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
  const uint64_t bytes = uint64_t{count} * sizeof(T);
  ascemu::dma_bytes32("DataCopy", bytes);
  const ascemu::Mem m = ascemu::dma_local("DataCopy", dst, count);
  const uint64_t g = ascemu::gm_at("DataCopy", src, bytes);
  ascemu::dma_bursts("DataCopy", ascemu::kMTE2, m, dst.HostOffset(), ascemu::Mem::kGM, g, 1, bytes,
                     0, 0);
}

// UB -> GM, count elements.
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  const uint64_t bytes = uint64_t{count} * sizeof(T);
  ascemu::dma_bytes32("DataCopy", bytes);
  const ascemu::Mem m = ascemu::dma_local("DataCopy", src, count);
  ascemu::check(m == ascemu::Mem::kUB, "DataCopy",
                std::string(ascemu::mem_name(m)) +
                    " -> GM is not a DataCopy path (UB -> GM is; L0C "
                    "leaves through Fixpipe)");
  const uint64_t g = ascemu::gm_at("DataCopy", dst, bytes);
  ascemu::dma_bursts("DataCopy", ascemu::kMTE3, ascemu::Mem::kGM, g, m, src.HostOffset(), 1, bytes,
                     0, 0);
}

// UB -> UB, count elements (runs on the vector pipe).
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  const uint64_t bytes = uint64_t{count} * sizeof(T);
  ascemu::dma_bytes32("DataCopy", bytes);
  const ascemu::Mem dm = ascemu::dma_local("DataCopy", dst, count);
  const ascemu::Mem sm = ascemu::dma_local("DataCopy", src, count);
  ascemu::check(dm == ascemu::Mem::kUB && sm == ascemu::Mem::kUB, "DataCopy",
                std::string(ascemu::mem_name(sm)) + " -> " + ascemu::mem_name(dm) +
                    " is not a DataCopy path of the Atlas A2");
  ascemu::dma_bursts("DataCopy", ascemu::kV, dm, dst.HostOffset(), sm, src.HostOffset(), 1, bytes,
                     0, 0);
}

// GM -> UB/L1 in bursts: blockCount bursts of blockLen 32-byte blocks, gaps in 32-byte blocks.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                     const DataCopyParams& p) {
  const uint64_t len = uint64_t{p.blockLen} * 32, sstep = len + uint64_t{p.srcStride} * 32,
                 dstep = len + uint64_t{p.dstStride} * 32;
  const uint64_t span_l = p.blockCount ? (p.blockCount - 1) * dstep + len : 0;
  const uint64_t span_g = p.blockCount ? (p.blockCount - 1) * sstep + len : 0;
  const ascemu::Mem m = ascemu::dma_local("DataCopy", dst, span_l / sizeof(T));
  ascemu::check(span_l <= uint64_t{dst.GetSize()} * sizeof(T), "DataCopy",
                "bursts past the local tensor");
  const uint64_t g = ascemu::gm_at("DataCopy", src, span_g);
  ascemu::dma_bursts("DataCopy", ascemu::kMTE2, m, dst.HostOffset(), ascemu::Mem::kGM, g,
                     p.blockCount, len, sstep, dstep);
}

// UB -> GM in bursts.
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& p) {
  const uint64_t len = uint64_t{p.blockLen} * 32, sstep = len + uint64_t{p.srcStride} * 32,
                 dstep = len + uint64_t{p.dstStride} * 32;
  const uint64_t span_l = p.blockCount ? (p.blockCount - 1) * sstep + len : 0;
  const uint64_t span_g = p.blockCount ? (p.blockCount - 1) * dstep + len : 0;
  const ascemu::Mem m = ascemu::dma_local("DataCopy", src, span_l / sizeof(T));
  ascemu::check(m == ascemu::Mem::kUB, "DataCopy",
                std::string(ascemu::mem_name(m)) + " -> GM is not a DataCopy path");
  ascemu::check(span_l <= uint64_t{src.GetSize()} * sizeof(T), "DataCopy",
                "bursts past the local tensor");
  const uint64_t g = ascemu::gm_at("DataCopy", dst, span_g);
  ascemu::dma_bursts("DataCopy", ascemu::kMTE3, ascemu::Mem::kGM, g, m, src.HostOffset(),
                     p.blockCount, len, sstep, dstep);
}

// GM -> UB: blockCount blocks of blockLen bytes (GM gaps srcStride bytes); in UB each block is
// [leftPadding elements][data][rightPadding elements] rounded up to 32 bytes, then dstStride
// 32-byte blocks of gap. Pads hold paddingValue with isPad, else unknown data (the emulator
// writes 0xFF bytes, NaN in a float); the rounding to 32 bytes repeats the block's first element
// when there is no left/right padding (as the hardware's dummy fill does).
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {
  const char* call = "DataCopyPad";
  const uint64_t es = sizeof(T);
  ascemu::check(
      p.blockLen % es == 0, call,
      "blockLen " + std::to_string(p.blockLen) + " is not a multiple of the element size");
  ascemu::check(pad.leftPadding * es <= 32 && pad.rightPadding * es <= 32, call,
                "left/right padding of more than 32 bytes");
  ascemu::check(p.blockCount <= 4095, call, "blockCount past 4095");
  const uint64_t lp = pad.leftPadding * es, rp = pad.rightPadding * es;
  const uint64_t row = (lp + p.blockLen + rp + 31) / 32 * 32;
  const uint64_t dstep = row + uint64_t{p.dstStride} * 32,
                 sstep = p.blockLen + uint64_t{p.srcStride};
  const uint64_t span_l = p.blockCount ? (p.blockCount - 1) * dstep + row : 0;
  const uint64_t span_g = p.blockCount ? (p.blockCount - 1) * sstep + p.blockLen : 0;
  const ascemu::Mem m = ascemu::dma_local(call, dst, 0);
  ascemu::check(m == ascemu::Mem::kUB, call,
                std::string("GM -> ") + ascemu::mem_name(m) +
                    " has no DataCopyPad on the Atlas A2 (GM -> UB has; L1 takes DataCopy with "
                    "Nd2NzParams)");
  ascemu::check(span_l <= uint64_t{dst.GetSize()} * es, call,
                std::to_string(span_l) + " bytes of padded blocks past a UB tensor of " +
                    std::to_string(uint64_t{dst.GetSize()} * es));
  const uint64_t g = ascemu::gm_at(call, src, span_g);
  uint8_t* ub = ascemu::current().base(m) + dst.HostOffset();
  const auto* gp = reinterpret_cast<const uint8_t*>(g);
  const uint16_t count = p.blockCount;
  const uint32_t blen = p.blockLen;
  std::vector<ascemu::Access> acc;
  for (uint64_t b = 0; b < count; ++b) {
    acc.push_back({ascemu::Mem::kGM, g + b * sstep, g + b * sstep + blen, false});
    acc.push_back({m, dst.HostOffset() + b * dstep, dst.HostOffset() + b * dstep + row, true});
  }
  const DataCopyPadExtParams<T> pv = pad;
  ascemu::current().issue(ascemu::kMTE2, call, std::move(acc), [=] {
    for (uint64_t b = 0; b < count; ++b) {
      uint8_t* d = ub + b * dstep;
      const uint8_t* s = gp + b * sstep;
      auto fill = [&](uint8_t* at, uint64_t bytes, bool value) {
        for (uint64_t i = 0; i + es <= bytes; i += es) {
          if (value)
            std::memcpy(at + i, &pv.paddingValue, es);
          else
            std::memset(at + i, 0xFF, es);
        }
      };
      fill(d, lp, pv.isPad);
      std::memcpy(d + lp, s, blen);
      fill(d + lp + blen, rp, pv.isPad);
      const uint64_t tail = row - lp - blen - rp;
      if (lp == 0 && rp == 0 && blen > 0)
        for (uint64_t i = 0; i + es <= tail; i += es) std::memcpy(d + blen + i, s, es);
      else
        fill(d + lp + blen + rp, tail, pv.isPad);
    }
  });
}

// UB -> GM: blockCount blocks of blockLen bytes; UB blocks start 32-byte aligned (srcStride
// 32-byte blocks of gap), GM blocks dstStride bytes apart.
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyExtParams& p) {
  const char* call = "DataCopyPad";
  const uint64_t es = sizeof(T);
  ascemu::check(
      p.blockLen % es == 0, call,
      "blockLen " + std::to_string(p.blockLen) + " is not a multiple of the element size");
  ascemu::check(p.blockCount <= 4095, call, "blockCount past 4095");
  const uint64_t row = (uint64_t{p.blockLen} + 31) / 32 * 32;
  const uint64_t sstep = row + uint64_t{p.srcStride} * 32,
                 dstep = p.blockLen + uint64_t{p.dstStride};
  const uint64_t span_l = p.blockCount ? (p.blockCount - 1) * sstep + p.blockLen : 0;
  const uint64_t span_g = p.blockCount ? (p.blockCount - 1) * dstep + p.blockLen : 0;
  const ascemu::Mem m = ascemu::dma_local(call, src, 0);
  ascemu::check(m == ascemu::Mem::kUB, call,
                std::string(ascemu::mem_name(m)) + " -> GM has no DataCopyPad");
  ascemu::check(span_l <= uint64_t{src.GetSize()} * es, call,
                std::to_string(span_l) + " bytes of blocks past a UB tensor of " +
                    std::to_string(uint64_t{src.GetSize()} * es));
  const uint64_t g = ascemu::gm_at(call, dst, span_g);
  ascemu::dma_bursts(call, ascemu::kMTE3, ascemu::Mem::kGM, g, m, src.HostOffset(), p.blockCount,
                     p.blockLen, sstep, dstep);
}

}  // namespace AscendC
