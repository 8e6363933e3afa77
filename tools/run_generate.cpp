#include "tools/run_generate.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <stdexcept>

#include <sys/resource.h>

#include "registry/error.h"
#include "registry/strings.h"
#include "tools/run_profile.h"
#include "tools/run_sim.h"

namespace asc {
namespace {

struct Spread {
  double mean = 0, sd = 0;
};

Spread spread(const std::vector<double>& v) {
  Spread s;
  if (v.empty()) return s;
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  for (double x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(s.sd / static_cast<double>(v.size() - 1)) : 0.0;
  return s;
}

int64_t graph_vocab(const Graph& g) {
  for (int v : g.outputs)
    if (g.values[v].name == "logits") {
      const auto& s = g.values[v].type.shape;
      if (s && s->size() == 3 && (*s)[2].known()) return (*s)[2].value();
    }
  return 0;
}

// Predicted figures of the last repetition on a simulated device.
struct Predicted {
  double prefill_s = 0, decode_s = 0;
  double prefill_tok_s = 0, decode_tok_s = 0;  // decode 0: no decoding step
  double cube = 0, cube_prefill = 0, cube_decode = 0;
};

Predicted predicted(const GenerationStats& st, const Predictor& dev) {
  Predicted p;
  const double hz = dev.clock_hz();
  p.prefill_s = st.predicted_prefill.seconds(hz);
  p.decode_s = st.predicted_decode.seconds(hz);
  if (p.prefill_s > 0) p.prefill_tok_s = static_cast<double>(st.prompt_tokens) / p.prefill_s;
  if (p.decode_s > 0) p.decode_tok_s = static_cast<double>(st.predicted_step_s.size()) / p.decode_s;
  CostTotals all = st.predicted_prefill;
  all.add(st.predicted_decode);
  p.cube = all.cube_utilization(dev.spec());
  p.cube_prefill = st.predicted_prefill.cube_utilization(dev.spec());
  p.cube_decode = st.predicted_decode.cube_utilization(dev.spec());
  return p;
}

}  // namespace

std::vector<int64_t> parse_ids(const std::string& s) {
  std::vector<int64_t> ids;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = std::min(s.find(',', pos), s.size());
    const std::string item = s.substr(pos, comma - pos);
    size_t used = 0;
    int64_t v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || v < 0)
      throw std::invalid_argument(cat("'", item, "' is not a token id"));
    ids.push_back(v);
    pos = comma + 1;
  }
  return ids;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

GenerateReport run_generation(const Model& model, const GenerateArgs& a) {
  if (a.new_tokens < 1) throw Error("--generate needs at least 1 new token");
  GenerateReport r;
  r.prompt = a.prompt_ids;
  if (r.prompt.empty()) {
    const int64_t vocab = graph_vocab(model.graph());
    if (vocab <= 0) throw Error("the logits' vocab size is not known: give --prompt-ids");
    if (a.prompt_len < 1) throw Error("--prompt-len must be positive");
    std::mt19937_64 rng(a.seed);
    std::uniform_int_distribution<int64_t> id(0, vocab - 1);
    for (int64_t i = 0; i < a.prompt_len; ++i) r.prompt.push_back(id(rng));
  }
  GeneratorOptions go;
  go.max_len = a.max_len > 0 ? a.max_len : static_cast<int64_t>(r.prompt.size()) + a.new_tokens;
  go.sampling = a.sampling;
  go.step_timings = a.profile;
  for (int w = 0; w < a.warmup; ++w) Generator(model, go).generate(r.prompt, a.new_tokens);
  for (int rep = 0; rep < std::max(1, a.repetitions); ++rep) {
    Generator gen(model, go);
    r.tokens = gen.generate(r.prompt, a.new_tokens);
    const GenerationStats& st = gen.stats();
    r.last = st;
    r.prefill_tok_s.push_back(1e3 * static_cast<double>(st.prompt_tokens) / st.prefill_ms);
    if (!st.step_ms.empty())
      r.decode_tok_s.push_back(1e3 * static_cast<double>(st.step_ms.size()) /
                               std::accumulate(st.step_ms.begin(), st.step_ms.end(), 0.0));
  }
  return r;
}

std::string generation_table(const GenerateReport& r, const std::string& model_name,
                             const std::string& precision, int threads, const Predictor* sim) {
  std::string s = "tokens ";
  for (int64_t t : r.tokens) s += cat(" ", t);
  s += "\n\n| model | precision | threads | test | t/s |\n|---|---|---:|---:|---:|\n";
  auto row = [&](const std::string& test, const std::vector<double>& v) {
    const Spread sp = spread(v);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f ± %.2f", sp.mean, sp.sd);
    s += cat("| ", model_name, " | ", precision, " | ", threads, " | ", test, " | ",
             v.empty() ? std::string("-") : std::string(buf), " |\n");
  };
  row(cat("pp", r.prompt.size()), r.prefill_tok_s);
  row(cat("tg", r.tokens.size() > 0 ? r.tokens.size() - 1 : 0), r.decode_tok_s);
  if (sim) {
    const Predicted p = predicted(r.last, *sim);
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "\npredicted on %s: pp%zu %.2f t/s (%.3f ms), tg%zu %.2f t/s (%.3f ms per "
                  "token); cube utilisation %.1f %% (prefill %.1f %%, decode %.1f %%)\n",
                  sim->name().c_str(), r.prompt.size(), p.prefill_tok_s, 1e3 * p.prefill_s,
                  r.last.predicted_step_s.size(), p.decode_tok_s,
                  r.last.predicted_step_s.empty()
                      ? 0.0
                      : 1e3 * p.decode_s / static_cast<double>(r.last.predicted_step_s.size()),
                  100 * p.cube, 100 * p.cube_prefill, 100 * p.cube_decode);
    s += buf;
  }
  return s;
}

