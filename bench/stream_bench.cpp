// asc's Add through the real op path against a STREAM-style triad, both on the same threads.
// Run by hand (docs/PERFORMANCE.md, "Add vs STREAM triad"):
//   asc-stream-bench [threads=2] [log2_elements=25] [runs=15]
// Triad: a[i] = b[i] + s * c[i] over f32 arrays, split over `threads` oneTBB workers in contiguous
// chunks (core c takes elements [c*n/T, (c+1)*n/T), as the cpu device splits tiles). Add: the
// registry's Add planned once (plan_tile_program with the CpuDevice's spec), then
// CpuDevice::launch timed on preallocated tensors. GB/s counts the bytes each kernel must move
// (STREAM convention: 3 arrays x 4 B = 12 B per element for f32 triad and Add); medians over runs
// after a warm-up.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "ops/ops.h"
#include "registry/tensor.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace {

using asc::DType;
using asc::Shape;
using asc::Tensor;

using asc::bench::median_seconds;

void fill(Tensor& t, double base) {
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, base + 0.001 * static_cast<double>(i % 977));
}

struct Row {
  std::string name;
  int64_t elems;
  double bytes_per_elem;
  double seconds;
  double gbs() const { return bytes_per_elem * static_cast<double>(elems) / seconds / 1e9; }
};

// Plans Add for a [a_shape] + [b_shape] of dtype dt once and times launches.
Row bench_add(const asc::cpu::CpuDevice& dev, const std::string& name, DType dt,
              const Shape& a_shape, const Shape& b_shape, double bytes_per_elem, int runs,
              bool print_plan) {
  const asc::OpDef& op = asc::global_registry().lookup("", "Add", 17);
  const asc::Attrs attrs = op.resolve({});
  Tensor a(dt, a_shape), b(dt, b_shape);
  fill(a, 1.0);
  fill(b, 2.0);
  const std::vector<Tensor> inputs = {a, b};
  const auto out_desc = asc::infer_outputs(op, attrs, inputs);
  Tensor c(out_desc[0].dtype, out_desc[0].shape);
  const std::vector<asc::TensorDesc> in_desc = {a.desc(), b.desc()};
  asc::DeviceSpec spec = dev.spec();  // ASC_UB_KIB overrides UB to explore tile sizes
  if (const char* ub = std::getenv("ASC_UB_KIB")) spec.ub_bytes = std::atoll(ub) * 1024;
  const asc::TileProgram p = asc::plan_tile_program(op, attrs, in_desc, out_desc, spec);
  if (print_plan) std::printf("%s plan:\n%s\n", name.c_str(), p.dump().c_str());
  const std::vector<void*> args = {a.data(), b.data(), c.data()};
  const double s = median_seconds([&] { dev.launch(p, args); }, runs);
  // Spot check: the first and last outputs.
  const int64_t n = c.numel();
  for (int64_t i : {int64_t{0}, n - 1}) {
    const double want = a.at(i) + b.at(b.numel() == n ? i : i % b.numel());
    if (std::abs(c.at(i) - want) > 1e-2 * std::abs(want))
      std::printf("MISMATCH %s at %lld: %g vs %g\n", name.c_str(), static_cast<long long>(i),
                  c.at(i), want);
  }
  return {name, n, bytes_per_elem, s};
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int log2n = argc > 2 ? std::atoi(argv[2]) : 25;
  const int runs = argc > 3 ? std::max(10, std::atoi(argv[3])) : 15;
  const bool print_plan = std::getenv("ASC_PRINT_PLAN") != nullptr;
  const int64_t n = int64_t{1} << log2n;

  asc::cpu::CpuDevice dev(threads);
  std::printf("threads %d, n = 2^%d = %lld elements, %d runs (median), spec %s\n", threads, log2n,
              static_cast<long long>(n), runs, dev.spec().str().c_str());

  std::vector<Row> rows;
  {
    std::vector<float> a(static_cast<size_t>(n)), b(a.size()), c(a.size());
    tbb::task_arena arena(threads);
    const float scalar = 3.0f;
    auto triad = [&] {
      arena.execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<int64_t>(0, threads, 1),
            [&](const tbb::blocked_range<int64_t>& r) {
              for (int64_t t = r.begin(); t < r.end(); ++t) {
                const int64_t lo = n * t / threads, hi = n * (t + 1) / threads;
                float* __restrict pa = a.data();
                const float* __restrict pb = b.data();
                const float* __restrict pc = c.data();
                for (int64_t i = lo; i < hi; ++i) pa[i] = pb[i] + scalar * pc[i];
              }
            },
            tbb::simple_partitioner());
      });
    };
    arena.execute([&] {  // first touch by the workers that will use the pages
      tbb::parallel_for(tbb::blocked_range<int64_t>(0, n), [&](const auto& r) {
        for (int64_t i = r.begin(); i < r.end(); ++i) a[i] = 0.f, b[i] = 1.f, c[i] = 2.f;
      });
    });
    rows.push_back({"triad f32 a=b+s*c", n, 12, median_seconds(triad, runs)});
  }
  rows.push_back(bench_add(dev, "Add f32 [n]+[n]", DType::kF32, {n}, {n}, 12, runs, print_plan));
  rows.push_back(bench_add(dev, "Add f16 [n]+[n]", DType::kF16, {n}, {n}, 6, runs, print_plan));
  const int64_t bcast_rows = n / 4864;
  rows.push_back(bench_add(dev, "Add f32 [n/4864,4864]+[4864]", DType::kF32, {bcast_rows, 4864},
                           {4864}, 8, runs, print_plan));

  const double triad_gbs = rows[0].gbs();
  std::printf("\n| kernel | elements | B/elem | median ms | GB/s | vs triad |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows)
    std::printf("| %s | %lld | %.0f | %.2f | %.1f | %.2f |\n", r.name.c_str(),
                static_cast<long long>(r.elems), r.bytes_per_elem, r.seconds * 1e3, r.gbs(),
                r.gbs() / triad_gbs);
  return 0;
}
