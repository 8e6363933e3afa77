#include "tools/run_sim.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "registry/strings.h"

namespace asc {
namespace {

constexpr Pipe kPipes[] = {Pipe::kMte2,   Pipe::kMte1, Pipe::kMte3,
                           Pipe::kVector, Pipe::kCube, Pipe::kScalar};

double pipe_share(const SimOpTotal& t, Pipe p) {
  return t.core_cycles > 0 ? t.predicted.busy[static_cast<int>(p)] / t.core_cycles : 0.0;
}

}  // namespace

std::vector<std::pair<std::string, SimOpTotal>> sim_profile_ops(const Graph& g,
                                                                const RunStats& stats) {
  std::map<std::string, SimOpTotal> by_op;
  for (const auto& s : stats.steps) {
    if (!s.cost.valid || s.cost.view) continue;
    SimOpTotal& t = by_op[g.nodes[static_cast<size_t>(s.node)].op_type];
    ++t.calls;
    t.host_ms += std::chrono::duration<double, std::milli>(s.end - s.start).count();
    t.predicted.add(s.cost);
    t.core_cycles += s.cost.cycles * static_cast<double>(s.cost.cores);
    t.host_kernel = t.host_kernel || s.cost.host;
  }
  std::vector<std::pair<std::string, SimOpTotal>> rows(by_op.begin(), by_op.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.predicted.cycles > b.second.predicted.cycles;
  });
  return rows;
}

CostTotals sim_totals(const RunStats& stats) {
  CostTotals t;
  for (const auto& s : stats.steps) t.add(s.cost);
  return t;
}

std::string sim_profile_table(const std::vector<std::pair<std::string, SimOpTotal>>& rows,
                              const Predictor& dev, const std::string& title, double per) {
  if (per <= 0) per = 1;
  const double hz = dev.clock_hz();
  double total = 0, host_total = 0;
  for (const auto& [op, t] : rows) {
    total += t.predicted.cycles;
    host_total += t.host_ms;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "\n%-24s %7s %10s %11s %6s  %5s %5s %5s %5s %5s %5s  %6s   (%s; %s predicted, "
                "pipes %% busy per active core)\n",
                "op", "calls", "host ms", "pred us", "share", "MTE2", "MTE1", "MTE3", "Vec", "Cube",
                "Scal", "cube%", title.c_str(), dev.name().c_str());
  std::string s = buf;
  for (const auto& [op, t] : rows) {
    std::string pipes;
    for (Pipe p : kPipes) {
      std::snprintf(buf, sizeof buf, " %5.1f", 100.0 * pipe_share(t, p));
      pipes += t.host_kernel && t.core_cycles <= 0 ? std::string("     -") : std::string(buf);
    }
    std::snprintf(buf, sizeof buf, "%-24s %7.6g %10.3f %11.2f %5.1f%% %s  %5.1f%%%s\n", op.c_str(),
                  static_cast<double>(t.calls) / per, t.host_ms / per,
                  1e6 * t.predicted.seconds(hz) / per,
                  total > 0 ? 100.0 * t.predicted.cycles / total : 0.0, pipes.c_str(),
                  100.0 * t.predicted.cube_utilization(dev.spec()),
                  t.host_kernel ? "  (host kernel: HBM-bound)" : "");
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "%-24s %7s %10.3f %11.2f\n", "total", "", host_total / per,
                1e6 * total / hz / per);
  return s + buf;
}

nlohmann::json sim_profile_json(const std::vector<std::pair<std::string, SimOpTotal>>& rows,
                                const Predictor& dev, double per) {
  if (per <= 0) per = 1;
  nlohmann::json a = nlohmann::json::array();
  for (const auto& [op, t] : rows) {
    nlohmann::json util;
    for (Pipe p : kPipes) util[std::string(pipe_name(p))] = pipe_share(t, p);
    a.push_back({{"op", op},
                 {"calls", static_cast<double>(t.calls) / per},
                 {"host_ms", t.host_ms / per},
                 {"predicted_us", 1e6 * t.predicted.seconds(dev.clock_hz()) / per},
                 {"pipe_utilization", util},
                 {"cube_utilization", t.predicted.cube_utilization(dev.spec())},
                 {"host_kernel", t.host_kernel}});
  }
  return a;
}

void sim_trace_events(nlohmann::json& events, const Graph& g, const RunStats& stats,
                      const Predictor& dev) {
  constexpr int kPid = 2;
  const double us_per_cycle = 1e6 / dev.clock_hz();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", kPid},
                    {"args", {{"name", cat(dev.name(), " predicted")}}}});
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", kPid},
                    {"tid", 1},
                    {"args", {{"name", "kernels"}}}});
  for (int q = 0; q < kPipeCount; ++q)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", kPid},
                      {"tid", q + 2},
                      {"args", {{"name", std::string(pipe_name(kPipes[q]))}}}});
  double t = 0;  // predicted us since the first kernel
  for (const auto& s : stats.steps) {
    if (!s.cost.valid || s.cost.view) continue;
    const Node& n = g.nodes[static_cast<size_t>(s.node)];
    const double dur = s.cost.total_cycles() * us_per_cycle;
    nlohmann::json args = {{"node", n.label()},
                           {"cores", s.cost.cores},
                           {"launch_us", s.cost.launch_cycles * us_per_cycle},
                           {"cube_utilization", s.cost.cube_utilization(dev.spec())}};
    if (s.cost.host) args["host_kernel"] = true;
    events.push_back({{"name", n.op_type},
                      {"cat", "predicted"},
                      {"ph", "X"},
                      {"ts", t},
                      {"dur", dur},
                      {"pid", kPid},
                      {"tid", 1},
                      {"args", args}});
    const double start = t + s.cost.launch_cycles * us_per_cycle;
    for (int q = 0; q < kPipeCount; ++q) {
      const double busy = s.cost.busy[q] / static_cast<double>(std::max<int64_t>(1, s.cost.cores));
      if (busy <= 0) continue;
      events.push_back(
          {{"name", n.op_type},
           {"cat", "pipe"},
           {"ph", "X"},
           {"ts", start},
           {"dur", busy * us_per_cycle},
           {"pid", kPid},
           {"tid", q + 2},
           {"args", {{"node", n.label()}, {"utilization", s.cost.utilization(kPipes[q])}}}});
    }
    t += dur;
  }
}

}  // namespace asc
