// CpuDevice::launch_sequence: launches of several tiles each, every one reading what the one
// before wrote, run in one parallel region on two workers give what launching them one by one
// gives. Transposes alternate with adds, so a tile reads what every tile of the launch before
// wrote: a launch started early reads stale data.
#include <gtest/gtest.h>

#include <random>

#include "ops/ops.h"
#include "runtime/op_runner.h"

namespace asc {
namespace {

constexpr int64_t kSide = 320;

TileProgram program(const cpu::CpuDevice& dev, const char* op, int operands) {
  const OpDef& def = global_registry().lookup("", op, 14);
  const std::vector<TensorDesc> in(static_cast<size_t>(operands),
                                   TensorDesc{DType::kF32, Shape{kSide, kSide}});
  const std::vector<TensorDesc> out{in[0]};
  return plan_tile_program(def, def.resolve({}), in, out, dev.spec(), {}, {});
}

// v[s + 1] = v[s]^T at even s, v[s] + x at odd s.
void run_chain(const cpu::CpuDevice& dev, bool sequence, std::vector<float>& x,
               std::vector<std::vector<float>>& v) {
  const TileProgram tr = program(dev, "Transpose", 1), add = program(dev, "Add", 2);
  ASSERT_GE(tr.num_tiles(), 2);
  ASSERT_GE(add.num_tiles(), 2);
  const size_t steps = v.size() - 1;
  std::vector<void*> args(steps * 3);
  std::vector<ProgramLaunch> seq;
  for (size_t s = 0; s < steps; ++s) {
    void** a = args.data() + s * 3;
    if (s % 2 == 0) {
      a[0] = v[s].data(), a[1] = v[s + 1].data();
      seq.push_back({&tr, std::span<void* const>(a, 2)});
    } else {
      a[0] = v[s].data(), a[1] = x.data(), a[2] = v[s + 1].data();
      seq.push_back({&add, std::span<void* const>(a, 3)});
    }
  }
  if (sequence) {
    dev.launch_sequence(seq);
  } else {
    for (const ProgramLaunch& l : seq) dev.launch(*l.program, l.args);
  }
}

TEST(LaunchSequence, MatchesLaunchesOneByOne) {
  const cpu::CpuDevice dev(2);
  const size_t steps = 200, n = kSide * kSide;
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> u(0.5f, 1.0f);
  std::vector<float> x(n);
  for (float& e : x) e = u(gen);
  std::vector<std::vector<float>> want(steps + 1, std::vector<float>(n, 0.f)), got = want;
  for (size_t i = 0; i < n; ++i) want[0][i] = got[0][i] = u(gen);
  run_chain(dev, false, x, want);
  run_chain(dev, true, x, got);
  // The one-by-one chain against the host's own arithmetic, then the sequence against it.
  std::vector<float> host = want[0], next(n);
  for (size_t s = 0; s < steps; ++s) {
    for (size_t i = 0; i < n; ++i)
      next[i] = s % 2 == 0 ? host[(i % kSide) * kSide + i / kSide] : host[i] + x[i];
    host.swap(next);
  }
  EXPECT_EQ(want[steps], host);
  for (size_t s = 1; s <= steps; ++s) ASSERT_EQ(got[s], want[s]) << "launch " << s - 1;
}

}  // namespace
}  // namespace asc
