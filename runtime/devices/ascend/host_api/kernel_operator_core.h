// Host API (kernel_operator.h): macros, 16-bit float types, checks, local memories, tensors,
// TPipe/TQue/TBuf, pipe flags and DMA (docs/ASCENDC.md). Include kernel_operator.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR uint8_t*

// ---- 16-bit floats (storage types; arithmetic goes through float) ----
namespace ascend_host {
inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t f32_to_f16(float f) {
  const uint32_t x = f32_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (ax < 0x38800000u) {                                               // subnormal or zero
    const float a = bits_f32(ax);
    const float scaled = a * 16777216.0f;  // 2^24: units of the smallest subnormal
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  const uint32_t mant = ax + 0xfffu + ((ax >> 13) & 1u);  // round to nearest even
  return static_cast<uint16_t>(sign | ((mant - 0x38000000u) >> 13));
}
inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = static_cast<float>(m) / 16777216.0f;
    return sign ? -v : v;
  }
  if (e == 31) return bits_f32(sign | 0x7f800000u | (m << 13));
  return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}
inline uint16_t f32_to_bf16(float f) {
  const uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
inline float bf16_to_f32(uint16_t b) {
  return bits_f32(static_cast<uint32_t>(b) << 16);
}
}  // namespace ascend_host

// Compiler builtins of the Ascend C dialect, at global scope.
enum event_t : uint8_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7
};
enum QuantMode_t : uint8_t { NoQuant, F322F16, F322BF16 };

struct half {
  uint16_t bits = 0;
  half() = default;
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  half(U v) : bits(ascend_host::f32_to_f16(static_cast<float>(v))) {}
  operator float() const { return ascend_host::f16_to_f32(bits); }
};
struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  bfloat16_t(U v) : bits(ascend_host::f32_to_bf16(static_cast<float>(v))) {}
  operator float() const { return ascend_host::bf16_to_f32(bits); }
};

namespace AscendC {

// ---- checks ----
// Called on a violated rule; aborts unless a handler is installed (the test throws from it).
using HostFailHandler = void (*)(const char* what, const char* detail);
inline HostFailHandler& HostFailHook() {
  static HostFailHandler h = nullptr;
  return h;
}
[[noreturn]] inline void HostFail(const char* what, const char* detail) {
  if (HostFailHook()) HostFailHook()(what, detail);
  std::fprintf(stderr, "Ascend C host API: %s: %s\n", what, detail);
  std::abort();
}
inline void HostCheck(bool ok, const char* what, const char* detail) {
  if (!ok) HostFail(what, detail);
}
inline int64_t& UnalignedPadRows() {
  static int64_t n = 0;
  return n;
}

// ---- positions and local memories (one core's, reset by each TPipe) ----
enum class TPosition : uint8_t { GM, VECIN, VECOUT, VECCALC, A1, B1, A2, B2, CO1, CO2 };
enum class MemKind : uint8_t { kUB, kL1, kL0A, kL0B, kL0C, kCount };
inline MemKind MemOf(TPosition p) {
  switch (p) {
    case TPosition::A1:
    case TPosition::B1:
      return MemKind::kL1;
    case TPosition::A2:
      return MemKind::kL0A;
    case TPosition::B2:
      return MemKind::kL0B;
    case TPosition::CO1:
      return MemKind::kL0C;
    default:
      return MemKind::kUB;
  }
}
struct LocalMemory {
  static constexpr uint32_t kCapacity[5] = {196608, 524288, 65536, 65536, 131072};  // 910B
  static constexpr uint32_t kAlign[5] = {32, 32, 512, 512, 1024};
  static constexpr const char* kName[5] = {"UB", "L1", "L0A", "L0B", "L0C"};
  alignas(1024) uint8_t mem[5][524288];
  uint32_t used[5] = {0, 0, 0, 0, 0};
  static LocalMemory& Get() {
    static LocalMemory* m = new LocalMemory();
    return *m;
  }
  uint8_t* Alloc(MemKind k, uint32_t bytes) {
    const int i = static_cast<int>(k);
    const uint32_t start = (used[i] + kAlign[i] - 1) / kAlign[i] * kAlign[i];
    if (static_cast<uint64_t>(start) + bytes > kCapacity[i]) {
      char msg[160];
      std::snprintf(msg, sizeof msg, "%s needs %u bytes at offset %u, capacity %u", kName[i], bytes,
                    start, kCapacity[i]);
      HostFail("TPipe::InitBuffer", msg);
    }
    used[i] = start + bytes;
    return mem[i] + start;
  }
  uint32_t Offset(MemKind k, const void* p) const {
    return static_cast<uint32_t>(static_cast<const uint8_t*>(p) - mem[static_cast<int>(k)]);
  }
};

// ---- block index ----
inline int64_t& HostBlockIdx() {
  static int64_t i = 0;
  return i;
}
inline int64_t& HostBlockNum() {
  static int64_t n = 1;
  return n;
}
inline int64_t GetBlockIdx() {
  return HostBlockIdx();
}
inline int64_t GetBlockNum() {
  return HostBlockNum();
}

// ---- tensors ----
template <typename T>
class GlobalTensor {
 public:
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t size) {
    ptr_ = buffer;
    size_ = size;
  }
  GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor t;
    t.ptr_ = ptr_ + offset;
    t.size_ = size_ > offset ? size_ - offset : 0;
    return t;
  }
  T* GetPhyAddr() const { return ptr_; }
  uint64_t GetSize() const { return size_; }

 private:
  T* ptr_ = nullptr;
  uint64_t size_ = 0;
};

