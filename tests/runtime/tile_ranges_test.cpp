// cpu::TileRanges: a launch's tiles as one contiguous range per core, taken from the front by
// their core and from the back by cores whose own ran out. Every tile is handed out exactly once,
// alone or with threads racing for them, and a core that finds its range taken still gets work.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "registry/error.h"
#include "runtime/devices/cpu/tile_exec.h"

namespace asc::cpu {
namespace {

std::vector<int64_t> drain(TileRanges& r, int64_t core) {
  std::vector<int64_t> got;
  for (int64_t t = r.next(core); t >= 0; t = r.next(core)) got.push_back(t);
  return got;
}

TEST(TileRanges, OwnRangeFirstThenTheBackOfTheFullest) {
  TileRanges r(10, 3);  // ranges [0, 4), [4, 8), [8, 10)
  EXPECT_EQ(r.next(1), 4);
  EXPECT_EQ(r.next(1), 5);
  EXPECT_EQ(r.next(2), 8);
  EXPECT_EQ(r.next(2), 9);
  // Core 2's range is done: the fullest is core 0's (4 left), its last tile first.
  EXPECT_EQ(r.next(2), 3);
  EXPECT_EQ(r.next(2), 2);
  EXPECT_EQ(r.next(0), 0);
  // Core 0 has 1 left, core 1 has 2: core 2 takes core 1's last.
  EXPECT_EQ(r.next(2), 7);
  // One left in each: the first of them.
  EXPECT_EQ(r.next(2), 1);
  EXPECT_EQ(r.next(1), 6);
  EXPECT_EQ(r.next(0), -1);
  EXPECT_EQ(r.next(1), -1);
}

TEST(TileRanges, OneCoreAloneTakesEveryTileInOrderOfItsRangeThenStolen) {
  TileRanges r(7, 2);  // [0, 4), [4, 7)
  const std::vector<int64_t> got = drain(r, 0);
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 3, 6, 5, 4}));
}

TEST(TileRanges, EmptyAndMoreCoresThanTiles) {
  TileRanges none(0, 4);
  EXPECT_EQ(none.next(0), -1);
  EXPECT_EQ(none.next(3), -1);
  TileRanges few(2, 5);  // [0, 1), [1, 2), then empty ranges
  std::vector<int64_t> got = drain(few, 4);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1}));
  EXPECT_THROW(TileRanges(int64_t{1} << 33, 2), Error);
}

TEST(TileRanges, RacingThreadsGetEveryTileOnce) {
  for (const int64_t tiles : {1, 2, 7, 64, 1001}) {
    for (const int64_t cores : {2, 3, 8}) {
      TileRanges r(tiles, cores);
      std::vector<std::atomic<int>> count(static_cast<size_t>(tiles));
      std::vector<std::thread> threads;
      // Core 0 starts late, as a worker that was asleep: the others take its tiles meanwhile.
      std::atomic<bool> go{false};
      for (int64_t c = 0; c < cores; ++c)
        threads.emplace_back([&, c] {
          while (c == 0 && !go.load()) std::this_thread::yield();
          for (int64_t t = r.next(c); t >= 0; t = r.next(c)) {
            ASSERT_LT(t, tiles);
            count[static_cast<size_t>(t)].fetch_add(1);
            if (c == cores - 1) go.store(true);
          }
          go.store(true);
        });
      for (std::thread& t : threads) t.join();
      for (int64_t t = 0; t < tiles; ++t)
        EXPECT_EQ(count[static_cast<size_t>(t)].load(), 1) << tiles << " tiles, tile " << t;
    }
  }
}

}  // namespace
}  // namespace asc::cpu
