// The emulator's tensors and buffer framework (include kernel_operator.h): GlobalTensor,
// LocalTensor, TPipe, TQueBind/TQue and TBuf with the Ascend C signatures. A queue's EnQue/DeQue
// and FreeTensor/AllocTensor order its producer and consumer pipes the way the TPipe-TQue
// framework's own flags do (VECIN: MTE2 -> V, VECOUT: V -> MTE3, A1/B1: MTE2 -> MTE1,
// A2/B2: MTE1 -> M, CO1: M -> FIX).
#pragma once

#include <string>
#include <vector>

#include "emu_core.h"

namespace AscendC {

void* GmAlloc(size_t size);  // GM for a launch's arguments, bounds-checked by the DMA calls
void GmFree(void* p);

int64_t GetBlockIdx();
int64_t GetBlockNum();
int64_t GetSubBlockIdx();
int64_t GetTaskRation();

}  // namespace AscendC

namespace ascemu {
Mem mem_of_position(AscendC::TPosition p);  // kCount for GM
const char* position_name(AscendC::TPosition p);
int writer_pipe(AscendC::TPosition p);  // the pipe that fills a buffer of the position
int reader_pipe(AscendC::TPosition p);  // the pipe that drains it
// The checked GM range [p, p + bytes) of a DMA call: inside its GmAlloc block when it has one.
void check_gm(const char* call, const void* p, uint64_t bytes);
}  // namespace ascemu

namespace AscendC {

template <typename T>
class GlobalTensor {
 public:
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    ptr_ = buffer;
    size_ = bufferSize;
  }
  void SetGlobalBuffer(__gm__ T* buffer) {
    ptr_ = buffer;
    size_ = UINT64_MAX / sizeof(T);
  }
  GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor t;
    t.ptr_ = ptr_ + offset;
    t.size_ = size_ > offset ? size_ - offset : 0;
    return t;
  }
  __gm__ T* GetPhyAddr() const { return ptr_; }
  __gm__ T* GetPhyAddr(uint64_t offset) const { return ptr_ + offset; }
  uint64_t GetSize() const { return size_; }
  T GetValue(uint64_t offset) const {
    ascemu::check(offset < size_, "GlobalTensor::GetValue", "offset past the tensor");
    T v{};
    const T* p = ptr_ + offset;
    ascemu::current().issue(ascemu::kS, "GlobalTensor::GetValue",
                            {{ascemu::Mem::kGM, reinterpret_cast<uint64_t>(p),
                              reinterpret_cast<uint64_t>(p + 1), false}},
                            [&] { v = *p; });
    return v;
  }
  void SetValue(uint64_t offset, T value) const {
    ascemu::check(offset < size_, "GlobalTensor::SetValue", "offset past the tensor");
    T* p = ptr_ + offset;
    ascemu::current().issue(ascemu::kS, "GlobalTensor::SetValue",
                            {{ascemu::Mem::kGM, reinterpret_cast<uint64_t>(p),
                              reinterpret_cast<uint64_t>(p + 1), true}},
                            [p, value] { *p = value; });
  }

 private:
  T* ptr_ = nullptr;
  uint64_t size_ = 0;
};

