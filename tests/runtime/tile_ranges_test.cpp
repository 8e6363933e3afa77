// TileRanges (the cpu device's tiles per core): each core takes its own contiguous range from the
// front, in order, then tiles of the others' ranges from the back; every tile is taken exactly
// once however the cores race, and a core alone takes all of them.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "runtime/devices/cpu/tile_ranges.h"

namespace asc::cpu {
namespace {

TEST(TileRanges, ACoreAloneTakesItsRangeInOrderThenTheOthersFromTheBack) {
  TileRanges r(10, 3);  // ranges [0, 4), [4, 8), [8, 10)
  std::vector<int64_t> got;
  for (int64_t t = r.take(1); t >= 0; t = r.take(1)) got.push_back(t);
  // Its own range, then the fullest other range's last tile, one at a time.
  const std::vector<int64_t> want{4, 5, 6, 7, 3, 2, 1, 9, 0, 8};
  EXPECT_EQ(got, want);
  EXPECT_EQ(r.take(0), -1);
  EXPECT_EQ(r.take(2), -1);
}

TEST(TileRanges, UnevenAndEmptyRanges) {
  TileRanges r(3, 4);       // ranges [0, 1), [1, 2), [2, 3), [3, 3)
  EXPECT_EQ(r.take(3), 0);  // nothing of its own: the back of the first fullest range
  EXPECT_EQ(r.take(0), 1);  // its own was taken
  EXPECT_EQ(r.take(1), 2);
  EXPECT_EQ(r.take(1), -1);
  EXPECT_EQ(r.take(2), -1);
  TileRanges none(0, 2);
  EXPECT_EQ(none.take(0), -1);
  EXPECT_EQ(none.take(1), -1);
}

TEST(TileRanges, RacingCoresTakeEveryTileOnce) {
  for (int64_t tiles : {1, 2, 7, 64, 1001}) {
    for (int64_t cores : {2, 3, 8}) {
      TileRanges r(tiles, cores);
      std::vector<std::atomic<int>> hits(static_cast<size_t>(tiles));
      std::vector<std::thread> threads;
      for (int64_t c = 0; c < cores; ++c)
        threads.emplace_back([&, c] {
          TileRanges::Core mine(r, c);
          int64_t last_own = -1;
          for (int64_t t = mine.next(); t >= 0; t = mine.next()) {
            hits[static_cast<size_t>(t)]++;
            const int64_t per = (tiles + cores - 1) / cores;
            if (t / per == c) {  // its own tiles come in increasing order
              EXPECT_GT(t, last_own);
              last_own = t;
            }
          }
        });
      for (std::thread& t : threads) t.join();
      for (int64_t t = 0; t < tiles; ++t)
        ASSERT_EQ(hits[static_cast<size_t>(t)].load(), 1) << tiles << " " << cores << " " << t;
    }
  }
}

}  // namespace
}  // namespace asc::cpu
