// Host-side implementation of the subset of the Ascend C API that asc's emitter uses
// (emit_ascendc.cpp), written from the documented semantics, in the spirit of CANN's CPU debug
// mode: the same kernel source compiles with g++ and runs block 0..blockDim-1 on the host
// (AscendC::RunKernel, like ICPU_RUN_KF). See docs/ASCENDC.md for the mapping and what differs.
//
// Hardware rules asserted (a violation aborts with a message naming the call):
// - local memory capacity per position against the Atlas A2 / 910B sizes (UB 192 KiB, L1 512 KiB,
//   L0A/L0B 64 KiB, L0C 128 KiB), checked by TPipe::InitBuffer;
// - TQue/TBuf buffers start 32-byte aligned (UB, L1), 512 B (L0A/L0B), 1 KiB (L0C);
// - DataCopy between GM and UB/L1: local address 32-byte aligned and byte count a multiple of 32;
// - DataCopyPad: the local address aligned to its element size (rows of a dense box inside a
//   buffer; counted in UnalignedPadRows(), see the docs);
// - vector calls: count > 0 and every operand inside its buffer; TQue: no AllocTensor beyond the
//   buffers given to InitBuffer, DeQue only after EnQue.
//
// Layout simplification: L0A/L0B/L0C hold row-major (ND) matrices, not the zZ/zN/nZ fractal
// layouts the real MTE1/Cube use; LoadData copies, Mmad multiplies ND, Fixpipe writes ND rows.
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
constexpr int32_t EVENT_ID0 = 0;
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

// ---- vector unit: count forms; f16/bf16 compute in float and round once on store ----
template <typename T>
using HostCompute =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>, float, T>;
template <typename T>
constexpr bool kHostFloat = std::is_floating_point_v<HostCompute<T>>;

template <typename T>
inline T* HostVec(const LocalTensor<T>& t, int32_t count, const char* what) {
  HostCheck(count >= 0, what, "negative count");
  HostCheck(static_cast<uint32_t>(count) <= t.GetSize(), what, "count past the tensor");
  HostCheck(t.GetPosition() != TPosition::A2 && t.GetPosition() != TPosition::B2 &&
                t.GetPosition() != TPosition::CO1,
            what, "vector operand outside UB");
  return t.GetPhyAddr();
}
// Integer arithmetic wraps (two's complement).
template <typename T>
inline T HostWrap(uint64_t v) {
  return static_cast<T>(v);
}
template <typename C>
inline C HostNanMax(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a || b != b) return a != a ? a : b;
  }
  return a < b ? b : a;
}
template <typename C>
inline C HostNanMin(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a || b != b) return a != a ? a : b;
  }
  return b < a ? b : a;
}

