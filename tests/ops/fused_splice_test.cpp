// Every elementwise tile op splices: for each case of the op table whose node the fusion pass may
// put in a chain (runtime/fusion.h spliceable()), the op run as a one-step FusedElementwise gives
// exactly the op's own result,
// and as the first step of a chain followed by a second op, what the two ops give one after the
// other.
#include <gtest/gtest.h>

#include <set>

#include "ops/fused.h"
#include "ops/op_cases.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/fusion.h"
#include "runtime/op_runner.h"

namespace asc::test {
namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

// The case as the pass would see it: a node with its inputs' and output's types.
bool spliceable_case(const OpCase& c) {
  Node n;
  n.op_type = c.op;
  n.domain = c.domain;
  n.opset = c.opset;
  n.def = global_registry().find(c.domain, c.op, c.opset);
  n.attrs = c.attrs;
  n.outputs = {0};
  if (!n.def || !c.domain.empty()) return false;
  std::vector<TensorType> in;
  std::vector<Tensor> probes;
  for (const InputSpec& s : c.inputs) {
    in.push_back(s.dtype == DType::kUndefined ? TensorType{}
                                              : TensorType{s.dtype, to_sym(s.shape)});
    probes.push_back(s.dtype == DType::kUndefined ? Tensor() : Tensor(s.dtype, s.shape));
  }
  try {
    const auto out = infer_outputs(*n.def, n.def->resolve(c.attrs), probes, 1);
    return out.size() == 1 && spliceable(n, in, {out[0].dtype, to_sym(out[0].shape)});
  } catch (const Error&) {
    return false;  // a case of an error
  }
}

std::vector<OpCase> spliceable_cases() {
  std::vector<OpCase> v;
  for (const OpCase& c : all_op_cases())
    if (spliceable_case(c)) v.push_back(c);
  return v;
}

class Splice : public ::testing::TestWithParam<OpCase> {};

TEST_P(Splice, OneStepChainIsTheOpItself) {
  const OpCase& c = GetParam();
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const std::vector<Tensor> ins = make_inputs(c);
  const std::vector<Tensor> want = run_op(op, c.attrs, ins, device());
  if (want.size() != 1) GTEST_SKIP() << "more than one output";
  // Absent optional inputs stay absent (-1); present ones are the fused node's inputs.
  fused::ChainStep step{c.domain, c.op, c.opset, {}, c.attrs};
  std::vector<Tensor> fused_ins;
  for (const Tensor& t : ins) {
    step.args.push_back(t.defined() ? static_cast<int64_t>(fused_ins.size()) : -1);
    if (t.defined()) fused_ins.push_back(t);
  }
  const OpDef& f = global_registry().lookup(fused::kDomain, "FusedElementwise", 1);
  const std::vector<Tensor> got = run_op(f, fused::encode_chain({step}), fused_ins, device());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(compare(got[0], want[0], 0, 0), "") << c.name();
  // Then a second step reading the first result twice: Add for numbers, Or for bools.
  const bool boolean = want[0].dtype() == DType::kBool;
  if (want[0].dtype() == DType::kString) return;
  const OpDef& second = global_registry().lookup("", boolean ? "Or" : "Add", 17);
  const int64_t s0 = fused::chain_step_code(0);
  const fused::ChainStep next{"", boolean ? "Or" : "Add", 17, {s0, s0}, {}};
  const std::vector<Tensor> both =
      run_op(f, fused::encode_chain({step, next}), fused_ins, device());
  const std::vector<Tensor> pair = {want[0], want[0]};
  const std::vector<Tensor> two = run_op(second, {}, pair, device());
  EXPECT_EQ(compare(both[0], two[0], 0, 0), "") << c.name() << " then " << next.type;
}

INSTANTIATE_TEST_SUITE_P(Elementwise, Splice, ::testing::ValuesIn(spliceable_cases()), case_name);

TEST(Splice, CoversTheElementwiseFamilies) {
  std::set<std::string> ops;
  for (const OpCase& c : spliceable_cases()) ops.insert(c.op);
  for (const char* op : {"Add", "Mul", "Sigmoid", "Where", "Clip", "LeakyRelu", "Equal", "Not"})
    EXPECT_TRUE(ops.count(op)) << op;
  EXPECT_GT(ops.size(), 40u);
}

}  // namespace
}  // namespace asc::test
