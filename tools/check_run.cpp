#include "tools/check_run.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "importers/onnx/onnx_importer.h"
#include "registry/error.h"
#include "registry/strings.h"
#include "runtime/precision.h"
#include "tools/check_alone.h"
#include "tools/run_inputs.h"

namespace asc::check {
namespace {

using json = nlohmann::ordered_json;

const char* const kFusedAway = "fused away in asc";

std::string status_name(Status s) {
  switch (s) {
    case Status::kPass:
      return "pass";
    case Status::kFail:
      return "fail";
    case Status::kNotCompared:
      return "not compared";
  }
  return "?";
}

std::string fmt(const char* f, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string dtype_cell(const Row& r) {
  if (r.dtype == DType::kUndefined && r.ort_dtype == DType::kUndefined) return "-";
  if (r.dtype == r.ort_dtype || r.dtype == DType::kUndefined)
    return std::string(dtype_name(r.ort_dtype));
  if (r.ort_dtype == DType::kUndefined) return std::string(dtype_name(r.dtype));
  return cat(dtype_name(r.dtype), "/", dtype_name(r.ort_dtype));
}

// Each node with an output outside its rule, run alone on ONNX Runtime's values of its inputs
// (check_alone.h): its rows pass when every one of them passes there.
void judge_alone(Report& r, const CheckOptions& o, const ModelOptions& mo,
                 const std::vector<NamedTensor>& inputs, const std::map<std::string, Tensor>& ort) {
  std::map<int, std::vector<Row*>> failing;  // by position in topological order
  for (Row& row : r.rows)
    if (row.status == Status::kFail) failing[row.node].push_back(&row);
  if (failing.empty()) return;
  const Graph g = import_onnx_file(o.model);  // (the first import went into the model)
  const std::vector<int> order = g.topo_order();
  for (auto& [k, rows] : failing) {
    std::optional<std::map<std::string, Tensor>> got;
    try {
      got = run_alone(g, g.nodes[order[static_cast<size_t>(k)]], ort, inputs, mo);
    } catch (const Error&) {  // (the chained run's verdict stands)
    }
    if (!got) continue;
    bool all = true;
    for (Row* row : rows) {
      auto a = got->find(row->output);
      if (a == got->end()) {
        all = false;
        continue;
      }
      row->alone = true;
      row->alone_metrics = compare(a->second, ort.at(row->output), mo.precision, o.tol);
      all = all && row->alone_metrics.passed;
    }
    if (all)
      for (Row* row : rows) row->status = Status::kPass;
  }
}

}  // namespace

Report run_check(const CheckOptions& o) {
  const auto files = cli::parse_inputs(o.inputs);
  const auto dims = cli::parse_dims(o.dims);
  Report r;
  r.model = o.model;
  Graph g = import_onnx_file(o.model);
  const std::vector<NamedTensor> inputs = cli::make_inputs(g, files, dims, o.seed);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Value& v = g.values[g.inputs[k]];
    const std::string& name = inputs[k].name;
    r.inputs.push_back({name, files.count(name) ? files.at(name) : "random",
                        v.type.shape ? to_string(*v.type.shape) : "unknown rank",
                        inputs[k].tensor.desc()});
  }

  // One row per node output, in topological order (Constant nodes are constants in asc).
  std::vector<std::string> names;
  const std::vector<int> order = g.topo_order();
  for (size_t k = 0; k < order.size(); ++k) {
    const Node& n = g.nodes[order[k]];
    for (int v : n.outputs) {
      if (v < 0) continue;
      Row row;
      row.node = static_cast<int>(k);
      row.node_name = n.name.empty() ? cat(n.op_type, "#", order[k]) : n.name;
      row.op = n.domain.empty() ? n.op_type : cat(n.domain, ".", n.op_type);
      row.output = g.values[v].name;
      names.push_back(row.output);
      r.rows.push_back(std::move(row));
    }
  }

  // ONNX Runtime, every node output marked as a graph output.
  TempDir dir;
  const std::string marked = (std::filesystem::path(dir.path()) / "model.onnx").string();
  const MarkedModel mm = write_marked_model(o.model, marked);
  const std::string data_dir =
      mm.external_data ? std::filesystem::absolute(o.model).parent_path().string() : "";
  OrtResult ort;
  try {
    ort = run_ort(marked, inputs, o.ort, dir.path(), data_dir);
  } catch (const Error& e) {
    throw Error(cat(o.model, ": ", e.what()));
  }
  r.ort_version = ort.version;
  for (const auto& [out, value] : mm.via_f32) {  // bf16 values fetched as f32: back to bf16
    auto it = ort.outputs.find(out);
    if (it == ort.outputs.end()) continue;
    Tensor bf16(DType::kBF16, it->second.shape());
    for (int64_t i = 0; i < bf16.numel(); ++i) bf16.set(i, it->second.at(i));
    ort.outputs.erase(it);
    ort.outputs[value] = bf16;
  }
  for (const auto& [value, why] : mm.skipped) ort.skipped[value] = why;