enum class HostBinOp : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin, kAnd, kOr, kXor, kPow, kMod };
template <typename C>
inline C HostBinary(HostBinOp op, C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    switch (op) {
      case HostBinOp::kAdd:
        return a + b;
      case HostBinOp::kSub:
        return a - b;
      case HostBinOp::kMul:
        return a * b;
      case HostBinOp::kDiv:
        return a / b;
      case HostBinOp::kMax:
        return HostNanMax(a, b);
      case HostBinOp::kMin:
        return HostNanMin(a, b);
      case HostBinOp::kPow:
        return static_cast<C>(std::pow(double(a), double(b)));
      case HostBinOp::kMod:
        return std::fmod(a, b);
      default:
        HostFail("vector binary", "bitwise op on a float type");
    }
  } else {
    const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    switch (op) {
      case HostBinOp::kAdd:
        return HostWrap<C>(ua + ub);
      case HostBinOp::kSub:
        return HostWrap<C>(ua - ub);
      case HostBinOp::kMul:
        return HostWrap<C>(ua * ub);
      case HostBinOp::kDiv:
        if (b == 0) return 0;
        if (std::is_signed_v<C> && b == C(-1)) return HostWrap<C>(0 - ua);
        return static_cast<C>(a / b);
      case HostBinOp::kMod: {
        if (b == 0 || (std::is_signed_v<C> && b == C(-1))) return 0;
        C r = static_cast<C>(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
        return r;
      }
      case HostBinOp::kPow: {
        if (b < C(0)) {
          if (a == C(1)) return 1;
          if (std::is_signed_v<C> && a == C(-1)) return (ub & 1) ? C(-1) : C(1);
          return 0;
        }
        uint64_t base = ua, r = 1;
        for (uint64_t e = ub; e; e >>= 1) {
          if (e & 1) r *= base;
          base *= base;
        }
        return HostWrap<C>(r);
      }
      case HostBinOp::kMax:
        return HostNanMax(a, b);
      case HostBinOp::kMin:
        return HostNanMin(a, b);
      case HostBinOp::kAnd:
        return static_cast<C>(a & b);
      case HostBinOp::kOr:
        return static_cast<C>(a | b);
      case HostBinOp::kXor:
        return static_cast<C>(a ^ b);
    }
    return 0;
  }
}
template <typename T>
inline void HostBinaryVec(HostBinOp op, const LocalTensor<T>& dst, const LocalTensor<T>& a,
                          const LocalTensor<T>& b, int32_t n, const char* what) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, n, what);
  const T* x = HostVec(a, n, what);
  const T* y = HostVec(b, n, what);
  for (int32_t i = 0; i < n; ++i) d[i] = static_cast<T>(HostBinary<C>(op, C(x[i]), C(y[i])));
}
template <typename T>
inline void HostScalarVec(HostBinOp op, const LocalTensor<T>& dst, const LocalTensor<T>& a, T s,
                          int32_t n, const char* what) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, n, what);
  const T* x = HostVec(a, n, what);
  for (int32_t i = 0; i < n; ++i) d[i] = static_cast<T>(HostBinary<C>(op, C(x[i]), C(s)));
}

#define ASC_HOST_BINARY(NAME, OP)                                                               \
  template <typename T>                                                                         \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, \
                   int32_t count) {                                                             \
    HostBinaryVec(HostBinOp::OP, dst, a, b, count, #NAME);                                      \
  }
ASC_HOST_BINARY(Add, kAdd)
ASC_HOST_BINARY(Sub, kSub)
ASC_HOST_BINARY(Mul, kMul)
ASC_HOST_BINARY(Div, kDiv)
ASC_HOST_BINARY(Max, kMax)
ASC_HOST_BINARY(Min, kMin)
ASC_HOST_BINARY(And, kAnd)
ASC_HOST_BINARY(Or, kOr)
ASC_HOST_BINARY(Xor, kXor)
ASC_HOST_BINARY(Fmod, kMod)  // integers: the result takes the divisor's sign
#undef ASC_HOST_BINARY
#define ASC_HOST_SCALAR(NAME, OP)                                                       \
  template <typename T>                                                                 \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& a, const T& scalar, \
                   int32_t count) {                                                     \
    HostScalarVec(HostBinOp::OP, dst, a, scalar, count, #NAME);                         \
  }
ASC_HOST_SCALAR(Adds, kAdd)
ASC_HOST_SCALAR(Muls, kMul)
ASC_HOST_SCALAR(Maxs, kMax)
ASC_HOST_SCALAR(Mins, kMin)
#undef ASC_HOST_SCALAR
// dst = a ^ b (tensor exponent), a ^ scalar, scalar ^ b.
template <typename T>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                  int32_t count) {
  HostBinaryVec(HostBinOp::kPow, dst, a, b, count, "Power");
}
template <typename T>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& a, const T& scalar,
                  int32_t count) {
  HostScalarVec(HostBinOp::kPow, dst, a, scalar, count, "Power");
}
// dst += a * b
template <typename T>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                      int32_t count) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, count, "MulAddDst");
  const T* x = HostVec(a, count, "MulAddDst");
  const T* y = HostVec(b, count, "MulAddDst");
  for (int32_t i = 0; i < count; ++i) d[i] = static_cast<T>(C(d[i]) + C(x[i]) * C(y[i]));
}

