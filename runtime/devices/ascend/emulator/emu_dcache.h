// The emulator's data caches (include kernel_operator.h). On the Atlas A2 the scalar unit reaches
// GM through a data cache of 64-byte lines in each core (GlobalTensor::SetValue/GetValue); the DMA
// pipes go to GM directly. A line the scalar unit wrote stays in the cache until
// DataCacheCleanAndInvalid writes it back (or an eviction does, at no known time); a line it read
// stays there, however GM changes, until DataCacheCleanAndInvalid drops it. The emulator reports,
// as races: a DMA access to a GM line that a core's cache holds written and not written back; a
// scalar read of a line cached before GM changed; two cores' caches holding one line written
// (each writes back the whole line, so one undoes the other).
#pragma once

#include <map>
#include <vector>

#include "emu_tensor.h"

namespace AscendC {

enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

}  // namespace AscendC

namespace ascemu {

constexpr uint64_t kCacheLine = 64;

// Write back (what the core wrote) and drop the line of addr, or every line when entire.
void dcci(const void* addr, bool entire, AscendC::DcciDst dst);

// The data caches of a launch's cores (owned by its scheduler, emu_sched.h).
class DataCaches {
 public:
  explicit DataCaches(int cores) : cores_(static_cast<size_t>(cores)) {}
  // Every GM access of the launch, before its race check.
  void access(Launch& l, Core& c, int pipe, const Access& a, const char* name, uint32_t seq);
  // DataCacheCleanAndInvalid on core c: its written lines go to GM, its cached lines are dropped.
  void clean(Core& c, uint64_t addr, bool entire);

 private:
  struct Writer {
    int core = -1, pipe = 0;
    const char* name = nullptr;
    uint32_t seq = 0;
  };
  // A core's copy of a line. Masks have one bit per byte of the line.
  struct Cached {
    uint64_t dirty = 0;  // bytes the scalar unit wrote that GM does not have yet
    Writer wrote;        // the write that first made the copy dirty
    uint64_t stale = 0;  // bytes GM changed after the copy was taken
    Writer staler;       // the latest of those changes
  };
  void report(Launch& l, Core& c, int pipe, const Access& a, const char* name, uint32_t seq,
              const std::string& what) const;
  // GM's bytes `mask` of a line changed (w): every cached copy of them is stale.
  void changed(uint64_t line, uint64_t mask, const Writer& w);

  std::vector<std::map<uint64_t, Cached>> cores_;  // per core: its copies, by line address
};

}  // namespace ascemu

namespace AscendC {

// Writes back and drops the line of dst (SINGLE_CACHE_LINE) or the whole cache of the core
// (ENTIRE_DATA_CACHE). DcciDst::CACHELINE_ATOMIC is not on the Atlas A2.
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst) {
  ascemu::dcci(dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE, dcciDst);
}
template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst) {
  ascemu::dcci(dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE,
               DcciDst::CACHELINE_OUT);
}

}  // namespace AscendC