std::string generation_profile(const GenerateReport& r, const Graph& g, const Predictor* sim) {
  const auto steps = static_cast<double>(r.last.step_ms.size());
  const std::string prefill = cat("prefill of ", r.last.prompt_tokens, " tokens, ms");
  const std::string decode = cat("decode, ms per token over ", r.last.step_ms.size(), " tokens");
  std::string s = profile_table(profile_ops(g, r.last.prefill_steps), prefill, 1);
  if (sim) s += sim_profile_table(sim_profile_ops(g, r.last.prefill_steps), *sim, prefill, 1);
  if (steps > 0) {
    s += profile_table(profile_ops(g, r.last.decode_steps), decode, steps);
    if (sim) s += sim_profile_table(sim_profile_ops(g, r.last.decode_steps), *sim, decode, steps);
  }
  return s;
}

std::string generation_json(const GenerateReport& r, const std::string& model, double load_ms,
                            const std::string& precision, int threads, const Graph* profile_graph,
                            const Predictor* sim) {
  nlohmann::json j;
  j["model"] = model;
  j["precision"] = precision;
  j["threads"] = threads;
  j["load_ms"] = load_ms;
  j["prompt_tokens"] = r.prompt.size();
  j["prompt"] = r.prompt;
  j["tokens"] = r.tokens;
  j["prefill_tok_s"] = spread(r.prefill_tok_s).mean;
  j["decode_tok_s"] = r.decode_tok_s.empty() ? nlohmann::json(nullptr)
                                             : nlohmann::json(spread(r.decode_tok_s).mean);
  j["repetitions"] = r.prefill_tok_s.size();
  j["peak_rss_mb"] = peak_rss_mb();
  if (sim) {
    const Predicted p = predicted(r.last, *sim);
    j["device"] = sim->name();
    j["predicted_prefill_ms"] = 1e3 * p.prefill_s;
    j["predicted_prefill_tok_s"] = p.prefill_tok_s;
    j["predicted_decode_tok_s"] =
        p.decode_s > 0 ? nlohmann::json(p.decode_tok_s) : nlohmann::json(nullptr);
    j["cube_utilization"] = p.cube;
    j["cube_utilization_prefill"] = p.cube_prefill;
    j["cube_utilization_decode"] = p.cube_decode;
  }
  if (profile_graph) {
    auto rows = [&](const RunStats& st, double per) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& [op, t] : profile_ops(*profile_graph, st))
        a.push_back({{"op", op}, {"calls", t.calls / per}, {"ms", t.ms / per}});
      return a;
    };
    const auto steps = static_cast<double>(std::max<size_t>(1, r.last.step_ms.size()));
    j["profile"] = {{"prefill", rows(r.last.prefill_steps, 1)},
                    {"decode", rows(r.last.decode_steps, steps)}};
    if (sim)
      j["predicted_profile"] = {
          {"prefill",
           sim_profile_json(sim_profile_ops(*profile_graph, r.last.prefill_steps), *sim, 1)},
          {"decode",
           sim_profile_json(sim_profile_ops(*profile_graph, r.last.decode_steps), *sim, steps)}};
  }
  return j.dump(2) + "\n";
}

}  // namespace asc
