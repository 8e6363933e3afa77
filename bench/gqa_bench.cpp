// GroupQueryAttention's flash kernel on a Qwen2.5-0.5B layer shape (14 query heads, 2 KV heads,
// head 64), f32, against the memory floor of the step. Run by hand (docs/PERFORMANCE.md):
//   asc-gqa-bench [threads=2] [past=1024] [runs=200]
// Decode: 1 token over a past of `past` rows: the op must read past K/V (2 x 2 x past x 64 x 4 B)
// and write present K/V (one row more), so the floor is a copy of that many bytes; "copy" times
// memcpy of past K and V into preallocated present buffers on the same oneTBB threads (one chunk
// per KV head, as the kernel splits). "shared KV": the same decode with past and present one
// buffer (a caller's KV cache), so no past rows move. Prefill: 128 tokens, no past. The host kernel
// is called directly on preallocated tensors (no per-call allocation or inference); medians after a
// warm-up.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

constexpr int64_t kHeads = 14, kKvHeads = 2, kHead = 64;

using asc::bench::median_seconds;

Tensor filled(DType dt, Shape s, double base) {
  Tensor t(dt, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.set(i, base + 0.001 * static_cast<double>((i * 7919) % 997) - 0.5);
  return t;
}

Tensor i32(Shape s, int64_t v) {
  Tensor t(DType::kI32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, static_cast<double>(v));
  return t;
}

// Seconds per GroupQueryAttention call: S new tokens over `past` rows (batch 1). `shared`: past
// and present are one KV cache buffer of past + S rows (written in place, no copy of the past).
double bench_gqa(const asc::cpu::CpuDevice& dev, int64_t S, int64_t past, int runs,
                 bool shared = false) {
  const asc::OpDef& op = asc::global_registry().lookup("com.microsoft", "GroupQueryAttention", 1);
  asc::Attrs given;
  given.set("num_heads", kHeads);
  given.set("kv_num_heads", kKvHeads);
  const asc::Attrs attrs = op.resolve(given);
  std::vector<Tensor> in = {filled(DType::kF32, {1, S, kHeads * kHead}, 0.1),
                            filled(DType::kF32, {1, S, kKvHeads * kHead}, 0.2),
                            filled(DType::kF32, {1, S, kKvHeads * kHead}, 0.3),
                            filled(DType::kF32, {1, kKvHeads, past + (shared ? S : 0), kHead}, 0.4),
                            filled(DType::kF32, {1, kKvHeads, past + (shared ? S : 0), kHead}, 0.5),
                            i32({1}, past + S - 1),
                            i32({}, past + S)};
  const auto descs = asc::infer_outputs(op, attrs, in);
  std::vector<Tensor> out;
  for (const auto& d : descs) out.emplace_back(d.dtype, d.shape);
  if (shared) {
    out[1] = in[3];
    out[2] = in[4];
  }
  asc::LaunchContext ctx;
  ctx.op = &op;
  for (const auto& t : in) ctx.inputs.push_back(t.desc());
  ctx.outputs = descs;
  ctx.attrs = &attrs;
  ctx.spec = &dev.spec();
  ctx.parallel_for = [&dev](int64_t n, const std::function<void(int64_t, int64_t)>& body) {
    dev.parallel_for(n, body);
  };
  return median_seconds([&] { dev.run([&] { op.host_kernel_fn(ctx, in, out); }); }, runs);
}

// Seconds to copy past K and V ([1, K, past, H] each) into present buffers, a chunk per KV head.
double bench_copy(const asc::cpu::CpuDevice& dev, int64_t past, int runs) {
  const Tensor pk = filled(DType::kF32, {1, kKvHeads, past, kHead}, 0.4);
  const Tensor pv = filled(DType::kF32, {1, kKvHeads, past, kHead}, 0.5);
  Tensor dk(DType::kF32, {1, kKvHeads, past + 1, kHead}), dv(dk.dtype(), dk.shape());
  const auto chunk = static_cast<size_t>(past * kHead);
  return median_seconds(
      [&] {
        dev.parallel_for(kKvHeads, [&](int64_t b, int64_t e) {
          for (int64_t h = b; h < e; ++h) {
            std::memcpy(dk.data_as<float>() + h * (past + 1) * kHead,
                        pk.data_as<float>() + static_cast<size_t>(h) * chunk, chunk * 4);
            std::memcpy(dv.data_as<float>() + h * (past + 1) * kHead,
                        pv.data_as<float>() + static_cast<size_t>(h) * chunk, chunk * 4);
          }
        });
      },
      runs);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int64_t past = argc > 2 ? std::atoll(argv[2]) : 1024;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 200;
  const asc::cpu::CpuDevice dev(threads);
  const double kv_bytes = 2.0 * 2.0 * static_cast<double>(kKvHeads * past * kHead) * 4.0;
  const double decode = bench_gqa(dev, 1, past, runs);
  const double copy = bench_copy(dev, past, runs);
  const double in_place = bench_gqa(dev, 1, past, runs, true);
  const double prefill = bench_gqa(dev, 128, 0, std::max(5, runs / 20));
  std::printf("GroupQueryAttention f32, heads %lld / kv %lld, head %lld, %d threads\n",
              static_cast<long long>(kHeads), static_cast<long long>(kKvHeads),
              static_cast<long long>(kHead), threads);
  std::printf("decode  past %5lld : %8.1f us  (%.1f GB/s of K/V read+written)\n",
              static_cast<long long>(past), decode * 1e6, kv_bytes / decode / 1e9);
  std::printf("copy    past %5lld : %8.1f us  (floor: memcpy past -> present, %.1f GB/s)\n",
              static_cast<long long>(past), copy * 1e6, kv_bytes / copy / 1e9);
  std::printf("decode / copy      : %8.2f\n", decode / copy);
  std::printf(
      "decode, shared KV  : %8.1f us  (past and present one buffer: only the new row "
      "written)\n",
      in_place * 1e6);
  std::printf("prefill 128 tokens : %8.1f us\n", prefill * 1e6);
  return 0;
}
