// Timing helpers shared by the benchmarks (bench/): medians of wall-clock seconds.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <thread>
#include <utility>
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

// Median wall times of `x` and `y` (3..15 runs each, ~0.3 s per side). Each side runs as a block
// of back-to-back runs, as a serving loop would, after a 30 ms pause (so the other runtime's idle
// workers — OpenMP after oneDNN, oneTBB after asc — have stopped spinning: on 2 cores a spinning
// worker takes half the machine) and one warm-up run. The blocks alternate x, y, x, y so both
// sides see the same machine load; the median is over all runs of a side.
// ASC_BENCH_INTERLEAVE=1 instead alternates single runs with a pause before each.
inline std::pair<double, double> median_pair(const std::function<void()>& x,
                                             const std::function<void()>& y, double flops) {
  const int runs = std::clamp(static_cast<int>(0.3 / std::max(flops / 150e9, 1e-6)), 3, 15);
  std::vector<double> sx, sy;
  auto once = [](const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  auto pause = [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); };
  if (std::getenv("ASC_BENCH_INTERLEAVE")) {
    x();
    y();
    for (int r = 0; r < runs; ++r) {
      pause();
      sx.push_back(once(x));
      pause();
      sy.push_back(once(y));
    }
  } else {
    for (int half = 0; half < 2; ++half) {
      const int n = half == 0 ? (runs + 1) / 2 : runs / 2;
      pause();
      x();
      for (int r = 0; r < n; ++r) sx.push_back(once(x));
      pause();
      y();
      for (int r = 0; r < n; ++r) sy.push_back(once(y));
    }
  }
  std::sort(sx.begin(), sx.end());
  std::sort(sy.begin(), sy.end());
  return {sx[sx.size() / 2], sy[sy.size() / 2]};
}

}  // namespace asc::bench