template <typename T>
class LocalTensor {
 public:
  LocalTensor() = default;
  LocalTensor(T* p, uint32_t size, TPosition pos) : ptr_(p), size_(size), pos_(pos) {}
  LocalTensor operator[](uint32_t offset) const {
    HostCheck(offset <= size_, "LocalTensor::operator[]", "offset past the tensor");
    return LocalTensor(ptr_ + offset, size_ - offset, pos_);
  }
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(reinterpret_cast<U*>(ptr_),
                          static_cast<uint32_t>(size_ * sizeof(T) / sizeof(U)), pos_);
  }
  T GetValue(uint32_t i) const {
    HostCheck(i < size_, "LocalTensor::GetValue", "index past the tensor");
    return ptr_[i];
  }
  void SetValue(uint32_t i, T v) const {
    HostCheck(i < size_, "LocalTensor::SetValue", "index past the tensor");
    ptr_[i] = v;
  }
  uint32_t GetSize() const { return size_; }
  T* GetPhyAddr() const { return ptr_; }
  TPosition GetPosition() const { return pos_; }
  // Byte offset in the position's local memory (alignment checks).
  uint32_t HostOffset() const { return LocalMemory::Get().Offset(MemOf(pos_), ptr_); }

 private:
  T* ptr_ = nullptr;
  uint32_t size_ = 0;
  TPosition pos_ = TPosition::VECCALC;
};

// ---- TPipe, TQue, TBuf ----
template <TPosition P, int32_t Depth>
class TQue {
 public:
  template <typename T>
  LocalTensor<T> AllocTensor() {
    for (int i = 0; i < num_; ++i) {
      const int k = (next_ + i) % num_;
      if (!busy_[k]) {
        busy_[k] = true;
        next_ = (k + 1) % num_;
        return LocalTensor<T>(reinterpret_cast<T*>(base_ + static_cast<size_t>(k) * len_),
                              len_ / static_cast<uint32_t>(sizeof(T)), P);
      }
    }
    HostFail("TQue::AllocTensor", "every buffer of the queue is in use (missing FreeTensor)");
  }
  template <typename T>
  void EnQue(const LocalTensor<T>& t) {
    HostCheck(queued_ < 8, "TQue::EnQue", "queue overflow");
    fifo_[queued_++] = reinterpret_cast<uint8_t*>(t.GetPhyAddr());
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    HostCheck(queued_ > 0, "TQue::DeQue", "nothing enqueued");
    uint8_t* p = fifo_[0];
    for (int i = 1; i < queued_; ++i) fifo_[i - 1] = fifo_[i];
    --queued_;
    return LocalTensor<T>(reinterpret_cast<T*>(p), len_ / static_cast<uint32_t>(sizeof(T)), P);
  }
  template <typename T>
  void FreeTensor(const LocalTensor<T>& t) {
    const auto off = reinterpret_cast<uint8_t*>(t.GetPhyAddr()) - base_;
    const int k = static_cast<int>(off / static_cast<std::ptrdiff_t>(len_));
    HostCheck(k >= 0 && k < num_ && busy_[k], "TQue::FreeTensor", "tensor not allocated here");
    busy_[k] = false;
  }
  void HostInit(uint8_t* base, int num, uint32_t len) {
    HostCheck(num >= 1 && num <= 8, "TPipe::InitBuffer", "a queue takes 1..8 buffers");
    base_ = base;
    num_ = num;
    len_ = len;
  }

 private:
  uint8_t* base_ = nullptr;
  int num_ = 0, next_ = 0, queued_ = 0;
  uint32_t len_ = 0;
  bool busy_[8] = {};
  uint8_t* fifo_[8] = {};
};

template <TPosition P>
class TBuf {
 public:
  template <typename T>
  LocalTensor<T> Get() const {
    return LocalTensor<T>(reinterpret_cast<T*>(base_), len_ / static_cast<uint32_t>(sizeof(T)), P);
  }
  void HostInit(uint8_t* base, uint32_t len) {
    base_ = base;
    len_ = len;
  }

