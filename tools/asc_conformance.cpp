// asc-conformance: runs ONNX backend-test suites (folders of model.onnx + test_data_set_*) and
// reports like ONNX Runtime's onnx_test_runner. Each case runs in a forked child with a
// wall-clock limit, so a crash or a hang in one case is a "run" failure, never the runner's.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "tools/conformance_case.h"

namespace {

namespace fs = std::filesystem;
using asc::cat;
using asc::conformance::CaseResult;
using asc::conformance::Outcome;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

struct Case {
  std::string suite;  // the suite folder's name: "node", "simple", ...
  std::string name;   // the case folder's name: "test_add"
  fs::path dir;
  std::vector<asc::conformance::OpUse> ops;
  CaseResult result;
  double seconds = 0;
};

struct Options {
  std::vector<std::string> suites;
  bool json = false;
  int threads = 1;
  std::string device = "cpu";
  int jobs = 2;
  std::string filter;
  double timeout_s = 60;
  size_t memory_limit_mb = 8192;
  std::string check_baseline;
  std::string write_baseline;
};

std::string suite_name(const fs::path& dir) {
  fs::path p = dir;
  if (!p.has_filename()) p = p.parent_path();  // "node/" -> "node"
  return p.filename().string();
}

// Every folder holding a model.onnx directly under each suite folder, sorted by name.
std::vector<Case> discover(const Options& o) {
  std::vector<Case> cases;
  for (const auto& s : o.suites) {
    std::vector<Case> in_suite;
    for (const auto& e : fs::directory_iterator(s)) {
      if (!e.is_directory() || !fs::exists(e.path() / "model.onnx")) continue;
      Case c{suite_name(s), e.path().filename().string(), e.path(), {}, {}, 0};
      if (!o.filter.empty() && cat(c.suite, "/", c.name).find(o.filter) == std::string::npos)
        continue;
      in_suite.push_back(std::move(c));
    }
    std::sort(in_suite.begin(), in_suite.end(),
              [](const Case& a, const Case& b) { return a.name < b.name; });
    for (auto& c : in_suite) cases.push_back(std::move(c));
  }
  return cases;
}

json result_to_json(const CaseResult& r) {
  return {{"outcome", std::string(outcome_name(r.outcome))},
          {"reason", r.reason},
          {"max_abs_err", r.max_abs_err},
          {"data_sets", r.data_sets}};
}

// The child's side: run the case, write its result as JSON to `fd`, exit without cleanup.
[[noreturn]] void child_main(const Case& c, const Options& o, int fd) {
  if (o.memory_limit_mb > 0) {
    const rlim_t bytes = static_cast<rlim_t>(o.memory_limit_mb) << 20;
    const rlimit lim{bytes, bytes};
    setrlimit(RLIMIT_AS, &lim);
  }
  const int null_fd = ::open("/dev/null", O_WRONLY);  // keep kernels' logs out of the report
  if (null_fd >= 0) {
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
  }
  std::string out;
  try {
    asc::ModelOptions mo;
    mo.threads = o.threads;
    mo.device = o.device;
    out = result_to_json(asc::conformance::run_case(c.dir, mo)).dump();
  } catch (...) {
    out = R"({"outcome":"run","reason":"cannot report the result"})";
  }
  for (size_t done = 0; done < out.size();) {
    const ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  _exit(0);
}

// How a child ended, from its wait status and what it wrote.
CaseResult child_result(int status, const std::string& text) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return {Outcome::kRun, cat("crashed: signal ", sig, " (", strsignal(sig), ")"), 0, 0};
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return {Outcome::kRun, cat("crashed: exit code ", WEXITSTATUS(status)), 0, 0};
  try {
    const json j = json::parse(text);
    return {asc::conformance::outcome_from_name(j.at("outcome").get<std::string>()),
            j.at("reason").get<std::string>(), j.value("max_abs_err", 0.0),
            j.value("data_sets", 0)};
  } catch (const std::exception& e) {
    return {Outcome::kRun, cat("crashed: unreadable result (", e.what(), ")"), 0, 0};
  }
}

struct Child {
  size_t index;  // into the case list
  pid_t pid;
  int fd;  // read end of the result pipe; -1 after EOF
  Clock::time_point start, deadline;
  std::string text;
};

// Runs every case in forked children, at most `o.jobs` at a time.
void run_all(std::vector<Case>& cases, const Options& o) {
  const bool progress = isatty(STDERR_FILENO) != 0;
  const auto limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.timeout_s));
  std::vector<Child> running;
  size_t next = 0, finished = 0;
  auto finish = [&](Child& ch, const CaseResult& r) {
    Case& c = cases[ch.index];
    c.result = r;
    c.seconds = std::chrono::duration<double>(Clock::now() - ch.start).count();
    if (ch.fd >= 0) close(ch.fd);
    ch.pid = -1;
    if (progress)
      std::fprintf(stderr, "\r[%zu/%zu] %-60.60s", ++finished, cases.size(),
                   cat(c.suite, "/", c.name).c_str());
  };
  while (next < cases.size() || !running.empty()) {
    while (next < cases.size() && running.size() < static_cast<size_t>(o.jobs)) {
      int fds[2];
      if (pipe(fds) != 0) throw asc::Error(cat("pipe: ", std::strerror(errno)));
      std::fflush(nullptr);
      const pid_t pid = fork();
      if (pid < 0) throw asc::Error(cat("fork: ", std::strerror(errno)));
      if (pid == 0) {
        close(fds[0]);
        child_main(cases[next], o, fds[1]);
      }
      close(fds[1]);
      const auto now = Clock::now();
      running.push_back({next++, pid, fds[0], now, now + limit, {}});
    }
    // Wait for output, an exit or the nearest deadline.
    std::vector<pollfd> pfds;
    auto wake = running.front().deadline;
    bool reaping = false;
    for (const auto& ch : running) {
      wake = std::min(wake, ch.deadline);
      if (ch.fd >= 0)
        pfds.push_back({ch.fd, POLLIN, 0});
      else
        reaping = true;
    }
    auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
    int timeout = static_cast<int>(std::clamp<int64_t>(wait_ms.count() + 1, 0, 1000));
    if (reaping) timeout = std::min(timeout, 5);
    poll(pfds.data(), pfds.size(), timeout);
    for (auto& ch : running) {
      if (ch.fd >= 0) {
        pollfd p{ch.fd, POLLIN, 0};
        if (poll(&p, 1, 0) > 0) {
          char buf[4096];
          const ssize_t n = read(ch.fd, buf, sizeof buf);
          if (n > 0) {
            ch.text.append(buf, static_cast<size_t>(n));
          } else if (n == 0 || errno != EINTR) {
            close(ch.fd);
            ch.fd = -1;
          }
        }
      }
      int status = 0;
      if (ch.fd < 0 && waitpid(ch.pid, &status, WNOHANG) == ch.pid) {
        finish(ch, child_result(status, ch.text));
      } else if (Clock::now() >= ch.deadline) {
        kill(ch.pid, SIGKILL);
        waitpid(ch.pid, &status, 0);
        char limit_s[32];
        std::snprintf(limit_s, sizeof limit_s, "%g", o.timeout_s);
        finish(ch, {Outcome::kRun, cat("timed out after ", limit_s, " s"), 0, 0});
      }
    }
    std::erase_if(running, [](const Child& ch) { return ch.pid < 0; });
  }
  if (progress) std::fprintf(stderr, "\r%-80s\r", "");
}