template <typename C>
inline C HostAbs(C x) {
  if constexpr (std::is_floating_point_v<C>)
    return std::fabs(x);
  else
    return x < C(0) ? HostWrap<C>(0 - static_cast<uint64_t>(x)) : x;
}
template <typename T, typename F>
inline void HostUnaryVec(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t n, F f,
                         const char* what) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, n, what);
  const T* x = HostVec(src, n, what);
  for (int32_t i = 0; i < n; ++i) d[i] = static_cast<T>(f(C(x[i])));
}
#define ASC_HOST_UNARY(NAME, EXPR)                                                        \
  template <typename T>                                                                   \
  inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count) { \
    using C = HostCompute<T>;                                                             \
    HostUnaryVec(                                                                         \
        dst, src, count, [](C x) { return static_cast<C>(EXPR); }, #NAME);                \
  }
ASC_HOST_UNARY(Abs, HostAbs(x))
ASC_HOST_UNARY(Relu, (x < C(0) ? C(0) : x))
ASC_HOST_UNARY(Exp, std::exp(x))
ASC_HOST_UNARY(Ln, std::log(x))
ASC_HOST_UNARY(Sqrt, std::sqrt(x))
ASC_HOST_UNARY(Rsqrt, C(1) / std::sqrt(x))
ASC_HOST_UNARY(Reciprocal, C(1) / x)
ASC_HOST_UNARY(Sigmoid, C(1) / (C(1) + std::exp(-x)))
ASC_HOST_UNARY(Tanh, std::tanh(x))
ASC_HOST_UNARY(Erf, std::erf(x))
ASC_HOST_UNARY(Sin, std::sin(x))
ASC_HOST_UNARY(Cos, std::cos(x))
ASC_HOST_UNARY(Floor, std::floor(x))
ASC_HOST_UNARY(Ceil, std::ceil(x))
ASC_HOST_UNARY(Round, std::nearbyint(x))  // half to even (the default rounding mode)
ASC_HOST_UNARY(Sign, (x != x ? x : C((x > C(0)) - (x < C(0)))))
ASC_HOST_UNARY(Silu, x / (C(1) + std::exp(-x)))
#undef ASC_HOST_UNARY
template <typename T>
inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& alpha,
                      int32_t count) {
  using C = HostCompute<T>;
  const C a = C(alpha);
  HostUnaryVec(
      dst, src, count, [a](C x) { return x < C(0) ? a * x : x; }, "LeakyRelu");
}
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalar, int32_t count) {
  T* d = HostVec(dst, count, "Duplicate");
  for (int32_t i = 0; i < count; ++i) d[i] = scalar;
}

// Compare / Select: bool bytes (0/1) here; the hardware writes and reads bit masks (docs).
enum class CMPMODE : uint8_t { LT, GT, EQ, LE, GE, NE };
template <typename C>
inline bool HostCmp(CMPMODE m, C a, C b) {
  switch (m) {
    case CMPMODE::LT:
      return a < b;
    case CMPMODE::GT:
      return a > b;
    case CMPMODE::EQ:
      return a == b;
    case CMPMODE::LE:
      return a <= b;
    case CMPMODE::GE:
      return a >= b;
    case CMPMODE::NE:
      return !(a == b);
  }
  return false;
}
template <typename T>
inline void Compare(const LocalTensor<uint8_t>& dst, const LocalTensor<T>& a,
                    const LocalTensor<T>& b, CMPMODE mode, int32_t count) {
  using C = HostCompute<T>;
  uint8_t* d = HostVec(dst, count, "Compare");
  const T* x = HostVec(a, count, "Compare");
  const T* y = HostVec(b, count, "Compare");
  for (int32_t i = 0; i < count; ++i) d[i] = HostCmp<C>(mode, C(x[i]), C(y[i])) ? 1 : 0;
}
template <typename T>
inline void CompareScalar(const LocalTensor<uint8_t>& dst, const LocalTensor<T>& a, const T& b,
                          CMPMODE mode, int32_t count) {
  using C = HostCompute<T>;
  uint8_t* d = HostVec(dst, count, "CompareScalar");
  const T* x = HostVec(a, count, "CompareScalar");
  for (int32_t i = 0; i < count; ++i) d[i] = HostCmp<C>(mode, C(x[i]), C(b)) ? 1 : 0;
}
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
template <typename T>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<uint8_t>& cond,
                   const LocalTensor<T>& a, const LocalTensor<T>& b, SELMODE, int32_t count) {
  T* d = HostVec(dst, count, "Select");
  const uint8_t* c = HostVec(cond, count, "Select");
  const T* x = HostVec(a, count, "Select");
  const T* y = HostVec(b, count, "Select");
  for (int32_t i = 0; i < count; ++i) d[i] = c[i] ? x[i] : y[i];
}

