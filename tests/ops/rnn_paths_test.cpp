// The RNN family's two paths on every RNN / GRU / LSTM case of the table: the host kernel (the
// fallback of f64 and of a run without a device to launch programs on) run without
// `launch_program`, in parallel over directions and batch rows, against the naive reference; and
// the programs rnn_launches lists for the sim device, which are those the tile path launches.
#include <gtest/gtest.h>

#include <set>

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

bool is_rnn(const OpCase& c) {
  return c.domain.empty() && (c.op == "RNN" || c.op == "GRU" || c.op == "LSTM");
}

std::vector<OpCase> rnn_cases() {
  std::vector<OpCase> v;
  for (const OpCase& c : all_op_cases())
    if (is_rnn(c)) v.push_back(c);
  return v;
}

LaunchContext context_of(const OpDef& op, const Attrs& resolved, const std::vector<Tensor>& in,
                         const std::vector<TensorDesc>& out) {
  LaunchContext ctx;
  ctx.op = &op;
  for (const Tensor& t : in) ctx.inputs.push_back(t.defined() ? t.desc() : TensorDesc{});
  ctx.outputs = out;
  ctx.attrs = &resolved;
  ctx.spec = &device().spec();
  return ctx;
}

class RnnPaths : public ::testing::TestWithParam<OpCase> {};

TEST_P(RnnPaths, HostKernelMatchesReference) {
  const OpCase& c = GetParam();
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  const Attrs resolved = op.resolve(c.attrs);
  const auto out_desc = infer_outputs(op, resolved, inputs, c.num_outputs);
  LaunchContext ctx = context_of(op, resolved, inputs, out_desc);
  ctx.parallel_for = [](int64_t n, const std::function<void(int64_t, int64_t)>& body) {
    device().parallel_for(n, body);
  };
  std::vector<Tensor> got;
  for (const TensorDesc& d : out_desc) got.emplace_back(d.dtype, d.shape);
  op.host_kernel_fn(ctx, inputs, got);  // no launch_program: the host path
  const auto want = run_reference(op, c.attrs, inputs, c.num_outputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double atol = c.atol, rtol = c.rtol;
    if (atol < 0 || rtol < 0) default_tolerance(want[i].dtype(), atol, rtol);
    EXPECT_EQ(compare(got[i], want[i], atol, rtol), "") << c.name() << " output " << i;
  }
}

// The sim device predicts the op from rnn_launches: the projection Gemm and the weights'
// Transpose once per direction, the step program (and GRU's reset stage) once per time step; f64
// runs on the host and lists nothing.
TEST_P(RnnPaths, LaunchesListTheTilePrograms) {
  const OpCase& c = GetParam();
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  const Attrs resolved = op.resolve(c.attrs);
  const auto out_desc = infer_outputs(op, resolved, inputs, c.num_outputs);
  const LaunchContext ctx = context_of(op, resolved, inputs, out_desc);
  ASSERT_TRUE(op.launches_fn);
  const std::vector<ProgramLaunches> l = op.launches_fn(ctx);
  if (inputs[0].dtype() == DType::kF64) {
    EXPECT_TRUE(l.empty());
    return;
  }
  const int64_t dirs = inputs[1].shape()[0];
  const int64_t seq = inputs[0].shape()[resolved.i("layout", 0) ? 1 : 0];
  std::set<std::string> ops;
  int64_t steps = 0;
  for (const ProgramLaunches& p : l) {
    ASSERT_NE(p.program, nullptr);
    const std::string name = p.program->op.substr(0, p.program->op.find('('));  // "Gemm(f32..."
    ops.insert(name);
    if (name == "RnnStep") steps += p.count;
  }
  EXPECT_EQ(ops, (std::set<std::string>{"Gemm", "Transpose", "RnnStep"}));
  const bool gru_split = c.op == "GRU" && resolved.i("linear_before_reset", 0) == 0;
  EXPECT_EQ(steps, dirs * seq * (gru_split ? 2 : 1));
}

INSTANTIATE_TEST_SUITE_P(Ops, RnnPaths, ::testing::ValuesIn(rnn_cases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) {
                           std::string n = std::to_string(info.index) + "_" + info.param.name();
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace asc::test
