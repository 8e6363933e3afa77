#include "tools/run_profile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

namespace asc {

std::vector<std::pair<std::string, OpTotal>> profile_ops(const Graph& g, const RunStats& stats) {
  std::map<std::string, OpTotal> by_op;
  for (const auto& s : stats.steps) {
    OpTotal& t = by_op[g.nodes[static_cast<size_t>(s.node)].op_type];
    ++t.calls;
    t.ms += std::chrono::duration<double, std::milli>(s.end - s.start).count();
  }
  std::vector<std::pair<std::string, OpTotal>> rows(by_op.begin(), by_op.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
  return rows;
}

std::string profile_table(const std::vector<std::pair<std::string, OpTotal>>& rows,
                          const std::string& title, double per) {
  double total = 0;
  for (const auto& [op, t] : rows) total += t.ms;
  if (per <= 0) per = 1;
  char buf[160];
  std::snprintf(buf, sizeof buf, "\n%-24s %8s %12s %8s   (%s)\n", "op", "calls", "ms", "share",
                title.c_str());
  std::string s = buf;
  for (const auto& [op, t] : rows) {
    std::snprintf(buf, sizeof buf, "%-24s %8.6g %12.3f %7.1f%%\n", op.c_str(),
                  static_cast<double>(t.calls) / per, t.ms / per,
                  total > 0 ? 100.0 * t.ms / total : 0.0);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "%-24s %8s %12.3f\n", "total", "", total / per);
  return s + buf;
}

}  // namespace asc