 private:
  uint8_t* base_ = nullptr;
  uint32_t len_ = 0;
};

class TPipe {
 public:
  TPipe() { std::fill(std::begin(LocalMemory::Get().used), std::end(LocalMemory::Get().used), 0u); }
  template <TPosition P, int32_t D>
  void InitBuffer(TQue<P, D>& que, uint8_t num, uint32_t len) {
    HostCheck(len % 32 == 0, "TPipe::InitBuffer", "buffer length not a multiple of 32 bytes");
    que.HostInit(LocalMemory::Get().Alloc(MemOf(P), static_cast<uint32_t>(num) * len), num, len);
  }
  template <TPosition P>
  void InitBuffer(TBuf<P>& buf, uint32_t len) {
    HostCheck(len % 32 == 0, "TPipe::InitBuffer", "buffer length not a multiple of 32 bytes");
    buf.HostInit(LocalMemory::Get().Alloc(MemOf(P), len), len);
  }
};

// ---- pipe synchronisation (the host runs the pipes in program order) ----
enum class HardEvent : uint8_t {
  MTE2_V,
  V_MTE3,
  MTE3_V,
  MTE2_MTE1,
  MTE1_M,
  M_FIX,
  FIX_M,
  FIX_V,
  V_MTE2,
  MTE3_MTE2
};
enum pipe_t : uint8_t {
  PIPE_S,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_FIX,
  PIPE_ALL
};
template <HardEvent E>
inline void SetFlag(int32_t) {}
template <HardEvent E>
inline void WaitFlag(int32_t) {}
template <pipe_t P>
inline void PipeBarrier() {}

// ---- DMA ----
template <typename T>
inline void HostCheckLocal(const LocalTensor<T>& t, uint64_t count, const char* what) {
  HostCheck(count <= t.GetSize(), what, "count past the local tensor");
}
// GM -> UB/L1; count elements, a multiple of 32 bytes, local address 32-byte aligned.
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
  HostCheck(count * sizeof(T) % 32 == 0, "DataCopy", "byte count not a multiple of 32");
  HostCheck(dst.HostOffset() % 32 == 0, "DataCopy", "local address not 32-byte aligned");
  HostCheckLocal(dst, count, "DataCopy");
  std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), count * sizeof(T));
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  HostCheck(count * sizeof(T) % 32 == 0, "DataCopy", "byte count not a multiple of 32");
  HostCheck(src.HostOffset() % 32 == 0, "DataCopy", "local address not 32-byte aligned");
  HostCheckLocal(src, count, "DataCopy");
  std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), count * sizeof(T));
}

struct DataCopyExtParams {
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;   // bytes per block
  uint32_t srcStride = 0;  // GM side: bytes between blocks; UB side: 32-byte blocks
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};
template <typename T>
struct DataCopyPadExtParams {
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = T();
};
inline void HostPadAlign(uint32_t offset, size_t es, const char* what) {
  HostCheck(offset % es == 0, what, "local address not aligned to the element size");
  if (offset % 32 != 0) ++UnalignedPadRows();
}
// GM -> UB/L1: blockCount blocks of blockLen bytes; in UB each block starts 32-byte aligned
// after the previous (plus dstStride blocks).
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyExtParams& p, const DataCopyPadExtParams<T>&) {
  HostPadAlign(dst.HostOffset(), sizeof(T), "DataCopyPad");
  const uint8_t* s = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
  uint8_t* d = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
  const uint32_t ub_step = (p.blockLen + 31) / 32 * 32 + p.dstStride * 32;
  HostCheck(
      (p.blockCount - 1) * static_cast<uint64_t>(ub_step) + p.blockLen <= dst.GetSize() * sizeof(T),
      "DataCopyPad", "blocks past the local tensor");
  for (uint32_t b = 0; b < p.blockCount; ++b)
    std::memcpy(d + b * ub_step, s + b * static_cast<uint64_t>(p.blockLen + p.srcStride),
                p.blockLen);
}
// UB -> GM.
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyExtParams& p) {
  HostPadAlign(src.HostOffset(), sizeof(T), "DataCopyPad");
  const uint8_t* s = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
  uint8_t* d = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
  const uint32_t ub_step = (p.blockLen + 31) / 32 * 32 + p.srcStride * 32;
  HostCheck(
      (p.blockCount - 1) * static_cast<uint64_t>(ub_step) + p.blockLen <= src.GetSize() * sizeof(T),
      "DataCopyPad", "blocks past the local tensor");
  for (uint32_t b = 0; b < p.blockCount; ++b)
    std::memcpy(d + b * static_cast<uint64_t>(p.blockLen + p.dstStride), s + b * ub_step,
                p.blockLen);
}

}  // namespace AscendC