struct Counts {
  int total = 0;
  std::map<Outcome, int> by;
  int failed() const { return total - get(Outcome::kPassed) - get(Outcome::kNotImplemented); }
  int get(Outcome o) const {
    auto it = by.find(o);
    return it == by.end() ? 0 : it->second;
  }
  void add(Outcome o) {
    ++total;
    ++by[o];
  }
  json to_json() const {
    return {{"total", total},
            {"passed", get(Outcome::kPassed)},
            {"not_implemented", get(Outcome::kNotImplemented)},
            {"failed", failed()},
            {"failed_by_reason",
             {{"load", get(Outcome::kLoad)},
              {"run", get(Outcome::kRun)},
              {"result", get(Outcome::kResult)}}}};
  }
};

struct OpStats {
  bool implemented = false;  // the registry holds some version of it
  int cases = 0, passed = 0;
  int blocking = 0;  // cases where it is the only op asc lacks
};

struct Report {
  std::vector<std::string> suite_order;
  std::map<std::string, Counts> suites;
  Counts all;
  std::map<std::string, OpStats> ops;
};

Report summarise(const std::vector<Case>& cases) {
  Report r;
  const asc::Registry& reg = asc::global_registry();
  for (const auto& c : cases) {
    if (!r.suites.count(c.suite)) r.suite_order.push_back(c.suite);
    r.suites[c.suite].add(c.result.outcome);
    r.all.add(c.result.outcome);
    std::vector<std::string> missing;
    for (const auto& op : c.ops) {
      OpStats& s = r.ops[op.label()];
      s.implemented = op.type == "Constant" || !reg.versions(op.domain, op.type).empty();
      ++s.cases;
      if (c.result.outcome == Outcome::kPassed) ++s.passed;
      if (!s.implemented) missing.push_back(op.label());
    }
    if (missing.size() == 1) ++r.ops[missing[0]].blocking;
  }
  return r;
}

