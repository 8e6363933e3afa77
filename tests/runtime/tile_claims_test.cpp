// TileClaims: every tile of a launch is run exactly once, a core runs its own range front to back
// before it takes anything else, and the tiles of a core that never starts are taken by the others.
#include "runtime/devices/cpu/tile_claims.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace asc::cpu {
namespace {

TEST(TileClaims, ACoreRunsItsOwnRangeFrontToBackThenTakesTheOthersLastTiles) {
  TileClaims claims(10, 2);  // core 0: [0, 5), core 1: [5, 10)
  std::vector<int64_t> got;
  for (int64_t t = claims.next(0); t >= 0; t = claims.next(0)) got.push_back(t);
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 3, 4, 9, 8, 7, 6, 5}));
  EXPECT_EQ(claims.next(1), -1);
}

TEST(TileClaims, AThiefTakesFromTheRangeWithTheMostLeft) {
  TileClaims claims(9, 3);  // [0, 3), [3, 6), [6, 9)
  EXPECT_EQ(claims.next(1), 3);
  EXPECT_EQ(claims.next(0), 0);
  EXPECT_EQ(claims.next(0), 1);
  EXPECT_EQ(claims.next(0), 2);
  EXPECT_EQ(claims.next(0), 8);  // core 2 has 3 left, core 1 two
  EXPECT_EQ(claims.next(0), 5);  // both two: the first
  EXPECT_EQ(claims.next(1), 4);  // its own range first
  EXPECT_EQ(claims.next(1), 7);
  EXPECT_EQ(claims.next(2), 6);
  EXPECT_EQ(claims.next(2), -1);
  EXPECT_EQ(claims.next(0), -1);
}

TEST(TileClaims, FewerTilesThanCoresAndNone) {
  TileClaims three(3, 8);
  std::vector<int> seen(3, 0);
  for (int64_t c = 0; c < 8; ++c)
    for (int64_t t = three.next(c); t >= 0; t = three.next(c)) ++seen[static_cast<size_t>(t)];
  EXPECT_EQ(seen, (std::vector<int>{1, 1, 1}));
  TileClaims none(0, 2);
  EXPECT_EQ(none.next(0), -1);
  EXPECT_EQ(none.next(1), -1);
}

TEST(TileClaims, AGridPastThe32BitEndsIsRefused) {
  try {
    TileClaims claims(int64_t{1} << 32, 2);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("4294967296 tiles"), std::string::npos) << e.what();
  }
  TileClaims largest((int64_t{1} << 32) - 1, 2);
  EXPECT_EQ(largest.next(1), (int64_t{1} << 31));
}

// Threads racing over the claims: each tile once, whatever the interleaving; core 3's thread
// never runs, so its tiles go to the others.
TEST(TileClaims, RacingThreadsRunEveryTileOnce) {
  for (int64_t tiles : {1, 2, 7, 64, 1001}) {
    const int64_t cores = 4;
    TileClaims claims(tiles, cores);
    std::vector<std::vector<int64_t>> ran(cores - 1);
    std::vector<std::thread> th;
    for (int64_t c = 0; c + 1 < cores; ++c)
      th.emplace_back([&, c] {
        for (int64_t t = claims.next(c); t >= 0; t = claims.next(c))
          ran[static_cast<size_t>(c)].push_back(t);
      });
    for (std::thread& t : th) t.join();
    std::vector<int> seen(static_cast<size_t>(tiles), 0);
    for (const auto& r : ran)
      for (int64_t t : r) {
        ASSERT_GE(t, 0);
        ASSERT_LT(t, tiles);
        ++seen[static_cast<size_t>(t)];
      }
    for (int64_t t = 0; t < tiles; ++t) EXPECT_EQ(seen[static_cast<size_t>(t)], 1) << "tile " << t;
  }
}

}  // namespace
}  // namespace asc::cpu
