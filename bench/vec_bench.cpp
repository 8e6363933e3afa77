// Hand-run benchmark of the CPU vector unit (runtime/devices/cpu/vec.h): GB/s of add, exp, casts
// and reductions at n = 1 << 24 (memory bound) and n = 16384 repeated (cache resident, one tile).
// Single-threaded; medians over runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "runtime/devices/cpu/vec.h"

namespace {

using asc::DType;
namespace cpu = asc::cpu;

// Median seconds of one call of fn, over `runs` runs of `reps` calls each.
double median_seconds(const std::function<void()>& fn, int runs, int reps) {
  std::vector<double> t;
  fn();  // warm up (page faults, dispatch table)
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps; ++k) fn();
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double>(t1 - t0).count() / reps);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void report(const char* name, int64_t n, double bytes_per_elem, const std::function<void()>& fn) {
  const bool big = n >= (1 << 20);
  const double s = median_seconds(fn, big ? 7 : 9, big ? 3 : 2000);
  std::printf("%-28s n=%-9lld %8.2f GB/s  %8.3f ns/elem\n", name, static_cast<long long>(n),
              bytes_per_elem * static_cast<double>(n) / s / 1e9, s / static_cast<double>(n) * 1e9);
}

}  // namespace

int main() {
  for (int64_t n : {int64_t{1} << 24, int64_t{16384}}) {
    std::vector<float> a(static_cast<size_t>(n)), b(a.size()), y(a.size());
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = 0.001f * static_cast<float>(i % 1000) - 0.5f, b[i] = 1.5f;
    std::vector<uint16_t> h(a.size());
    std::vector<float> rows(static_cast<size_t>(std::max<int64_t>(n / 1024, 1024)));
    report("add f32", n, 12, [&] {
      cpu::vec_binary(asc::BinaryOp::kAdd, DType::kF32, a.data(), b.data(), y.data(), n);
    });
    report("mul_scalar f32", n, 8, [&] {
      cpu::vec_binary_scalar(asc::BinaryOp::kMul, DType::kF32, a.data(), 2.0, y.data(), n);
    });
    report("exp f32", n, 8,
           [&] { cpu::vec_unary(asc::UnaryOp::kExp, DType::kF32, a.data(), y.data(), n); });
    report("sigmoid f32", n, 8,
           [&] { cpu::vec_unary(asc::UnaryOp::kSigmoid, DType::kF32, a.data(), y.data(), n); });
    report("tanh f32", n, 8,
           [&] { cpu::vec_unary(asc::UnaryOp::kTanh, DType::kF32, a.data(), y.data(), n); });
    report("erf f32", n, 8,
           [&] { cpu::vec_unary(asc::UnaryOp::kErf, DType::kF32, a.data(), y.data(), n); });
    report("silu f32", n, 8,
           [&] { cpu::vec_unary(asc::UnaryOp::kSilu, DType::kF32, a.data(), y.data(), n); });
    report("cast f32->f16", n, 6,
           [&] { cpu::vec_cast(DType::kF32, DType::kF16, a.data(), h.data(), n); });
    report("cast f16->f32", n, 6,
           [&] { cpu::vec_cast(DType::kF16, DType::kF32, h.data(), y.data(), n); });
    report("cast f32->bf16", n, 6,
           [&] { cpu::vec_cast(DType::kF32, DType::kBF16, a.data(), h.data(), n); });
    report("cast bf16->f32", n, 6,
           [&] { cpu::vec_cast(DType::kBF16, DType::kF32, h.data(), y.data(), n); });
    report("reduce sum f32 rows(1024)", n, 4, [&] {
      cpu::vec_reduce(asc::ReduceOp::kSum, DType::kF32, a.data(), rows.data(), n / 1024, 1024, 1);
    });
    report("reduce max f32 rows(1024)", n, 4, [&] {
      cpu::vec_reduce(asc::ReduceOp::kMax, DType::kF32, a.data(), rows.data(), n / 1024, 1024, 1);
    });
    report("reduce sum f32 cols(1024)", n, 4, [&] {
      cpu::vec_reduce(asc::ReduceOp::kSum, DType::kF32, a.data(), rows.data(), 1, n / 1024, 1024);
    });
  }
  return 0;
}