template <typename T>
class LocalTensor {
 public:
  using PrimType = T;
  LocalTensor() = default;
  // The emulator's constructor: size elements at byte offset `offset` of memory m.
  LocalTensor(ascemu::Mem m, uint64_t offset, uint32_t size, TPosition pos)
      : mem_(m), offset_(offset), size_(size), pos_(pos) {}
  LocalTensor operator[](uint32_t offset) const {
    ascemu::check(offset <= size_, "LocalTensor::operator[]",
                  "offset " + std::to_string(offset) + " past a tensor of " +
                      std::to_string(size_) + " elements");
    return LocalTensor(mem_, offset_ + uint64_t{offset} * sizeof(T), size_ - offset, pos_);
  }
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(mem_, offset_,
                          static_cast<uint32_t>(uint64_t{size_} * sizeof(T) / sizeof(U)), pos_);
  }
  T GetValue(uint32_t index) const {
    ascemu::check(index < size_, "LocalTensor::GetValue",
                  "index " + std::to_string(index) + " past a tensor of " + std::to_string(size_));
    T v{};
    const uint64_t at = offset_ + uint64_t{index} * sizeof(T);
    T* p = reinterpret_cast<T*>(ascemu::current().base(mem_) + at);
    ascemu::current().issue(ascemu::kS, "LocalTensor::GetValue",
                            {{mem_, at, at + sizeof(T), false}},
                            [&] { std::memcpy(&v, p, sizeof(T)); });
    return v;
  }
  void SetValue(uint32_t index, T value) const {
    ascemu::check(index < size_, "LocalTensor::SetValue",
                  "index " + std::to_string(index) + " past a tensor of " + std::to_string(size_));
    const uint64_t at = offset_ + uint64_t{index} * sizeof(T);
    T* p = reinterpret_cast<T*>(ascemu::current().base(mem_) + at);
    ascemu::current().issue(ascemu::kS, "LocalTensor::SetValue", {{mem_, at, at + sizeof(T), true}},
                            [p, value] { std::memcpy(p, &value, sizeof(T)); });
  }
  uint32_t GetSize() const { return size_; }
  void SetSize(uint32_t size) { size_ = size; }
  uint32_t GetLength() const { return size_ * static_cast<uint32_t>(sizeof(T)); }
  TPosition GetPosition() const { return pos_; }
  // Host pointer to the data (the emulator's memories); the device address is HostOffset().
  T* GetPhyAddr() const { return reinterpret_cast<T*>(ascemu::current().base(mem_) + offset_); }
  ascemu::Mem HostMem() const { return mem_; }
  uint64_t HostOffset() const { return offset_; }
  uint64_t HostEnd(uint64_t elems) const { return offset_ + elems * sizeof(T); }

 private:
  ascemu::Mem mem_ = ascemu::Mem::kUB;
  uint64_t offset_ = 0;
  uint32_t size_ = 0;
  TPosition pos_ = TPosition::VECCALC;
};

class TPipe;

// A queue of `num` buffers of `len` bytes from src's producer pipe to dst's consumer pipe.
template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
 public:
  template <typename T>
  LocalTensor<T> AllocTensor() {
    for (int i = 0; i < num_; ++i) {
      const int k = (next_ + i) % num_;
      Slot& s = slots_[k];
      if (s.busy) continue;
      s.busy = true;
      next_ = (k + 1) % num_;
      if (s.freed && producer_ >= 0)  // the producer waits until the consumer freed it
        ascemu::current().issue_wait(producer_, &s.free, "TQue::AllocTensor");
      return tensor<T>(k);
    }
    ascemu::fail("TQue::AllocTensor", std::string("all ") + std::to_string(num_) +
                                          " buffers of a " + ascemu::position_name(src) +
                                          " queue are allocated (a FreeTensor is missing)");
  }
  template <typename T>
  void AllocTensor(LocalTensor<T>& t) {
    t = AllocTensor<T>();
  }
  // The trailing defaulted arguments (not the API's) name the call's site for the mutation test.
  template <typename T>
  bool EnQue(const LocalTensor<T>& t, const char* file = __builtin_FILE(),
             int line = __builtin_LINE()) {
    const int k = slot_of(t, "TQue::EnQue");
    ascemu::check(static_cast<int32_t>(fifo_.size()) < (depth > 0 ? depth : 1) || depth == 0,
                  "TQue::EnQue",
                  "more tensors enqueued than the queue's depth " + std::to_string(depth));
    fifo_.push_back(k);
    if (producer_ >= 0 && consumer_ >= 0 && ascemu::sync_kept(file, line))
      ascemu::current().issue_set(producer_, &slots_[k].ready, "TQue::EnQue");
    return true;
  }
  template <typename T>
  LocalTensor<T> DeQue(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ascemu::check(!fifo_.empty(), "TQue::DeQue", "nothing is enqueued");
    const int k = fifo_.front();
    fifo_.erase(fifo_.begin());
    if (producer_ >= 0 && consumer_ >= 0 && ascemu::sync_kept(file, line))
      ascemu::current().issue_wait(consumer_, &slots_[k].ready, "TQue::DeQue");
    return tensor<T>(k);
  }
  template <typename T>
  void DeQue(LocalTensor<T>& t, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    t = DeQue<T>(file, line);
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& t) {
    const int k = slot_of(t, "TQue::FreeTensor");
    ascemu::check(slots_[k].busy, "TQue::FreeTensor", "the buffer is not allocated");
    slots_[k].busy = false;
    slots_[k].freed = true;
    if (producer_ >= 0 && consumer_ >= 0)
      ascemu::current().issue_set(consumer_, &slots_[k].free, "TQue::FreeTensor");
  }
  bool VacantInQue() const { return static_cast<int32_t>(fifo_.size()) < depth; }
  bool HasTensorInQue() const { return !fifo_.empty(); }
  int32_t GetTensorCountInQue() const { return static_cast<int32_t>(fifo_.size()); }
  bool HasIdleBuffer() const {
    for (int i = 0; i < num_; ++i)
      if (!slots_[i].busy) return true;
    return false;
  }

  // TPipe::InitBuffer's half.
  void EmuInit(ascemu::Mem m, uint64_t offset, int num, uint32_t len) {
    mem_ = m;
    offset_ = offset;
    num_ = num;
    len_ = len;
    next_ = 0;
    fifo_.clear();
    slots_.assign(static_cast<size_t>(num), Slot{});
    producer_ = ascemu::writer_pipe(src);
    consumer_ = ascemu::reader_pipe(dst);
  }

 private:
  struct Slot {
    bool busy = false, freed = false;
    ascemu::Token ready, free;
  };
  template <typename T>
  LocalTensor<T> tensor(int k) const {
    return LocalTensor<T>(mem_, offset_ + static_cast<uint64_t>(k) * len_,
                          len_ / static_cast<uint32_t>(sizeof(T)), src);
  }
  template <typename T>
  int slot_of(const LocalTensor<T>& t, const char* call) const {
    const uint64_t at = t.HostOffset();
    ascemu::check(num_ > 0 && t.HostMem() == mem_ && at >= offset_ &&
                      at < offset_ + static_cast<uint64_t>(num_) * len_ &&
                      (at - offset_) % len_ == 0,
                  call, "the tensor is not a buffer of this queue");
    return static_cast<int>((at - offset_) / len_);
  }
  ascemu::Mem mem_ = ascemu::Mem::kUB;
  uint64_t offset_ = 0;
  int num_ = 0, next_ = 0, producer_ = -1, consumer_ = -1;
  uint32_t len_ = 0;
  std::vector<Slot> slots_;
  std::vector<int> fifo_;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::LCM>
