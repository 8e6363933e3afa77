// The emitted Ascend C kernel of every tile-kernel op case (built by asc-emit-gen, compiled with
// g++ against the Ascend C emulator) run there on the case's inputs, its pipes checked for races,
// and compared with the cpu device running the same planned program (same spec), at the op tests'
// tolerance. Kernels that do not run clean yet are listed in emit_gaps.txt with how they fail.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ascend/emit_check.h"
#include "ascend/emit_spec.h"
#include "ops/op_cases.h"
#include "ops/ops.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {

namespace {

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

// Every case of the op is a known gap (an entry "Op/").
bool gap_op(const OpDef& op) {
  for (const KnownGap& g : kKnownGaps)
    if (op.domain.empty() && std::string(g.case_name) == op.type + "/") return true;
  return false;
}

// Each line ends with the message after a tab, which the list's reader ignores (cut -f1 drops it).
void record_gap(const EmitEntry& e, const Outcome& o) {
  const char* path = std::getenv("ASC_EMIT_GAPS_WRITE");
  if (!path || o.how.empty()) return;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::string detail = o.detail.substr(0, 300);
  for (char& ch : detail)
    if (ch == '\n' || ch == '\t') ch = ' ';
  std::ofstream(path, std::ios::app)
      << e.case_name << " " << e.variant << " " << o.how << "\t" << detail << "\n";
}

class EmittedKernel : public ::testing::TestWithParam<EmitEntry> {};

TEST_P(EmittedKernel, RunsCleanOnTheEmulatorAndMatchesCpuDevice) {
  const EmitEntry& e = GetParam();
  if (*e.host) {  // the A2 lacks a unit it needs: a device runs it on the host, nothing to emit
    EXPECT_NE(std::string(e.host).find("the Atlas A2 has no"), std::string::npos) << e.host;
    return;
  }
  const OpCase* found = emitted_case(e);
  if (found && !e.run) {  // not emitted: an op-wide known gap with its message
    const KnownGap* gap = known_gap(*found, e.variant);
    if (gap && std::string(e.error).find(gap->message) != std::string::npos) return;
  }
  if (!found)
    GTEST_SKIP() << e.case_name << " is not a case of this process (its GEMM packing differs)";
  SCOPED_TRACE(found->name() + " variant " + std::to_string(e.variant));
  const Outcome o =
      e.run ? run_on_emulator(e, *found, cpu_outputs(e, *found)) : Outcome{"emission", e.error};
  record_gap(e, o);
  const auto it = listed_gaps().find(std::string(e.case_name) + " " + std::to_string(e.variant));
  if (it != listed_gaps().end()) {
    EXPECT_EQ(o.how, it->second) << e.name << " is listed in emit_gaps.txt as '" << it->second
                                 << "' but "
                                 << (o.how.empty() ? "runs clean: remove it from the list"
                                                   : "fails otherwise: " + o.detail);
    return;
  }
  EXPECT_EQ(o.how, "") << e.name << ": " << o.detail;
}

INSTANTIATE_TEST_SUITE_P(Registry, EmittedKernel, ::testing::ValuesIn(all_emitted()),
                         [](const auto& info) { return test_name(info.param); });

// Every tile-kernel op version of the registry has its kernel emitted, or its emission listed as
// a gap (the case table has a case for every op: registry_selfcheck_test.cpp).
TEST(EmitCoverage, EveryTileKernelOpIsEmitted) {
  std::set<std::string> tile_ops, covered, clean;
  for (const OpDef* op : global_registry().all())
    if (op->kernel_kind() == KernelKind::kTile && !emission_exempt(*op) && !gap_op(*op))
      tile_ops.insert(op->name() + "-" + std::to_string(op->since));
  size_t kernels = 0, clean_kernels = 0, on_host = 0;
  for (const EmitEntry& e : all_emitted()) {
    const OpCase* c = emitted_case(e);
    if (!c) continue;
    const OpDef& op = global_registry().lookup(c->domain, c->op, c->opset);
    const std::string name = op.name() + "-" + std::to_string(op.since);
    if (!tile_ops.count(name)) continue;
    const bool listed =
        listed_gaps().count(std::string(e.case_name) + " " + std::to_string(e.variant)) > 0;
    ++kernels;
    if (*e.host) {  // a device runs it on the host: covered, not emitted
      ++on_host;
      covered.insert(name);
      continue;
    }
    if (e.run || listed) covered.insert(name);
    if (e.run && !listed) ++clean_kernels, clean.insert(name);
  }
  std::string missing;
  for (const auto& name : tile_ops)
    if (!covered.count(name)) missing += " " + name;
  EXPECT_EQ(missing, "") << covered.size() << " of " << tile_ops.size()
                         << " tile-kernel op versions emitted or listed";
  std::printf(
      "emission coverage: %zu of %zu tile-kernel op versions; clean on the emulator: %zu of %zu "
      "kernels (%zu on the host: a unit the A2 lacks), at least one kernel of %zu op versions\n",
      covered.size(), tile_ops.size(), clean_kernels, kernels - on_host, on_host, clean.size());
}

}  // namespace
}  // namespace asc::test