  // asc, the same node outputs exposed. An exposed value is never fused away (it blocks the fusion
  // it is interior to), so with --fused only the values that survive fusion are exposed: those
  // the model loaded without exposing anything still computes or holds.
  ModelOptions mo;
  mo.threads = o.threads;
  mo.optimize = o.fused;
  mo.precision = parse_precision(o.precision);
  mo.expose = names;
  if (o.fused) {
    ModelOptions plain = mo;
    plain.expose.clear();
    const Model fused(g, plain);
    const Graph& fg = fused.graph();
    r.fusion = fused.fusion().str();
    mo.expose.clear();
    for (const std::string& name : names) {
      const int v = fg.find(name);
      if (v >= 0 && (fg.values[v].producer >= 0 || fg.values[v].constant))
        mo.expose.push_back(name);
    }
  }
  const Model model(std::move(g), mo);
  r.threads = model.device().threads();
  std::map<std::string, Tensor> got;
  for (auto& nt : model.run(inputs)) got.emplace(nt.name, std::move(nt.tensor));

  for (Row& row : r.rows) {
    auto a = got.find(row.output);
    auto b = ort.outputs.find(row.output);
    if (a != got.end()) row.dtype = a->second.dtype();
    if (b != ort.outputs.end()) {
      row.ort_dtype = b->second.dtype();
      row.shape = b->second.shape();
    }
    if (b == ort.outputs.end()) {
      auto s = ort.skipped.find(row.output);
      row.note = s != ort.skipped.end() ? cat("ONNX Runtime: ", s->second)
                                        : "not returned by ONNX Runtime";
    } else if (a == got.end()) {
      row.note = o.fused ? kFusedAway : "not kept by asc";
    } else {
      row.metrics = compare(a->second, b->second, mo.precision, o.tol);
      row.status = row.metrics.passed ? Status::kPass : Status::kFail;
    }
  }
  judge_alone(r, o, mo, inputs, ort.outputs);
  tally(r);
  return r;
}

void tally(Report& r) {
  r.compared = r.failed = 0;
  r.first_failure = -1;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    if (r.rows[i].status == Status::kNotCompared) continue;
    ++r.compared;
    if (r.rows[i].status == Status::kFail && r.failed++ == 0) r.first_failure = static_cast<int>(i);
  }
}

void print_report(const Report& r, const CheckOptions& o, std::FILE* out) {
  std::fprintf(out, "asc-check %s: precision %s, fusion %s, %d threads; ONNX Runtime %s (cpu)\n",
               r.model.c_str(), o.precision.c_str(), o.fused ? "on" : "off", r.threads,
               r.ort_version.c_str());
  if (o.fused) std::fprintf(out, "fusion: %s\n", r.fusion.c_str());
  for (const auto& in : r.inputs)
    std::fprintf(out, "input %s %s (declared %s) %s\n", in.name.c_str(), in.desc.str().c_str(),
                 in.declared.c_str(),
                 in.source == "random" ? cat("random, seed ", o.seed).c_str()
                                       : cat("from ", in.source).c_str());
  const std::vector<std::string> head = {"#",      "node",  "op",         "output",
                                         "dtype",  "shape", "max abs",    "max rel",
                                         "cosine", "rmse",  "mismatches", "result"};
  std::vector<std::vector<std::string>> cells;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const Row& row = r.rows[i];
    const bool cmp = row.status != Status::kNotCompared;
    const Metrics& m = row.metrics;
    std::string result = row.status == Status::kPass   ? (row.alone ? "ok alone" : "ok")
                         : row.status == Status::kFail ? "FAIL"
                                                       : cat("- ", row.note);
    if (static_cast<int>(i) == r.first_failure) result += "  <- first failure";
    cells.push_back({cat(row.node), row.node_name, row.op, row.output, dtype_cell(row),
                     row.ort_dtype == DType::kUndefined ? "-" : to_string(row.shape),
                     cmp ? fmt("%.3g", m.max_abs) : "-", cmp ? fmt("%.3g", m.max_rel) : "-",
                     cmp ? fmt("%.6f", m.cosine) : "-", cmp ? fmt("%.3g", m.rmse) : "-",
                     cmp ? cat(m.mismatches) : "-", result});
  }
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
  }
  auto print_line = [&](const std::vector<std::string>& line) {
    std::string s;
    for (size_t c = 0; c < line.size(); ++c) {
      const bool last = c + 1 == line.size();
      s += line[c];
      if (!last) s += std::string(width[c] - line[c].size() + 2, ' ');
    }
    std::fprintf(out, "%s\n", s.c_str());
  };
  std::fprintf(out, "\n");
  print_line(head);
  for (const auto& line : cells) print_line(line);
  std::fprintf(out, "\n");
  int shown = 0;
  for (const Row& row : r.rows)
    if (row.status == Status::kFail && shown++ < 10)
      std::fprintf(
          out, "FAIL %s (%s) %s: %s%s\n", row.node_name.c_str(), row.op.c_str(), row.output.c_str(),
          row.metrics.reason.c_str(),
          row.alone ? cat("; alone on ONNX Runtime's inputs: ",
                          row.alone_metrics.passed ? "within its rule" : row.alone_metrics.reason)
                          .c_str()
                    : "");
  if (r.failed > 10) std::fprintf(out, "... and %d more failures\n", r.failed - 10);
  int alone = 0;
  for (const Row& row : r.rows) alone += row.alone && row.status == Status::kPass;
  if (alone > 0)
    std::fprintf(out,
                 "%d node outputs outside their rule in the chained run pass with their node run "
                 "alone on ONNX Runtime's inputs (\"ok alone\": error carried from upstream)\n",
                 alone);
  int fused_away = 0;
  for (const Row& row : r.rows) fused_away += row.note == kFusedAway;
  if (fused_away > 0) std::fprintf(out, "%d node outputs fused away in asc\n", fused_away);
  std::fprintf(out, "%zu node outputs: %d compared, %d passed, %d failed, %zu not compared (%s)\n",
               r.rows.size(), r.compared, r.compared - r.failed, r.failed,
               r.rows.size() - static_cast<size_t>(r.compared),
               rules_summary(parse_precision(o.precision), o.tol).c_str());
  if (r.compared == 0 && !r.rows.empty()) std::fprintf(out, "nothing could be compared\n");
  if (r.first_failure >= 0) {
    const Row& f = r.rows[r.first_failure];
    std::fprintf(out, "first failure: #%d %s (%s) output %s\n", f.node, f.node_name.c_str(),
                 f.op.c_str(), f.output.c_str());
  }
  std::fprintf(out, "%s\n", r.passed() ? "PASSED" : "FAILED");
}