class TBuf {
 public:
  template <typename T>
  LocalTensor<T> Get() const {
    return LocalTensor<T>(mem_, offset_, len_ / static_cast<uint32_t>(sizeof(T)), pos);
  }
  template <typename T>
  LocalTensor<T> Get(uint32_t len) const {
    ascemu::check(
        uint64_t{len} * sizeof(T) <= len_, "TBuf::Get",
        std::to_string(len) + " elements past a buffer of " + std::to_string(len_) + " bytes");
    return LocalTensor<T>(mem_, offset_, len, pos);
  }
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) const {
    ascemu::check(bufOffset % 32 == 0, "TBuf::GetWithOffset",
                  "offset " + std::to_string(bufOffset) + " is not 32-byte aligned");
    ascemu::check(bufOffset + uint64_t{size} * sizeof(T) <= len_, "TBuf::GetWithOffset",
                  "range past a buffer of " + std::to_string(len_) + " bytes");
    return LocalTensor<T>(mem_, offset_ + bufOffset, size, pos);
  }
  void EmuInit(ascemu::Mem m, uint64_t offset, uint32_t len) {
    mem_ = m;
    offset_ = offset;
    len_ = len;
  }

 private:
  ascemu::Mem mem_ = ascemu::Mem::kUB;
  uint64_t offset_ = 0;
  uint32_t len_ = 0;
};

// Owns the core's local memories: InitBuffer hands out consecutive aligned ranges.
class TPipe {
 public:
  TPipe();
  template <TPosition src, TPosition dst, int32_t depth, auto mask>
  bool InitBuffer(TQueBind<src, dst, depth, mask>& que, uint8_t num, uint32_t len) {
    ascemu::check(num >= 1 && num <= 8, "TPipe::InitBuffer",
                  "a queue takes 1 to 8 buffers, not " + std::to_string(num));
    const uint32_t l = (len + 31) / 32 * 32;
    const ascemu::Mem m = ascemu::mem_of_position(src);
    const uint64_t at = take(m, uint64_t{num} * l, num, ascemu::position_name(src), "TQue");
    que.EmuInit(m, at, num, l);
    return true;
  }
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
    const uint32_t l = (len + 31) / 32 * 32;
    const ascemu::Mem m = ascemu::mem_of_position(pos);
    buf.EmuInit(m, take(m, l, 1, ascemu::position_name(pos), "TBuf"), l);
    return true;
  }
  void Destroy() {}
  void Reset();

 private:
  uint64_t take(ascemu::Mem m, uint64_t bytes, int buffers, const char* pos, const char* kind);
  uint64_t used_[static_cast<int>(ascemu::Mem::kCount)] = {};
  int buffers_ = 0, inits_ = 0;
};

}  // namespace AscendC
