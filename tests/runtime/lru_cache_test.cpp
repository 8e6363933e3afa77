// LruCache: bounded, least recently used evicted, first insert of a key wins.
#include "runtime/lru_cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace asc {
namespace {

TEST(LruCache, EvictsTheLeastRecentlyUsed) {
  LruCache<int> c(2);
  c.insert("a", std::make_shared<const int>(1));
  c.insert("b", std::make_shared<const int>(2));
  ASSERT_TRUE(c.find("a"));  // a is now the most recent
  c.insert("c", std::make_shared<const int>(3));
  EXPECT_EQ(c.size(), 2u);
  EXPECT_FALSE(c.find("b"));
  EXPECT_EQ(*c.find("a"), 1);
  EXPECT_EQ(*c.find("c"), 3);
}

TEST(LruCache, FirstInsertWins) {
  LruCache<int> c(4);
  const auto first = c.insert("k", std::make_shared<const int>(1));
  const auto second = c.insert("k", std::make_shared<const int>(2));
  EXPECT_EQ(first, second);
  EXPECT_EQ(*c.find("k"), 1);
  EXPECT_EQ(LruCache<int>(0).capacity(), 1u);
}

TEST(LruCache, ConcurrentUseStaysBounded) {
  LruCache<int> c(16);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&c, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string key = std::to_string((i * 7 + t) % 40);
        if (!c.find(key)) c.insert(key, std::make_shared<const int>(i));
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(c.size(), 16u);
}

}  // namespace
}  // namespace asc
