// Resize / Upsample's two paths on every case of the table: float data runs as ResizeAxis
// programs (one per resized dim, listed by the op's launches for the sim device), other data and a
// run without a device to launch programs on take the host kernel; both against the reference.
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

std::vector<OpCase> resize_cases() {
  std::vector<OpCase> v;
  for (const OpCase& c : all_op_cases())
    if (c.domain.empty() && (c.op == "Resize" || c.op == "Upsample")) v.push_back(c);
  return v;
}

bool tile_dtype(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
}

// The dims whose output extent or coordinate map differs from the identity: at least those
// whose extent changes are resized.
int64_t changed_dims(const Tensor& x, const Shape& y) {
  int64_t n = 0;
  for (size_t d = 0; d < y.size(); ++d) n += x.shape()[d] != y[d];
  return n;
}

void expect_matches(const OpCase& c, const std::vector<Tensor>& got,
                    const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  double atol = c.atol, rtol = c.rtol;
  if (atol < 0 || rtol < 0) default_tolerance(want[0].dtype(), atol, rtol);
  EXPECT_EQ(compare(got[0], want[0], atol, rtol), "") << c.name();
}

class ResizePaths : public ::testing::TestWithParam<OpCase> {};

TEST_P(ResizePaths, FloatDataRunsResizeAxisPrograms) {
  const OpCase& c = GetParam();
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  std::vector<std::string> launched;
  OpRunOptions o;
  o.on_program = [&](const TileProgram& p) { launched.push_back(p.op.substr(0, p.op.find('('))); };
  const auto got = run_op(op, c.attrs, inputs, device(), o);
  expect_matches(c, got, run_reference(op, c.attrs, inputs));
  if (!tile_dtype(inputs[0].dtype()) || inputs[0].numel() == 0) {
    EXPECT_TRUE(launched.empty());
    return;
  }
  EXPECT_GE(static_cast<int64_t>(launched.size()), changed_dims(inputs[0], got[0].shape()));
  for (const std::string& name : launched) EXPECT_EQ(name, "ResizeAxis");
  // The launches the sim device predicts are those programs.
  const Attrs resolved = op.resolve(c.attrs);
  LaunchContext ctx;
  ctx.op = &op;
  for (const Tensor& t : inputs) {
    ctx.inputs.push_back(t.defined() ? t.desc() : TensorDesc{});
    ctx.values.push_back(t.defined() ? &t : nullptr);
  }
  ctx.outputs = {got[0].desc()};
  ctx.attrs = &resolved;
  ctx.spec = &device().spec();
  ASSERT_TRUE(op.launches_fn);
  const std::vector<ProgramLaunches> l = op.launches_fn(ctx);
  ASSERT_EQ(l.size(), launched.size());
  for (const ProgramLaunches& p : l) {
    ASSERT_NE(p.program, nullptr);
    EXPECT_EQ(p.count, 1);
  }
}

TEST_P(ResizePaths, HostKernelMatchesReference) {
  const OpCase& c = GetParam();
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  const Attrs resolved = op.resolve(c.attrs);
  const auto out_desc = infer_outputs(op, resolved, inputs);
  LaunchContext ctx;
  ctx.op = &op;
  for (const Tensor& t : inputs) ctx.inputs.push_back(t.defined() ? t.desc() : TensorDesc{});
  ctx.outputs = out_desc;
  ctx.attrs = &resolved;
  ctx.spec = &device().spec();
  ctx.parallel_for = [](int64_t n, const std::function<void(int64_t, int64_t)>& body) {
    device().parallel_for(n, body);
  };
  std::vector<Tensor> got;
  for (const TensorDesc& d : out_desc) got.emplace_back(d.dtype, d.shape);
  op.host_kernel_fn(ctx, inputs, got);  // no launch_program: the host path
  expect_matches(c, got, run_reference(op, c.attrs, inputs));
}

INSTANTIATE_TEST_SUITE_P(Ops, ResizePaths, ::testing::ValuesIn(resize_cases()), case_name);

}  // namespace
}  // namespace asc::test