// Op types asc lacks, most-used first.
std::vector<std::pair<std::string, OpStats>> unsupported_ops(const Report& r) {
  std::vector<std::pair<std::string, OpStats>> v;
  for (const auto& [name, s] : r.ops)
    if (!s.implemented) v.emplace_back(name, s);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.second.cases != b.second.cases ? a.second.cases > b.second.cases
                                            : a.second.blocking > b.second.blocking;
  });
  return v;
}

void print_text(const std::vector<Case>& cases, const Report& r, double seconds, const Options& o) {
  std::printf("asc-conformance: %d cases in %zu suites, %.1f s (%d jobs)\n\n", r.all.total,
              r.suites.size(), seconds, o.jobs);
  std::printf("%-20s %6s %9s %9s %6s %6s %7s\n", "suite", "total", "succeeded", "not impl", "load",
              "run", "result");
  auto row = [](const std::string& name, const Counts& c) {
    std::printf("%-20s %6d %9d %9d %6d %6d %7d\n", name.c_str(), c.total, c.get(Outcome::kPassed),
                c.get(Outcome::kNotImplemented), c.get(Outcome::kLoad), c.get(Outcome::kRun),
                c.get(Outcome::kResult));
  };
  for (const auto& s : r.suite_order) row(s, r.suites.at(s));
  if (r.suites.size() > 1) row("all", r.all);

  std::printf("\nStats by op type (cases using it / passed):\n");
  for (const auto& [name, s] : r.ops)
    if (s.implemented) std::printf("  %-28s %5d %5d\n", name.c_str(), s.cases, s.passed);
  std::printf("\nOp types asc lacks (cases using it / cases where it is the only one missing):\n");
  for (const auto& [name, s] : unsupported_ops(r))
    std::printf("  %-28s %5d %5d\n", name.c_str(), s.cases, s.blocking);

  std::printf("\nFailed tests (%d):\n", r.all.failed());
  for (const auto& c : cases) {
    const Outcome oc = c.result.outcome;
    if (oc == Outcome::kPassed || oc == Outcome::kNotImplemented) continue;
    std::string reason = c.result.reason;
    if (reason.size() > 300) reason = reason.substr(0, 297) + "...";
    std::printf("  %s/%s: %s: %s\n", c.suite.c_str(), c.name.c_str(),
                std::string(outcome_name(oc)).c_str(), reason.c_str());
  }
}

json to_json(const std::vector<Case>& cases, const Report& r, double seconds) {
  json j;
  j["seconds"] = seconds;
  j["total"] = r.all.to_json();
  j["suites"] = json::object();
  for (const auto& s : r.suite_order) j["suites"][s] = r.suites.at(s).to_json();
  j["op_types"] = json::array();
  for (const auto& [name, s] : r.ops)
    j["op_types"].push_back({{"op", name},
                             {"implemented", s.implemented},
                             {"cases", s.cases},
                             {"passed", s.passed},
                             {"only_missing_op_in", s.blocking}});
  j["failed"] = json::array();
  j["not_implemented"] = json::array();
  j["passed"] = json::array();
  for (const auto& c : cases) {
    const std::string id = cat(c.suite, "/", c.name);
    switch (c.result.outcome) {
      case Outcome::kPassed:
        j["passed"].push_back(id);
        break;
      case Outcome::kNotImplemented:
        j["not_implemented"].push_back({{"test", id}, {"reason", c.result.reason}});
        break;
      default:
        j["failed"].push_back({{"test", id},
                               {"reason", std::string(outcome_name(c.result.outcome))},
                               {"message", c.result.reason},
                               {"max_abs_err", c.result.max_abs_err},
                               {"seconds", c.seconds}});
    }
  }
  return j;
}