json report_json(const Report& r, const CheckOptions& o) {
  auto number = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json j;
  j["model"] = r.model;
  j["ort_version"] = r.ort_version;
  j["precision"] = o.precision;
  j["fused"] = o.fused;
  if (o.fused) j["fusion"] = r.fusion;
  j["threads"] = r.threads;
  j["seed"] = o.seed;
  j["atol"] = o.tol.atol;
  j["rtol"] = o.tol.rtol;
  j["min_cosine"] = o.tol.min_cosine;
  j["explicit_tolerance"] = o.tol.explicit_tolerance;
  j["explicit_min_cosine"] = o.tol.explicit_cosine;
  j["inputs"] = json::array();
  for (const auto& in : r.inputs)
    j["inputs"].push_back({{"name", in.name},
                           {"dtype", std::string(dtype_name(in.desc.dtype))},
                           {"shape", in.desc.shape},
                           {"declared", in.declared},
                           {"source", in.source}});
  j["nodes"] = json::array();
  for (const Row& row : r.rows) {
    json n = {{"index", row.node},
              {"node", row.node_name},
              {"op", row.op},
              {"output", row.output},
              {"status", status_name(row.status)}};
    n["dtype"] = row.dtype == DType::kUndefined ? json(nullptr) : json(dtype_name(row.dtype));
    n["ort_dtype"] =
        row.ort_dtype == DType::kUndefined ? json(nullptr) : json(dtype_name(row.ort_dtype));
    n["shape"] = row.ort_dtype == DType::kUndefined ? json(nullptr) : json(row.shape);
    if (row.status == Status::kNotCompared) {
      n["reason"] = row.note;
    } else {
      const Metrics& m = row.metrics;
      n["rule"] = std::string(rule_name(m.rule));
      n["max_abs_err"] = number(m.max_abs);
      n["max_rel_err"] = number(m.max_rel);
      n["cosine"] = number(m.cosine);
      n["rmse"] = number(m.rmse);
      n["mismatches"] = m.mismatches;
      if (m.rule != Rule::kExact) {
        n["scaled_mismatches"] = m.scaled_mismatches;
        n["ort_mean_abs"] = number(m.scale);
      }
      n["passed"] = row.status == Status::kPass;
      if (!m.passed) n["reason"] = m.reason;
      if (row.alone) {
        const Metrics& a = row.alone_metrics;
        json al = {{"passed", a.passed},
                   {"max_abs_err", number(a.max_abs)},
                   {"max_rel_err", number(a.max_rel)},
                   {"cosine", number(a.cosine)},
                   {"mismatches", a.mismatches}};
        if (a.rule != Rule::kExact) al["scaled_mismatches"] = a.scaled_mismatches;
        if (!a.passed) al["reason"] = a.reason;
        n["alone"] = std::move(al);
      }
    }
    j["nodes"].push_back(std::move(n));
  }
  j["compared"] = r.compared;
  j["failed"] = r.failed;
  if (r.first_failure >= 0) {
    const Row& f = r.rows[r.first_failure];
    j["first_failure"] = {{"index", f.node},
                          {"node", f.node_name},
                          {"op", f.op},
                          {"output", f.output},
                          {"reason", f.metrics.reason}};
  } else {
    j["first_failure"] = nullptr;
  }
  j["passed"] = r.passed();
  return j;
}

}  // namespace asc::check
