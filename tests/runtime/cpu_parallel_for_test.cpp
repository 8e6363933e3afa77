// CpuDevice::parallel_for (host kernels' loops, LaunchContext::parallel): every index of [0, n)
// runs exactly once, in chunks, for any thread count; n <= 0 runs nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "registry/launch.h"
#include "runtime/devices/cpu/cpu_device.h"

namespace asc {
namespace {

TEST(CpuParallelFor, CoversEveryIndexOnce) {
  for (int threads : {1, 2}) {
    const cpu::CpuDevice dev(threads);
    for (int64_t n : {0, 1, 2, 7, 1000}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      dev.parallel_for(n, [&](int64_t b, int64_t e) {
        ASSERT_LE(0, b);
        ASSERT_LE(b, e);
        ASSERT_LE(e, n);
        for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
      });
      for (int64_t i = 0; i < n; ++i)
        EXPECT_EQ(hits[static_cast<size_t>(i)].load(), 1) << threads << " " << n << " " << i;
    }
  }
}

TEST(CpuParallelFor, LaunchContextFallsBackToInline) {
  LaunchContext ctx;  // no parallel_for set: one inline call over the whole range
  int calls = 0;
  int64_t first = -1, last = -1;
  ctx.parallel(5, [&](int64_t b, int64_t e) {
    ++calls;
    first = b;
    last = e;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(last, 5);
  ctx.parallel(0, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace asc