// Cast: float -> integer truncates (CAST_TRUNC) and saturates, NaN -> 0; to a float rounds to
// nearest even (CAST_RINT); integer -> integer wraps (CAST_NONE).
enum class RoundMode : uint8_t {
  CAST_NONE,
  CAST_RINT,
  CAST_FLOOR,
  CAST_CEIL,
  CAST_ROUND,
  CAST_TRUNC
};
template <typename D, typename S>
inline D HostCastElem(S s, RoundMode) {
  using CS = HostCompute<S>;
  using CD = HostCompute<D>;
  const CS v = static_cast<CS>(s);
  if constexpr (std::is_floating_point_v<CD>) {
    if constexpr (std::is_same_v<CD, float> && std::is_same_v<CS, double>) {
      return static_cast<D>(static_cast<float>(v));
    } else if constexpr (std::is_same_v<CD, float> && std::is_same_v<CS, int64_t>) {
      return static_cast<D>(static_cast<float>(static_cast<double>(v)));
    } else {
      return static_cast<D>(static_cast<CD>(v));
    }
  } else if constexpr (std::is_floating_point_v<CS>) {
    if (v != v) return D(0);
    const double t = std::trunc(static_cast<double>(v));
    if (t <= static_cast<double>(std::numeric_limits<D>::lowest()))
      return std::numeric_limits<D>::lowest();
    if (t >= static_cast<double>(std::numeric_limits<D>::max()))
      return std::numeric_limits<D>::max();
    return static_cast<D>(t);
  } else {
    return static_cast<D>(v);
  }
}
template <typename D, typename S>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode,
                 int32_t count) {
  D* d = HostVec(dst, count, "Cast");
  const S* x = HostVec(src, count, "Cast");
  for (int32_t i = 0; i < count; ++i) d[i] = HostCastElem<D, S>(x[i], mode);
}

// dst[0] = reduce over src[0, count); sums accumulate in double here.
template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, int32_t count) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, 1, "ReduceSum");
  const T* x = HostVec(src, count, "ReduceSum");
  HostCheck(work.GetSize() > 0, "ReduceSum", "empty work tensor");
  if constexpr (std::is_floating_point_v<C>) {
    double acc = 0;
    for (int32_t i = 0; i < count; ++i) acc += static_cast<double>(C(x[i]));
    d[0] = static_cast<T>(static_cast<C>(acc));
  } else {
    uint64_t acc = 0;
    for (int32_t i = 0; i < count; ++i) acc += static_cast<uint64_t>(x[i]);
    d[0] = HostWrap<T>(acc);
  }
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, int32_t count, bool calIndex = false) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, 1, "ReduceMax");
  const T* x = HostVec(src, count, "ReduceMax");
  HostCheck(work.GetSize() > 0 && !calIndex, "ReduceMax", "empty work tensor or calIndex");
  C acc = C(x[0]);
  for (int32_t i = 1; i < count; ++i) acc = HostNanMax(acc, C(x[i]));
  d[0] = static_cast<T>(acc);
}
template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& work, int32_t count, bool calIndex = false) {
  using C = HostCompute<T>;
  T* d = HostVec(dst, 1, "ReduceMin");
  const T* x = HostVec(src, count, "ReduceMin");
  HostCheck(work.GetSize() > 0 && !calIndex, "ReduceMin", "empty work tensor or calIndex");
  C acc = C(x[0]);
  for (int32_t i = 1; i < count; ++i) acc = HostNanMin(acc, C(x[i]));
  d[0] = static_cast<T>(acc);
}

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
enum class QuantMode_t : uint8_t { NoQuant, F322F16, F322BF16 };
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

// ---- the host runner (ICPU_RUN_KF-like): blocks 0..blockDim-1 in order ----
template <typename F, typename... Args>
inline void RunKernel(F kernel, int64_t blockDim, Args... args) {
  HostBlockNum() = blockDim;
  for (int64_t b = 0; b < blockDim; ++b) {
    HostBlockIdx() = b;
    kernel(args...);
  }
  HostBlockIdx() = 0;
}

}  // namespace AscendC
