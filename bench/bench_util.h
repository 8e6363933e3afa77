// Timing helpers shared by the benchmarks (bench/): medians of wall-clock seconds.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace asc::bench {

// The median of v (the upper one for an even count); v must not be empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Wall-clock seconds of one call of fn.
inline double seconds(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Median seconds of fn over `runs` runs after one warm-up call (page faults, caches).
inline double median_seconds(const std::function<void()>& fn, int runs) {
  fn();
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) t.push_back(seconds(fn));
  return median(std::move(t));
}

}  // namespace asc::bench
