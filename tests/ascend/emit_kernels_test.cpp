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

#include "ascend/emit_entry.h"
#include "ascend/emit_spec.h"
#include "ops/op_cases.h"
#include "ops/ops.h"
#include "runtime/devices/cpu/cpu_device.h"
#include "runtime/op_runner.h"

namespace asc::test {

const std::vector<EmitEntry>& all_emitted();
void* emit_gm_alloc(size_t bytes);
void emit_gm_free(void* p);

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

// Kernels that do not run clean on the emulator yet, by case name and variant, with how they
// fail: "emission" (the emitter refuses the program), "refused" (the emulator refuses a call),
// "race" (a race between pipes or cores), "values" (a result differs from the cpu device).
// ASC_EMIT_GAPS_WRITE=FILE appends every failing kernel's line to FILE (to rewrite the list).
const std::map<std::string, std::string>& listed_gaps() {
  static const std::map<std::string, std::string> gaps = [] {
    std::map<std::string, std::string> m;
    std::ifstream in(ASC_EMIT_GAPS_FILE);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream f(line);
      std::string name, variant, how;
      f >> name >> variant >> how;
      m[name + " " + variant] = how;
    }
    return m;
  }();
  return gaps;
}

struct Outcome {
  std::string how;     // "" when the kernel ran clean and matched
  std::string detail;  // the message
};

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

Outcome run_on_emulator(const EmitEntry& e, const OpCase& c) {
  const OpDef& op = global_registry().lookup(c.domain, c.op, c.opset);
  const auto inputs = make_inputs(c);
  OpRunOptions opts;
  opts.spec = emit_spec(e.variant);
  opts.num_outputs = c.num_outputs;
  const auto want = run_op(op, c.attrs, inputs, device(), opts);
  const auto out_desc = infer_outputs(op, op.resolve(c.attrs), inputs, c.num_outputs);
  std::vector<Tensor> got;
  for (const auto& d : out_desc) got.emplace_back(d.dtype, d.shape);
  // Every argument in its own GM block (at least 32 bytes), inputs copied in.
  std::vector<uint8_t*> args;
  std::vector<size_t> sizes;
  auto add = [&](const Tensor& t, bool copy) {
    const size_t n = t.data() ? t.nbytes() : 0;
    auto* p = static_cast<uint8_t*>(emit_gm_alloc(std::max<size_t>(n, 32)));
    if (copy && n) std::memcpy(p, t.data(), n);
    args.push_back(p);
    sizes.push_back(n);
  };
  for (const auto& t : inputs) add(t, true);
  for (const auto& t : got) add(t, false);
  Outcome o;
  std::vector<std::string> races;
  try {
    e.run(args.data(), true, &races);  // as bisheng --cce-auto-sync=on builds them
    if (!races.empty()) o = {"race", races.front()};
  } catch (const std::exception& err) {
    o = {"refused", err.what()};
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (sizes[inputs.size() + i])
      std::memcpy(got[i].data(), args[inputs.size() + i], sizes[inputs.size() + i]);
  for (uint8_t* p : args) emit_gm_free(p);
  if (!o.how.empty()) return o;
  if (got.size() != want.size()) return {"values", "output count differs"};
  for (size_t i = 0; i < got.size(); ++i) {
    double atol = c.atol, rtol = c.rtol;
    if (atol < 0 || rtol < 0) default_tolerance(want[i].dtype(), atol, rtol);
    const std::string diff = compare(got[i], want[i], atol, rtol);
    if (!diff.empty()) return {"values", "output " + std::to_string(i) + ": " + diff};
  }
  return o;
}

class EmittedKernel : public ::testing::TestWithParam<EmitEntry> {};

TEST_P(EmittedKernel, RunsCleanOnTheEmulatorAndMatchesCpuDevice) {
  const EmitEntry& e = GetParam();
  const OpCase* found = emitted_case(e);
  if (found && !e.run) {  // not emitted: an op-wide known gap with its message
    const KnownGap* gap = known_gap(*found, e.variant);
    if (gap && std::string(e.error).find(gap->message) != std::string::npos) return;
  }
  if (!found)
    GTEST_SKIP() << e.case_name << " is not a case of this process (its GEMM packing differs)";
  SCOPED_TRACE(found->name() + " variant " + std::to_string(e.variant));
  const Outcome o = e.run ? run_on_emulator(e, *found) : Outcome{"emission", e.error};
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

std::string entry_name(const ::testing::TestParamInfo<EmitEntry>& info) {
  std::string n = std::string(info.param.name) + "_" + info.param.case_name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Registry, EmittedKernel, ::testing::ValuesIn(all_emitted()), entry_name);

// Every tile-kernel op version of the registry has its kernel emitted, or its emission listed as
// a gap (the case table has a case for every op: registry_selfcheck_test.cpp).
TEST(EmitCoverage, EveryTileKernelOpIsEmitted) {
  std::set<std::string> tile_ops, covered, clean;
  for (const OpDef* op : global_registry().all())
    if (op->kernel_kind() == KernelKind::kTile && !emission_exempt(*op) && !gap_op(*op))
      tile_ops.insert(op->name() + "-" + std::to_string(op->since));
  size_t kernels = 0, clean_kernels = 0;
  for (const EmitEntry& e : all_emitted()) {
    const OpCase* c = emitted_case(e);
    if (!c) continue;
    const OpDef& op = global_registry().lookup(c->domain, c->op, c->opset);
    const std::string name = op.name() + "-" + std::to_string(op.since);
    if (!tile_ops.count(name)) continue;
    const bool listed =
        listed_gaps().count(std::string(e.case_name) + " " + std::to_string(e.variant)) > 0;
    ++kernels;
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
      "kernels, at least one kernel of %zu op versions\n",
      covered.size(), tile_ops.size(), clean_kernels, kernels, clean.size());
}

}  // namespace
}  // namespace asc::test
