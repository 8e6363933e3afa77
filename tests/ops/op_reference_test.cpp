// Every case of the table: the op on the cpu device against its naive double reference, then the
// same case under other legal tilings (smaller local memories, other core counts, the 910B spec).
#include <gtest/gtest.h>

#include "ops/op_cases.h"
#include "ops/ops.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

class OpReference : public ::testing::TestWithParam<OpCase> {};

void check_case(const OpCase& c, const OpRunOptions& opts) {
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  OpRunOptions o = opts;
  o.num_outputs = c.num_outputs;
  const auto got = run_op(op, c.attrs, inputs, device(), o);
  const auto want = run_reference(op, c.attrs, inputs, c.num_outputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double atol = c.atol, rtol = c.rtol;
    if (atol < 0 || rtol < 0) default_tolerance(want[i].dtype(), atol, rtol);
    const std::string diff = compare(got[i], want[i], atol, rtol);
    EXPECT_EQ(diff, "") << c.name() << " output " << i;
  }
}

TEST_P(OpReference, MatchesReference) {
  check_case(GetParam(), {});
}

TEST_P(OpReference, UnoptimisedMatches) {
  OpRunOptions o;
  o.optimize = false;
  check_case(GetParam(), o);
}

// Tiling invariance: shrinking local memories forces smaller tiles; other core counts change the
// split; the 910B spec gives its own tiling. Every legal tiling gives the same result.
TEST_P(OpReference, TilingInvariant) {
  // Host kernels have no tiling; the spec variants must not change them either.
  for (int variant = 0; variant < 3; ++variant) {
    DeviceSpec s = variant == 2 ? ascend910b() : device().spec();
    if (variant == 0) {
      s.ub_bytes /= 16;
      s.l1_bytes /= 16;
      s.l0a_bytes /= 16;
      s.l0b_bytes /= 16;
      s.l0c_bytes /= 16;
      s.vector_cores = s.cube_cores = 3;
    }
    if (variant == 1) s.vector_cores = s.cube_cores = 7;
    OpRunOptions o;
    o.spec = s;
    SCOPED_TRACE(s.name + " variant " + std::to_string(variant));
    check_case(GetParam(), o);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, OpReference, ::testing::ValuesIn(all_op_cases()), case_name);

}  // namespace
}  // namespace asc::test
