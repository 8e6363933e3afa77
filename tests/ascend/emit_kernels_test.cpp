// The emitted Ascend C kernel of every tile-kernel op case (built by asc-emit-gen, compiled with
// g++ against the host API) run on the case's inputs and compared with the cpu device running the
// same planned program (same spec), at the op tests' tolerance.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ascend/emit_entry.h"
#include "ascend/emit_spec.h"
#include "ops/op_cases.h"
#include "ops/ops.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {

const std::vector<EmitEntry>& all_emitted();
void emit_throw_on_host_fail();

namespace {

const cpu::CpuDevice& device() {
  static const cpu::CpuDevice dev(2);
  return dev;
}

// Known gaps (docs/ASCENDC.md): kernels whose emission does not run yet, by case name and
// variant. Each must still fail with this message; one that passes fails the test until it is
// removed from the list.
// A case_name ending in '/' names every case of that op (and variant -1 both variants); the
// message may come from the emission or from the run.
struct KnownGap {
  const char* case_name;
  int variant;
  const char* message;
};
const std::vector<KnownGap> kKnownGaps = {
    {"ConvInteger/", -1, "the integer cube"},
    {"QLinearConv/", -1, "the integer cube"},
    {"MatMulInteger/", -1, "the integer cube"},
    {"QLinearMatMul/", -1, "the integer cube"},
};

const KnownGap* known_gap(const OpCase& c, int variant) {
  for (const KnownGap& g : kKnownGaps) {
    const std::string name = g.case_name;
    const bool named = name.back() == '/' ? c.name().rfind(name, 0) == 0 : c.name() == name;
    if (named && (g.variant < 0 || variant == g.variant)) return &g;
  }
  return nullptr;
}

// The case a kernel was emitted from, by its name: the case table may differ between generation
// and run where cases follow the active GEMM kernels' packing (e.g. bf16 panels under
// ASC_GEMM_BF16_DOT); nullptr when this process has no such case.
const OpCase* emitted_case(const EmitEntry& e) {
  static const std::map<std::string, size_t> by_key = [] {
    std::map<std::string, size_t> m;
    std::map<std::string, int> seen;
    const auto& cases = all_op_cases();
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string name = cases[i].name();
      m.emplace(name + "#" + std::to_string(seen[name]++), i);
    }
    return m;
  }();
  const auto it = by_key.find(e.case_name);
  return it == by_key.end() ? nullptr : &all_op_cases()[it->second];
}

// Every case of the op is a known gap (an entry "Op/").
bool gap_op(const OpDef& op) {
  for (const KnownGap& g : kKnownGaps)
    if (op.domain.empty() && std::string(g.case_name) == op.type + "/") return true;
  return false;
}

class EmittedKernel : public ::testing::TestWithParam<EmitEntry> {};

TEST_P(EmittedKernel, MatchesCpuDevice) {
  const EmitEntry& e = GetParam();
  const OpCase* found = emitted_case(e);
  if (found && !e.run) {  // not emitted: a known gap with its message, else a failure
    const KnownGap* gap = known_gap(*found, e.variant);
    if (gap && std::string(e.error).find(gap->message) != std::string::npos) return;
  }
  ASSERT_NE(e.run, nullptr) << e.name << ": " << e.error;
  if (!found)
    GTEST_SKIP() << e.case_name << " is not a case of this process (its GEMM packing differs)";
  const OpCase& c = *found;
  SCOPED_TRACE(c.name() + " variant " + std::to_string(e.variant));
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  OpRunOptions opts;
  opts.spec = emit_spec(e.variant);
  opts.num_outputs = c.num_outputs;
  const auto want = run_op(op, c.attrs, inputs, device(), opts);
  const auto out_desc = infer_outputs(op, op.resolve(c.attrs), inputs, c.num_outputs);
  std::vector<Tensor> got;
  for (const auto& d : out_desc) got.emplace_back(d.dtype, d.shape);
  emit_throw_on_host_fail();
  std::vector<uint8_t*> args;
  for (const auto& t : inputs) args.push_back(static_cast<uint8_t*>(const_cast<void*>(t.data())));
  for (auto& t : got) args.push_back(static_cast<uint8_t*>(t.data()));
  const KnownGap* gap = known_gap(c, e.variant);
  try {
    e.run(args.data());
  } catch (const std::runtime_error& err) {
    if (gap && std::string(err.what()).find(gap->message) != std::string::npos) return;
    FAIL() << e.name << ": " << err.what();
  }
  ASSERT_EQ(gap, nullptr) << e.name
                          << " is listed as a known gap but runs: remove it from the list";
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double atol = c.atol, rtol = c.rtol;
    if (atol < 0 || rtol < 0) default_tolerance(want[i].dtype(), atol, rtol);
    EXPECT_EQ(compare(got[i], want[i], atol, rtol), "") << e.name << " output " << i;
  }
}

std::string entry_name(const ::testing::TestParamInfo<EmitEntry>& info) {
  std::string n = std::string(info.param.name) + "_" + info.param.case_name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Registry, EmittedKernel, ::testing::ValuesIn(all_emitted()), entry_name);

// Every tile-kernel op version of the registry has its kernel emitted (the case table has a
// case for every op: registry_selfcheck_test.cpp).
TEST(EmitCoverage, EveryTileKernelOpIsEmitted) {
  std::set<std::string> tile_ops, emitted;
  for (const OpDef* op : global_registry().all())
    if (op->kernel_kind() == KernelKind::kTile && !emission_exempt(*op) && !gap_op(*op))
      tile_ops.insert(op->name() + "-" + std::to_string(op->since));
  for (const EmitEntry& e : all_emitted()) {
    const OpCase* c = e.run ? emitted_case(e) : nullptr;
    if (!c) continue;
    const OpDef& op = global_registry().lookup(c->domain, c->op, c->opset);
    emitted.insert(op.name() + "-" + std::to_string(op.since));
  }
  std::string missing;
  for (const auto& name : tile_ops)
    if (!emitted.count(name)) missing += " " + name;
  EXPECT_EQ(missing, "") << emitted.size() << " of " << tile_ops.size()
                         << " tile-kernel op versions emitted";
  std::printf("emission coverage: %zu of %zu tile-kernel op versions\n", emitted.size(),
              tile_ops.size());
}

}  // namespace
}  // namespace asc::test
