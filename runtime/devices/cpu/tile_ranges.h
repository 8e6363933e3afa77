// A launch's tiles on the cpu's cores: one contiguous range per core, taken from the front by
// its core (consecutive tiles share packed blocks), and, once a core's own range is done, one
// tile at a time from the back of the range with most left. Tiles of one launch cost unevenly
// (a last M tile of fewer rows, cache misses, a core the OS lent to another process): with
// fixed ranges, the core done first waited 8 % of an average resnet50 launch on two threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

namespace asc::cpu {

// Where a core's tiles come from: next() is the tile to run next, or -1 when none is left.
class TileSource {
 public:
  virtual int64_t next() = 0;

 protected:
  ~TileSource() = default;
};

// Tiles [begin, end) in order.
class TileSpan final : public TileSource {
 public:
  TileSpan(int64_t begin, int64_t end) : at_(begin), end_(end) {}
  int64_t next() override { return at_ < end_ ? at_++ : -1; }

 private:
  int64_t at_, end_;
};

class TileRanges {
 public:
  // Tiles [0, tiles) over `cores` ranges of ceil(tiles / cores) (tiles < 2^31).
  TileRanges(int64_t tiles, int64_t cores)
      : cores_(cores), ranges_(std::make_unique<Range[]>(static_cast<size_t>(cores))) {
    const int64_t per = (tiles + cores - 1) / cores;
    for (int64_t c = 0; c < cores; ++c) {
      const int64_t b = std::min(tiles, c * per), e = std::min(tiles, (c + 1) * per);
      ranges_[c].fb.store(pack(b, e), std::memory_order_relaxed);
    }
  }

  // Core c's next tile: its own range's front, else the back of the fullest other range.
  int64_t take(int64_t c) {
    if (const int64_t t = take_front(ranges_[c]); t >= 0) return t;
    for (;;) {
      int64_t victim = -1, most = 0;
      for (int64_t v = 0; v < cores_; ++v) {
        const uint64_t fb = ranges_[v].fb.load(std::memory_order_relaxed);
        if (back(fb) - front(fb) > most) most = back(fb) - front(fb), victim = v;
      }
      if (victim < 0) return -1;
      if (const int64_t t = take_back(ranges_[victim]); t >= 0) return t;
    }
  }

  // The tiles core c runs, as a TileSource.
  class Core final : public TileSource {
   public:
    Core(TileRanges& r, int64_t c) : r_(r), c_(c) {}
    int64_t next() override { return r_.take(c_); }

   private:
    TileRanges& r_;
    int64_t c_;
  };

 private:
  struct alignas(64) Range {
    std::atomic<uint64_t> fb{0};  // front in the low 32 bits, back (one past) in the high
  };
  static uint64_t pack(int64_t f, int64_t b) {
    return static_cast<uint64_t>(f) | (static_cast<uint64_t>(b) << 32);
  }
  static int64_t front(uint64_t fb) { return static_cast<int64_t>(fb & 0xffffffffu); }
  static int64_t back(uint64_t fb) { return static_cast<int64_t>(fb >> 32); }
  static int64_t take_front(Range& r) {
    uint64_t fb = r.fb.load(std::memory_order_relaxed);
    while (front(fb) < back(fb))
      if (r.fb.compare_exchange_weak(fb, pack(front(fb) + 1, back(fb)), std::memory_order_relaxed))
        return front(fb);
    return -1;
  }
  static int64_t take_back(Range& r) {
    uint64_t fb = r.fb.load(std::memory_order_relaxed);
    while (front(fb) < back(fb))
      if (r.fb.compare_exchange_weak(fb, pack(front(fb), back(fb) - 1), std::memory_order_relaxed))
        return back(fb) - 1;
    return -1;
  }

  int64_t cores_;
  std::unique_ptr<Range[]> ranges_;
};

}  // namespace asc::cpu
