// Which core runs which tile of a launch. Core c owns the contiguous range [c * per, (c + 1) * per)
// (per = ceil(tiles / cores), as the emitted Ascend C splits) and takes its tiles front to back,
// so its packed blocks carry over from one tile to the next. A core whose range is done takes the
// last tile left of the range with the most tiles left, one at a time (and so walks that range
// back to front, neighbours again). A core that runs slower — a vCPU its host gives less time, a
// thread the OS preempted, a worker that joins late or never — then leaves its last tiles to the
// others instead of making them wait.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "registry/error.h"

namespace asc::cpu {

class TileClaims {
 public:
  // A range's ends are packed in 32 bits each: a grid of 2^32 tiles or more is refused.
  TileClaims(int64_t tiles, int64_t cores)
      : cores_(std::max<int64_t>(cores, 1)), ranges_(new std::atomic<uint64_t>[cores_]) {
    if (tiles >= (int64_t{1} << 32))
      throw Error("cpu launch: a grid of " + std::to_string(tiles) + " tiles (at most 2^32 - 1)");
    const int64_t per = (tiles + cores_ - 1) / cores_;
    for (int64_t c = 0; c < cores_; ++c)
      ranges_[c].store(pack(std::min(tiles, c * per), std::min(tiles, (c + 1) * per)),
                       std::memory_order_relaxed);
  }

  // The next tile core c runs, or -1 when every tile is taken.
  int64_t next(int64_t c) {
    for (uint64_t r = ranges_[c].load(std::memory_order_relaxed); lo(r) < hi(r);)
      if (ranges_[c].compare_exchange_weak(r, pack(lo(r) + 1, hi(r)), std::memory_order_relaxed))
        return lo(r);
    for (;;) {  // steal from the range with the most left
      int64_t victim = -1, most = 0;
      for (int64_t v = 0; v < cores_; ++v) {
        const uint64_t r = ranges_[v].load(std::memory_order_relaxed);
        if (hi(r) - lo(r) > most) most = hi(r) - lo(r), victim = v;
      }
      if (victim < 0) return -1;
      for (uint64_t r = ranges_[victim].load(std::memory_order_relaxed); lo(r) < hi(r);)
        if (ranges_[victim].compare_exchange_weak(r, pack(lo(r), hi(r) - 1),
                                                  std::memory_order_relaxed))
          return hi(r) - 1;
    }
  }

 private:
  static uint64_t pack(int64_t lo, int64_t hi) {
    return static_cast<uint64_t>(lo) | static_cast<uint64_t>(hi) << 32;
  }
  static int64_t lo(uint64_t r) { return static_cast<int64_t>(r & 0xffffffffu); }
  static int64_t hi(uint64_t r) { return static_cast<int64_t>(r >> 32); }

  int64_t cores_;
  std::unique_ptr<std::atomic<uint64_t>[]> ranges_;
};

}  // namespace asc::cpu
