// The mutation test of the emulator's race checker (docs/ASCENDC.md, "Mutation test"): every
// synchronisation point of a clean emitted kernel — a line of it holding SetFlag/WaitFlag,
// PipeBarrier, a cross-core flag or a queue's EnQue/DeQue — is left out in turn and the kernel
// runs again. A removal that changes a result must be reported (a race, or the emulator stopping
// the kernel: a deadlock, a refused call); one that changes nothing and reports nothing is
// redundant. ASC_MUTATION_STRIDE=k takes every k-th emitted kernel (default 32; 1: all of them).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "ascend/emit_check.h"

namespace asc::test {
namespace {

struct Counts {
  int tried = 0, races = 0, stopped = 0, redundant = 0, missed = 0;
};

std::mutex g_mu;
std::map<std::string, Counts> g_by_call;  // per kind of sync call

// What a line of emitted code synchronises with: "SetFlag/WaitFlag<V_MTE2>", "PipeBarrier<PIPE_M>",
// "TQue::EnQue", ... (the line read back from the emitted file).
std::string call_kind(const std::string& file, int line) {
  static std::map<std::string, std::vector<std::string>> files;
  std::lock_guard<std::mutex> lock(g_mu);
  auto& lines = files[file];
  if (lines.empty()) {
    std::ifstream in(file);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  if (line < 1 || line > static_cast<int>(lines.size())) return "unknown";
  const std::string& l = lines[static_cast<size_t>(line - 1)];
  const auto after = [&](const std::string& key, char end) {
    const size_t a = l.find(key);
    if (a == std::string::npos) return std::string();
    return l.substr(a + key.size(), l.find(end, a + key.size()) - a - key.size());
  };
  if (l.find("SetFlag<AscendC::HardEvent::") != std::string::npos)
    return "SetFlag/WaitFlag<" + after("HardEvent::", '>') + ">";
  if (l.find("PipeBarrier<") != std::string::npos) return "PipeBarrier<" + after("<", '>') + ">";
  if (l.find("CrossCoreSetFlag") != std::string::npos) return "CrossCoreSetFlag";
  if (l.find("CrossCoreWaitFlag") != std::string::npos) return "CrossCoreWaitFlag";
  if (l.find("EnQue") != std::string::npos) return "TQue::EnQue";
  if (l.find("DeQue") != std::string::npos) return "TQue::DeQue";
  return "other";
}

int stride() {
  const char* s = std::getenv("ASC_MUTATION_STRIDE");
  return s && std::atoi(s) > 0 ? std::atoi(s) : 32;
}

std::vector<EmitEntry> sampled() {
  std::vector<EmitEntry> v;
  const auto& all = all_emitted();
  for (size_t i = 0; i < all.size(); i += static_cast<size_t>(stride())) v.push_back(all[i]);
  return v;
}

class SyncRemoval : public ::testing::TestWithParam<EmitEntry> {};

TEST_P(SyncRemoval, EveryRemovalThatChangesAResultIsReported) {
  const EmitEntry& e = GetParam();
  const OpCase* c = emitted_case(e);
  if (!e.run || !c || listed(e)) return;  // not emitted, or not clean: nothing to mutate
  const std::vector<Tensor> want = cpu_outputs(e, *c);
  std::set<std::pair<std::string, int>> sites;
  EmitRunOptions rec;
  rec.sync_sites = &sites;
  ASSERT_EQ(run_on_emulator(e, *c, want, rec).how, "") << e.name << " does not run clean";
  for (const auto& [file, line] : sites) {
    if (file.find("ascend_emitted") == std::string::npos) continue;  // inside the emulator's APIs
    EmitRunOptions drop;
    drop.drop_file = file.c_str();
    drop.drop_line = line;
    const Outcome o = run_on_emulator(e, *c, want, drop);
    const std::string kind = call_kind(file, line);
    std::lock_guard<std::mutex> lock(g_mu);
    Counts& n = g_by_call[kind];
    ++n.tried;
    if (o.how == "race")
      ++n.races;
    else if (o.how == "refused")
      ++n.stopped;
    else if (o.how.empty())
      ++n.redundant;
    else
      ++n.missed;
    EXPECT_NE(o.how, "values") << e.name << ": leaving out " << kind << " (" << file << ":" << line
                               << ") changes a result and nothing reports it: " << o.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, SyncRemoval, ::testing::ValuesIn(sampled()),
                         [](const auto& info) { return test_name(info.param); });

// The totals of this process (of its shard when sharded), per kind of sync call.
class Report : public ::testing::Environment {
 public:
  void TearDown() override {
    Counts t;
    for (const auto& [kind, n] : g_by_call) {
      t.tried += n.tried, t.races += n.races, t.stopped += n.stopped;
      t.redundant += n.redundant, t.missed += n.missed;
    }
    if (t.tried == 0) return;
    std::printf(
        "mutation test (every %d-th kernel): %d removals, %d races, %d stopped (deadlock or "
        "refusal), %d redundant, %d unreported result changes\n",
        stride(), t.tried, t.races, t.stopped, t.redundant, t.missed);
    for (const auto& [kind, n] : g_by_call)
      std::printf("  %-28s %6d removals %6d races %5d stopped %6d redundant\n", kind.c_str(),
                  n.tried, n.races, n.stopped, n.redundant);
  }
};
const auto* const kReport = ::testing::AddGlobalTestEnvironment(new Report);

}  // namespace
}  // namespace asc::test
