// FusedAttention's tile kernel on a Qwen2.5-0.5B layer shape (14 query heads, 2 KV heads, head
// 64), f32, next to GroupQueryAttention's host kernel on the same step. Run by hand
// (docs/PERFORMANCE.md):
//   asc-attention-bench [threads=2] [past=1024] [runs=200]
// Decode: 1 token over `past` rows with a [1,1,1,T] additive mask, present in its own buffer
// (the past copied) and in place (past and present strided views of one KV-cache buffer per K
// and V: only the new row moves).
// Prefill: 128 tokens, no past, a causal mask. The program is planned once and launched on
// preallocated tensors (no per-call inference, tiling or allocation); medians after a warm-up.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
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

Tensor filled(Shape s, double base) {
  Tensor t(DType::kF32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.set(i, base + 0.001 * static_cast<double>((i * 7919) % 997) - 0.5);
  return t;
}

// Seconds per FusedAttention launch: S new tokens over `past` rows (batch 1). `shared`: present
// is past's own buffer of past + S rows (the KV cache written in place).
double bench_fused(const asc::cpu::CpuDevice& dev, int64_t S, int64_t past, int runs, bool shared) {
  const asc::OpDef& op = asc::global_registry().lookup("ai.asc", "FusedAttention", 1);
  const asc::Attrs attrs = op.resolve({});
  const int64_t T = past + S;
  Tensor mask(DType::kF32, {1, 1, S, T});
  for (int64_t i = 0; i < S; ++i)
    for (int64_t j = 0; j < T; ++j)
      mask.set(i * T + j, j > past + i ? -std::numeric_limits<double>::infinity() : 0.0);
  Tensor cache_k = filled({1, kKvHeads, T, kHead}, 0.4), cache_v = filled(cache_k.shape(), 0.5);
  std::vector<Tensor> in = {
      filled({1, kHeads, S, kHead}, 0.1),      filled({1, kKvHeads, S, kHead}, 0.2),
      filled({1, kKvHeads, S, kHead}, 0.3),    filled({1, kKvHeads, past, kHead}, 0.4),
      filled({1, kKvHeads, past, kHead}, 0.5), mask};
  std::vector<Tensor> out;
  for (const auto& d : asc::infer_outputs(op, attrs, in)) out.emplace_back(d.dtype, d.shape);
  if (shared) {  // rows [0, past) and [0, T) of one cache buffer per K and V, heads T rows apart
    const Shape st = {kKvHeads * T * kHead, T * kHead, kHead, 1};
    in[3] = Tensor::strided(DType::kF32, {1, kKvHeads, past, kHead}, st, cache_k.data());
    in[4] = Tensor::strided(DType::kF32, {1, kKvHeads, past, kHead}, st, cache_v.data());
    out[1] = Tensor::strided(DType::kF32, {1, kKvHeads, T, kHead}, st, cache_k.data());
    out[2] = Tensor::strided(DType::kF32, {1, kKvHeads, T, kHead}, st, cache_v.data());
  }
  std::vector<asc::TensorDesc> in_desc, out_desc;
  for (const auto& t : in) in_desc.push_back(t.desc());
  for (const auto& t : out) out_desc.push_back(t.desc());
  const asc::TileProgram p = asc::plan_tile_program(op, attrs, in_desc, out_desc, dev.spec());
  std::vector<void*> args;
  for (auto& t : in) args.push_back(t.data());
  for (auto& t : out) args.push_back(t.data());
  return median_seconds([&] { dev.launch(p, args); }, runs);
}

double bench_gqa(const asc::cpu::CpuDevice& dev, int64_t S, int64_t past, int runs) {
  const asc::OpDef& op = asc::global_registry().lookup("com.microsoft", "GroupQueryAttention", 1);
  asc::Attrs given;
  given.set("num_heads", kHeads);
  given.set("kv_num_heads", kKvHeads);
  const asc::Attrs attrs = op.resolve(given);
  Tensor seqlens(DType::kI32, {1}), total(DType::kI32, {});
  seqlens.set(0, static_cast<double>(past + S - 1));
  total.set(0, static_cast<double>(past + S));
  std::vector<Tensor> in = {filled({1, S, kHeads * kHead}, 0.1),
                            filled({1, S, kKvHeads * kHead}, 0.2),
                            filled({1, S, kKvHeads * kHead}, 0.3),
                            filled({1, kKvHeads, past, kHead}, 0.4),
                            filled({1, kKvHeads, past, kHead}, 0.5),
                            seqlens,
                            total};
  const auto descs = asc::infer_outputs(op, attrs, in);
  std::vector<Tensor> out;
  for (const auto& d : descs) out.emplace_back(d.dtype, d.shape);
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

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int64_t past = argc > 2 ? std::atoll(argv[2]) : 1024;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 200;
  const asc::cpu::CpuDevice dev(threads);
  std::printf("f32, heads %lld / kv %lld, head %lld, %d threads; microseconds per call\n",
              static_cast<long long>(kHeads), static_cast<long long>(kKvHeads),
              static_cast<long long>(kHead), threads);
  std::printf("%-34s %12s %12s\n", "", "FusedAttn", "GQA (host)");
  std::printf("%-34s %12.1f %12.1f\n", ("decode, past " + std::to_string(past)).c_str(),
              bench_fused(dev, 1, past, runs, false) * 1e6, bench_gqa(dev, 1, past, runs) * 1e6);
  std::printf("%-34s %12.1f %12s\n", "decode, in place (one KV buffer)",
              bench_fused(dev, 1, past, runs, true) * 1e6, "-");
  const int pre_runs = std::max(5, runs / 20);
  std::printf("%-34s %12.1f %12.1f\n", "prefill 128 tokens",
              bench_fused(dev, 128, 0, pre_runs, false) * 1e6,
              bench_gqa(dev, 128, 0, pre_runs) * 1e6);
  return 0;
}
