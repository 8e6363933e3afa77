// LpPool and GlobalLpPool take their tile kernels for p > 0 (LpPool: not f64; GlobalLpPool: f64
// only with p 1 or 2) and their host kernels otherwise; both against the reference on every case.
#include <gtest/gtest.h>

#include "ops/op_cases.h"
#include "ops/ops.h"
#include "registry/tile_program.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

std::vector<OpCase> lp_cases() {
  std::vector<OpCase> v;
  for (const OpCase& c : all_op_cases())
    if (c.domain.empty() && (c.op == "LpPool" || c.op == "GlobalLpPool")) v.push_back(c);
  return v;
}

class LpPoolPaths : public ::testing::TestWithParam<OpCase> {};

TEST_P(LpPoolPaths, TileKernelUnlessPIsNotPositive) {
  const OpCase& c = GetParam();
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const Attrs resolved = op.resolve(c.attrs);
  const auto inputs = make_inputs(c);
  const double p = c.opset == 1 ? double(resolved.f("p")) : double(resolved.i("p"));
  const DType dt = inputs[0].dtype();
  const bool tile = p > 0 && (dt != DType::kF64 || (c.op == "GlobalLpPool" && (p == 1 || p == 2)));
  const auto out_desc = infer_outputs(op, resolved, inputs);
  std::vector<TensorDesc> in_desc{inputs[0].desc()};
  EXPECT_EQ(op.kernel_for(resolved, in_desc, out_desc),
            tile ? KernelKind::kTile : KernelKind::kHost);
  int launched = 0;
  OpRunOptions o;
  o.on_program = [&](const TileProgram&) { ++launched; };
  const auto got = run_op(op, c.attrs, inputs, device(), o);
  if (inputs[0].numel() > 0) {
    EXPECT_EQ(launched, tile ? 1 : 0);
  }
  const auto want = run_reference(op, c.attrs, inputs);
  double atol = c.atol, rtol = c.rtol;
  if (atol < 0 || rtol < 0) default_tolerance(want[0].dtype(), atol, rtol);
  EXPECT_EQ(compare(got[0], want[0], atol, rtol), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, LpPoolPaths, ::testing::ValuesIn(lp_cases()), case_name);

}  // namespace
}  // namespace asc::test