// Baseline file: {"suites": {"node": <passing cases>, ...}}. Returns false (and says which on
// stderr) when a suite that was run passes fewer cases than its baseline.
bool check_baseline(const Report& r, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw asc::Error(cat("cannot open baseline '", path, "'"));
  const json base = json::parse(in);
  bool ok = true;
  for (const auto& [suite, want] : base.at("suites").items()) {
    auto it = r.suites.find(suite);
    if (it == r.suites.end()) continue;
    const int got = it->second.get(Outcome::kPassed);
    const int need = want.get<int>();
    if (got < need) {
      std::fprintf(stderr, "conformance: suite '%s' dropped: %d pass, baseline %d\n", suite.c_str(),
                   got, need);
      ok = false;
    } else if (got > need) {
      std::fprintf(stderr,
                   "conformance: suite '%s': %d pass, above its baseline %d (raise it with "
                   "--write-baseline)\n",
                   suite.c_str(), got, need);
    }
  }
  return ok;
}

void write_baseline(const Report& r, const std::string& path) {
  json j;
  j["about"] =
      "Passing ONNX backend-test cases per suite; CI fails below these. Raise with "
      "asc-conformance --write-baseline.";
  j["suites"] = json::object();
  for (const auto& s : r.suite_order) j["suites"][s] = r.suites.at(s).get(Outcome::kPassed);
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (!out) throw asc::Error(cat("cannot write baseline '", path, "'"));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs ONNX backend-test suites (model.onnx + test_data_set_*) and reports"};
  Options o;
  app.add_option("suites", o.suites, "Suite folders holding one folder per case")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_flag("--json", o.json, "Print one JSON object instead of the text report");
  app.add_option("--threads", o.threads, "Threads per model run")->check(CLI::Range(1, 256));
  app.add_option("--device", o.device,
                 "Device the models run on: cpu, sim:910b, ascend-emu (emitted Ascend C on the "
                 "emulator; raise --timeout-s for the first compiles) or ascend");
  app.add_option("--jobs,-j", o.jobs, "Cases run at once (one child process each)")
      ->check(CLI::Range(1, 256));
  app.add_option("--filter", o.filter, "Run only cases whose suite/name contains this");
  app.add_option("--timeout-s", o.timeout_s, "Wall-clock limit per case, seconds")
      ->check(CLI::Range(0.01, 86400.0));
  app.add_option("--memory-limit-mb", o.memory_limit_mb,
                 "Address-space limit per case in MiB (0: none)");
  app.add_option("--check-baseline", o.check_baseline,
                 "Exit 1 if a suite passes fewer cases than this baseline file says")
      ->check(CLI::ExistingFile);
  app.add_option("--write-baseline", o.write_baseline, "Write the passing counts as a baseline");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help exits 0, a usage error 2
  }
  if (!o.filter.empty() && (!o.check_baseline.empty() || !o.write_baseline.empty())) {
    std::fprintf(stderr, "asc-conformance: --filter cannot be combined with a baseline\n");
    return 2;
  }
#if defined(__SANITIZE_ADDRESS__)
  o.memory_limit_mb = 0;  // ASan reserves terabytes of address space
#endif
  try {
    const auto start = Clock::now();
    std::vector<Case> cases = discover(o);
    asc::global_registry();  // built once here, inherited by every child
    for (auto& c : cases) {
      try {
        c.ops = asc::conformance::read_op_uses(c.dir / "model.onnx");
      } catch (const std::exception&) {
        // No op statistics for this case; the child reports why the model does not load.
      }
    }
    run_all(cases, o);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const Report r = summarise(cases);
    if (o.json)
      std::cout << to_json(cases, r, seconds).dump(2) << "\n";
    else
      print_text(cases, r, seconds, o);
    std::fflush(stdout);
    if (!o.write_baseline.empty()) write_baseline(r, o.write_baseline);
    if (!o.check_baseline.empty() && !check_baseline(r, o.check_baseline)) return 1;
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asc-conformance: %s\n", e.what());
    return 1;
  }
}
